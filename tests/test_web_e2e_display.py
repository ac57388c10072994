"""The battle map in a real headless Chromium (issues 11 and 35), what it shows: the layout
at desktop and tablet sizes (the cover overlay, the threat overlay), a `tactica simulate`
log replayed to its end, and a Universal VTT map's picture under the grid. Playing a fight
is in tests/test_web_e2e.py; the browser and server set-up in tests/web_e2e_setup.py
(skipped without chromium or playwright unless CI is set).
"""

from __future__ import annotations

import json

from tests import web_e2e_setup as setup
from tests.web_e2e_setup import (DESKTOP, REPO, TABLET, cell_xy, httpx, new_fight, open_fight, play_npc, settle, shot,
                                 tokens, view)
import pytest

#: the browser tests share one xdist worker: two Chromiums and their servers at once on the
#: 2 cores made the page's log lag the board by more than the tests wait (seen in CI)
pytestmark = pytest.mark.xdist_group("browser")

# the browser, the live server, the replay server and the page of tests/web_e2e_setup.py (servers of
# this module's own)
globals().update(browser=setup.browser, live=setup.live, replay_url=setup.replay_url, page=setup.page)


def test_layout_at_desktop_and_tablet_size(live, browser):
    url, c, _ = live
    fid = new_fight(c, seed=0)
    play_npc(c, fid, 28)  # round 2, mid-fight: Gunman 1 plans a move to [13, 7]
    for size, name in ((DESKTOP, "battle-map.png"), (TABLET, "08-tablet.png")):
        ctx = browser.new_context(viewport=size)
        pg = ctx.new_page()
        pg.set_default_timeout(20_000)
        open_fight(pg, url, fid)
        if size is DESKTOP:  # the cover a figure would have on the plan's goal, against each enemy
            pg.keyboard.press("c")
            settle(pg)
            goal = c.post(f"/fights/{fid}/suggest", json={"seed": view(c, fid)["decision"]}).json()["action"]
            pg.mouse.move(*cell_xy(pg, *(goal.get("at") or [10, 7])))
            pg.wait_for_selector("#map .ov-cover-line")
            settle(pg)
            pg.wait_for_function("document.querySelector('#tooltip').innerText.includes('vs ')")
        else:
            pg.keyboard.press("t")
            pg.wait_for_selector("#map .ov-threat")
            settle(pg)
        box = pg.locator("#map").bounding_box()
        side = pg.locator("#side").bounding_box()
        assert pg.evaluate("document.documentElement.scrollWidth") <= size["width"]
        if size is DESKTOP:
            assert side["x"] >= box["x"] + box["width"] - 1 and box["width"] > 700
            assert pg.evaluate("document.documentElement.scrollHeight") <= size["height"]
        else:
            assert side["y"] >= box["y"] + box["height"] - 1 and box["width"] > 700
        for t in pg.locator("g.token").all():
            b = t.bounding_box()
            assert 0 <= b["x"] and b["x"] + b["width"] <= size["width"]
        shot(pg, name)
        ctx.close()


