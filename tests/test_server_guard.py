"""The local server, hardened (issue #34): the Host header is checked against the bound
address (DNS rebinding) on a real uvicorn; `tactica view` serves its replay read-only;
`tactica serve` reads its token from TACTICA_TOKEN; a slow request on one fight neither
stalls another fight nor makes a second request on its own fight hang (a prompt 503);
bodies nested 100,000 deep or holding a 5000-digit number are a 400, never a 500."""

from __future__ import annotations

import threading
import time

import pytest

httpx = pytest.importorskip("httpx")
uvicorn = pytest.importorskip("uvicorn")
pytest.importorskip("fastapi")

from fastapi.testclient import TestClient  # noqa: E402
from typer.testing import CliRunner  # noqa: E402

from tactica.cli import app as cli  # noqa: E402
from tactica.server import create_app  # noqa: E402
from tactica.server.guard import allowed_hosts  # noqa: E402
from tests.test_web import simulate_log  # noqa: E402


from tests.live_server import free_port  # noqa: E402


class RealServer:
    """An app on a real uvicorn on loopback, in a thread."""

    def __init__(self, app, port: int) -> None:
        self.port = port
        self.server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> str:
        self.thread.start()
        deadline = time.time() + 20
        while not self.server.started:
            assert time.time() < deadline, "the server did not start"
            time.sleep(0.02)
        return f"http://127.0.0.1:{self.port}"

    def __exit__(self, *exc) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)


# -- Host header -------------------------------------------------------------------------------
def test_allowed_hosts_name_the_bound_address_and_loopback():
    assert allowed_hosts("127.0.0.1", 8765) == ["127.0.0.1:8765", "localhost:8765", "[::1]:8765"]
    assert allowed_hosts("::1", 80) == ["[::1]:80", "localhost:80", "127.0.0.1:80"]
    # every address: only the loopback names and the names given
    assert allowed_hosts("0.0.0.0", 9000, ["Table.LAN", "vtt.example:443"]) == [
        "localhost:9000", "127.0.0.1:9000", "[::1]:9000", "table.lan:9000", "vtt.example:443"]
    # one address beyond loopback: that address and the names given, no loopback names
    assert allowed_hosts("192.168.1.5", 9000) == ["192.168.1.5:9000"]


def test_a_foreign_host_header_is_refused_on_a_real_server():
    port = free_port()
    app = create_app(token=None, allowed_hosts=allowed_hosts("127.0.0.1", port))
    with RealServer(app, port) as url, httpx.Client(base_url=url, timeout=10) as c:
        for host in ("evil.example", f"evil.example:{port}", f"127.0.0.1:{port + 1}", "127.0.0.1", ""):
            r = c.get("/health", headers={"Host": host})
            assert r.status_code == 421, (host, r.text)
            body = r.json()
            assert body["field"] == "Host" and "is not this server" in body["error"] and "\n" not in body["error"]
            r = c.post("/fights", json={"scenario": "cortex/duel"}, headers={"Host": host})
            assert r.status_code == 421
        assert c.get("/fights").json()["fights"] == []        # nothing was created past the check
        for host in (f"127.0.0.1:{port}", f"localhost:{port}", f"LOCALHOST:{port}", f"[::1]:{port}"):
            assert c.get("/health", headers={"Host": host}).status_code == 200, host
        r = c.post("/fights", json={"scenario": "cortex/duel"}, headers={"Host": f"127.0.0.1:{port}"})
        assert r.status_code == 201


# -- tactica view: read-only; tactica serve: the token from the environment ------------------------
def captured_app(monkeypatch, *args: str, env: dict[str, str] | None = None):
    """The app and address `tactica ARGS` would serve (uvicorn.run captured, nothing served)."""
    got: dict = {}
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: got.update(app=app, **kw))
    r = CliRunner().invoke(cli, list(args), env=env)
    assert r.exit_code == 0, r.output
    return got["app"], got["host"], got["port"]


def test_view_serves_its_replay_read_only(monkeypatch, tmp_path):
    log = simulate_log(tmp_path / "duel.jsonl", "cortex/duel", fights=1)
    app, host, port = captured_app(monkeypatch, "view", str(log), "--no-open", "--port", "0")
    c = TestClient(app, base_url=f"http://{host}:{port}")
    assert c.get("/health").json()["replay"] is True
    assert c.get("/replay").status_code == 200 and c.get("/replay/overlays").status_code == 200
    assert c.get("/").status_code == 200
    for method, path in (("POST", "/fights"), ("DELETE", "/fights/abc"), ("PUT", "/fights/abc/settings"),
                         ("POST", "/fights/abc/actions"), ("PATCH", "/replay")):
        r = c.request(method, path, json={"scenario": "cortex/duel"})
        assert r.status_code == 405, (method, path, r.text)
        assert r.headers["allow"] == "GET, HEAD, OPTIONS" and r.json()["field"] == "method"
    assert c.get("/fights").json()["fights"] == []
    # its description lists only what it answers
    ops = {m.upper() for item in c.get("/openapi.json").json()["paths"].values() for m in item}
    assert ops and ops <= {"GET", "HEAD", "OPTIONS"}, ops
    # the Host check is on for view too
    assert TestClient(app, base_url="http://evil.example").get("/replay").status_code == 421


