"""A real uvicorn server on a free local port, in a daemon thread: what the server, guard and
browser tests share."""

from __future__ import annotations

import socket
import threading
import time


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def serve(app, port: int | None = None):
    """Start `app` on `port` (a free one if None); (its URL, the server, its thread) once it
    has started (an assertion error after 20 s)."""
    import uvicorn

    port = free_port() if port is None else port
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    t = threading.Thread(target=server.run, daemon=True)
    t.start()
    deadline = time.time() + 20
    while not server.started:
        assert time.time() < deadline, "the server did not start"
        time.sleep(0.02)
    return f"http://127.0.0.1:{port}", server, t
