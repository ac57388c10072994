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


def test_elo_recovers_known_strengths_and_orders_policies() -> None:
    """Fights drawn from known Elo gaps (300 and 200 points): the fitted ratings keep the
    gaps within their bootstrap intervals, and the same records give the same intervals."""
    import numpy as np

    from evaluation.elo import elo_ratings, expected_score

    true = {"weak": 1250.0, "mid": 1550.0, "strong": 1750.0}
    rng = np.random.default_rng(7)
    games = []
    for a, b in [("weak", "mid"), ("weak", "strong"), ("mid", "strong")]:
        p = expected_score(true[a], true[b])
        games += [(a, b, float(rng.random() < p)) for _ in range(500)]
    elo = elo_ratings(list(true), games, seed=3)
    assert [e["policy"] for e in elo] == ["strong", "mid", "weak"]
    r = {e["policy"]: e for e in elo}
    assert sum(e["rating"] for e in elo) / 3 == pytest.approx(1500.0, abs=0.2)
    for name, e in r.items():
        assert e["ci_low"] < e["rating"] < e["ci_high"]
        assert e["games"] == 1000
    centre = sum(true.values()) / 3
    for name in true:  # the true ratings (centred the same way) lie in the intervals
        assert r[name]["ci_low"] - 5 <= true[name] - centre + 1500 <= r[name]["ci_high"] + 5
    assert elo_ratings(list(true), games, seed=3) == elo


def test_elo_is_finite_for_a_policy_that_wins_every_fight() -> None:
    from evaluation.elo import elo_ratings

    games = [("a", "b", 1.0)] * 100 + [("b", "c", 0.5)] * 100
    elo = {e["policy"]: e["rating"] for e in elo_ratings(["a", "b", "c"], games, n_boot=50)}
    assert elo["a"] - elo["b"] > 400 and abs(elo["b"] - elo["c"]) < 1.0


def test_json_has_elo_for_every_policy(one_worker: dict) -> None:
    elo = one_worker["elo"]
    assert {e["policy"] for e in elo} == {"random", "aggressive", "cautious"}
    assert [e["rating"] for e in elo] == sorted((e["rating"] for e in elo), reverse=True)
    assert all(e["games"] == 16 for e in elo)


def test_report_folder_has_markdown_heatmap_and_json(tmp_path) -> None:
    out = tmp_path / "rep"
    r = run(*ARGS, "--report", str(out))
    assert r.exit_code == 0, r.stderr
    md = (out / "report.md").read_text()
    assert "## Elo ratings" in md and "heatmap.png" in md and "random vs aggressive" in md
    assert "--policies random,aggressive,cautious" in md  # the command that made it
    png = (out / "heatmap.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 5000
    d = json.loads((out / "results.json").read_text())
    assert d["policies"] == ["random", "aggressive", "cautious"] and "elo" in d


def test_report_into_a_file_is_a_clear_error(tmp_path) -> None:
    f = tmp_path / "taken"
    f.write_text("x")
    r = run(*ARGS, "--report", str(f))
    assert r.exit_code == 2 and "--report" in r.stderr and "Traceback" not in r.stderr


def test_missing_npz_policy_is_a_clear_error(tmp_path) -> None:
    r = run("evaluate", "--policies", f"random,{tmp_path / 'none.npz'}", "--episodes", "2")
    assert r.exit_code == 2 and "none.npz" in r.stderr and "export-policy" in r.stderr


def test_a_long_evaluation_in_a_log_says_how_far_it_is(monkeypatch) -> None:
    """Where stderr is a file (an evaluation run in the background), progress comes as plain
    lines: fights done of all, time so far and time left; --json's stdout is unchanged."""
    import tactica.encounters as enc

    quiet = run_json("evaluate", "--policies", "aggressive,cautious", "--scenarios", "cortex/duel",
                     "--episodes", "4", "--workers", "1")
    monkeypatch.setattr(enc, "LOG_EVERY_S", 0.0)     # a line at every fight but the last
    r = run("evaluate", "--policies", "aggressive,cautious", "--scenarios", "cortex/duel",
            "--episodes", "4", "--workers", "1", "--json")
    assert r.exit_code == 0, r.stderr
    assert json.loads(r.stdout) == quiet
    lines = r.stderr.splitlines()
    assert [ln.split(",")[0] for ln in lines] == ["evaluating: 1/4 fights", "evaluating: 2/4 fights",
                                                  "evaluating: 3/4 fights"]
    assert all(" so far, about " in ln and ln.endswith(" left") for ln in lines)


def test_the_progress_line_reads_as_a_person_would_write_it() -> None:
    from tactica.encounters import log_progress

    assert log_progress(0, 3200, 5.2) == "0/3200 fights, 5s so far"
    assert log_progress(120, 3200, 250) == "120/3200 fights, 4m 10s so far, about 1h 46m left"
    assert log_progress(3200, 3200, 4000) == "3200/3200 fights, 1h 06m so far"
