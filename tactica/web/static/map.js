// The battle map as SVG: terrain, objects, overlays, plan, marks of the last action,
// tokens. Cells are S units square; the SVG scales to its box. Column numbers run along the
// top edge and row numbers down the left one, numbered as the terminal's `move X Y` (from 0).

import { reachClass, renderLegend } from "./legend.js";
import { blobUrl } from "./api.js";

const S = 32;
const M = 14;   // the margin that holds the coordinates
const NS = "http://www.w3.org/2000/svg";
export const TEAM_COLOURS = ["#2f6fde", "#d8452b", "#2e9d57", "#c48a12", "#8a4fd1", "#1b9aa6"];
const BADGES = [
  ["prone", "P", "prone"],
  ["stunned", "S", "stunned"],
  ["grappled", "G", "grappled"],
  ["grappling", "G", "grappling"],
];

function el(name, attrs = {}, parent = null) {
  const e = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  if (parent) parent.appendChild(e);
  return e;
}

function initials(name) {
  const words = name.split(/[\s_-]+/).filter(Boolean);
  if (words.length > 1) return (words[0][0] + words[words.length - 1][0]).toUpperCase();
  return name.slice(0, 2).toUpperCase();
}

export class BattleMap {
  constructor(svg) {
    this.svg = svg;
    this.map = null;
    this.board = null;
    this.teamColour = {};
    this.onCell = null;     // (x, y, figure|null, event) on click
    this.onHover = null;    // (x, y, figure|null, event) on move; (null) on leave
    this.layers = {};
    for (const name of ["coords", "terrain", "grid", "objects", "overlay", "marks", "plan", "tokens", "hover"]) {
      this.layers[name] = el("g", { class: `layer-${name}` }, svg);
    }
    svg.addEventListener("click", (ev) => this._pointer(ev, this.onCell));
    svg.addEventListener("mousemove", (ev) => this._pointer(ev, this.onHover));
    svg.addEventListener("mouseleave", () => {
      this.layers.hover.replaceChildren();
      if (this.onHover) this.onHover(null);
    });
  }

  cellAt(ev) {
    if (!this.map) return null;
    const pt = this.svg.createSVGPoint();
    pt.x = ev.clientX;
    pt.y = ev.clientY;
    const ctm = this.svg.getScreenCTM();
    if (!ctm) return null;
    const p = pt.matrixTransform(ctm.inverse());
    const x = Math.floor(p.x / S);
    const y = Math.floor(p.y / S);
    if (x < 0 || y < 0 || x >= this.map.width || y >= this.map.height) return null;
    return [x, y];
  }

  figureAt(x, y) {
    if (!this.board) return null;
    const here = this.board.figures.filter((f) => f.at[0] === x && f.at[1] === y);
    return here.find((f) => !f.down) || here[0] || null;
  }

  _pointer(ev, fn) {
    const c = this.cellAt(ev);
    if (!c) {
      if (ev.type === "mousemove") {
        this.layers.hover.replaceChildren();
        if (this.onHover) this.onHover(null);
      }
      return;
    }
    if (ev.type === "mousemove") this._hoverBox(c[0], c[1]);
    if (fn) fn(c[0], c[1], this.figureAt(c[0], c[1]), ev);
  }

  _hoverBox(x, y) {
    const g = this.layers.hover;
    g.replaceChildren();
    el("rect", { x: x * S + 1, y: y * S + 1, width: S - 2, height: S - 2, class: "hover-cell" }, g);
  }

