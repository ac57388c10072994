"""Planner settings, or tactical's own weights, against `tactical`: win rates of variants
on development maps.

    python experiments/planner_strength.py --ruleset cortex --maps 8 --fights 6 \
        --variant base='{}' --variant wide='{"confidence": 0.5, "close": 0.5}'
    python experiments/planner_strength.py --ruleset cortex --maps 32 --fights 10 \
        --knobs same='{}' --knobs bold='{"aggression": 1.5}'

`--variant NAME=JSON` is a planner with those keyword arguments; `--knobs NAME=JSON` is
`tactical` with some of its weights scaled or replaced (`KnobbedTactical`: does tuning
tactical's own weights beat it?).

Each variant plays `tactical` on `--maps` generated maps of the ruleset (training seeds
from `--map-seed` on, never the held-out ones the baselines use, so tuning here does not
leak into the reported numbers) plus the ruleset's bundled scenarios with `--bundled`,
`--fights` fights a map, sides alternating. Every variant meets the same fights (same
seeds, same maps), so the variants are compared on the same luck as far as their
choices allow. With `--paired` fights 2j and 2j+1 share their dice with sides swapped (as
`tactica evaluate` plays them), so the map's and the dice's favour for one side cancels
and tactical against itself wins exactly half of the decided fights. Prints wins,
losses, draws, the win rate with its Wilson 95% interval, and the CPU seconds per fight;
with `--progress N` also each variant's running tally every N of its fights.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import sys
import time
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

_VARIANTS: dict[str, dict] = {}  # variant name -> planner keyword arguments
_KNOBS: dict[str, dict] = {}     # variant name -> tactical knobs
_SPECS: list = []                 # the maps, loaded before the workers fork

#: tactical's knobs: multipliers of a decision's weights, or replacements of its constants
KNOBS = {
    "aggression": "x how much attacks (and the positions that allow them) weigh against exposure",
    "caution": "x the weight of the fire a figure draws (its exposure, quick or from the enemies' odds)",
    "later": "x what a shot from a cell counts for when it must wait for the next turn",
    "pull": "x the pull towards enemies when no attack is possible from a cell",
    "guard": "x the value of defensive stances and dropping prone",
    "focus": "extra weight on hurt targets: attack value x (1 + focus x damage fraction)",
    "kill_bonus": "replaces the bonus for the chance to take a target out (0.6)",
    "move_margin": "replaces how much a move must improve the position (0.03)",
    "hurt_weight": "replaces the weight of its own safety when below half health (1.6)",
}


from agents import assess as A  # noqa: E402  (after the path set-up above)
from agents.tactical import TacticalPolicy  # noqa: E402


class KnobbedTactical(TacticalPolicy):
    """`tactical` with some weights changed (`KNOBS`; for this benchmark only)."""

    def __init__(self, knobs: dict, seed=None) -> None:
        super().__init__(seed)
        self.knobs = dict(knobs)
        for k in ("kill_bonus", "move_margin"):
            if k in knobs:
                setattr(self, k, float(knobs[k]))
        # tactical's own scales (the ones `bold` sets)
        self.caution = float(knobs.get("caution", 1.0))
        self.boldness = float(knobs.get("aggression", 1.0))

    def context(self, rs, state, me, legal):
        ctx = super().context(rs, state, me, legal)
        k = self.knobs
        ctx.later *= k.get("later", 1.0)
        if ctx.frac < self.hurt and "hurt_weight" in k:
            ctx.def_weight = float(k["hurt_weight"]) * self.caution
        return ctx

    def offence_at(self, ctx, cell):
        v, t = super().offence_at(ctx, cell)
        return (v * self.knobs.get("pull", 1.0) if t is None else v), t

    def guard_choices(self, ctx, kinds):
        out = super().guard_choices(ctx, kinds)
        for c in out:
            if c.score > 0:
                c.score *= self.knobs.get("guard", 1.0)
        return out

    def attack_value(self, ctx, o):
        v = super().attack_value(ctx, o)
        f = self.knobs.get("focus", 0.0)
        if f:
            v *= 1.0 + f * (1.0 - A.health_frac(ctx.rs, ctx.state.by_id[o.action.target]))
        return v


def _tactical(knobs: dict, seed=None) -> KnobbedTactical:
    bad = sorted(set(knobs) - set(KNOBS))
    if bad:
        raise SystemExit(f"--knobs: unknown knob(s) {', '.join(bad)}; expected some of {', '.join(KNOBS)}")
    return KnobbedTactical(knobs, seed)


def _make(kwargs: dict, seed=None):
    from agents.planner import PlannerPolicy
    return PlannerPolicy(seed, **kwargs)


def _play(job: tuple) -> tuple[str, int, str | None, float, int]:
    from agents.base import register_policy
    from evaluation.simulate import play_fight
    name, spec_idx, k, seed, paired = job
    if name in _KNOBS:
        register_policy(name, partial(_tactical, _KNOBS[name]))
    else:
        register_policy(name, partial(_make, _VARIANTS[name]))
    spec = _SPECS[spec_idx]
    teams = [t.name for t in spec.teams]
    me = k % 2
    pols = {teams[me]: name, teams[1 - me]: "tactical"}
    t0 = time.process_time()
    r = play_fight(spec, pols, seed, k // 2 if paired else k)
    won = None if r.winner is None else ("win" if r.winner == teams[me] else "loss")
    return name, spec_idx, won, time.process_time() - t0, k


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ruleset", default="cortex")
    ap.add_argument("--maps", type=int, default=8)
    ap.add_argument("--map-seed", type=int, default=5000)
    ap.add_argument("--bundled", action="store_true", help="also the ruleset's bundled scenarios")
    ap.add_argument("--fights", type=int, default=6, help="fights per map (sides alternate)")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--progress", type=int, default=0, metavar="N",
                    help="also print a variant's running tally every N of its fights (a slow variant then "
                         "leaves figures if it is stopped)")
    ap.add_argument("--variant", action="append", default=[], help="NAME=JSON planner keyword arguments")
    ap.add_argument("--paired", action="store_true",
                    help="play each fight's dice twice, sides swapped (tactical against itself then wins exactly "
                         "half of the decided fights)")
    ap.add_argument("--json", metavar="PATH",
                    help="append each fight's outcome to PATH as a JSON line (variant, map, fight, outcome, CPU s) "
                         "as it ends, and print each variant's paired difference from the first on the fights both played")
    ap.add_argument("--knobs", action="append", default=[],
                    help="NAME=JSON tactical with some weights changed: " + "; ".join(f"{k}: {v}" for k, v in KNOBS.items()))
    args = ap.parse_args()

    from envs.generators import generate_scenario
    from evaluation.stats import wilson
    from rules.scenario import bundled_scenarios, load_scenario

    for v in args.variant or ([] if args.knobs else ["planner={}"]):
        name, _, kw = v.partition("=")
        _VARIANTS[name] = json.loads(kw or "{}")
    for v in args.knobs:
        name, _, kw = v.partition("=")
        _KNOBS[name] = _VARIANTS[name] = json.loads(kw or "{}")
        _tactical(_KNOBS[name])  # unknown knobs fail here, before any fight
    _SPECS.extend(load_scenario(generate_scenario(args.ruleset, args.map_seed + i, mirrored=True))[0]
                  for i in range(args.maps))
    if args.bundled:
        _SPECS.extend(load_scenario(n)[0] for n in bundled_scenarios() if n.startswith(args.ruleset + "/"))
    # map by map, each fight of every variant in turn: a run stopped early leaves the variants the same fights
    jobs = [(name, i, k, args.seed, args.paired) for i in range(len(_SPECS)) for k in range(args.fights) for name in _VARIANTS]
    records: list[dict] = []
    tally = {name: {"win": 0, "loss": 0, None: 0, "cpu": 0.0} for name in _VARIANTS}
    per_variant = len(_SPECS) * args.fights
    t0 = time.time()
    print(f"{args.ruleset}: {len(_SPECS)} maps x {args.fights} fights, seed {args.seed}; "
          "a variant's line is printed when its fights are done", flush=True)

    def line(name: str) -> str:
        t = tally[name]
        n = t["win"] + t["loss"] + t[None]
        lo, hi = wilson(t["win"], n)
        kind = "tactical" if name in _KNOBS else "planner"
        return (f"  {name:>14}: {t['win']:4d}-{t['loss']:4d} ({t[None]} draws)  win {t['win'] / n:.1%} "
                f"[{lo:.1%}, {hi:.1%}]  {t['cpu'] / n:.2f} CPU s/fight  {kind} {_VARIANTS[name]}  "
                f"({time.time() - t0:.0f} s)")

    with mp.get_context("fork").Pool(args.workers) as pool:
        for name, spec_idx, won, cpu, k in pool.imap_unordered(_play, jobs, chunksize=1):
            rec = {"variant": name, "map": spec_idx, "fight": k, "outcome": won or "draw", "cpu": round(cpu, 3)}
            records.append(rec)
            if args.json:
                with open(args.json, "a") as f:
                    f.write(json.dumps(rec) + "\n")
            t = tally[name]
            t[won] += 1
            t["cpu"] += cpu
            done = t["win"] + t["loss"] + t[None]
            if done == per_variant:
                print(line(name), flush=True)
            elif args.progress and done % args.progress == 0:
                print(line(name) + f"  [{done}/{per_variant} fights]", flush=True)
    if args.json and len(_VARIANTS) > 1:
        for line_ in paired_lines(records, list(_VARIANTS), args.paired):
            print(line_, flush=True)


def paired_lines(records: list[dict], names: list[str], paired: bool) -> list[str]:
    """Each variant's win rate minus the first variant's on the fights both played, with a 95%
    interval from the differences per unit (a map's fight pair where `paired`, else a fight)."""
    import numpy as np
    score = {(r["variant"], r["map"], r["fight"]): 1.0 if r["outcome"] == "win" else 0.0 for r in records}
    out = []
    for name in names[1:]:
        units: dict[tuple, list[float]] = {}
        for (v, m, k), x in score.items():
            if v != name or (names[0], m, k) not in score:
                continue
            units.setdefault((m, k // 2 if paired else k), []).append(x - score[(names[0], m, k)])
        d = np.array([np.mean(u) for u in units.values()])
        if len(d) < 2:
            continue
        se = d.std(ddof=1) / np.sqrt(len(d))
        out.append(f"  {name} - {names[0]}: {100 * d.mean():+.1f} points (95% {100 * (d.mean() - 1.96 * se):+.1f} to "
                   f"{100 * (d.mean() + 1.96 * se):+.1f}) on {sum(len(u) for u in units.values())} fights both played")
    return out


if __name__ == "__main__":
    main()
