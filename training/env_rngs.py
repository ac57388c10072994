"""The training envs' generators in a checkpoint, so `--resume` continues their episodes.

Every draw of a `SkirmishEnv` reset (the map, the dice stream, the opponent, the side) comes
from the env's `np_random`, and nothing else consumes it. A checkpoint keeps each training
env's generator state (`rng_states`); a resumed run puts them back (`restore_rngs`) instead of
seeding its envs again, so its resets draw exactly what the uninterrupted run's next resets
would have drawn. Only the episode in play at the checkpoint is dropped.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from rules.errors import TacticaError


#: numpy's bit generators a saved state may name
_BIT_GENERATORS = ("PCG64", "PCG64DXSM", "MT19937", "Philox", "SFC64")


def seeded_state(seed: int) -> dict[str, Any]:
    """The generator state `env.reset(seed=seed)` starts from (Gymnasium's `seeding.np_random`)."""
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed))).bit_generator.state


def rng_states(venv, pending_seeds: Sequence[int] | None = None) -> list[dict[str, Any]]:
    """Each env's generator state, JSON-ready; `pending_seeds`: the seeds the envs' first reset
    will take (learning has not reset them yet), whose states are the ones that count."""
    if pending_seeds is not None:
        return [seeded_state(int(s)) for s in pending_seeds]
    return [g.bit_generator.state for g in venv.get_attr("np_random")]


def restore_rngs(venv, states: Any, source: str) -> None:
    """Give each env of `venv` its saved generator state (`rng_states`); a list of another
    length or a damaged state is a `TacticaError` naming `source`."""
    if not isinstance(states, list) or len(states) != venv.num_envs:
        n = len(states) if isinstance(states, list) else "no"
        raise TacticaError(f"the checkpoint has {n} env generators for {venv.num_envs} envs", source=source,
                           field="n_envs", expected=f"the run's n_envs ({n})")
    for i, st in enumerate(states):
        try:
            if st["bit_generator"] not in _BIT_GENERATORS:
                raise ValueError(st["bit_generator"])
            bg = getattr(np.random, st["bit_generator"])()
            bg.state = st
        except (TypeError, KeyError, ValueError):
            raise TacticaError(f"env {i}'s generator state is damaged", source=source, field="env_rng",
                               expected="the state written by `tactica train`") from None
        venv.set_attr("np_random", np.random.Generator(bg), indices=[i])
