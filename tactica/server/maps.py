"""The server's share of the rules' map caches: maps no held fight uses are let go.

The rules build a map (`rules.grid.Grid`) once per distinct layout and keep it, with its
line-of-sight, cover and path tables, in two module caches: `rules.scenario._GRID_CACHE` (a
scenario's map) and `rules.grid._VARIANTS` (a map changed by a blast). A command line run
meets a handful of maps; a server meets a new one with every uploaded encounter, and a
100x100 map's tables reach tens of megabytes, so the caches held gigabytes after every fight
was deleted (issue #34). After each fight it creates or deletes, the server drops the maps
none of its fights stands on, keeping only the most recent few (`KEEP_UNUSED_CELLS` cells in
all) so that bundled scenarios started again and again still find theirs.

TODO(#34 lead): the rules should own this bound (an LRU in rules/scenario.py with a public
`release_maps(in_use)`); the server then calls that instead of reaching into the caches.
"""

from __future__ import annotations

import gc
from typing import Any, Iterable

#: cells of maps no fight uses that stay cached (a bundled map has 100-400 cells; a 100x100
#: map, 10,000, is let go as soon as its last fight goes)
KEEP_UNUSED_CELLS = 5_000


def _caches() -> list[dict[Any, Any]]:
    import rules.grid as grid
    import rules.scenario as scenario

    return [scenario._GRID_CACHE, grid._VARIANTS]


def grids_in_use(sessions: Iterable[Any]) -> set[int]:
    """ids of the maps the sessions' fights stand on."""
    return {id(s.battle.state.grid) for s in sessions}


def release_unused_maps(sessions: Iterable[Any], keep_cells: int = KEEP_UNUSED_CELLS) -> int:
    """Drop from the map caches every map no session uses, but the most recently cached ones
    up to `keep_cells` cells; returns how many were dropped."""
    used = grids_in_use(sessions)
    dropped = 0
    for cache in _caches():
        kept = 0
        for key, g in reversed(list(cache.items())):   # newest first
            if id(g) in used:
                continue
            if kept + g.n <= keep_cells:
                kept += g.n
                continue
            cache.pop(key, None)
            dropped += 1
    if dropped:
        gc.collect()
        _trim()
    return dropped


def _trim() -> None:
    """Give freed heap back to the system (glibc keeps it otherwise: 40 deleted fights on
    100x100 maps left 525 MB resident, 176 MB after a trim); elsewhere nothing."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):  # not glibc
        pass


def cached_maps() -> list[Any]:
    """Every map the rules' caches hold (for tests and /health)."""
    return [g for cache in _caches() for g in cache.values()]
