"""Are the planner's overrules a property of the position, or of its dice? Replays each of
its decisions with fresh rollout seeds.

    python experiments/planner_repeat.py --ruleset cortex_hu --guide bold --maps 16 --fights 2 --repeats 2

The planner (`--guide` bold: `planner-bold`) plays tactical on generated development maps
(training seeds from `--map-seed`, never the held-out ones). Before each of its decisions
the planner is copied; after the decision, each of `--repeats` copies decides the same
position again with its own rollout seed (same guide, same memory of the fight). A teacher
whose departures from its guide come from the position repeats them; one whose departures
come from the luck of a few rollouts does not, and no student can learn those from the
position (docs/results.md, cortex_hu). Prints how often the planner overrules its guide,
and how often a repeat overrules it too, with the same action, and how often a repeat
overrules where the planner did not.
"""

from __future__ import annotations

import argparse
import copy
import json
import multiprocessing as mp
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agents.planner import PlannerPolicy  # noqa: E402

_SPECS: list = []
_ARGS: dict = {}


class RepeatingPlanner(PlannerPolicy):
    """The planner, recording each decision's default (the guide's pick), its own pick and
    the picks of `repeats` copies that decide the same position with other rollout seeds."""

    def __init__(self, seed=None, repeats: int = 2, control: bool = False, **kw) -> None:
        super().__init__(seed, **kw)
        self.repeats = repeats
        self.control = control
        #: per looked-ahead decision: (overruled the guide?, [(repeat overruled?, repeat made the same pick?)])
        self.log: list[tuple[bool, list[tuple[bool, bool]]]] = []
        self._n = 0
        self._default = None

    def pick(self, cands, values):
        self._default = cands[0].action
        return super().pick(cands, values)

    def act(self, state, actor):
        before = copy.deepcopy(self)
        self._default = None
        a = super().act(state, actor)
        if self._default is None:     # a single candidate: nothing was looked ahead
            return a
        default = self._default
        reps = []
        for r in range(self.repeats):
            twin = copy.deepcopy(before)
            twin.repeats = 0
            if not self.control:   # the control keeps the planner's own seed: it must repeat every pick
                twin.rng = np.random.default_rng([self._n, r, 0x5EED])
            s2 = copy.deepcopy(state)
            b = PlannerPolicy.act(twin, s2, s2.by_id[actor.id])
            reps.append((b != default, b == a))
        self.log.append((a != default, reps))
        self._n += 1
        return a


def _play(job: tuple) -> list:
    from agents.base import make_policy
    from evaluation.simulate import fight_streams
    from rules.dice import Dice
    from rules.scenario import new_battle
    spec_idx, k, seed = job
    spec = _SPECS[spec_idx]
    teams = [t.name for t in spec.teams]
    me = k % 2
    dice_ss, pol_ss = fight_streams(seed, k // 2, len(teams))
    battle = new_battle(spec, Dice(np.random.default_rng(dice_ss)), None)
    pols = {}
    for i, t in enumerate(teams):
        if i == me:
            pols[t] = RepeatingPlanner(pol_ss[i], repeats=_ARGS["repeats"], control=_ARGS["control"],
                                       guide=_ARGS["guide"])
        else:
            pols[t] = make_policy("tactical", pol_ss[i])
    battle.run(pols)
    return pols[teams[me]].log


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ruleset", default="cortex_hu")
    ap.add_argument("--guide", default="bold")
    ap.add_argument("--maps", type=int, default=16)
    ap.add_argument("--map-seed", type=int, default=5000)
    ap.add_argument("--fights", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--control", action="store_true",
                    help="the repeats keep the planner's own rollout seed (a check of the copying: they must "
                         "repeat every pick)")
    args = ap.parse_args(argv)
    from envs.generators import generate_scenario
    from rules.scenario import load_scenario
    _ARGS.update(repeats=args.repeats, guide=args.guide, control=args.control)
    _SPECS.clear()
    _SPECS.extend(load_scenario(generate_scenario(args.ruleset, args.map_seed + i, mirrored=True))[0]
                  for i in range(args.maps))
    jobs = [(i, k, args.seed) for i in range(len(_SPECS)) for k in range(args.fights)]
    t0 = time.time()
    logs = []
    if args.workers <= 1:
        for job in jobs:
            logs.extend(_play(job))
    else:
        with mp.get_context("fork").Pool(args.workers) as pool:
            for log in pool.imap_unordered(_play, jobs, chunksize=1):
                logs.extend(log)
    over = [d for d in logs if d[0]]
    keep = [d for d in logs if not d[0]]
    reps_over = [r for d in over for r in d[1]]
    reps_keep = [r for d in keep for r in d[1]]
    out = {"ruleset": args.ruleset, "guide": args.guide, "fights": len(jobs), "looked_ahead": len(logs),
           "overrules": len(over), "repeats": args.repeats,
           "repeat_overrules_after_overrule": float(np.mean([r[0] for r in reps_over])) if reps_over else None,
           "repeat_same_action_after_overrule": float(np.mean([r[1] for r in reps_over])) if reps_over else None,
           "repeat_overrules_after_keep": float(np.mean([r[0] for r in reps_keep])) if reps_keep else None,
           "repeat_same_action": float(np.mean([r[1] for d in logs for r in d[1]])) if logs else None,
           "seconds": round(time.time() - t0, 1)}
    if args.json:
        print(json.dumps(out, indent=2))
    else:
        print(f"{args.ruleset}, planner around {args.guide}: {out['fights']} fights, {len(logs)} decisions looked "
              f"ahead, {len(over)} overrules ({len(over) / max(1, len(logs)):.1%})")
        if reps_over:
            print(f"  after an overrule a repeat overrules too in {out['repeat_overrules_after_overrule']:.1%}, "
                  f"with the same action in {out['repeat_same_action_after_overrule']:.1%}")
        if reps_keep:
            print(f"  after a kept default a repeat overrules in {out['repeat_overrules_after_keep']:.1%}")
        if logs:
            print(f"  a repeat makes the planner's own pick in {out['repeat_same_action']:.1%}")
        print(f"  ({out['seconds']:.0f} s)")
    return out


if __name__ == "__main__":
    main()
