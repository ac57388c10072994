// The new-fight form and the fight list of a live server (tactica serve): a bundled scenario
// or the GM's own file (a JSON encounter or an autopilot save), the seed, the dice, who plays
// and the NPC policy, the token; the fights on the server, opened or deleted.

import { del, get, post, put, setToken, token } from "./api.js";
import { $, h, say } from "./ui.js";

// The policies a team can be given: filled from GET /policies (the registry) when the
// setup form or the teams box is drawn; these stand in until then.
export const POLICIES = ["tactical", "aggressive", "cautious", "random", "planner"];

export async function loadPolicies() {
  try {
    const r = await get("/policies");
    POLICIES.splice(0, POLICIES.length, ...r.policies.map((p) => p.name));
  } catch (e) {
    /* an older server: keep the stand-ins */
  }
}

/** What a local file holds: {kind: "scenario"|"state", doc, title, teams}. Throws an Error
 *  with one readable line when it is not something a fight can be made from. */
export function readFightFile(name, text) {
  const lower = name.toLowerCase();
  if (lower.endsWith(".yaml") || lower.endsWith(".yml")) {
    // the server reads YAML (POST /fights {text}); its errors name the line
    if (!text.trim()) throw new Error(`${name}: the file is empty`);
    const m = text.match(/^name:\s*(.+)$/m);
    return { kind: "text", doc: text, title: `encounter ${m ? m[1].trim() : name}`, teams: [] };
  }
  let doc;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new Error(`${name}: not a JSON file (${String(e.message || e).split("\n")[0]})`);
  }
  if (!doc || typeof doc !== "object" || Array.isArray(doc)) {
    throw new Error(`${name}: expected an encounter (a JSON object with map and teams) or an autopilot save`);
  }
  if (doc.format === "tactica-state") {
    const sc = doc.scenario || {};
    const teams = Array.isArray(sc.teams) ? sc.teams.map((t) => t.name) : [];
    // sent as its text: JSON.parse rounds the dice generator's 128-bit state, and a save
    // must resume with exactly its dice (the server parses the text whole)
    return { kind: "state", doc, raw: text, title: `save of ${sc.name || "a fight"}`, teams };
  }
  if (!doc.map || !Array.isArray(doc.teams)) {
    throw new Error(`${name}: expected an encounter (with map and teams) or an autopilot save (format tactica-state)`);
  }
  return { kind: "scenario", doc, title: `encounter ${doc.name || name}`, teams: doc.teams.map((t) => t.name) };
}

function fileText(file) {
  if (file.text) return file.text();
  return new Promise((resolve, reject) => {
    const r = new FileReader();
    r.onload = () => resolve(String(r.result));
    r.onerror = () => reject(new Error(`${file.name}: cannot be read`));
    r.readAsText(file);
  });
}

function when(created) {
  return typeof created === "string" ? created.replace("T", " ") : "";
}

