"""Warm start by behaviour cloning: the policy first imitates a scripted teacher.

Plain PPO from random weights learns slowly here: the action space holds a move for every
cell of the map, and a random policy rarely wins a fight against `tactical` to learn from
(measured: 7.5% / 17.5% / 22.5% against `tactical` after 50k / 100k / 150k steps on
cortex, docs/results.md). So a run can start with a supervised stage:

1. `collect`: the teacher (`tactical` by default) plays the agent's side of training maps
   (never the held-out ones) against the run's opponents, in worker processes; every
   decision is recorded as (observation, legal-action mask, the teacher's action index),
   and every step's reward, so each decision also gets its discounted return.
2. `fit`: the actor is trained to give the teacher's action the highest probability
   (cross-entropy over the masked distribution, sb3-contrib's `evaluate_actions`) and the
   critic to predict the returns (mean squared error), for a few epochs.

PPO then fine-tunes from there and can learn to exploit the teacher's habits. Decisions the
action layout cannot express (an option outside its slots) are played by the teacher but not
recorded. Collection is seeded per worker from the run's seed: the same config gives the
same demonstrations whatever the number of workers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from training.config import TrainConfig


@dataclass
class Demos:
    obs: dict[str, np.ndarray]
    masks: np.ndarray
    actions: np.ndarray
    returns: np.ndarray
    episodes: int
    wins: int
    skipped: int
    #: the fight each decision comes from (0 .. episodes - 1), so a validation split keeps fights whole
    episode: np.ndarray | None = None
    #: (n, n_actions) the teacher's value of each action it weighed (a planner's rollout means), NaN
    #: for the others; None when the teacher gives none
    values: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.actions)

    def save(self, path) -> None:
        """Write the demonstrations to an `.npz` (plain arrays), so a refit needs no new collection."""
        arrays = {f"obs.{k}": v for k, v in self.obs.items()}
        if self.episode is not None:
            arrays["episode"] = self.episode
        if self.values is not None:
            arrays["values"] = self.values
        np.savez_compressed(path, masks=self.masks, actions=self.actions, returns=self.returns,
                            counts=np.array([self.episodes, self.wins, self.skipped]), **arrays)

    @classmethod
    def load(cls, path) -> "Demos":
        with np.load(path, allow_pickle=False) as z:
            e, w, s = (int(x) for x in z["counts"])
            return cls(obs={k[4:]: z[k] for k in z.files if k.startswith("obs.")}, masks=z["masks"],
                       actions=z["actions"], returns=z["returns"], episodes=e, wins=w, skipped=s,
                       episode=z["episode"] if "episode" in z.files else None,
                       values=z["values"] if "values" in z.files else None)

    def subset(self, idx: np.ndarray) -> "Demos":
        """The decisions at `idx` (the counts of fights and wins are not split: they stay 0)."""
        return Demos(obs={k: v[idx] for k, v in self.obs.items()}, masks=self.masks[idx],
                     actions=self.actions[idx], returns=self.returns[idx], episodes=0, wins=0, skipped=0,
                     episode=None if self.episode is None else self.episode[idx],
                     values=None if self.values is None else self.values[idx])

    def split(self, share: float, seed: int = 0) -> tuple["Demos", "Demos"]:
        """(fit, held out): `share` of the fights, drawn with `seed`, held out whole (without
        fight ids, the last `share` of the decisions)."""
        n = len(self)
        if self.episode is None:
            cut = n - int(round(n * share))
            return self.subset(np.arange(cut)), self.subset(np.arange(cut, n))
        ids = np.unique(self.episode)
        k = int(round(len(ids) * share))
        held = np.random.default_rng([int(seed), 0x5E7]).choice(ids, size=k, replace=False) if k else ids[:0]
        out = np.isin(self.episode, held)
        return self.subset(np.flatnonzero(~out)), self.subset(np.flatnonzero(out))


def _collect_part(args: tuple) -> dict[str, Any]:
    cfg_dict, teacher, opponents, n_samples, seed, gamma, learner, teacher_share = args
    from agents.base import make_policy
    from agents.learned import NumpyPolicy
    from envs.skirmish import SkirmishEnv
    from training.config import load_config

    cfg = load_config(cfg_dict)
    env = SkirmishEnv(ruleset=cfg.ruleset, scenario=cfg.scenarios, opponent=opponents, reward=cfg.reward,
                      map_size=tuple(cfg.map_size), max_enemies=cfg.max_enemies, max_allies=cfg.max_allies,
                      generator={**cfg.generator, "held_out": False},
                      agent_team=cfg.agent_team, advice=cfg.advice, clock=cfg.clock,
                      advice_parts=cfg.advice_parts, turn_order=cfg.turn_order)
    rng = np.random.default_rng(seed)
    student = NumpyPolicy(learner) if learner else None
    mix = np.random.default_rng([int(seed), 0xDA6])   # its own stream: the fights' seeds stay the teacher's
    obs_l: dict[str, list] = {}
    masks, acts, rets, eps, vals = [], [], [], [], []
    episodes = wins = skipped = 0
    ep = 0
    while len(acts) < n_samples:
        obs, info = env.reset(seed=int(rng.integers(0, 2**31 - 1)))
        pol = make_policy(teacher, int(rng.integers(0, 2**63 - 1)))
        rewards: list[float] = []
        recorded: list[int] = []   # step index of each recorded sample in this episode
        done = False
        t = 0
        while not done:
            s = env.battle.state
            mask = info["action_mask"].astype(bool)
            idx = weighed = None
            if not s.over and s.actor is not None and s.actor.team == env.agent_team:
                if env.advice == teacher and env.advice_pick is not None:
                    # the env's advisor is this teacher with the same memory (it is told every action
                    # played): its pick is the teacher's decision, at half the cost
                    a = env.advice_pick
                else:
                    a = pol.act(s, s.actor)
                inv = {act: i for i, act in env._legal.items()}
                idx = inv.get(a)
                weighed = getattr(pol, "last_values", None) if a is getattr(pol, "last_action", None) else None
            if idx is None:
                skipped += int(not s.over)
                idx = int(rng.choice(np.flatnonzero(mask)))
                play = idx   # not a teacher decision: nothing to record, nothing for the student
            else:
                for k, v in obs.items():
                    obs_l.setdefault(k, []).append(v)
                masks.append(mask)
                acts.append(idx)
                eps.append(ep)
                if weighed:   # kept sparse: a scripted teacher weighs nothing
                    vals.append((len(acts) - 1, {inv[act]: v for act, v in weighed.items() if act in inv}))
                recorded.append(t)
                play = idx
                if student is not None and mix.random() >= teacher_share:
                    # DAgger: the student drives (its most likely action, as when deployed), the teacher
                    # only labels the state the student led to
                    p = student.action_probs({k: v[None] for k, v in obs.items()}, mask[None])[0]
                    play = int(np.argmax(p))
            obs, r, term, trunc, info = env.step(play)
            rewards.append(float(r))
            done = term or trunc
            t += 1
        g = 0.0
        disc = np.zeros(len(rewards))
        for i in range(len(rewards) - 1, -1, -1):
            g = rewards[i] + gamma * g
            disc[i] = g
        rets.extend(disc[recorded].tolist())
        episodes += 1
        wins += int(info.get("winner") == env.agent_team)
        ep += 1
    env.close()
    return {"obs": {k: np.asarray(v) for k, v in obs_l.items()}, "masks": np.asarray(masks),
            "actions": np.asarray(acts, dtype=np.int64), "returns": np.asarray(rets, dtype=np.float32),
            "episode": np.asarray(eps, dtype=np.int64), "values": vals, "n_actions": int(env.action_space.n),
            "episodes": episodes, "wins": wins, "skipped": skipped}


def collect(cfg: TrainConfig, samples: int, teacher: str = "tactical", opponents: list[str] | None = None,
            workers: int = 1, seed: int = 0, learner: str | None = None, teacher_share: float = 1.0) -> Demos:
    """`samples` teacher decisions (at least; whole episodes) on training maps.

    With `learner` (an exported `.npz`), a DAgger round: at each of the agent's decisions the
    teacher's choice is recorded, but the learner's most likely action is played, except with
    probability `teacher_share`. The demonstrations then cover the states the learner's own
    mistakes lead to, which a teacher's fights never visit."""
    opponents = list(opponents or cfg.opponents)
    opponents = [o for o in opponents if o != "self"] or ["tactical"]
    parts_n = max(1, int(workers))
    per = [samples // parts_n + (1 if i < samples % parts_n else 0) for i in range(parts_n)]
    ss = np.random.SeedSequence([int(seed), 0xB0C]).spawn(parts_n)
    jobs = [(cfg.to_dict(), teacher, opponents, per[i], int(ss[i].generate_state(1)[0]), cfg.ppo.gamma,
             str(learner) if learner else None, float(teacher_share)) for i in range(parts_n)]
    if parts_n == 1:
        parts = [_collect_part(jobs[0])]
    else:
        import multiprocessing as mp
        with mp.get_context("spawn").Pool(parts_n) as pool:
            parts = pool.map(_collect_part, jobs)
    keys = parts[0]["obs"].keys()
    first = np.cumsum([0] + [p["episodes"] for p in parts])   # each worker's fights get their own ids
    return Demos(obs={k: np.concatenate([p["obs"][k] for p in parts]) for k in keys},
                 masks=np.concatenate([p["masks"] for p in parts]),
                 actions=np.concatenate([p["actions"] for p in parts]),
                 returns=np.concatenate([p["returns"] for p in parts]),
                 episodes=sum(p["episodes"] for p in parts), wins=sum(p["wins"] for p in parts),
                 skipped=sum(p["skipped"] for p in parts),
                 episode=np.concatenate([p["episode"] + first[i] for i, p in enumerate(parts)]),
                 values=_dense_values(parts))


def mirrored(demos: Demos, layout) -> Demos:
    """The demonstrations with their three mirror images added (left-right, up-down, both).

    A grid fight reflected across the map's middle is the same fight: the rules have no
    preferred direction. Each decision is reflected within its own map (the `in_map` cells;
    a map smaller than the layout stays in its corner, as the env pads it): the grid's
    cells, the units' offsets from the actor (`dx`, `dy`), and the move block of the mask,
    the advice and the chosen action. `layout` is the env's `envs.encoding.Layout`."""
    from envs.encoding import GRID_CHANNELS, RING, UNIT_FEATURES

    if len(demos) == 0:
        return demos
    H, W = layout.height, layout.width
    n_move = layout.n_move
    ring = [(layout.off_self + layout._self_index[("pick_up", k, "")], d) for k, d in enumerate(RING)
            if ("pick_up", k, "") in layout._self_index]
    ix, iy = UNIT_FEATURES.index("dx"), UNIT_FEATURES.index("dy")
    in_map = demos.obs["grid"][:, GRID_CHANNELS.index("in_map")] > 0
    hs = in_map.any(axis=2).sum(axis=1)
    ws = in_map.any(axis=1).sum(axis=1)
    out = [demos]
    for fx, fy in ((True, False), (False, True), (True, True)):
        obs = {k: v.copy() for k, v in demos.obs.items()}
        masks, actions = demos.masks.copy(), demos.actions.copy()
        values = None if demos.values is None else demos.values.copy()
        for (h, w) in {(int(a), int(b)) for a, b in zip(hs, ws)}:
            sel = np.flatnonzero((hs == h) & (ws == w))
            ys, xs = np.arange(H), np.arange(W)
            sy = np.where(ys < h, h - 1 - ys, ys) if fy else ys
            sx = np.where(xs < w, w - 1 - xs, xs) if fx else xs
            g = obs["grid"][sel]
            obs["grid"][sel] = g[:, :, sy][:, :, :, sx]
            # move index 1 + y * W + x: the reflected cell of each
            perm = np.arange(layout.n_actions)
            perm[1:1 + n_move] = 1 + (sy[:, None] * W + sx[None, :]).ravel()
            for k_, d in ring:
                rd = (-d[0] if fx else d[0], -d[1] if fy else d[1])
                perm[k_] = layout.off_self + layout._self_index[("pick_up", RING.index(rd), "")]
            # new[perm[i]] = old[i]: the action i becomes perm[i]
            inv = np.empty_like(perm)
            inv[perm] = np.arange(len(perm))
            masks[sel] = demos.masks[sel][:, inv]
            if values is not None:
                values[sel] = demos.values[sel][:, inv]
            for key in ("advice", "advice_parts"):
                if key in obs:
                    obs[key][sel] = demos.obs[key][sel][:, :, inv]
            actions[sel] = perm[demos.actions[sel]]
        if fx:
            obs["units"][:, :, ix] *= -1
        if fy:
            obs["units"][:, :, iy] *= -1
        out.append(Demos(obs=obs, masks=masks, actions=actions, returns=demos.returns.copy(), episodes=0,
                         wins=0, skipped=0, episode=None if demos.episode is None else demos.episode.copy(),
                         values=values))
    # the images belong to their decision's fight (a split keeps them with it)
    return Demos(obs={k: np.concatenate([d.obs[k] for d in out]) for k in demos.obs},
                 masks=np.concatenate([d.masks for d in out]), actions=np.concatenate([d.actions for d in out]),
                 returns=np.concatenate([d.returns for d in out]), episodes=demos.episodes, wins=demos.wins,
                 skipped=demos.skipped,
                 episode=None if demos.episode is None else np.concatenate([demos.episode] * len(out)),
                 values=None if demos.values is None else np.concatenate([d.values for d in out]))


def _dense_values(parts: list[dict[str, Any]]) -> np.ndarray | None:
    """The workers' sparse values as one (decisions, actions) array, NaN where nothing was
    weighed; None when the teacher weighed nothing (a scripted teacher)."""
    if not any(p["values"] for p in parts):
        return None
    out = np.full((sum(len(p["actions"]) for p in parts), parts[0]["n_actions"]), np.nan, dtype=np.float32)
    at = 0
    for p in parts:
        for i, row in p["values"]:
            for j, v in row.items():
                out[at + i, j] = v
        at += len(p["actions"])
    return out


def overrules(demos: Demos) -> np.ndarray:
    """Which demonstrations overrule the advisor: the teacher chose another action than the
    one the `advice` observation marks as the advisor's pick (all False without advice)."""
    adv = demos.obs.get("advice")
    if adv is None or len(demos) == 0:
        return np.zeros(len(demos), dtype=bool)
    row0 = adv[:, 0, :]
    return (row0.max(axis=1) > 0) & (row0.argmax(axis=1) != demos.actions)


def fit(model, demos: Demos, epochs: int = 4, batch_size: int = 256, learning_rate: float = 1e-3,
        vf_coef: float = 0.5, seed: int = 0, on_epoch: Callable[[int, float, float], None] | None = None,
        overrule_weight: float = 1.0, held_out: Demos | None = None, value_weight: float = 0.0,
        value_temperature: float = 0.05, soft_only: np.ndarray | None = None) -> list[dict[str, float]]:
    """Cross-entropy on the teacher's actions (+ value regression); returns per-epoch stats
    (loss, accuracy of the policy's most likely action on the demonstrations, and on the
    overrules alone: the decisions where the teacher departed from the advisor's pick).

    `overrule_weight` weighs each overrule's cross-entropy that many times an ordinary
    decision's: a teacher that follows its advisor on ~95% of its decisions otherwise
    teaches a clone that copies the advisor and learns none of the departures
    (docs/results.md, Cloning the planner with tactical's advice).

    `held_out`: demonstrations from other fights, never fitted; each epoch also reports the
    clone's agreement on them (`judge`), which tells learning from memorising.

    `value_weight`: where the teacher weighed several actions (`Demos.values`, a planner's
    rollout means) and found them unequal, the policy's distribution over those actions is also pulled towards
    softmax(values / `value_temperature`) (cross-entropy, that many times the pick's): soft
    targets that say how close each call was, not only which action won it.

    `soft_only`: (n,) bool, rows fitted by their soft targets alone, without the pick's
    cross-entropy (`anchor_soft` in training/expert.py: a network's own distribution, which
    a one-hot target would sharpen and so move)."""
    import torch
    import torch.nn.functional as F

    policy = model.policy
    over = overrules(demos)
    weights = np.where(over, float(overrule_weight), 1.0).astype(np.float32)
    if soft_only is not None:
        weights[np.asarray(soft_only, dtype=bool)] = 0.0
    # a teacher's action the policy can never choose (with `advice_only`, one the env's advisor
    # did not rank) has log-probability ~-1e8: it cannot be learnt and its gradient, clipped,
    # would drown every other one, so it is left out (and counted)
    support = demos.masks.astype(bool)
    if getattr(policy, "advice_only", False) and "advice" in demos.obs:
        support = support & (demos.obs["advice"][:, 1, :] > 0)
    reachable = support[np.arange(len(demos)), demos.actions] if len(demos) else np.zeros(0, dtype=bool)
    weights[~reachable] = 0.0
    over &= reachable
    soft = None
    if value_weight > 0 and demos.values is not None:
        soft = np.isfinite(demos.values) & support
        spread = np.where(soft, demos.values, -np.inf).max(axis=1) - np.where(soft, demos.values, np.inf).min(axis=1)
        # one weighed action says nothing of the others; nor do equal values (a planner stops
        # early when every candidate's rollouts end alike: the choice makes no difference there,
        # and a uniform target would only pull the policy off its advisor's pick)
        soft[(soft.sum(axis=1) < 2) | ~(spread > 0)] = False
    policy.set_training_mode(True)
    opt = torch.optim.Adam(policy.parameters(), lr=learning_rate)
    n = len(demos)
    rng = np.random.default_rng([int(seed), 0xF17])
    stats = []
    for ep in range(epochs):
        order = rng.permutation(n)
        tot_loss = tot_acc = over_acc = tot_soft = 0.0
        for start in range(0, n, batch_size):
            b = order[start:start + batch_size]
            obs = {k: torch.as_tensor(v[b]) for k, v in demos.obs.items()}
            acts = torch.as_tensor(demos.actions[b])
            masks = demos.masks[b]
            values, logp, _ = policy.evaluate_actions(obs, acts, action_masks=masks)
            ret = torch.as_tensor(demos.returns[b])
            w = torch.as_tensor(weights[b])
            loss = -(w * logp).sum() / w.sum().clamp(min=1.0) + vf_coef * F.mse_loss(values.flatten(), ret)
            if soft is not None and soft[b].any(axis=1).any():
                hm = torch.as_tensor(soft[b])
                rows = hm.any(dim=1)
                v = torch.as_tensor(np.where(soft[b], demos.values[b], 0.0).astype(np.float32))
                target = torch.softmax(torch.where(hm, v / float(value_temperature), torch.tensor(-1e9)), dim=1)
                logits = policy.get_distribution(obs, action_masks=masks).distribution.logits
                logq = torch.log_softmax(torch.where(hm, logits, torch.tensor(-1e9)), dim=1)
                ce = -(target * torch.where(hm, logq, torch.zeros_like(logq))).sum(dim=1)[rows].mean()
                loss = loss + float(value_weight) * ce
                tot_soft += float(ce.detach()) * int(rows.sum())
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), 0.5)
            opt.step()
            with torch.no_grad():
                dist = policy.get_distribution(obs, action_masks=masks)
                pred = dist.distribution.probs.argmax(dim=1)
                hit = (pred == acts).numpy()
                tot_acc += float(hit.sum())
                over_acc += float(hit[over[b]].sum())
            tot_loss += float(loss.detach()) * len(b)
        row = {"epoch": ep + 1, "loss": tot_loss / n, "accuracy": tot_acc / n}
        if not reachable.all():
            row["unreachable"] = int((~reachable).sum())
        if soft is not None:
            row["weighed"] = int(soft.any(axis=1).sum())
            row["value_loss"] = tot_soft / max(1, row["weighed"])
        if over.any():
            row["overrules"] = int(over.sum())
            row["overrule_accuracy"] = over_acc / int(over.sum())
        if held_out is not None and len(held_out):
            policy.set_training_mode(False)
            row.update({f"held_out_{k}": v for k, v in judge(model, held_out).items()})
            policy.set_training_mode(True)
        stats.append(row)
        if on_epoch:
            on_epoch(ep + 1, row["loss"], row["accuracy"])
    policy.set_training_mode(False)
    return stats


