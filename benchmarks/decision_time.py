"""Decision time of a policy, per ruleset: the median and 95th percentile CPU seconds of one `act`.

For each ruleset, the policy plays `--fights` seeded fights against `tactical` on that
ruleset's bundled scenarios (taken in turn), or on generated maps (`--maps generated`:
`envs.generators.generate_scenario` with seeds 1,000,000 + i, as `tactica evaluate`'s); the
policy takes the first team in even fights and the second in odd ones, and every one of its decisions is timed with `time.process_time()`
(its own CPU time only; the opponent's and the engine's are not counted). A warm-up decision
on each scenario (imports, the map's tables, the learned policy's file) is not counted.
Prints one Markdown row per ruleset; these numbers fill `agents/best.py`'s `BEST` table,
which decides whether `best` is the autopilot's and the server's default NPC
(`agents.base.default_policy`; docs/benchmarks.md).

    PYTHONPATH=$PWD python benchmarks/decision_time.py --policy best --fights 4
    PYTHONPATH=$PWD python benchmarks/decision_time.py --policy best --fights 4 --maps generated
    PYTHONPATH=$PWD python benchmarks/decision_time.py --policy planner-bold --ruleset cortex_hu --fights 2
    PYTHONPATH=$PWD python benchmarks/decision_time.py --policy planner-net --ruleset cortex --fights 2 --team-size 6

`--team-size N` plays generated maps with N figures a side (`--size`, default 20x14, the
same map size for every team size): how a search player's decision time grows with the
fight, which sets `BestEntry.max_figures` (agents/best.py).
"""

from __future__ import annotations

import argparse
import time
from importlib import resources
from pathlib import Path

import numpy as np

RULESETS = ("cortex", "cortex_hu", "metalface", "cybergeneration")


def bundled(ruleset: str) -> list[str]:
    """The bundled scenarios of a ruleset, as `ruleset/name`."""
    folder = Path(str(resources.files("tactica"))) / "scenarios" / ruleset
    return sorted(f"{ruleset}/{p.stem}" for p in folder.glob("*.yaml"))


def percentile(xs: list[float], q: float) -> float:
    """The `q` quantile of `xs` (linear interpolation, as numpy's default)."""
    return float(np.quantile(np.asarray(xs, dtype=float), q)) if xs else float("nan")


def time_decisions(ruleset: str, policy: str, fights: int, seed: int = 0, opponent: str = "tactical",
                   maps: str = "bundled", team_size: int | None = None,
                   size: tuple[int, int] = (20, 14)) -> tuple[list[float], str]:
    """CPU seconds of each decision `policy` made in `fights` fights, and the player it played
    as (`best`'s delegate, else the name). `team_size`: generated maps of `size` (width,
    height) with that many figures a side."""
    from agents.base import make_policy
    from evaluation.simulate import fight_streams
    from rules.dice import Dice
    from rules.scenario import load_scenario, new_battle

    times: list[float] = []
    player = policy
    scenarios = bundled(ruleset)
    warmed: set[str] = set()
    for i in range(fights):
        if team_size is not None:
            from envs.generators import generate_scenario
            spec, src = load_scenario(generate_scenario(ruleset, 1_000_000 + i, team_size=team_size,
                                                        width=size[0], height=size[1]))
        elif maps == "generated":
            from envs.generators import generate_scenario
            spec, src = load_scenario(generate_scenario(ruleset, 1_000_000 + i))
        else:
            spec, src = load_scenario(scenarios[i % len(scenarios)])
        teams = [t.name for t in spec.teams]
        dice_ss, pol_ss = fight_streams(seed, i, len(teams))
        battle = new_battle(spec, Dice(np.random.default_rng(dice_ss)), src)
        mine = teams[i % 2]
        pols = {t: make_policy(policy if t == mine else opponent, pol_ss[k]) for k, t in enumerate(teams)}
        # not counted: imports, the map's tables, a policy file
        if maps == "generated" or team_size is not None or spec.name not in warmed:
            battle.start()
            make_policy(policy, 12345).act(battle.state.clone(), battle.state.actor)
            warmed.add(spec.name)
        p = pols[mine]
        act = p.act

        def timed(state, actor, act=act):
            t = time.process_time()
            a = act(state, actor)
            times.append(time.process_time() - t)
            return a

        p.act = timed
        battle.run(pols)
        player = getattr(p, "player", "") or policy
    return times, player


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--policy", default="best")
    ap.add_argument("--ruleset", action="append", choices=RULESETS, help="repeatable (default: all four)")
    ap.add_argument("--fights", type=int, default=4, help="fights per ruleset")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--opponent", default="tactical")
    ap.add_argument("--maps", choices=("bundled", "generated"), default="bundled")
    ap.add_argument("--team-size", type=int, default=None,
                    help="generated maps with this many figures a side (of --size)")
    ap.add_argument("--size", default="20x14", help="WxH of the --team-size maps")
    a = ap.parse_args(argv)
    w, _, h = a.size.partition("x")
    size = (int(w), int(h))
    maps = a.maps if a.team_size is None else f"generated {a.size}, {a.team_size} a side"
    print("| ruleset | policy (plays as) | maps | fights | decisions | median s | p95 s | max s | CPU s |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|")
    for rs in a.ruleset or RULESETS:
        xs, player = time_decisions(rs, a.policy, a.fights, a.seed, a.opponent, a.maps, a.team_size, size)
        print(f"| {rs} | {a.policy} ({player}) | {maps} | {a.fights} | {len(xs)} | {percentile(xs, 0.5):.3f} | "
              f"{percentile(xs, 0.95):.3f} | {max(xs, default=float('nan')):.3f} | {sum(xs):.1f} |", flush=True)


if __name__ == "__main__":
    main()
