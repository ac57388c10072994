// Requests to the Tactica server. Every failure becomes an ApiError with one readable
// message (the server's {"error": ...} text, or what went wrong on the way); a response
// body that is not the server's JSON is never shown.

const TOKEN_KEY = "tactica-token";

export class ApiError extends Error {
  constructor(message, status = 0, field = null) {
    super(message);
    this.status = status;
    this.field = field;
  }
}

/** The bearer token: from the URL (#token=...), kept for this tab, or asked for on a 401. */
export function initToken() {
  const m = location.hash.match(/(?:^#|&)token=([^&]*)/);
  if (m) {
    sessionStorage.setItem(TOKEN_KEY, decodeURIComponent(m[1]));
    history.replaceState(null, "", location.pathname + location.search);
  }
}

/** The token kept for this tab (null: none). */
export function token() {
  return sessionStorage.getItem(TOKEN_KEY);
}

/** Keep (or with an empty value forget) the token for this tab: the setup form's token field. */
export function setToken(t) {
  const v = (t || "").trim();
  if (v) sessionStorage.setItem(TOKEN_KEY, v);
  else sessionStorage.removeItem(TOKEN_KEY);
}

function askToken() {
  const t = window.prompt("This Tactica server needs its token (tactica serve --token TOKEN):", "");
  if (t) sessionStorage.setItem(TOKEN_KEY, t.trim());
  return Boolean(t);
}

async function once(method, path, body) {
  const headers = { Accept: "application/json" };
  const t = token();
  if (t) headers.Authorization = `Bearer ${t}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  let res;
  try {
    res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch (e) {
    throw new ApiError("cannot reach the Tactica server (is it still running?)");
  }
  let data = null;
  const type = res.headers.get("Content-Type") || "";
  if (type.includes("application/json")) {
    try {
      data = await res.json();
    } catch (e) {
      data = null;
    }
  }
  if (!res.ok) {
    const msg = data && typeof data.error === "string" ? data.error : `the server answered ${res.status} ${res.statusText || ""}`.trim();
    throw new ApiError(msg, res.status, data && data.field);
  }
  if (data === null) throw new ApiError(`the server sent no data (${res.status})`, res.status);
  return data;
}

/** A JSON request; on 401 the token is asked for once and the request repeated. */
export async function api(method, path, body) {
  try {
    return await once(method, path, body);
  } catch (e) {
    if (e instanceof ApiError && e.status === 401 && askToken()) return once(method, path, body);
    throw e;
  }
}

export const get = (path) => api("GET", path);
export const post = (path, body) => api("POST", path, body ?? {});
export const put = (path, body) => api("PUT", path, body);
export const del = (path) => api("DELETE", path);

/** A picture the server holds (GET with the token) as an object URL for an <image>. */
export async function blobUrl(path) {
  const headers = {};
  const t = token();
  if (t) headers.Authorization = `Bearer ${t}`;
  const res = await fetch(path, { headers });
  if (!res.ok) throw new ApiError(`the map picture: the server answered ${res.status}`, res.status);
  return URL.createObjectURL(await res.blob());
}

export function query(params) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== null && v !== undefined) q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : "";
}
