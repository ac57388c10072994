"""`tactical`'s quick score of many cells at once (`quick_value`: offence minus exposure), with numpy.

The numbers are those of `TacticalPolicy.offence_at` and `exposure` cell by cell, operation
for operation: each enemy adds to a cell's sum in the same order, sums of two charging
enemies are the same two numbers added, distances come from `math.hypot` like
`Grid.distance_m`, and line of sight and cover are the grid's own answers (line of sight
from its `visible_row`: the same both ways). So a decision made from these scores is the
one made from the per-cell loops, ties included.
"""

from __future__ import annotations

import math
import weakref
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from agents import assess as A

if TYPE_CHECKING:
    from agents.tactical import Ctx

#: 1 - the protection of each cover level, as `exposure` and `offence_at` compute it
_OPEN = np.array([1.0 - p for p in A.COVER_PROTECTION])
#: below this many cells the per-cell loops are quicker
MIN_CELLS = 12


@lru_cache(maxsize=64)
def _hypot(width: int, height: int, cell_m: float) -> np.ndarray:
    """[|dx|, |dy|] -> metres between cell centres, exactly as `Grid.distance_m` computes them."""
    t = np.empty((width, height))
    for dx in range(width):
        for dy in range(height):
            t[dx, dy] = math.hypot(dx, dy) * cell_m
    t.flags.writeable = False
    return t


#: per map (weakly): {"rows": {defender cell: its cover row as an array},
#: "cols": {attacker cell: cover levels of each defender cell against it, -1 where not read yet}}
_KEPT: "weakref.WeakKeyDictionary[object, dict[str, dict[int, np.ndarray]]]" = weakref.WeakKeyDictionary()


def _kept(g) -> dict[str, dict[int, np.ndarray]]:
    k = _KEPT.get(g)
    if k is None:
        k = _KEPT[g] = {"rows": {}, "cols": {}}
    return k


def _cover_array(g, defender: int) -> np.ndarray:
    """`Grid.cover_row(defender)` as a numpy array (the same ints; a map's cover never changes:
    the grid keeps its rows too)."""
    rows = _kept(g)["rows"]
    arr = rows.get(defender)
    if arr is None:
        arr = rows[defender] = np.asarray(g.cover_row(defender), dtype=np.int64)
    return arr


def _cover_column(g, attacker: int, cells: np.ndarray) -> np.ndarray:
    """`[g.cover(c, attacker) for c in cells]` as a numpy array; each answer is read from the grid
    once per map and kept."""
    cols = _kept(g)["cols"]
    col = cols.get(attacker)
    if col is None:
        col = cols[attacker] = np.full(g.n, -1, dtype=np.int64)
    lv = col[cells]
    miss = np.flatnonzero(lv < 0)
    if len(miss):
        cover = g.cover
        for c in cells[miss].tolist():
            col[c] = cover(c, attacker)
        lv = col[cells]
    return lv


def quick_values(ctx: "Ctx", cells: list[int], charge: int, attacks_per_turn: float) -> list[float]:
    """`offence_at(cell) - def_weight * exposure(cell)` for each cell (`charge`: the policy's
    cells a hand-to-hand figure covers and still attacks; `attacks_per_turn`: its scale)."""
    return quick_parts(ctx, cells, charge, attacks_per_turn)[0]


def quick_parts(ctx: "Ctx", cells: list[int], charge: int,
                attacks_per_turn: float) -> tuple[list[float], list[float], list[bool], list[float]]:
    """(`quick_values`, `offence_at(cell)[0]`, whether `offence_at` names a target, `exposure(cell)[0]`)
    for each cell, the same numbers as the per-cell methods."""
    g = ctx.state.grid
    w = g.width
    cs = np.asarray(cells, dtype=np.int64)
    cx, cy = cs % w, cs // w
    hyp = _hypot(g.width, g.height, g.cell_m)
    n = len(cells)
    best = np.zeros(n)
    has = np.zeros(n, dtype=bool)
    near = np.full(n, 1 << 30, dtype=np.int64)
    total = np.zeros(n)
    top1 = np.full(n, -np.inf)
    top2 = np.full(n, -np.inf)
    count = np.zeros(n, dtype=np.int64)
    for _e, pos, ex, ey, reach, d, prio in ctx.table:
        adx, ady = np.abs(ex - cx), np.abs(ey - cy)
        cheb = np.maximum(adx, ady)
        near = np.minimum(near, cheb)
        dist = hyp[adx, ady]
        # my attack from the cell on this enemy (offence_at)
        if ctx.melee:
            v = np.where(cheb <= 1, 1.0 * prio, 0.0)
            ok = cheb <= 1
        else:
            ok = dist <= ctx.reach
            idx = np.flatnonzero(ok)
            seen = g.visible_row(pos)[cs[idx]]
            ok[idx[~seen]] = False
            v = np.zeros(n)
            vis = idx[seen]
            if len(vis):
                v[vis] = _OPEN[_cover_array(g, pos)[cs[vis]]] * prio
        up = ok & (v > best)
        best = np.where(up, v, best)
        has |= up
        # this enemy's fire on the cell (exposure)
        if reach <= A.MELEE_REACH_M:
            adj = cheb <= 1
            total = np.where(adj, total + d, total)
            x = np.where(cheb - 1 <= charge, d * 0.5, d * 0.0)
            far = ~adj
            bigger = far & (x > top1)
            top2 = np.where(bigger, top1, np.where(far, np.maximum(top2, x), top2))
            top1 = np.where(bigger, x, top1)
            count += far
            continue
        hit = np.flatnonzero((dist <= reach) & g.visible_row(pos)[cs])
        if len(hit):
            total[hit] += d * _OPEN[_cover_column(g, pos, cs[hit])]
    charged = np.where(count >= 2, top1 + top2, np.where(count == 1, top1, 0.0))
    expo = (total + charged) * attacks_per_turn
    if ctx.melee:
        pull = np.where(near - 1 <= charge, 0.5, 0.4 * np.maximum(0.0, 1.0 - (near - 1 - charge) / 24.0))
    else:
        pull = 0.3 * np.maximum(0.0, 1.0 - near / 30.0)
    off = np.where(has, best * ctx.offence * attacks_per_turn * ctx.aggression, pull * ctx.offence * ctx.aggression)
    return (off - ctx.def_weight * expo).tolist(), off.tolist(), has.tolist(), expo.tolist()
