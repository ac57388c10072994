"""`tactica evaluate`: a round robin of policies (evaluation/tournament.py; ARCHITECTURE.md,
evaluation/: "plays matches between team policies directly on the rules engine, in
parallel, and reports win rates with confidence intervals").

- the same numbers with one worker or two (each fight seeded from (seed, fight index));
- the JSON has a `pairs` list of a, b, scenario, n, a_win_rate, ci_low, ci_high, draws,
  one entry per scenario and one overall ("all") per pair, and the interval holds the rate;
- every pair plays both sides, half the episodes each;
- unknown policies and scenarios are one-line errors with exit status 2.
"""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from evaluation.tournament import load_scenarios, plan_fights, round_robin
from tactica.cli import app

PAIR_KEYS = {"a", "b", "scenario", "n", "a_win_rate", "ci_low", "ci_high", "draws"}


def run(*args: str):
    r = CliRunner().invoke(app, list(args))
    return r


def run_json(*args: str) -> dict:
    r = run(*args, "--json")
    assert r.exit_code == 0, r.stderr
    return json.loads(r.stdout)


ARGS = ("evaluate", "--policies", "random,aggressive,cautious", "--scenarios", "cortex/duel,cortex/warehouse",
        "--episodes", "4", "--seed", "3")


@pytest.fixture(scope="module")
def one_worker() -> dict:
    return run_json(*ARGS, "--workers", "1")


def test_same_results_with_one_and_two_workers(one_worker: dict) -> None:
    assert run_json(*ARGS, "--workers", "2") == one_worker


def test_json_pairs(one_worker: dict) -> None:
    d = one_worker
    assert d["policies"] == ["random", "aggressive", "cautious"]
    assert d["scenarios"] == ["cortex/duel", "cortex/warehouse"]
    pairs = d["pairs"]
    # 3 unordered pairs x (2 scenarios + overall)
    assert len(pairs) == 9
    assert {(p["a"], p["b"]) for p in pairs} == {("random", "aggressive"), ("random", "cautious"),
                                                ("aggressive", "cautious")}
    for p in pairs:
        assert PAIR_KEYS <= set(p)
        assert p["n"] == (8 if p["scenario"] == "all" else 4)
        assert p["a_wins"] + p["b_wins"] + p["draws"] == p["n"]
        assert p["a_win_rate"] == pytest.approx(p["a_wins"] / p["n"])
        assert 0.0 <= p["ci_low"] <= p["a_win_rate"] <= p["ci_high"] <= 1.0
        assert p["a_wins_first"] + p["a_wins_second"] == p["a_wins"]
    overall = [p for p in pairs if p["scenario"] == "all"]
    assert len(overall) == 3


def test_both_sides_are_played() -> None:
    fights = plan_fights(1, ["x", "y"], 5)
    assert [(f.swapped, f.k) for f in fights] == [(False, 0), (False, 1), (False, 2), (True, 0), (True, 1)]


def test_round_robin_counts_wins_by_side() -> None:
    scen = load_scenarios(["cortex/warehouse"])
    r = round_robin(scen, ["aggressive", "random"], 6, seed=0)
    p = r["pairs"][0]
    assert p["a"] == "aggressive" and p["n"] == 6
    assert p["a_wins"] >= 4  # aggressive beats random on either side
    assert p["a_wins_first"] > 0 and p["a_wins_second"] > 0


def test_table_output_and_generated_maps() -> None:
    r = run("evaluate", "--policies", "random,aggressive", "--ruleset", "cortex", "--generated", "2",
            "--episodes", "2", "--seed", "1")
    assert r.exit_code == 0, r.stderr
    assert "generated/cortex/1000000" in r.stdout and "generated/cortex/1000001" in r.stdout
    assert "aggressive" in r.stdout and "95%" in r.stdout


@pytest.mark.parametrize("args,needle", [
    (("--policies", "random,nobody"), "unknown policy 'nobody'"),
    (("--policies", "random"), "at least two"),
    (("--policies", "random,aggressive", "--scenarios", "cortex/nowhere"), "cortex/nowhere"),
    (("--policies", "random,aggressive", "--generated", "2"), "--ruleset"),
    (("--policies", "random,aggressive", "--ruleset", "nope", "--generated", "1"), "unknown ruleset"),
])
def test_bad_input_is_one_line_and_exit_2(args: tuple, needle: str) -> None:
    r = run("evaluate", *args, "--episodes", "2")
    assert r.exit_code == 2
    assert needle in r.stderr
    assert "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1
