"""The battle-map page's server side (issue 11), without a browser: the page and its files
are served (no token, no network references), the overlays are the rules engine's own
answers, undo restores the exact fight, manual dice are asked for roll by roll, replays
follow a recorded fight exactly, and every error is one readable JSON message.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from fastapi.testclient import TestClient  # noqa: E402
from typer.testing import CliRunner  # noqa: E402

from agents.base import default_policy, make_policy  # noqa: E402
from agents.best import best_name  # noqa: E402
from rules.dice import Dice  # noqa: E402
from rules.scenario import load_scenario, new_battle  # noqa: E402
from rules.serialize import battle_to_dict  # noqa: E402
from tactica.cli import app as cli_app  # noqa: E402
from tactica.server import create_app  # noqa: E402
from tactica.web import STATIC_DIR  # noqa: E402
from tactica.web.replay import Replay, load_recording  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
TOKEN = "web-token"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


@pytest.fixture
def client():
    with TestClient(create_app(token=TOKEN), headers=AUTH) as c:
        yield c


def new_fight(client, scenario="cortex/warehouse", seed=0, **settings) -> str:
    r = client.post("/fights", json={"scenario": scenario, "seed": seed})
    assert r.status_code == 201, r.text
    fid = r.json()["id"]
    if settings:
        assert client.put(f"/fights/{fid}/settings", json=settings).status_code == 200
    return fid


def state_of(client, fid) -> str:
    return json.dumps(client.get(f"/fights/{fid}").json()["state"], sort_keys=True)


def cell_body(a: dict) -> dict:
    b = {k: a[k] for k in ("type", "target", "weapon", "option") if k in a}
    if "at" in a:
        b["cell"] = a["at"]
    return b


def assert_error(r, status: int, *words: str) -> dict:
    assert r.status_code == status, r.text
    body = r.json()
    assert set(body) >= {"error", "field"} and isinstance(body["error"], str)
    assert "Traceback" not in r.text and "File \"" not in r.text
    for w in words:
        assert w in body["error"], body["error"]
    return body


def simulate_log(path: Path, scenario="cortex/warehouse", fights=2, seed=0) -> Path:
    from evaluation.simulate import simulate

    spec, src = load_scenario(scenario)
    with open(path, "w", encoding="utf-8") as fh:
        simulate(spec, {t.name: "aggressive" for t in spec.teams}, fights, seed, src, log=fh)
    return path


# -- the page and its files ------------------------------------------------------------------
def test_page_and_files_are_served_without_a_token(client):
    bare = TestClient(client.app)
    r = bare.get("/")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    assert '<script type="module" src="/web/app.js">' in r.text
    names = sorted(p.name for p in STATIC_DIR.iterdir() if p.suffix in (".js", ".css", ".html"))
    assert {"index.html", "style.css", "app.js", "api.js", "map.js", "ui.js", "live.js", "replay.js"} <= set(names)
    for name in names:
        r = bare.get(f"/web/{name}")
        assert r.status_code == 200, name
        want = {".js": "text/javascript", ".css": "text/css", ".html": "text/html"}[Path(name).suffix]
        assert r.headers["content-type"].startswith(want), (name, r.headers["content-type"])
    assert bare.get("/health").json() == {"ok": True, "fights": 0, "replay": False, "persistent": False, "skipped": []}
    assert_error(bare.get("/fights"), 401, "token")  # the API itself still needs the token


def test_page_files_need_nothing_from_outside():
    """No CDN, no build step: every import is a local module, no URL leaves the server."""
    for p in STATIC_DIR.iterdir():
        if p.suffix not in (".js", ".css", ".html"):
            continue
        text = p.read_text(encoding="utf-8")
        assert not re.search(r"https?://(?!www\.w3\.org/2000/svg)", text), p.name
        mods = re.findall(r"""^\s*import\b[^;]*?from\s*["']([^"']+)["']""", text, re.M | re.S)
        mods += re.findall(r"""\bimport\(\s*["']([^"']+)["']\s*\)""", text)
        if p.name == "app.js":
            assert {"./api.js", "./map.js", "./live.js", "./replay.js"} <= set(mods)
        for mod in mods:
            assert mod.startswith("./") and (STATIC_DIR / mod[2:]).is_file(), (p.name, mod)


@pytest.mark.parametrize("path", ["/web/nothing.js", "/web/__init__.py", "/web/..%2Fserver.py", "/web/board.py"])
def test_only_page_files_are_served(client, path):
    assert_error(client.get(path), 404)


def test_package_data_covers_the_page():
    import tomllib

    data = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["tactica"]
    assert "web/**/*" in data or "web/static/*" in data
    assert "playwright" in " ".join(tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
                                    ["optional-dependencies"]["dev"])


# -- view and overlays --------------------------------------------------------------------------
def test_view_has_map_figures_order_and_a_narrated_log(client):
    fid = new_fight(client)
    v = client.get(f"/fights/{fid}/view").json()
    b = v["board"]
    assert v["map"]["width"] == 20 and v["map"]["height"] == 14 and len(v["map"]["rows"]) == 14
    assert v["map"]["terrain"]["#"]["blocks_sight"] and v["map"]["terrain"]["m"]["cover"] == 2
    assert {f["id"] for f in b["figures"]} == {"zoe", "jayne", "kaylee", "gunman1", "bomber", "heavy"}
    assert b["actor"] == b["order"][0] and b["round"] == 1
    assert [t["pc"] for t in b["teams"]] == [True, False]
    zoe = next(f for f in b["figures"] if f["id"] == "zoe")
    assert zoe["at"] == [2, 1] and zoe["hp"] == zoe["max"] > 0 and zoe["conditions"] == [] and not zoe["down"]
    assert v["total"] == len(v["log"]) > 0 and v["log"][0]["text"].startswith("Battle begins")
    roll = next(e for e in v["log"] if e["event"]["type"] == "roll")
    assert roll["event"]["dice"] and "rolls initiative" in roll["text"]
    npc = {"role": "npc", "policy": default_policy("cortex")}
    if npc["policy"] == "best":   # the player `best` is in this fight (agents/best.py `playing`)
        npc["plays_as"] = best_name("cortex")
    assert v["settings"]["teams"] == {"crew": {"role": "pc", "policy": None}, "syndicate": npc}
    assert v["undo"] == 0 and v["decision"] == 0
    later = client.get(f"/fights/{fid}/view", params={"since": 5}).json()
    assert later["since"] == 5 and later["log"][0]["i"] == 5 and later["total"] == v["total"]


def test_overlays_are_the_rules_engines_answers(client):
    fid = new_fight(client, seed=3)
    app_fight = client.app.state.store.get(fid)
    s = app_fight.battle.state
    g = s.grid
    actor = s.actor
    ov = client.get(f"/fights/{fid}/overlays", params={"x": 9, "y": 6, "to_x": 9, "to_y": 3}).json()
    assert ov["actor"] == actor.id
    moves = {tuple(g.xy(a.cell)) for a in app_fight.battle.legal_actions() if a.kind == "move"}
    assert {tuple(c) for c in ov["reach"]} == moves and moves
    assert ov["los"] == [int(v) for v in g.visible_row(actor.pos)]
    foes = [c for c in s.combatants if c.team != actor.team and not c.down]
    assert ov["threat_max"] == len(foes)
    assert ov["threat"] == [sum(int(g.visible_row(c.pos)[i]) for c in foes) for i in range(g.n)]
    cell = g.index(9, 6)
    assert [(c["id"], c["cover"], c["their_cover"], c["los"]) for c in ov["cover"]] == \
        [(c.id, g.cover(cell, c.pos), g.cover(c.pos, cell), g.los(cell, c.pos)) for c in foes]
    assert ov["cover"][0]["cover_effect"]  # the ruleset's words for that cover level
    assert ov["path"][0] == list(g.xy(actor.pos)) and ov["path"][-1] == [9, 3]
    assert all(g.passable[g.index(x, y)] for x, y in ov["path"])


@pytest.mark.parametrize("params,words", [
    ({"x": 50, "y": 2}, ["off the 20x14 map"]),
    ({"x": 3}, ["both coordinates"]),
    ({"to_y": 3}, ["both coordinates"]),
    ({"x": -1, "y": 0}, ["x"]),
])
def test_overlays_bad_cells_are_422(client, params, words):
    fid = new_fight(client)
    assert_error(client.get(f"/fights/{fid}/overlays", params=params), 422, *words)


def test_legal_notes_give_the_odds(client):
    fid = new_fight(client)
    acts = client.get(f"/fights/{fid}/legal", params={"notes": True}).json()["actions"]
    attack = next(a for a in acts if a["type"] == "attack")
    assert "to hit" in attack["label"]
    plain = client.get(f"/fights/{fid}/legal").json()["actions"]
    assert "label" not in plain[0] and len(plain) == len(acts)


# -- undo ---------------------------------------------------------------------------------------
def test_undo_restores_the_exact_fight(client):
    fid = new_fight(client, seed=2)
    states = [state_of(client, fid)]
    for _ in range(4):
        plan = client.post(f"/fights/{fid}/suggest", json={"seed": 1}).json()
        r = client.post(f"/fights/{fid}/actions", json={"action": cell_body(plan["action"])})
        assert r.status_code == 200, r.text
        states.append(state_of(client, fid))
    v = client.get(f"/fights/{fid}/view").json()
    assert v["undo"] == 4 and v["undo_last"]
    for k in range(4, 0, -1):
        r = client.post(f"/fights/{fid}/undo").json()
        assert r["undo"] == k - 1 and ":" in r["undone"]
        assert state_of(client, fid) == states[k - 1]
    assert_error(client.post(f"/fights/{fid}/undo"), 409, "nothing to undo")
    assert state_of(client, fid) == states[0]
    # after an undo the fight goes on as before, with the same dice
    plan = client.post(f"/fights/{fid}/suggest", json={"seed": 1}).json()
    client.post(f"/fights/{fid}/actions", json={"action": cell_body(plan["action"])})
    assert state_of(client, fid) == states[1]


def test_failed_actions_leave_nothing_to_undo(client):
    fid = new_fight(client)
    before = state_of(client, fid)
    assert_error(client.post(f"/fights/{fid}/actions", json={"action": {"type": "move", "cell": [0, 0]}}), 422,
                 "not legal")
    assert client.get(f"/fights/{fid}/view").json()["undo"] == 0 and state_of(client, fid) == before


# -- manual dice -------------------------------------------------------------------------------
def first_attack(client, fid) -> dict:
    acts = client.get(f"/fights/{fid}/legal").json()["actions"]
    return cell_body(next(a for a in acts if a["type"] == "attack" and "option" not in a
                          and "grenade" not in a.get("weapon", "")))


def test_manual_dice_are_asked_roll_by_roll(client):
    fid = new_fight(client, seed=0, dice_mode="manual")
    assert client.get(f"/fights/{fid}/view").json()["settings"]["dice_mode"] == "manual"
    action = first_attack(client, fid)
    every: list[int] = []
    rolled: list[int] = []
    asked = []
    while action is not None:   # the attack, then the answer to each question it asks (issue 32)
        faces: list[int] = []
        while True:
            r = client.post(f"/fights/{fid}/dice", json={"action": action, "dice": faces})
            assert r.status_code == 200, r.text
            req = r.json()["request"]
            if req is None:
                break
            assert r.json()["given"] == len(faces) and req["sides"] and req["purpose"]
            asked.append(req)
            faces += [1] * len(req["sides"])  # all ones: a miss, so the fight goes on predictably
        r = client.post(f"/fights/{fid}/actions", json={"action": action, "dice": faces})
        assert r.status_code == 200, r.text
        every += faces
        evs = r.json()["events"]
        rolled += [r_ for e in evs if e["type"] == "roll" for _, r_ in e["dice"]]
        q = evs[-1] if evs and evs[-1]["type"] == "question" else None
        action = {"type": "choose", "option": q["default"]} if q else None
    assert asked[0]["roller"] and "attack" in asked[0]["purpose"] and "enter" in asked[0]["text"]
    assert rolled == every       # each die entered once, at the step that rolled it


@pytest.mark.parametrize("dice,words", [
    ([99], ["cannot show 99", "expected 1.."]),
    ([1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1], ["more than the action rolls"]),
    ([0], ["cannot show 0"]),
])
def test_bad_manual_dice_are_readable_422s(client, dice, words):
    fid = new_fight(client, dice_mode="manual")
    before = state_of(client, fid)
    body = assert_error(client.post(f"/fights/{fid}/dice", json={"action": first_attack(client, fid), "dice": dice}),
                        422, *words)
    assert body["field"] == "dice" and state_of(client, fid) == before


def test_manual_dice_of_a_stale_page_are_refused(client):
    fid = new_fight(client, dice_mode="manual")
    actor = client.get(f"/fights/{fid}/view").json()["board"]["actor"]
    body = {"action": {"type": "end_turn"}, "actor": "zoe" if actor != "zoe" else "jayne", "dice": []}
    assert_error(client.post(f"/fights/{fid}/dice", json=body), 409, "turn")
    body["actor"] = actor
    assert client.post(f"/fights/{fid}/dice", json=body).status_code == 200


def test_settings_are_checked(client):
    fid = new_fight(client)
    assert_error(client.put(f"/fights/{fid}/settings", json={"teams": {"nobody": {"role": "pc"}}}), 422,
                 "no team 'nobody'")
    assert_error(client.put(f"/fights/{fid}/settings", json={"teams": {"crew": {"role": "npc", "policy": "zz"}}}),
                 422, "unknown policy 'zz'")
    assert_error(client.put(f"/fights/{fid}/settings", json={"dice_mode": "loaded"}), 422, "dice_mode")
    r = client.put(f"/fights/{fid}/settings", json={"teams": {"crew": {"role": "npc"}}}).json()
    assert {k: r["teams"]["crew"][k] for k in ("role", "policy")} == {"role": "npc", "policy": default_policy("cortex")}
    assert r["dice_mode"] == "engine"


def test_a_star_sets_every_team_and_a_team_named_beside_it_keeps_its_own(client):
    """teams {"*": ...}: every team, as `--npc '*=POLICY'` at the terminal; checked whole before anything changes."""
    fid = new_fight(client)
    before = client.get(f"/fights/{fid}/view").json()["settings"]["teams"]
    assert_error(client.put(f"/fights/{fid}/settings", json={"teams": {"*": {"role": "npc", "policy": "zz"}}}),
                 422, "unknown policy 'zz'")
    assert client.get(f"/fights/{fid}/view").json()["settings"]["teams"] == before
    r = client.put(f"/fights/{fid}/settings", json={"teams": {"*": {"role": "npc", "policy": "tactical"},
                                                              "crew": {"role": "npc", "policy": "aggressive"}}})
    got = {t: (v["role"], v["policy"]) for t, v in r.json()["teams"].items()}
    assert got == {"crew": ("npc", "aggressive"), "syndicate": ("npc", "tactical")}
    assert_error(client.put(f"/fights/{fid}/settings", json={"teams": {"nobody": {"role": "pc"}}}), 422,
                 "or * for every team")


def test_an_internal_error_is_one_readable_line(monkeypatch):
    import tactica.web.board as board

    def broken(*a, **k):
        raise RuntimeError("a bug with a long story")

    monkeypatch.setattr(board, "board_json", broken)
    with TestClient(create_app(), raise_server_exceptions=False) as c:
        fid = new_fight(c)
        before = state_of(c, fid)
        body = assert_error(c.get(f"/fights/{fid}/view"), 500, "internal error (RuntimeError)", "unchanged")
        assert "long story" not in body["error"] and state_of(c, fid) == before


def test_page_endpoints_need_the_token_and_know_no_foreign_fight(client):
    bare = TestClient(client.app)
    assert_error(bare.get("/fights/abc/view"), 401)
    assert_error(client.get("/fights/abc/view"), 404, "no fight 'abc'")
    assert_error(client.post("/fights/abc/undo"), 404, "no fight 'abc'")


# -- replays --------------------------------------------------------------------------------------
def test_replay_follows_a_simulate_log_exactly(tmp_path):
    """Every frame is a real state: the last one is the fight's own final state."""
    spec, src = load_scenario("cortex/warehouse")
    events: list[dict] = []
    battle = new_battle(spec, Dice(11), src, on_event=lambda e: events.append(json.loads(json.dumps(e))))
    battle.run({t.name: make_policy("tactical", seed=3) for t in spec.teams})
    log = tmp_path / "one.log.jsonl"
    log.write_text("".join(json.dumps({"fight": 0, **e}) + "\n" for e in events))
    rp = Replay(load_recording(log))
    f = rp.followed(0)
    assert f.warning is None and f.frames[-1].last == len(events)
    final = new_battle(spec, Dice(0), src)
    final.state = f.frames[-1].state
    keep = ("combatants", "round", "order", "over", "winner", "map_rows")
    mine, real = battle_to_dict(final, {}, False), battle_to_dict(battle, {}, False)
    assert {k: mine[k] for k in keep} == {k: real[k] for k in keep}
    assert len(f.frames) - 1 == battle.actions_resolved