  setMap(map, rows) {
    const changed = !this.map || this.map.width !== map.width || this.map.height !== map.height ||
      (this.rows || []).join("\n") !== (rows || map.rows).join("\n") ||
      JSON.stringify(this.map.walls || []) !== JSON.stringify(map.walls || []) ||
      (this.map.image || {}).key !== (map.image || {}).key;
    this.map = map;
    if (!changed) return;
    this.rows = rows || map.rows;
    this.svg.setAttribute("viewBox", `${-M} ${-M} ${map.width * S + M} ${map.height * S + M}`);
    this.svg.dataset.width = map.width;
    this.svg.dataset.height = map.height;
    this.svg.dataset.cell = S;
    this.svg.dataset.margin = M;
    this._coords(map.width, map.height);
    const legend = document.querySelector("#legend");
    if (legend) renderLegend(legend, map);
    const t = this.layers.terrain;
    t.replaceChildren();
    el("rect", { x: 0, y: 0, width: map.width * S, height: map.height * S, class: "floor" }, t);
    if (map.image && map.image.url) this._backdrop(map, t);
    this.rows.forEach((row, y) => {
      [...row].forEach((ch, x) => {
        const info = map.terrain[ch];
        if (!info || (!info.blocks_move && !info.blocks_sight && !info.cover && !info.difficult)) return;
        let cls = "difficult";
        if (info.blocks_sight && info.blocks_move) cls = "wall";
        else if (info.cover) cls = `cover cover-${Math.min(4, info.cover)}`;
        else if (info.blocks_move) cls = "obstacle";
        const r = el("rect", { x: x * S, y: y * S, width: S, height: S, class: cls }, t);
        r.dataset.terrain = info.name;
      });
    });
    if ((map.walls || []).length) {
      const w = map.walls.map(([x0, y0, x1, y1]) => `M${x0 * S} ${y0 * S}L${x1 * S} ${y1 * S}`).join("");
      el("path", { d: w, class: "edge-walls" }, t);
    }
    const g = this.layers.grid;
    g.replaceChildren();
    let d = "";
    for (let x = 1; x < map.width; x++) d += `M${x * S} 0V${map.height * S}`;
    for (let y = 1; y < map.height; y++) d += `M0 ${y * S}H${map.width * S}`;
    el("path", { d, class: "grid-lines" }, g);
  }

  /** The map's picture (a Universal VTT map) under the grid: its top-left at cell (0, 0), one
   * grid square of the picture a cell. Fetched with the token, shown from a blob URL. */
  _backdrop(map, parent) {
    const img = el("image", { x: 0, y: 0, width: map.width * S, height: map.height * S,
      preserveAspectRatio: "none", class: "backdrop" }, parent);
    img.dataset.key = map.image.key;
    img.dataset.loaded = "0";
    blobUrl(map.image.url).then((url) => {
      img.addEventListener("load", () => { img.dataset.loaded = "1"; }, { once: true });
      img.setAttribute("href", url);
    }).catch(() => { img.dataset.loaded = "failed"; });
  }

  /** Column numbers along the top, row numbers down the left (as `move X Y`). */
  _coords(w, h) {
    const g = this.layers.coords;
    g.replaceChildren();
    for (let x = 0; x < w; x++) {
      const t = el("text", { x: x * S + S / 2, y: -M / 2, class: "coord col" }, g);
      t.dataset.x = x;
      t.textContent = String(x);
    }
    for (let y = 0; y < h; y++) {
      const t = el("text", { x: -M / 2, y: y * S + S / 2, class: "coord row" }, g);
      t.dataset.y = y;
      t.textContent = String(y);
    }
  }

  terrainAt(x, y) {
    if (!this.map) return null;
    const ch = (this.rows || this.map.rows)[y][x];
    return this.map.terrain[ch] || { name: "floor", cover: 0 };
  }

  setBoard(board, teams) {
    this.board = board;
    this.teamColour = {};
    (teams || board.teams).forEach((t, i) => (this.teamColour[t.name] = TEAM_COLOURS[i % TEAM_COLOURS.length]));
    this._objects(board.objects || []);
    this._tokens(board);
  }

  colour(team) {
    return this.teamColour[team] || "#777";
  }

