"""Golden event logs: a rules change shows up as a readable diff of whole fights.

For every bundled scenario, `tests/golden/<ruleset>_<name>.jsonl` holds the event log that

    tactica simulate <scenario> -n 3 --seed 11 --policy "*=aggressive" --log FILE

writes (aggressive against aggressive, every event as canonical JSON via
`rules.events.dumps`, with its fight number). The test replays the same fights in-process
and compares line by line; on a mismatch it shows the first differing lines.

When a change to the rules is intended, regenerate the files and review the diff in git:

    TACTICA_REGEN_GOLDEN=1 python -m pytest tests/test_golden.py

(then bump the ruleset's version if the rules changed, per ARCHITECTURE.md).
"""

from __future__ import annotations

import difflib
import io
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from evaluation.simulate import check_policies, simulate
from rules.scenario import bundled_scenarios, load_scenario
from tactica.cli import app

GOLDEN_DIR = Path(__file__).resolve().parent / "golden"
SEED = 11
FIGHTS = 3
REGEN = os.environ.get("TACTICA_REGEN_GOLDEN") == "1"
SCENARIOS = bundled_scenarios()
SHOW = 12  # differing lines shown on a mismatch


def golden_path(scenario: str) -> Path:
    return GOLDEN_DIR / (scenario.replace("/", "_") + ".jsonl")


def generate(scenario: str) -> str:
    """The log `tactica simulate SCENARIO -n 3 --seed 11 --policy "*=aggressive" --log FILE` writes
    (aggressive named: the golden logs were recorded with it before tactical became the default)."""
    spec, src = load_scenario(scenario)
    buf = io.StringIO()
    simulate(spec, check_policies(spec, {"*": "aggressive"}), FIGHTS, SEED, src, log=buf)
    return buf.getvalue()


def readable_diff(expected: str, actual: str, name: str) -> str:
    exp, act = expected.splitlines(), actual.splitlines()
    k = next((i for i, (x, y) in enumerate(zip(exp, act)) if x != y), min(len(exp), len(act)))
    diff = list(difflib.unified_diff(exp, act, f"{name} (golden)", f"{name} (now)", n=2, lineterm=""))
    shown = "\n".join(diff[:3 + 2 * SHOW])
    more = f"\n... {len(diff) - 3 - 2 * SHOW} more diff lines" if len(diff) > 3 + 2 * SHOW else ""
    return (f"{name}: the event log changed from line {k + 1} "
            f"({len(exp)} lines golden, {len(act)} now).\n{shown}{more}\n"
            "If the change is intended: TACTICA_REGEN_GOLDEN=1 python -m pytest tests/test_golden.py")


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_event_log_matches_golden(scenario: str) -> None:
    path = golden_path(scenario)
    actual = generate(scenario)
    if REGEN:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(actual, encoding="utf-8", newline="\n")
        pytest.skip(f"regenerated {path.name}")
    assert path.exists(), (f"no golden log {path}; create it with "
                           "TACTICA_REGEN_GOLDEN=1 python -m pytest tests/test_golden.py")
    expected = path.read_text(encoding="utf-8")
    if actual != expected:
        pytest.fail(readable_diff(expected, actual, path.name), pytrace=False)


def test_golden_logs_hold_whole_fights() -> None:
    for scenario in SCENARIOS:
        path = golden_path(scenario)
        if not path.exists():
            continue  # reported by the test above
        lines = path.read_text(encoding="utf-8").splitlines()
        ends = [ln for ln in lines if '"type":"battle_end"' in ln]
        assert len(ends) == FIGHTS, f"{path.name}: {len(ends)} battle_end lines"
        assert lines[0].startswith('{"combatants":') and '"fight":0' in lines[0]


def test_the_cli_writes_the_golden_log(tmp_path: Path) -> None:
    """The documented command writes exactly what the golden file holds."""
    scenario = "cortex/duel"
    log = tmp_path / "duel.jsonl"
    r = CliRunner().invoke(app, ["simulate", scenario, "-n", str(FIGHTS), "--seed", str(SEED), "--policy", "*=aggressive", "--log", str(log)])
    assert r.exit_code == 0, r.output
    assert log.read_text(encoding="utf-8") == generate(scenario)
    if golden_path(scenario).exists() and not REGEN:
        assert log.read_text(encoding="utf-8") == golden_path(scenario).read_text(encoding="utf-8")


def test_readable_diff_points_at_the_first_difference() -> None:
    msg = readable_diff("a\nb\nc\n", "a\nB\nc\n", "x.jsonl")
    assert "from line 2" in msg and "-b" in msg and "+B" in msg
