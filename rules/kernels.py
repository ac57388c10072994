"""A map's tables compiled with numba: line of sight, cover rows and free path costs.

On a generated map each fight builds most of its map's tables afresh. `geometry.los_table`
walks every pair of a block of cells at once with numpy, and that walk was a fifth of a
training env's time; the cover rows (`Grid._build_cover`) and the path costs
(`geometry.free_path_costs`) another 7-10% (docs/benchmarks.md, issue 30, fifth pass).
`rules._numba` has the same three compiled: the walk runs each pair to its first blocked
step (a 32-row block costs 11-18 times less, benchmarks/bench_los.py). Each gives the same
numbers as its numpy or Python twin, bit for bit (tests/test_kernels.py, on every pair or
cell of bundled, generated and walled maps).

numba is imported only here, and only once a process has walked `COMPILE_AFTER` pairs with
numpy: about as much time (~0.9 s) as importing numba and loading its compiled cache costs,
so a process that builds few tables (`tactica --help`, a fight or an evaluation on bundled
maps) never pays it, and one that builds many (training, `--generated` evaluations, a
server) pays it once, at most doubling what it spent on tables before. `TACTICA_NUMBA=0`
keeps numpy always, `=1` compiles at the first table. Without numba installed, or where it
fails to compile, numpy stays.
"""

from __future__ import annotations

import os
from types import ModuleType

import numpy as np

#: pairs of cells a process walks with numpy before it switches to the compiled walk: ~0.9 s
#: at ~0.35 us a pair, what numba's import and cache load cost (about 200 blocks of 32 rows of
#: a 16 x 22 training map, 27 generated fights' tables; a bundled map has at most 9 blocks)
COMPILE_AFTER = 2_500_000

_state: dict[str, object] = {"calls": 0, "kernel": None, "tried": False}


def setting() -> str:
    """`TACTICA_NUMBA`: "0" (never), "1" (at once) or "" (after `COMPILE_AFTER` pairs)."""
    v = os.environ.get("TACTICA_NUMBA", "").strip()
    return v if v in ("0", "1") else ""


def kernel(pairs: int = 0) -> ModuleType | None:
    """The compiled kernels (`rules._numba`) when a line-of-sight table of `pairs` pairs
    should use them (None: numpy); counts the pairs towards the switch."""
    k = _state["kernel"]
    if k is not None:
        return k  # type: ignore[return-value]
    mode = setting()
    if mode == "0" or _state["tried"]:
        return None
    _state["calls"] = int(_state["calls"]) + pairs  # type: ignore[call-overload]
    if mode != "1" and int(_state["calls"]) <= COMPILE_AFTER:  # type: ignore[call-overload]
        return None
    _state["tried"] = True
    _state["kernel"] = compile_kernel()
    return _state["kernel"]  # type: ignore[return-value]


def compile_kernel() -> ModuleType | None:
    """`rules._numba` with its kernels compiled (or loaded from numba's cache beside it), or
    None without numba or where it cannot compile."""
    try:
        from rules import _numba   # numba missing, or no place to cache: numpy stays
    except Exception:
        return None
    try:   # compile now, not in the middle of a fight
        empty = np.zeros(0, dtype=np.bool_)
        _numba.los_block(np.zeros(4, dtype=np.bool_), 2, np.zeros(1, dtype=np.int64), empty, empty, False)
        _numba.cover_row(2, 4, 0, np.array([1, 2, 3], dtype=np.int64), np.array([1, 0, 2], dtype=np.int64))
        _numba.path_costs(*adjacency_arrays([[(1, 2)], [(0, 2)]]), 0, 1 << 30)
        return _numba
    except Exception:   # a numba that cannot compile here: numpy gives the same tables
        return None


def los_block(opaque: np.ndarray, width: int, srcs: np.ndarray, east: np.ndarray | None,
              south: np.ndarray | None) -> np.ndarray | None:
    """The (len(srcs), n) table from the compiled walk, or None when numpy should build it."""
    k = kernel(len(srcs) * int(opaque.size))
    if k is None:
        return None
    edges = east is not None
    empty = np.zeros(0, dtype=np.bool_)
    return k.los_block(np.ascontiguousarray(opaque, dtype=np.bool_), int(width), np.ascontiguousarray(srcs, dtype=np.int64),
             empty if east is None else np.ascontiguousarray(east, dtype=np.bool_),
             empty if south is None else np.ascontiguousarray(south, dtype=np.bool_), edges)


def cover_row(width: int, n: int, d: int, ring: tuple[int, ...], levels: list[int]) -> list[int] | None:
    """`Grid._build_cover(d)` compiled, once this process has switched (None: numpy): the
    cover a figure in `d` has against each attacker cell, from the cover `levels` of the
    cells of its `ring`."""
    k = _state["kernel"]
    if k is None:
        return None
    return k.cover_row(int(width), int(n), int(d), np.array(ring, dtype=np.int64),  # type: ignore[attr-defined]
                       np.array([levels[j] for j in ring], dtype=np.int64)).tolist()


def on() -> bool:
    """Whether this process has switched to the compiled kernels."""
    return _state["kernel"] is not None


def adjacency_arrays(adj: list[list[tuple[int, int]]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A map's step graph (per cell: (the other cell, cost)) as (offsets, cells, costs) arrays:
    cell i's steps are `cells[offsets[i]:offsets[i + 1]]`, in the order `adj` lists them."""
    offsets = np.zeros(len(adj) + 1, dtype=np.int64)
    offsets[1:] = np.cumsum([len(a) for a in adj])
    flat = [step for a in adj for step in a]
    cells = np.array([j for j, _ in flat], dtype=np.int64)
    costs = np.array([c for _, c in flat], dtype=np.int64)
    return offsets, cells, costs


def path_costs(arrays: tuple[np.ndarray, np.ndarray, np.ndarray], start: int, unreachable: int) -> list[int] | None:
    """`geometry.free_path_costs` compiled, once this process has switched (None: numpy): the
    cheapest path cost from `start` to every cell (`unreachable` where none leads)."""
    k = _state["kernel"]
    if k is None:
        return None
    return k.path_costs(*arrays, int(start), int(unreachable)).tolist()  # type: ignore[attr-defined]
