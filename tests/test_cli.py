"""The `tactica` command line, as the README's tour describes it: `simulate` (table, --json,
--log, --policy), `scenarios --json`, `rulesets --json`, `replay` (narration, --json) and
`validate`.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from rules.scenario import bundled_dir, load_scenario
from tactica.cli import app

REPO = Path(__file__).resolve().parents[1]
PISTOL_HIT = REPO / "tests" / "replays" / "cortex_pistol_hit.yaml"
SUMMARY_KEYS = {"scenario", "ruleset", "episodes", "seed", "teams", "draws", "mean_rounds"}


def run(*args: str) -> str:
    r = CliRunner().invoke(app, list(args))
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
    assert r.exit_code == 0, f"exit {r.exit_code}: {r.stderr}"
    return r.stdout


def run_json(*args: str):
    out = run(*args)
    return json.loads(out)  # the whole of stdout is one JSON document


# ---------------------------------------------------------------------------------------
# simulate


@pytest.mark.parametrize("scenario,n,seed,policies", [
    ("cortex/duel", 12, 3, []),
    ("cortex/warehouse", 6, 0, ["--policy", "crew=random"]),
    ("cortex/ambush", 5, 9, ["-p", "crew=random", "-p", "bandits=random"]),
])
def test_simulate_json_summary(scenario: str, n: int, seed: int, policies: list[str]) -> None:
    s = run_json("simulate", scenario, "-n", str(n), "--seed", str(seed), "--json", *policies)
    assert SUMMARY_KEYS <= set(s), f"missing {SUMMARY_KEYS - set(s)}"
    spec, _ = load_scenario(scenario)
    assert s["scenario"] == spec.name and s["ruleset"] == "cortex"
    assert s["episodes"] == n and s["seed"] == seed
    assert set(s["teams"]) == {t.name for t in spec.teams}
    wins = 0
    for team, v in s["teams"].items():
        assert {"wins", "win_rate"} <= set(v)
        assert isinstance(v["wins"], int) and 0 <= v["wins"] <= n
        assert v["win_rate"] == pytest.approx(v["wins"] / n)
        if "ci_low" in v:
            assert 0 <= v["ci_low"] <= v["win_rate"] <= v["ci_high"] <= 1
        wins += v["wins"]
    assert isinstance(s["draws"], int)
    assert wins + s["draws"] == n
    assert 1 <= s["mean_rounds"] <= spec.round_limit


def test_simulate_defaults_to_the_warehouse() -> None:
    s = run_json("simulate", "-n", "2", "--json")
    assert s["scenario"] == "cortex/warehouse" and s["episodes"] == 2 and s["seed"] == 0


def test_simulate_policy_for_every_team_with_star() -> None:
    """`--policy '*=random'`: the --help text and the error message both offer *=POLICY."""
    s = run_json("simulate", "cortex/duel", "-n", "3", "--json", "--policy", "*=random")
    assert s["episodes"] == 3
    if "policies" in s:
        assert set(s["policies"].values()) == {"random"}


def test_simulate_policies_change_the_fights() -> None:
    a = run_json("simulate", "cortex/duel", "-n", "20", "--seed", "5", "--json")
    b = run_json("simulate", "cortex/duel", "-n", "20", "--seed", "5", "--json",
                 "-p", "crew=random", "-p", "outlaws=random")
    assert a != b


def test_simulate_table_output() -> None:
    out = run("simulate", "cortex/duel", "-n", "4", "--seed", "2")
    assert "crew" in out and "outlaws" in out and "draws:" in out and "mean rounds:" in out


def test_simulate_log_is_json_lines_with_fight_numbers(tmp_path: Path) -> None:
    log = tmp_path / "fights.jsonl"
    out = run("simulate", "cortex/duel", "-n", "2", "--log", str(log))
    assert str(log.name) in out
    rows = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    assert {r["fight"] for r in rows} == {0, 1}
    assert rows[0]["type"] == "battle_start" and rows[-1]["type"] == "battle_end"


# ---------------------------------------------------------------------------------------
# scenarios and rulesets


def test_scenarios_json() -> None:
    rows = run_json("scenarios", "--json")
    assert isinstance(rows, list)
    by_name = {r["name"]: r for r in rows}
    assert {"cortex/duel", "cortex/warehouse", "cortex/ambush"} <= set(by_name)
    for r in rows:
        assert {"name", "ruleset", "teams", "map"} <= set(r)
    w = by_name["cortex/warehouse"]
    assert w["ruleset"] == "cortex"
    for name, r in by_name.items():
        spec, _ = load_scenario(name)
        assert r["ruleset"] == spec.ruleset
        assert r["teams"] == {t.name: [c["id"] for c in t.combatants] for t in spec.teams}
        assert r["map"] == [len(spec.map.rows[0]), len(spec.map.rows)]   # [width, height]
    assert set(w["teams"]) == {"crew", "syndicate"}
    assert w["map"] == [20, 14]
    assert by_name["cortex/duel"]["map"] == [16, 12]


def test_scenarios_table() -> None:
    out = run("scenarios")
    assert "cortex/duel" in out and "cortex/ambush" in out


def test_scenarios_table_never_cuts_a_name_short(monkeypatch) -> None:
    """The name is what a GM types next: in an 80-column terminal every one is there whole (the
    longest, cybergeneration/rooftop_standoff, came out as 'cybergeneration/roofto...')."""
    from rules.scenario import bundled_scenarios

    monkeypatch.setenv("COLUMNS", "80")
    out = run("scenarios")
    for name in bundled_scenarios():
        assert f" {name} " in out, name


def test_rulesets_json() -> None:
    infos = run_json("rulesets", "--json")
    by_name = {i["name"]: i for i in infos}
    c = by_name["cortex"]
    assert {"name", "version", "actions"} <= set(c)
    assert isinstance(c["version"], int) and c["version"] >= 1
    assert {"end_turn", "move", "attack"} <= set(c["actions"])
    assert {"block", "dodge"} <= set(c["actions"]["defend"])


# ---------------------------------------------------------------------------------------
# replay and validate


def test_replay_json_has_events_and_final_state() -> None:
    d = run_json("replay", str(PISTOL_HIT), "--json")
    assert {"events", "final_state"} <= set(d)
    types = [e["type"] for e in d["events"]]
    assert types[0] == "battle_start" and "attack" in types and "damage" in types
    attack = next(e for e in d["events"] if e["type"] == "attack")
    assert attack["result"] == "hit" and attack["margin"] == 5
    # seed 000, Defense, Ranged Combat + RULES-NOTES damage: margin 5 -> 3 Stun + 2 Wound,
    # revolver d8 shows 3 -> 3 more Wound (the file's comments)
    target = d["final_state"]["combatants"]["target"]
    assert (target["stun"], target["wound"]) == (3, 5)
    assert d["final_state"]["combatants"]["shooter"]["ammo"] == {"revolver": 5}


def test_replay_narration() -> None:
    out = run("replay", str(PISTOL_HIT))
    assert "shooter attacks target with the revolver: hit by 5." in out
    assert "target takes 3 Stun and 5 Wound." in out


def test_replay_from_the_repository_root_as_the_readme_shows() -> None:
    r = subprocess.run([sys.executable, "-m", "tactica", "replay", "tests/replays/cortex_pistol_hit.yaml",
                        "--json"], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["final_state"]["combatants"]["target"]["wound"] == 5


@pytest.mark.parametrize("path", sorted(p.name for p in (bundled_dir() / "cortex").glob("*.yaml")))
def test_validate_bundled_scenario_files(path: str) -> None:
    out = run("validate", str(bundled_dir() / "cortex" / path))
    assert out.startswith("ok:") and "valid cortex scenario" in out


def test_validate_a_replay_file() -> None:
    out = run("validate", str(PISTOL_HIT))
    assert out.startswith("ok:") and "valid replay" in out


def test_help_lists_the_commands() -> None:
    out = run("--help")
    for cmd in ("simulate", "replay", "validate", "rulesets", "scenarios"):
        assert cmd in out


@pytest.mark.parametrize("n", [1, 6, 200])
def test_summary_interval_contains_the_win_rate(n: int) -> None:
    """The reported 95% interval holds the rate itself, also for 0 wins (lower bound exactly 0)."""
    from evaluation.simulate import FightResult, summarise

    spec, _ = load_scenario("cortex/duel")
    results = [FightResult(index=i, winner="crew", rounds=3, actions=9, reason="last team standing")
               for i in range(n)]
    s = summarise(spec, results, seed=0)
    crew, outlaws = s["teams"]["crew"], s["teams"]["outlaws"]
    assert (outlaws["wins"], outlaws["win_rate"], outlaws["ci_low"]) == (0, 0.0, 0.0)
    assert (crew["win_rate"], crew["ci_high"]) == (1.0, 1.0)
    assert 0.0 < outlaws["ci_high"] < 1.0 and 0.0 < crew["ci_low"] < 1.0


def test_command_help_reads_in_sentences() -> None:
    """A command's description is its docstring with the source's line breaks taken out: the help box wraps
    it to the terminal (`replay --help` broke 'with an `error`' / 'object' mid-sentence)."""
    for info in app.registered_commands:
        assert info.help, info.callback.__name__
        for para in info.help.split("\n\n"):
            assert "\n" not in para, (info.callback.__name__, para)
    res = CliRunner().invoke(app, ["replay", "--help"])
    assert "an `error` object: message, file, field, expected), the error is one line" in res.output
