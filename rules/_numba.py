"""The compiled kernels behind `rules.kernels` (imported only there, and only when numba is
installed): `geometry.los_table`'s integer walk with its corner and edge rules, pair by pair,
`Grid._build_cover`'s cover row, attacker by attacker, and `geometry.free_path_costs`'s
cheapest path costs (a heap where numpy's twin uses buckets: path costs are unique, so the
two give the same numbers)."""

from __future__ import annotations

import heapq

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def _edge(east, south, w, x, y, dx, dy):
    """Whether the orthogonal step from (x, y) by (dx, dy) crosses a blocked edge."""
    if dx != 0:
        return east[y * w + min(x, x + dx)]
    return south[min(y, y + dy) * w + x]


@njit(cache=True, nogil=True)
def _corner_walled(opaque, east, south, w, x, y, sx, sy):
    """Both ways round the corner between (x, y) and (x + sx, y + sy) are blocked: through a
    cell that blocks sight or across a blocked edge."""
    if not (opaque[y * w + x + sx] or _edge(east, south, w, x, y, sx, 0) or _edge(east, south, w, x + sx, y, 0, sy)):
        return False
    return opaque[(y + sy) * w + x] or _edge(east, south, w, x, y, 0, sy) or _edge(east, south, w, x, y + sy, sx, 0)


@njit(cache=True, nogil=True)
def los_block(opaque, w, srcs, east, south, edges):
    """`geometry.los_table(opaque, w, srcs, east, south)`: the same (len(srcs), n) table, each
    pair walked until its first blocked step (`edges` False: no blocked edges, `east` and
    `south` unused)."""
    n = opaque.size
    m = srcs.size
    out = np.ones((m, n), dtype=np.bool_)
    for k in range(m):
        a = srcs[k]
        x0 = a % w
        y0 = a // w
        for b in range(n):
            x1 = b % w
            y1 = b // w
            nx = abs(x1 - x0)
            ny = abs(y1 - y0)
            sx = 1 if x1 > x0 else -1
            sy = 1 if y1 > y0 else -1
            x = x0
            y = y0
            ix = 0
            iy = 0
            while ix < nx or iy < ny:
                dec = (1 + 2 * ix) * ny - (1 + 2 * iy) * nx
                blocked = False
                if dec == 0:   # exactly through a corner
                    if edges:
                        blocked = _corner_walled(opaque, east, south, w, x, y, sx, sy)
                    else:
                        blocked = opaque[y * w + x + sx] and opaque[(y + sy) * w + x]
                elif edges:    # an orthogonal step across a blocked edge
                    if dec < 0:
                        blocked = _edge(east, south, w, x, y, sx, 0)
                    else:
                        blocked = _edge(east, south, w, x, y, 0, sy)
                if dec <= 0:
                    x += sx
                    ix += 1
                if dec >= 0:
                    y += sy
                    iy += 1
                if not (x == x1 and y == y1) and opaque[y * w + x]:
                    blocked = True
                if blocked:
                    out[k, b] = False
                    break
    return out


@njit(cache=True, nogil=True)
def cover_row(w, n, d, ring, levels):
    """`Grid._build_cover(d)`: for each attacker cell, the best cover level among the cells of
    `ring` (around d; `levels` theirs) that lie towards the attacker (within 45 degrees) and
    are not next to it (or its own cell); 0 against d itself."""
    dx0 = d % w
    dy0 = d // w
    best = np.zeros(n, dtype=np.int64)
    for a in range(n):
        ax = a % w
        ay = a // w
        vx = ax - dx0
        vy = ay - dy0
        vv = vx * vx + vy * vy
        b = 0
        for k in range(ring.size):
            c = levels[k]
            if c <= b:
                continue
            j = ring[k]
            jx = j % w
            jy = j // w
            if max(abs(jx - ax), abs(jy - ay)) <= 1:
                continue
            nx = jx - dx0
            ny = jy - dy0
            dot = nx * vx + ny * vy
            if dot > 0 and 2 * dot * dot >= (nx * nx + ny * ny) * vv:
                b = c
        best[a] = b
    best[d] = 0
    return best


@njit(cache=True, nogil=True)
def path_costs(offsets, cells, costs, start, big):
    """Cheapest path cost from `start` to every cell over the step graph (cell i's steps:
    `cells`/`costs[offsets[i]:offsets[i + 1]]`), `big` where no path leads: Dijkstra."""
    n = offsets.size - 1
    dist = np.full(n, big, dtype=np.int64)
    dist[start] = 0
    heap = [(np.int64(0), np.int64(start))]
    while len(heap) > 0:
        d, i = heapq.heappop(heap)
        if d != dist[i]:
            continue
        for e in range(offsets[i], offsets[i + 1]):
            j = cells[e]
            nd = d + costs[e]
            if nd < dist[j]:
                dist[j] = nd
                heapq.heappush(heap, (nd, j))
    return dist
