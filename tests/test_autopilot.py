"""GM autopilot (issue 9): the command parser, manual dice, the session (undo, atomic save,
resume, damaged saves) and `tactica suggest`. The terminal loop and an end-to-end run of a
real `tactica autopilot` process are in tests/test_autopilot_terminal.py.
"""

from __future__ import annotations

import json

import pytest
import yaml
from typer.testing import CliRunner

from rules.actions import Action
from rules.errors import DiceError
from rules.replay import run_replay, state_summary
from tactica.table import (CommandError, Session, SessionError, next_dice_request, parse_command,
                               parse_faces, read_save, replay_from_save, suggest)
from tactica.cli import app
from tests.session_setup import play_alike


def duel_state():
    s = Session.new("cortex/duel", seed=1)
    s.begin()
    return s


# ---------------------------------------------------------------------------------------
# the command syntax


def test_parse_moves_attacks_and_options():
    s = duel_state()
    st = s.state
    # make it Mal's decision whatever the initiative said
    while st.actor.id != "mal":
        s.resolve(Action("end_turn"))
        st = s.state
    legal = s.legal()
    a = parse_command("move 2 9", st, legal).action
    assert a == Action("move", cell=st.grid.index(2, 9))
    assert parse_command("m 2,9", st, legal).action == a
    assert parse_command("attack jubal", st, legal).action == Action("attack", target="jubal", weapon="revolver")
    assert parse_command("Attack JUBAL revolver", st, legal).action.option is None
    head = Action("attack", target="jubal", weapon="revolver", option="called:head")
    assert parse_command("attack jubal revolver called:head", st, legal).action == head
    assert parse_command("attack jubal revolver called head", st, legal).action == head
    assert parse_command("attack jub rev head", st, legal).action == head
    assert parse_command("defend block", st, legal).action == Action("defend", option="block")
    assert parse_command("dodge", st, legal).action == Action("defend", option="dodge")
    assert parse_command("defend all out dodge", st, legal).action == Action("defend", option="all_out_dodge")
    assert parse_command("prone", st, legal).action == Action("drop_prone")
    assert parse_command("end", st, legal).action == Action("end_turn")
    assert parse_command('{"type": "attack", "target": "jubal", "weapon": "revolver"}', st, legal).action.kind == "attack"
    assert parse_command("3", st, legal).kind == "pick" and parse_command("3", st, legal).number == 3
    c = parse_command("status Jubal", st, legal)
    assert (c.kind, c.name, c.args) == ("meta", "status", ["Jubal"])
    assert parse_command("", st, legal).kind == "empty"
    assert parse_command("?", st, legal).name == "help"


@pytest.mark.parametrize("line,words", [
    ("atack jubal", ["did you mean", "attack"]),
    ("attack jubl", ["did you mean", "jubal"]),
    ("attack jubal revolver called:nose", ["not a target, weapon or option"]),
    ("move 99 99", ["off the"]),
    ("move 3", ["two numbers"]),
    ("reload", ["cannot reload now"]),
    ("stand", ["cannot stand up now"]),
    ("mvoe 3 4", ["did you mean", "move"]),
    ("pp x", ["pp N"]),
])
def test_parse_errors_say_what_was_expected(line, words):
    s = duel_state()
    with pytest.raises(CommandError) as ei:
        parse_command(line, s.state, s.legal())
    msg = ei.value.line()
    for w in words:
        assert w in msg, msg


def test_parse_faces_refuses_impossible_values():
    assert parse_faces("5 3", [8, 6]) == [5, 3]
    assert parse_faces("5,3", [8, 6]) == [5, 3]
    with pytest.raises(CommandError, match="a d6 cannot show 7"):
        parse_faces("5 7", [8, 6])
    with pytest.raises(CommandError, match="1 value"):
        parse_faces("5", [8, 6])
    with pytest.raises(CommandError, match="cannot show 0"):
        parse_faces("0", [8])


# ---------------------------------------------------------------------------------------
# manual dice


def test_manual_dice_prompt_names_who_rolls_what_against_what_and_uses_the_faces():
    s = Session.new("cortex/duel", seed=2, dice_mode="manual", npc=["outlaws=planner"])   # answers by default
    asked = []

    def provider(req):
        asked.append(req)
        return [min(s_, 3) for s_ in req.sides]

    s.begin(provider)
    assert [r.purpose for r in asked] == ["initiative", "initiative"]
    assert "Mal rolls initiative: Agility d10 + Alertness d8" in asked[0].text()
    assert s.battle.events[2]["dice"] == [[10, 3], [8, 3]]
    while s.state.actor.id != "mal":
        s.resolve(Action("end_turn"), provider)
    asked.clear()
    s.resolve(Action("attack", target="jubal", weapon="revolver"), provider)
    first = asked[0].text()
    assert first.startswith("Mal rolls attack with revolver: Agility d10 + Guns")
    assert "against Jubal's defence" in first and "or r to roll" in first
    if len(asked) > 1:
        assert asked[1].roller == "Jubal" and "against Mal's attack of" in asked[1].text()
    rolls = [e for e in s.battle.events if e["type"] == "roll" and e["purpose"].startswith("attack")]
    assert [f for _, f in rolls[-1]["dice"]] == [3, 3]
    # every die typed in is in the history of that step, so a replay can force them
    assert s.history[-1]["dice"][:2] == [3, 3]


