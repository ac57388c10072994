// A live fight (tactica serve): the NPC's plan drawn and confirmed, PC actions by clicking,
// manual dice, undo. The fight id is in the URL (?fight=ID), so a reload finds it again.

import { get, post, put, query, ApiError } from "./api.js";
import { loadPolicies, showSetup } from "./setup.js";
import { teamsBox } from "./teams.js";
import { GmPanel, cancelPick } from "./gm.js";
import { FightStream } from "./stream.js";
import { DiceSteps, actionBody } from "./dice.js";
import {
  $, h, say, clearError, renderOrder, renderLog, appendLog, lastStep, openMenu, tooltip, cellLines, errorText, scrollLog,
} from "./ui.js";

const SELF_KINDS_ORDER = ["end_turn", "defend", "aim", "reload", "ready", "drop_prone", "stand", "use", "delay",
  "turn", "posture", "drop"];

function sameCell(a, x, y) {
  return Array.isArray(a.at) && a.at[0] === x && a.at[1] === y;
}

function shortLabel(a) {
  if (a.label) return a.label;
  return a.command || a.type;
}

export class LiveMode {
  constructor(page) {
    this.name = "live";
    this.page = page;
    this.map = page.map;
    this.fid = null;
    this.view = null;
    this.log = [];
    this.legal = [];
    this.plan = null;       // the NPC policy's plan (POST suggest)
    this.chosen = null;     // the plan or the alternative picked: {action, reason, command}
    this.selected = false;  // the acting figure is selected for a click-action
    this.ov = null;         // overlays of the acting figure
    this.hover = null;
    this.hoverTimer = null;
    this.dice = null;       // manual dice in progress: {action, faces, request}
    this.stream = null;     // push updates of the open fight (stream.js)
    this.pushed = null;     // a pushed view that came while the page was busy
    this.gm = new GmPanel(this);   // the GM's overrides (gm.js)
    this.pick = null;       // a map cell the GM is picking: {what, done(x, y)}
    document.querySelector("#undo").addEventListener("click", () => this.page.run(() => this.undo()));
    document.querySelector("#new-fight").addEventListener("click", () => this.page.run(() => this.showSetup()));
    document.querySelector("#dice-mode").addEventListener("change", (ev) =>
      this.page.run(() => this.setDiceMode(ev.target.value)));
  }

  // -- loading --------------------------------------------------------------------------
  async start() {
    const fid = new URLSearchParams(location.search).get("fight");
    if (!fid) return this.showSetup();
    this.fid = fid;
    try {
      await this.refresh(true);
      this.listen();
    } catch (e) {
      if (e instanceof ApiError && e.status === 404) {
        say(`no fight ${fid} on this server (it may have been restarted): start a new one`, "error");
        this.fid = null;
        history.replaceState(null, "", location.pathname);
        return this.showSetup();
      }
      throw e;
    }
  }

  async showSetup() {
    this.closeStream();
    this.fid = null;
    this.view = null;
    history.replaceState(null, "", location.pathname);
    await showSetup(this);
  }

  async open(fid) {
    this.fid = fid;
    this.log = [];
    history.replaceState(null, "", `${location.pathname}?fight=${encodeURIComponent(fid)}`);
    await loadPolicies();
    await this.refresh(true);
    this.listen();
  }

  // -- push updates ----------------------------------------------------------------------
  /** Follow the open fight's changes (another page, the terminal, a VTT module): the server
   *  pushes a view on /stream; if the stream cannot be opened, ask every few seconds. */
  listen() {
    this.closeStream();
    const fid = this.fid;
    this.stream = new FightStream(fid, this.log.length, (v) => this.onPush(v),
      () => get(`/fights/${fid}/view${query({ since: this.log.length })}`));
    this.stream.start();
  }

  closeStream() {
    if (this.stream) this.stream.close();
    this.stream = null;
    this.pushed = null;
  }