  _objects(objects) {
    const g = this.layers.objects;
    g.replaceChildren();
    for (const o of objects) {
      const [x, y] = o.at;
      const d = el("path", {
        d: `M${x * S + S / 2} ${y * S + 5}l${S / 2 - 6} ${S / 2 - 5}l-${S / 2 - 6} ${S / 2 - 5}l-${S / 2 - 6} -${S / 2 - 5}z`,
        class: "object",
      }, g);
      const title = el("title", {}, d);
      title.textContent = o.items.join(", ");
    }
  }

  _tokens(board) {
    const g = this.layers.tokens;
    g.replaceChildren();
    const figures = [...board.figures].sort((a, b) => Number(b.down) - Number(a.down));
    for (const f of figures) {
      const [x, y] = f.at;
      const tok = el("g", {
        class: "token" + (f.id === board.actor ? " acting" : "") + (f.down ? " down" : "") + (f.dead ? " dead" : ""),
        transform: `translate(${x * S + S / 2} ${y * S + S / 2})`,
      }, g);
      tok.dataset.id = f.id;
      tok.dataset.team = f.team;
      if (f.id === board.actor) el("circle", { r: S * 0.56, class: "acting-ring" }, tok);
      el("circle", { r: S * 0.4, fill: this.colour(f.team), class: "disc" }, tok);
      const txt = el("text", { class: "initials", y: 1 }, tok);
      txt.textContent = initials(f.name);
      const frac = f.max > 0 ? Math.max(0, Math.min(1, f.hp / f.max)) : 0;
      el("rect", { x: -S * 0.42, y: -S * 0.5, width: S * 0.84, height: 4, class: "hp-bg" }, tok);
      el("rect", {
        x: -S * 0.42, y: -S * 0.5, width: S * 0.84 * frac, height: 4,
        class: "hp " + (frac > 0.6 ? "hp-ok" : frac > 0.3 ? "hp-mid" : "hp-low"),
      }, tok);
      const badges = [];
      for (const [cond, letter, label] of BADGES) {
        if (f.conditions.includes(cond) && !badges.some((b) => b[0] === letter)) badges.push([letter, label]);
      }
      if (f.dead) badges.push(["✝", "dead"]);
      else if (f.down) badges.push(["D", "down"]);
      badges.forEach(([letter, label], i) => {
        const b = el("g", { class: `badge badge-${label}`, transform: `translate(${S * 0.36 - i * 11} ${S * 0.33})` }, tok);
        b.dataset.badge = label;
        el("circle", { r: 5.5 }, b);
        const bt = el("text", { y: 0.5 }, b);
        bt.textContent = letter;
      });
      const name = el("text", { class: "name", y: S * 0.5 + 7 }, tok);
      name.textContent = f.name;
      const title = el("title", {}, tok);
      title.textContent = `${f.name} (${f.team}) ${f.hp}/${f.max}` + (f.conditions.length ? ` - ${f.conditions.join(", ")}` : "");
    }
  }

