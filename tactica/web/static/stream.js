// Push updates of a live fight: the server sends a `view` event on /fights/ID/stream (server-
// sent events) whenever the fight changes, so the page does not poll. If the stream cannot be
// opened (an old server, a proxy that buffers), the page asks for the view every few seconds
// instead. body[data-push] says which: "stream", "reconnecting", "polling" or "off".

import { query, token } from "./api.js";

export const FALLBACK_MS = 3000;

export class FightStream {
  /** `onView(view)`: a view arrived; `fetchView()`: a promise of the view (the fallback). */
  constructor(fid, since, onView, fetchView) {
    this.fid = fid;
    this.since = since;
    this.onView = onView;
    this.fetchView = fetchView;
    this.es = null;
    this.timer = null;
    this.closed = false;
  }

  start() {
    if (typeof EventSource === "undefined") {
      this.poll();
      return;
    }
    // EventSource cannot send an Authorization header: the token goes in the query
    const url = `/fights/${encodeURIComponent(this.fid)}/stream${query({ since: this.since, token: token() })}`;
    const es = new EventSource(url);
    this.es = es;
    mark("reconnecting");
    es.addEventListener("view", (ev) => {
      let v;
      try {
        v = JSON.parse(ev.data);
      } catch (e) {
        return;
      }
      this.onView(v);
    });
    es.onopen = () => {
      this.stopPolling();
      mark("stream");
    };
    es.onerror = () => {
      if (this.closed) return;
      if (es.readyState === EventSource.CLOSED) {   // refused (401, 404, not a stream): poll
        this.es = null;
        this.poll();
      } else {
        mark("reconnecting");                       // the browser tries again by itself
      }
    };
  }

  poll() {
    if (this.closed || this.timer) return;
    mark("polling");
    this.timer = setInterval(async () => {
      let v = null;
      try {
        v = await this.fetchView();
      } catch (e) {
        return;   // the next tick tries again; actions show their own errors
      }
      if (!this.closed) this.onView(v);
    }, FALLBACK_MS);
  }

  stopPolling() {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  close() {
    this.closed = true;
    this.stopPolling();
    if (this.es) this.es.close();
    this.es = null;
    mark("off");
  }
}

function mark(how) {
  document.body.dataset.push = how;
}