def merge(a: Demos, b: Demos) -> Demos:
    """The two sets of demonstrations together (DAgger aggregates every round's); `b`'s fights
    are numbered after `a`'s."""
    episode = None
    if a.episode is not None and b.episode is not None:
        base = max(a.episodes, int(a.episode.max()) + 1 if len(a.episode) else 0)
        episode = np.concatenate([a.episode, b.episode + base])
    values = None
    if a.values is not None or b.values is not None:
        values = np.concatenate([d.values if d.values is not None else np.full(d.masks.shape, np.nan, np.float32)
                                 for d in (a, b)])
    return Demos(obs={k: np.concatenate([a.obs[k], b.obs[k]]) for k in a.obs},
                 masks=np.concatenate([a.masks, b.masks]), actions=np.concatenate([a.actions, b.actions]),
                 returns=np.concatenate([a.returns, b.returns]), episodes=a.episodes + b.episodes,
                 wins=a.wins + b.wins, skipped=a.skipped + b.skipped, episode=episode, values=values)


def predict(model, demos: Demos, batch_size: int = 512) -> np.ndarray:
    """The policy's most likely action for each demonstration."""
    return probabilities(model, demos, batch_size).argmax(axis=1).astype(np.int64)


def probabilities(model, demos: Demos, batch_size: int = 512) -> np.ndarray:
    """(n, n_actions): the policy's probability of each action at each demonstration."""
    import torch

    out = []
    with torch.no_grad():
        for start in range(0, len(demos), batch_size):
            sl = slice(start, start + batch_size)
            obs = {k: torch.as_tensor(v[sl]) for k, v in demos.obs.items()}
            out.append(model.policy.get_distribution(obs, action_masks=demos.masks[sl]).distribution.probs.numpy())
    return np.concatenate(out) if out else np.zeros((0, demos.masks.shape[1]), dtype=np.float32)


