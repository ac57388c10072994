"""The battle map: square cells, terrain, line of sight, cover, distances and movement.

A map is built from ASCII rows and a legend (character -> `Terrain`). Cells are addressed
by a flat index `i = y * width + x`; `Grid.xy(i)` and `Grid.index(x, y)` convert. Line of
sight, cover between two cells and reachable cells for a movement budget are cached per
map, because they are the hot path of every fight.

Geometry decisions (documented here once, used by every ruleset):
- Line of sight runs centre to centre through every cell the segment touches; a cell that
  blocks sight blocks it, except the two end cells. Passing exactly through a corner is
  blocked only when both cells beside the corner block sight.
- Cover a defender has against an attacker comes from the defender's 8 neighbours that
  hold cover (walls and cover objects) and lie towards the attacker: within 45 degrees of
  the line from defender to attacker. A neighbour that is also next to the attacker does
  not count, so a figure's own cover never protects the figure it shoots at.
- Movement: orthogonal steps cost 1 cell, diagonal steps 1.5 cells (the 5-10-5 habit),
  entering difficult ground costs double; a diagonal may not cut the corner of a cell that
  blocks movement. Enemy figures block passage; nobody may end on an occupied cell.
"""

from __future__ import annotations

import math
import weakref
from dataclasses import dataclass
from typing import Iterable, Mapping

from rules.errors import ScenarioError

FEET = 0.3048  # metres per foot

COVER_NAMES = ("none", "light", "medium", "heavy", "total")


@dataclass(frozen=True, slots=True)
class Terrain:
    """What one map character means."""

    name: str
    blocks_move: bool = False
    blocks_sight: bool = False
    cover: int = 0  # 0 none, 1 light, 2 medium, 3 heavy, 4 total
    difficult: bool = False
    sturdiness: int = 0  # how many dice of blast damage it absorbs before it breaks (0 = never)


DEFAULT_LEGEND: dict[str, Terrain] = {
    ".": Terrain("floor"),
    "#": Terrain("wall", blocks_move=True, blocks_sight=True, cover=3),
    "l": Terrain("light cover", blocks_move=True, cover=1),
    "m": Terrain("medium cover", blocks_move=True, cover=2),
    "h": Terrain("heavy cover", blocks_move=True, cover=3),
    "T": Terrain("total cover", blocks_move=True, cover=4),
    ",": Terrain("difficult ground", difficult=True),
}

# half-cell movement units: orthogonal 2, diagonal 3
_ORTHO = 2
_DIAG = 3
_NEIGHBOURS = ((1, 0, _ORTHO), (-1, 0, _ORTHO), (0, 1, _ORTHO), (0, -1, _ORTHO),
               (1, 1, _DIAG), (1, -1, _DIAG), (-1, 1, _DIAG), (-1, -1, _DIAG))


