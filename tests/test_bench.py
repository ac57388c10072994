"""Engine benchmark (pytest-benchmark) and a smoke test of benchmarks/bench_engine.py.

The benchmark is slow-marked and pyproject's addopts pass --benchmark-disable, so run it as

    python -m pytest -m slow tests/test_bench.py --benchmark-enable
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
