"""Engine speed: resolved actions per second and fights per second.

Random against random on one scenario (default `cortex/warehouse`), in a single process,
after a warm-up (maps' geometry caches filled, imports done). Fights are seeded like
`tactica simulate` (fight i from (seed, i)); warm-up fights use indices after the measured
ones, so the measured fights are the same whatever the warm-up.

    python benchmarks/bench_engine.py [--fights N] [--scenario S] [--seed K] [--warmup W]

Prints a Markdown table row (with the date and the command) for docs/benchmarks.md; pass
--header to print the table's header first. Rates are given per wall-clock second and per
CPU second of this process (the second is steadier on a busy, shared machine).
"""

from __future__ import annotations

import argparse
import datetime as _dt
import os
import platform
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from evaluation.simulate import check_policies, play_fight  # noqa: E402
from rules.scenario import load_scenario  # noqa: E402

HEADER = ("| date | command | scenario | fights | actions | wall s | actions/s | fights/s "
          "| CPU s | actions/CPU s | fights/CPU s | python | cpus |\n"
          "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|")


def measure(scenario: str, fights: int, seed: int = 0, warmup: int = 20) -> dict:
    """Play `warmup` fights, then time `fights` fights; random against random."""
    spec, src = load_scenario(scenario)
    pols = check_policies(spec, {t.name: "random" for t in spec.teams})
    for i in range(warmup):
        play_fight(spec, pols, seed, fights + i, src)
    actions = 0
    t0, c0 = time.perf_counter(), time.process_time()
    for i in range(fights):
        actions += play_fight(spec, pols, seed, i, src).actions
    dt, dc = time.perf_counter() - t0, time.process_time() - c0
    return {"scenario": spec.name, "fights": fights, "actions": actions, "seconds": dt,
            "actions_per_s": actions / dt, "fights_per_s": fights / dt, "cpu_seconds": dc,
            "actions_per_cpu_s": actions / dc, "fights_per_cpu_s": fights / dc}


def row(r: dict, command: str) -> str:
    date = _dt.date.today().isoformat()
    return (f"| {date} | `{command}` | {r['scenario']} | {r['fights']} | {r['actions']} | "
            f"{r['seconds']:.2f} | {r['actions_per_s']:,.0f} | {r['fights_per_s']:.1f} | "
            f"{r['cpu_seconds']:.2f} | {r['actions_per_cpu_s']:,.0f} | {r['fights_per_cpu_s']:.1f} | "
            f"{platform.python_version()} | {os.cpu_count()} |")


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--fights", type=int, default=500, help="measured fights (default 500)")
    p.add_argument("--scenario", default="cortex/warehouse", help="bundled name or file")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--warmup", type=int, default=20, help="fights played before timing (default 20)")
    p.add_argument("--header", action="store_true", help="print the Markdown table header first")
    a = p.parse_args(argv)
    r = measure(a.scenario, a.fights, a.seed, a.warmup)
    args = [x for x in (sys.argv[1:] if argv is None else argv) if x != "--header"]
    command = "python benchmarks/bench_engine.py " + " ".join(args)
    if a.header:
        print(HEADER)
    print(row(r, command.strip()))


if __name__ == "__main__":
    main()
