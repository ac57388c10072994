"""Where a learned advice policy departs from its advisor, and how its fights end.

    python experiments/advice_overrules.py runs/metalface-advice-candidates/policy.npz --maps 10 --fights 4

Plays the exported policy (one trained with `advice: tactical` or `bold`) against `tactical` on
generated development maps of the policy's ruleset (seeds from `--map-seed`, 5000 by
default: never the held-out ones), sides alternating, and counts over the policy's
decisions how often it played the advisor's pick, and for the others which kind of action
its advisor advised and which the policy played instead. Prints one table and the fights'
tally (wins, losses, draws, mean rounds).
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("policy", help="an exported .npz policy trained with advice")
    ap.add_argument("--maps", type=int, default=10)
    ap.add_argument("--fights", type=int, default=4, help="fights a map (sides alternate)")
    ap.add_argument("--map-seed", type=int, default=5000)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args(argv)

    from agents.learned import NumpyPolicy
    from envs.generators import generate_scenario
    from evaluation.simulate import play_fight
    from rules.errors import TacticaError
    from rules.scenario import load_scenario

    try:
        probe = NumpyPolicy(args.policy)
    except TacticaError as e:
        raise SystemExit(str(e))
    if probe.advice is None:
        raise SystemExit(f"{args.policy}: this policy was trained without advice; nothing to compare")
    ruleset = probe.meta["ruleset"]
    tally = Counter()
    pairs: Counter = Counter()
    plain_act = NumpyPolicy.act

    def counting_act(self, state, actor):
        a = plain_act(self, state, actor)
        pick = self.advisor.pick if self.advisor is not None else None
        tally["decisions"] += 1
        if pick is not None and pick != a:
            tally["overruled"] += 1
            pairs[(pick.kind, a.kind)] += 1
        return a

    NumpyPolicy.act = counting_act
    try:
        rounds = 0
        for i in range(args.maps):
            spec = load_scenario(generate_scenario(ruleset, args.map_seed + i, mirrored=True))[0]
            teams = [t.name for t in spec.teams]
            for k in range(args.fights):
                me = k % 2
                r = play_fight(spec, {teams[me]: args.policy, teams[1 - me]: "tactical"}, args.seed, k)
                tally["fights"] += 1
                rounds += r.rounds
                tally["draw" if r.winner is None else ("win" if r.winner == teams[me] else "loss")] += 1
    finally:
        NumpyPolicy.act = plain_act
    n = max(1, tally["decisions"])
    print(f"{ruleset}: {tally['fights']} fights against tactical: {tally['win']} won, {tally['loss']} lost, "
          f"{tally['draw']} drawn, {rounds / max(1, tally['fights']):.1f} rounds on average")
    print(f"{tally['decisions']} decisions; {probe.advice}'s pick overruled on {tally['overruled']} "
          f"({tally['overruled'] / n:.1%})")
    if pairs:
        print(f"| {probe.advice} advised | the policy played | decisions | share of all |")
        print("|---|---|---:|---:|")
        for (adv, got), c in pairs.most_common():
            print(f"| {adv} | {got} | {c} | {c / n:.1%} |")
    return {"tally": dict(tally), "pairs": {f"{a}->{b}": c for (a, b), c in pairs.items()}}


if __name__ == "__main__":
    main()
