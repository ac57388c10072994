"""Line of sight compiled with numba: `geometry.los_table`'s integer walk, one pair at a time.

`los_table` walks every pair of a block of cells at once with numpy; on a generated map each
fight builds most of its table afresh, and that walk was a fifth of a training env's time
(docs/benchmarks.md, issue 30, fifth pass). The same walk compiled runs each pair to its first
blocked step: a 32-row block costs 11-16 times less (benchmarks/bench_los.py). The two give
the same table, bit for bit (tests/test_los_kernel.py, on every pair of bundled, generated
and walled maps).

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
from typing import Callable

import numpy as np

#: pairs of cells a process walks with numpy before it switches to the compiled walk: ~0.9 s
#: at ~0.35 us a pair, what numba's import and cache load cost (about 200 blocks of 32 rows of
#: a 16 x 22 training map, 27 generated fights' tables; a bundled map has at most 9 blocks)
COMPILE_AFTER = 2_500_000

_state: dict[str, object] = {"calls": 0, "kernel": None, "tried": False}


def setting() -> str:
    """`TACTICA_NUMBA`: "0" (never), "1" (at once) or "" (after `COMPILE_AFTER` blocks)."""
    v = os.environ.get("TACTICA_NUMBA", "").strip()
    return v if v in ("0", "1") else ""


def kernel(pairs: int = 0) -> Callable | None:
    """The compiled block function, when a table of `pairs` pairs should use it (None: numpy)."""
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


def compile_kernel() -> Callable | None:
    """numba's compiled `los_block` (cached on disk beside this file), or None without numba."""
    try:
        from rules import _los_numba   # numba missing, or no place to cache: numpy stays
    except Exception:
        return None
    try:
        fn = _los_numba.los_block
        empty = np.zeros(0, dtype=np.bool_)
        fn(np.zeros(4, dtype=np.bool_), 2, np.zeros(1, dtype=np.int64), empty, empty, False)   # compile now
        return fn
    except Exception:   # a numba that cannot compile here: numpy gives the same table
        return None


def los_block(opaque: np.ndarray, width: int, srcs: np.ndarray, east: np.ndarray | None,
              south: np.ndarray | None) -> np.ndarray | None:
    """The (len(srcs), n) table from the compiled walk, or None when numpy should build it."""
    k = kernel(len(srcs) * int(opaque.size))
    if k is None:
        return None
    edges = east is not None
    empty = np.zeros(0, dtype=np.bool_)
    return k(np.ascontiguousarray(opaque, dtype=np.bool_), int(width), np.ascontiguousarray(srcs, dtype=np.int64),
             empty if east is None else np.ascontiguousarray(east, dtype=np.bool_),
             empty if south is None else np.ascontiguousarray(south, dtype=np.bool_), edges)