def test_serve_takes_the_token_from_tactica_token_and_says_why(monkeypatch):
    app, host, port = captured_app(monkeypatch, "serve", "--memory", "--port", "0",
                                   env={"TACTICA_TOKEN": "from-env"})
    assert port != 0 and app.state.token == "from-env"
    c = TestClient(app, base_url=f"http://{host}:{port}")
    assert c.get("/fights").status_code == 401
    assert c.get("/fights", headers={"Authorization": "Bearer from-env"}).status_code == 200
    r = CliRunner().invoke(cli, ["serve", "--help"], env={"COLUMNS": "200"})
    assert "TACTICA_TOKEN" in r.output and "ps" in r.output and "--allow-host" in r.output


def test_allow_host_reaches_the_server(monkeypatch):
    app, host, port = captured_app(monkeypatch, "serve", "--memory", "--host", "0.0.0.0", "--port", "0",
                                   "--allow-host", "table.lan")
    assert TestClient(app, base_url=f"http://table.lan:{port}").get("/health").status_code == 200
    assert TestClient(app, base_url=f"http://localhost:{port}").get("/health").status_code == 200
    assert TestClient(app, base_url=f"http://other.lan:{port}").get("/health").status_code == 421


# -- a slow request ----------------------------------------------------------------------------------
def test_a_slow_request_stalls_neither_other_fights_nor_its_own_callers(monkeypatch):
    """A suggestion made slow on purpose holds fight A: fight B answers at once, and a second
    request on A gets a 503 with Retry-After after the lock wait, not a hang."""
    import tactica.table as table

    real = table.suggest
    release = threading.Event()

    def slow(*a, **k):
        release.wait(20)
        return real(*a, **k)

    monkeypatch.setattr(table, "suggest", slow)
    port = free_port()
    app = create_app(allowed_hosts=allowed_hosts("127.0.0.1", port), lock_wait_s=0.5)
    with RealServer(app, port) as url, httpx.Client(base_url=url, timeout=30) as c:
        a = c.post("/fights", json={"scenario": "cortex/duel"}).json()["id"]
        b = c.post("/fights", json={"scenario": "cortex/warehouse"}).json()["id"]
        out: dict = {}
        t = threading.Thread(target=lambda: out.update(r=c.post(f"/fights/{a}/suggest", json={})))
        t.start()
        time.sleep(0.3)                                   # the slow request holds fight A now
        t0 = time.monotonic()
        assert c.get(f"/fights/{b}/legal").status_code == 200
        assert c.get(f"/fights/{b}").status_code == 200
        assert time.monotonic() - t0 < 3.0
        t0 = time.monotonic()
        r = c.get(f"/fights/{a}/legal")
        waited = time.monotonic() - t0
        assert r.status_code == 503 and int(r.headers["retry-after"]) >= 1 and "busy" in r.json()["error"]
        assert 0.4 <= waited < 3.0
        release.set()
        t.join(timeout=30)
        assert out["r"].status_code == 200                # the slow one finishes as it would have
        assert c.get(f"/fights/{a}/legal").status_code == 200


# -- bodies FastAPI cannot read -------------------------------------------------------------------------
@pytest.mark.parametrize("body,words", [
    ('{"state": ' + "[" * 100_000 + "]" * 100_000 + "}", "nested too deeply"),
    ('{"scenario": ' + '{"a": ' * 100_000 + "1" + "}" * 100_000 + "}", "nested too deeply"),
    ('{"scenario": "cortex/duel", "seed": ' + "9" * 5000 + "}", "number too long"),
    ('{"scenario": {"name": ' + "7" * 5000 + "}}", "number too long"),
    (b'{"text": "\xff\xfe"}', "not UTF-8"),
], ids=["list-100k-deep", "mapping-100k-deep", "seed-5000-digits", "inline-5000-digits", "not-utf8"])
def test_unreadable_bodies_are_a_400_in_one_line(body, words):
    c = TestClient(create_app(), raise_server_exceptions=False)
    for path in ("/fights", "/fights/abc/actions", "/fights/abc/overrides"):
        r = c.post(path, content=body, headers={"content-type": "application/json"})
        assert r.status_code == 400, r.text[:300]
        assert words in r.json()["error"] and r.json()["field"] == "body" and "\n" not in r.json()["error"]
