// The fight's settings in the side panel (the teams box): who plays each team and with which
// policy, who rolls each team's dice (the engine or the GM by hand: dice per side), and the
// NPC behaviour a GM sets per team and per figure (docs/npc-behaviour.md). Every change is a
// PUT /fights/ID/settings; the view's settings are shown back.

import { put } from "./api.js";
import { POLICIES } from "./setup.js";
import { pickCell } from "./gm.js";
import { h } from "./ui.js";

const DOWNED = ["default", "spare", "finish"];
const MORALE = ["none", "fall_back", "surrender"];

function policyOptions(current) {
  const names = POLICIES.includes(current) ? POLICIES : POLICIES.concat([current]);
  return names.map((p) => h("option", { value: p, selected: p === current }, p));
}

function options(values, current, words = {}) {
  return values.map((v) => h("option", { value: v, selected: v === current }, words[v] || v));
}

async function putSettings(live, body) {
  await put(`/fights/${live.fid}/settings`, body);
  await live.refresh();
}

/** Who rolls `team`'s dice now: its own entry, else the fight's dice mode. */
export function teamDice(settings, team) {
  return (settings.dice && settings.dice[team]) || settings.dice_mode;
}

/** The settings box: who plays each team, its policy, who rolls its dice, NPC behaviour. */
export function teamsBox(live) {
  const st = live.view.settings;
  const rows = Object.entries(st.teams).map(([team, r]) => {
    const role = h("select", { class: "team-role", "aria-label": `${team}: who plays` },
      h("option", { value: "pc", selected: r.role === "pc" }, "the GM"),
      h("option", { value: "npc", selected: r.role === "npc" }, "a policy"));
    const pol = h("select", { class: "team-policy", "aria-label": `${team}: NPC policy`, disabled: r.role !== "npc" },
      policyOptions(r.policy || "tactical"));
    const change = () => live.page.run(() =>
      putSettings(live, { teams: { [team]: role.value === "npc" ? { role: "npc", policy: pol.value } : { role: "pc" } } }));
    role.addEventListener("change", change);
    pol.addEventListener("change", change);
    const dice = h("select", { class: "team-dice", "aria-label": `${team}: who rolls its dice`, title: "who rolls this team's dice" },
      options(["engine", "manual"], teamDice(st, team), { engine: "dice: engine", manual: "dice: by hand" }));
    dice.addEventListener("change", () => live.page.run(() =>
      // the server replaces every per-name entry: send them all
      putSettings(live, { dice: { ...(st.dice || {}), [team]: dice.value } })));
    // `best` says which player it is in this fight (and why, where not its ruleset's usual one)
    const as = r.role === "npc" && r.plays_as
      ? h("span", { class: "plays-as", title: r.why || "" }, r.why ? `as ${r.plays_as} (why?)` : `as ${r.plays_as}`) : null;
    return h("li", { dataset: { team } },
      h("span", { class: "dot", style: `background:${live.map.colour(team)}` }), h("span", { class: "team-name" }, team),
      role, pol, as, dice);
  });
  const box = h("details", { class: "teams", id: "teams", open: Boolean(live.teamsOpen) },
    h("summary", {}, "Who plays each team, dice, behaviour"), h("ul", {}, rows), behaviourForm(live));
  box.addEventListener("toggle", () => (live.teamsOpen = box.open));
  return box;
}

/** Save the behaviour; the server's answer is what holds (said when it kept other settings). */
async function saveBehaviour(live, want) {
  const got = await put(`/fights/${live.fid}/settings`, { behaviour: want });
  await live.refresh();
  const sorted = (x) => (x && typeof x === "object" && !Array.isArray(x)
    ? Object.fromEntries(Object.keys(x).sort().map((k) => [k, sorted(x[k])])) : x);
  const norm = (b) => JSON.stringify(["teams", "figures"].map((k) => sorted((b && b[k]) || {})));
  if (norm(got.behaviour) !== norm(want)) {
    throw new Error(`the server kept: ${behaviourWords(got.behaviour)} (it cannot go back to the default behaviour yet)`);
  }
}

/** Words for the behaviour settings now in force (the view's settings.behaviour). */
export function behaviourWords(b) {
  const parts = [];
  for (const kind of ["teams", "figures"]) {
    for (const [name, s] of Object.entries((b && b[kind]) || {})) {
      const bits = Object.entries(s).map(([k, v]) =>
        k === "hold" && v ? `hold ${v.cell[0]} ${v.cell[1]} within ${v.radius} m` : `${k} ${v}`);
      parts.push(`${name}: ${bits.join(", ") || "default"}`);
    }
  }
  return parts.length ? parts.join("; ") : "default behaviour (the policies as they are)";
}