  static key(v) {
    return JSON.stringify([v.total, v.decision, v.undo, v.settings, v.board]);
  }

  /** A view pushed (or polled): redraw if the fight is not the one shown. */
  onPush(v) {
    if (!this.view || !v || v.id !== this.fid) return;
    if (this.page.busy) {
      this.pushed = v;
      return;
    }
    if (LiveMode.key(v) === LiveMode.key(this.view)) return;
    const fits = v.since === this.log.length || v.since === 0;
    this.page.run(() => this.refresh(!fits, fits ? v : null));
  }

  /** The page is idle again: a view pushed meanwhile is looked at now. */
  onIdle() {
    const v = this.pushed;
    this.pushed = null;
    if (v) this.onPush(v);
  }

  /** Fetch the fight and redraw everything; a plan is asked for when an NPC acts. */
  async refresh(full = false, pushed = null) {
    const since = full ? 0 : this.log.length;
    let v = pushed || await get(`/fights/${this.fid}/view${query({ since })}`);
    if (v.total < this.log.length && v.since > 0) v = await get(`/fights/${this.fid}/view?since=0`);
    const fresh = v.since === 0;
    const newEntries = v.log;
    this.log = fresh ? v.log : this.log.concat(v.log);
    this.view = v;
    this.selected = false;
    this.dice = null;
    this.plan = null;
    this.chosen = null;
    this.ov = null;
    const b = v.board;
    this.map.setMap(v.map, b.map_rows);
    this.map.setBoard(b);
    renderOrder(b, (t) => this.map.colour(t));
    if (fresh) renderLog(this.log, { current: lastStep(this.log) });  // a full redraw marks the last decision too
    else appendLog(newEntries);
    this.map.setMarks(this.lastStepEvents());
    $("#fight-title").textContent = `${v.summary.scenario} (${v.summary.ruleset})`;
    $("#dice-mode").value = v.settings.dice_mode;
    const sides = Object.entries(v.settings.dice || {}).map(([k, m]) => `${k}: ${m === "manual" ? "by hand" : m}`);
    $("#dice-mode").title = sides.length ? `the rest; ${sides.join(", ")} (Who plays each team, dice)` : "who rolls every die";
    $("#undo").disabled = v.undo === 0;
    $("#undo").title = v.undo_last ? `undo: ${v.undo_last} (u)` : "nothing to undo";
    document.body.dataset.state = b.over ? "over" : "fight";
    document.body.dataset.actor = b.actor || "";
    document.body.dataset.decision = String(v.decision);
    this.legal = [];
    if (!b.over && b.actor) {
      const l = await get(`/fights/${this.fid}/legal?notes=true`);
      this.legal = l.actions;
      if (this.role(b.actor) === "npc") {
        this.plan = await post(`/fights/${this.fid}/suggest`, {
          policy: this.policy(b.actor), seed: v.decision, alternatives: 4,
        });
        this.chosen = { action: this.plan.action, reason: this.plan.reason, command: this.plan.command, plan: true };
      }
    }
    await this.refreshOverlays();
    this.renderPanel();
  }

  lastStepEvents() {
    // the events since the last decision: from the last turn_start or the last acting event
    const out = [];
    for (let i = this.log.length - 1; i >= 0 && out.length < 40; i--) {
      const e = this.log[i].event;
      if (e.type === "move" || e.type === "attack") out.push(e);
      if (e.type === "turn_start" && out.length) break;
      if (e.type === "round_start") break;
    }
    return out;
  }

  figure(id) {
    return this.view.board.figures.find((f) => f.id === id);
  }

  role(id) {
    const f = this.figure(id);
    const t = f && this.view.settings.teams[f.team];
    return t ? t.role : "npc";
  }

  policy(id) {
    const f = this.figure(id);
    const t = f && this.view.settings.teams[f.team];
    return (t && t.policy) || "tactical";
  }

