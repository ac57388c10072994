"""Issue #33: 'NPC behaviour a GM sets per team or figure ... The scripted policies honour
them; the autopilot and the API take them.' (the policies' side: tests/test_behaviour.py)"""

from __future__ import annotations

import pytest

from agents.behaved import BehavedPolicy
from rules.errors import TacticaError
from tactica.table import Session


def held_fight(tmp_path=None):
    s = Session.new("cortex/warehouse", seed=4, npc=["crew=tactical", "syndicate=tactical"],   # fast NPCs
                    save_path=(tmp_path / "s.json") if tmp_path else None)
    s.begin()
    return s


def test_hold_set_at_the_table_keeps_the_figure_in_place(tmp_path):
    s = held_fight(tmp_path)
    fig = next(c for c in s.state.combatants if c.team == "syndicate")
    home = fig.pos                     # an int: the figure object itself moves with the fight
    x, y = s.state.grid.xy(home)
    s.set_behaviour(s.check_behaviour({"figures": {fig.id: {"hold": {"cell": [x, y], "radius": 0}}}}))
    assert isinstance(s.policies["syndicate"], BehavedPolicy)
    turns = 0
    for _ in range(40):
        if s.state.over:
            break
        a = s.state.actor
        s.resolve(s.plan().action)
        if a.id == fig.id:
            turns += 1           # without the hold this figure leaves its cell on each of its turns
            assert s.state.by_id[fig.id].pos == home or s.state.by_id[fig.id].down
    assert turns >= 3
    # saved and resumed with it
    again = Session.resume(tmp_path / "s.json")
    assert again.behaviour_json() == {"figures": {fig.id: {"hold": {"cell": [x, y], "radius": 0.0}}}} or \
        again.behaviour_json()["figures"][fig.id]["hold"]["cell"] == [x, y]
    assert isinstance(again.policies["syndicate"], BehavedPolicy)


def test_bad_behaviour_is_refused_with_the_field():
    s = held_fight()
    with pytest.raises(TacticaError) as e:
        s.check_behaviour({"teams": {"syndicate": {"morale": "fallback"}}})
    assert "did you mean" in str(e.value) and "behaviour.teams.syndicate.morale" in str(e.value)
    with pytest.raises(TacticaError):
        s.check_behaviour({"figures": {"nobody": {"downed": "spare"}}})


def test_behave_at_the_prompt_and_in_the_api():
    from tactica.table.settings import behave_command

    s = held_fight()
    out = behave_command(s, ["syndicate", "morale=fall_back", "break_at=0.5"])
    assert out == "syndicate: falls back once 50% of its side is down"      # in words, not the JSON
    assert s.behaviour_json()["teams"]["syndicate"]["morale"] == "fall_back"
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from tactica.server import create_app

    with TestClient(create_app()) as c:
        fid = c.post("/fights", json={"scenario": "cortex/warehouse", "seed": 1}).json()["id"]
        r = c.put(f"/fights/{fid}/settings", json={"behaviour": {"teams": {"syndicate": {"downed": "spare"}}}})
        assert r.status_code == 200, r.text
        assert r.json()["behaviour"] == {"teams": {"syndicate": {"downed": "spare"}}}
        bad = c.put(f"/fights/{fid}/settings", json={"behaviour": {"teams": {"syndicate": {"downed": "spar"}}}})
        assert bad.status_code == 422 and "did you mean" in bad.json()["error"]
        assert c.get(f"/fights/{fid}/view").json()["settings"]["behaviour"] == r.json()["behaviour"]


def test_behave_hold_typed_as_the_help_gives_it(tmp_path):
    """`behave NAME hold=X,Y radius=M`, as the help writes it, typed at the prompt: the typed line's
    comma was read as a word break ('hold='15' (expected hold=X,Y)'); so was `move cell=X,Y`'s."""
    import io

    from rich.console import Console

    from tactica.table import Terminal
    from tactica.table.commands import parse_command

    s = held_fight(tmp_path)
    fig = next(c for c in s.state.combatants if c.team == "syndicate")
    x, y = s.state.grid.xy(fig.pos)
    feed = [f"behave {fig.id} hold={x},{y} radius=2"]
    buf = io.StringIO()
    Terminal(s, Console(file=buf, width=300, color_system=None), lambda p: feed.pop(0) if feed else "quit").run()
    assert s.behaviour_json()["figures"][fig.id]["hold"] == {"cell": [x, y], "radius": 2.0}
    assert f"behaviour: {fig.name}: holds [{x}, {y}] within 2 m" in buf.getvalue()
    move = next(a for a in s.legal() if a.kind == "move")
    mx, my = s.state.grid.xy(move.cell)
    for typed in (f"move cell={mx},{my}", f"move {mx},{my}", f"move {mx}, {my}"):
        assert parse_command(typed, s.state, s.legal()).action == move, typed


def test_behave_star_sets_every_team_and_a_bad_setting_at_the_dice_prompt_is_said(tmp_path):
    """`behave * downed=spare` (the API's "*" team) was read as a figure named '*', and the
    BehaviourError it raised at a dice prompt crashed the table (found by a fuzz of typed lines)."""
    import io

    from rich.console import Console

    from tactica.table import Session, Terminal

    s = Session.new("cortex/warehouse", seed=0, dice_mode="manual", save_path=tmp_path / "s.json")
    buf = io.StringIO()
    feed = ["behave * downed=spare", "behave nobody downed=spare", "r", "r", "r", "r", "r", "r", "r"]
    Terminal(s, Console(file=buf, width=400, color_system=None), lambda p: feed.pop(0) if feed else "quit").run()
    out = buf.getvalue()
    assert s.behaviour_json()["teams"] == {"*": {"downed": "spare"}}, s.behaviour_json()
    assert "error: " in out and "no figure 'nobody'" in out
    assert s.started                                # the roll went on after the error
