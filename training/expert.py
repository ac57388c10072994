"""Rollout policy iteration (a light expert iteration) over `SkirmishEnv`'s clone and restore.

PPO learns from whole-fight returns and uses neither of the simulator's strengths: cheap
copies of a decision and dice that can be replayed. Each round here (`expert.iterations` in a
training config, after the warm start) does instead:

1. **Play:** the current network plays the agent's side of training maps (its most likely
   action; with `explore`, sometimes a sampled one) against the run's opponents.
2. **Label:** at each of its decisions, its `top_k` most likely actions are the candidates
   (ending the turn only where it is the network's pick, as the planner's candidates).
   Each is played on a restored copy of the decision (`env.restore_state`) and the fight
   goes on for `horizon` rounds with the network playing its side (with `rollout_player:
   advisor`, the env's advisor: the model of play of the planner's rollouts; the env's
   opponent plays the other) before the copy is scored by `agents.planner.evaluate` (health and figures
   standing, +-0.5 for a fight won or lost), and, with `reward_weight`, by the env's rewards
   over the rollout as well (what training pays for: where a draw at the round limit is
   scored as a loss, the planner's estimate alone does not see it). Rollout j gives every candidate the same dice
   (`TurnDice`, keyed by the turn, seeded by (round seed, decision, j)): the candidates are
   compared on the same luck. When the first two rollouts score every candidate alike, the
   choice makes no difference within the horizon and the decision is dropped.
3. **Keep:** every candidate is compared with the network's pick on their paired rollouts
   (`judge`). One within `z` standard errors of the pick gets the pick's value (the dice
   cannot tell them apart); a decision is kept when some candidate differs by more. The
   label is the best by these values, the pick on a tie: the network is overruled only
   where an alternative beats its pick significantly, as the planner's own rule
   (`PlannerPolicy.pick`). A first run kept decisions where the best candidate beat any
   other and labelled the best by its raw mean; it overruled the network on half of them,
   mostly on gaps to its pick that the dice could not tell from noise, and its network fell
   below where it started (docs/results.md, cortex_hu, Rollout policy iteration).
4. **Fit:** the network is refitted on every round's kept decisions (and their mirror
   images), towards the pick and towards softmax(values / `temperature`) over the candidates
   (`training.pretrain.fit`'s soft targets); the next round plays and rolls out with it.
   With `anchor`, the warm start's demonstrations are fitted too (their teacher's picks,
   the kept overrules weighted `overrule_weight` times): a refit on a few hundred decisions
   alone moves the network on every state, not only on those. With `anchor_soft` the warm
   start's decisions are fitted towards the network's whole distribution as it was before the
   first refit (`expert-anchor.npz`), not towards its picks: fitting a network to its own picks
   sharpens it and flips its close calls. With `soft_labels` the kept decisions are fitted by
   their soft targets alone (with `z: 0`, every decision the dice weighed, at its raw means).

The run folder gets `expert.csv` (one row a round: decisions examined, kept, overruled, the
network's fights won while playing, the win rate against each evaluation opponent on
held-out maps, seconds), `expert-demos.npz` (every kept decision so far) and a checkpoint
after every round, so `tactica train --resume` goes on with the next round.

Labelling runs in `workers` processes over fixed chunks of decisions, each seeded from (run
seed, round, chunk): the same config gives the same labels whatever the number of workers.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.planner import TurnDice, evaluate
from training.config import TrainConfig
from training.progress import LogLines, on_terminal
from training.pretrain import Demos

#: decisions one labelling job examines (the unit of work, progress and seeding)
CHUNK = 20


def judge(samples: np.ndarray, z: float) -> tuple[bool, int, np.ndarray]:
    """Compare every candidate with the first (the network's pick) on their paired rollouts.

    `samples` is (candidates, rollouts). A candidate whose mean differs from the pick's by no
    more than `z` standard errors of their paired differences gets the pick's value: the dice
    cannot tell the two apart, so neither is taught over the other. Returns (keep: some
    candidate differs from the pick by more, label: the best candidate by these values, the
    pick on a tie, values)."""
    k, n = samples.shape
    means = samples.mean(axis=1)
    values = means.copy()
    differs = False
    if n < 2:
        return False, 0, values
    for i in range(1, k):
        d = samples[i] - samples[0]
        m = float(d.mean())
        se = float(d.std(ddof=1)) / np.sqrt(n)
        if abs(m) > z * se + 1e-9:
            differs = True
        else:
            values[i] = means[0]
    return differs, int(np.argmax(values)), values


def rollout_values(env, net, cands: list[int], rollouts: int, seed: tuple[int, ...], horizon: int,
                   position_weight: float = 1.0, reward_weight: float = 0.0, advisor: bool = False) -> np.ndarray | None:
    """(candidates, rollouts) scores of each candidate action index on paired dice, from the
    env's current decision (which is left as it was); None when the first two rollouts score
    every candidate alike. A rollout's score: `position_weight` x `evaluate` of its last state
    plus `reward_weight` x the env's rewards summed from the candidate's step on. `advisor`: the
    env's advisor plays the agent's side after the candidate (`expert.rollout_player`)."""
    snap = env.clone_state()
    team = env.agent_team
    s0 = env.battle.state
    stop = (s0.round + horizon, s0.turn_index)
    rs = env.battle.ruleset
    out = np.zeros((len(cands), rollouts))
    for j in range(rollouts):
        for i, c in enumerate(cands):
            got, _ = play_out(env, net, snap, c, (*seed, j), stop, advisor=advisor)
            s = env.battle.state
            out[i, j] = (position_weight * evaluate(rs, s, team) if position_weight else 0.0) + reward_weight * float(got)
        if j == 1 and np.all(out[:, :2] == out[0, :2]):
            env.restore_state(snap)
            return None
    env.restore_state(snap)
    return out


def play_out(env, net, snap, cand: int, seed: tuple[int, ...], stop: tuple[int, int] | None = None,
             cap: int = 200, advisor: bool = False) -> tuple[float, dict]:
    """One rollout from the decision `snap` (`env.clone_state()`): candidate `cand` played on dice
    `TurnDice(seed)`, keyed by the turn, then the network's most likely actions (`advisor`: the
    env's advisor's picks, the advice's row 0, where it has one) until the fight ends, the (round,
    turn index) `stop` is reached (None: no stop) or `cap` more steps are played. (The env's rewards
    summed from the candidate's step on, the last step's info); the env is left where the rollout
    ended."""
    env.restore_state(snap)
    env.battle.dice = TurnDice(env.battle.state, seed)
    obs, got, term, trunc, info = env.step(cand)
    s = env.battle.state
    steps = 0
    while not (term or trunc) and (stop is None or (s.round, s.turn_index) < stop) and steps < cap:
        a = advised(obs, info["action_mask"]) if advisor else None
        if a is None:
            p = net.action_probs({k: v[None] for k, v in obs.items()}, info["action_mask"][None])[0]
            a = int(np.argmax(p))
        obs, r, term, trunc, info = env.step(a)
        got += r
        s = env.battle.state
        steps += 1
    return got, info


def advised(obs: dict, mask: np.ndarray) -> int | None:
    """The env's advisor's pick (the advice's row 0) where it has a legal one, else None."""
    row = obs["advice"][0]
    i = int(np.argmax(row))
    return i if row[i] > 0 and mask[i] else None


def confirmed(env, net, cands: list[int], li: int, ex: dict, seed: tuple[int, ...]) -> tuple[np.ndarray | None, int]:
    """`expert.confirm`: candidate `li`'s overrule of the pick (candidate 0) tested again on
    `ex["confirm"]` fresh paired rollouts (dice seeded by `seed`, which the first test never uses).
    (The candidates' values on these rollouts (`judge`'s) where the same candidate is best again and
    beats the pick by more than `ex["z"]` standard errors, else None; the rollouts played.)"""
    sv = rollout_values(env, net, cands, ex["confirm"], seed, ex["horizon"], ex["position_weight"],
                        ex["reward_weight"], ex.get("rollout_player") == "advisor")
    if sv is None:
        return None, 2 * len(cands)
    differs, best, values = judge(sv, ex["z"])
    return (values if differs and best == li else None), len(cands) * ex["confirm"]


def candidates(p: np.ndarray, mask: np.ndarray, pick: int, ends_turn, top_k: int,
               advised: np.ndarray | None = None) -> list[int]:
    """The actions a decision's rollouts compare: the network's `top_k` most likely legal ones,
    its pick first. As the planner's candidates, ending the turn is never an alternative to
    acting (a one-round horizon does not see what acting sets up), only the pick itself
    (`ends_turn(i)`: whether action i ends the turn).

    `advised` (the advice's row 0, 1 at the advisor's pick; `expert.advisor_candidate`): the
    advisor's pick is compared too where it is not among them, ending the turn included, so
    every decision where the network departs from its advisor is tried against the advisor's
    choice on paired dice, as the planner tries its guide's pick against the alternatives. (On
    635 decisions of cortex's shipped network in its training env, `tactical`'s pick was not a
    candidate at 129, and at 120 of those it was to end the turn where the network acts.)"""
    cands = [int(i) for i in np.argsort(-p, kind="stable")[:top_k + 1]
             if mask[i] and (i == pick or not ends_turn(int(i)))][:top_k]
    if advised is not None and advised.max() > 0:
        a = int(np.argmax(advised))
        if a not in cands and mask[a]:
            cands.append(a)
    return cands


def close_call(p: np.ndarray, mask: np.ndarray, below: float) -> bool:
    """Whether the network's two most likely legal actions are less than `below` apart in probability
    (`expert.close_calls`; 0: every decision counts)."""
    if below <= 0:
        return True
    top = np.sort(p[mask])[::-1]
    return len(top) >= 2 and float(top[0] - top[1]) < below


def label_chunk(args: tuple) -> dict[str, Any]:
    """One job: the network plays fights until it has examined `n` decisions; returns the kept
    ones with their values and the counts."""
    cfg_dict, student, n, seed, ex = args
    from agents.learned import NumpyPolicy
    from envs.skirmish import SkirmishEnv
    from training.config import load_config

    cfg = load_config(cfg_dict)
    env = SkirmishEnv(ruleset=cfg.ruleset, scenario=cfg.scenarios, opponent=cfg.opponents, reward=cfg.reward,
                      map_size=tuple(cfg.map_size), max_enemies=cfg.max_enemies, max_allies=cfg.max_allies,
                      generator={**cfg.generator, "held_out": False}, agent_team=cfg.agent_team,
                      advice=cfg.advice, clock=cfg.clock, advice_parts=cfg.advice_parts, turn_order=cfg.turn_order)
    net = NumpyPolicy(student)
    rng = np.random.default_rng(seed)
    obs_l: dict[str, list] = {}
    masks, acts, rets, eps, vals = [], [], [], [], []
    counts = {"examined": 0, "equal": 0, "kept": 0, "overruled": 0, "unconfirmed": 0, "fights": 0, "won": 0,
              "rollouts": 0}
    gamma = cfg.ppo.gamma
    while counts["examined"] < n:
        obs, info = env.reset(seed=int(rng.integers(0, 2**31 - 1)))
        rewards: list[float] = []
        recorded: list[int] = []
        done = False
        t = 0
        while not done:
            mask = info["action_mask"].astype(bool)
            p = net.action_probs({k: v[None] for k, v in obs.items()}, mask[None])[0]
            pick = int(np.argmax(p))
            play = pick
            if counts["examined"] < n and env.battle.state.actor is not None and close_call(p, mask, ex["close_calls"]):
                cands = candidates(p, mask, pick, lambda i: env._legal[i].kind == "end_turn", ex["top_k"],
                                   obs["advice"][0] if ex["advisor_candidate"] and "advice" in obs else None)
                if len(cands) >= 2:
                    best = None
                    counts["examined"] += 1
                    sv = rollout_values(env, net, cands, ex["rollouts"], (seed, counts["examined"]), ex["horizon"],
                                        ex["position_weight"], ex["reward_weight"], ex.get("rollout_player") == "advisor")
                    counts["rollouts"] += len(cands) * (2 if sv is None else ex["rollouts"])
                    if sv is None:
                        counts["equal"] += 1
                    elif (verdict := judge(sv, ex["z"]))[0]:
                        _, li, means = verdict
                        best = cands[li]
                        if best != pick and ex["confirm"]:
                            again, played = confirmed(env, net, cands, li, ex, (seed, counts["examined"], 1))
                            counts["rollouts"] += played
                            if again is None:
                                counts["unconfirmed"] += 1
                                best = None
                            else:
                                means = again
                    if best is not None:
                        counts["kept"] += 1
                        counts["overruled"] += int(best != pick)
                        for k, v in obs.items():
                            obs_l.setdefault(k, []).append(v)
                        masks.append(mask)
                        acts.append(best)
                        eps.append(counts["fights"])
                        vals.append(dict(zip(cands, means.tolist())))
                        recorded.append(t)
            if ex["explore"] > 0 and rng.random() < ex["explore"]:
                play = int(rng.choice(len(p), p=p))
            obs, r, term, trunc, info = env.step(play)
            rewards.append(float(r))
            done = term or trunc
            t += 1
        g, disc = 0.0, np.zeros(len(rewards))
        for i in range(len(rewards) - 1, -1, -1):
            g = rewards[i] + gamma * g
            disc[i] = g
        rets.extend(disc[recorded].tolist())
        counts["fights"] += 1
        counts["won"] += int(info.get("winner") == env.agent_team)
    n_act = int(env.action_space.n)
    env.close()
    values = np.full((len(acts), n_act), np.nan, dtype=np.float32)
    for i, row in enumerate(vals):
        for j, v in row.items():
            values[i, j] = v
    return {"obs": {k: np.asarray(v) for k, v in obs_l.items()}, "masks": np.asarray(masks, dtype=bool).reshape(-1, n_act),
            "actions": np.asarray(acts, dtype=np.int64), "returns": np.asarray(rets, dtype=np.float32),
            "episode": np.asarray(eps, dtype=np.int64), "values": values, "counts": counts}


def label(cfg: TrainConfig, student: str, round_: int, on_chunk=None) -> tuple[Demos | None, dict[str, int]]:
    """One round's labelling: `cfg.expert.states` decisions of `student` (an exported `.npz`)
    examined in chunks over `cfg.expert.workers` processes; (the kept decisions, or None when
    none was kept; the summed counts). `on_chunk(done, total)` is told each finished chunk."""
    import dataclasses

    ex = dataclasses.asdict(cfg.expert)
    total = ex["states"]
    sizes = [min(CHUNK, total - i) for i in range(0, total, CHUNK)]
    jobs = [(cfg.to_dict(), str(student), m, int(np.random.SeedSequence([cfg.seed, 0xE1, round_, i]).generate_state(1)[0]),
             ex) for i, m in enumerate(sizes)]
    parts: list[dict[str, Any]] = []
    if ex["workers"] <= 1 or len(jobs) == 1:
        for job in jobs:
            parts.append(label_chunk(job))
            if on_chunk:
                on_chunk(len(parts), len(jobs))
    else:
        import multiprocessing as mp
        with mp.get_context("spawn").Pool(min(ex["workers"], len(jobs))) as pool:
            for part in pool.imap(label_chunk, jobs):   # in job order: the result does not depend on timing
                parts.append(part)
                if on_chunk:
                    on_chunk(len(parts), len(jobs))
    counts = {k: sum(p["counts"][k] for p in parts) for k in parts[0]["counts"]}
    kept = [p for p in parts if len(p["actions"])]
    if not kept:
        return None, counts
    first = np.cumsum([0] + [p["counts"]["fights"] for p in kept])
    demos = Demos(obs={k: np.concatenate([p["obs"][k] for p in kept]) for k in kept[0]["obs"]},
                  masks=np.concatenate([p["masks"] for p in kept]), actions=np.concatenate([p["actions"] for p in kept]),
                  returns=np.concatenate([p["returns"] for p in kept]), episodes=counts["fights"], wins=counts["won"],
                  skipped=0, episode=np.concatenate([p["episode"] + first[i] for i, p in enumerate(kept)]),
                  values=np.concatenate([p["values"] for p in kept]))
    return demos, counts


def soft_rows(ex, n_anchor: int, n_kept: int, kept_soft: bool = True) -> np.ndarray | None:
    """The refit's `soft_only` flags for the anchor's `n_anchor` rows followed by `n_kept` kept
    decisions: the anchor's with `ex.anchor_soft`, the kept ones with `ex.soft_labels` (and
    `kept_soft`: False where their soft targets were cleared); None where no row is soft-only."""
    rows = np.r_[np.full(n_anchor, bool(ex.anchor_soft)), np.full(n_kept, bool(ex.soft_labels) and kept_soft)]
    return rows if rows.any() else None


def soft_anchor(model, demos: Demos, temperature: float) -> Demos:
    """`demos` with the policy's own distribution as their soft targets: `values` =
    `temperature` x log p, so that `fit`'s softmax(values / temperature) is p itself (NaN where
    p is 0: a masked action)."""
    import dataclasses

    from training.pretrain import probabilities

    p = probabilities(model, demos).astype(np.float64)
    with np.errstate(divide="ignore"):
        values = np.where(p > 0, float(temperature) * np.log(np.where(p > 0, p, 1.0)), np.nan)
    return dataclasses.replace(demos, values=values.astype(np.float32))


def run_rounds(model, cfg: TrainConfig, run_dir, start: int, save, export, progress: bool = True) -> None:
    """Rounds `start` .. `cfg.expert.iterations - 1` on `model` (a MaskablePPO): label, merge
    with the earlier rounds' kept decisions, refit, then `save(round_done)` (the run's
    checkpoint) and a row of expert.csv. `export(path)` writes the network as an `.npz`."""
    import time
    from pathlib import Path

    import torch

    from training.pretrain import fit, merge, mirrored
    from training.train import _atomic_write, evaluate_win_rate, make_env_fn

    ex = cfg.expert
    run_dir = Path(run_dir)
    say = print if progress else (lambda *a, **k: None)
    store = run_dir / "expert-demos.npz"
    csv_path = run_dir / "expert.csv"
    opps = list(cfg.eval_opponents) if ex.eval_episodes else []
    if not csv_path.exists():
        csv_path.write_text("round,examined,equal,kept,overruled,unconfirmed,fights,won,rollouts,decisions,"
                            + "".join(f"win_rate_vs_{o}," for o in opps) + "seconds\n")
    # a run resumed from before `expert.confirm` keeps its file's columns
    with_unconfirmed = "unconfirmed" in csv_path.read_text().split("\n", 1)[0].split(",")
    layout = make_env_fn(cfg, run_dir, ["random"])().layout if ex.mirror else None
    anchor = None
    if ex.anchor and (run_dir / "demos.npz").exists():
        anchor = Demos.load(run_dir / "demos.npz")
        if ex.anchor_soft:
            kept = run_dir / "expert-anchor.npz"
            if kept.exists():   # a resumed run: the distribution before its first refit
                anchor = Demos.load(kept)
            else:
                anchor = soft_anchor(model, anchor, ex.temperature)
                anchor.save(run_dir / "expert-anchor.tmp.npz")
                (run_dir / "expert-anchor.tmp.npz").replace(kept)
    for k in range(start, ex.iterations):
        t0 = time.perf_counter()
        student = export(run_dir / "expert-student.npz")
        prog = log = None
        if progress and not on_terminal():
            log = LogLines(f"expert round {k + 1}/{ex.iterations} labelling", "decisions")
        elif progress:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
            prog = Progress(TextColumn(f"[bold]expert[/] round {k + 1}/{ex.iterations} labelling"), BarColumn(),
                            MofNCompleteColumn(), TimeRemainingColumn())
            prog.start()
            task = prog.add_task("", total=None)
        try:
            def tick(done, total):
                if prog is not None:
                    prog.update(task, completed=done, total=total)
                elif log is not None:
                    log.update(min(done * CHUNK, ex.states), ex.states)
            new, c = label(cfg, student, k, on_chunk=tick)
        finally:
            if prog is not None:
                prog.stop()
        Path(student).unlink(missing_ok=True)
        say(f"expert: round {k + 1}: {c['examined']} decisions examined in {c['fights']} fights "
            f"(the network won {c['won']}); {c['equal']} made no difference, {c['kept']} kept, "
            f"{c['overruled']} of them overrule the network"
            + (f" ({c['unconfirmed']} more overrules not confirmed on fresh dice)" if ex.confirm else ""), flush=True)
        demos = new
        if store.exists():
            old = Demos.load(store)
            demos = old if new is None else merge(old, new)
        if demos is not None:
            buf = run_dir / "expert-demos.tmp.npz"
            demos.save(buf)
            buf.replace(store)
            fit_set = demos if anchor is None else merge(anchor, demos)
            soft_only = soft_rows(ex, 0 if anchor is None else len(anchor), len(demos))
            if soft_only is not None and ex.mirror:
                soft_only = np.tile(soft_only, 4)   # mirrored: 4 images in order
            torch.set_num_threads(cfg.torch_threads)
            stats = fit(model, mirrored(fit_set, layout) if ex.mirror else fit_set, epochs=ex.epochs,
                        batch_size=ex.batch_size, learning_rate=ex.learning_rate, vf_coef=cfg.ppo.vf_coef,
                        seed=cfg.seed * 1000 + k, value_weight=ex.value_weight, value_temperature=ex.temperature,
                        overrule_weight=ex.overrule_weight, soft_only=soft_only)
            torch.set_num_threads(1)
            say(f"expert: round {k + 1}: refitted on {len(fit_set)} decisions ({len(demos)} kept by the rollouts); "
                f"agrees with the labels on {stats[-1]['accuracy']:.1%}", flush=True)
        save(k + 1)
        rates = [evaluate_win_rate(model, cfg, run_dir, o, ex.eval_episodes, seed=cfg.seed + 7919 * (k + 1))
                 for o in opps]
        for o, wr in zip(opps, rates):
            say(f"expert: round {k + 1}: wins {wr:.1%} of {ex.eval_episodes} held-out fights against {o}", flush=True)
        row = [k + 1, c["examined"], c["equal"], c["kept"], c["overruled"],
               *([c["unconfirmed"]] if with_unconfirmed else []), c["fights"], c["won"], c["rollouts"],
               0 if demos is None else len(demos), *(f"{r:.4f}" for r in rates), round(time.perf_counter() - t0, 1)]
        _atomic_write(csv_path, (csv_path.read_text() + ",".join(str(x) for x in row) + "\n").encode())
