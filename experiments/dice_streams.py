"""Do dice streams per seat or per figure narrow the spread of a paired comparison across seeds?

Issue 31, (c): `tactica evaluate` replays a swapped fight on the same dice stream, so two
copies of one player tie pair by pair; once two different players' decisions diverge, one
shared stream falls out of step (the player who rolls one more die shifts every later roll
of both sides). Streams per seat (team) or per figure keep each side's luck in step longer.
This measures what that is worth.

For each mode (`shared`, `seat`, `figure`) the same round robin is played: players A and B
on M held-out mirrored maps, one fight a side (a pair) per map per seed, S seeds. A pair's
score x(m, s) is A's wins in the pair (draws half), 0..2. The spread that matters is how much
the pooled rate moves with the dice seed alone, the maps fixed: per map the variance of x over
the S seeds, averaged over the maps, gives the implied standard deviation of one seed's
M-pair rate, sqrt(mean_m var_s x(m, s) / M) / 2, in points. Its 95% interval and the ratio of
two modes' variances come from a bootstrap over the maps (the modes share maps and seeds).
The pooled rates of the modes must agree within their intervals: every mode is unbiased.

    python experiments/dice_streams.py --ruleset cortex --players tactical,bold --maps 100 --seeds 4 --workers 2
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

MODES = ("shared", "seat", "figure")


def pair_scores(ruleset: str, players: list[str], maps: int, seeds: list[int], mode: str, workers: int,
                fights: int = 2) -> np.ndarray:
    """x[m, s]: A's wins (draws half) in map m's `fights` fights (half a side) with seed s."""
    from envs.generators import heldout_scenarios
    from evaluation.tournament import load_scenarios, round_robin

    specs = load_scenarios(heldout_scenarios(ruleset, maps))
    r = round_robin(specs, players, fights, seeds, workers=workers, dice_streams=mode)
    x = np.zeros((maps, len(seeds)))
    per_map = [p for p in r["pairs"] if p["scenario"] != "all"]
    for m, p in enumerate(per_map):
        for j, row in enumerate(p["per_seed"]):
            x[m, j] = row["a_wins"] + 0.5 * row["draws"]
    return x


def seed_sd(x: np.ndarray, fights: int = 2) -> float:
    """The implied sd (points) of one seed's rate over these maps, the maps fixed."""
    var = x.var(axis=1, ddof=1).mean()
    return 100.0 * float(np.sqrt(var / x.shape[0])) / fights


def bootstrap(xs: dict[str, np.ndarray], reps: int, seed: int) -> dict[str, list[float]]:
    """Maps resampled with replacement, the same draw for every mode: per-mode sd samples."""
    rng = np.random.default_rng(seed)
    n = next(iter(xs.values())).shape[0]
    out: dict[str, list[float]] = {k: [] for k in xs}
    for _ in range(reps):
        idx = rng.integers(0, n, n)
        for k, x in xs.items():
            out[k].append(seed_sd(x[idx]))
    return out


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ruleset", default="cortex")
    ap.add_argument("--players", default="tactical,bold", help="A,B: two registered policies")
    ap.add_argument("--maps", type=int, default=100)
    ap.add_argument("--seeds", type=int, default=4, help="seeds 1..S")
    ap.add_argument("--modes", default=",".join(MODES))
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--boot", type=int, default=2000, help="bootstrap resamples")
    ap.add_argument("--json", type=Path, help="also write the figures (and every pair score) here")
    args = ap.parse_args(argv)
    players = [p.strip() for p in args.players.split(",")]
    seeds = list(range(1, args.seeds + 1))
    modes = [m.strip() for m in args.modes.split(",")]
    xs: dict[str, np.ndarray] = {}
    secs: dict[str, float] = {}
    for mode in modes:
        t = time.perf_counter()
        xs[mode] = pair_scores(args.ruleset, players, args.maps, seeds, mode, args.workers)
        secs[mode] = time.perf_counter() - t
        print(f"{mode}: {xs[mode].size * 2} fights in {secs[mode]:.0f} s", file=sys.stderr)
    boot = bootstrap(xs, args.boot, 7)
    rows = []
    print(f"{args.ruleset}, {players[0]} (A) vs {players[1]}, {args.maps} held-out maps x {len(seeds)} seeds "
          f"x 2 sides per mode\n")
    print("| dice streams | fights | A's pooled rate | per-seed sd of a rate over the maps (points), 95% | "
          "variance against shared, 95% |")
    print("|---|---:|---:|---|---|")
    for mode in modes:
        x = xs[mode]
        n = x.size * 2
        rate = x.sum() / n
        lo, hi = np.percentile(boot[mode], [2.5, 97.5])
        if mode != "shared" and "shared" in xs:
            with np.errstate(divide="ignore", invalid="ignore"):
                ratio = np.array(boot[mode]) ** 2 / np.array(boot["shared"]) ** 2
            rlo, rhi = np.nanpercentile(ratio, [2.5, 97.5])
            rel = f"x{(seed_sd(x) / seed_sd(xs['shared'])) ** 2:.2f} ({rlo:.2f}-{rhi:.2f})"
        else:
            rel = "1"
        print(f"| {mode} | {n} | {rate:.1%} | {seed_sd(x):.2f} ({lo:.2f}-{hi:.2f}) | {rel} |")
        rows.append({"mode": mode, "fights": n, "rate": rate, "seed_sd": seed_sd(x), "sd_lo": lo, "sd_hi": hi,
                     "seconds": secs[mode], "scores": x.tolist()})
    out = {"ruleset": args.ruleset, "players": players, "maps": args.maps, "seeds": seeds, "rows": rows}
    if args.json:
        args.json.write_text(json.dumps(out))
    return out


if __name__ == "__main__":
    main()
