"""Issue #33, "One session, one way to copy a battle" and "The API a VTT module can use": the
HTTP API drives the very table `Session` the terminal drives. Fights persist in a data
folder and resume after a restart event for event; autopilot saves and API states are one
format; the action objects the API hands out can be posted back; /suggest honours the team's
policy from /settings; CORS for named origins; push updates; /docs works offline.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from fastapi.testclient import TestClient  # noqa: E402

from tactica.server import create_app  # noqa: E402
from tactica.table import Session  # noqa: E402

TOKEN = "table-token"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


def client_on(data: Path | None = None, **kw) -> TestClient:
    return TestClient(create_app(token=TOKEN, data=data, **kw), headers=AUTH)


def new_fight(c, scenario="cortex/duel", seed=3) -> str:
    r = c.post("/fights", json={"scenario": scenario, "seed": seed})
    assert r.status_code == 201, r.text
    return r.json()["id"]


def play(c, fid, n) -> None:
    """n decisions, each the first legal action posted back exactly as /legal gives it."""
    for _ in range(n):
        legal = c.get(f"/fights/{fid}/legal").json()
        if legal["actor"] is None:
            return
        r = c.post(f"/fights/{fid}/actions", json={"action": legal["actions"][0]})
        assert r.status_code == 200, r.text


def events(c, fid) -> list[dict]:
    return c.get(f"/fights/{fid}/events", params={"limit": 10000}).json()["events"]


def test_fights_persist_and_resume_event_for_event_after_a_restart(tmp_path):
    """'Fights persist: saved to disk as the autopilot saves them, listed and resumed after a
    restart'; 'the resumed fight is event-for-event the fight that was saved'."""
    data = tmp_path / "fights"
    with client_on(data) as c:
        fid = new_fight(c)
        play(c, fid, 6)
        before = events(c, fid)
        state = c.get(f"/fights/{fid}").json()["state"]
    assert (data / f"{fid}.json").is_file()
    assert json.loads((data / f"{fid}.json").read_text())["session"]["format"] == "tactica-autopilot"
    with client_on(data) as c2, client_on(None) as ref:
        assert [f["id"] for f in c2.get("/fights").json()["fights"]] == [fid]
        assert events(c2, fid) == before
        # the same fight played on without a restart: the reference continues from the posted state
        rid = ref.post("/fights", json={"state": state}).json()["id"]
        play(c2, fid, 8)
        play(ref, rid, 8)
        assert events(c2, fid) == events(ref, rid)
        assert len(events(c2, fid)) > len(before)


def test_a_damaged_save_in_the_folder_is_reported_and_kept(tmp_path):
    data = tmp_path / "fights"
    data.mkdir()
    (data / "broken.json").write_text("{not json", encoding="utf-8")
    with client_on(data) as c:
        h = c.get("/health").json()
        assert h["persistent"] and h["fights"] == 0
        assert h["skipped"][0]["file"] == "broken.json" and "JSON" in h["skipped"][0]["error"]
    assert (data / "broken.json").read_text(encoding="utf-8") == "{not json"


def test_delete_removes_the_fight_and_its_file(tmp_path):
    data = tmp_path / "fights"
    with client_on(data) as c:
        fid = new_fight(c)
        assert (data / f"{fid}.json").exists()
        assert c.delete(f"/fights/{fid}").status_code == 200
        assert not (data / f"{fid}.json").exists()
        assert c.get(f"/fights/{fid}").status_code == 404


