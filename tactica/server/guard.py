"""What stands before the routes: the Host header check (DNS rebinding), the read-only
replay server of `tactica view`, and the `Allow` header of a 405.

A page on any web site can make a browser talk to a server on loopback once its own name
resolves to 127.0.0.1 ("DNS rebinding"); the browser then sends that site's name as the
`Host`. A server that answers only to its own names is out of such a page's reach, so
`tactica serve` and `tactica view` refuse any other `Host` with a 421 (`allowed_hosts`).
"""

from __future__ import annotations

import ipaddress
from typing import Iterable

from starlette.responses import JSONResponse
from starlette.routing import Match

#: the names a loopback server answers to, besides the address it is bound to
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "[::1]")
#: methods the read-only replay server (`tactica view`) answers
READ_METHODS = ("GET", "HEAD", "OPTIONS")


def _bracket(host: str) -> str:
    """An IPv6 address as a Host header writes it: [::1]."""
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


def is_loopback(host: str) -> bool:
    if host.strip("[]").lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def is_wildcard(host: str) -> bool:
    return host.strip("[]") in ("0.0.0.0", "::", "")


def allowed_hosts(host: str, port: int, extra: Iterable[str] = ()) -> list[str]:
    """The `Host` values a server bound to `host`:`port` answers to: the bound address (not
    0.0.0.0 or ::, which no client names), the loopback names when bound to loopback or to
    every address, and each of `extra` (`--allow-host NAME`; the port is added when a name
    has none). Lower case, each with its port."""
    def with_port(name: str) -> str:
        name = name.strip().lower()
        if name.startswith("["):
            return name if "]:" in name else f"{name}:{port}"
        return name if name.count(":") == 1 else f"{_bracket(name)}:{port}"

    out: list[str] = []
    if not is_wildcard(host):
        out.append(with_port(_bracket(host)))
    if is_loopback(host) or is_wildcard(host):
        out += [with_port(n) for n in LOOPBACK_NAMES]
    out += [with_port(n) for n in extra if n.strip()]
    return list(dict.fromkeys(out))


class HostCheck:
    """Pure ASGI middleware: a request whose `Host` is not one of `allowed` gets a 421 with
    the API's JSON error (and reaches no route)."""

    def __init__(self, app, allowed: Iterable[str]) -> None:
        self.app = app
        self.allowed = frozenset(a.lower() for a in allowed)

    async def __call__(self, scope, receive, send):
        if scope["type"] not in ("http", "websocket"):
            return await self.app(scope, receive, send)
        given = dict(scope.get("headers") or []).get(b"host", b"").decode("latin-1").strip().lower()
        if given not in self.allowed:
            shown = ascii(given[:100]) if given else "(none)"
            body = {"error": f"Host: {shown} is not this server (expected one of {', '.join(sorted(self.allowed))}; "
                             "tactica serve --allow-host NAME adds a name)", "field": "Host"}
            return await JSONResponse(body, status_code=421)(scope, receive, send)
        return await self.app(scope, receive, send)


class ReadOnly:
    """Pure ASGI middleware: only GET, HEAD and OPTIONS reach the routes (a replay needs no
    more); any other method gets a 405 with `Allow`."""

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http" and scope.get("method", "GET").upper() not in READ_METHODS:
            body = {"error": f"{scope.get('method')} is not allowed: this server only shows a recorded fight "
                             "(tactica view); tactica serve plays fights", "field": "method"}
            return await JSONResponse(body, status_code=405, headers={"Allow": ", ".join(READ_METHODS)})(
                scope, receive, send)
        return await self.app(scope, receive, send)


def allowed_methods(app, scope) -> list[str]:
    """Every method some route of `app` answers at the request's path (for `Allow` on a 405:
    Starlette names only the first route's)."""
    methods: list[str] = []
    for route in app.router.routes:
        match, _ = route.matches(scope)
        if match != Match.NONE:
            methods += sorted(getattr(route, "methods", None) or ())
    return list(dict.fromkeys(methods))
