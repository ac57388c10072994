"""Every error path of `rules.replay.run_replay` names the replay file the user gave and the
step, and lists the legal actions in the user's own terms (issue #32: "Error messages name
the replay file the user gave and the step, and list the legal actions in the user's own
terms, not internal cell numbers"): cells as [x, y], targets by id, weapons and options by
name, in the form a replay step is written.
"""

from __future__ import annotations

import copy
import re
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from rules.actions import Action
from rules.errors import DiceError, IllegalActionError, TacticaError
from rules.replay import legal_in_words, run_replay
from tactica.cli import app

REPO = Path(__file__).resolve().parents[1]
KNOCKOUT = REPO / "tests" / "replays" / "cortex" / "knockout_ends_fight.yaml"
SHOT = {"type": "attack", "target": "target", "weapon": "revolver"}
SHOT_DICE = [5, 4, 4, 3]
SCENARIO = {
    "name": "test/open", "ruleset": "cortex", "initiative": "fixed",
    "map": {"rows": ["...........", "...........", "..........."]},
    "teams": [{"name": "a", "combatants": [{"id": "shooter", "template": "gunslinger", "at": [0, 1]}]},
              {"name": "b", "combatants": [{"id": "target", "template": "thug", "at": [6, 1]}]}],
}
INTERNAL_CELL = re.compile(r"@\d+|cell: \d+")


@pytest.fixture
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Work in tmp_path, so the replay file is given as a bare relative name."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


def case(*steps: dict, **top) -> Path:
    """A replay file `case.yaml` in the current folder (its name as the user gives it)."""
    # the figures' choices take their defaults: these cases are about the replay's errors
    doc = {"scenario": copy.deepcopy(SCENARIO), "questions": "default", **top,
           "steps": [copy.deepcopy(s) for s in steps]}
    p = Path("case.yaml")
    p.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    return p


def error_of(path: Path, kind: type = TacticaError) -> TacticaError:
    with pytest.raises(kind) as e:
        run_replay(path)
    err = e.value
    assert err.source == "case.yaml", err.line()       # the file as the user gave it
    assert not INTERNAL_CELL.search(err.line()), err.line()
    # and the command line says the same in one line
    r = CliRunner().invoke(app, ["replay", str(path)])
    assert r.exit_code == 2 and r.stderr.strip().splitlines() == [f"error: {err.line()}"]
    return err


def test_a_figure_that_does_not_exist(in_tmp: Path) -> None:
    e = error_of(case({"actor": "shootr", "action": SHOT, "dice": SHOT_DICE}), IllegalActionError)
    assert e.field == "steps[0].actor" and "no figure 'shootr'" in e.detail
    assert e.expected.startswith("shooter, whose turn it is") and "target" in e.expected


def test_a_figure_out_of_turn(in_tmp: Path) -> None:
    e = error_of(case({"actor": "shooter", "action": SHOT, "dice": SHOT_DICE},
                      {"actor": "shooter", "action": "end_turn"},
                      {"actor": "shooter", "action": "end_turn"}), IllegalActionError)
    assert e.field == "steps[2].actor" and e.expected == "target"
    assert e.detail == "it is target's turn, not shooter's"


@pytest.mark.parametrize("action,field", [
    ({"type": "fly"}, "steps[0].action.type"),
    ({"type": "move", "cell": [11, 1]}, "steps[0].action.cell"),
    ({"type": "move", "cell": "north"}, "steps[0].action.cell"),
    ({"type": "attack", "target": "target", "gun": "revolver"}, "steps[0].action"),
    (["attack"], "steps[0].action"),
])
def test_a_malformed_action(in_tmp: Path, action, field: str) -> None:
    e = error_of(case({"actor": "shooter", "action": action}), IllegalActionError)
    assert e.field == field and e.expected