# -- replay ------------------------------------------------------------------------------------
def test_replay_a_log_to_its_end(replay_url, page):
    page.goto(f"{replay_url}/?fight=0")
    page.wait_for_selector("body[data-mode='replay'][data-busy='0']")
    n = int(page.evaluate("document.body.dataset.frames"))
    data = httpx.get(f"{replay_url}/replay", params={"fight": 0}, timeout=30).json()
    assert n == len(data["frames"]) > 5 and page.evaluate("document.body.dataset.frame") == "0"
    assert tokens(page) == {f["id"]: f["at"] for f in data["frames"][0]["board"]["figures"]}
    page.click("#next")
    page.wait_for_function("document.body.dataset.frame === '1'")
    page.keyboard.press("ArrowRight")
    page.wait_for_function("document.body.dataset.frame === '2'")
    page.keyboard.press("ArrowLeft")
    page.wait_for_function("document.body.dataset.frame === '1'")
    assert page.inner_text("#frame-title") == data["frames"][1]["title"]
    mid = max(2, n - 6)
    page.evaluate("""(k) => { const s = document.querySelector('#scrub'); s.value = String(k);
                             s.dispatchEvent(new Event('input', {bubbles: true})); }""", mid)
    page.wait_for_function(f"document.body.dataset.frame === '{mid}'")
    page.select_option("#speed", "8")
    page.click("#play")
    page.wait_for_function(f"document.body.dataset.frame === '{n - 1}' && document.body.dataset.playing === '0'",
                           timeout=30_000)
    settle(page)
    last = data["frames"][-1]["board"]
    assert last["over"] and page.evaluate("document.body.dataset.state") == "over"
    assert page.inner_text("#round").startswith("Over")
    assert tokens(page) == {f["id"]: f["at"] for f in last["figures"]}
    assert page.locator("#log li").count() == len(data["log"])
    shot(page, "09-replay-end.png")
    page.reload()  # the frame is in the address
    page.wait_for_selector("body[data-mode='replay'][data-busy='0']")
    assert page.evaluate("document.body.dataset.frame") == str(n - 1)
    page.select_option("#fight-select", "1")
    page.wait_for_function("document.body.dataset.frame === '0' && document.body.dataset.busy === '0'")
    assert "fight=1" in page.url


# -- maps ---------------------------------------------------------------------------------------
def test_a_universal_vtt_map_draws_its_picture_under_the_grid(live, page):
    """Issue #35: a fight on tests/uvtt/crypt.dd2vtt (a 12x8 map, 16 px a grid square, a plain
    brown picture) shows the picture under the grid, its top-left at cell (0, 0) and one grid
    square a cell, fetched with the token; walls between cells are drawn on the cell edges."""
    from rules.scenario import resolve_scenario

    url, c, _ = live
    here = REPO / "tests" / "uvtt"
    doc, _ = resolve_scenario(here / "crypt.yaml")
    doc = dict(doc, map={**doc["map"], "uvtt": json.loads((here / "crypt.dd2vtt").read_text())})
    r = c.post("/fights", json={"scenario": doc, "seed": 0})
    assert r.status_code == 201, r.text
    open_fight(page, url, r.json()["id"])
    page.wait_for_selector("#map image.backdrop[data-loaded='1']")
    info = page.evaluate("""() => {
        const svg = document.querySelector('#map');
        const img = svg.querySelector('image.backdrop');
        const layers = [...svg.children].map((g) => g.getAttribute('class'));
        const s = Number(svg.dataset.cell);
        const box = img.getBoundingClientRect();
        const cell = svg.createSVGPoint(); cell.x = 12 * s; cell.y = 8 * s;
        const end = cell.matrixTransform(svg.getScreenCTM());
        const o = svg.createSVGPoint(); o.x = 0; o.y = 0;
        const start = o.matrixTransform(svg.getScreenCTM());
        return {attrs: ['x', 'y', 'width', 'height'].map((k) => Number(img.getAttribute(k))), s,
                href: img.getAttribute('href'), under: img.parentNode.getAttribute('class'), layers,
                box: [box.left, box.top, box.right, box.bottom], grid: [start.x, start.y, end.x, end.y],
                walls: svg.querySelector('path.edge-walls') !== null}; }""")
    s = info["s"]
    assert info["attrs"] == [0, 0, 12 * s, 8 * s] and info["href"].startswith("blob:")
    assert info["under"] == "layer-terrain" and info["layers"].index("layer-terrain") < info["layers"].index("layer-grid")
    assert all(abs(a - b) < 1.5 for a, b in zip(info["box"], info["grid"])), info
    assert info["walls"]
    # a pixel of a floor cell nobody can reach (behind the closed door) shows the picture's colour
    x, y = cell_xy(page, 9, 6)
    png = page.screenshot(clip={"x": x - 2, "y": y - 2, "width": 4, "height": 4})
    from PIL import Image
    import io

    r_, g_, b_ = Image.open(io.BytesIO(png)).convert("RGB").getpixel((2, 2))
    assert abs(r_ - 92) < 12 and abs(g_ - 84) < 12 and abs(b_ - 70) < 12, (r_, g_, b_)
    shot(page, "uvtt-map.png")
