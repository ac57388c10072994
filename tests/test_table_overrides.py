"""Issue #33, 'The GM overrules the engine': 'commands at the prompt, buttons on the map and
API routes to set a figure's health or wounds, add or remove a condition, move a figure to
any free cell, add a figure from a template or remove one, change the initiative order, and
end the fight. Each is a logged event, undoable, kept in saves and replays.' The rules side
is tests/test_overrides.py; here the table session, the terminal and the API."""

from __future__ import annotations

import io
import json

import pytest

from rules.replay import play_replay
from tactica.table import Session


def npc_session(tmp_path, scenario="cortex/duel", seed=1) -> Session:
    s = Session.new(scenario, seed=seed, npc=["crew", "outlaws"], save_path=tmp_path / "s.json")
    s.begin()
    return s


def test_an_override_is_logged_undone_saved_and_replayed(tmp_path):
    s = npc_session(tmp_path)
    s.resolve(s.plan().action)
    before = s.to_dict()["combatants"]
    evs = s.override({"kind": "track", "figure": "jubal", "track": "wound", "value": 3})
    assert evs[0]["type"] == "override" and evs[0]["before"] == 0 and evs[0]["after"] == 3
    assert s.state.by_id["jubal"].res["wound"] == 3
    assert s.history[-1]["override"]["value"] == 3
    # saved: the file holds the override and resumes with it
    again = Session.resume(tmp_path / "s.json")
    assert again.state.by_id["jubal"].res["wound"] == 3 and again.history[-1]["override"]
    # replayed: the exported replay plays the same events, override included
    for _ in range(3):
        if s.state.over:
            break
        s.resolve(s.plan().action)
    r = play_replay(s.replay_doc())
    assert r.battle.events == s.battle.events
    # undone: back to before the override, event log too
    while s.history and "override" not in s.history[-1]:
        s.undo()
    n = len(s.history)
    h = s.undo()
    assert h["override"]["kind"] == "track" and len(s.history) == n - 1
    assert s.to_dict()["combatants"] == before


def test_a_refused_override_changes_nothing(tmp_path):
    s = npc_session(tmp_path)
    snap = json.dumps(s.to_dict()["combatants"]), len(s.history), len(s.battle.events)
    from rules.errors import TacticaError
    with pytest.raises(TacticaError) as e:
        s.override({"kind": "place", "figure": "jubal", "cell": [999, 0]})
    assert e.value.field == "cell"
    assert (json.dumps(s.to_dict()["combatants"]), len(s.history), len(s.battle.events)) == snap


def run_terminal(session, lines):
    from rich.console import Console

    from tactica.table import Terminal

    buf = io.StringIO()
    feed = list(lines)

    def answer(prompt):
        if not feed:
            return "quit"
        text = feed.pop(0)
        buf.write(prompt + text + "\n")
        return text

    Terminal(session, Console(file=buf, width=300, color_system=None), answer).run()
    return buf.getvalue()


def test_override_commands_at_the_prompt(tmp_path):
    s = Session.new("cortex/duel", seed=2, save_path=tmp_path / "t.json")   # the GM plays the crew
    s.begin()
    other = next(c for c in s.state.combatants if c.id != s.state.actor.id)
    free = next(i for i in range(s.state.grid.n) if s.state.grid.passable[i]
                and all(c.pos != i for c in s.state.combatants))
    x, y = s.state.grid.xy(free)
    out = run_terminal(s, [f"set {other.id} stun 2", f"cond {other.id} +prone", f"place {other.id} {x} {y}",
                           "set nobody stun 2", "undo", "quit"])
    assert f"GM: {other.name}'s stun 0 -> 2." in out   # told by name, as the plans tell it
    assert "no figure 'nobody'" in out
    kinds = [h["override"]["kind"] for h in s.history if "override" in h]
    assert kinds == ["track", "condition"]          # the place was undone
    assert "undone: GM: place" in out
    assert s.state.by_id[other.id].res["stun"] == 2 and "prone" in s.state.by_id[other.id].conditions


def test_override_route_of_the_api(tmp_path):
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from tactica.server import create_app

    with TestClient(create_app(data=tmp_path / "d")) as c:
        fid = c.post("/fights", json={"scenario": "cortex/duel", "seed": 1}).json()["id"]
        r = c.post(f"/fights/{fid}/overrides", json={"kind": "track", "figure": "jubal", "track": "wound",
                                                     "value": 4})
        assert r.status_code == 200, r.text
        assert r.json()["events"][0]["type"] == "override"
        v = c.get(f"/fights/{fid}/view").json()
        assert v["undo"] == 1 and v["undo_last"].startswith("GM: set jubal wound 4")
        bad = c.post(f"/fights/{fid}/overrides", json={"kind": "track", "figure": "jubal", "track": "wund",
                                                       "value": 4})
        assert bad.status_code == 422 and "did you mean" in bad.json()["error"]
        assert c.post(f"/fights/{fid}/overrides", json={"kind": "teleport"}).status_code == 422
        end = c.post(f"/fights/{fid}/overrides", json={"kind": "end", "winner": "crew", "reason": "they flee"})
        assert end.status_code == 200 and end.json()["summary"]["over"]
        assert c.post(f"/fights/{fid}/overrides", json={"kind": "end", "winner": None}).status_code == 409
        assert c.post(f"/fights/{fid}/undo").json()["undone"].startswith("GM: end the fight")
        assert not c.get(f"/fights/{fid}").json()["summary"]["over"]


def test_an_override_with_a_lone_surrogate_or_nan_is_refused(tmp_path):
    from rules.errors import TacticaError
    s = npc_session(tmp_path)
    n = len(s.battle.events)
    with pytest.raises(TacticaError) as e:
        s.override({"kind": "add", "template": "gunslinger", "team": "crew", "cell": [0, 0], "name": "\ud800"})
    assert e.value.field == "name"
    with pytest.raises(TacticaError):
        s.override({"kind": "track", "figure": "jubal", "track": "wound", "value": float("nan")})
    assert len(s.battle.events) == n and not s.history
