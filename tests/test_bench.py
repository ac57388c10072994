"""Engine benchmark (pytest-benchmark) and a smoke test of benchmarks/bench_engine.py.

The benchmark is slow-marked and pyproject's addopts pass --benchmark-disable, so run it as

    python -m pytest -m slow -n 0 tests/test_bench.py --benchmark-enable

(`-n 0`: pytest-benchmark times nothing while xdist spreads the tests over workers.)
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from evaluation.simulate import check_policies, play_fight
from rules.scenario import load_scenario

BENCH = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_engine.py"


def _load_bench():
    spec = importlib.util.spec_from_file_location("bench_engine", BENCH)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_bench_script_runs_and_prints_a_markdown_row(capsys) -> None:
    mod = _load_bench()
    mod.main(["--fights", "3", "--warmup", "1", "--scenario", "cortex/duel", "--header"])
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("| date | command |")
    assert out[-1].startswith("| ") and "cortex/duel" in out[-1] and "--fights 3" in out[-1]
    r = mod.measure("cortex/duel", 2, warmup=0)
    assert r["fights"] == 2 and r["actions"] > 0 and r["actions_per_s"] > 0


@pytest.mark.slow
def test_bench_random_fights_on_the_warehouse(benchmark) -> None:
    spec, src = load_scenario("cortex/warehouse")
    pols = check_policies(spec, {t.name: "random" for t in spec.teams})
    for i in range(5):  # warm the map's caches
        play_fight(spec, pols, 0, 1000 + i, src)

    def twenty_fights() -> int:
        return sum(play_fight(spec, pols, 0, i, src).actions for i in range(20))

    actions = benchmark.pedantic(twenty_fights, rounds=5, iterations=1, warmup_rounds=1)
    assert actions > 0


def test_env_bench_compares_with_minigrid_and_times_decisions(capsys) -> None:
    """benchmarks/bench_env.py in a tiny form: both tables, a MiniGrid ratio, and the
    decision times of tactical and planner (issue 4's speed figures come from it)."""
    spec = importlib.util.spec_from_file_location("bench_env", BENCH.parent / "bench_env.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    r = mod.compare_minigrid(60, 2, seed=3)
    assert r["ours_steps"] == 60 and r["ours_rate"] > 0
    assert r["minigrid_steps"] == 60 and r["ratio"] > 0   # minigrid is a dev dependency (the bench extra)
    d = mod.decision_times("tactical", 5, seed=3)
    assert d["decisions"] == 5 and 0 < d["median_ms"] <= d["max_ms"]
    mod.main(["--steps", "40", "--blocks", "2", "--decisions", "4"])
    out = capsys.readouterr().out
    assert "| cortex/warehouse | random |" in out and "| planner | 1 |" in out
    c = mod.option_cost("turn_order", 40, 2, seed=3)
    assert c["steps"] == 40 and c["with"] > 0 and c["without"] > 0
    mod.main(["--steps", "40", "--blocks", "2", "--decisions", "0", "--no-tactical", "--option-cost", "turn_order"])
    assert "| turn_order | 40 |" in capsys.readouterr().out


def test_profile_env_times_a_training_env_and_names_the_rules_hot_spot(capsys) -> None:
    """benchmarks/profile_env.py in a tiny form (docs/benchmarks.md's cortex_hu/metalface env
    rates come from it): a positive rate, and the profile reaches the ruleset's legal actions."""
    pytest.importorskip("torch")   # training.train imports the exporter
    spec = importlib.util.spec_from_file_location("profile_env", BENCH.parent / "profile_env.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    rate = mod.main([str(BENCH.parents[1] / "training" / "configs" / "metalface.yaml"), "--steps", "10", "--top", "60"])
    out = capsys.readouterr().out
    assert rate > 0 and "metalface: " in out and "env steps/s" in out
    assert "legal_actions" in out and "skirmish.py" in out


def test_ab_runs_the_advised_env_and_the_learned_fights_in_one_checkout() -> None:
    """benchmarks/ab.py's `env-advice`, `learned` and `planner-bold` workloads in a tiny form, this
    checkout on both sides: each reports its work and a checksum of what it played, the same both
    times (`planner-bold`: one decision on each ruleset's scenario)."""
    spec = importlib.util.spec_from_file_location("ab", BENCH.parent / "ab.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    root = BENCH.parents[1]
    for what, unit in (("env-advice", "steps"), ("learned", "fights"), ("planner-bold", "decisions")):
        a, b = mod.run_workload(root, what, 0.05), mod.run_workload(root, what, 0.05)
        assert a["unit"] == unit and a["n"] >= 1 and a["cpu"] > 0
        assert a["check"] == b["check"]
    assert a["n"] == len(mod._PLANNER_SCENARIOS)
