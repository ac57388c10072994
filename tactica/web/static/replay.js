// Replay mode (tactica view LOG): a recorded fight frame by frame, with step, play/pause
// and scrub controls. The fight and frame are in the URL (?fight=N&frame=K).

import { get, query } from "./api.js";
import { $, h, say, renderOrder, renderLog, tooltip, cellLines } from "./ui.js";

const SPEEDS = [0.5, 1, 2, 4, 8];

export class ReplayMode {
  constructor(page) {
    this.name = "replay";
    this.page = page;
    this.map = page.map;
    this.data = null;
    this.k = 0;
    this.timer = null;
    this.speed = 1;
    this.hover = null;
    this.hoverTimer = null;
    this.ov = null;
    for (const id of ["#undo", "#new-fight", "#dice-mode-label"]) {
      const e = $(id);
      if (e) e.hidden = true;
    }
  }

  async start() {
    const q = new URLSearchParams(location.search);
    const fight = q.has("fight") ? Number(q.get("fight")) : null;
    await this.load(Number.isInteger(fight) ? fight : null, Number(q.get("frame") || 0));
  }

  async load(fight, frame = 0) {
    this.pause();
    this.data = await get(`/replay${query({ fight })}`);
    this.buildControls();
    if (this.data.warning) say(this.data.warning, "error");
    const file = this.data.source.split(/[\\/]/).pop();
    $("#fight-title").textContent = `${this.data.scenario} (${this.data.ruleset}) - replay of ${file}`;
    $("#fight-title").title = this.data.source;
    await this.show(Math.max(0, Math.min(this.data.frames.length - 1, frame || 0)));
  }

  buildControls() {
    const d = this.data;
    const n = d.frames.length;
    const btn = (id, label, title, fn) => h("button", { id, title, "aria-label": title, onclick: fn }, label);
    const scrub = h("input", {
      id: "scrub", type: "range", min: 0, max: n - 1, value: 0, step: 1, "aria-label": "frame",
      oninput: (ev) => { this.pause(); this.page.run(() => this.show(Number(ev.target.value))); },
    });
    const speed = h("select", {
      id: "speed", "aria-label": "speed",
      onchange: (ev) => { this.speed = Number(ev.target.value); if (this.timer) { this.pause(); this.play(); } },
    }, SPEEDS.map((s) => h("option", { value: s, selected: s === this.speed }, `${s}×`)));
    const fights = d.fights.length > 1
      ? h("label", { class: "fight-pick" }, "Fight ",
        h("select", {
          id: "fight-select",
          onchange: (ev) => this.page.run(() => this.load(Number(ev.target.value), 0)),
        }, d.fights.slice(0, 1000).map((i) => h("option", { value: i, selected: i === d.fight }, String(i)))))
      : null;
    $("#action-panel").replaceChildren(h("div", { class: "replay" },
      h("div", { class: "plan-label" }, `Replay: ${d.kind}, ${n - 1} steps`),
      h("div", { id: "frame-title", class: "plan-cmd" }),
      h("div", { class: "controls" },
        btn("first", "|◀", "first step (Home)", () => this.go(0)),
        btn("prev", "◀", "step back (←)", () => this.go(this.k - 1)),
        btn("play", "Play", "play / pause (space)", () => this.toggle()),
        btn("next", "▶", "step forward (→)", () => this.go(this.k + 1)),
        btn("last", "▶|", "last step (End)", () => this.go(n - 1)),
        speed),
      scrub,
      h("div", { id: "frame-label", class: "hint" }),
      fights));
  }

  go(k) {
    this.pause();
    return this.page.run(() => this.show(k));
  }

  async show(k) {
    const d = this.data;
    k = Math.max(0, Math.min(d.frames.length - 1, k));
    this.k = k;
    const fr = d.frames[k];
    let rows = d.map.rows;
    for (let j = k; j >= 0; j--) {
      if (d.frames[j].board.map_rows) {
        rows = d.frames[j].board.map_rows;
        break;
      }
    }
    this.map.setMap(d.map, rows);
    this.map.setBoard(fr.board);
    renderOrder(fr.board, (t) => this.map.colour(t));
    renderLog(d.log, { upto: fr.last, current: [fr.first, fr.last] });
    const evs = d.log.slice(fr.first, fr.last).map((x) => x.event);
    this.map.setMarks(evs);
    $("#frame-title").textContent = fr.title;
    $("#frame-label").textContent = `step ${k} of ${d.frames.length - 1} · round ${fr.board.round}` +
      (fr.board.over ? ` · over: ${fr.board.winner ? fr.board.winner + " win" : "draw"}` : "");
    $("#scrub").value = String(k);
    document.body.dataset.frame = String(k);
    document.body.dataset.frames = String(d.frames.length);
    document.body.dataset.state = fr.board.over ? "over" : "replay";
    const q = new URLSearchParams(location.search);
    q.set("fight", String(d.fight));
    q.set("frame", String(k));
    history.replaceState(null, "", `${location.pathname}?${q}`);
    await this.refreshOverlays();
  }

  async refreshOverlays(cell = null) {
    if (!this.page.overlaysWanted()) {
      this.map.setOverlays(null, this.page.show);
      return;
    }
    const c = cell || (this.page.show.cover && this.hover) || null;
    this.ov = await get(`/replay/overlays${query({
      fight: this.data.fight, frame: this.k, x: c ? c[0] : null, y: c ? c[1] : null,
    })}`);
    this.map.setOverlays(this.ov, this.page.show);
  }

  toggle() {
    if (this.timer) this.pause();
    else this.play();
  }

  play() {
    if (this.k >= this.data.frames.length - 1) this.k = -1;
    $("#play").textContent = "Pause";
    document.body.dataset.playing = "1";
    const tick = () => {
      if (this.k >= this.data.frames.length - 1) {
        this.pause();
        return;
      }
      this.page.run(() => this.show(this.k + 1));
    };
    tick();
    this.timer = setInterval(tick, 900 / this.speed);
  }

  pause() {
    clearInterval(this.timer);
    this.timer = null;
    const b = $("#play");
    if (b) b.textContent = "Play";
    document.body.dataset.playing = "0";
  }

  onCell() {}

  onHover(x, y, fig, ev) {
    if (x === null || x === undefined) {
      this.hover = null;
      return;
    }
    tooltip(ev, cellLines(this.data ? this.data.map : null, x, y, fig, this.map.terrainAt(x, y)));
    const same = this.hover && this.hover[0] === x && this.hover[1] === y;
    this.hover = [x, y];
    if (this.page.show.cover && !same) {
      clearTimeout(this.hoverTimer);
      this.hoverTimer = setTimeout(() => this.page.run(() => this.refreshOverlays([x, y])), 120);
    }
  }

  onKey(ev, typing) {
    if (typing || ev.ctrlKey || ev.metaKey || ev.altKey || !this.data) return false;
    if (ev.target && ev.target.tagName === "BUTTON" && (ev.key === " " || ev.key === "Enter")) return false;
    const n = this.data.frames.length;
    switch (ev.key) {
      case " ": this.toggle(); return true;
      case "ArrowRight": this.go(this.k + 1); return true;
      case "ArrowLeft": this.go(this.k - 1); return true;
      case "Home": this.go(0); return true;
      case "End": this.go(n - 1); return true;
      default: return false;
    }
  }
}
