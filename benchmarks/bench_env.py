"""Environment steps per second against MiniGrid, and the cost of one policy decision.

    python benchmarks/bench_env.py --steps 20000 --decisions 200
    python benchmarks/bench_env.py --steps 20000 --decisions 0 --rulesets cortex,cortex_hu,metalface,cybergeneration
    python benchmarks/bench_env.py --steps 20000 --decisions 0 --no-tactical --option-cost turn_order

Three measurements, in one process, one after the other, each timed with
`time.process_time()` (CPU seconds of this process, so another job on the machine
changes them less than wall time would):

1. `SkirmishEnv` on `cortex/warehouse` (or each ruleset's default env, `--rulesets`,
   `DEFAULT_SCENARIOS`) with random *masked* actions for the agent team,
   the other team played inside `step` by `random` (its turns are part of every step),
   against `MiniGrid-DoorKey-8x8-v0` with random actions; both reset on episode end.
   The two envs alternate in blocks so both see the same machine load; the ratio
   Tactica / MiniGrid is the figure to compare between runs.
2. The same `SkirmishEnv` with the default opponent (`tactical`), for the cost of the
   opponent's decisions inside `step`.
3. One `tactical` and one `planner` decision: the median and mean CPU seconds of `act`
   over states met in warehouse fights (tactical against tactical, seeded).

With `--option-cost NAME`, a row more: the cost of an optional observation (`turn_order`, `clock`):
`SkirmishEnv` on `cortex/warehouse` with and without `NAME=True`, random masked actions and a
random opponent, alternated in blocks in this process.

Prints Markdown rows. MiniGrid is the `bench` extra (`pip install -e ".[bench]"`); without
it the MiniGrid row says so and the rest still runs.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402


def env_rate(env, steps: int, rng: np.random.Generator, masked: bool) -> tuple[int, float, int]:
    """(steps, CPU seconds, episodes) of random play for `steps` steps."""
    env.reset(seed=int(rng.integers(1 << 31)))
    episodes = 0
    t0 = time.process_time()
    for _ in range(steps):
        if masked:
            mask = env.unwrapped.action_masks()
            a = int(rng.choice(np.flatnonzero(mask)))
        else:
            a = int(env.action_space.sample())
        _, _, term, trunc, _ = env.step(a)
        if term or trunc:
            episodes += 1
            env.reset(seed=int(rng.integers(1 << 31)))
    return steps, time.process_time() - t0, episodes


#: each ruleset's default env: the scenario of its registered id `tactica/<Scenario>-vN`
#: that the benchmarks use (cortex's is the CLI's default scenario)
DEFAULT_SCENARIOS = {"cortex": "cortex/warehouse", "cortex_hu": "cortex_hu/csarda",
                     "metalface": "metalface/foundry", "cybergeneration": "cybergeneration/alley_brawl"}


def compare_minigrid(steps: int, blocks: int, seed: int, opponent: str = "random",
                     scenario: str = "cortex/warehouse") -> dict:
    from envs.skirmish import SkirmishEnv
    rng = np.random.default_rng(seed)
    ours = SkirmishEnv(scenario=scenario, opponent=opponent)
    try:
        import gymnasium as gym
        import minigrid  # noqa: F401  (registers the MiniGrid ids)
        theirs = gym.make("MiniGrid-DoorKey-8x8-v0")
        theirs.action_space.seed(seed)
    except ImportError:
        theirs = None
    tot = {"ours": [0, 0.0, 0], "minigrid": [0, 0.0, 0]}
    per = max(1, steps // blocks)
    for _ in range(blocks):
        for name, env, masked in (("ours", ours, True), ("minigrid", theirs, False)):
            if env is None:
                continue
            n, cpu, eps = env_rate(env, per, rng, masked)
            t = tot[name]
            t[0] += n
            t[1] += cpu
            t[2] += eps
    out = {"scenario": scenario, "opponent": opponent, "ours_steps": tot["ours"][0], "ours_cpu": tot["ours"][1],
           "ours_rate": tot["ours"][0] / max(tot["ours"][1], 1e-9), "ours_episodes": tot["ours"][2]}
    if theirs is not None:
        out.update(minigrid_steps=tot["minigrid"][0], minigrid_cpu=tot["minigrid"][1],
                   minigrid_rate=tot["minigrid"][0] / max(tot["minigrid"][1], 1e-9))
        out["ratio"] = out["ours_rate"] / out["minigrid_rate"]
    return out


def option_cost(option: str, steps: int, blocks: int, seed: int, scenario: str = "cortex/warehouse") -> dict:
    """Steps per CPU second of `SkirmishEnv` without and with the boolean option `option`
    (random masked actions, random opponent), alternated in `blocks` blocks on the same dice."""
    from envs.skirmish import SkirmishEnv
    envs = {False: SkirmishEnv(scenario=scenario, opponent="random"),
            True: SkirmishEnv(scenario=scenario, opponent="random", **{option: True})}
    tot = {False: [0, 0.0], True: [0, 0.0]}
    per = max(1, steps // blocks)
    for b in range(blocks):
        for on in ((False, True) if b % 2 == 0 else (True, False)):
            n, cpu, _ = env_rate(envs[on], per, np.random.default_rng(seed + b), True)
            tot[on][0] += n
            tot[on][1] += cpu
    rate = {on: n / max(cpu, 1e-9) for on, (n, cpu) in tot.items()}
    return {"option": option, "scenario": scenario, "steps": tot[True][0], "without": rate[False], "with": rate[True],
            "ratio": rate[True] / rate[False]}


def decision_times(policy: str, decisions: int, seed: int) -> dict:
    """CPU seconds of `policy.act` over states of seeded tactical-vs-tactical warehouse fights."""
    from agents.base import make_policy
    from rules.scenario import load_scenario, new_battle
    spec, _ = load_scenario("cortex/warehouse")
    times: list[float] = []
    fight = 0
    while len(times) < decisions:
        b = new_battle(spec, seed=seed * 100_000 + fight, record=False)
        b.start()
        s = b.state
        drivers = {t: make_policy("tactical", np.random.SeedSequence([seed, fight, i])) for i, t in enumerate(s.teams)}
        probe = make_policy(policy, np.random.SeedSequence([seed, fight, 99]))
        while not s.over and len(times) < decisions:
            actor = s.actor
            t0 = time.process_time()
            probe.act(s, actor)
            times.append(time.process_time() - t0)
            b.step(drivers[actor.team].act(s, actor), check=False)
        fight += 1
    return {"policy": policy, "decisions": len(times), "median_ms": 1000 * statistics.median(times),
            "mean_ms": 1000 * statistics.fmean(times), "max_ms": 1000 * max(times)}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=20_000, help="env steps per env (split into blocks)")
    ap.add_argument("--blocks", type=int, default=10, help="alternating blocks of the two envs")
    ap.add_argument("--decisions", type=int, default=200, help="decisions timed per policy")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--rulesets", default="cortex",
                    help="comma-separated rulesets whose default env is measured with the random "
                         "opponent, or all (cortex,cortex_hu,metalface,cybergeneration)")
    ap.add_argument("--no-tactical", action="store_true", help="skip the tactical-opponent row")
    ap.add_argument("--option-cost", default="", choices=("", "turn_order", "clock"),
                    help="also time cortex/warehouse with and without this observation option")
    args = ap.parse_args(argv)
    cmd = "python benchmarks/bench_env.py " + " ".join(argv if argv is not None else sys.argv[1:])
    date = time.strftime("%Y-%m-%d")

    print("| date | command | env | opponent | steps | CPU s | steps/CPU s | MiniGrid steps/CPU s | ratio |")
    print("|---|---|---|---|---:|---:|---:|---:|---:|")
    names = list(DEFAULT_SCENARIOS) if args.rulesets.strip() == "all" else \
        [rs.strip() for rs in args.rulesets.split(",") if rs.strip()]
    unknown = [rs for rs in names if rs not in DEFAULT_SCENARIOS]
    if unknown:
        ap.error(f"--rulesets: unknown ruleset {', '.join(unknown)}; expected all or some of "
                 + ",".join(DEFAULT_SCENARIOS))
    runs = [(DEFAULT_SCENARIOS[rs], "random") for rs in names]
    if not args.no_tactical:
        runs.append(("cortex/warehouse", "tactical"))
    for scen, opp in runs:
        steps = args.steps if opp == "random" else max(1, args.steps // 10)
        r = compare_minigrid(steps, args.blocks, args.seed, opp, scen)
        mg = f"{r['minigrid_rate']:,.0f}" if "minigrid_rate" in r else "(minigrid not installed)"
        ratio = f"{r['ratio']:.2f}x" if "ratio" in r else "-"
        print(f"| {date} | `{cmd}` | {scen} | {opp} | {r['ours_steps']} | {r['ours_cpu']:.2f} | "
              f"{r['ours_rate']:,.0f} | {mg} | {ratio} |", flush=True)
    if args.option_cost:
        c = option_cost(args.option_cost, args.steps, args.blocks, args.seed)
        print()
        print("| date | command | env | option | steps each | steps/CPU s without | with | ratio |")
        print("|---|---|---|---|---:|---:|---:|---:|")
        print(f"| {date} | `{cmd}` | {c['scenario']} | {c['option']} | {c['steps']} | {c['without']:,.0f} | "
              f"{c['with']:,.0f} | x{c['ratio']:.3f} |", flush=True)
    if args.decisions <= 0:   # `--decisions 0`: the env rows only
        return
    print()
    print("| date | command | policy | decisions | median ms | mean ms | max ms |")
    print("|---|---|---|---:|---:|---:|---:|")
    for pol in ("tactical", "planner"):
        n = args.decisions if pol == "tactical" else max(1, args.decisions // 4)
        d = decision_times(pol, n, args.seed)
        print(f"| {date} | `{cmd}` | {pol} | {d['decisions']} | {d['median_ms']:.1f} | {d['mean_ms']:.1f} | "
              f"{d['max_ms']:.1f} |")


if __name__ == "__main__":
    main()
