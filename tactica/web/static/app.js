// The battle-map page: boots the live mode (tactica serve) or the replay mode (tactica
// view), and holds what both share: the map, the overlay toggles, the keyboard, and the
// rule that no error ever shows more than one readable line.

import { get, initToken } from "./api.js";
import { BattleMap } from "./map.js";
import { $, closeMenu, errorText, menuOpen, say, tooltip } from "./ui.js";

const OVERLAYS = { reach: "r", los: "l", cover: "c", threat: "t" };

export const page = {
  map: null,
  mode: null,               // the live or replay controller
  show: { reach: false, los: false, cover: false, threat: false },
  busy: 0,

  /** Run an async step with the page marked busy; errors become a readable message. */
  async run(fn) {
    this.busy += 1;
    document.body.dataset.busy = "1";
    try {
      return await fn();
    } catch (e) {
      say(errorText(e), "error");
      return undefined;
    } finally {
      this.busy -= 1;
      if (this.busy === 0) {
        document.body.dataset.busy = "0";
        // a pushed update that came while busy is looked at now (live fights)
        if (this.mode && this.mode.onIdle) setTimeout(() => this.busy === 0 && this.mode.onIdle(), 0);
      }
    }
  },

  overlaysWanted() {
    return Object.values(this.show).some(Boolean);
  },
};

function setupOverlayButtons() {
  for (const btn of document.querySelectorAll("[data-overlay]")) {
    btn.addEventListener("click", () => toggleOverlay(btn.dataset.overlay));
  }
}

function toggleOverlay(name) {
  page.show[name] = !page.show[name];
  const btn = document.querySelector(`[data-overlay="${name}"]`);
  if (btn) btn.setAttribute("aria-pressed", String(page.show[name]));
  if (page.mode) page.run(() => page.mode.refreshOverlays());
}

function typing(ev) {
  const t = ev.target;
  return t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA" || t.tagName === "SELECT" || t.isContentEditable);
}

function onKey(ev) {
  if (ev.key === "Escape") {
    if (menuOpen()) {
      closeMenu();
      ev.preventDefault();
      return;
    }
  }
  if (page.mode && page.mode.onKey(ev, typing(ev))) {
    ev.preventDefault();
    return;
  }
  if (typing(ev) || ev.ctrlKey || ev.metaKey || ev.altKey) return;
  for (const [name, key] of Object.entries(OVERLAYS)) {
    if (ev.key === key) {
      toggleOverlay(name);
      ev.preventDefault();
      return;
    }
  }
}

async function boot() {
  initToken();
  page.map = new BattleMap($("#map"));
  page.map.onCell = (x, y, fig, ev) => {
    if (menuOpen()) closeMenu();
    if (page.mode) page.mode.onCell(x, y, fig, ev);
  };
  page.map.onHover = (x, y, fig, ev) => {
    if (x === null) {
      tooltip(null);
      if (page.mode) page.mode.onHover(null);
      return;
    }
    if (page.mode) page.mode.onHover(x, y, fig, ev);
  };
  setupOverlayButtons();
  document.addEventListener("keydown", onKey);
  window.addEventListener("error", (ev) => say(`the page hit an error: ${errorText(ev.error || ev)}`, "error"));
  window.addEventListener("unhandledrejection", (ev) => say(errorText(ev.reason), "error"));
  document.addEventListener("click", (ev) => {
    if (menuOpen() && !$("#menu").contains(ev.target) && !$("#map").contains(ev.target)) closeMenu();
  });
  const health = await page.run(() => get("/health"));
  if (!health) {
    document.body.dataset.mode = "offline";
    return;
  }
  if (health.replay) {
    const { ReplayMode } = await import("./replay.js");
    page.mode = new ReplayMode(page);
  } else {
    const { LiveMode } = await import("./live.js");
    page.mode = new LiveMode(page);
  }
  document.body.dataset.mode = page.mode.name;
  await page.run(() => page.mode.start());
}

boot();
