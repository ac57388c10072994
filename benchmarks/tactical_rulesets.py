"""A/B: scripted fights per CPU second on one scenario of each rule system, two checkouts alternated.

`benchmarks/ab.py`'s `tactical` workload measures cortex/warehouse only; this runs the same
kind of work (a policy against itself, seeded fights) on a scenario of every ruleset, so a
change to `tactical` or to one ruleset's odds shows everywhere. Each run is a fresh
subprocess with the checkout first on `sys.path`; the checkouts take turns `--rounds`
times and the ratio is old/new of the summed CPU seconds (`time.process_time()`). Each run
prints a checksum of the fights it played: "same play" says both checkouts played the same.

    python benchmarks/tactical_rulesets.py --old /work/base --new . --fights 10 --rounds 2
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

SCENARIOS = "cortex/warehouse,cortex_hu/magtar,metalface/scrapyard,cybergeneration/mall_raid"

_CODE = """
import sys, time, json, hashlib
sys.path.insert(0, {root!r})
from evaluation.simulate import check_policies, play_fight
from rules.scenario import load_scenario
spec, src = load_scenario({scenario!r})
pols = check_policies(spec, {{"*": {policy!r}}})
play_fight(spec, pols, 1, 999, src)  # warm-up: imports, the map's tables
h = hashlib.sha256()
t = time.process_time()
for i in range({fights}):
    r = play_fight(spec, pols, 1, i, src)
    h.update(f"{{r.winner}}{{r.rounds}}{{r.actions}}".encode())
print(json.dumps({{"cpu": time.process_time() - t, "check": h.hexdigest()[:12]}}))
"""


def run(root: Path, scenario: str, policy: str, fights: int) -> dict:
    """CPU seconds and checksum of `fights` fights in a fresh process on checkout `root`."""
    code = _CODE.format(root=str(root), scenario=scenario, policy=policy, fights=fights)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd="/tmp", check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--old", required=True, type=Path, help="the checkout to compare against")
    ap.add_argument("--new", default=Path(__file__).resolve().parents[1], type=Path)
    ap.add_argument("--scenarios", default=SCENARIOS, help="comma separated")
    ap.add_argument("--policy", default="tactical")
    ap.add_argument("--fights", type=int, default=10, help="fights per run")
    ap.add_argument("--rounds", type=int, default=2, help="runs per checkout, alternated")
    args = ap.parse_args()
    for scenario in args.scenarios.split(","):
        cpu = {"old": 0.0, "new": 0.0}
        check: dict[str, str] = {}
        for _ in range(args.rounds):
            for side in ("old", "new"):
                r = run(getattr(args, side).resolve(), scenario, args.policy, args.fights)
                cpu[side] += r["cpu"]
                check[side] = r["check"]
        n = args.rounds * args.fights
        print(f"{scenario:28s} {args.policy}: old {n / cpu['old']:7.1f} fights/CPU s   new {n / cpu['new']:7.1f}"
              f"   x{cpu['old'] / cpu['new']:.2f}   same play: {check['old'] == check['new']}", flush=True)


if __name__ == "__main__":
    main()
