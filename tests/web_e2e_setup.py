"""What the battle map's browser tests share (tests/test_web_e2e.py, test_web_e2e_display.py,
test_web_e2e_table.py, test_web_e2e_gm.py): Debian's `chromium` driven by Playwright
(`executable_path`; `playwright install` cannot download browsers here), a token-protected
`tactica serve` app in this process, a `tactica view` of a simulated log, the page, and
helpers that read the page and drive the API.

Without chromium or playwright the tests are skipped, unless the environment variable CI is
set: then they fail. Screenshots go to $TACTICA_ARTIFACTS (default artifacts/web/). The
fixtures are module-scoped: a test module takes them with
`globals().update(browser=setup.browser, ...)` and gets a browser and a server of its own.
"""

from __future__ import annotations

import json
import os
import shutil
import threading
from pathlib import Path

import pytest

httpx = pytest.importorskip("httpx")
uvicorn = pytest.importorskip("uvicorn")
pytest.importorskip("fastapi")
playwright_api = pytest.importorskip("playwright.sync_api")
PlaywrightTimeout = playwright_api.TimeoutError

from tactica.server import create_app  # noqa: E402
from tests.live_server import serve  # noqa: E402
from tactica.web.replay import Replay, load_recording  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
TOKEN = "e2e-token"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
ARTIFACTS = Path(os.environ.get("TACTICA_ARTIFACTS") or REPO / "artifacts" / "web")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DESKTOP = {"width": 1280, "height": 800}
TABLET = {"width": 820, "height": 1180}


def _need(reason: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"{reason}; CI is set, so the browser tests must run")
    pytest.skip(reason)


# -- servers and browser ----------------------------------------------------------------------
def _serve(app) -> tuple[str, "uvicorn.Server", "threading.Thread"]:
    return serve(app)


@pytest.fixture(scope="module")
def browser():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _need("playwright is not installed (pip install playwright; it is in the dev extra)")
    if not CHROMIUM:
        _need("chromium is not installed (apt-get install -y chromium)")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM,
                              args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"])
        yield b
        b.close()


@pytest.fixture(scope="module")
def live(browser):
    """A token-protected `tactica serve` app in this process: (base url, API client, app)."""
    app = create_app(token=TOKEN)
    url, server, t = _serve(app)
    with httpx.Client(base_url=url, headers=AUTH, timeout=30) as c:
        yield url, c, app
    server.should_exit = True
    t.join(timeout=10)


@pytest.fixture(scope="module")
def replay_url(browser, tmp_path_factory):
    """`tactica view` of a `tactica simulate --log` file with two fights."""
    from evaluation.simulate import simulate
    from rules.scenario import load_scenario

    log = tmp_path_factory.mktemp("logs") / "warehouse.log.jsonl"
    spec, src = load_scenario("cortex/warehouse")
    with open(log, "w", encoding="utf-8") as fh:
        simulate(spec, {"crew": "tactical", "syndicate": "aggressive"}, 2, 7, src, log=fh)
    app = create_app(replay=Replay(load_recording(log)))
    url, server, t = _serve(app)
    yield url
    server.should_exit = True
    t.join(timeout=10)


@pytest.fixture
def page(browser):
    ctx = browser.new_context(viewport=DESKTOP)
    pg = ctx.new_page()
    pg.set_default_timeout(60_000)   # a shared 2-core machine under load: 20 s once timed out
    problems: list[str] = []
    pg.on("pageerror", lambda e: problems.append(f"page error: {e}"))
    pg.on("console", lambda m: problems.append(f"console {m.type}: {m.text}")
          if m.type == "error" and "Failed to load resource" not in m.text else None)
    yield pg
    ctx.close()
    assert not problems, problems


# -- helpers ----------------------------------------------------------------------------------
def shot(pg, name: str) -> None:
    pg.screenshot(path=str(ARTIFACTS / name))


def settle(pg) -> None:
    pg.wait_for_function("document.body.dataset.busy === '0'")


def wait_decision(pg, n: int) -> None:
    pg.wait_for_function(f"document.body.dataset.decision === '{n}' && document.body.dataset.busy === '0'")


def open_fight(pg, url: str, fid: str) -> None:
    pg.goto(f"{url}/?fight={fid}#token={TOKEN}")
    pg.wait_for_selector("body[data-state='fight'][data-busy='0'], body[data-state='over'][data-busy='0']")


def new_fight(c, seed=0, scenario="cortex/warehouse", **settings) -> str:
    r = c.post("/fights", json={"scenario": scenario, "seed": seed})
    assert r.status_code == 201, r.text
    fid = r.json()["id"]
    if settings:
        assert c.put(f"/fights/{fid}/settings", json=settings).status_code == 200
    return fid


ALL_PC = {"teams": {"crew": {"role": "pc"}, "syndicate": {"role": "pc"}}}


def view(c, fid) -> dict:
    return c.get(f"/fights/{fid}/view").json()


def state(c, fid) -> str:
    return json.dumps(c.get(f"/fights/{fid}").json()["state"], sort_keys=True)


def cell_xy(pg, x: int, y: int) -> tuple[float, float]:
    """Client coordinates of a map cell's centre (from the SVG's own transform)."""
    return tuple(pg.evaluate("""([x, y]) => {
        const svg = document.querySelector('#map');
        const s = Number(svg.dataset.cell);
        const pt = svg.createSVGPoint(); pt.x = (x + 0.5) * s; pt.y = (y + 0.5) * s;
        const p = pt.matrixTransform(svg.getScreenCTM()); return [p.x, p.y]; }""", [x, y]))


def click_cell(pg, x: int, y: int) -> None:
    pg.mouse.click(*cell_xy(pg, x, y))


def tokens(pg) -> dict[str, list[int]]:
    """Figure id -> the cell its token is drawn on."""
    return pg.evaluate("""() => {
        const svg = document.querySelector('#map');
        const s = Number(svg.dataset.cell);
        const out = {};
        for (const g of document.querySelectorAll('g.token')) {
            const m = g.getAttribute('transform').match(/translate\\(([-\\d.]+) ([-\\d.]+)\\)/);
            out[g.dataset.id] = [Math.round((+m[1] - s / 2) / s), Math.round((+m[2] - s / 2) / s)];
        }
        return out; }""")


def board_cells(v: dict) -> dict[str, list[int]]:
    return {f["id"]: f["at"] for f in v["board"]["figures"]}


def play_npc(c, fid, n: int) -> None:
    for _ in range(n):
        v = view(c, fid)
        if v["board"]["over"]:
            return
        plan = c.post(f"/fights/{fid}/suggest", json={"seed": v["decision"]}).json()
        a = plan["action"]
        body = {k: a[k] for k in ("type", "target", "weapon", "option") if k in a}
        if "at" in a:
            body["cell"] = a["at"]
        assert c.post(f"/fights/{fid}/actions", json={"action": body}).status_code == 200