def test_replay_endpoint_and_its_overlays(tmp_path):
    rp = Replay(load_recording(simulate_log(tmp_path / "w.log.jsonl")))
    with TestClient(create_app(replay=rp)) as c:
        assert c.get("/health").json()["replay"] is True
        d = c.get("/replay").json()
        assert d["kind"] == "simulate log" and d["fights"] == [0, 1] and d["fight"] == 0
        frames = d["frames"]
        assert frames[0]["first"] == 0 and frames[-1]["board"]["over"]
        assert all(a["last"] == b["first"] for a, b in zip(frames, frames[1:]))
        assert frames[-1]["last"] == len(d["log"]) and d["log"][-1]["event"]["type"] == "battle_end"
        assert frames[1]["title"].count(":") >= 1 and frames[1]["action"]["type"]
        assert c.get("/replay", params={"fight": 1}).json()["fight"] == 1
        assert_error(c.get("/replay", params={"fight": 7}), 422, "no fight 7")
        ov = c.get("/replay/overlays", params={"frame": 1, "x": 5, "y": 5}).json()
        assert ov["actor"] and ov["reach"] and len(ov["los"]) == 20 * 14 and ov["cover"]
        assert_error(c.get("/replay/overlays", params={"frame": 10_000}), 422, "no frame")


