"""A/B speed of two checkouts of Tactica, alternated in one run (issue 30's targets).

Each workload runs in a fresh subprocess with the checkout first on `sys.path`, and
reports the CPU seconds (`time.process_time()`) of its timed part; the checkouts take
turns, `--rounds` times, so both see the same machine load. The figure to read is the
ratio old/new of the summed CPU seconds of the same work.

    git worktree add /tmp/tactica-old 031c02a
    python benchmarks/ab.py --old /tmp/tactica-old --rounds 3 --what tactical,engine,env-random,env-tactical

Workloads (`--what`, comma separated):

- `tactical`: `tactical` against `tactical`, 30 fights of `cortex/warehouse` (target 3);
- `engine`: `random` against `random`, 300 fights of `cortex/warehouse`;
- `env-random`, `env-tactical`: `SkirmishEnv` on `cortex/warehouse`, random masked actions,
  the other side `random` (3,000 steps) or `tactical` (300 steps) (targets 1 and 2);
- `env-advice`: the same env as a training config builds it, `tactical`'s advice and the
  parts of its scores in the observation, the other side `tactical` (300 steps: what every
  cortex training and rollout step pays);
- `learned`: the shipped cortex network (`ppo`, with its `tactical` advice) against `tactical`,
  6 fights of `cortex/warehouse` (what evaluations and `best`'s networks pay);
- `planner`: 16 `planner` decisions on every 4th state of a tactical-vs-tactical
  `cortex/warehouse` fights (target 5: median and 95th percentile);
- `planner-bold`: the same with `planner-bold`, 8 states on one scenario of each ruleset
  (cortex/warehouse, cortex_hu/csarda, cybergeneration/alley_brawl, metalface/scrapyard);
- `network`: the shipped cortex_hu network's forward pass (`NumpyPolicy.action_probs`, one
  observation at a time, one BLAS thread) on the observations of 200 steps of random masked
  play in its own training env, 5 passes (what `ppo`, `selective` and every rollout policy
  iteration decision pay);
- `suggest`: `tactica suggest STATE --policy planner` on a mid-fight `metalface/scrapyard`
  state (tactical against tactical, seed 5, the 30th decision), CPU seconds of the whole
  command (target 5: under 2 CPU s);
- `table`: what a GM waits for at the table: `Session` plans and resolves every decision of a
  fight (the NPCs' and the PCs' advisor's, undoing every 7th and planning it again), the
  default NPCs (`best`) on cortex_hu/csarda and cybergeneration/alley_brawl, `tactical` on
  cortex/warehouse and metalface/scrapyard, 2 seeds each (decisions per CPU s);
- `startup`: `tactica --help` and `tactica simulate -n 1`, wall seconds of the whole
  command (target 6; CPU of a child process is not the process's own).

The same work is done in both checkouts (the same seeds), and each prints a checksum of
what it played, so a run also shows whether the two still play the same fights.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]

_PRELUDE = """
import sys, time, json, hashlib
sys.path.insert(0, {root!r})
"""

WORKLOADS: dict[str, str] = {
    "tactical": """
from evaluation.simulate import check_policies, play_fight
from rules.scenario import load_scenario
spec, src = load_scenario("cortex/warehouse")
pols = check_policies(spec, {"*": "tactical"} if FIRST == "tactical" else
                      {spec.teams[0].name: FIRST, spec.teams[1].name: "tactical"})
play_fight(spec, pols, 1, 999, src)  # warm-up: imports, the map's tables (and a network)
h = hashlib.sha256()
t = time.process_time()
for i in range(N):
    r = play_fight(spec, pols, 1, i, src)
    h.update(f"{r.winner}{r.rounds}{r.actions}".encode())
print(json.dumps({"cpu": time.process_time() - t, "n": N, "unit": "fights", "check": h.hexdigest()[:12]}))
""",
    "engine": """