  /** Overlay layers: reach cells, line of sight, threat, cover lines from a cell. */
  setOverlays(ov, show) {
    const g = this.layers.overlay;
    g.replaceChildren();
    if (!ov || !this.map) return;
    const w = this.map.width;
    const open = (x, y) => !this.terrainAt(x, y).blocks_move;
    if (show.threat && ov.threat && ov.threat_max > 0) {
      ov.threat.forEach((n, i) => {
        const x = i % w, y = Math.floor(i / w);
        if (!n || !open(x, y)) return;
        el("rect", { x: x * S, y: y * S, width: S, height: S, class: "ov-threat", "fill-opacity": (0.12 + 0.45 * n / ov.threat_max).toFixed(2) }, g);
      });
    }
    if (show.los && ov.los) {
      ov.los.forEach((v, i) => {
        const x = i % w, y = Math.floor(i / w);
        if (v || !open(x, y)) return;
        el("rect", { x: x * S, y: y * S, width: S, height: S, class: "ov-hidden" }, g);
      });
    }
    if (show.reach && ov.reach) {
      ov.reach.forEach(([x, y], i) => {
        const mode = (ov.reach_mode && ov.reach_mode[i]) || "move";
        const r = el("rect", {
          x: x * S + 3, y: y * S + 3, width: S - 6, height: S - 6, rx: 4, class: `ov-reach ${reachClass(mode)}`,
        }, g);
        r.dataset.cell = `${x},${y}`;
        r.dataset.mode = mode;
      });
    }
    if (show.cover && ov.cover && ov.cell) {
      const [cx, cy] = ov.cell;
      for (const c of ov.cover) {
        const [ex, ey] = c.at;
        const line = el("line", {
          x1: cx * S + S / 2, y1: cy * S + S / 2, x2: ex * S + S / 2, y2: ey * S + S / 2,
          class: `ov-cover-line cover-line-${c.los ? Math.min(4, c.cover) : "blind"}`,
        }, g);
        line.dataset.enemy = c.id;
        const mx = (cx + ex) / 2 * S + S / 2, my = (cy + ey) / 2 * S + S / 2;
        const label = el("text", { x: mx, y: my, class: "ov-cover-label" }, g);
        label.textContent = c.los ? c.cover_name : "no sight";
      }
    }
  }

  /** The plan of the acting figure: a path, a target ring, the goal cell. */
  setPlan(plan) {
    const g = this.layers.plan;
    g.replaceChildren();
    if (!plan) return;
    if (plan.path && plan.path.length > 1) {
      const pts = plan.path.map(([x, y]) => `${x * S + S / 2},${y * S + S / 2}`).join(" ");
      el("polyline", { points: pts, class: "plan-path" }, g);
    }
    if (plan.goal) {
      const [x, y] = plan.goal;
      el("rect", { x: x * S + 4, y: y * S + 4, width: S - 8, height: S - 8, rx: 6, class: "plan-goal" }, g);
    }
    if (plan.target && plan.from) {
      const [x1, y1] = plan.from, [x2, y2] = plan.target;
      el("line", { x1: x1 * S + S / 2, y1: y1 * S + S / 2, x2: x2 * S + S / 2, y2: y2 * S + S / 2, class: "plan-line" }, g);
      el("circle", { cx: x2 * S + S / 2, cy: y2 * S + S / 2, r: S * 0.6, class: "plan-target" }, g);
    }
  }

  /** What the last step did: moves as arrows, attacks as lines (from its events). */
  setMarks(events) {
    const g = this.layers.marks;
    g.replaceChildren();
    if (!this.board) return;
    const pos = Object.fromEntries(this.board.figures.map((f) => [f.id, f.at]));
    for (const e of events || []) {
      if (e.type === "move" && Array.isArray(e.from) && Array.isArray(e.to)) {
        el("line", {
          x1: e.from[0] * S + S / 2, y1: e.from[1] * S + S / 2, x2: e.to[0] * S + S / 2, y2: e.to[1] * S + S / 2,
          class: "mark-move",
        }, g);
        el("circle", { cx: e.from[0] * S + S / 2, cy: e.from[1] * S + S / 2, r: 4, class: "mark-from" }, g);
      } else if (e.type === "attack" && pos[e.actor] && pos[e.target]) {
        const [x1, y1] = pos[e.actor], [x2, y2] = pos[e.target];
        el("line", {
          x1: x1 * S + S / 2, y1: y1 * S + S / 2, x2: x2 * S + S / 2, y2: y2 * S + S / 2,
          class: "mark-attack" + (e.result === "miss" ? " miss" : ""),
        }, g);
      }
    }
  }

  /** Client coordinates of a cell's centre (for menus next to it). */
  cellCentre(x, y) {
    const pt = this.svg.createSVGPoint();
    pt.x = x * S + S / 2;
    pt.y = y * S + S / 2;
    const p = pt.matrixTransform(this.svg.getScreenCTM());
    return [p.x, p.y];
  }
}
