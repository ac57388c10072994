// The GM panel of a live fight: every override of POST /fights/ID/overrides (issue 33, "The GM
// overrules the engine") has its control: a figure's damage tracks in the ruleset's own terms,
// its conditions, "move to a cell", remove; add a figure from a template; this round's
// initiative order; end the fight. Each is logged by the server, undone by the Undo button.
// Cells are picked on the map (`pickCell`); while the panel is open a click on a figure
// selects it here instead of acting.

import { post } from "./api.js";
import { $, h, say, clearError } from "./ui.js";

/** Ask the GM for a map cell: the next click on the map calls `done(x, y)` (Esc cancels). */
export function pickCell(live, what, done) {
  live.pick = { what, done };
  document.body.dataset.pick = what;
  say(`Click a cell on the map: ${what} (Esc to cancel)`);
  const note = $("#gm-pick");
  if (note) note.textContent = `picking a cell: ${what}`;
}

export function cancelPick(live) {
  live.pick = null;
  delete document.body.dataset.pick;
  const note = $("#gm-pick");
  if (note) note.textContent = "";
}

function numberInput(attrs) {
  return h("input", { type: "number", inputmode: "numeric", step: 1, ...attrs });
}

export class GmPanel {
  constructor(live) {
    this.live = live;
    this.open = false;
    this.figure = null;     // the id of the figure the controls act on
    this.order = null;      // {base, draft}: this round's order being rearranged
  }

  get board() {
    return this.live.view.board;
  }

  /** Post one override; the fight is redrawn (errors go up to the banner, the fight unchanged). */
  async send(spec, words) {
    const live = this.live;
    await live.orRefresh(() => post(`/fights/${live.fid}/overrides`, spec));
    clearError();
    say(`GM: ${words} (Undo takes it back)`);
    await live.refresh();
  }

  /** A map click while the panel is open or a cell is being picked: true when taken here. */
  onCell(x, y, fig) {
    const live = this.live;
    if (live.pick) {
      const p = live.pick;
      cancelPick(live);
      live.page.run(() => p.done(x, y));
      return true;
    }
    if (!this.open) return false;
    if (fig) {
      this.figure = fig.id;
      live.renderPanel();
      say(`GM: ${fig.name} selected`);
    }
    return true;
  }

  render() {
    const b = this.board;
    if (!this.figure || !b.figures.some((f) => f.id === this.figure)) this.figure = b.actor || (b.figures[0] || {}).id;
    const box = h("details", { class: "gm", id: "gm", open: this.open },
      h("summary", { title: "the GM overrules the engine: health, conditions, position, figures, order, the end" },
        "GM controls"),
      h("p", { class: "hint" }, "While this is open, a click on a figure selects it here."),
      h("p", { id: "gm-pick", class: "hint pick" }, this.live.pick ? `picking a cell: ${this.live.pick.what}` : ""),
      this.figureControls(), this.addControls(), this.orderControls(), this.endControls());
    box.addEventListener("toggle", () => {
      this.open = box.open;
      if (!box.open && this.live.pick) cancelPick(this.live);
    });
    return box;
  }

  figureControls() {
    const b = this.board;
    const f = b.figures.find((x) => x.id === this.figure);
    const sel = h("select", { id: "gm-figure", "aria-label": "the figure the GM changes" },
      b.figures.map((x) => h("option", { value: x.id, selected: x.id === this.figure }, `${x.name} (${x.team})`)));
    sel.addEventListener("change", () => {
      this.figure = sel.value;
      this.live.renderPanel();
    });
    if (!f) return h("fieldset", { class: "gm-figure" }, h("legend", {}, "Figure"), sel);
    const tracks = Object.entries(f.tracks || {}).map(([name, [value, max]]) => {
      const inp = numberInput({ id: `gm-track-${name}`, min: 0, max, value, "aria-label": `${f.name}: ${name}` });
      return h("div", { class: "row gm-track", dataset: { track: name } },
        h("label", {}, `${name} `, inp, h("small", {}, ` of ${max}`)),
        h("button", {
          type: "button", class: "gm-set", dataset: { track: name },
          onclick: () => this.live.page.run(() => this.send(
            { kind: "track", figure: f.id, track: name, value: Number(inp.value) }, `set ${f.id} ${name} ${inp.value}`)),
        }, "Set"));
    });
    const conds = (b.gm && b.gm.conditions) || [];
    const cond = h("select", { id: "gm-cond", "aria-label": "a condition" },
      conds.map((c) => h("option", { value: c }, c + (f.conditions.includes(c) ? " (on)" : ""))));
    const condBtn = (on) => h("button", {
      type: "button", id: on ? "gm-cond-on" : "gm-cond-off",
      onclick: () => this.live.page.run(() => this.send(
        { kind: "condition", figure: f.id, condition: cond.value, on }, `cond ${f.id} ${on ? "+" : "-"}${cond.value}`)),
    }, on ? "Add" : "Remove");
    return h("fieldset", { class: "gm-figure" }, h("legend", {}, "Figure"), sel,
      h("p", { class: "hint", id: "gm-figure-now" },
        `at ${f.at[0]} ${f.at[1]}` + (f.conditions.length ? ` · ${f.conditions.join(", ")}` : "") +
        (f.dead ? " · dead" : f.down ? " · down" : "")),
      tracks.length ? tracks : h("p", { class: "hint" }, "this ruleset gives no track to set"),
      conds.length ? h("div", { class: "row" }, h("label", {}, "condition ", cond), condBtn(true), condBtn(false)) : null,
      h("div", { class: "row" },
        h("button", {
          type: "button", id: "gm-place", title: "put the figure on any free cell (no movement, no reactions)",
          onclick: () => pickCell(this.live, `where ${f.name} goes`, (x, y) =>
            this.send({ kind: "place", figure: f.id, cell: [x, y] }, `place ${f.id} at ${x} ${y}`)),
        }, "Move to a cell…"),
        h("button", {
          type: "button", id: "gm-remove", class: "danger",
          onclick: () => this.live.page.run(() => this.send({ kind: "remove", figure: f.id }, `remove ${f.id}`)),
        }, "Remove from the fight")));
  }

