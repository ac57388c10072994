"""The kernels behind a map's tables (rules/grid.py): line of sight for many pairs at once
with numpy, and path costs over the map's step graph. Pure functions of arrays and
adjacency lists; `Grid` owns the tables and says what they mean."""

from __future__ import annotations

import heapq

import numpy as np

from rules import kernels

_BIG = 1 << 30
#: the path cost of a cell no path reaches
UNREACHABLE = _BIG

#: a cell's steps: (the other cell, cost in half-cell units, 2 to 6)
Steps = list[list[tuple[int, int]]]


def los_table(opaque: np.ndarray, width: int, srcs: np.ndarray, east: np.ndarray | None = None,
              south: np.ndarray | None = None) -> np.ndarray:
    """Line of sight from each cell in `srcs` to every cell: `Grid._compute_los` run for all
    pairs (the same integer walk and corner rule), a (len(srcs), n) bool array.

    `east`/`south`: the map's blocked cell edges (rules/edges.py), or None for none. Built by
    the compiled walk of `rules.kernels` once a process has built many tables (the same
    table), else by `los_table_numpy`."""
    fast = kernels.los_block(opaque, width, srcs, east, south)
    return los_table_numpy(opaque, width, srcs, east, south) if fast is None else fast


def los_table_numpy(opaque: np.ndarray, width: int, srcs: np.ndarray, east: np.ndarray | None = None,
                    south: np.ndarray | None = None) -> np.ndarray:
    """`los_table` with numpy: every pair of the block walked at once, one step a loop."""
    n = opaque.size
    w = width
    m = len(srcs)
    a = np.repeat(srcs, n)
    b = np.tile(np.arange(n, dtype=np.int64), m)
    x, y = a % w, a // w
    x1, y1 = b % w, b // w
    nx, ny = np.abs(x1 - x), np.abs(y1 - y)
    sx = np.where(x1 > x, 1, -1)
    sy = np.where(y1 > y, 1, -1)
    ix = np.zeros(m * n, dtype=np.int64)
    iy = np.zeros(m * n, dtype=np.int64)
    ok = np.ones(m * n, dtype=bool)
    act = np.flatnonzero((nx > 0) | (ny > 0))  # pairs still walking
    while act.size:
        xa, ya, sxa, sya = x[act], y[act], sx[act], sy[act]
        dec = (1 + 2 * ix[act]) * ny[act] - (1 + 2 * iy[act]) * nx[act]
        blocked = np.zeros(act.size, dtype=bool)
        d = np.flatnonzero(dec == 0)
        if d.size:  # exactly through a corner: blocked when both cells beside it block sight
            if east is None:
                blocked[d] = opaque[ya[d] * w + xa[d] + sxa[d]] & opaque[(ya[d] + sya[d]) * w + xa[d]]
            else:
                blocked[d] = _corner_walled(opaque, east, south, w, xa[d], ya[d], sxa[d], sya[d])
        mx, my = dec <= 0, dec >= 0
        if east is not None:  # a step across a blocked edge
            o = np.flatnonzero(mx ^ my)
            if o.size:
                blocked[o] |= _edge(east, south, w, xa[o], ya[o], sxa[o] * mx[o], sya[o] * my[o])
        xa = xa + sxa * mx
        ya = ya + sya * my
        x[act] = xa
        y[act] = ya
        ixa = ix[act] + mx
        iya = iy[act] + my
        ix[act] = ixa
        iy[act] = iya
        end = (xa == x1[act]) & (ya == y1[act])
        blocked |= ~end & opaque[ya * w + xa]
        ok[act[blocked]] = False
        act = act[~blocked & ((ixa < nx[act]) | (iya < ny[act]))]
    return ok.reshape(m, n)


def _edge(east: np.ndarray, south: np.ndarray, w: int, x: np.ndarray, y: np.ndarray, dx: np.ndarray,
          dy: np.ndarray) -> np.ndarray:
    """Whether each orthogonal step from (x, y) by (dx, dy) (one of them 0) crosses a blocked edge."""
    horiz = dx != 0
    e = east[y * w + np.minimum(x, x + dx)]
    s = south[np.minimum(y, y + dy) * w + x]
    return np.where(horiz, e, s)


def _corner_walled(opaque: np.ndarray, east: np.ndarray, south: np.ndarray, w: int, x: np.ndarray, y: np.ndarray,
                   sx: np.ndarray, sy: np.ndarray) -> np.ndarray:
    """A walk through the corner between (x, y) and (x + sx, y + sy) is blocked when both ways
    round it are: through a cell that blocks sight or across a blocked edge."""
    zero = np.zeros_like(sx)
    first = (opaque[y * w + x + sx] | _edge(east, south, w, x, y, sx, zero)
             | _edge(east, south, w, x + sx, y, zero, sy))
    second = (opaque[(y + sy) * w + x] | _edge(east, south, w, x, y, zero, sy)
              | _edge(east, south, w, x, y + sy, sx, zero))
    return first & second


def free_path_costs(adj: Steps, start: int) -> list[int]:
    """Cheapest path cost from `start` to every cell with nothing in the way (`UNREACHABLE`
    where no path leads): Dial's bucket Dijkstra, step costs 2-6."""
    dist = [_BIG] * len(adj)
    dist[start] = 0
    buckets: list[list[int]] = [[start], [], [], [], [], [], []]  # a step costs at most 6
    pending = 1
    c = 0
    while pending:
        k = c % 7
        bucket = buckets[k]
        if bucket:
            buckets[k] = []
            pending -= len(bucket)
            for i in bucket:
                if dist[i] != c:
                    continue
                for j, step in adj[i]:
                    nc = c + step
                    if nc < dist[j]:
                        dist[j] = nc
                        buckets[nc % 7].append(j)
                        pending += 1
        c += 1
    return dist


def search_shadow(adj: Steps, radj: Steps, free: list[int], cells: list[int], blocked: set[int],
                  budget: int) -> dict[int, int]:
    """Path costs within `budget` of `cells` (the cells some blocker lies on a cheapest free
    path to), entered from the cells around them, which keep their free costs `free`; `radj`
    lists the steps into each cell. Cells of `cells` not reached are left out."""
    inside = set(cells)
    dist: dict[int, int] = {}
    heap = []
    for c in cells:  # enter the shadow from a cell that keeps its free cost
        best = _BIG
        for u, step in radj[c]:
            if u not in inside and u not in blocked and free[u] + step < best:
                best = free[u] + step
        if best <= budget:
            dist[c] = best
            heap.append((best, c))
    heapq.heapify(heap)
    while heap:
        d, c = heapq.heappop(heap)
        if d > dist[c]:
            continue
        for j, step in adj[c]:
            if j in inside:
                nd = d + step
                if nd <= budget and nd < dist.get(j, _BIG):
                    dist[j] = nd
                    heapq.heappush(heap, (nd, j))
    return dist
