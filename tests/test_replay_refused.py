"""Replays that can state any rules case (issue #32): a step may expect refusal, and
`tactica replay --json` still shows the events and state so far after a refusal or an error.

Issue #32, "Replays that can state any rules case":
- "A step may expect refusal: `expect: refused` (optionally with the reason's words); the
  replay records the refusal as an event and goes on, so one file can show a refusal and
  what follows."
- "`--json` output after a refusal or an error still gives the events so far."
- "Every event carries its round and step index."
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from rules.errors import DiceError, IllegalActionError, ScenarioError
from rules.events import narrate
from rules.replay import play_replay, run_replay
from rules.schema import problems
from tactica.cli import app

REPO = Path(__file__).resolve().parents[1]
REFUSAL = REPO / "tests" / "replays" / "refusal_then_shot.yaml"
SHOT = {"type": "attack", "target": "target", "weapon": "revolver"}
SHOT_DICE = [5, 4, 4, 3]   # hit by 5: 3 Stun + 2 Wound, revolver d8 3 Wound (cortex_pistol_hit.yaml)


def base() -> dict:
    doc = yaml.safe_load(REFUSAL.read_text(encoding="utf-8"))
    doc.pop("description")
    doc["steps"] = []
    doc["questions"] = "default"    # the target's innate defence choice takes its default (roll)
    return doc


def with_steps(*steps: dict) -> dict:
    doc = base()
    doc["steps"] = [copy.deepcopy(s) for s in steps]
    return doc


def write(tmp_path: Path, doc: dict, name: str = "case.yaml") -> Path:
    p = tmp_path / name
    p.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    return p


def refused(b) -> list[dict]:
    return [e for e in b.events if e["type"] == "refused"]


def wounds(b, fid: str) -> tuple[int, int]:
    c = b.state.by_id[fid]
    return c.res["stun"], c.res["wound"]


# ---------------------------------------------------------------------------------------
# expect: refused


def test_a_refusal_then_what_follows_in_one_file() -> None:
    """The shipped example: a refused stand, a shot, the target's answer to how it meets it
    (a step of its own), a turn's end, a shot out of turn refused, and the target's turn:
    both refusals are events and the hit's damage is real."""
    b = run_replay(REFUSAL)
    r = refused(b)
    assert [(e["actor"], e["action"]) for e in r] == [("shooter", "stand"), ("shooter", SHOT)]
    assert "no stand action" in r[0]["reason"]
    assert r[1]["reason"] == "it is target's turn, not shooter's"
    assert [(e["round"], e["step"]) for e in r] == [(1, 1), (1, 5)]
    assert wounds(b, "target") == (3, 5)           # the shot after the first refusal landed
    assert wounds(b, "shooter") == (0, 0)          # the refused shot changed nothing
    assert b.state.round == 2 and b.state.actor.id == "shooter"
    assert narrate(r[0]) == "shooter tries stand: refused (shooter can make no stand action now)."
    assert not problems("events", r[0]) and not problems("events", r[1])


def test_a_refused_step_changes_nothing() -> None:
    plain = run_replay(with_steps({"actor": "shooter", "action": SHOT, "dice": SHOT_DICE}))
    with_refusal = run_replay(with_steps(
        {"actor": "shooter", "action": {"type": "attack", "target": "target", "weapon": "rifle"},
         "expect": "refused", "reason": "no weapon 'rifle'"},
        {"actor": "shooter", "action": SHOT, "dice": SHOT_DICE}))
    def unstepped(evs):   # a refusal is a step of its own, so the later events' step numbers move
        return [{k: v for k, v in e.items() if k != "step"} for e in evs if e["type"] != "refused"]
    assert unstepped(with_refusal.events) == unstepped(plain.events)
    assert wounds(with_refusal, "target") == wounds(plain, "target") == (3, 5)
    assert with_refusal.state.economy == plain.state.economy


