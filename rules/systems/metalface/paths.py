"""Turn-aware movement on the map (seed 003, Move).

seed 003, Move: "Turning or changing direction counts as one meter per 90 degrees." A
path's cost is therefore the metres walked (the grid's steps: orthogonal one cell,
diagonal 1.5 cells, difficult ground double) plus, for every change of direction along
the path, 1 m per 90 degrees (0.5 m per 45: data.yaml assumption `path_turns`), the first
step's turn away from the figure's facing included. The figure ends facing the direction
of its last step.

The search is a Dijkstra over (cell, heading) states with whole-number costs (a bucket
queue). A state is not expanded when the cheapest heading settled in the same cell, plus
the turn between the two, is no dearer: it could only lead to dearer paths (turning costs
obey the triangle inequality).

Results are memoised per map in module-level tables keyed weakly by the `Grid` (the grid
itself is never written to): the search with no figure in the way, per start cell and
facing, up to the most the figure can move in a turn; and, only when an enemy figure lies
where a path within the budget could pass through it, the search around those blockers.
Every answer is what a fresh search gives (no result depends on earlier calls); the tables
together are bounded.
"""

from __future__ import annotations

import weakref
from array import array
from fractions import Fraction
from functools import lru_cache
from typing import Iterable

from rules.grid import Grid
from rules.systems.metalface.geometry import STEPS, bearing_dxdy

EPS = 1e-6
#: cells kept in all memoised searches together before they are all dropped
CACHE_CELLS = 1_000_000

#: map -> (units per half cell, units per 45 degrees) -> per state `cell * 8 + heading`,
#: its steps as (next state, cost in units: the turn to the step's heading + the step)
_TRANS: "weakref.WeakKeyDictionary[Grid, dict[tuple[int, int], list]]" = weakref.WeakKeyDictionary()
#: map -> (start, facing, a, b[, blockers]) -> (budget in units searched, {cell: (metres,
#: facing after)}, parent per state); and (start, facing, a, b, budget) -> the answer
_MEMO: "weakref.WeakKeyDictionary[Grid, dict[tuple, tuple | dict]]" = weakref.WeakKeyDictionary()
_memo_cells = 0


@lru_cache(maxsize=64)
def units(cell_m: float, per45: float) -> tuple[int, int, float]:
    """(units per half cell, units per 45 degrees of turning, metres per unit): whole
    numbers, so path costs add up exactly (1 m squares and 0.5 m a 45-degree turn: 1, 1,
    0.5 m; 1.5 m squares: 3, 2, 0.25 m). A half cell that is no simple fraction of the turn
    is rounded to 1/64 of it."""
    half = cell_m / 2
    if per45 <= 0:
        return 1, 0, half
    r = Fraction(half / per45).limit_denominator(64)
    return r.numerator, r.denominator, per45 / r.denominator