def test_an_autopilot_save_becomes_a_fight_with_its_history_and_undo(tmp_path):
    """'a fight can be created from an encounter file or an autopilot save'."""
    save = tmp_path / "save.json"
    s = Session.new("cortex/duel", seed=5, save_path=save)
    s.begin()
    for _ in range(3):
        s.resolve(s.legal()[0])
    doc = json.loads(save.read_text(encoding="utf-8"))
    with client_on() as c:
        r = c.post("/fights", json={"state": doc})
        assert r.status_code == 201, r.text
        fid = r.json()["id"]
        v = c.get(f"/fights/{fid}/view").json()
        assert v["undo"] == 3 and v["undo_last"]
        u = c.post(f"/fights/{fid}/undo").json()
        assert u["undo"] == 2
    s.undo()
    with client_on() as c:
        fid2 = c.post("/fights", json={"state": doc}).json()["id"]
        c.post(f"/fights/{fid2}/undo")
        got = c.get(f"/fights/{fid2}").json()["state"]
    assert got["combatants"] == s.to_dict()["combatants"]


def test_the_servers_save_is_what_the_terminal_resumes(tmp_path):
    """One session behind both front ends: a fight played through the API, resumed by
    `Session.resume` (what `tactica autopilot --resume` does), plays on as the API would."""
    data = tmp_path / "fights"
    with client_on(data) as c:
        fid = new_fight(c, seed=9)
        play(c, fid, 5)
        n = len(events(c, fid))
    s = Session.resume(data / f"{fid}.json", ask_all=True)
    assert len(s.battle.events) == n and len(s.history) == 5


def test_action_objects_from_legal_and_suggest_can_be_posted_back():
    """'It accepts the action objects it hands out (/suggest returns `at`, /legal returns
    `command`; posting either back gives 422)' - today it takes them."""
    with client_on() as c:
        fid = new_fight(c, "cortex/warehouse", 2)
        legal = c.get(f"/fights/{fid}/legal", params={"notes": True}).json()["actions"]
        move = next(a for a in legal if a["type"] == "move")
        assert "at" in move and "command" in move and "label" in move
        r = c.post(f"/fights/{fid}/actions", json={"action": move})
        assert r.status_code == 200, r.text
        plan = c.post(f"/fights/{fid}/suggest", json={}).json()
        r = c.post(f"/fights/{fid}/actions", json={"action": plan["action"]})
        assert r.status_code == 200, r.text
        # `at` and `cell` naming different cells is refused
        bad = dict(move, cell=[0, 0], at=[1, 1])
        assert c.post(f"/fights/{fid}/actions", json={"action": bad}).status_code == 422


def test_suggest_honours_the_teams_policy_from_settings():
    with client_on() as c:
        fid = new_fight(c, "cortex/warehouse", 1)
        actor = c.get(f"/fights/{fid}/legal").json()["actor"]
        team = next(f["team"] for f in c.get(f"/fights/{fid}/view").json()["board"]["figures"] if f["id"] == actor)
        assert c.post(f"/fights/{fid}/suggest", json={}).json()["policy"] == "tactical"
        r = c.put(f"/fights/{fid}/settings", json={"teams": {team: {"role": "npc", "policy": "aggressive"}}})
        assert r.status_code == 200
        assert c.post(f"/fights/{fid}/suggest", json={}).json()["policy"] == "aggressive"
        assert c.post(f"/fights/{fid}/suggest", json={"policy": "cautious"}).json()["policy"] == "cautious"
        r = c.post(f"/fights/{fid}/suggest", json={"policy": "tacticle"})
        assert r.status_code == 422 and "did you mean tactical" in r.json()["error"]


def test_cors_only_for_named_origins():
    with client_on(cors_origins=["https://vtt.example"]) as c:
        pre = {"Origin": "https://vtt.example", "Access-Control-Request-Method": "POST",
               "Access-Control-Request-Headers": "authorization,content-type"}
        r = c.options("/fights", headers=pre)
        assert r.headers.get("access-control-allow-origin") == "https://vtt.example"
        r = c.options("/fights", headers=pre | {"Origin": "https://evil.example"})
        assert r.headers.get("access-control-allow-origin") is None
    with client_on() as c:  # no --cors-origin: no CORS headers at all
        r = c.get("/health", headers={"Origin": "https://vtt.example"})
        assert "access-control-allow-origin" not in r.headers


