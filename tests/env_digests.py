"""Digests of seeded env episodes, to show that a change to the environments leaves every
observation, mask, reward and info as it was (issue 30: "the same seed gives the same
fights as before", here for what a learner sees).

Each config is an env (every registered id, advice and clock variants, generated maps as
the training configs draw them, reward shaping, the PettingZoo AEC env) and a number of
episodes. Episode k of a config is reset with seed k and played with seeded random masked
actions (one config also takes an illegal action); its digest is the SHA-256 of every
observation array (dtype, shape, bytes), both masks, reward, terminated, truncated and the
info (keys and values), cut to 16 hex digits.

    python tests/env_digests.py --write --root /work/base   # record with another checkout's code
    python tests/env_digests.py --check                     # compare this checkout's code

The recorded digests live in tests/golden/env_digests/digests.txt, one line an episode:
`config episode digest steps`. They were written with the code of commit 031c02a, before
the speed work of issue 30, and re-recorded after the rules changes of issue 32 (the env ids
became -v2, the rules and the answer block changed what a learner sees), and on 2026-12-07 for the
six cybergeneration episodes against `tactical`, whose `ready` choices changed (the encoding
did not, so the ids stay -v2), and again the same day (eighteenth session) for rules read again
against the seeds (tests/golden/fight_digests/ headers say which): 20 episodes changed
(cortex_hu's prone innate defence most), the encoding did not.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path
from typing import Any, Callable, Iterator

HERE = Path(__file__).resolve().parent
DIGEST_FILE = HERE / "golden" / "env_digests" / "digests.txt"
GEN = {"size": [16, 22], "mirrored": True}


def _gen(ruleset: str, **kw: Any) -> dict[str, Any]:
    """Kwargs of a training-like env on generated maps (padded 16 x 22, either side)."""
    return {"ruleset": ruleset, "scenario": ["generated"], "generator": dict(GEN), "map_size": (16, 22),
            "max_enemies": 4, "max_allies": 3, "agent_team": "random", **kw}


def configs() -> dict[str, tuple[dict[str, Any], int]]:
    """config name -> (SkirmishEnv kwargs, or {"aec": scenario}, episodes)."""
    from envs.registration import registered_ids
    out: dict[str, tuple[dict[str, Any], int]] = {}
    for env_id, kw in registered_ids().items():
        out[f"{env_id}/tactical"] = (dict(kw), 2)     # the default opponent
        out[f"{env_id}/random"] = ({**kw, "opponent": "random"}, 3)
    out["advice/cortex/warehouse"] = ({"scenario": "cortex/warehouse", "advice": "tactical",
                                       "opponent": "random"}, 2)
    out["advice-bold/metalface/scrapyard"] = ({"scenario": "metalface/scrapyard", "advice": "bold",
                                               "opponent": "random"}, 1)
    out["clock/cybergeneration/mall_raid"] = ({"scenario": "cybergeneration/mall_raid", "clock": True,
                                               "opponent": "random"}, 2)
    out["shaped/cortex_hu/les"] = ({"scenario": "cortex_hu/les", "opponent": ["random", "aggressive"],
                                    "reward": {"damage_dealt": 0.2, "damage_taken": 0.3}}, 3)
    out["padded/metalface/foundry"] = ({"scenario": ["metalface/foundry", "metalface/rooftop"],
                                        "map_size": (24, 30), "max_enemies": 6, "max_allies": 5,
                                        "agent_team": "random", "opponent": "random"}, 3)
    out["cropped/cortex/warehouse"] = ({"scenario": "cortex/warehouse", "map_size": (9, 13), "opponent": "random"}, 2)
    for rs in ("cortex", "cortex_hu", "metalface", "cybergeneration"):
        out[f"generated/{rs}"] = (_gen(rs, opponent=["random", "aggressive"],
                                       reward={"damage_dealt": 0.2, "damage_taken": 0.2}), 3)
        out[f"generated-held-out/{rs}"] = (_gen(rs, opponent="random", generator={**GEN, "held_out": True},
                                                clock=True), 2)
    out["generated-advice/cortex"] = (_gen("cortex", opponent=["tactical", "aggressive"], advice="tactical",
                                           clock=True), 1)
    out["illegal/cortex/duel"] = ({"scenario": "cortex/duel", "opponent": "random"}, 3)
    for sc in ("cortex/warehouse", "metalface/scrapyard", "cybergeneration/alley_brawl", "cortex_hu/csarda"):
        out[f"aec/{sc}"] = ({"aec": sc}, 2)
    return out


class _Hash:
    def __init__(self) -> None:
        self.h = hashlib.sha256()

    def arr(self, a: Any) -> None:
        import numpy as np
        a = np.asarray(a)
        self.h.update(f"{a.dtype.str}{a.shape}".encode())
        self.h.update(np.ascontiguousarray(a).tobytes())

    def obs(self, obs: dict) -> None:
        for k in sorted(obs):
            self.h.update(k.encode())
            if isinstance(obs[k], dict):
                self.obs(obs[k])
            else:
                self.arr(obs[k])

    def info(self, info: dict) -> None:
        for k in sorted(info):
            self.h.update(k.encode())
            if k == "action_mask":
                self.arr(info[k])
            else:
                self.h.update(repr(info[k]).encode())

    def val(self, *vals: Any) -> None:
        self.h.update(repr(vals).encode())


def _pick(rng, mask) -> int:
    import numpy as np
    return int(rng.choice(np.flatnonzero(mask)))


def episode_single(kw: dict[str, Any], k: int, illegal: bool) -> tuple[str, int]:
    """(digest, steps) of episode k of a SkirmishEnv made with `kw`."""
    import numpy as np
    from envs.skirmish import SkirmishEnv
    env = SkirmishEnv(**kw)
    rng = np.random.default_rng(1000 + k)
    h = _Hash()
    obs, info = env.reset(seed=k)
    h.obs(obs)
    h.info(info)
    steps = 0
    while True:
        m = env.action_masks()
        h.arr(m)
        if env.advice is not None:
            h.val(repr(env.advice_pick))
        if illegal and steps == 2 + k and not m.all():
            a = _pick(rng, ~m)
        else:
            a = _pick(rng, m)
        obs, r, term, trunc, info = env.step(a)
        steps += 1
        h.obs(obs)
        h.val(a, r, term, trunc)
        h.info(info)
        if term or trunc:
            h.arr(env.action_masks())
            return h.h.hexdigest()[:16], steps


def episode_aec(scenario: str, k: int) -> tuple[str, int]:
    """(digest, steps) of episode k of the PettingZoo AEC env on `scenario`."""
    import numpy as np
    from envs.multiagent import SkirmishAEC
    env = SkirmishAEC(scenario=scenario)
    rng = np.random.default_rng(2000 + k)
    h = _Hash()
    env.reset(seed=k)
    steps = 0
    for agent in env.agent_iter(10_000):
        obs, r, term, trunc, info = env.last()
        h.val(agent, r, term, trunc)
        h.obs(obs)
        h.info(info)
        for other in env.agents:   # every agent's view, acting or not
            if other != agent and steps % 7 == 0:
                h.obs(env.observe(other))
        a = None if (term or trunc) else _pick(rng, obs["action_mask"])
        env.step(a)
        steps += 1
    return h.h.hexdigest()[:16], steps


def digests(only: Callable[[str], bool] = lambda name: True) -> Iterator[tuple[str, int, str, int]]:
    """(config, episode, digest, steps) of every episode of every config (`only` filters)."""
    for name, (kw, n) in configs().items():
        if not only(name):
            continue
        for k in range(n):
            if "aec" in kw:
                d, steps = episode_aec(kw["aec"], k)
            else:
                d, steps = episode_single(kw, k, illegal=name.startswith("illegal/"))
            yield name, k, d, steps


def recorded() -> dict[tuple[str, int], tuple[str, int]]:
    """(config, episode) -> (digest, steps) as recorded."""
    out = {}
    for line in DIGEST_FILE.read_text().splitlines():
        if line and not line.startswith("#"):
            name, k, d, steps = line.split()
            out[(name, int(k))] = (d, int(steps))
    return out


def mismatches(only: Callable[[str], bool] = lambda name: True) -> Iterator[str]:
    """A line for each recorded episode whose digest differs now (or that is missing)."""
    want = recorded()
    seen = set()
    for name, k, d, steps in digests(lambda n: only(n) and any(key[0] == n for key in want)):
        seen.add((name, k))
        w = want.get((name, k))
        if w is None:
            yield f"{name} episode {k}: not recorded"
        elif w != (d, steps):
            yield f"{name} episode {k}: {d} ({steps} steps) != recorded {w[0]} ({w[1]} steps)"
    for key in want:
        if only(key[0]) and key not in seen:
            yield f"{key[0]} episode {key[1]}: recorded but not played"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--write", action="store_true", help="record digests (overwrites)")
    p.add_argument("--check", action="store_true", help="compare with the recorded digests")
    p.add_argument("--root", default=str(HERE.parent), help="the checkout whose code to run (default: this one)")
    p.add_argument("--only", default="", help="configs whose name contains this")
    args = p.parse_args(argv)
    sys.path.insert(0, str(Path(args.root).resolve()))
    only = (lambda n: args.only in n)
    if args.write:
        DIGEST_FILE.parent.mkdir(parents=True, exist_ok=True)
        import envs
        lines = [f"# env episode digests (tests/env_digests.py), code of {Path(envs.__file__).parents[1]}"]
        for name, k, d, steps in digests(only):
            lines.append(f"{name} {k} {d} {steps}")
            print(lines[-1], flush=True)
        DIGEST_FILE.write_text("\n".join(lines) + "\n")
        return 0
    bad = 0
    for line in mismatches(only):
        bad += 1
        print(line, flush=True)
    print(f"env digests: {bad} mismatch(es)", flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
