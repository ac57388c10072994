"""The battle map as the GM's table (issue 33, "The battle map"), in a real headless Chromium:
the setup form at 1024-1920 px, the GM's own encounter file or save opened from disk, the
fight list (open, delete), 'Roll for me' from the fight's seeded dice, push updates over the
server-sent-event stream (and the fallback when the stream is refused), grid coordinates as
the terminal's `move X Y`, and the legend. Same browser set-up as tests/test_web_e2e.py
(tests/web_e2e_setup.py: Debian's chromium via Playwright; skipped without it unless CI is set).
"""

from __future__ import annotations

import json
import re

import pytest

from agents.best import best_name
from tests import web_e2e_setup as e2e
from tests.web_e2e_setup import (ALL_PC, DESKTOP, REPO, TABLET, TOKEN, board_cells, cell_xy, click_cell, new_fight,
                                 open_fight, play_npc, settle, shot, view, wait_decision)

#: the browser tests share one xdist worker: two Chromiums and their servers at once on the
#: 2 cores made the page's log lag the board by more than the tests wait (seen in CI)
pytestmark = pytest.mark.xdist_group("browser")

# the browser, the live server and the page of tests/web_e2e_setup.py (a server of this module's own)
globals().update(browser=e2e.browser, live=e2e.live, page=e2e.page)

yaml = pytest.importorskip("yaml")

WAREHOUSE = REPO / "tactica" / "scenarios" / "cortex" / "warehouse.yaml"
STATIC = REPO / "tactica" / "web" / "static"


def fid_of(pg) -> str:
    return re.search(r"[?&]fight=([A-Za-z0-9_-]+)", pg.url).group(1)


def setup(pg, url: str) -> None:
    pg.goto(f"{url}/#token={TOKEN}")
    pg.wait_for_selector("body[data-state='setup'][data-busy='0'] #setup-start")


def unclipped(pg, sel: str) -> bool:
    """The element's centre shows the element itself (no overflow box or other element hides it)."""
    return pg.evaluate("""(sel) => { const e = document.querySelector(sel); const r = e.getBoundingClientRect();
        const at = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
        return Boolean(at) && (at === e || e.contains(at)); }""", sel)


# -- the setup form ------------------------------------------------------------------------------
@pytest.mark.parametrize("size", [{"width": 1024, "height": 768}, DESKTOP, {"width": 1920, "height": 1080}, TABLET],
                         ids=lambda s: f"{s['width']}px")
def test_setup_form_is_whole_and_starts_a_fight(live, browser, size):
    """#33: "The setup form is usable at 1024-1920 px widths (today the Start button is clipped)"."""
    url, c, _ = live
    ctx = browser.new_context(viewport=size)
    pg = ctx.new_page()
    pg.set_default_timeout(60_000)
    setup(pg, url)
    for sel in ("#setup-start", "#setup-scenario", "#setup-file", "#setup-policy", "#setup-token"):
        b = pg.locator(sel).bounding_box()
        assert b and b["x"] >= 0 and b["y"] >= 0, sel
        assert b["x"] + b["width"] <= size["width"] and b["y"] + b["height"] <= size["height"], sel
    assert unclipped(pg, "#setup-start"), "the Start button is hidden by its panel"
    assert pg.evaluate("document.documentElement.scrollWidth") <= size["width"]
    shot(pg, f"10-setup-{size['width']}.png")
    # a real click where the button is drawn (no scrolling into view first)
    assert pg.input_value("#setup-policy") == ""   # the ruleset's default NPC (best where fast enough)
    pg.select_option("#setup-policy", "cautious")
    b = pg.locator("#setup-start").bounding_box()
    pg.mouse.click(b["x"] + b["width"] / 2, b["y"] + b["height"] / 2)
    pg.wait_for_selector("body[data-state='fight'][data-busy='0']")
    v = view(c, fid_of(pg))
    assert v["settings"]["teams"]["syndicate"] == {"role": "npc", "policy": "cautious"}
    assert v["settings"]["teams"]["crew"]["role"] == "pc"
    if size["width"] == 1024:   # and later, during the fight: a team's policy, then who plays it
        pg.click("#teams summary")
        pg.select_option("#teams li[data-team='syndicate'] .team-policy", "aggressive")
        pg.wait_for_function("document.body.dataset.busy === '0' && "
                             "document.querySelector(\"#teams li[data-team='syndicate'] .team-policy\").value "
                             "=== 'aggressive'")
        assert view(c, fid_of(pg))["settings"]["teams"]["syndicate"] == {"role": "npc", "policy": "aggressive"}
        assert pg.locator("#teams li[data-team='syndicate'] .plays-as").count() == 0
        pg.select_option("#teams li[data-team='syndicate'] .team-policy", "best")   # says which player it is here
        pg.wait_for_selector("#teams li[data-team='syndicate'] .plays-as")
        assert pg.inner_text("#teams li[data-team='syndicate'] .plays-as") == f"as {best_name('cortex')}"
        pg.select_option("#teams li[data-team='crew'] .team-role", "npc")
        pg.wait_for_function("document.body.dataset.busy === '0' && "
                             "!document.querySelector(\"#teams li[data-team='crew'] .team-policy\").disabled")
        assert view(c, fid_of(pg))["settings"]["teams"]["crew"] == {"role": "npc", "policy": "tactical"}
    ctx.close()


