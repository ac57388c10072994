"""Can a value learnt from outcomes replace the planner's rollouts? A one-step lookahead over
`bold`'s candidates, scored by a network trained on bold-versus-tactical fights.

    python experiments/afterstate_value.py --ruleset cortex_hu --maps 300 --fights 20 --eval-maps 32 --eval-fights 10

The planner's edge over its guide comes from rollouts of each candidate (docs/results.md,
cortex_hu): ~18 CPU s a fight, and its picks do not distil into a policy. This is the
learnt alternative, in the manner of TD-Gammon's afterstate values:

1. **Collect.** `bold`, exploring (at a share `--explore` of the decisions where the
   planner would look ahead, a random one of the other candidates), plays `tactical` on
   generated training maps (`--map-seed` on, below the held-out seeds). After each such
   decision the state is recorded from bold's side, with two targets: the planner's own
   score (`agents.planner.evaluate`) after every standing figure has had one more turn
   (the rollouts' horizon), and the same score at the end of the fight.
2. **Fit.** A small network (convolutions over the map, an MLP over the units), trained
   with mean squared error; the epoch with the best score on the last tenth of the fights
   is kept.
3. **Play.** At each decision where the planner would look ahead, every candidate is
   played on `--samples` copies of the state with fresh dice, each copy is scored by the
   network (`--w1` x the one-turn target + (1 - `--w1`) x the final one, numpy only), and
   the best candidate replaces bold's pick when it is better by more than `--margin`.
   Each variant and `bold` itself play the same paired development fights against
   tactical (maps from 5000, as experiments/planner_strength.py plays them).

Training uses torch (a benchmark, not a GM's path); play uses numpy.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import sys
import time
from pathlib import Path

# one BLAS thread a worker: the network's small products on two busy cores ran 4x slower
# with the default threads (and ~50x with torch's too)
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agents.base import Policy  # noqa: E402
from agents.planner import candidates, evaluate  # noqa: E402
from agents.tactical import BoldPolicy, TacticalPolicy  # noqa: E402
from envs.encoding import layout_for  # noqa: E402
from rules.battle import Battle  # noqa: E402
from rules.dice import Dice  # noqa: E402

#: the padded map and slots of the generated maps (training/configs/<ruleset>.yaml)
H, W, N_ENEMY, N_ALLY = 16, 22, 4, 3
N_EXTRA = 8
_LAYOUTS: dict = {}
_SPECS: list = []
_NET: dict = {}
_VARIANTS: dict = {}
#: this worker's looked-ahead decisions and overrules of bold (ValuedBold adds to them)
_STATS = {"looked": 0, "overruled": 0}


def features(rs, state, team: str) -> tuple[np.ndarray, np.ndarray]:
    """The state seen from `team`'s side, whoever acts: the env's neutral observation (map,
    figures, health, the enemies' lines of sight), with the team's own sight in the
    `reachable` channel and the acting figure marked, plus per figure how many opponents
    see it, its mean cover against them and the nearest opponent's distance, and who acts
    next with what economy left."""
    lay = _LAYOUTS.get(rs.name)
    if lay is None:
        lay = _LAYOUTS[rs.name] = layout_for(rs, H, W, N_ENEMY, N_ALLY)
    o = lay.observe(state, None, team)
    grid = o["grid"]
    g = state.grid
    gw, gh = g.width, g.height
    ours = [c for c in state.combatants if c.team == team and not c.down]
    theirs = [c for c in state.combatants if c.team != team and not c.down]
    if ours:
        sight = np.zeros(g.n, dtype=np.float32)
        for c in ours:
            sight += g.visible_row(c.pos)
        grid[12, :gh, :gw] = (sight / len(ours)).reshape(gh, gw)[:H, :W]
    extra = np.zeros(N_EXTRA, dtype=np.float32)
    a = state.actor
    if a is not None and not state.over:
        grid[5, a.pos // gw, a.pos % gw] = 1.0
        extra[0] = float(a.team == team)
        ev = rs.economy(state)
        for i, name in enumerate(lay.econ_names[:4]):
            extra[1 + i] = float(np.clip(ev.get(name, 0.0), -5, 5)) / 5.0
    extra[5] = state.round / max(1, state.round_limit)
    extra[6] = len(ours) / max(1, len(ours) + len(theirs))
    allies, enemies = lay.slots(state, team)
    units = o["units"]
    per = np.zeros((len(units), 4), dtype=np.float32)
    rows = [(i, c) for i, c in enumerate(allies[:1 + N_ALLY])] + \
           [(1 + N_ALLY + i, c) for i, c in enumerate(enemies[:N_ENEMY])]
    for row, c in rows:
        opp = theirs if c.team == team else ours
        if c.down or not opp:
            continue
        seen = [e for e in opp if g.los(e.pos, c.pos)]
        per[row, 0] = len(seen) / len(opp)
        per[row, 1] = float(np.mean([g.cover(c.pos, e.pos) / 4.0 for e in seen])) if seen else 1.0
        per[row, 2] = min(g.chebyshev(c.pos, e.pos) for e in opp) / 20.0
        per[row, 3] = float(state.actor is c)
    return grid.astype(np.float16), np.concatenate([units.ravel(), per.ravel(), extra])


class Explorer(Policy):
    """`bold`, playing a random other candidate at a share of its contested decisions."""

    name = "bold-explore"

    def __init__(self, seed=None, explore: float = 0.25) -> None:
        super().__init__(seed)
        self.bold = BoldPolicy(seed=int(self.rng.integers(1 << 62)))
        self.explore = explore
        self.contested = False

    def act(self, state, actor):
        cands = candidates(self.bold.rank(state, actor))
        pick = cands[0]
        self.contested = len(cands) > 1
        if self.contested and self.rng.random() < self.explore:
            pick = cands[1 + int(self.rng.integers(len(cands) - 1))]
        self.bold.commit(state, actor, pick.action)
        return pick.action


def collect_fight(job: tuple) -> tuple[list, list, list, list, int]:
    """One exploring fight against tactical: the recorded states, their two targets, the result."""
    from evaluation.simulate import fight_streams
    from rules.scenario import new_battle
    spec_idx, index, seed, explore = job
    spec = _SPECS[spec_idx]
    teams = [t.name for t in spec.teams]
    dice_ss, pol_ss = fight_streams(seed, index, 2)
    battle = new_battle(spec, Dice(np.random.default_rng(dice_ss)), record=False)
    rs = battle.ruleset
    me = teams[index % 2]
    ex = Explorer(pol_ss[0], explore)
    pols = {me: ex, teams[1 - index % 2]: TacticalPolicy(seed=pol_ss[1])}
    battle.start()
    s = battle.state
    recs, scores = [], []   # (grid, vec, step, standing); (turn key, score) after each step
    while not s.over and len(scores) < 3000:
        who = s.actor
        battle.step(pols[who.team].act(s, who), check=False)
        scores.append(((s.round, s.turn_index), evaluate(rs, s, me)))
        if who.team == me and ex.contested:
            g, v = features(rs, s, me)
            recs.append((g, v, len(scores) - 1, sum(1 for c in s.combatants if not c.down)))
    final = evaluate(rs, s, me)
    grids, vecs, y1, yf = [], [], [], []
    for g, v, i, standing in recs:
        turns, last, j = 0, scores[i][0], i
        while j + 1 < len(scores):   # one more turn for every standing figure
            if scores[j + 1][0] != last:
                turns += 1
                last = scores[j + 1][0]
                if turns > standing:
                    break
            j += 1
        grids.append(g)
        vecs.append(v)
        y1.append(scores[j][1])
        yf.append(final)
    return grids, vecs, y1, yf, (0 if s.winner is None else 1 if s.winner == me else -1)


# -- the network: torch to fit, numpy to play ---------------------------------------------
def build_net(channels: int, n_vec: int, hidden: int = 32):
    """The value network (torch): convolutions over the map, pooled over its cells (mean
    and max), an MLP over the per-figure vector, two outputs (the one-turn and final targets)."""
    import torch
    import torch.nn as nn

    class VNet(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.c1 = nn.Conv2d(channels, hidden, 3, padding=1)
            self.c2 = nn.Conv2d(hidden, hidden, 3, padding=1)
            self.c3 = nn.Conv2d(hidden, hidden, 3, padding=2, dilation=2)
            self.v = nn.Linear(n_vec, 128)
            self.h1 = nn.Linear(2 * hidden + 128, 128)
            self.h2 = nn.Linear(128, 2)

        def forward(self, g, v):
            r = torch.relu
            z = r(self.c3(r(self.c2(r(self.c1(g))))))
            m = g[:, :1]   # in_map: padding is left out of the pooling
            mean = (z * m).sum((2, 3)) / m.sum((2, 3)).clamp(min=1)
            mx = (z + (m - 1) * 1e4).amax((2, 3))
            return self.h2(r(self.h1(torch.cat([mean, mx, r(self.v(v))], 1))))

    return VNet()


def fit(grid: np.ndarray, vec: np.ndarray, y: np.ndarray, epochs: int, seed: int) -> tuple[dict, list[dict]]:
    """Fit the network; the parameters (numpy) of the epoch best on the held-out tenth, and a log."""
    import torch
    torch.manual_seed(seed)
    net = build_net(grid.shape[1], vec.shape[1])
    opt = torch.optim.Adam(net.parameters(), lr=1e-3, weight_decay=1e-5)
    n = len(grid)
    k = int(n * 0.9)   # fights were collected in order: the last tenth is held out
    gv, vv = torch.from_numpy(grid[k:].astype(np.float32)), torch.from_numpy(vec[k:])
    var = y[k:].var(0)
    best, kept, log = None, None, []
    rng = np.random.default_rng(seed)
    for ep in range(epochs):
        net.train()
        perm = rng.permutation(k)
        for i in range(0, k, 256):
            idx = np.sort(perm[i:i + 256])
            out = net(torch.from_numpy(grid[idx].astype(np.float32)), torch.from_numpy(vec[idx]))
            loss = ((out - torch.from_numpy(y[idx])) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        net.eval()
        with torch.no_grad():
            pred = torch.cat([net(gv[i:i + 1024], vv[i:i + 1024]) for i in range(0, len(gv), 1024)]).numpy()
        mse = ((pred - y[k:]) ** 2).mean(0)
        r2 = 1 - mse / np.maximum(var, 1e-9)
        log.append({"epoch": ep + 1, "r2_one_turn": round(float(r2[0]), 4), "r2_final": round(float(r2[1]), 4)})
        print(f"  epoch {ep + 1}: held-out R2 one turn {r2[0]:.3f}, final {r2[1]:.3f}", flush=True)
        if best is None or mse.sum() < best:
            best = float(mse.sum())
            kept = {k_: t.detach().numpy().copy() for k_, t in net.state_dict().items()}
    return kept, log


def _conv(x: np.ndarray, w: np.ndarray, b: np.ndarray, pad: int, dil: int) -> np.ndarray:
    """A 3 x 3 convolution (stride 1, same size) as one matrix product over the nine shifts."""
    n, c, h, wd = x.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    cols = np.stack([xp[:, :, i * dil:i * dil + h, j * dil:j * dil + wd] for i in range(3) for j in range(3)], 2)
    out = w.reshape(w.shape[0], c * 9) @ cols.reshape(n, c * 9, h * wd)   # weight order: (c, i, j)
    return out.reshape(n, w.shape[0], h, wd) + b[None, :, None, None]


def predict(p: dict, grid: np.ndarray, vec: np.ndarray) -> np.ndarray:
    """The network's two targets for a batch, in numpy."""
    relu = lambda a: np.maximum(a, 0.0)  # noqa: E731
    g = grid.astype(np.float32)
    z = relu(_conv(g, p["c1.weight"], p["c1.bias"], 1, 1))
    z = relu(_conv(z, p["c2.weight"], p["c2.bias"], 1, 1))
    z = relu(_conv(z, p["c3.weight"], p["c3.bias"], 2, 2))
    m = g[:, :1]
    mean = (z * m).sum((2, 3)) / np.maximum(m.sum((2, 3)), 1)
    mx = (z + (m - 1) * 1e4).max((2, 3))
    v = relu(vec @ p["v.weight"].T + p["v.bias"])
    h = relu(np.concatenate([mean, mx, v], 1) @ p["h1.weight"].T + p["h1.bias"])
    return h @ p["h2.weight"].T + p["h2.bias"]


class ValuedBold(Policy):
    """`bold` with a one-step lookahead scored by the learnt value."""

    name = "valued-bold"

    def __init__(self, seed=None, *, margin: float = 0.0, w1: float = 0.0, samples: int = 3) -> None:
        super().__init__(seed)
        self.bold = BoldPolicy(seed=int(self.rng.integers(1 << 62)))
        self.margin, self.w1, self.samples = margin, w1, samples

    def act(self, state, actor):
        cands = candidates(self.bold.rank(state, actor))
        pick = cands[0]
        if len(cands) > 1:
            rs = self.ruleset(state)
            grids, vecs = [], []
            for c in cands:
                for _ in range(self.samples):
                    s = state.clone()
                    Battle(s, rs, Dice(int(self.rng.integers(1 << 62))), record=False).step(c.action, check=False)
                    g, v = features(rs, s, actor.team)
                    grids.append(g)
                    vecs.append(v)
            out = predict(_NET["params"], np.stack(grids), np.stack(vecs))
            val = (self.w1 * out[:, 0] + (1 - self.w1) * out[:, 1]).reshape(len(cands), self.samples).mean(1)
            i = int(np.argmax(val))
            _STATS["looked"] += 1
            if i != 0 and val[i] - val[0] > self.margin:
                pick = cands[i]
                _STATS["overruled"] += 1
        self.bold.commit(state, actor, pick.action)
        return pick.action


def _play(job: tuple) -> tuple[str, str | None, float, int, int]:
    from functools import partial

    from agents.base import register_policy
    from evaluation.simulate import play_fight
    name, spec_idx, k, seed = job
    register_policy(name, BoldPolicy if name == "bold" else partial(ValuedBold, **_VARIANTS[name]))
    spec = _SPECS[spec_idx]
    teams = [t.name for t in spec.teams]
    me = k % 2
    t0 = time.process_time()
    before = dict(_STATS)
    r = play_fight(spec, {teams[me]: name, teams[1 - me]: "tactical"}, seed, k // 2)
    won = None if r.winner is None else ("win" if r.winner == teams[me] else "loss")
    return (name, won, time.process_time() - t0, _STATS["looked"] - before["looked"],
            _STATS["overruled"] - before["overruled"])


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ruleset", default="cortex_hu")
    ap.add_argument("--maps", type=int, default=300, help="training maps to collect on")
    ap.add_argument("--map-seed", type=int, default=100)
    ap.add_argument("--fights", type=int, default=20, help="fights per training map")
    ap.add_argument("--explore", type=float, default=0.25)
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--eval-maps", type=int, default=32)
    ap.add_argument("--eval-map-seed", type=int, default=5000)
    ap.add_argument("--eval-fights", type=int, default=10, help="paired fights per development map")
    ap.add_argument("--variant", action="append", default=[],
                    help='NAME=JSON ValuedBold settings (margin, w1, samples); default: v0=\'{"margin":0}\'')
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--save", default="", help="write the fitted network (.npz) here")
    ap.add_argument("--load", default="", help="play with a saved network instead of collecting and fitting")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)

    from envs.generators import HELDOUT_SEED, generate_scenario
    from evaluation.stats import wilson
    from rules.scenario import load_scenario
    if args.map_seed + args.maps > HELDOUT_SEED:
        raise SystemExit(f"--map-seed: training maps must stay below the held-out seeds ({HELDOUT_SEED})")
    report: dict = {"ruleset": args.ruleset}
    if args.load:
        try:
            with np.load(args.load) as f:
                _NET["params"] = {k: f[k] for k in f.files}
        except (OSError, ValueError) as e:
            raise SystemExit(f"--load {args.load}: not a saved network ({e})")
        want = {f"{layer}.{kind}" for layer in ("c1", "c2", "c3", "v", "h1", "h2") for kind in ("weight", "bias")}
        if set(_NET["params"]) != want:
            raise SystemExit(f"--load {args.load}: not a saved network (arrays {sorted(_NET['params'])}, "
                             f"expected {sorted(want)})")
        report["loaded"] = args.load
    else:
        t0 = time.time()
        _SPECS[:] = [load_scenario(generate_scenario(args.ruleset, args.map_seed + i, mirrored=True))[0]
                     for i in range(args.maps)]
        grids, vecs, ys, results = [], [], [], []
        jobs = [(i, k, args.seed, args.explore) for i in range(args.maps) for k in range(args.fights)]
        with mp.get_context("fork").Pool(args.workers) as pool:   # imap keeps the fights in order
            for g, v, y1, yf, won in pool.imap(collect_fight, jobs, chunksize=4):
                grids += g
                vecs += v
                ys += list(zip(y1, yf))
                results.append(won)
                if len(results) % 1000 == 0:
                    print(f"  {len(results)} of {len(jobs)} fights, {len(grids)} states ({time.time() - t0:.0f} s)",
                          flush=True)
        res = np.array(results)
        report.update({"fights": len(res), "states": len(grids),
                       "explorer_won": float((res == 1).mean()), "explorer_lost": float((res == -1).mean()),
                       "collect_s": round(time.time() - t0, 1)})
        print(f"collected {len(grids)} states from {len(res)} fights (explorer won {report['explorer_won']:.1%}) "
              f"in {report['collect_s']:.0f} s", flush=True)
        t1 = time.time()
        _NET["params"], report["fit"] = fit(np.stack(grids), np.stack(vecs), np.array(ys, dtype=np.float32),
                                            args.epochs, args.seed)
        del grids, vecs
        report["fit_s"] = round(time.time() - t1, 1)
        if args.save:
            np.savez(args.save, **_NET["params"])
            print(f"saved the network to {args.save}", flush=True)
    for v in args.variant or ['v0={"margin":0}']:
        name, _, kw = v.partition("=")
        try:   # bad settings fail here, before any fight
            _VARIANTS[name] = json.loads(kw or "{}")
            ValuedBold(**_VARIANTS[name])
        except (ValueError, TypeError) as e:
            raise SystemExit(f"--variant {v}: expected NAME=JSON with some of margin, w1, samples ({e})")
    _SPECS[:] = [load_scenario(generate_scenario(args.ruleset, args.eval_map_seed + i, mirrored=True))[0]
                 for i in range(args.eval_maps)]
    names = ["bold", *_VARIANTS]
    jobs = [(n, i, k, args.seed) for n in names for i in range(args.eval_maps) for k in range(args.eval_fights)]
    tally = {n: {"win": 0, "loss": 0, "draw": 0, "cpu": 0.0, "looked": 0, "overruled": 0} for n in names}
    per_variant = args.eval_maps * args.eval_fights
    report["play"] = {}
    with mp.get_context("fork").Pool(args.workers) as pool:
        for name, won, cpu, looked, overruled in pool.imap_unordered(_play, jobs, chunksize=2):
            t = tally[name]
            t[won or "draw"] += 1
            t["cpu"] += cpu
            t["looked"] += looked
            t["overruled"] += overruled
            if t["win"] + t["loss"] + t["draw"] < per_variant:
                continue
            lo, hi = wilson(t["win"], per_variant)   # a variant's line as soon as its fights are done
            report["play"][name] = {"won": t["win"], "lost": t["loss"], "drawn": t["draw"],
                                    "win_rate": t["win"] / per_variant, "wilson": [lo, hi],
                                    "cpu_s_per_fight": t["cpu"] / per_variant, "settings": _VARIANTS.get(name, {}),
                                    "looked_ahead": t["looked"], "overruled": t["overruled"]}
            over = f", overruled bold on {t['overruled']} of {t['looked']} decisions" if t["looked"] else ""
            print(f"  {name:>10}: {t['win']}-{t['loss']} ({t['draw']} draws) win {t['win'] / per_variant:.1%} "
                  f"[{lo:.1%}, {hi:.1%}] {t['cpu'] / per_variant:.2f} CPU s/fight{over} {_VARIANTS.get(name, '')}",
                  flush=True)
    if args.json:
        print(json.dumps(report))
    return report


if __name__ == "__main__":
    main()
