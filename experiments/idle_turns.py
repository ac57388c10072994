"""How often a figure with no enemy in sight spends its turn standing still, by policy and scenario.

A turn is *unsighted* when no standing enemy is in the figure's line of sight as the turn starts, and *idle* when
the figure neither moves nor attacks in it. Counted over seeded fights of the bundled scenarios, both sides played
by the same policy.

    python experiments/idle_turns.py --policy tactical --fights 6
"""
from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agents import make_policy  # noqa: E402
from rules.dice import Dice  # noqa: E402
from rules.scenario import bundled_scenarios, load_scenario, new_battle  # noqa: E402


def count(scenario: str, policy: str, fights: int, seed: int = 0) -> Counter:
    spec, src = load_scenario(scenario)
    c: Counter = Counter()
    for k in range(fights):
        holder: dict = {}
        turn: dict = {}

        def close() -> None:
            """Count the turn that ran until now (a turn ends with the next one's start, whether or not its
            figure ended it: a figure whose actions are spent gets no `turn_end`)."""
            if turn:
                c["turns"] += 1
                if not turn["seen"]:
                    c["unsighted"] += 1
                    if not turn["did"]:
                        c["idle"] += 1
            turn.clear()

        def on_event(e: dict) -> None:
            b = holder.get("b")
            if b is None:
                return
            t = e["type"]
            if t == "turn_start":
                close()
                s = b.state
                me = s.by_id[e["actor"]]
                seen = any(o.team != me.team and not o.down and s.grid.los(me.pos, o.pos) for o in s.combatants)
                turn.update(actor=me.id, seen=seen, did=False)
            elif t in ("move", "attack") and e.get("actor") == turn.get("actor"):
                turn["did"] = True
            elif t == "battle_end":
                close()

        b = new_battle(spec, Dice(np.random.default_rng(seed * 1000 + k)), src, on_event=on_event)
        holder["b"] = b
        teams = [t.name for t in spec.teams]
        b.run({t: make_policy(policy, seed * 1000 + 10 * k + i) for i, t in enumerate(teams)})
        c["fights"] += 1
        c["rounds"] += b.state.round
    return c


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--policy", default="tactical")
    ap.add_argument("--fights", type=int, default=6)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--scenarios", nargs="*", default=None)
    args = ap.parse_args(argv)
    total: Counter = Counter()
    for name in args.scenarios or bundled_scenarios():
        c = count(name, args.policy, args.fights, args.seed)
        total.update(c)
        print(f"{name:34s} turns {c['turns']:5d}  unsighted {c['unsighted']:4d}  idle {c['idle']:4d}"
              f"  rounds/fight {c['rounds'] / c['fights']:.1f}", flush=True)
    print(f"{'all':34s} turns {total['turns']:5d}  unsighted {total['unsighted']:4d}  idle {total['idle']:4d}")


if __name__ == "__main__":
    main()
