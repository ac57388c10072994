"""`tactica evaluate` over several seeds (issue 31, (c)): "Report the pooled rate, its Wilson
interval and the per-seed spread; `tactica evaluate` gives all three for several `--seed`s in
one call."

- the pooled record is the sum of the single-seed runs, and its interval is the Wilson
  interval of the pooled count;
- each seed's row is exactly that seed's own run; the spread is their min, max and sample sd;
- two copies of one player tie pair by pair on a mirrored map, with one dice stream or
  streams per seat or figure: the swapped fight k replays fight k on the same dice, so each
  pair is one win for each side (or two draws);
- the text output says the seeds and the per-seed rates; the report has a per-seed column.
"""

from __future__ import annotations

import json
import statistics

import pytest
from typer.testing import CliRunner

from agents.base import register_policy
from agents.tactical import TacticalPolicy
from envs.generators import generate_scenario
from evaluation.report import markdown
from evaluation.stats import wilson
from evaluation.tournament import load_scenarios, round_robin
from rules.scenario import load_scenario
from tactica.cli import app

SEEDS = [3, 5, 8]


@pytest.fixture(scope="module")
def runs() -> tuple[dict, list[dict]]:
    scen = load_scenarios(["cortex/duel"])
    pooled = round_robin(scen, ["aggressive", "cautious"], 6, seed=SEEDS)
    alone = [round_robin(scen, ["aggressive", "cautious"], 6, seed=k) for k in SEEDS]
    return pooled, alone


def test_pooled_record_is_the_sum_of_the_single_seed_runs(runs) -> None:
    pooled, alone = runs
    assert pooled["seeds"] == SEEDS and pooled["seed"] == SEEDS[0]
    for i, p in enumerate(pooled["pairs"]):
        parts = [r["pairs"][i] for r in alone]
        for k in ("n", "a_wins", "b_wins", "draws", "a_wins_first", "a_wins_second"):
            assert p[k] == sum(q[k] for q in parts), k
        assert p["n"] == 18
        assert (p["ci_low"], p["ci_high"]) == wilson(p["a_wins"], p["n"])
        assert p["a_win_rate"] == pytest.approx(p["a_wins"] / 18)


def test_each_seed_row_is_that_seeds_own_run_and_the_spread_is_theirs(runs) -> None:
    pooled, alone = runs
    for i, p in enumerate(pooled["pairs"]):
        rates = [r["pairs"][i]["a_win_rate"] for r in alone]
        assert [row["seed"] for row in p["per_seed"]] == SEEDS
        assert [row["a_win_rate"] for row in p["per_seed"]] == rates
        assert [row["a_wins"] for row in p["per_seed"]] == [r["pairs"][i]["a_wins"] for r in alone]
        assert p["spread"]["min"] == min(rates) and p["spread"]["max"] == max(rates)
        assert p["spread"]["sd"] == pytest.approx(statistics.stdev(rates))
    one = alone[0]["pairs"][0]
    assert one["spread"] == {"min": one["a_win_rate"], "max": one["a_win_rate"], "sd": 0.0}


@pytest.mark.parametrize("streams", ["shared", "seat", "figure"])
def test_two_copies_of_one_player_tie_pair_by_pair(monkeypatch, streams: str) -> None:
    import agents.base
    monkeypatch.setattr(agents.base, "_REGISTRY", dict(agents.base._REGISTRY))
    register_policy("tactical-twin", lambda seed=None: TacticalPolicy(seed))
    spec, src = load_scenario(generate_scenario("cortex", 4242, mirrored=True))
    r = round_robin([(spec, src)], ["tactical", "tactical-twin"], 4, seed=[1, 2], dice_streams=streams)
    assert r["dice_streams"] == streams
    for p in r["pairs"]:
        assert p["a_wins"] == p["b_wins"], p
        for row in p["per_seed"]:
            assert row["a_wins"] * 2 + row["draws"] == row["n"], row


def test_cli_text_json_and_report_show_the_seeds(tmp_path) -> None:
    args = ["evaluate", "--policies", "aggressive,cautious", "--scenarios", "cortex/duel", "--episodes", "6"]
    args += [x for k in SEEDS for x in ("--seed", str(k))]
    r = CliRunner().invoke(app, args)
    assert r.exit_code == 0, r.stderr
    assert "seeds 3, 5, 8 (rates pooled over the seeds)" in r.stdout
    assert "a's rate per seed: 3: " in r.stdout and "sd " in r.stdout
    j = CliRunner().invoke(app, args + ["--json"])
    data = json.loads(j.stdout)
    assert data["seeds"] == SEEDS and data["pairs"][-1]["n"] == 18
    md = markdown(data)
    assert "seeds 3, 5, 8" in md and "| per seed | sd (points) |" in md
    bad = CliRunner().invoke(app, args[:-1] + ["-3"])
    assert bad.exit_code == 2 and "--seed" in bad.stderr


def test_against_plays_each_player_only_against_the_reference_on_the_round_robins_fights() -> None:
    """`--against tactical`: the table of players against one reference. Each pair's record is
    exactly the round robin's record of that pair (the same fights, the same dice), the pairs
    without the reference are not played, and the listed player is `a`."""
    scen = load_scenarios(["cortex/duel"])
    full = round_robin(scen, ["aggressive", "random", "cautious"], 4, seed=[3, 5])
    table = round_robin(scen, ["aggressive", "random"], 4, seed=[3, 5], against="cautious")
    assert table["against"] == "cautious" and table["policies"] == ["aggressive", "random", "cautious"]
    got = {(p["a"], p["b"]): p for p in table["pairs"] if p["scenario"] == "all"}
    assert set(got) == {("aggressive", "cautious"), ("random", "cautious")}
    ref = {(p["a"], p["b"]): p for p in full["pairs"] if p["scenario"] == "all"}
    for (a, b), p in got.items():
        r = ref[(a, b)]   # the round robin has the reference last here: the same (a, b) order
        assert (p["a_wins"], p["b_wins"], p["draws"], p["per_seed"]) == (r["a_wins"], r["b_wins"], r["draws"],
                                                                        r["per_seed"])


def test_against_from_the_command_line_names_a_bad_reference() -> None:
    res = CliRunner().invoke(app, ["evaluate", "--policies", "aggressive,random", "--against", "nobody",
                                   "--scenarios", "cortex/duel", "-n", "2"])
    assert res.exit_code != 0 and "--against" in res.output
    res = CliRunner().invoke(app, ["evaluate", "--policies", "aggressive", "--against", "random",
                                   "--scenarios", "cortex/duel", "-n", "2", "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.output[res.output.index("{"):])
    assert {(p["a"], p["b"]) for p in out["pairs"]} == {("aggressive", "random")}