  // -- overlays and the plan drawing -------------------------------------------------------
  async refreshOverlays(cell = null) {
    const b = this.view && this.view.board;
    if (!b || b.over || !b.actor) {
      this.map.setOverlays(null, this.page.show);
      this.map.setPlan(null);
      return;
    }
    const goal = this.chosen && this.chosen.action.type === "move" ? this.chosen.action.at : null;
    const wantOv = this.page.overlaysWanted() || this.selected;
    if (!wantOv && !goal) {
      this.map.setOverlays(null, this.page.show);
      this.drawPlan(null);
      return;
    }
    const c = cell || (this.page.show.cover && this.hover) || null;
    const ov = await get(`/fights/${this.fid}/overlays${query({
      x: c ? c[0] : null, y: c ? c[1] : null, to_x: goal ? goal[0] : null, to_y: goal ? goal[1] : null,
    })}`);
    this.ov = ov;
    const show = { ...this.page.show, reach: this.page.show.reach || this.selected };
    this.map.setOverlays(ov, show);
    this.drawPlan(ov.path);
  }

  drawPlan(path) {
    const b = this.view.board;
    if (!this.chosen || !b.actor) {
      this.map.setPlan(null);
      return;
    }
    const a = this.chosen.action;
    const me = this.figure(b.actor);
    const plan = { from: me.at };
    if (a.type === "move") {
      plan.goal = a.at;
      plan.path = path || [me.at, a.at];
    } else if (a.target) {
      const t = this.figure(a.target);
      if (t) plan.target = t.at;
    } else if (a.at) {
      plan.goal = a.at;
    }
    this.map.setPlan(plan);
  }

  // -- the side panel --------------------------------------------------------------------
  renderPanel() {
    this.drawPanel();
    scrollLog();
  }

  drawPanel() {
    const panel = $("#action-panel");
    const b = this.view.board;
    if (this.dice) return this.renderDice();
    if (b.over) {
      panel.replaceChildren(h("div", { class: "over" },
        h("h2", {}, b.winner ? `${b.winner} win` : "Draw"),
        h("p", {}, `The fight is over after ${b.round} round(s)${b.end_reason ? ": " + b.end_reason : ""}.`),
        h("p", { class: "hint" }, "Undo (u) takes back the last action.")));
      return;
    }
    const me = this.figure(b.actor);
    const head = h("h2", { class: "turn-head" },
      h("span", { class: "dot", style: `background:${this.map.colour(me.team)}` }),
      `${me.name}'s turn`, h("small", {}, ` ${this.role(b.actor).toUpperCase()} · ${me.team}`));
    const parts = [head];
    const q = this.view.question;   // the rules stopped an action to ask: say what it did so far
    if (q) parts.push(h("div", { id: "question", class: "plan" },
      h("div", { class: "plan-label" }, "The rules ask"),
      q.told.length ? h("ol", { class: "told" }, ...q.told.map((t) => h("li", {}, t))) : null,
      h("p", { class: "plan-reason" }, q.text)));
    if (this.plan) parts.push(this.planCard());
    else parts.push(h("p", { class: "hint", id: "pc-hint" }, q ? `${me.name} answers: pick one below.`
      : `Click ${me.name}, then a highlighted cell to move or an enemy to attack; or pick an action below.`));
    parts.push(this.selfActions());
    parts.push(teamsBox(this));
    parts.push(this.gm.render());
    panel.replaceChildren(...parts);
  }

