"""The flat observation: the dict encoding as one float32 vector, in a fixed order.

The keys of the dict observation (envs/encoding.py, `Layout.spaces`) in alphabetical
order -- `cover`, `economy`, `grid`, `units` (and `advice`, `advice_parts` first, where an env has them) --
each array flattened row-major (C order) and concatenated. That is the order of
`gymnasium.spaces.flatten` on the `Dict` space, so `flatten_observation(obs, order)` equals
`gymnasium.spaces.flatten(space, obs)`. `flat_order(space)` gives each key's slice:

    for key, shape, start, stop in flat_order(space):
        obs[key] == flat[start:stop].reshape(shape)

The bounds of the flat `Box` are those of each part, repeated over its cells.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from gymnasium import spaces


class FlatPart(NamedTuple):
    """One key of the dict observation in the flat vector: `flat[start:stop]`, of `shape`."""

    key: str
    shape: tuple[int, ...]
    start: int
    stop: int


def flat_order(space: spaces.Dict) -> list[FlatPart]:
    """The keys of a dict observation space in flat order, with their shapes and offsets."""
    out: list[FlatPart] = []
    at = 0
    for key in sorted(space.spaces):
        shape = tuple(int(n) for n in space[key].shape)
        size = int(np.prod(shape, dtype=np.int64))
        out.append(FlatPart(key, shape, at, at + size))
        at += size
    return out


def flat_space(space: spaces.Dict) -> spaces.Box:
    """The float32 `Box` of the flat observation of `space`."""
    order = flat_order(space)
    low = np.concatenate([np.broadcast_to(space[p.key].low, p.shape).ravel() for p in order]).astype(np.float32)
    high = np.concatenate([np.broadcast_to(space[p.key].high, p.shape).ravel() for p in order]).astype(np.float32)
    return spaces.Box(low, high, (order[-1].stop,), np.float32)


def flatten_observation(obs: dict[str, np.ndarray], order: list[FlatPart]) -> np.ndarray:
    """The flat float32 vector of a dict observation (`order`: `flat_order` of its space)."""
    out = np.empty(order[-1].stop, dtype=np.float32)
    for p in order:
        out[p.start:p.stop] = np.asarray(obs[p.key], dtype=np.float32).ravel()
    return out