def transitions(g: Grid, a: int, b: int) -> list[tuple[tuple[int, int], ...]]:
    """Per state `cell * 8 + heading`: (next state, cost in units) of each step from the cell,
    from the grid's own step rules (no corner cutting, difficult ground double)."""
    per_map = _TRANS.get(g)
    if per_map is None:
        per_map = _TRANS[g] = {}
    tr = per_map.get((a, b))
    if tr is None:
        w = g.width
        tr = []
        for i in range(g.n):
            adj = g.neighbours(i)
            out = [((j << 3) | bearing_dxdy(j % w - i % w, j // w - i // w), cost * a) for j, cost in adj]
            for h in range(8):
                row = STEPS[h]
                tr.append(tuple((ns, c + row[ns & 7] * b) for ns, c in out))
        per_map[(a, b)] = tr
    return tr


def search(g: Grid, start: int, facing: int, budget: int, a: int, b: int,
           blocked: Iterable[int] = ()) -> tuple[dict[int, tuple[int, int]], array]:
    """Dijkstra over (cell, heading) from `start` facing `facing`, within `budget` units:
    ({cell: (cheapest units, facing after)} in cost order, the start included; per state
    `cell * 8 + heading`, the state a cheapest path reached it from, -1 for none).
    `blocked` cells are never entered.

    Among equally cheap ways into a cell, the last step nearest to the bearing from the
    start to the cell wins, then the lower heading (assumption path_turns)."""
    tr = transitions(g, a, b)
    n8 = g.n * 8
    D = [1 << 40] * n8
    par = [-1] * n8
    for c in blocked:
        D[c * 8:c * 8 + 8] = (-1,) * 8
    turn = _turns(b)
    s0 = start * 8 + facing
    D[s0] = 0
    buckets: list[list[int]] = [[] for _ in range(budget + 1)]
    buckets[0].append(s0)
    best: dict[int, tuple[int, int]] = {}
    w = g.width
    for d in range(budget + 1):
        for s in buckets[d]:
            if d != D[s]:
                continue     # reached more cheaply since
            c = s >> 3
            h = s & 7
            old = best.get(c)
            if old is None:
                best[c] = (d, h)
            elif old[0] == d:  # an equally cheap way in: the bearing rule
                br = bearing_dxdy(c % w - start % w, c // w - start // w)
                if (STEPS[br][h], h) < (STEPS[br][old[1]], old[1]):
                    best[c] = (d, h)
            elif old[0] + turn[old[1]][h] <= d:
                continue     # the cell's cheapest heading, turned to this one, is no dearer
            for ns, wc in tr[s]:
                nd = d + wc
                if nd <= budget and nd < D[ns]:
                    D[ns] = nd
                    par[ns] = s
                    buckets[nd].append(ns)
    return best, array("i", par)


@lru_cache(maxsize=16)
def _turns(b: int) -> tuple[tuple[int, ...], ...]:
    return tuple(tuple(x * b for x in row) for row in STEPS)


def moves(g: Grid, start: int, facing: int, budget: float, per45: float,
          blockers: Iterable[int] = (), cap: float | None = None) -> dict[int, tuple[float, int]]:
    """Cells reachable from `start` (facing `facing`) within `budget` metres -> (metres,
    facing after), in cell order; `blockers` may not be entered or crossed. `cap`: the most
    the figure can move in a turn (default `budget`), searched once so later, smaller
    budgets need no search. The result is shared: do not change it."""
    return _entry(g, start, facing, budget, per45, blockers, cap)[0]


def path_to(g: Grid, start: int, facing: int, goal: int, budget: float, per45: float,
            blockers: Iterable[int] = (), cap: float | None = None, heading: int | None = None
            ) -> tuple[list[int], float, int]:
    """(cells from start to goal, metres, facing after) along a cheapest path (([], 0, facing)
    when none is within budget). `heading`: the cheapest path whose last step goes that way
    (one of `end_headings`); by default the engine's (assumption path_turns)."""
    res, par = _entry(g, start, facing, budget, per45, blockers, cap)
    return path_in(res, par, facing, goal, heading)


def reach_parents(g: Grid, start: int, facing: int, budget: float, per45: float,
                  blockers: Iterable[int] = (), cap: float | None = None
                  ) -> tuple[dict[int, tuple[float, int]], array]:
    """(`moves`' answer, the parent table of its search): one look-up for `path_in` and
    `headings_in` together (both shared: do not change them)."""
    return _entry(g, start, facing, budget, per45, blockers, cap)


def path_in(res: dict, par: array, facing: int, goal: int, heading: int | None = None
            ) -> tuple[list[int], float, int]:
    """`path_to`'s answer from `reach_parents`' (res, par)."""
    if goal not in res:
        return [], 0.0, facing
    m, h = res[goal]
    if heading is not None:
        h = heading
    return _chain(par, goal * 8 + h), m, h


def _chain(par: array, s: int) -> list[int]:
    path = []
    while s >= 0:
        path.append(s >> 3)
        s = par[s]
    path.reverse()
    return path


def end_headings(g: Grid, start: int, facing: int, goal: int, budget: float, per45: float,
                 blockers: Iterable[int] = (), cap: float | None = None, enough: int = 8) -> tuple[int, ...]:
    """The headings of the last step of every cheapest path to `goal`, the engine's choice
    first (assumption path_turns), then north first, clockwise: the facings the figure may
    end the move in at no extra cost (seed 003, Move). () when `goal` is out of reach.
    `enough`: stop once that many are found (2: is there a choice at all?).

    The search's parent table holds, for each (cell, heading) it reached, a cheapest way
    in with that last heading (its pruning drops no such cost: a pruned state is no cheaper
    than the cell's best heading turned to it), so each heading's cost is the sum of the
    steps along its parents."""
    res, par = _entry(g, start, facing, budget, per45, blockers, cap)
    return headings_in(g, res, par, goal, per45, enough)


def headings_in(g: Grid, res: dict, par: array, goal: int, per45: float, enough: int = 8) -> tuple[int, ...]:
    """`end_headings`' answer from `reach_parents`' (res, par): the first `enough` of it."""
    got = res.get(goal)
    if got is None:
        return ()
    h0 = got[1]
    base = goal * 8
    others = [h for h in range(8) if h != h0 and par[base + h] >= 0]
    if not others or enough < 2:
        return (h0,)
    a, b, unit = units(g.cell_m, per45)
    tr = transitions(g, a, b)
    cost0 = int(round(got[0] / unit))
    out = [h0]
    for h in others:
        if _cost(tr, par, base + h, res, unit) == cost0:
            out.append(h)
            if len(out) >= enough:
                break
    return tuple(out)


def _cost(tr: list, par: array, s: int, res: dict, unit: float) -> int:
    """Units along the parents from the start to state `s` (a state that is its cell's
    cheapest heading costs what `res` says)."""
    total = 0
    p = par[s]
    while p >= 0:
        total += next(c for ns, c in tr[p] if ns == s)
        s, p = p, par[p]
        r = res.get(s >> 3)
        if r is not None and r[1] == (s & 7):
            return total + int(round(r[0] / unit))
    return total


def _entry(g: Grid, start: int, facing: int, budget: float, per45: float, blockers: Iterable[int],
           cap: float | None) -> tuple[dict[int, tuple[float, int]], array]:
    """(`moves`' answer, the parent table of the search it came from)."""
    res, par, key, bset, _ = _lookup(g, start, facing, budget, per45, blockers, cap)
    if key[-1] is None and not bset.isdisjoint(res):   # the free search: drop the blockers' own cells
        res = {c: v for c, v in res.items() if c not in bset}
    return res, par


def _lookup(g: Grid, start: int, facing: int, budget: float, per45: float, blockers: Iterable[int],
            cap: float | None) -> tuple[dict[int, tuple[float, int]], array, tuple, set[int], dict]:
    """(`moves`' answer before the blockers' own cells are dropped from a search that did not
    need them, its parent table, the key it is kept under in the map's table, the blockers'
    cells but the start, the map's table). The answer is a function of the key alone (what a
    fresh search gives for it), so what is worked out from it may be kept under the key too."""
    a, b, unit = units(g.cell_m, per45)
    bu = int(budget / unit + EPS)
    memo = _MEMO.get(g)
    if memo is None:
        memo = _MEMO[g] = {}
    key = (start, facing, a, b)
    free = memo.get(key)
    if free is None or free[0] < bu:
        free = _remember(memo, key, g, start, facing, max(bu, int((cap or 0.0) / unit + EPS)), a, b, unit, ())
    fres = free[1]
    lim = budget + EPS
    # an enemy figure matters only where a path within the budget could pass through it
    bset = {x for x in blockers if x != start}
    blk = tuple(sorted(x for x in bset if x in fres and fres[x][0] < budget - EPS))
    if not blk:
        fkey = (start, facing, a, b, bu, None)
        res = memo.get(fkey)
        if res is None:
            res = memo[fkey] = fres if free[0] == bu else {c: v for c, v in fres.items() if v[0] <= lim}
            _count(len(res))
        return res, free[2], fkey, bset, memo
    key = (start, facing, a, b, blk)
    got = memo.get(key)
    if got is None or got[0] < bu:
        got = _remember(memo, key, g, start, facing, bu, a, b, unit, blk)
    res = got[1] if got[0] == bu else {c: v for c, v in got[1].items() if v[0] <= lim}
    return res, got[2], (start, facing, a, b, bu, blk), bset, memo


def move_listing(g: Grid, start: int, facing: int, budget: float, per45: float, blockers: Iterable[int],
                 cap: float | None, occupied: set[int]) -> list:
    """The move actions (`g.move_actions`) to the cells of `moves`' answer that are not in
    `occupied`, in cell order: `[g.move_actions[c] for c in moves(...) if c not in occupied]`.

    Exact: the blockers' cells are occupied cells (`BattleState.blockers_and_occupied`), so
    dropping `occupied` from the reach `_lookup` gives (before its blockers are dropped) is
    the same; that reach is a function of its key, so the move actions to all of its cells,
    and where each stands in that list, are kept under the key in the map's table, and a
    call copies the list and deletes the few occupied cells' entries."""
    res, _, key, _, memo = _lookup(g, start, facing, budget, per45, blockers, cap)
    akey = ("moves",) + key
    got = memo.get(akey)
    if got is None:
        mv = g.move_actions
        got = memo[akey] = ([mv[c] for c in res], {c: i for i, c in enumerate(res)})
        _count(len(res))
    acts, where = got
    drop = [where[c] for c in occupied if c in where]
    out = acts.copy()
    if drop:
        drop.sort(reverse=True)
        for i in drop:
            del out[i]
    return out


def _remember(memo: dict, key: tuple, g: Grid, start: int, facing: int, bu: int, a: int, b: int,
              unit: float, blk: tuple[int, ...]) -> tuple[int, dict[int, tuple[float, int]], array]:
    """Search, keep the answer under `key` and return it (all maps' tables together are
    bounded: past `CACHE_CELLS` they are all dropped)."""
    best, par = search(g, start, facing, bu, a, b, blk)
    best.pop(start, None)
    entry = (bu, {c: (best[c][0] * unit, best[c][1]) for c in sorted(best)}, par)
    _count(len(entry[1]) + g.n // 4)   # a parent table: 32 bytes a cell
    memo[key] = entry
    return entry


def _count(cells: int) -> None:
    """Count what the tables hold; past `CACHE_CELLS` every map's tables are dropped."""
    global _memo_cells
    _memo_cells += cells
    if _memo_cells > CACHE_CELLS:
        for t in list(_MEMO.values()):
            t.clear()
        _memo_cells = cells


def walked_m(g: Grid, path: list[int]) -> float:
    """Metres walked along `path` (its steps, turns not counted)."""
    half = g.cell_m / 2
    return sum(next(c for j, c in g.neighbours(p) if j == q) * half for p, q in zip(path, path[1:]))


__all__ = ["units", "transitions", "search", "moves", "path_to", "reach_parents", "path_in", "end_headings",
           "headings_in", "move_listing", "walked_m"]
