"""Walls between cells: a map's blocked cell edges (issue #35, Universal VTT maps).

A wall drawn along the boundary of two cells blocks movement and sight between them but not
the cells themselves: a figure stands right beside it. `Edges` holds which edges are blocked
as two bool arrays over the flat cell index `i = y * width + x`:

- `east[i]`: the edge between cell (x, y) and (x + 1, y);
- `south[i]`: the edge between cell (x, y) and (x, y + 1).

How the rules read them (rules/grid.py and rules/geometry.py ask here):
- a step across a blocked edge is refused; a diagonal step is refused when any of the four
  edges meeting at the corner it passes is blocked (no squeezing past a wall's end or
  corner, as a diagonal may not cut the corner of a wall cell);
- line of sight walks the same cells as without edges; crossing a blocked edge blocks it;
  passing exactly through a corner is blocked only when both ways around the corner are
  (the rule for corners of wall cells);
- two figures are next to each other (melee, grapples, first aid) only when no wall
  separates them, by the same corner rule as sight.

Edge walls give no cover level of their own: a figure beside one is protected only where
the wall blocks the line of sight. A map with no edge walls has `Grid.edges is None`, and
every result is exactly what it was without this module.

In an encounter, `map.walls` lists edge walls as segments `[x0, y0, x1, y1]` in cell-corner
coordinates (the top-left corner of cell (x, y) is the point (x, y)); each is horizontal or
vertical and runs along whole cell edges.
"""

from __future__ import annotations

from typing import Any, Iterable

import numpy as np

from rules.errors import ScenarioError


class Edges:
    """The blocked edges of a `width` x `height` map (read-only once built)."""

    __slots__ = ("width", "height", "east", "south", "key")

    def __init__(self, width: int, height: int, east: np.ndarray, south: np.ndarray) -> None:
        self.width = width
        self.height = height
        self.east = np.asarray(east, dtype=bool).copy()
        self.south = np.asarray(south, dtype=bool).copy()
        self.east.flags.writeable = False
        self.south.flags.writeable = False
        self.key = (width, height, self.east.tobytes(), self.south.tobytes())

    # -- reading ----------------------------------------------------------------------
    def count(self) -> int:
        """How many cell edges are blocked."""
        return int(self.east.sum() + self.south.sum())

    def between(self, x: int, y: int, dx: int, dy: int) -> bool:
        """True when an orthogonal step from (x, y) by (dx, dy) crosses a blocked edge."""
        w = self.width
        if dx:
            return bool(self.east[y * w + min(x, x + dx)])
        return bool(self.south[min(y, y + dy) * w + x])

    def at_corner(self, x: int, y: int, dx: int, dy: int) -> tuple[bool, bool]:
        """For a diagonal step from (x, y): (the way round through (x + dx, y) is walled,
        the way round through (x, y + dy) is walled)."""
        first = self.between(x, y, dx, 0) or self.between(x + dx, y, 0, dy)
        second = self.between(x, y, 0, dy) or self.between(x, y + dy, dx, 0)
        return first, second

    def blocks_step(self, x: int, y: int, dx: int, dy: int) -> bool:
        """True when a step from (x, y) by (dx, dy) is refused: across a blocked edge, or a
        diagonal past a corner where any blocked edge meets."""
        if not (dx and dy):
            return self.between(x, y, dx, dy)
        first, second = self.at_corner(x, y, dx, dy)
        return first or second

    def separates(self, x: int, y: int, dx: int, dy: int) -> bool:
        """True when a wall stands between (x, y) and the next cell (x + dx, y + dy) for sight
        and touch: an orthogonal neighbour behind a blocked edge, a diagonal one only when
        both ways round the corner are walled."""
        if not (dx and dy):
            return self.between(x, y, dx, dy)
        first, second = self.at_corner(x, y, dx, dy)
        return first and second

    def sight_step(self, opaque: list[bool], x: int, y: int, dx: int, dy: int) -> bool:
        """A sight line stepping from (x, y) by (dx, dy) meets a wall between cells; through a
        corner, when both ways round it are blocked by a wall or a cell that blocks sight."""
        if not (dx and dy):
            return self.between(x, y, dx, dy)
        first, second = self.at_corner(x, y, dx, dy)
        w = self.width
        return (first or opaque[y * w + x + dx]) and (second or opaque[(y + dy) * w + x])

    def segments(self) -> list[list[int]]:
        """The blocked edges as merged segments [x0, y0, x1, y1] (cell-corner coordinates),
        vertical ones first, each run as long as it goes."""
        w, h = self.width, self.height
        out = [[x + 1, y0, x + 1, y1] for x, y0, y1 in _runs(self.east.reshape(h, w).T)]   # east of column x
        out += [[x0, y + 1, x1, y + 1] for y, x0, x1 in _runs(self.south.reshape(h, w))]  # south of row y
        return out


def _runs(mask: np.ndarray) -> list[tuple[int, int, int]]:
    """(row, start, end) of each run of True along the rows of a 2-d bool array."""
    out = []
    for r, row in enumerate(mask.tolist()):
        k = 0
        while k < len(row):
            if row[k]:
                k0 = k
                while k < len(row) and row[k]:
                    k += 1
                out.append((r, k0, k))
            else:
                k += 1
    return out


def edges_from_segments(segments: Iterable[Any], width: int, height: int, source: str | None = None,
                        field: str = "map.walls") -> Edges | None:
    """The edges a list of `[x0, y0, x1, y1]` cell-edge segments blocks (None when none)."""
    east = np.zeros(width * height, dtype=bool)
    south = np.zeros(width * height, dtype=bool)
    seen = False
    for k, seg in enumerate(segments):
        f = f"{field}[{k}]"
        if (not isinstance(seg, (list, tuple)) or len(seg) != 4
                or not all(isinstance(v, int) and not isinstance(v, bool) for v in seg)):
            raise ScenarioError(f"{seg!r}", source=source, field=f,
                                expected="[x0, y0, x1, y1]: whole numbers, the corners of cells")
        x0, y0, x1, y1 = seg
        if not (0 <= min(x0, x1) and max(x0, x1) <= width and 0 <= min(y0, y1) and max(y0, y1) <= height):
            raise ScenarioError(f"{list(seg)} is off the {width}x{height} map", source=source, field=f,
                                expected=f"corners from (0, 0) to ({width}, {height})")
        if (x0 != x1) == (y0 != y1):
            raise ScenarioError(f"{list(seg)} is not along cell edges", source=source, field=f,
                                expected="a horizontal or vertical segment of non-zero length")
        if x0 == x1:   # vertical: the edges east of column x0 - 1
            if 0 < x0 < width:
                for y in range(min(y0, y1), max(y0, y1)):
                    east[y * width + x0 - 1] = True
                    seen = True
        elif 0 < y0 < height:   # horizontal: the edges south of row y0 - 1
            for x in range(min(x0, x1), max(x0, x1)):
                south[(y0 - 1) * width + x] = True
                seen = True
    return Edges(width, height, east, south) if seen else None