def test_open_a_json_encounter_and_an_autopilot_save(live, page, tmp_path):
    """#33: fights "created from an encounter file or an autopilot save" - the GM's own files."""
    url, c, _ = live
    doc = yaml.safe_load(WAREHOUSE.read_text(encoding="utf-8"))
    doc["name"] = "my-warehouse"
    enc = tmp_path / "my-warehouse.json"
    enc.write_text(json.dumps(doc), encoding="utf-8")
    setup(page, url)
    page.set_input_files("#setup-file", str(enc))
    page.wait_for_function("document.querySelector('#setup-file-note').innerText.includes('my-warehouse')")
    assert page.locator("#setup-scenario").is_disabled()
    page.fill("#setup-seed", "4")
    page.click("#setup-start")
    page.wait_for_selector("body[data-state='fight'][data-busy='0']")
    fid = fid_of(page)
    mine = view(c, fid)
    assert mine["summary"]["scenario"] == "my-warehouse"
    same = c.post("/fights", json={"scenario": doc, "seed": 4}).json()["id"]   # the same file and seed by the API
    assert view(c, same)["board"] == mine["board"] and view(c, same)["log"] == mine["log"]
    # an autopilot save (the server's own save of a fight 3 decisions in) resumes where it was
    src = new_fight(c, seed=2)
    play_npc(c, src, 3)
    save = tmp_path / "fight.save.json"
    save.write_text(json.dumps(c.get(f"/fights/{src}").json()["state"]), encoding="utf-8")
    setup(page, url)
    page.set_input_files("#setup-file", str(save))
    page.wait_for_function("document.querySelector('#setup-file-note').innerText.includes('as saved')")
    assert page.locator("#setup-seed").is_disabled()
    page.click("#setup-start")
    page.wait_for_selector("body[data-state='fight'][data-busy='0']")
    resumed, orig = view(c, fid_of(page)), view(c, src)
    assert fid_of(page) != src and resumed["decision"] == orig["decision"] == 3
    assert resumed["board"] == orig["board"] and resumed["undo"] == orig["undo"]
    # and it plays on event for event, dice included (the page sends the save's text: parsed in
    # the browser, the dice generator's 128-bit state would be rounded)
    mine = fid_of(page)
    play_npc(c, mine, 3)
    play_npc(c, src, 3)
    evs = [c.get(f"/fights/{f}/events", params={"limit": 10000}).json()["events"] for f in (mine, src)]
    assert evs[0] == evs[1] and len(evs[0]) > 0
    # a YAML encounter: the server reads it (POST /fights {text}); the same fight as by name
    setup(page, url)
    page.set_input_files("#setup-file", str(WAREHOUSE))
    page.wait_for_function("document.querySelector('#setup-file-note').innerText.includes('warehouse')")
    page.fill("#setup-seed", "5")
    page.click("#setup-start")
    page.wait_for_selector("body[data-state='fight'][data-busy='0']")
    by_name = c.post("/fights", json={"scenario": "cortex/warehouse", "seed": 5}).json()["id"]
    assert view(c, fid_of(page))["board"] == view(c, by_name)["board"]
    # a broken YAML file: one readable line naming the line, nothing created
    n = len(c.get("/fights").json()["fights"])
    bad = tmp_path / "broken.yaml"
    bad.write_text("name: x\nmap: [unclosed\n", encoding="utf-8")
    setup(page, url)
    page.set_input_files("#setup-file", str(bad))
    page.click("#setup-start")
    page.wait_for_selector("#banner[data-kind='error']:not([hidden])")
    assert "line" in page.inner_text("#banner .banner-text")
    assert len(c.get("/fights").json()["fights"]) == n


