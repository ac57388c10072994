"""Does stepping counts and trait steps only toward the target make `tactica tune` better?

Runs the same seeded tunes with `directed=True` (the default) and `directed=False` (every knob
tried both ways, as before) and reports, per arm: how many ended within tolerance on their
pooled fresh checks, how far the pooled check ended from the target, candidates played and CPU
seconds (search and checks).

    python experiments/tune_direction.py --scenario cortex/duel --targets 0.3,0.5,0.7 --seeds 10 --episodes 30
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from evaluation.tuning import tune  # noqa: E402


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenario", default="cortex/duel")
    ap.add_argument("--targets", default="0.3,0.5,0.7")
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--episodes", type=int, default=30)
    ap.add_argument("--check-episodes", type=int, default=100)
    ap.add_argument("--json", default=None, help="write the rows here")
    a = ap.parse_args(argv)
    rows = []
    arms = {True: [], False: []}
    for t in [float(x) for x in a.targets.split(",")]:
        for seed in range(a.seeds):
            for directed in (True, False):          # alternated: both arms see the same machine load
                t0 = time.process_time()
                r = tune(a.scenario, t, episodes=a.episodes, check_episodes=a.check_episodes, seed=seed * 10,
                         directed=directed)
                cpu = time.process_time() - t0
                row = {"target": t, "seed": seed * 10, "directed": directed, "ok": r["within_tolerance"],
                       "candidates": r["candidates_evaluated"],
                       "rounds": len(r["checks"]), "rate": r["pc_win_rate"], "cpu_s": round(cpu, 2)}
                rows.append(row)
                arms[directed].append(row)
                print(json.dumps(row), flush=True)
    summary = {}
    for d, rs in arms.items():
        summary["directed" if d else "both ways"] = {
            "tunes": len(rs), "within_tolerance": sum(r["ok"] for r in rs),
            "candidates": sum(r["candidates"] for r in rs), "cpu_s": round(sum(r["cpu_s"] for r in rs), 1),
            "mean_abs_gap": round(sum(abs(r["rate"] - r["target"]) for r in rs) / len(rs), 4)}
    print(json.dumps(summary, indent=1))
    if a.json:
        Path(a.json).write_text(json.dumps({"args": vars(a), "rows": rows, "summary": summary}, indent=1))
    return summary


if __name__ == "__main__":
    main()
