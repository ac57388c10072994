"""Where a search player's pick sits in the shipped network's order, at the network's own decisions.

The network (`ppo`) plays one side of development maps (generated, seeds 5000 on, sides
alternating) against `tactical`; at each of its decisions (no open question) the search
player (`planner` or `planner-bold`, with its own rollout dice) decides the same position, and
the script counts where that pick ranks among the network's actions by probability, with the
network's margin (its top probability minus the next) at those decisions, and how often the
search player's pick is its guide's own (the network's advisor's pick: `tactical` or `bold`,
which the search keeps unless its rollouts clearly beat it). The network's
pick is played, so the positions are the network's own. A rank of 1 is agreement; "not listed"
is a pick outside the network's legal candidates (its advice-only mask).

    python experiments/planner_agreement.py --ruleset cortex --search planner --maps 12
    python experiments/planner_agreement.py --ruleset cortex_hu --search planner-bold --maps 12

The search player's own picks are noisy (docs/results.md, cortex_hu, Why the clone does not take the
planner's edge: a repeat with fresh rollout dice keeps about 40% of its overrules), so a
disagreement here is an upper bound on where the network and the search differ.
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agents.base import make_policy  # noqa: E402
from envs.generators import generate_scenario  # noqa: E402
from rules.dice import Dice  # noqa: E402
from rules.scenario import load_scenario, new_battle  # noqa: E402


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ruleset", required=True)
    ap.add_argument("--search", default="planner", help="the search player (planner, planner-bold)")
    ap.add_argument("--maps", type=int, default=12, help="development maps, one fight each")
    ap.add_argument("--margin", type=float, default=0.2, help="the margin reported (selective's)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    ranks: collections.Counter = collections.Counter()
    gaps: dict[int, list[float]] = collections.defaultdict(list)
    advised: collections.Counter = collections.Counter()   # rank -> the search's pick is the advisor's
    for m in range(args.maps):
        spec, src = load_scenario(generate_scenario(args.ruleset, 5000 + m, mirrored=True))
        net_team = spec.teams[m % 2].name
        b = new_battle(spec, Dice(np.random.default_rng(m)), src, record=False)
        net, opp, search = make_policy("ppo", m), make_policy("tactical", m), make_policy(args.search, m)
        b.start()
        while not b.state.over:
            s, a = b.state, b.state.actor
            if a.team == net_team and s.pending is None:
                lmap, p = net.scores(s, a)
                order = [lmap[int(i)] for i in np.argsort(-p, kind="stable") if p[i] > 0 and int(i) in lmap]
                top = np.sort(p)
                gap = float(top[-1] - top[-2]) if len(top) > 1 else 1.0
                pick = search.act(s, a)
                r = order.index(pick) + 1 if pick in order else 0
                ranks[r] += 1
                gaps[r].append(gap)
                adv = net.advisor.pick if net.advisor is not None else None
                advised[r] += pick == adv
                act = order[0] if order else pick
                net.commit(s, a, act)
            else:
                act = (opp if a.team != net_team else net).act(s, a)
            b.step(act, check=False)
    total = sum(ranks.values())
    rows = [{"rank": r or "not listed", "decisions": ranks[r], "share": ranks[r] / total,
             "median_margin": float(np.median(gaps[r])), f"margin_at_least_{args.margin}": float(np.mean(np.array(gaps[r]) >= args.margin)),
             "advisors_pick": advised[r] / ranks[r]}
            for r in sorted(ranks, key=lambda r: r or 99)]
    out = {"ruleset": args.ruleset, "search": args.search, "maps": args.maps, "decisions": total, "rows": rows}
    if args.json:
        print(json.dumps(out, indent=1))
    else:
        print(f"{args.ruleset}: {args.search}'s pick at {total} of the network's decisions")
        print(f"| rank in the network's order | decisions | share | network's median margin | margin >= {args.margin} "
              "| the search's pick is its advisor's |")
        print("|---|---:|---:|---:|---:|---:|")
        for row in rows:
            print(f"| {row['rank']} | {row['decisions']} | {100 * row['share']:.1f}% | {row['median_margin']:.2f} | "
                  f"{100 * row[f'margin_at_least_{args.margin}']:.0f}% | {100 * row['advisors_pick']:.0f}% |")
    return out


if __name__ == "__main__":
    main()