from evaluation.simulate import check_policies, play_fight
from rules.scenario import load_scenario
spec, src = load_scenario("cortex/warehouse")
pols = check_policies(spec, {"*": "random"})
for i in range(10):
    play_fight(spec, pols, 1, 100000 + i, src)
h = hashlib.sha256(); acts = 0
t = time.process_time()
for i in range(N):
    r = play_fight(spec, pols, 1, i, src)
    acts += r.actions
    h.update(f"{r.winner}{r.rounds}{r.actions}".encode())
print(json.dumps({"cpu": time.process_time() - t, "n": N, "unit": "fights", "actions": acts, "check": h.hexdigest()[:12]}))
""",
    "env-random": """
import numpy as np
from envs.skirmish import SkirmishEnv
env = SkirmishEnv(scenario="cortex/warehouse", opponent=OPP, **ENV_KW)
rng = np.random.default_rng(0)
env.reset(seed=1)
h = hashlib.sha256()
def run(n):
    for _ in range(n):
        a = int(rng.choice(np.flatnonzero(env.action_masks())))
        obs, r, term, trunc, _ = env.step(a)
        for k in sorted(obs):
            h.update(obs[k].tobytes())
        if term or trunc:
            env.reset(seed=int(rng.integers(1 << 31)))
run(max(1, N // 10))
t = time.process_time()
run(N)
print(json.dumps({"cpu": time.process_time() - t, "n": N, "unit": "steps", "check": h.hexdigest()[:12]}))
""",
    "planner": """
import numpy as np
from agents.base import make_policy
from rules.dice import Dice
from rules.scenario import load_scenario, new_battle
states = []
for scen in SCENARIOS:
    spec, src = load_scenario(scen)
    some = []
    fight = 5
    while len(some) < 4 * N:
        b = new_battle(spec, Dice(np.random.default_rng(fight)), src, record=False)
        pols = {tm.name: make_policy("tactical", fight) for tm in spec.teams}
        b.start()
        while not b.state.over and len(some) < 4 * N:
            some.append(b.state.clone())
            b.step(pols[b.state.actor.team].act(b.state, b.state.actor), check=False)
        fight += 1
    states += some[::4][:N]
h = hashlib.sha256(); times = []
t = time.process_time()
for s in states:
    p = make_policy(PLANNER, 3)
    t0 = time.process_time()
    a = p.act(s, s.actor)
    times.append(time.process_time() - t0)
    h.update(repr(a).encode())
times.sort()
print(json.dumps({"cpu": time.process_time() - t, "n": len(states), "unit": "decisions",
                  "median": times[len(times) // 2], "p95": times[min(len(times) - 1, int(0.95 * len(times)))],
                  "check": h.hexdigest()[:12]}))
""",
    "network": """
import numpy as np
from agents.learned import NumpyPolicy, shipped_policy_path, _one_blas_thread
from envs.skirmish import SkirmishEnv
pol = NumpyPolicy(shipped_policy_path("cortex_hu"))
fp = pol.meta["fingerprint"]
# spelled out, not SkirmishEnv.for_policy: the workload also runs in checkouts older than that helper
env = SkirmishEnv(ruleset="cortex_hu", scenario="generated", map_size=(fp["height"], fp["width"]),
                  max_enemies=fp["n_enemy"], max_allies=fp["n_ally"], advice=pol.advice, clock=pol.clock,
                  advice_parts=pol.advice_parts)
rng = np.random.default_rng(0)
obs, _ = env.reset(seed=1)
batch = []
for _ in range(200):
    mask = env.action_masks()
    batch.append(({k: v[None] for k, v in obs.items()}, mask[None]))
    obs, r, term, trunc, _ = env.step(int(rng.choice(np.flatnonzero(mask))))
    if term or trunc:
        obs, _ = env.reset(seed=int(rng.integers(1 << 31)))
h = hashlib.sha256()
with _one_blas_thread():
    for o, m in batch[:20]:
        pol.action_probs(o, m)
    t = time.process_time()
    for _ in range(N):
        for o, m in batch:
            p = pol.action_probs(o, m)
    cpu = time.process_time() - t
    for o, m in batch:
        h.update(pol.action_probs(o, m).tobytes())
print(json.dumps({"cpu": cpu, "n": N * len(batch), "unit": "forwards", "check": h.hexdigest()[:12]}))
""",
    "table": """
from tactica.table import Session
h = hashlib.sha256(); n = 0
def play(scen, npc, seed, count):
    global n
    s = Session.new(scen, seed=seed, npc=npc)
    s.begin(None)
    for _ in range(60):
        if s.state.over:
            break
        p = s.plan()
        h.update(f"{p.action}{p.reason}".encode())
        if count:
            n += 1
        if n % 7 == 0:   # the GM takes a step back and asks again
            s.resolve(p.action)
            s.undo()
            h.update(str(s.plan().action).encode())
        s.resolve(p.action)
play("cortex/warehouse", ["syndicate=tactical"], 99, False)   # warm-up: imports, the map's tables
t = time.process_time()
for seed in range(N):
    for scen, npc in (("cortex/warehouse", ["syndicate=tactical"]), ("metalface/scrapyard", ["gang=tactical"]),
                      ("cortex_hu/csarda", []), ("cybergeneration/alley_brawl", [])):
        play(scen, npc, seed, True)
print(json.dumps({"cpu": time.process_time() - t, "n": n, "unit": "decisions", "check": h.hexdigest()[:12]}))
""",
}

SIZES = {"tactical": 30, "engine": 300, "env-random": 3000, "env-tactical": 300, "env-advice": 300, "learned": 6,
         "planner": 16, "planner-bold": 8, "network": 5, "table": 2}
#: `planner-bold`'s scenarios: one a ruleset
_PLANNER_SCENARIOS = ("cortex/warehouse", "cortex_hu/csarda", "cybergeneration/alley_brawl", "metalface/scrapyard")


_SUGGEST_STATE = """
import numpy as np
from agents.base import make_policy
from rules.dice import Dice
from rules.scenario import load_scenario, new_battle, read_document, resolve_scenario
from rules.serialize import dumps_state
spec, src = load_scenario("metalface/scrapyard")
doc, _ = resolve_scenario("metalface/scrapyard")
b = new_battle(spec, Dice(np.random.default_rng(5)), src, record=True)
pols = {tm.name: make_policy("tactical", 5) for tm in spec.teams}
b.start()
for _ in range(30):
    b.step(pols[b.state.actor.team].act(b.state, b.state.actor), check=False)
open(OUT, "w").write(dumps_state(b, doc))
print(json.dumps({"round": b.state.round}))
"""


def _cli(root: Path, args: list[str]) -> tuple[float, float, str]:
    """(wall s, CPU s of the child, stdout) of `tactica ARGS` run from checkout `root`."""
    import resource
    code = (f"import sys; sys.path.insert(0, {str(root)!r}); sys.argv = ['tactica'] + {args!r}\n"
            "from tactica.cli import main\ntry:\n    main()\nexcept SystemExit:\n    pass\n")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    r = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=False,
                       env={**os.environ, "COLUMNS": "100"})
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, r.stdout


def run_workload(root: Path, what: str, scale: float) -> dict:
    """One workload in a fresh process with `root` first on sys.path; its JSON line."""
    if what == "suggest":
        import hashlib
        import tempfile
        state = Path(tempfile.gettempdir()) / f"tactica-ab-suggest-{abs(hash(str(root)))}.json"
        code = _PRELUDE.format(root=str(root)) + f"OUT = {str(state)!r}\n" + _SUGGEST_STATE
        r = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True)
        if r.returncode != 0:
            raise SystemExit(f"suggest state failed in {root}:\n{r.stderr[-2000:]}")
        wall, cpu, outp = _cli(root, ["suggest", str(state), "--policy", "planner", "--json"])
        try:
            act = json.loads(outp).get("action")
        except ValueError:
            raise SystemExit(f"tactica suggest failed in {root}:\n{outp[-2000:]}")
        return {"cpu": cpu, "n": 1, "unit": "suggests", "wall": wall,
                "check": hashlib.sha256(json.dumps(act, sort_keys=True).encode()).hexdigest()[:12]}
    if what == "startup":
        out = {}
        for name, args in (("help", ["--help"]), ("simulate1", ["simulate", "-n", "1"])):
            code = (f"import sys; sys.path.insert(0, {str(root)!r}); sys.argv = ['tactica'] + {args!r}\n"
                    "from tactica.cli import main\ntry:\n    main()\nexcept SystemExit:\n    pass\n")
            t = time.perf_counter()
            subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, check=False,
                           env={**os.environ, "COLUMNS": "100"})
            out[name] = time.perf_counter() - t
        return {"cpu": out["help"] + out["simulate1"], "n": 1, "unit": "runs", **out, "check": "-"}
    body = WORKLOADS[{"env-tactical": "env-random", "env-advice": "env-random", "learned": "tactical",
                      "planner-bold": "planner"}.get(what, what)]
    n = max(1, int(SIZES[what] * scale))
    opp = "tactical" if what in ("env-tactical", "env-advice") else "random"
    env_kw = {"advice": "tactical", "advice_parts": True} if what == "env-advice" else {}
    first = "ppo" if what == "learned" else "tactical"
    scenarios = list(_PLANNER_SCENARIOS) if what == "planner-bold" else ["cortex/warehouse"]
    planner = "planner-bold" if what == "planner-bold" else "planner"
    code = (_PRELUDE.format(root=str(root)) + f"N = {n}\nOPP = {opp!r}\nENV_KW = {env_kw!r}\nFIRST = {first!r}\n"
            f"SCENARIOS = {scenarios!r}\nPLANNER = {planner!r}\n" + body)
    r = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True,
                       env={**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"})
    if r.returncode != 0:
        raise SystemExit(f"{what} failed in {root}:\n{r.stderr[-2000:]}")
    return json.loads(r.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--old", required=True, help="the other checkout (e.g. a git worktree of the base commit)")
    ap.add_argument("--new", default=str(HERE), help="this checkout by default")
    ap.add_argument("--what", default="tactical,engine,env-random,env-tactical,env-advice,learned,planner,network,"
                                      "suggest,startup")
    ap.add_argument("--rounds", type=int, default=3, help="alternations (old, new) per workload")
    ap.add_argument("--scale", type=float, default=1.0, help="x the default amount of work")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    roots = {"old": Path(args.old).resolve(), "new": Path(args.new).resolve()}
    rows = []
    for what in [w.strip() for w in args.what.split(",") if w.strip()]:
        tot = {"old": [], "new": []}
        for _ in range(args.rounds):
            for side in ("old", "new"):
                tot[side].append(run_workload(roots[side], what, args.scale))
        row = {"what": what, "rounds": args.rounds}
        for side in ("old", "new"):
            runs = tot[side]
            cpu = sum(r["cpu"] for r in runs)
            n = sum(r["n"] for r in runs)
            row[side] = {"cpu": round(cpu, 3), "n": n, "unit": runs[0]["unit"], "per_cpu_s": round(n / cpu, 2),
                         "check": runs[0]["check"]}
            for k in ("median", "p95", "help", "simulate1", "wall"):
                if k in runs[0]:
                    row[side][k] = round(sorted(r[k] for r in runs)[len(runs) // 2], 4)
        row["speedup"] = round(row["old"]["cpu"] / max(row["new"]["cpu"], 1e-9), 2)
        row["same_play"] = row["old"]["check"] == row["new"]["check"]
        rows.append(row)
        if not args.json:
            o, n = row["old"], row["new"]
            print(f"{what:13s} old {o['per_cpu_s']:>10,.1f} {o['unit']}/CPU s   new {n['per_cpu_s']:>10,.1f}"
                  f"   x{row['speedup']:.2f}   same play: {row['same_play']}", flush=True)
    if args.json:
        print(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