def test_the_fight_list_opens_and_deletes(live, page):
    """#33: fights "listed and resumed ..., and deleted from the page"."""
    url, c, _ = live
    keep, gone = new_fight(c, seed=11), new_fight(c, seed=12)
    play_npc(c, keep, 2)
    setup(page, url)
    row = page.locator(f".fight-list li[data-id='{gone}']")
    assert "round 1" in row.inner_text() and re.search(r"\d{4}-\d\d-\d\d \d\d:\d\d", row.inner_text())
    asked: list[str] = []
    page.once("dialog", lambda d: (asked.append(d.message), d.dismiss()))   # the GM says no
    row.locator("button.delete").click()
    settle(page)
    assert asked and "cannot be undone" in asked[0]
    assert gone in [f["id"] for f in c.get("/fights").json()["fights"]]
    page.once("dialog", lambda d: d.accept())                                 # ... then yes
    row.locator("button.delete").click()
    page.wait_for_selector(f".fight-list li[data-id='{gone}']", state="detached")
    ids = [f["id"] for f in c.get("/fights").json()["fights"]]
    assert gone not in ids and keep in ids
    assert c.get(f"/fights/{gone}").status_code == 404
    page.locator(f".fight-list li[data-id='{keep}'] button.open").click()
    wait_decision(page, 2)
    assert fid_of(page) == keep


# -- the table ---------------------------------------------------------------------------------
def test_roll_for_me_uses_the_fights_seeded_dice(live, page):
    """#33: "the web page's 'Roll for me' uses the engine's seeded dice, not Math.random"."""
    url, c, _ = live
    for p in STATIC.iterdir():
        assert "Math.random" not in p.read_text(encoding="utf-8"), p.name
    a, b = new_fight(c, seed=7, dice_mode="manual", **ALL_PC), new_fight(c, seed=7, dice_mode="manual", **ALL_PC)
    open_fight(page, url, a)
    v = view(c, a)
    me = v["board"]["actor"]
    attack = next(x for x in c.get(f"/fights/{a}/legal").json()["actions"]
                  if x["type"] == "attack" and "option" not in x)
    cells = board_cells(v)
    click_cell(page, *cells[me])
    settle(page)
    click_cell(page, *cells[attack["target"]])
    page.locator("#menu").get_by_text(attack["command"], exact=True).click()
    page.wait_for_selector("#dice input.die")
    settle(page)
    page.click("#dice-roll")
    settle(page)
    dice = page.locator("#dice input.die")
    faces = [int(dice.nth(i).input_value()) for i in range(dice.count())]
    body = {"action": {k: attack[k] for k in ("type", "target", "weapon") if k in attack}, "dice": [], "roll": True}
    r = c.post(f"/fights/{b}/dice", json=body).json()   # the same seed, the same roll: the same faces
    assert r["rolled"] == faces and len(faces) == len(r["request"]["sides"])
    shot(page, "11-roll-for-me.png")
    page.click("#dice-roll")                             # again: the seeded dice move on, as at B
    page.wait_for_function(f"[...document.querySelectorAll('#dice input.die')].map(i => i.value).join(' ') "
                           f"!== '{' '.join(map(str, faces))}' || document.body.dataset.busy === '0'")
    settle(page)
    again = [int(dice.nth(i).input_value()) for i in range(dice.count())]
    assert c.post(f"/fights/{b}/dice", json=body).json()["rolled"] == again
    page.keyboard.press("Escape")                        # rolling resolves nothing
    settle(page)
    assert view(c, a)["total"] == v["total"] and page.locator("#dice").count() == 0


def _views(pg) -> list[str]:
    seen: list[str] = []
    pg.on("request", lambda r: seen.append(r.url) if re.search(r"/fights/[^/]+/(view|events)", r.url) else None)
    return seen


def test_a_second_page_follows_the_stream_without_polling(live, browser):
    """#33: "push updates (server-sent events or a websocket) instead of polling"."""
    url, c, _ = live
    fid = new_fight(c, seed=3, **ALL_PC)
    ctxs = [browser.new_context(viewport=DESKTOP) for _ in range(3)]
    one, two, three = (x.new_page() for x in ctxs)
    for pg in (one, two, three):
        pg.set_default_timeout(60_000)
    three.route(re.compile(r"/fights/[^/]+/stream"), lambda route: route.fulfill(status=503, content_type="text/plain", body="no"))
    for pg in (one, two, three):
        open_fight(pg, url, fid)
    one.wait_for_selector("body[data-push='stream']")
    two.wait_for_selector("body[data-push='stream']")
    three.wait_for_selector("body[data-push='polling']")   # the stream refused: the fallback
    asked = _views(two)
    one.click("button.act.end")                          # the first page acts ...
    wait_decision(one, 1)
    wait_decision(two, 1)                                # ... the second follows, no reload
    assert asked == [], asked                            # the view came with the push
    assert two.locator("#log li").count() == view(c, fid)["total"]
    assert c.post(f"/fights/{fid}/actions", json={"action": {"type": "end_turn"}}).status_code == 200
    wait_decision(two, 2)                                # an API client's action, pushed too
    wait_decision(three, 2)                              # ... and found by the polling page
    assert c.post(f"/fights/{fid}/undo").status_code == 200
    wait_decision(two, 1)                                # an undo (fewer events): redrawn whole
    assert two.locator("#log li").count() == view(c, fid)["total"]
    assert len(asked) <= 1                               # (one whole view, asked once)
    asked.clear()
    two.wait_for_timeout(4000)                           # longer than the fallback's period
    assert asked == [], asked                            # no request for the view while idle
    shot(two, "12-pushed.png")
    for x in ctxs:
        x.close()


