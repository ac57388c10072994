// Manual dice on a live fight: the page asks for every roll an action makes (who rolls what
// against what), checks each face, and 'Roll for me' fills in the faces the engine rolls from
// the fight's own seeded dice (POST /fights/ID/dice with roll: true; never the browser's random numbers).

import { post } from "./api.js";
import { $, h, say, clearError, scrollLog } from "./ui.js";

/** An action as a request body (the /legal or /suggest object, its cell as [x, y]). */
export function actionBody(a) {
  const b = { type: a.type };
  if (a.target) b.target = a.target;
  if (a.at) b.cell = a.at;
  else if (a.cell !== undefined && a.cell !== null) b.cell = a.cell;
  if (a.weapon) b.weapon = a.weapon;
  if (a.option) b.option = a.option;
  return b;
}

/** Who rolls, against what, and every modifier by name, as the rules announce the roll; with
 *  dice per side, a word that the engine rolls the other side's dice. */
function rollFacts(req, perSide) {
  const mods = (req.modifiers || []).filter((m) => Array.isArray(m) && m.length === 2);
  return h("div", { id: "dice-facts", class: "hint" },
    req.roller ? h("div", { id: "dice-roller" }, `${req.roller} rolls ${req.pool || ""}`.trim() + (req.keep ? ` (${req.keep})` : "")) : null,
    req.against ? h("div", { id: "dice-against" }, req.against) : null,
    mods.length ? h("ul", { id: "dice-mods" }, mods.map(([name, v]) =>
      h("li", {}, `${name} ${typeof v === "number" ? (v >= 0 ? "+" : "") + v : v}`))) : null,
    perSide ? h("div", { id: "dice-side" }, "Only the hand rolls are asked; the engine rolls the rest.") : null);
}

/** LiveMode's manual-dice steps (mixed into its prototype). */
export const DiceSteps = {
  async startDice(action, label) {
    const ask = { action: actionBody(action), actor: this.view.board.actor, dice: [] };
    const r = await this.orRefresh(() => post(`/fights/${this.fid}/dice`, ask));
    if (!r.request) return this.resolve(action, []);
    this.dice = { action, label, faces: [], request: r.request };
    this.renderDice();
  },

  renderDice() {
    const d = this.dice;
    const req = d.request;
    const inputs = req.sides.map((s, i) => h("input", {
      class: "die", type: "text", inputmode: "numeric", "aria-label": `d${s}`, placeholder: `d${s}`,
      dataset: { sides: s, i },
    }));
    const form = h("form", { id: "dice", class: "dice", onsubmit: (ev) => { ev.preventDefault(); this.page.run(() => this.submitDice(inputs)); } },
      h("div", { class: "plan-label" }, `Dice for: ${d.label}`),
      h("p", { id: "dice-prompt" }, req.text.replace(/ - enter .*$/, "")),
      rollFacts(req, this.perSide()),
      h("div", { class: "dice-row" }, inputs.map((inp, i) => h("label", {}, h("span", {}, `d${req.sides[i]}`), inp))),
      d.faces.length ? h("p", { class: "hint" }, `entered so far: ${d.faces.join(" ")}`) : null,
      h("div", { class: "row" },
        h("button", { id: "dice-ok", class: "primary", type: "submit" }, "Enter the dice (Enter)"),
        h("button", {
          id: "dice-roll", type: "button", title: "the engine rolls these dice from the fight's seeded dice",
          onclick: () => this.page.run(() => this.rollForMe(inputs)),
        }, "Roll for me"),
        h("button", { id: "dice-cancel", type: "button", onclick: () => this.cancelDice() }, "Cancel (Esc)")));
    $("#action-panel").replaceChildren(form);
    scrollLog();
    inputs[0].focus();
  },

  /** 'Roll for me': the engine's faces for this roll, drawn from the fight's seeded dice (the
   *  same seed rolls the same faces), filled in for the GM to read and enter. */
  async rollForMe(inputs) {
    const d = this.dice;
    const r = await post(`/fights/${this.fid}/dice`, {
      action: actionBody(d.action), actor: this.view.board.actor, dice: d.faces, roll: true,
    });
    if (!r.rolled || this.dice !== d) return;
    inputs.forEach((inp, i) => (inp.value = String(r.rolled[i])));
    inputs[inputs.length - 1].focus();
  },

  async submitDice(inputs) {
    const faces = inputs.map((inp) => inp.value.trim());
    const bad = faces.findIndex((v) => !/^\d+$/.test(v));
    if (bad >= 0) {
      say(`die ${bad + 1}: enter a whole number (a d${inputs[bad].dataset.sides} shows 1..${inputs[bad].dataset.sides})`, "error");
      inputs[bad].focus();
      return;
    }
    const d = this.dice;
    const all = d.faces.concat(faces.map(Number));
    const r = await post(`/fights/${this.fid}/dice`, { action: actionBody(d.action), actor: this.view.board.actor, dice: all });
    clearError();
    d.faces = all;
    if (r.request) {
      d.request = r.request;
      this.renderDice();
      return;
    }
    this.dice = null;
    await this.resolve(d.action, all);
  },

  cancelDice() {
    this.dice = null;
    this.renderPanel();
  },
};