class Grid:
    """A rectangular battle map with cached geometry."""

    def __init__(self, rows: list[str], legend: Mapping[str, Terrain] | None = None,
                 cell_m: float = 1.5, source: str | None = None) -> None:
        legend = dict(DEFAULT_LEGEND if legend is None else legend)
        if not rows:
            raise ScenarioError("the map has no rows", source=source, field="map.rows",
                                expected="at least one row of map characters")
        width = len(rows[0])
        for y, row in enumerate(rows):
            if len(row) != width:
                raise ScenarioError(f"row {y} has {len(row)} characters, row 0 has {width}",
                                    source=source, field=f"map.rows[{y}]",
                                    expected=f"every row {width} characters long")
            for x, ch in enumerate(row):
                if ch not in legend:
                    raise ScenarioError(f"unknown map character {ch!r} at x={x}",
                                        source=source, field=f"map.rows[{y}]",
                                        expected="one of " + " ".join(repr(k) for k in legend))
        if not cell_m > 0:
            raise ScenarioError(f"cell size {cell_m} is not positive", source=source,
                                field="map.cell_m", expected="a positive number of metres")
        self.rows = list(rows)
        self.legend = legend
        self.width = width
        self.height = len(rows)
        self.cell_m = float(cell_m)
        self.n = width * self.height
        self.terrain: list[Terrain] = [legend[ch] for row in rows for ch in row]
        self.passable = [not t.blocks_move for t in self.terrain]
        self.opaque = [t.blocks_sight for t in self.terrain]
        self.cover_level = [t.cover for t in self.terrain]
        self._enter_mult = [2 if t.difficult else 1 for t in self.terrain]
        self._adj: list[list[tuple[int, int]]] = [self._neighbours(i) for i in range(self.n)]
        self._ring: list[tuple[int, ...]] = [self._ring8(i) for i in range(self.n)]
        self._los: dict[int, bool] = {}
        self._cover: dict[int, int] = {}
        self._vis: dict[int, object] = {}
        self.static_layers = None  # built by envs.encoding on first use
        self._reach: dict[tuple, dict[int, int]] = {}
        self.reach_cap = 0  # rulesets raise it to their largest move so one search serves all
        _ALL_GRIDS.add(self)
        self.move_actions: list = []  # per-cell move actions, built by rulesets on first use

    # -- addressing -----------------------------------------------------------------
    def index(self, x: int, y: int) -> int:
        return y * self.width + x

    def xy(self, i: int) -> tuple[int, int]:
        return i % self.width, i // self.width

    def in_bounds(self, x: int, y: int) -> bool:
        return 0 <= x < self.width and 0 <= y < self.height

    def _neighbours(self, i: int) -> list[tuple[int, int]]:
        x, y = self.xy(i)
        out = []
        for dx, dy, cost in _NEIGHBOURS:
            nx, ny = x + dx, y + dy
            if not self.in_bounds(nx, ny):
                continue
            j = self.index(nx, ny)
            if not self.passable[j]:
                continue
            if dx and dy and (not self.passable[self.index(x + dx, y)]
                              or not self.passable[self.index(x, y + dy)]):
                continue  # no cutting corners
            out.append((j, cost * self._enter_mult[j]))
        return out

    def _ring8(self, i: int) -> tuple[int, ...]:
        x, y = self.xy(i)
        return tuple(self.index(x + dx, y + dy) for dx, dy, _ in _NEIGHBOURS
                     if self.in_bounds(x + dx, y + dy))

    # -- distances ------------------------------------------------------------------
    def distance_m(self, a: int, b: int) -> float:
        """Straight-line distance between cell centres, in metres."""
        ax, ay = a % self.width, a // self.width
        bx, by = b % self.width, b // self.width
        return math.hypot(ax - bx, ay - by) * self.cell_m

    def chebyshev(self, a: int, b: int) -> int:
        ax, ay = a % self.width, a // self.width
        bx, by = b % self.width, b // self.width
        return max(abs(ax - bx), abs(ay - by))

    def adjacent(self, a: int, b: int) -> bool:
        return a != b and self.chebyshev(a, b) == 1

    def budget_units(self, metres: float) -> int:
        """A movement allowance in metres as half-cell units (orthogonal step = 2)."""
        return int(math.floor(metres / self.cell_m * 2 + 1e-6))

    def units_to_m(self, units: int) -> float:
        return units * self.cell_m / 2

    # -- line of sight --------------------------------------------------------------
    def los(self, a: int, b: int) -> bool:
        """True when a figure in cell a can see cell b."""
        if a == b:
            return True
        key = a * self.n + b if a < b else b * self.n + a
        v = self._los.get(key)
        if v is None:
            v = self._compute_los(a, b)
            self._los[key] = v
        return v

    def _compute_los(self, a: int, b: int) -> bool:
        x0, y0 = self.xy(a)
        x1, y1 = self.xy(b)
        nx, ny = abs(x1 - x0), abs(y1 - y0)
        sx = 1 if x1 > x0 else -1
        sy = 1 if y1 > y0 else -1
        x, y = x0, y0
        ix = iy = 0
        opaque = self.opaque
        w = self.width
        while ix < nx or iy < ny:
            decision = (1 + 2 * ix) * ny - (1 + 2 * iy) * nx
            if decision == 0:
                if opaque[y * w + x + sx] and opaque[(y + sy) * w + x]:
                    return False
                x += sx
                y += sy
                ix += 1
                iy += 1
            elif decision < 0:
                x += sx
                ix += 1
            else:
                y += sy
                iy += 1
            if (x, y) != (x1, y1) and opaque[y * w + x]:
                return False
        return True

    def visible_row(self, a: int):
        """A read-only numpy bool array: which cells a figure in cell a can see (cached)."""
        row = self._vis.get(a)
        if row is None:
            import numpy as np
            row = np.fromiter((self.los(a, b) for b in range(self.n)), dtype=bool, count=self.n)
            row.flags.writeable = False
            self._vis[a] = row
        return row

    # -- cover ----------------------------------------------------------------------
    def cover(self, defender: int, attacker: int, melee: bool = False) -> int:
        """Cover level (0-4) the figure in `defender` has against one in `attacker`.

        `melee`: a hand-to-hand attacker stands next to the defender, so cells next to it
        count (the corner a defender shelters behind)."""
        if melee:
            return self.cover_source(defender, attacker, melee=True)[0]
        key = defender * self.n + attacker
        v = self._cover.get(key)
        if v is None:
            v = self._compute_cover(defender, attacker)
            self._cover[key] = v
        return v

    def _compute_cover(self, d: int, a: int) -> int:
        return self.cover_source(d, a)[0]

    def cover_source(self, d: int, a: int, melee: bool = False) -> tuple[int, int | None]:
        """(cover level, the cell giving it) for a figure in d against one in a (uncached)."""
        if d == a:
            return 0, None
        dx0, dy0 = self.xy(d)
        ax, ay = self.xy(a)
        vx, vy = ax - dx0, ay - dy0
        vv = vx * vx + vy * vy
        best = 0
        src = None
        for j in self._ring[d]:
            c = self.cover_level[j]
            if c <= best:
                continue
            jx, jy = self.xy(j)
            if j == a or (not melee and max(abs(jx - ax), abs(jy - ay)) <= 1):
                continue  # next to the attacker: the attacker's own cover
            nx, ny = jx - dx0, jy - dy0
            dot = nx * vx + ny * vy
            if dot > 0 and 2 * dot * dot >= (nx * nx + ny * ny) * vv:
                best = c
                src = j
        return best, src

    def cover_near(self, cell: int) -> bool:
        """True when any neighbour of `cell` holds cover (a wall or a cover object)."""
        return any(self.cover_level[j] > 0 for j in self._ring[cell])

    # -- movement -------------------------------------------------------------------
    def reachable(self, start: int, budget: int, blockers: Iterable[int] = ()) -> dict[int, int]:
        """Cells reachable from `start` within `budget` half-cell units -> cost.

        `blockers` are cells that may not be entered or crossed (enemy figures). The start
        cell is included with cost 0. The result may hold cells beyond `budget` (callers
        filter by cost); it is cached per (start, budget, blockers within reach) and must
        not be changed."""
        cap = budget if budget > self.reach_cap else self.reach_cap
        free = self._reach.get((start, cap, ()))
        if free is None:
            free = self._dial(start, cap, ())
        big = 1 << 30
        # a blocker matters only if a path within budget could pass through it
        blk = tuple(sorted(b for b in blockers if b != start and free.get(b, big) < budget))
        if not blk:
            return free
        res = self._reach.get((start, budget, blk))
        if res is None:
            res = self._dial(start, budget, blk)
        return res

    def _dial(self, start: int, cap: int, blk: tuple) -> dict[int, int]:
        """Dial's bucket Dijkstra (integer step costs), cached under (start, cap, blk)."""
        global _reach_cells
        if _reach_cells > REACH_CELL_BUDGET:
            # every map's reach cache together is bounded (a planner's rollouts or a long
            # evaluation otherwise grew a process past 3 GB); results never depend on it
            for g in list(_ALL_GRIDS):
                g._reach.clear()
            _reach_cells = 0
        blocked = set(blk)
        dist = {start: 0}
        buckets: list[list[int]] = [[] for _ in range(cap + 1)]
        buckets[0].append(start)
        adj = self._adj
        get = dist.get
        big = 1 << 30
        for c in range(cap + 1):
            for i in buckets[c]:
                if dist[i] != c:
                    continue
                for j, step in adj[i]:
                    nc = c + step
                    if nc <= cap and nc < get(j, big) and j not in blocked:
                        dist[j] = nc
                        buckets[nc].append(j)
        dist = dict(sorted(dist.items()))  # canonical order: results never depend on cache history
        self._reach[(start, cap, blk)] = dist
        _reach_cells += len(dist)
        return dist

    def path(self, start: int, goal: int, budget: int, blockers: Iterable[int] = ()) -> list[int]:
        """A cheapest path from start to goal (both included), or [] when out of budget."""
        dist = self.reachable(start, budget, blockers)
        if dist.get(goal, budget + 1) > budget:
            return []
        path = [goal]
        cur = goal
        while cur != start:
            best = None
            for j, _ in self._adj[cur]:
                if j in dist:
                    # the step from j into cur
                    for k, step in self._adj[j]:
                        if k == cur and dist[j] + step == dist[cur]:
                            best = j
                            break
                if best is not None:
                    break
            if best is None:  # pragma: no cover - dist is consistent by construction
                return []
            cur = best
            path.append(cur)
        path.reverse()
        return path

    def with_changes(self, changes: Mapping[int, str]) -> "Grid":
        """A map like this one with some cells replaced (e.g. cover destroyed by a blast).

        Maps are shared between fights, so they are never changed in place; the changed
        map is built once per distinct layout and cached."""
        rows = [list(r) for r in self.rows]
        for cell, ch in changes.items():
            x, y = self.xy(cell)
            rows[y][x] = ch
        new_rows = tuple("".join(r) for r in rows)
        key = (new_rows, self.cell_m, id(self.legend))
        g = _VARIANTS.get(key)
        if g is None:
            if len(_VARIANTS) > 512:
                _VARIANTS.clear()
            g = Grid(list(new_rows), self.legend, self.cell_m)
            g.reach_cap = self.reach_cap
            _VARIANTS[key] = g
        return g

    def render(self, marks: Mapping[int, str] | None = None) -> str:
        """The map as text, with optional characters over cells."""
        marks = marks or {}
        out = []
        for y in range(self.height):
            out.append("".join(marks.get(self.index(x, y), self.rows[y][x]) for x in range(self.width)))
        return "\n".join(out)


_VARIANTS: dict[tuple, "Grid"] = {}
#: every live map, so the reach caches can be bounded together
_ALL_GRIDS: "weakref.WeakSet[Grid]" = weakref.WeakSet()
#: cells stored in all reach caches (about 80 bytes each) before they are all cleared
REACH_CELL_BUDGET = 1_000_000
_reach_cells = 0


def legend_from_spec(spec: Mapping[str, Mapping] | None, source: str | None = None) -> dict[str, Terrain]:
    """The default legend updated with a scenario's own characters."""
    legend = dict(DEFAULT_LEGEND)
    for ch, t in (spec or {}).items():
        if len(ch) != 1:
            raise ScenarioError(f"legend key {ch!r} is not one character", source=source,
                                field=f"map.legend.{ch}", expected="a single character")
        try:
            legend[ch] = Terrain(**dict(t))
        except TypeError as e:
            raise ScenarioError(str(e), source=source, field=f"map.legend.{ch}",
                                expected="name, blocks_move, blocks_sight, cover, difficult, sturdiness")
    return legend

