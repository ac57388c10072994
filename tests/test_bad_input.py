"""Bad input never shows a traceback (README, "A tour of the commands"; ARCHITECTURE.md,
Conventions): it gets exit status 2 and ONE line on stderr that names the file, the field
and what was expected, e.g.

    error: enc.yaml: teams[0].combatants[1].at: position [3, 0] is inside wall (expected ...)

Each case drives the CLI (typer's CliRunner on `tactica.cli.app`; one case runs a real
subprocess) and checks the status, the single line, the file, the field and the
"expected" part.
"""

from __future__ import annotations

import copy
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from tactica.cli import app

REPO = Path(__file__).resolve().parents[1]

GOOD_SCENARIO = {
    "name": "test/bad-input",
    "ruleset": "cortex",
    "initiative": "fixed",
    "map": {"rows": [".......",
                     "...#...",
                     "......."]},
    "teams": [
        {"name": "a", "combatants": [{"id": "shooter", "template": "gunslinger", "at": [0, 1]}]},
        {"name": "b", "combatants": [{"id": "target", "template": "thug", "at": [6, 0]}]},
    ],
}

# seed 000, Defense, Ranged Combat (see tests/replays/cortex_pistol_hit.yaml): attack
# Agility d10 + Pistols d10, innate Agility d6, then the revolver's d8 damage die.
GOOD_REPLAY = {
    "scenario": {**copy.deepcopy(GOOD_SCENARIO),
                 "map": {"rows": ["...........", "...........", "..........."]},
                 "teams": [
                     {"name": "a", "combatants": [{"id": "shooter", "template": "gunslinger", "at": [0, 1]}]},
                     {"name": "b", "combatants": [{"id": "target", "template": "thug", "at": [6, 1]}]}]},
    "questions": "default",   # the target's innate defence choice takes its default (these cases are about input)
    "steps": [{"actor": "shooter", "action": {"type": "attack", "target": "target", "weapon": "revolver"},
               "dice": [5, 4, 4, 3]}],
}


@dataclass
class Outcome:
    code: int
    stdout: str
    stderr: str
    exception: BaseException | None


def invoke(*args: str) -> Outcome:
    r = CliRunner().invoke(app, list(args))
    return Outcome(r.exit_code, r.stdout, r.stderr, r.exception)


def assert_one_line_error(out: Outcome, *, file: str | None, field: str, expected: str,
                          also: str | None = None) -> str:
    """Exit 2, one stderr line naming the file, the field and what was expected; no traceback."""
    if out.exception is not None and not isinstance(out.exception, SystemExit):
        pytest.fail(f"crashed (a traceback for the user) with {type(out.exception).__name__}: "
                    f"{out.exception}", pytrace=False)
    assert "Traceback" not in out.stdout + out.stderr
    assert out.code == 2, f"exit {out.code}; stdout={out.stdout!r} stderr={out.stderr!r}"
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1, f"expected one line on stderr, got {len(lines)}: {out.stderr!r}"
    line = lines[0]
    assert line.startswith("error: "), line
    if file is not None:
        assert file in line, f"the file {file!r} is not named: {line}"
    assert field in line, f"the field {field!r} is not named: {line}"
    assert "(expected " in line and expected in line.split("(expected ", 1)[1], (
        f"does not say what was expected ({expected!r}): {line}")
    if also is not None:
        assert also in line, f"{also!r} not in: {line}"
    return line


def write_yaml(path: Path, doc) -> Path:
    path.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    return path


def scenario_with(tmp_path: Path, change) -> Path:
    doc = copy.deepcopy(GOOD_SCENARIO)
    change(doc)
    return write_yaml(tmp_path / "enc.yaml", doc)


def replay_with(tmp_path: Path, change) -> Path:
    doc = copy.deepcopy(GOOD_REPLAY)
    change(doc)
    return write_yaml(tmp_path / "fight.yaml", doc)


def _b(doc) -> dict:
    """The first (only) figure of team b."""
    return doc["teams"][1]["combatants"][0]


# ---------------------------------------------------------------------------------------
# the good files are good (so each bad case differs from a good one in one thing)


def test_the_good_scenario_and_replay_validate(tmp_path: Path) -> None:
    s = invoke("validate", str(write_yaml(tmp_path / "enc.yaml", GOOD_SCENARIO)))
    assert s.code == 0, s.stderr
    r = invoke("replay", str(write_yaml(tmp_path / "fight.yaml", GOOD_REPLAY)))
    assert r.code == 0, r.stderr


# ---------------------------------------------------------------------------------------
# scenario files


