// The map's legend: cover shades, overlay colours and figure markers, each drawn with the very
// CSS classes map.js draws the map with (so the legend cannot show other colours than the map).

import { h } from "./ui.js";

const NS = "http://www.w3.org/2000/svg";

function svg(draw) {
  const s = document.createElementNS(NS, "svg");
  s.setAttribute("viewBox", "0 0 20 20");
  s.setAttribute("width", "20");
  s.setAttribute("height", "20");
  s.setAttribute("aria-hidden", "true");
  s.innerHTML = draw;
  return s;
}

const cell = (cls, extra = "") => svg(`<rect x="1" y="1" width="18" height="18" class="${cls}" ${extra}/>`);
const line = (cls) => svg(`<line x1="2" y1="10" x2="18" y2="10" class="${cls}"/>`);
const badge = (label, letter) =>
  svg(`<g class="badge badge-${label}" transform="translate(10 10)"><circle r="6.5"/><text y="0.5">${letter}</text></g>`);

function item(swatch, text, key) {
  return h("li", { dataset: { key } }, swatch, h("span", {}, text));
}

// How a figure reaches a cell (the overlay's `reach_mode`, in the ruleset's words) -> the
// colour it is drawn in: walking paces, the middle pace, running; a "!" (the move ends the
// turn) adds a dashed edge.
const WALKS = new Set(["walk", "move", "hover", "crawl", "crawl_free", "step", "shift"]);
const HUSTLES = new Set(["hustle", "jog", "crawl_action"]);

export function reachClass(mode) {
  const m = String(mode || "move");
  const base = m.replace(/!$/, "");
  const pace = WALKS.has(base) ? "reach-walk" : HUSTLES.has(base) ? "reach-hustle" : "reach-run";
  return m.endsWith("!") ? `${pace} reach-ends` : pace;
}

/** The legend's items for a map (its ruleset's cover names). */
export function legendItems(coverNames) {
  const names = coverNames && coverNames.length >= 5 ? coverNames : ["no", "light", "medium", "heavy", "full"];
  return [
    ["Terrain", [
      item(cell("floor"), "floor", "floor"),
      item(cell("wall"), "wall (blocks movement and sight)", "wall"),
      item(cell("obstacle"), "obstacle (blocks movement)", "obstacle"),
      item(cell("difficult"), "difficult ground", "difficult"),
      ...[1, 2, 3, 4].map((n) => item(cell(`cover cover-${n}`), `${names[n]} cover`, `cover-${n}`)),
      item(svg('<path d="M10 3l7 7l-7 7l-7 -7z" class="object"/>'), "object to pick up", "object"),
    ]],
    ["Overlays", [
      item(cell("ov-reach reach-walk"), "reach: a walk (r)", "reach"),
      item(cell("ov-reach reach-hustle"), "reach: a hustle or jog", "reach-hustle"),
      item(cell("ov-reach reach-run"), "reach: a run", "reach-run"),
      item(cell("ov-reach reach-run reach-ends"), "reach, dashed: the move ends the turn", "reach-ends"),
      item(cell("ov-hidden"), "out of the acting figure's sight (l)", "hidden"),
      item(cell("ov-threat", 'fill-opacity="0.45"'), "threat: darker = more enemies see it (t)", "threat"),
      item(line("ov-cover-line cover-line-0"), "cover line: no cover (c)", "cover-line-0"),
      item(line("ov-cover-line cover-line-2"), "cover line: some cover; greener = more", "cover-line-2"),
      item(line("ov-cover-line cover-line-blind"), "cover line: out of sight", "cover-line-blind"),
      item(svg('<polyline points="2,16 10,10 18,4" class="plan-path"/>'), "the plan's path", "plan-path"),
      item(svg('<rect x="3" y="3" width="14" height="14" rx="4" class="plan-goal"/>'), "the plan's goal cell", "plan-goal"),
      item(svg('<circle cx="10" cy="10" r="7" class="plan-target"/>'), "the plan's target", "plan-target"),
      item(line("mark-move"), "the last move", "mark-move"),
      item(line("mark-attack"), "the last attack (dashed: a miss)", "mark-attack"),
    ]],
    ["Figures", [
      item(svg('<circle cx="10" cy="10" r="7.5" class="legend-ring"/>'), "acting figure (ringed)", "acting"),
      item(svg('<rect x="2" y="8" width="16" height="4" class="legend-hp"/>'), "health bar: green, yellow, red", "hp"),
      item(badge("prone", "P"), "prone", "prone"),
      item(badge("stunned", "S"), "stunned", "stunned"),
      item(badge("grappled", "G"), "grappled or grappling", "grappled"),
      item(badge("down", "D"), "down", "down"),
      item(badge("dead", "✝"), "dead", "dead"),
    ]],
  ];
}

/** Fill the legend box (index.html's #legend) for a map. */
export function renderLegend(box, map) {
  const body = box.querySelector(".legend-body");
  body.replaceChildren(...legendItems(map && map.cover_names).map(([title, items]) =>
    h("div", { class: "legend-group" }, h("h3", {}, title), h("ul", {}, items))));
}