def test_a_step_that_expects_refusal_but_is_legal_is_an_error_naming_file_and_step(tmp_path: Path) -> None:
    path = write(tmp_path, with_steps({"actor": "shooter", "action": "end_turn", "expect": "refused"}))
    r = play_replay(path)
    assert isinstance(r.error, IllegalActionError)
    assert r.error.source == str(path) and r.error.field == "steps[0].expect"
    assert "expected to be refused" in r.error.detail and "legal" in r.error.detail
    assert r.battle.state.actor.id == "shooter"        # the legal step was not kept
    assert [e["type"] for e in r.events][-1] == "turn_start"
    # a legal attack rolls dice: still an error, and nothing of it is kept
    r = play_replay(write(tmp_path, with_steps({"actor": "shooter", "action": SHOT, "expect": "refused"})))
    assert r.error.field == "steps[0].expect" and wounds(r.battle, "target") == (0, 0)
    assert not any(e["type"] == "roll" and e["purpose"] != "initiative" for e in r.events)


def test_the_reason_words_must_be_in_the_refusal_any_case(tmp_path: Path) -> None:
    ok = run_replay(with_steps({"actor": "shooter", "action": "stand", "expect": "refused",
                                "reason": "NO STAND"}))
    assert len(refused(ok)) == 1
    path = write(tmp_path, with_steps({"actor": "shooter", "action": "stand", "expect": "refused",
                                       "reason": "prone"}))
    with pytest.raises(IllegalActionError) as e:
        run_replay(path)
    assert e.value.source == str(path) and e.value.field == "steps[0].reason"
    assert "'prone'" in e.value.detail and "no stand action" in e.value.detail


def test_dice_on_a_refused_step_are_an_error() -> None:
    """Decision (rules/replay.py, README): a refused step rolls nothing, so dice given for it
    are an error rather than silently dropped or saved for the next step."""
    with pytest.raises(DiceError) as e:
        run_replay(with_steps({"actor": "shooter", "action": "stand", "expect": "refused", "dice": [3]}))
    assert e.value.field == "steps[0].dice" and "no dice" in e.value.expected
    b = run_replay(with_steps({"actor": "shooter", "action": "stand", "expect": "refused", "dice": []}))
    assert len(refused(b)) == 1


@pytest.mark.parametrize("step,field,expected", [
    ({"actor": "shooter", "action": "stand", "expect": "maybe"}, "steps[0].expect", "refused"),
    ({"actor": "shooter", "action": "stand", "reason": "prone"}, "steps[0].reason", "expect: refused"),
    ({"actor": "shooter", "action": "stand", "expect": "refused", "reason": 3}, "steps[0].reason", "words"),
    ({"actor": "shooter", "action": "stand", "expect": "refused", "why": "x"}, "steps[0]", "expect, reason"),
])
def test_bad_expect_fields(step: dict, field: str, expected: str) -> None:
    with pytest.raises(ScenarioError) as e:
        run_replay(with_steps(step))
    assert e.value.field == field and expected in e.value.expected


def test_an_unknown_figure_is_an_error_even_when_refusal_is_expected() -> None:
    with pytest.raises(IllegalActionError) as e:
        run_replay(with_steps({"actor": "nobody", "action": "stand", "expect": "refused"}))
    assert e.value.field == "steps[0].actor" and "no figure 'nobody'" in e.value.detail


def test_a_malformed_action_is_an_error_not_a_refusal() -> None:
    with pytest.raises(IllegalActionError) as e:
        run_replay(with_steps({"actor": "shooter", "action": {"type": "fly"}, "expect": "refused"}))
    assert e.value.field == "steps[0].action.type"


def test_the_events_of_steps_i_carry_step_i_plus_1_refusals_included() -> None:
    b = run_replay(REFUSAL)
    assert all("round" in e and "step" in e for e in b.events)
    by_step: dict[int, list[str]] = {}
    for e in b.events:
        by_step.setdefault(e["step"], []).append(e["type"])
    assert by_step[1] == ["refused"]
    assert by_step[2] == ["question"]                    # the target's innate defence choice
    assert "attack" in by_step[3] and "damage" in by_step[3]
    assert by_step[4][0] == "turn_end"
    assert by_step[5] == ["refused"]
    assert by_step[6][0] == "turn_end" and "round_start" in by_step[6]
    assert all(e["round"] == 2 for e in b.events if e["step"] == 6 and e["type"] != "turn_end")


