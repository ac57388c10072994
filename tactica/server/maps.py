"""The server's share of the rules' map caches (rules/map_cache.py): after each fight it creates
or deletes, the maps none of its fights stands on are let go, but the most recent few
(`KEEP_UNUSED_CELLS` cells in all). 40 fights on 100x100 maps held 1.2 GB after they were all
deleted; 0.2 GB now (issue #34)."""

from __future__ import annotations

from typing import Any, Iterable

from rules.map_cache import KEEP_UNUSED_CELLS, cached_maps, release_maps

__all__ = ["KEEP_UNUSED_CELLS", "cached_maps", "grids_in_use", "release_unused_maps"]


def grids_in_use(sessions: Iterable[Any]) -> set[int]:
    """ids of the maps the sessions' fights stand on."""
    return {id(s.battle.state.grid) for s in sessions}


def release_unused_maps(sessions: Iterable[Any], keep_cells: int = KEEP_UNUSED_CELLS) -> int:
    """Drop every cached map no session uses, but the most recent up to `keep_cells` cells."""
    return release_maps(grids_in_use(sessions), keep_cells)