def test_dice_left_over(in_tmp: Path) -> None:
    e = error_of(case({"actor": "shooter", "action": SHOT, "dice": SHOT_DICE + [2, 6]}), DiceError)
    assert e.field == "steps[0].dice" and e.expected == "exactly the dice this step rolls"
    assert "[2, 6]" in e.detail and "rolled 4 dice: d10, d10, d6, d8" in e.detail


def test_dice_missing(in_tmp: Path) -> None:
    e = error_of(case({"actor": "shooter", "action": SHOT, "dice": [5, 4, 4]}), DiceError)
    assert e.field == "steps[0].dice" and e.expected == "one more forced result"
    assert "d8" in e.detail and "roll 4 of the step" in e.detail


def test_a_face_the_die_cannot_show(in_tmp: Path) -> None:
    e = error_of(case({"actor": "shooter", "action": SHOT, "dice": [5, 4, 4, 9]}), DiceError)
    assert e.field == "steps[0].dice" and e.expected == "1..8"


def test_start_dice_left_over(in_tmp: Path) -> None:
    e = error_of(case(start_dice=[3]), DiceError)
    assert e.field == "start_dice" and "[3]" in e.detail


@pytest.mark.parametrize("action,why,first", [
    ({"type": "attack", "target": "target", "weapon": "rifle"},
     "shooter has no weapon 'rifle' (weapons: revolver, unarmed)",
     "{type: attack, target: target, weapon: revolver, option: (no option) | called:arm"),
    ({"type": "attack", "target": "nobody", "weapon": "revolver"}, "there is no figure 'nobody'",
     "{type: attack, target: target, weapon: revolver"),
    ({"type": "attack", "target": "target", "weapon": "revolver", "option": "called:tail"},
     "option 'called:tail' is not open", "{type: attack, target: target, weapon: revolver"),
    ({"type": "move", "cell": [10, 2]}, "no move to [10, 2] is legal for shooter now",
     "{type: move, cell: [8, 0] | [8, 1] | [8, 2] |"),
    ({"type": "reload", "weapon": "revolver"}, "shooter can make no reload action now", None),
    ({"type": "defend", "option": "parry"}, "option 'parry' is not open (open: all_out_block, all_out_dodge, "
     "block, dodge)", "{type: defend, option: block | all_out_block | dodge | all_out_dodge}"),
])
def test_an_illegal_action_lists_the_legal_ones_in_the_authors_terms(in_tmp: Path, action: dict, why: str,
                                                                      first: str | None) -> None:
    e = error_of(case({"actor": "shooter", "action": action}), IllegalActionError)
    assert e.field == "steps[0].action"
    assert why in e.detail
    assert e.expected.startswith("one of: ")
    if first is not None:
        assert e.expected[len("one of: "):].startswith(first), e.expected
    for bit in ("end_turn", "drop_prone", "{type: move, cell: [", "weapon: revolver"):
        assert bit in e.expected


def test_a_step_after_the_fight_ended(in_tmp: Path) -> None:
    doc = yaml.safe_load(KNOCKOUT.read_text(encoding="utf-8"))
    doc.pop("description")
    doc["steps"].append({"actor": "mal", "action": "end_turn"})
    Path("case.yaml").write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    e = error_of(Path("case.yaml"), IllegalActionError)
    assert e.field == "steps[1]" and "already over" in e.detail and "crew won" in e.detail
    assert e.expected == "no steps from steps[1] on"


def test_legal_actions_in_words_groups_cells_and_options() -> None:
    b = run_replay({"scenario": copy.deepcopy(SCENARIO), "steps": []})
    s = b.state
    legal = b.legal_actions()
    text = legal_in_words(s, legal)
    assert text.count("{type: move,") == 1 and "(25 cells)" in text
    assert "{type: defend, option: block | all_out_block | dodge | all_out_dodge}" in text
    assert not INTERNAL_CELL.search(text)
    # the cells nearest the wanted one come first
    wanted = Action("move", cell=s.grid.index(10, 0))
    assert legal_in_words(s, legal, wanted).startswith("{type: move, cell: [8, 0] | [8, 1] |")