def test_manual_dice_r_is_the_engine_roll():
    """Typing r for every roll gives the same fight as engine dice."""
    a = Session.new("cortex/duel", seed=4)
    b = Session.new("cortex/duel", seed=4, dice_mode="manual")
    a.begin()
    b.begin(lambda req: None)
    for _ in range(8):
        if a.state.over:
            break
        act = a.plan().action
        a.resolve(act)
        b.resolve(act, lambda req: None)
    assert a.battle.events == b.battle.events


def test_session_refuses_impossible_provider_dice_and_changes_nothing():
    s = Session.new("cortex/duel", seed=2, dice_mode="manual")
    s.begin(lambda req: None)
    before = json.dumps(state_summary(s.state))
    n = len(s.battle.events)
    act = next(a for a in s.legal() if a.kind == "attack")
    with pytest.raises(DiceError):
        s.resolve(act, lambda req: [99] * len(req.sides))
    assert json.dumps(state_summary(s.state)) == before and len(s.battle.events) == n and not s.history


def test_dice_request_none_when_no_roll_is_needed():
    s = Session.new("cortex/duel", seed=2)
    s.begin()
    mv = next(a for a in s.legal() if a.kind == "move")
    assert next_dice_request(s.battle, lambda b: b.step(mv, check=False), []) is None


# ---------------------------------------------------------------------------------------
# the session: plans, undo, save, resume


def test_plan_has_a_reason_and_at_least_three_alternatives():
    s = Session.new("cortex/warehouse", seed=3)
    s.begin()
    p = s.plan()
    assert p.reason and p.action in s.legal()
    assert len(p.alternatives) >= 3
    assert all(alt.action != p.action and alt.action in s.legal() and alt.reason for alt in p.alternatives)
    assert s.plan() is p  # cached for this decision


def test_undo_restores_state_events_and_history(tmp_path):
    s = Session.new("cortex/warehouse", seed=5, save_path=tmp_path / "s.json")
    s.begin()
    for _ in range(3):
        s.resolve(s.plan().action, by="plan")
    # the dice as the numbers to come (an undo restores them from the undo step, its generator
    # wound back over the numbers drawn but not used: the same numbers, told otherwise)
    before = (json.dumps(state_summary(s.state)), list(s.battle.events), s.battle.dice.get_state(compact=True),
              len(s.history))
    act = s.plan().alternatives[0].action
    s.resolve(act, by="alternative")
    assert len(s.history) == 4
    undone = s.undo()
    assert undone["by"] == "alternative"
    after = (json.dumps(state_summary(s.state)), list(s.battle.events), s.battle.dice.get_state(compact=True),
             len(s.history))
    assert after == before
    # and the save file says the same
    d = read_save(tmp_path / "s.json")
    assert len(d["session"]["history"]) == 3
    assert d["events"] == s.battle.events


def test_save_is_atomic_and_resume_continues_exactly(tmp_path):
    """A session saved and resumed half-way plays on exactly like one that never stopped."""
    path = tmp_path / "s.json"
    a = Session.new("cortex/warehouse", seed=7)
    a.begin()
    b = Session.new("cortex/warehouse", seed=7, save_path=path)
    b.begin()
    for _ in range(6):
        a.resolve(a.plan().action)
        b.resolve(b.plan().action)
    assert not list(tmp_path.glob(".*tmp*"))  # no temporary files left behind (.NAME.tmp-PID-RANDOM)
    b = Session.resume(path)
    play_alike(a, b, 10)
    assert a.battle.events == b.battle.events
    assert state_summary(a.state) == state_summary(b.state)


def test_export_replays_to_the_same_state(tmp_path):
    s = Session.new("cortex/duel", seed=9, save_path=tmp_path / "s.json", dice_mode="manual")
    faces = iter(range(10_000))
    s.begin(lambda req: [1 + next(faces) % sd for sd in req.sides])
    for i in range(12):
        if s.state.over:
            break
        p = s.plan()
        s.resolve(p.action if i % 3 else p.alternatives[0].action,
                  (lambda req: [1 + next(faces) % sd for sd in req.sides]) if i % 2 else (lambda req: None))
    s.export(tmp_path / "r.yaml")
    b = run_replay(tmp_path / "r.yaml")
    assert b.events == s.battle.events
    assert state_summary(b.state) == state_summary(s.state)
    assert replay_from_save(tmp_path / "s.json")["steps"] == yaml.safe_load((tmp_path / "r.yaml").read_text())["steps"]