/** NPC behaviour: per NPC team downed, morale and break_at; per figure protect and hold. */
function behaviourForm(live) {
  const st = live.view.settings;
  const cur = st.behaviour || {};
  const b = live.view.board;
  const npcTeams = Object.entries(st.teams).filter(([, r]) => r.role === "npc").map(([t]) => t);
  const teamRows = npcTeams.map((team) => {
    const s = (cur.teams && cur.teams[team]) || {};
    return h("li", { class: "behave-team", dataset: { team } }, h("span", { class: "team-name" }, team),
      h("select", { class: "behave-downed", "aria-label": `${team}: downed PCs` }, options(DOWNED, s.downed || "default",
        { default: "downed: as the policy", spare: "spare the downed", finish: "finish the downed" })),
      h("select", { class: "behave-morale", "aria-label": `${team}: morale` }, options(MORALE, s.morale || "none",
        { none: "morale: never breaks", fall_back: "fall back", surrender: "surrender" })),
      h("label", { title: "morale breaks when this share of the side is down" }, "at ",
        h("input", { class: "behave-break", type: "number", min: 0.05, max: 1, step: 0.05, value: s.break_at ?? 0.5,
          "aria-label": `${team}: break at` })));
  });
  const npcFigures = b.figures.filter((f) => npcTeams.includes(f.team));
  if (!live.behaveFigure || !npcFigures.some((f) => f.id === live.behaveFigure)) {
    live.behaveFigure = npcFigures.length ? npcFigures[0].id : null;
  }
  const who = h("select", { id: "behave-figure", "aria-label": "the figure" },
    npcFigures.map((f) => h("option", { value: f.id, selected: f.id === live.behaveFigure }, f.name)));
  let fig = figureControls(live, cur, npcFigures);
  // another figure: only its controls are redrawn (the team settings being edited stay)
  who.addEventListener("change", () => {
    live.behaveFigure = who.value;
    const next = figureControls(live, cur, npcFigures);
    fig.box.replaceWith(next.box);
    fig = next;
  });
  const form = h("form", { id: "behave", class: "behave", onsubmit: (ev) => {
    ev.preventDefault();
    live.page.run(() => saveBehaviour(live, readBehaviour(form, cur, fig)));
  } },
  h("h3", {}, "NPC behaviour"),
  npcTeams.length ? h("ul", {}, teamRows) : h("p", { class: "hint" }, "no NPC team"),
  npcFigures.length ? h("div", { class: "row behave-fig" }, who) : null,
  fig.box,
  h("div", { class: "row" }, h("button", { type: "submit", id: "behave-save" }, "Save behaviour")),
  h("p", { class: "hint", id: "behave-now" }, `Now: ${behaviourWords(cur)}`));
  return form;
}

/** One NPC figure's settings: whom it protects, the cell it holds (typed or picked) and how far. */
function figureControls(live, cur, npcFigures) {
  const b = live.view.board;
  const me = npcFigures.find((f) => f.id === live.behaveFigure);
  if (!me) return { box: h("div", { class: "behave-fig" }), me: null };
  const fs = (cur.figures && cur.figures[me.id]) || {};
  const protect = h("select", { id: "behave-protect", "aria-label": "protect" },
    h("option", { value: "" }, "protects nobody"),
    b.figures.filter((f) => f.team === me.team && f.id !== me.id)
      .map((f) => h("option", { value: f.id, selected: fs.protect === f.id }, `protects ${f.name}`)));
  const hold = h("input", { id: "behave-hold", type: "text", placeholder: "hold X Y", size: 7,
    value: fs.hold ? `${fs.hold.cell[0]} ${fs.hold.cell[1]}` : "", "aria-label": "hold the cell X Y" });
  const radius = h("input", { id: "behave-radius", type: "number", min: 0, step: 0.5, value: fs.hold ? fs.hold.radius : 3,
    "aria-label": "hold radius in metres" });
  const box = h("div", { class: "behave-fig" },
    h("div", { class: "row" }, protect),
    h("div", { class: "row" }, hold,
      h("button", { type: "button", id: "behave-hold-pick", title: "pick the held cell on the map",
        onclick: () => pickCell(live, `the cell ${me.name} holds`, (x, y) => {
          hold.value = `${x} ${y}`;
          hold.focus();
        }) }, "Pick…"),
      h("label", {}, "within ", radius, " m")));
  return { box, me, protect, hold, radius };
}

function readBehaviour(form, cur, { me, protect, hold, radius }) {
  const teams = { ...(cur.teams || {}) };
  for (const li of form.querySelectorAll("li.behave-team")) {
    const t = {};
    const downed = li.querySelector(".behave-downed").value;
    const morale = li.querySelector(".behave-morale").value;
    if (downed !== "default") t.downed = downed;
    if (morale !== "none") {
      t.morale = morale;
      t.break_at = Number(li.querySelector(".behave-break").value);
    }
    if (Object.keys(t).length) teams[li.dataset.team] = t;
    else delete teams[li.dataset.team];
  }
  const figures = { ...(cur.figures || {}) };
  if (me) {
    const f = {};
    if (protect.value) f.protect = protect.value;
    const m = hold.value.trim().match(/^(\d+)[\s,]+(\d+)$/);
    if (hold.value.trim() && !m) throw new Error(`hold: "${hold.value}" is not a cell (expected X Y, e.g. 3 1)`);
    if (m) f.hold = { cell: [Number(m[1]), Number(m[2])], radius: Number(radius.value || 0) };
    if (Object.keys(f).length) figures[me.id] = f;
    else delete figures[me.id];
  }
  return { teams, figures };
}
