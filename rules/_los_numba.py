"""The compiled walk behind `rules.los_kernel` (imported only there, and only when numba is
installed): `geometry.los_table`'s integer walk and corner and edge rules, pair by pair."""

from __future__ import annotations

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