SCENARIO_CASES = {
    "unknown ruleset": (lambda d: d.update(ruleset="gurps"), "ruleset", "cortex", "gurps"),
    "unknown template": (lambda d: _b(d).update(template="dragon"),
                         "teams[1].combatants[0].template", "gunslinger", "dragon"),
    "unknown weapon": (lambda d: _b(d).update(weapons=["laser"]),
                       "teams[1].combatants[0].weapons[0]", "revolver", "laser"),
    "row of the wrong length": (lambda d: d["map"]["rows"].__setitem__(1, "..#.."),
                                "map.rows[1]", "7 characters", None),
    "figure in a wall": (lambda d: _b(d).update(at=[3, 1]),
                         "teams[1].combatants[0].at", "a cell a figure can stand on", "wall"),
    "two figures on one cell": (lambda d: _b(d).update(at=[0, 1]),
                                "teams[1].combatants[0].at", "one figure per cell", "shooter"),
    "figure off the map": (lambda d: _b(d).update(at=[9, 0]), "teams[1].combatants[0].at", "0 <= x < 7", None),
    "bad die step": (lambda d: _b(d).update(attributes={"agility": "d7"}),
                     "teams[1].combatants[0].attributes.agility", "d2, d4", "d7"),
    "missing teams": (lambda d: d.pop("teams"), "teams", "present", None),
    # found while writing these tests: values of the wrong type crash inside the ruleset
    "template that is not a name": (lambda d: _b(d).update(template=["thug"]),
                                    "teams[1].combatants[0].template", "", None),
    "weapon entry that is not a name": (lambda d: _b(d).update(weapons=[{"name": "club"}]),
                                        "teams[1].combatants[0].weapons[0]", "", None),
    "armour that is not a name": (lambda d: _b(d).update(armour=5), "teams[1].combatants[0].armour", "", None),
    "life points that are not a number": (lambda d: _b(d).update(life_points="lots"),
                                          "teams[1].combatants[0].life_points", "", None),
    "traits that are not a list": (lambda d: _b(d).update(traits=5), "teams[1].combatants[0].traits", "", None),
}


@pytest.mark.parametrize("case", list(SCENARIO_CASES))
@pytest.mark.parametrize("command", ["validate", "simulate"])
def test_bad_scenario(case: str, command: str, tmp_path: Path) -> None:
    change, field, expected, also = SCENARIO_CASES[case]
    path = scenario_with(tmp_path, change)
    args = [command, str(path)] + (["-n", "1"] if command == "simulate" else [])
    assert_one_line_error(invoke(*args), file=str(path), field=field, expected=expected, also=also)


def test_unknown_bundled_scenario_name() -> None:
    out = invoke("simulate", "cortex/nowhere", "-n", "1")
    assert_one_line_error(out, file="cortex/nowhere", field="scenario", expected="cortex/duel")


# ---------------------------------------------------------------------------------------
# files that cannot be read as a document


def test_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "nope.yaml"
    for cmd in ("validate", "simulate", "replay"):
        assert_one_line_error(invoke(cmd, str(path)), file=str(path), field="(file)",
                              expected="an existing file")


def test_a_folder_instead_of_a_file(tmp_path: Path) -> None:
    path = tmp_path / "enc.yaml"
    path.mkdir()
    for cmd in ("validate", "simulate", "replay"):
        assert_one_line_error(invoke(cmd, str(path)), file=str(path), field="(file)", expected="file")


def test_a_file_that_is_not_utf8(tmp_path: Path) -> None:
    # chmod 000 does not stop root from reading, so unreadable means undecodable here
    path = tmp_path / "enc.yaml"
    path.write_bytes(b"name: \xff\xfe\x00bad\n")
    for cmd in ("validate", "simulate", "replay"):
        assert_one_line_error(invoke(cmd, str(path)), file=str(path), field="(file)", expected="UTF-8")


@pytest.mark.parametrize("text", ["", "\n  \n"])
def test_an_empty_file(text: str, tmp_path: Path) -> None:
    path = tmp_path / "enc.yaml"
    path.write_text(text, encoding="utf-8")
    for cmd in ("validate", "simulate", "replay"):
        assert_one_line_error(invoke(cmd, str(path)), file=str(path), field="(file)", expected="mapping",
                              also="empty")


@pytest.mark.parametrize("suffix,text", [(".yaml", "- a\n- b\n"), (".json", "[1, 2]"), (".yaml", "just text\n")])
def test_a_document_that_is_not_a_mapping(suffix: str, text: str, tmp_path: Path) -> None:
    path = tmp_path / f"enc{suffix}"
    path.write_text(text, encoding="utf-8")
    for cmd in ("validate", "simulate", "replay"):
        assert_one_line_error(invoke(cmd, str(path)), file=str(path), field="(top level)", expected="mapping")


@pytest.mark.parametrize("suffix,text,line", [(".yaml", "name: x\nteams: [unclosed\nmap: {\n", None),
                                              (".yaml", "name: x\n  ruleset: : cortex\n", "line 2"),
                                              (".json", '{"name": "x",\n', "line")])
def test_invalid_syntax(suffix: str, text: str, line: str | None, tmp_path: Path) -> None:
    path = tmp_path / f"enc{suffix}"
    path.write_text(text, encoding="utf-8")
    for cmd in ("validate", "simulate", "replay"):
        out = invoke(cmd, str(path))
        assert_one_line_error(out, file=str(path), field="(file)", expected="mapping",
                              also=line or ("YAML" if suffix == ".yaml" else "JSON"))


# ---------------------------------------------------------------------------------------
# replay files