def test_grid_coordinates_match_move_x_y_and_the_legend(live, page):
    """#33: "grid coordinates matching the CLI's `move X Y`" and "a legend for cover shades and markers"."""
    url, c, _ = live
    fid = new_fight(c, seed=0, **ALL_PC)
    open_fight(page, url, fid)
    v = view(c, fid)
    w, hgt = v["map"]["width"], v["map"]["height"]
    cols, rows = page.locator("text.coord.col"), page.locator("text.coord.row")
    assert cols.count() == w and rows.count() == hgt
    assert [cols.nth(i).text_content() for i in (0, w - 1)] == ["0", str(w - 1)]
    me = v["board"]["actor"]
    x, y = board_cells(v)[me]
    cx, cy = cell_xy(page, x, y)
    col, row = cols.nth(x).bounding_box(), rows.nth(y).bounding_box()
    assert abs(col["x"] + col["width"] / 2 - cx) < 3 and col["y"] + col["height"] <= cy
    assert abs(row["y"] + row["height"] / 2 - cy) < 3 and row["x"] + row["width"] <= cx
    page.mouse.move(cx, cy)
    page.wait_for_selector("#tooltip:not([hidden])")
    assert f"{x} {y} ·" in page.inner_text("#tooltip")
    # the command the tooltip's cell names is the move the page makes there
    goal = next(a for a in c.get(f"/fights/{fid}/legal").json()["actions"] if a["type"] == "move")
    gx, gy = goal["at"]
    page.mouse.move(*cell_xy(page, gx, gy))
    page.wait_for_function(f"document.querySelector('#tooltip').innerText.includes('{gx} {gy} ·')")
    assert goal["command"] == f"move {gx} {gy}"
    # the legend: closed at first, then every shade and marker with the ruleset's cover names
    assert page.locator("#legend .legend-body").is_hidden()
    page.click("#legend summary")
    body = page.locator("#legend .legend-body")
    assert body.is_visible()
    names = v["map"]["cover_names"]
    for n in (1, 2, 3, 4):
        assert body.locator(f"li[data-key='cover-{n}']").inner_text().strip() == f"{names[n]} cover"
    for key in ("wall", "reach", "hidden", "threat", "plan-path", "acting", "prone", "down", "dead"):
        assert body.locator(f"li[data-key='{key}']").count() == 1, key
    # the swatch is drawn with the map's own class, so it has the map's colour
    fill = page.evaluate("getComputedStyle(document.querySelector(\"#legend li[data-key='cover-2'] rect\")).fill")
    drawn = page.evaluate("(() => { const r = document.querySelector('#map rect.cover-2'); "
                          "return r ? getComputedStyle(r).fill : null; })()")
    assert drawn is None or fill == drawn
    shot(page, "13-legend.png")


def test_page_files_stay_small():
    for p in STATIC.iterdir():
        if p.suffix in (".js", ".css"):
            assert len(p.read_text(encoding="utf-8").splitlines()) <= 520, p.name


def test_a_question_shows_what_its_action_did(live, page):
    """A cybergeneration stun save failed: the page asked "pass out, or stay conscious in shock?"
    with nothing of the hit in the log (the action's events come once it is answered). The panel
    now tells the roll, the hit, the damage and the failed save above the question."""
    url, c, _ = live
    fid = new_fight(c, seed=0, scenario="cybergeneration/mall_raid",
                    teams={"juves": {"role": "pc"}, "cswat": {"role": "npc", "policy": "tactical"}})
    for _ in range(40):
        v = view(c, fid)
        if v["question"] is not None or v["board"]["over"]:
            break
        a = c.post(f"/fights/{fid}/suggest", json={"seed": v["decision"], "policy": "tactical"}).json()["action"]
        body = {k: a[k] for k in ("type", "target", "weapon", "option") if k in a} | ({"cell": a["at"]} if "at" in a else {})
        assert c.post(f"/fights/{fid}/actions", json={"action": body}).status_code == 200
    q = v["question"]
    assert q is not None and q["key"] == "stun_fail" and q["told"], v["question"]
    assert any("rolls stun save" in t for t in q["told"]) and any("takes" in t for t in q["told"])
    open_fight(page, url, fid)
    page.wait_for_selector("#question")
    text = page.inner_text("#question")
    assert q["text"] in text and all(t in text for t in q["told"]), text
    assert "answers: pick one below" in page.inner_text("#pc-hint")
    shot(page, "12-question.png")