  planCard() {
    const p = this.plan;
    const alts = p.alternatives.map((alt, i) => h("li", {},
      h("button", {
        class: "alt" + (this.chosen && this.chosen.alt === i ? " chosen" : ""), dataset: { i, command: alt.command },
        onclick: () => this.choose({ action: alt.action, reason: alt.reason, command: alt.command, alt: i }),
      }, h("span", { class: "cmd" }, alt.command), h("small", {}, alt.reason))));
    const c = this.chosen;
    return h("div", { id: "plan", class: "plan" },
      h("div", { class: "plan-label" }, c.plan ? `Plan (${p.policy})` : "Chosen instead of the plan"),
      h("div", { class: "plan-cmd", id: "plan-command" }, c.command),
      h("p", { class: "plan-reason", id: "plan-reason" }, c.reason),
      h("div", { class: "row" },
        h("button", { id: "confirm", class: "primary", onclick: () => this.page.run(() => this.act(c.action, c.command)) }, "Confirm (Enter)"),
        c.plan ? null : h("button", {
          onclick: () => this.choose({ action: p.action, reason: p.reason, command: p.command, plan: true }),
        }, "Back to the plan")),
      alts.length ? h("details", { class: "alts", open: true },
        h("summary", {}, "Alternatives"), h("ol", {}, alts)) : null,
      h("p", { class: "hint" }, "Or click the figure, then another cell or enemy."));
  }

  choose(c) {
    this.chosen = c;
    this.renderPanel();
    this.page.run(() => this.refreshOverlays());
  }

  selfActions() {
    const own = this.legal.filter((a) => !a.target && a.type !== "move" && a.type !== "pick_up");
    own.sort((a, b) => (SELF_KINDS_ORDER.indexOf(a.type) + 1 || 99) - (SELF_KINDS_ORDER.indexOf(b.type) + 1 || 99));
    return h("div", { class: "self-actions" },
      h("div", { class: "label" }, "Actions"),
      h("div", { class: "buttons" }, own.map((a) => h("button", {
        class: "act" + (a.type === "end_turn" ? " end" : ""), dataset: { type: a.type, command: a.command },
        title: shortLabel(a),
        onclick: () => this.page.run(() => this.act(a)),
      }, a.command))));
  }

  // -- acting ---------------------------------------------------------------------------
  async act(action, label = null) {
    if (this.handDice()) return this.startDice(action, label || action.command || action.type);
    return this.resolve(action, null);
  }

  /** Whether the GM rolls any dice by hand: the dice mode, or a team or figure set to manual. */
  handDice() {
    const s = this.view.settings;
    return s.dice_mode === "manual" || Object.values(s.dice || {}).includes("manual");
  }

  /** Dice per side: the hand faces go as `hand_dice` (the engine rolls the rest). */
  perSide() {
    return Object.keys(this.view.settings.dice || {}).length > 0;
  }

  /** A request that changes nothing when it fails: the server's fight is shown again (another
   *  page may have moved it on) and the error goes up to be shown. */
  async orRefresh(fn) {
    try {
      return await fn();
    } catch (e) {
      try { await this.refresh(); } catch (e2) { /* the first error is the one to show */ }
      throw e;
    }
  }

  async resolve(action, dice) {
    const body = { action: actionBody(action), actor: this.view.board.actor };
    if (dice) body[this.perSide() ? "hand_dice" : "dice"] = dice;
    const r = await this.orRefresh(() => post(`/fights/${this.fid}/actions`, body));
    clearError();
    await this.refresh();
    return r;
  }

  async undo() {
    try {
      const r = await post(`/fights/${this.fid}/undo`);
      say(`Undone: ${r.undone}`);
    } finally {
      await this.refresh(true);
    }
  }

  async setDiceMode(mode) {
    await put(`/fights/${this.fid}/settings`, { dice_mode: mode });
    await this.refresh();
  }