@pytest.mark.parametrize("content,words", [
    ("{not json", "not valid JSON"),
    ("", "file is empty"),
    ('{"hello": 1}', "not a Tactica state file"),
    ("[1, 2]", "not a Tactica state file"),
])
def test_damaged_or_foreign_save_is_a_clear_error_and_never_overwritten(tmp_path, content, words):
    p = tmp_path / "bad.json"
    p.write_text(content)
    with pytest.raises(SessionError, match=words):
        Session.resume(p)
    r = CliRunner().invoke(app, ["autopilot", "--resume", str(p)])
    assert r.exit_code == 2
    assert words in r.stderr and "Traceback" not in r.stderr
    assert p.read_text() == content
    # nor is a foreign file used as a new session's save file
    r = CliRunner().invoke(app, ["autopilot", "cortex/duel", "--save", str(p)])
    assert r.exit_code == 2 and "already exists" in r.stderr
    assert p.read_text() == content


def test_damaged_session_section_and_state(tmp_path):
    s = Session.new("cortex/duel", seed=1, save_path=tmp_path / "s.json")
    s.begin()
    s.resolve(s.plan().action)
    d = json.loads((tmp_path / "s.json").read_text())
    d["session"]["history"][0]["dice"] = "many"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(d))
    with pytest.raises(SessionError, match="history"):
        Session.resume(bad)
    d = json.loads((tmp_path / "s.json").read_text())
    d["combatants"]["mal"]["pos"] = "here"
    bad.write_text(json.dumps(d))
    with pytest.raises(Exception) as ei:
        Session.resume(bad)
    assert "damaged" in str(ei.value)
    text = (tmp_path / "s.json").read_text()
    (tmp_path / "s.json").write_text(text[: len(text) // 2])  # cut off, as a crash of another writer would
    with pytest.raises(SessionError, match="not valid JSON"):
        Session.resume(tmp_path / "s.json")


def test_roles_from_options():
    s = Session.new("cortex/warehouse", npc=["syndicate=aggressive"], pc=["crew=random"])
    assert s.roles["syndicate"].policy == "aggressive" and s.roles["crew"].role == "pc"
    assert s.roles["crew"].policy == "random"
    with pytest.raises(SessionError, match="no team"):
        Session.new("cortex/warehouse", npc=["pirates=tactical"])
    with pytest.raises(SessionError, match="unknown policy"):
        Session.new("cortex/warehouse", npc=["syndicate=genius"])


def test_a_star_names_every_team_and_a_team_named_beside_it_keeps_its_own(tmp_path):
    """`--npc '*=tactical'`: a fight that plays itself (the scenario's PC team too), as `behave *`
    names every team; a team named beside the `*` keeps its own setting."""
    s = Session.new("cortex/warehouse", npc=["*=tactical"])
    assert {t: (r.role, r.policy) for t, r in s.roles.items()} == {"crew": ("npc", "tactical"),
                                                                  "syndicate": ("npc", "tactical")}
    for npc in (["*=aggressive", "crew=cautious"], ["crew=cautious", "*=aggressive"]):
        s = Session.new("cortex/warehouse", npc=npc)
        assert s.roles["crew"].policy == "cautious" and s.roles["syndicate"].policy == "aggressive"
    s = Session.new("cortex/warehouse", pc=["*"])
    assert all(r.role == "pc" and r.policy is None for r in s.roles.values())
    with pytest.raises(SessionError, match=r"\(or \* for every team\)"):
        Session.new("cortex/warehouse", npc=["pirates=tactical"])
    save = tmp_path / "duel.json"
    r = CliRunner().invoke(app, ["autopilot", "cortex/duel", "--npc", "*=tactical", "--no-confirm", "--seed", "1",
                                 "--save", str(save)], input="")
    assert r.exit_code == 0, r.output
    assert "The fight is over" in r.output and json.loads(save.read_text())["over"] is True


# ---------------------------------------------------------------------------------------
# suggest


def test_suggest_function_and_command(tmp_path):
    s = Session.new("cortex/warehouse", seed=2, save_path=tmp_path / "s.json")
    s.begin()
    p = suggest(s.state, None, "tactical")
    assert p.actor == s.state.actor.id and len(p.alternatives) >= 3
    other = next(c.id for c in s.state.combatants if c.id != s.state.actor.id)
    assert suggest(s.state, other, "aggressive").hypothetical
    r = CliRunner().invoke(app, ["suggest", str(tmp_path / "s.json"), "--actor", s.state.actor.id, "--json"])
    assert r.exit_code == 0, r.stderr
    d = json.loads(r.stdout)
    assert set(d) >= {"actor", "action", "reason", "alternatives"}
    assert Action.from_dict({k: v for k, v in d["action"].items() if k != "at"}) in s.legal()
    assert all({"action", "reason"} <= set(a) for a in d["alternatives"]) and len(d["alternatives"]) >= 3
    r = CliRunner().invoke(app, ["suggest", str(tmp_path / "s.json")])
    assert r.exit_code == 0 and "why:" in r.stdout
    r = CliRunner().invoke(app, ["suggest", str(tmp_path / "s.json"), "--actor", "nobody"])
    assert r.exit_code == 2 and "no figure 'nobody'" in r.stderr