def test_a_forced_roll_its_die_cannot_show(tmp_path: Path) -> None:
    # the fourth die is the revolver's d8 damage die: 9 cannot show on it
    path = replay_with(tmp_path, lambda d: d["steps"][0].update(dice=[5, 4, 4, 9]))
    for cmd in ("replay", "validate"):
        assert_one_line_error(invoke(cmd, str(path)), file=str(path), field="steps[0].dice",
                              expected="1..8", also="d8")


def test_forced_rolls_left_over_or_running_out(tmp_path: Path) -> None:
    path = replay_with(tmp_path, lambda d: d["steps"][0].update(dice=[5, 4, 4, 3, 2]))
    assert_one_line_error(invoke("replay", str(path)), file=str(path), field="steps[0].dice",
                          expected="exactly the dice")
    path = replay_with(tmp_path, lambda d: d["steps"][0].update(dice=[5, 4]))
    assert_one_line_error(invoke("replay", str(path)), file=str(path), field="steps[0].dice",
                          expected="one more forced result")


@pytest.mark.parametrize("action,field", [
    ({"type": "attack", "target": "target", "weapon": "rifle"}, "steps[0].action"),    # not carried
    ({"type": "attack", "target": "nobody", "weapon": "revolver"}, "steps[0].action"),
    ({"type": "move", "cell": [3, 9]}, "steps[0].action"),                             # off the map
])
def test_an_illegal_scripted_action(action: dict, field: str, tmp_path: Path) -> None:
    path = replay_with(tmp_path, lambda d: d["steps"][0].update(action=action, dice=[]))
    assert_one_line_error(invoke("replay", str(path)), file=str(path), field=field, expected="")


@pytest.mark.parametrize("cell", [[12, 0], [-1, 1], [11, 1]])
def test_a_move_to_a_cell_off_the_map_is_refused(cell: list[int], tmp_path: Path) -> None:
    """[12, 0] on an 11-wide map must not wrap round to [1, 1] (which the shooter can reach)."""
    path = replay_with(tmp_path, lambda d: d["steps"][0].update(action={"type": "move", "cell": cell},
                                                                dice=[]))
    assert_one_line_error(invoke("replay", str(path)), file=str(path), field="steps[0].action",
                          expected="")


def test_a_step_by_the_wrong_figure(tmp_path: Path) -> None:
    path = replay_with(tmp_path, lambda d: d["steps"][0].update(actor="target"))
    assert_one_line_error(invoke("replay", str(path)), file=str(path), field="steps[0].actor",
                          expected="shooter")


def test_an_unknown_action_type(tmp_path: Path) -> None:
    path = replay_with(tmp_path, lambda d: d["steps"][0].update(action={"type": "fly"}))
    assert_one_line_error(invoke("replay", str(path)), file=str(path), field="steps[0].action.type",
                          expected="attack")


def test_an_inline_scenario_error_names_the_replay_file_and_the_scenario_field(tmp_path: Path) -> None:
    path = replay_with(tmp_path, lambda d: d["scenario"].pop("teams"))
    assert_one_line_error(invoke("replay", str(path)), file=str(path), field="scenario.teams",
                          expected="present")
    path = replay_with(tmp_path, lambda d: d["scenario"]["teams"][1]["combatants"][0].update(template="dragon"))
    assert_one_line_error(invoke("replay", str(path)), file=str(path),
                          field="scenario.teams[1].combatants[0].template", expected="gunslinger")


# ---------------------------------------------------------------------------------------
# --policy


@pytest.mark.parametrize("policy,expected,also", [
    ("crew=wizard", "random", "wizard"),                        # unknown policy
    ("pirates=random", "crew, syndicate", "pirates"),           # unknown team
    ("crewrandom", "TEAM=POLICY", "crewrandom"),                # missing '='
    ("=random", "TEAM=POLICY", None),
    ("crew=", "TEAM=POLICY", None),
])
def test_bad_policy(policy: str, expected: str, also: str | None) -> None:
    out = invoke("simulate", "cortex/warehouse", "-n", "1", "--policy", policy)
    assert_one_line_error(out, file=None, field="--policy", expected=expected, also=also)


# ---------------------------------------------------------------------------------------
# the real thing: a subprocess, the way a GM runs it


def test_bad_input_in_a_real_process(tmp_path: Path) -> None:
    path = scenario_with(tmp_path, lambda d: _b(d).update(at=[3, 1]))
    env = {**os.environ, "COLUMNS": "60"}  # a narrow terminal must not wrap the line
    r = subprocess.run([sys.executable, "-m", "tactica", "validate", str(path)], cwd=REPO, env=env,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2
    assert "Traceback" not in r.stdout + r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert lines[0] == (f"error: {path}: teams[1].combatants[0].at: position [3, 1] is inside wall "
                        "(expected a cell a figure can stand on)")
    assert r.stdout == ""


def test_a_missing_file_in_a_real_process(tmp_path: Path) -> None:
    path = tmp_path / "missing.yaml"
    r = subprocess.run([sys.executable, "-m", "tactica", "replay", str(path)], cwd=REPO,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2
    assert r.stderr.strip() == f"error: {path}: (file): file not found (expected an existing file)"