def test_docs_work_offline():
    """'/docs works offline (today it loads Swagger from a CDN)'."""
    with client_on() as c:
        r = c.get("/docs")
        assert r.status_code == 200 and "text/html" in r.headers["content-type"]
        page = r.text
        assert "/fights/{fid}/actions" in page and "ApplyAction" in page
        assert "<script" not in page and "cdn" not in page.lower()
        assert "https://" not in page and "http://" not in page


def test_push_updates_stream_the_view(monkeypatch):
    """'push updates (server-sent events or a websocket) instead of polling'."""
    import tactica.server.page as page

    monkeypatch.setattr(page, "STREAM_LIFE", 0.6)
    monkeypatch.setattr(page, "STREAM_POLL", 0.05)
    with client_on() as c:
        fid = new_fight(c)
        assert c.get(f"/fights/{fid}/stream", headers={"Authorization": ""}).status_code == 401  # token checked
        with c.stream("GET", f"/fights/{fid}/stream", params={"token": TOKEN}, headers={"Authorization": ""}) as r:
            assert r.headers["content-type"].startswith("text/event-stream")
            text = "".join(r.iter_text())
        first = text.split("\n\n")[0]
        assert first.startswith("event: view\ndata: ")
        msg = json.loads(first.split("data: ", 1)[1])
        assert msg["id"] == fid and msg["total"] == len(events(c, fid))


def test_roll_for_me_uses_the_fights_seeded_dice():
    """'the web page's "Roll for me" uses the engine's seeded dice, not Math.random': two
    fights of one seed roll the same faces; the faces are the fight's own next numbers."""
    got = []
    for _ in range(2):
        with client_on() as c:
            fid = new_fight(c, "cortex/warehouse", 4)
            c.put(f"/fights/{fid}/settings", json={"dice_mode": "manual"})
            legal = c.get(f"/fights/{fid}/legal").json()["actions"]
            attack = next(a for a in legal if a["type"] == "attack")
            r = c.post(f"/fights/{fid}/dice", json={"action": attack, "dice": [], "roll": True}).json()
            assert r["request"] is not None and len(r["rolled"]) == len(r["request"]["sides"])
            assert all(1 <= f <= s for f, s in zip(r["rolled"], r["request"]["sides"]))
            nxt = c.post(f"/fights/{fid}/dice", json={"action": attack, "dice": r["rolled"]}).json()
            got.append((r["rolled"], nxt["given"]))
    assert got[0] == got[1] and got[0][1] == len(got[0][0])


def test_policies_are_listed_with_the_default():
    with client_on() as c:
        r = c.get("/policies").json()
        names = [p["name"] for p in r["policies"]]
        assert r["default"] == "tactical" and {"tactical", "aggressive", "planner"} <= set(names)
        assert all(p["description"] for p in r["policies"])


def test_a_fight_from_an_uploaded_file_text():
    """'Opens the GM's own encounter file or save': the page posts the file's text."""
    from rules.scenario import bundled_dir

    yaml_text = (bundled_dir() / "cortex" / "duel.yaml").read_text(encoding="utf-8")
    with client_on() as c:
        r = c.post("/fights", json={"text": yaml_text, "seed": 2})
        assert r.status_code == 201, r.text
        fid = r.json()["id"]
        play(c, fid, 2)
        save = json.dumps(c.get(f"/fights/{fid}").json()["state"])
        r2 = c.post("/fights", json={"text": save})
        assert r2.status_code == 201 and events(c, r2.json()["id"]) == events(c, fid)
        bomb = "a: &a [x, x]\nb: &b [*a, *a]\nc: [*b, *b]\n"
        r3 = c.post("/fights", json={"text": bomb})
        assert r3.status_code == 422 and "aliases" in r3.json()["error"]
        r4 = c.post("/fights", json={"text": "map: [unclosed"})
        assert r4.status_code == 422 and "line" in r4.json()["error"]