def test_replay_endpoint_is_404_without_a_recording(client):
    assert_error(client.get("/replay"), 404, "tactica view")


def test_replay_of_a_replay_file_and_of_an_autopilot_save(tmp_path):
    from tactica.table import Session

    rp = Replay(load_recording(REPO / "tests" / "replays" / "cortex_pistol_hit.yaml"))
    d = rp.to_json(0)
    assert d["kind"] == "replay file" and len(d["frames"]) == 2 and "attack" in d["frames"][1]["title"]
    save = tmp_path / "save.json"
    s = Session.new("cortex/duel", seed=4, save_path=save, npc=["outlaws=planner"])   # 3 NPC actions, 3 frames
    s.begin()
    for _ in range(3):
        s.resolve(s.plan().action, by="npc")
    d = Replay(load_recording(save)).to_json(0)
    assert d["kind"] == "state file" and len(d["frames"]) == 4 and d["warning"] is None
    doc = json.loads(save.read_text())
    doc["events"] = []  # a save without its log is rebuilt from its history
    save.write_text(json.dumps(doc))
    assert len(Replay(load_recording(save)).to_json(0)["frames"]) == 4


@pytest.mark.parametrize("content,name,words", [
    ("hello\n", "x.txt", ["not a fight log", "--log file from tactica simulate"]),
    ('{"a": 1}', "x.json", ["neither a replay nor a state file"]),
    ("", "x.jsonl", ["file is empty"]),
    ('{"type": "round_start", "round": 1}\n{oops\n', "x.jsonl", ["line 2", "not valid JSON"]),
    ('{"type": "round_start", "round": 1, "fight": 0}\n', "x.jsonl", ["does not begin with a battle_start"]),
])
def test_view_refuses_bad_files_in_one_line(tmp_path, content, name, words):
    p = tmp_path / name
    p.write_text(content)
    r = CliRunner().invoke(cli_app, ["view", str(p), "--no-open"])
    assert r.exit_code == 2, r.output
    err = r.stderr.strip()
    assert len(err.splitlines()) <= 3 and str(p.name) in err and "Traceback" not in r.output, err
    for w in words:
        assert w in " ".join(err.split()), err


def test_view_names_a_missing_file_and_a_foreign_scenario(tmp_path):
    r = CliRunner().invoke(cli_app, ["view", str(tmp_path / "nope.jsonl"), "--no-open"])
    assert r.exit_code == 2 and "file not found" in r.stderr
    log = simulate_log(tmp_path / "w.log.jsonl", fights=1)
    r = CliRunner().invoke(cli_app, ["view", str(log), "--scenario", "cortex/duel", "--no-open"])
    assert r.exit_code == 2 and "does not start like scenario 'cortex/duel'" in " ".join(r.stderr.split())
    r = CliRunner().invoke(cli_app, ["view", str(log), "--fight", "3", "--no-open"])
    assert r.exit_code == 2 and "no fight 3" in r.stderr