  // -- the map ---------------------------------------------------------------------------
  onCell(x, y, fig, ev) {
    if (!this.view || this.page.busy || this.dice) return;
    if (this.gm.onCell(x, y, fig)) return;
    const b = this.view.board;
    if (b.over || !b.actor) return;
    if (fig && fig.id === b.actor && !this.selected) {
      this.selected = true;
      this.page.run(() => this.refreshOverlays());
      say(`${fig.name} selected: click a cell to move or a figure to act on (Esc to drop)`);
      return;
    }
    if (!this.selected) {
      if (fig && fig.id !== b.actor) say(`click ${this.figure(b.actor).name} first, then ${fig.name}`);
      return;
    }
    if (fig && fig.id === b.actor) {
      this.selected = false;
      this.page.run(() => this.refreshOverlays());
      return;
    }
    const here = this.view.board.figures.filter((f) => f.at[0] === x && f.at[1] === y).map((f) => f.id);
    const acts = this.legal.filter((a) => (a.target && here.includes(a.target)) || sameCell(a, x, y));
    const moves = acts.filter((a) => a.type === "move");
    if (acts.length === 1 && moves.length === 1) {
      this.page.run(() => this.act(moves[0]));
      return;
    }
    if (!acts.length) {
      const who = this.figure(b.actor).name;
      say(fig ? `${who} has no action against ${fig.name} now` : `${who} cannot move to [${x}, ${y}] now`);
      return;
    }
    const title = fig ? `${this.figure(b.actor).name} → ${fig.name}` : `[${x}, ${y}]`;
    const [cx, cy] = this.map.cellCentre(x, y);
    openMenu(cx, cy, title, acts.map((a) => ({
      label: a.command, note: a.label && a.label !== a.command ? a.label : null,
      run: () => this.page.run(() => this.act(a)),
    })));
  }

  onHover(x, y, fig, ev) {
    if (x === null || x === undefined) {
      this.hover = null;
      return;
    }
    const lines = cellLines(this.view ? this.view.map : null, x, y, fig, this.map.terrainAt(x, y));
    tooltip(ev, lines);
    const same = this.hover && this.hover[0] === x && this.hover[1] === y;
    this.hover = [x, y];
    if (this.page.show.cover && !same && this.view && !this.view.board.over) {
      clearTimeout(this.hoverTimer);
      this.hoverTimer = setTimeout(() => this.coverAt(x, y, ev), 120);
    }
  }

  async coverAt(x, y, ev) {
    try {
      await this.refreshOverlays([x, y]);
    } catch (e) {
      say(errorText(e), "error");
      return;
    }
    if (!this.hover || this.hover[0] !== x || this.hover[1] !== y || !this.ov || !this.ov.cover) return;
    const fig = this.map.figureAt(x, y);
    const lines = cellLines(this.view.map, x, y, fig, this.map.terrainAt(x, y));
    for (const c of this.ov.cover) {
      const mine = c.cover ? `${c.cover_name} cover${c.cover_effect ? " (" + c.cover_effect + ")" : ""}` : "no cover";
      const theirs = c.their_cover ? `${c.their_cover_name} cover` : "no cover";
      lines.push(c.los ? `vs ${c.name}: ${mine}; they have ${theirs}; ${c.distance_m} m` : `vs ${c.name}: out of sight`);
    }
    tooltip(ev, lines);
  }

  onKey(ev, typing) {
    if (document.body.dataset.state === "setup" || !this.view) return false;
    const k = ev.key;
    if (k === "Escape") {
      if (this.pick) {
        cancelPick(this);
        return true;
      }
      if (this.dice) {
        this.cancelDice();
        return true;
      }
      if (this.selected) {
        this.selected = false;
        this.page.run(() => this.refreshOverlays());
        return true;
      }
      return false;
    }
    if (this.page.busy) return false;
    const mod = ev.ctrlKey || ev.metaKey;
    if ((k === "z" || k === "Z") && mod && !typing) {
      this.page.run(() => this.undo());
      return true;
    }
    if (typing || mod || ev.altKey) return false;
    if (k === "u") {
      this.page.run(() => this.undo());
      return true;
    }
    if (k === "Enter" && !(ev.target && ev.target.tagName === "BUTTON") && this.chosen && !this.dice) {
      const c = this.chosen;
      this.page.run(() => this.act(c.action, c.command));
      return true;
    }
    return false;
  }
}

Object.assign(LiveMode.prototype, DiceSteps);
