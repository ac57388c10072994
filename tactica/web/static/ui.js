// Panels shared by live fights and replays: the message banner, the turn order, the event
// log with every roll's details, the small action menu and the tooltip.

export const $ = (sel, root = document) => root.querySelector(sel);

export function h(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") e.className = v;
    else if (k === "dataset") Object.assign(e.dataset, v);
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

// -- messages ---------------------------------------------------------------------------------
let bannerTimer = null;

/** A readable message at the top: kind "error" stays until dismissed, "info" fades. */
export function say(text, kind = "info") {
  const b = $("#banner");
  b.replaceChildren(
    h("span", { class: "banner-text" }, text),
    h("button", { class: "banner-close", "aria-label": "dismiss", onclick: () => (b.hidden = true) }, "×"),
  );
  b.className = `banner ${kind}`;
  b.dataset.kind = kind;
  b.hidden = false;
  clearTimeout(bannerTimer);
  if (kind !== "error") bannerTimer = setTimeout(() => (b.hidden = true), 4000);
}

export function clearError() {
  const b = $("#banner");
  if (b.dataset.kind === "error") b.hidden = true;
}

/** An error as one line: the message only, never a stack. */
export function errorText(e) {
  if (e && typeof e.message === "string" && e.message) return e.message.split("\n")[0];
  return "something went wrong";
}

// -- turn order -------------------------------------------------------------------------------
export function renderOrder(board, colour) {
  const byId = Object.fromEntries(board.figures.map((f) => [f.id, f]));
  const round = board.over
    ? `Over - ${board.winner ? board.winner + " win" : "draw"}${board.end_reason ? " (" + board.end_reason + ")" : ""}`
    : `Round ${board.round}${board.round_limit ? " of " + board.round_limit : ""}`;
  $("#round").textContent = round;
  const ol = $("#order");
  ol.replaceChildren();
  // the turn order, then the figures outside it (down, or not in this round's order)
  const ids = board.order.concat(board.figures.map((f) => f.id).filter((id) => !board.order.includes(id)));
  const seen = new Set();
  for (const id of ids) {
    const f = byId[id];
    if (!f) continue;
    const again = seen.has(id);
    seen.add(id);
    const li = h("li", {
      class: (id === board.actor && !again ? "current " : "") + (f.down ? "down" : ""),
      dataset: { id },
      "aria-current": id === board.actor && !again ? "step" : null,
    },
      h("span", { class: "dot", style: `background:${colour(f.team)}` }),
      h("span", { class: "who" }, f.name),
      h("span", { class: "hp-text" }, f.dead ? "dead" : f.down ? "down" : `${fmt(f.hp)}/${fmt(f.max)}`),
      f.conditions.length ? h("span", { class: "conds" }, f.conditions.filter((c) => !["dead"].includes(c)).join(", ")) : null,
    );
    ol.append(li);
  }
}

function fmt(n) {
  return Number.isInteger(n) ? String(n) : n.toFixed(1);
}

// -- event log --------------------------------------------------------------------------------
const HIDDEN_KEYS = new Set(["type", "fight"]);

function dieText(d) {
  return Array.isArray(d) && d.length === 2 ? `d${d[0]}:${d[1]}` : String(d);
}

function valueText(k, v) {
  if (k === "dice" && Array.isArray(v)) return v.map(dieText).join("  ");
  if (Array.isArray(v)) return v.map((x) => (typeof x === "object" ? JSON.stringify(x) : String(x))).join(", ");
  if (v && typeof v === "object") return JSON.stringify(v);
  return String(v);
}

/** The details of an event (a roll's dice, pool, modifiers, target number ...) as rows. */
export function eventDetails(e) {
  const order = ["actor", "purpose", "pool", "dice", "total", "difficulty", "target"];
  const keys = Object.keys(e).filter((k) => !HIDDEN_KEYS.has(k));
  keys.sort((a, b) => (order.indexOf(a) + 1 || 99) - (order.indexOf(b) + 1 || 99));
  return keys.map((k) => [k === "difficulty" ? "target number" : k.replace(/_/g, " "), valueText(k, e[k])]);
}

export function logItem(entry) {
  const e = entry.event;
  const cls = `ev ev-${e.type}` + (e.type === "roll" && e.purpose === "initiative" ? " ev-init" : "");
  if (e.type === "roll" || e.type === "attack" || e.type === "damage" || e.type === "defence") {
    const rows = eventDetails(e);
    const tip = rows.map(([k, v]) => `${k}: ${v}`).join("\n");
    return h("li", { class: cls, dataset: { i: entry.i }, title: tip },
      h("details", {},
        h("summary", {}, entry.text),
        h("dl", {}, rows.map(([k, v]) => [h("dt", {}, k), h("dd", {}, v)])),
      ));
  }
  return h("li", { class: cls, dataset: { i: entry.i } }, entry.text);
}

export function renderLog(entries, { upto = null, current = null } = {}) {
  const ol = $("#log");
  ol.replaceChildren();
  for (const entry of entries) {
    if (upto !== null && entry.i >= upto) break;
    const li = logItem(entry);
    if (current && entry.i >= current[0] && entry.i < current[1]) li.classList.add("now");
    ol.append(li);
  }
  scrollLog();
}

/** Keep the newest events in view (call again when the panels above change height). */
export function scrollLog() {
  const wrap = $("#log-panel");
  wrap.scrollTop = wrap.scrollHeight;
  requestAnimationFrame(() => (wrap.scrollTop = wrap.scrollHeight));
}

/** The [first, end) entry indices of the newest decision's events (those sharing the last
 * entry's step), for `renderLog`'s `current`; null for an empty log. */
export function lastStep(entries) {
  if (!entries.length) return null;
  const step = entries[entries.length - 1].event.step;
  let k = entries.length - 1;
  while (k > 0 && entries[k - 1].event.step === step) k--;
  return [entries[k].i, entries[entries.length - 1].i + 1];
}

export function appendLog(entries) {
  const ol = $("#log");
  if (!entries.length) return scrollLog();  // nothing new: the last decision's marks stay
  for (const old of ol.querySelectorAll("li.now")) old.classList.remove("now");
  for (const entry of entries) {
    const li = logItem(entry);
    li.classList.add("now");
    ol.append(li);
  }
  scrollLog();
}

// -- action menu ------------------------------------------------------------------------------
export function openMenu(x, y, title, items) {
  const m = $("#menu");
  m.replaceChildren(h("div", { class: "menu-title" }, title));
  for (const it of items) {
    m.append(h("button", { class: "menu-item", role: "menuitem", onclick: () => { closeMenu(); it.run(); } },
      h("span", {}, it.label), it.note ? h("small", {}, it.note) : null));
  }
  m.append(h("button", { class: "menu-item cancel", role: "menuitem", onclick: closeMenu }, "cancel (Esc)"));
  m.hidden = false;
  const r = m.getBoundingClientRect();
  const left = Math.max(4, Math.min(window.innerWidth - r.width - 4, x + 12));
  const top = Math.max(4, Math.min(window.innerHeight - r.height - 4, y + 12));
  m.style.left = `${left}px`;
  m.style.top = `${top}px`;
  const first = m.querySelector(".menu-item");
  if (first) first.focus();
}

export function closeMenu() {
  const m = $("#menu");
  m.hidden = true;
  m.replaceChildren();
}

export function menuOpen() {
  return !$("#menu").hidden;
}

// -- tooltip ----------------------------------------------------------------------------------
export function tooltip(ev, lines) {
  const t = $("#tooltip");
  if (!ev || !lines || !lines.length) {
    t.hidden = true;
    return;
  }
  t.replaceChildren(...lines.map((l, i) => h(i === 0 ? "strong" : "div", {}, l)));
  t.hidden = false;
  const wrap = $("#map-wrap").getBoundingClientRect();
  let x = ev.clientX - wrap.left + 14;
  let y = ev.clientY - wrap.top + 14;
  const r = t.getBoundingClientRect();
  if (x + r.width > wrap.width) x = Math.max(0, ev.clientX - wrap.left - r.width - 10);
  if (y + r.height > wrap.height) y = Math.max(0, ev.clientY - wrap.top - r.height - 10);
  t.style.left = `${x}px`;
  t.style.top = `${y}px`;
}

/** Lines describing a figure and a cell, for the tooltip. */
export function cellLines(map, x, y, fig, terrain) {
  const lines = [];
  if (fig) {
    lines.push(`${fig.name} (${fig.team})`);
    lines.push(fig.dead ? "dead" : fig.down ? `down - ${fig.hp}/${fig.max}` : `health ${fig.hp}/${fig.max}`);
    // keys told as words, as the log tells them ("non responsive", "heavy pistol")
    const words = (k) => String(k).replace(/_/g, " ");
    if (fig.conditions.length) lines.push(fig.conditions.map(words).join(", "));
    if (fig.weapons && fig.weapons.length) lines.push(`weapons: ${fig.weapons.map(words).join(", ")}`);
  }
  const cov = terrain && terrain.cover ? `, ${map.cover_names[Math.min(4, terrain.cover)]} cover` : "";
  // the cell as the terminal names it: `move X Y` (column, row; from 0)
  lines.push(`${x} ${y} · ${terrain ? terrain.name : "floor"}${cov}`);
  return lines;
}