/** Draw the setup form and the fight list into the action panel. `live`: the LiveMode. */
export async function showSetup(live) {
  const [sc, fights] = await Promise.all([get("/scenarios"), get("/fights"), loadPolicies()]);
  const panel = $("#action-panel");
  let opened = null;   // readFightFile's answer for a chosen local file
  const scen = h("select", { id: "setup-scenario" },
    sc.scenarios.map((n) => h("option", { value: n, selected: n === "cortex/warehouse" }, n)));
  const file = h("input", { id: "setup-file", type: "file", accept: ".json,.yaml,.yml,application/json" });
  const fileNote = h("span", { id: "setup-file-note", class: "hint" },
    "an encounter (YAML or JSON) or an autopilot save");
  const seed = h("input", { id: "setup-seed", type: "number", min: 0, value: 0, inputmode: "numeric" });
  const dice = h("select", { id: "setup-dice" },
    h("option", { value: "engine" }, "the engine rolls"), h("option", { value: "manual" }, "I enter the dice"));
  const who = h("select", { id: "setup-roles" },
    h("option", { value: "scenario" }, "the PC teams of the scenario"),
    h("option", { value: "all-pc" }, "every team"),
    h("option", { value: "all-npc" }, "no team (NPCs only)"));
  // "": the server's default NPC of the fight's ruleset (GET /policies: `best` where it decides fast enough)
  const policy = h("select", { id: "setup-policy" },
    [h("option", { value: "" }, "default (best where fast enough)")].concat(POLICIES.map((p) => h("option", { value: p }, p))));
  const tok = h("input", {
    id: "setup-token", type: "password", autocomplete: "off", value: token() || "",
    placeholder: "only if the server has --token",
    onchange: () => setToken(tok.value),
  });
  const forSave = [seed, dice, who];

  file.addEventListener("change", () => live.page.run(async () => {
    opened = null;
    scen.disabled = false;
    forSave.forEach((e) => (e.disabled = false));
    const f = file.files && file.files[0];
    if (!f) {
      fileNote.textContent = "";
      return;
    }
    try {
      opened = readFightFile(f.name, await fileText(f));
    } catch (e) {
      file.value = "";
      fileNote.textContent = "";
      throw e;
    }
    scen.disabled = true;
    if (opened.kind === "state") forSave.forEach((e) => (e.disabled = true));
    fileNote.textContent = `${opened.title}` + (opened.teams.length ? ` - teams: ${opened.teams.join(", ")}` : "") +
      (opened.kind === "state" ? " (seed, dice and who plays as saved)" : "");
    document.body.dataset.opened = opened.kind;
  }));

  const startBtn = h("button", { id: "setup-start", class: "primary", type: "submit" }, "Start the fight");
  const form = h("form", {
    id: "setup",
    onsubmit: (ev) => {
      ev.preventDefault();
      setToken(tok.value);
      const source = !opened ? { scenario: scen.value }
        : opened.kind === "state" ? { text: opened.raw, save: true } : { [opened.kind]: opened.doc };
      live.page.run(() => create(live, source, Number(seed.value || 0), dice.value, who.value, policy.value));
    },
  },
  h("h2", {}, "New fight"),
  h("label", {}, "Scenario ", scen),
  h("label", {}, "or a file ", h("span", { class: "stack" }, file, fileNote)),
  h("label", {}, "Seed ", seed),
  h("label", {}, "Dice ", dice),
  h("label", {}, "The GM plays ", who),
  h("label", {}, "NPC policy ", policy),
  h("label", {}, "Token ", tok),
  h("div", { class: "row" }, startBtn));
  panel.replaceChildren(form, fightList(live, fights.fights));
  $("#fight-title").textContent = "";
  $("#round").textContent = "";
  document.body.dataset.state = "setup";
  scen.focus();
}

function fightList(live, fights) {
  const box = h("div", { class: "fight-list", id: "fight-list" }, h("h3", {}, "Fights on this server"));
  if (!fights.length) {
    box.append(h("p", { class: "hint" }, "None yet (with a data folder, fights are kept across restarts)."));
    return box;
  }
  const sorted = [...fights].sort((a, b) => String(b.created || "").localeCompare(String(a.created || "")));
  box.append(h("ul", {}, sorted.map((f) => h("li", { dataset: { id: f.id } },
    h("button", { class: "link open", type: "button", onclick: () => live.page.run(() => live.open(f.id)) },
      `${f.scenario} - round ${f.round}${f.over ? " (over)" : ""}`),
    h("small", { class: "created" }, when(f.created)),
    h("button", {
      class: "delete", type: "button", title: `delete fight ${f.id}`, "aria-label": `delete ${f.scenario} (${f.id})`,
      onclick: () => live.page.run(() => remove(live, f)),
    }, "Delete")))));
  return box;
}

async function remove(live, f) {
  if (!window.confirm(`Delete the fight ${f.scenario} (round ${f.round}, ${when(f.created)})? This cannot be undone.`)) return;
  await del(`/fights/${encodeURIComponent(f.id)}`);
  say(`Deleted ${f.scenario} (${f.id})`);
  const fights = await get("/fights");
  $("#fight-list").replaceWith(fightList(live, fights.fights));
}

/** Create the fight, apply the form's settings, and open it. */
async function create(live, source, seed, diceMode, roles, policy) {
  const save = Boolean(source.save);   // a save resumes as saved: no seed, no settings
  const body = { ...source };
  delete body.save;
  if (!save) body.seed = seed;
  const r = await post("/fights", body);
  if (!save) {
    const v = await get(`/fights/${r.id}/view?since=${1e9}`);
    const settings = {};
    if (diceMode !== "engine") settings.dice_mode = diceMode;
    const teams = {};
    for (const [t, cur] of Object.entries(v.settings.teams)) {
      const role = roles === "all-pc" ? "pc" : roles === "all-npc" ? "npc" : cur.role;
      if (role !== cur.role || (role === "npc" && policy && policy !== cur.policy)) {
        teams[t] = role === "npc" && policy ? { role, policy } : { role };
      }
    }
    if (Object.keys(teams).length) settings.teams = teams;
    if (Object.keys(settings).length) await put(`/fights/${r.id}/settings`, settings);
  }
  await live.open(r.id);
}