def agreement(model, demos: Demos, batch_size: int = 512) -> float:
    """Share of the demonstrations where the policy's most likely action is the teacher's."""
    return float((predict(model, demos, batch_size) == demos.actions).mean()) if len(demos) else 0.0


def judge(model, demos: Demos) -> dict[str, float]:
    """How the clone's most likely actions compare with the teacher's on `demos`: `accuracy`
    (agreement), and with an advisor in the observation `advisor_accuracy` (the agreement of
    always following the advisor: the bar a clone must clear), `overrules` (the teacher's
    departures from the advisor), `overrule_accuracy` (the share of those the clone makes too),
    `departures` (the clone's own departures) and `departures_right` (the share of those that
    are the teacher's choice). A clone that memorised its demonstrations departs often and
    rarely rightly on fights it has not seen."""
    pred = predict(model, demos)
    out = {"accuracy": float((pred == demos.actions).mean())}
    adv = demos.obs.get("advice")
    if adv is not None:
        row0 = adv[:, 0, :]
        has = row0.max(axis=1) > 0
        pick = row0.argmax(axis=1)
        over = overrules(demos)
        dep = has & (pred != pick)
        out.update({"advisor_accuracy": float((has & (pick == demos.actions)).mean()), "overrules": int(over.sum()),
                    "overrule_accuracy": float((pred[over] == demos.actions[over]).mean()) if over.any() else 0.0,
                    "departures": int(dep.sum()),
                    "departures_right": float((pred[dep] == demos.actions[dep]).mean()) if dep.any() else 0.0})
    return out
