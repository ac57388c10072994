"""The rules' map caches and their bounds (issue #34).

A map (`rules.grid.Grid`) is built once per distinct layout and kept, with its line-of-sight,
cover and path tables, in two caches: `rules.scenario._GRID_CACHE` (a scenario's map) and
`rules.grid._VARIANTS` (a map changed by a blast). A command-line run meets a handful of
maps. A server meets a new one with every uploaded encounter, and a 100x100 map's tables
reach tens of megabytes, so the caches held gigabytes after every fight was deleted.

Two bounds:
- the scenario cache keeps at most `MAP_CACHE_CELLS` cells of maps, least recently used
  first out (`remember`);
- `release_maps(in_use)` drops every cached map none of the given grids is, but the most
  recent ones up to `keep_cells` cells (the server calls it after it creates or deletes a
  fight, so that bundled scenarios started again and again still find theirs).
"""

from __future__ import annotations

import gc
from typing import Any

#: cells of maps the scenario cache holds (20 maps of 100x100; bundled maps have 100-400)
MAP_CACHE_CELLS = 200_000
#: cells of unused maps `release_maps` keeps by default
KEEP_UNUSED_CELLS = 5_000
#: cells dropped at once past which `release_maps` collects garbage and trims the heap
FREE_CELLS = 5_000


def _caches() -> list[dict[Any, Any]]:
    import rules.grid as grid
    import rules.scenario as scenario

    return [scenario._GRID_CACHE, grid._VARIANTS]


def remember(cache: dict[Any, Any], key: Any, grid: Any, limit: int = MAP_CACHE_CELLS) -> None:
    """Put `grid` in `cache` as the most recent entry; the least recent go past `limit` cells."""
    cache.pop(key, None)
    cache[key] = grid
    total = sum(g.n for g in cache.values())
    for k in list(cache):
        if total <= limit or k == key:
            break
        total -= cache.pop(k).n


def touch(cache: dict[Any, Any], key: Any) -> Any:
    """The cached map under `key`, marked most recently used (None when absent)."""
    g = cache.pop(key, None)
    if g is not None:
        cache[key] = g
    return g


def cached_maps() -> list[Any]:
    """Every map the rules' caches hold."""
    return [g for cache in _caches() for g in cache.values()]


def release_maps(in_use: set[int], keep_cells: int = KEEP_UNUSED_CELLS) -> int:
    """Drop from the caches every map whose id is not in `in_use`, but the most recently cached
    ones up to `keep_cells` cells; free the memory; return how many were dropped."""
    dropped = kept = freed = 0
    for cache in _caches():   # one bound over both caches
        for key, g in reversed(list(cache.items())):   # newest first
            if id(g) in in_use:
                continue
            if kept + g.n <= keep_cells:
                kept += g.n
                continue
            cache.pop(key, None)
            dropped += 1
            freed += g.n
    if freed >= FREE_CELLS:  # a full collection costs up to a second in a big process: only
        gc.collect()         # when large maps went (small ones are freed by their counts)
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