# ---------------------------------------------------------------------------------------
# tactica replay (--json) after a refusal or an error


def invoke(*args: str):
    return CliRunner().invoke(app, list(args))


def test_json_after_an_expected_refusal_shows_it_and_exits_0() -> None:
    r = invoke("replay", str(REFUSAL), "--json")
    assert r.exit_code == 0, r.stderr
    d = json.loads(r.stdout)
    assert "error" not in d
    assert [e["type"] for e in d["events"]].count("refused") == 2
    assert d["final_state"]["combatants"]["target"]["wound"] == 5
    assert problems("final_state", d["final_state"]) == []


def test_json_after_an_error_has_the_events_and_state_so_far_and_the_error(tmp_path: Path) -> None:
    path = write(tmp_path, with_steps(
        {"actor": "shooter", "action": SHOT, "dice": SHOT_DICE},
        {"actor": "shooter", "action": {"type": "move", "cell": [10, 2]}}))
    r = invoke("replay", str(path), "--json")
    assert r.exit_code == 2
    assert "Traceback" not in r.stdout + r.stderr
    d = json.loads(r.stdout)
    types = [e["type"] for e in d["events"]]
    assert "damage" in types and types[-1] == "damage"    # the first step's events, nothing after
    assert d["final_state"]["combatants"]["target"]["stun"] == 3
    assert d["final_state"]["actor"] == "shooter"
    err = d["error"]
    assert err["file"] == str(path) and err["field"] == "steps[1].action"
    assert "[10, 2]" in err["message"] and "[5, 1]" in err["expected"] and "@" not in err["line"]
    assert err["line"] in r.stderr
    assert problems("final_state", d["final_state"]) == []
    assert problems("replay", {**d, "events": []}) == []
    # the one-line error on stderr is still there for people
    assert r.stderr.strip().splitlines() == [f"error: {err['line']}"]


def test_json_after_a_dice_error_keeps_the_steps_before_it(tmp_path: Path) -> None:
    path = write(tmp_path, with_steps(
        {"actor": "shooter", "action": "stand", "expect": "refused"},
        {"actor": "shooter", "action": SHOT, "dice": [5, 4]}))
    d = json.loads(invoke("replay", str(path), "--json").stdout)
    assert [e["type"] for e in d["events"]].count("refused") == 1
    assert not [e for e in d["events"] if e["type"] in ("attack", "damage")]   # the half step is gone
    assert d["final_state"]["combatants"]["target"]["stun"] == 0
    assert d["error"]["field"] == "steps[1].dice" and d["error"]["expected"] == "one more forced result"


def test_json_when_the_fight_cannot_be_set_up(tmp_path: Path) -> None:
    doc = with_steps()
    doc["scenario"]["teams"][1]["combatants"][0]["template"] = "dragon"
    path = write(tmp_path, doc)
    r = invoke("replay", str(path), "--json")
    assert r.exit_code == 2
    d = json.loads(r.stdout)
    assert d["events"] == [] and d["final_state"] is None
    assert d["error"]["file"] == str(path) and d["error"]["field"].startswith("scenario.teams[1]")
    assert problems("replay", d) == []


def test_narration_after_an_error_shows_the_events_so_far_then_the_error(tmp_path: Path) -> None:
    path = write(tmp_path, with_steps(
        {"actor": "shooter", "action": SHOT, "dice": SHOT_DICE},
        {"actor": "target", "action": "end_turn"}))
    r = invoke("replay", str(path))
    assert r.exit_code == 2
    assert "target takes 3 Stun and 5 Wound." in r.stdout
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {path}: steps[1].actor: ")
    assert "(expected shooter)" in lines[0]