  addControls() {
    const b = this.board;
    const templates = (b.gm && b.gm.templates) || [];
    if (!templates.length) return null;
    const tpl = h("select", { id: "gm-template", "aria-label": "template" }, templates.map((t) => h("option", { value: t }, t)));
    const team = h("select", { id: "gm-team", "aria-label": "team" },
      b.teams.map((t) => h("option", { value: t.name, selected: !t.pc }, t.name)));
    const name = h("input", { id: "gm-name", type: "text", placeholder: "name (optional)", maxlength: 60 });
    return h("fieldset", { class: "gm-add" }, h("legend", {}, "Add a figure"),
      h("div", { class: "row" }, tpl, team), h("div", { class: "row" }, name,
        h("button", {
          type: "button", id: "gm-add",
          onclick: () => pickCell(this.live, `where the new ${tpl.value} stands`, (x, y) => {
            const spec = { kind: "add", template: tpl.value, team: team.value, cell: [x, y] };
            if (name.value.trim()) spec.name = name.value.trim();
            return this.send(spec, `add a ${tpl.value} to ${team.value} at ${x} ${y}`);
          }),
        }, "Pick its cell…")));
  }

  orderControls() {
    const b = this.board;
    const base = JSON.stringify(b.order);
    if (!this.order || this.order.base !== base) this.order = { base, draft: [...b.order] };
    const draft = this.order.draft;
    const name = (id) => (b.figures.find((f) => f.id === id) || { name: id }).name;
    const move = (i, d) => {
      const j = i + d;
      if (j < 0 || j >= draft.length) return;
      [draft[i], draft[j]] = [draft[j], draft[i]];
      this.live.renderPanel();
    };
    const items = draft.map((id, i) => h("li", { dataset: { id } },
      h("span", { class: "who" }, name(id)),
      h("button", { type: "button", class: "up", "aria-label": `${name(id)} earlier`, disabled: i === 0, onclick: () => move(i, -1) }, "↑"),
      h("button", { type: "button", class: "down", "aria-label": `${name(id)} later`, disabled: i === draft.length - 1, onclick: () => move(i, 1) }, "↓")));
    const changed = JSON.stringify(draft) !== base;
    return h("fieldset", { class: "gm-order" }, h("legend", {}, "This round's order"),
      h("ol", { id: "gm-order" }, items),
      h("div", { class: "row" },
        h("button", {
          type: "button", id: "gm-order-apply", disabled: !changed,
          onclick: () => this.live.page.run(() => this.send({ kind: "order", order: [...draft] }, `order ${draft.join(" ")}`)),
        }, "Apply the order"),
        h("button", {
          type: "button", id: "gm-order-reset", disabled: !changed,
          onclick: () => { this.order = null; this.live.renderPanel(); },
        }, "Reset")));
  }

  endControls() {
    const b = this.board;
    const winner = h("select", { id: "gm-winner", "aria-label": "the winner" },
      h("option", { value: "" }, "nobody (a draw)"), b.teams.map((t) => h("option", { value: t.name }, t.name)));
    const reason = h("input", { id: "gm-reason", type: "text", placeholder: "why (optional)", maxlength: 200 });
    return h("fieldset", { class: "gm-end" }, h("legend", {}, "End the fight"),
      h("div", { class: "row" }, winner, reason,
        h("button", {
          type: "button", id: "gm-end", class: "danger",
          onclick: () => this.live.page.run(() => {
            const spec = { kind: "end", winner: winner.value || null };
            if (reason.value.trim()) spec.reason = reason.value.trim();
            return this.send(spec, `end the fight (${winner.value || "draw"})`);
          }),
        }, "End")));
  }
}
