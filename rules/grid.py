"""The battle map: square cells, terrain, line of sight, cover, distances and movement.

A map is built from ASCII rows and a legend (character -> `Terrain`). Cells are addressed
by a flat index `i = y * width + x`; `Grid.xy(i)` and `Grid.index(x, y)` convert. Line of
sight, cover between two cells and free path costs are per-map tables, a row per cell built
once on first use (numpy over all cells of the row); reachable cells around figures are
searched and memoised. They are the hot path of every fight. No result depends on which
rows were built before.

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
- Walls between cells (`edges`, rules/edges.py: a Universal VTT map's walls) block steps,
  sight and touch across them; a map without them is read exactly as before.
"""

from __future__ import annotations

import math
import weakref
from typing import TYPE_CHECKING, Any, Iterable, Mapping

import numpy as np

from rules.actions import Action
from rules.errors import ScenarioError
from rules.limits import check_cell_m, check_map_size
from rules.terrain import COVER_NAMES, DEFAULT_LEGEND, Terrain, legend_from_spec  # noqa: F401 - importable from here as before
from rules import kernels
from rules.geometry import UNREACHABLE, free_path_costs, los_table, search_shadow

if TYPE_CHECKING:
    from rules.edges import Edges

FEET = 0.3048  # metres per foot

# half-cell movement units: orthogonal 2, diagonal 3
_ORTHO = 2
_DIAG = 3
#: the 8 compass steps, clockwise from north (towards row 0): a d8's faces 1-8 in order,
#: and their names (scatter, leaps, facings)
COMPASS = ((0, -1), (1, -1), (1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1))
COMPASS_NAMES = ("n", "ne", "e", "se", "s", "sw", "w", "nw")
_NEIGHBOURS = ((1, 0, _ORTHO), (-1, 0, _ORTHO), (0, 1, _ORTHO), (0, -1, _ORTHO),
               (1, 1, _DIAG), (1, -1, _DIAG), (-1, 1, _DIAG), (-1, -1, _DIAG))


class Grid:
    """A rectangular battle map with cached geometry."""

    def __init__(self, rows: list[str], legend: Mapping[str, Terrain] | None = None,
                 cell_m: float = 1.5, source: str | None = None, edges: "Edges | None" = None) -> None:
        legend = dict(DEFAULT_LEGEND if legend is None else legend)
        if not rows:
            raise ScenarioError("the map has no rows", source=source, field="map.rows",
                                expected="at least one row of map characters")
        check_map_size(list(rows), source)
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
        check_cell_m(cell_m, source)  # a bound (rules/limits.py): 1e-300 m cells took 9 GB
        self.rows = list(rows)
        self.legend = legend
        self.width = width
        self.height = len(rows)
        self.cell_m = float(cell_m)
        self.n = width * self.height
        #: blocked cell edges (walls between cells, rules/edges.py); None: none
        self.edges = edges
        #: a picture drawn under the grid (a Universal VTT map's image, rules/uvtt.py); no rule reads it
        self.backdrop: Any = None
        self.terrain: list[Terrain] = [legend[ch] for row in rows for ch in row]
        self.passable = [not t.blocks_move for t in self.terrain]
        self.opaque = [t.blocks_sight for t in self.terrain]
        self._opaque_np = np.array(self.opaque, dtype=bool)
        self.cover_level = [t.cover for t in self.terrain]
        self._enter_mult = [2 if t.difficult else 1 for t in self.terrain]
        self._adj: list[list[tuple[int, int]]] = [self._neighbours(i) for i in range(self.n)]
        #: `_adj` as arrays for the compiled path costs (rules/kernels.py), made when first needed
        self._adj_arrays: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
        # steps into each cell: (from, cost)
        self._radj: list[list[tuple[int, int]]] = [[] for _ in range(self.n)]
        for i, steps in enumerate(self._adj):
            for j, cost in steps:
                self._radj[j].append((i, cost))
        self._ring: list[tuple[int, ...]] = [self._ring8(i) for i in range(self.n)]
        # per-map tables, each row built once on first use (rows never change afterwards)
        self._los_rows: list[list[bool] | None] = [None] * self.n
        self._vis: list[np.ndarray | None] = [None] * self.n
        self._cover_rows: list[list[int] | None] = [None] * self.n
        self._free: list[np.ndarray | None] = [None] * self.n
        self._free_lists: list[list[int] | None] = [None] * self.n
        self._reach: dict[tuple, dict[int, int]] = {}
        _ALL_GRIDS.add(self)
        self.move_actions: list[Action] = [Action("move", cell=i) for i in range(self.n)]  # per cell, read-only

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
            if self.edges is not None and self.edges.blocks_step(x, y, dx, dy):
                continue  # a wall between the cells, or a corner one would squeeze past
            out.append((j, cost * self._enter_mult[j]))
        return out

    def slide(self, cell: int, dx: int, dy: int, steps: int) -> int:
        """The cell reached going `steps` cells in a straight line from `cell`, stopping
        before the map's edge or a cell that blocks movement (a scattering grenade)."""
        x, y = self.xy(cell)
        for _ in range(steps):
            nx, ny = x + dx, y + dy
            if (not self.in_bounds(nx, ny) or not self.passable[self.index(nx, ny)]
                    or (self.edges is not None and self.edges.blocks_step(x, y, dx, dy))):
                break
            x, y = nx, ny
        return self.index(x, y)

    def neighbours(self, cell: int) -> list[tuple[int, int]]:
        """The steps out of `cell`: (next cell, cost in half-cell units: orthogonal 2,
        diagonal 3, difficult ground double), no corner cutting. Shared: do not change it."""
        return self._adj[cell]

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
        """True when b is one of a's 8 neighbours and no wall between cells separates them."""
        if b not in self._ring[a]:   # the in-map cells at Chebyshev distance 1 (never a itself)
            return False
        if self.edges is None:
            return True
        ax, ay = self.xy(a)
        bx, by = self.xy(b)
        return not self.edges.separates(ax, ay, bx - ax, by - ay)

    def budget_units(self, metres: float) -> int:
        """A movement allowance in metres as half-cell units (orthogonal step = 2)."""
        return int(math.floor(metres / self.cell_m * 2 + 1e-6))

    def units_to_m(self, units: int) -> float:
        return units * self.cell_m / 2

    # -- line of sight --------------------------------------------------------------
    def los(self, a: int, b: int) -> bool:
        """True when a figure in cell a can see cell b."""
        row = self._los_rows[a]
        if row is None:
            row = self._build_los(a)
        return row[b]

    def los_row(self, a: int) -> list[bool]:
        """Which cells a figure in cell a can see, as a read-only list (`los(a, b)` is `[b]`)."""
        row = self._los_rows[a]
        return self._build_los(a) if row is None else row

    def _build_los(self, a: int) -> list[bool]:
        """Fill the line-of-sight rows of the block of `_LOS_ROWS` cells holding a (one numpy
        pass: about 0.1 ms a row, where a row of one cell alone costs 0.6 ms)."""
        lo = a - a % _LOS_ROWS
        srcs = [s for s in range(lo, min(self.n, lo + _LOS_ROWS)) if self._los_rows[s] is None]
        e = self.edges
        table = los_table(self._opaque_np, self.width, np.array(srcs, dtype=np.int64),
                          None if e is None else e.east, None if e is None else e.south)
        table.flags.writeable = False
        for k, src in enumerate(srcs):
            self._vis[src] = table[k]
            self._los_rows[src] = table[k].tolist()
        return self._los_rows[a]

    def _compute_los(self, a: int, b: int) -> bool:
        """Line of sight of one pair, walked cell by cell (the reference for `los_table`)."""
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
            if self.edges is not None and self.edges.sight_step(self.opaque, x, y, sx * (decision <= 0), sy * (decision >= 0)):
                return False
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

    def visible_row(self, a: int) -> np.ndarray:
        """A read-only numpy bool array: which cells a figure in cell a can see."""
        row = self._vis[a]
        if row is None:
            self._build_los(a)
            row = self._vis[a]
        return row

    # -- cover ----------------------------------------------------------------------
    def cover(self, defender: int, attacker: int, melee: bool = False) -> int:
        """Cover level (0-4) the figure in `defender` has against one in `attacker`.

        `melee`: a hand-to-hand attacker stands next to the defender, so cells next to it
        count (the corner a defender shelters behind)."""
        if melee:
            return self.cover_source(defender, attacker, melee=True)[0]
        row = self._cover_rows[defender]
        if row is None:
            row = self._build_cover(defender)
        return row[attacker]

    def cover_row(self, defender: int) -> list[int]:
        """Cover levels the figure in `defender` has against an attacker in each cell (read-only)."""
        row = self._cover_rows[defender]
        return self._build_cover(defender) if row is None else row

    def _build_cover(self, d: int) -> list[int]:
        """`cover_source(d, a)[0]` for every attacker cell a at once (numpy over a)."""
        if not any(self.cover_level[j] > 0 for j in self._ring[d]):   # open ground: no cover from anywhere
            row = self._cover_rows[d] = [0] * self.n
            return row
        fast = kernels.cover_row(self.width, self.n, d, self._ring[d], self.cover_level)
        if fast is not None:
            self._cover_rows[d] = fast
            return fast
        w = self.width
        cells = np.arange(self.n, dtype=np.int64)
        ax, ay = cells % w, cells // w
        dx0, dy0 = self.xy(d)
        vx, vy = ax - dx0, ay - dy0
        vv = vx * vx + vy * vy
        best = np.zeros(self.n, dtype=np.int64)
        for j in self._ring[d]:
            c = self.cover_level[j]
            if c <= 0:
                continue
            jx, jy = self.xy(j)
            nx, ny = jx - dx0, jy - dy0
            dot = nx * vx + ny * vy
            # a cell next to the attacker (or the attacker's own) is the attacker's cover
            ok = ((np.maximum(np.abs(jx - ax), np.abs(jy - ay)) > 1) & (dot > 0)
                  & (2 * dot * dot >= (nx * nx + ny * ny) * vv))
            np.maximum(best, np.where(ok, c, 0), out=best)
        best[d] = 0
        row = best.tolist()
        self._cover_rows[d] = row
        return row

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
    @property
    def reach_cap(self) -> int:
        """A movement budget no path on this map exceeds (every step costs at most 6 units)."""
        return 6 * self.n

    def free_costs(self, start: int) -> np.ndarray:
        """Path cost from `start` to every cell with no figure in the way
        (`rules.geometry.UNREACHABLE` where none); a read-only per-map table row."""
        row = self._free[start]
        if row is None:
            self._build_free(start)
            row = self._free[start]
        return row

    def _build_free(self, start: int) -> list[int]:
        dist = None
        if kernels.on():
            if self._adj_arrays is None:
                self._adj_arrays = kernels.adjacency_arrays(self._adj)
            dist = kernels.path_costs(self._adj_arrays, start, UNREACHABLE)
        if dist is None:
            dist = free_path_costs(self._adj, start)
        arr = np.array(dist, dtype=np.int32)
        arr.flags.writeable = False
        self._free[start] = arr
        self._free_lists[start] = dist
        return dist

    def reachable(self, start: int, budget: int, blockers: Iterable[int] = ()) -> dict[int, int]:
        """Cells reachable from `start` within `budget` half-cell units -> cost, in cell order.

        `blockers` are cells that may not be entered or crossed (enemy figures). The start
        cell is included with cost 0. The result is canonical (it never depends on earlier
        calls), may be shared between calls and must not be changed."""
        free = self._free_lists[start]
        if free is None:
            free = self._build_free(start)
        # a blocker matters only if a path within budget could pass through it
        blk = tuple(sorted(b for b in blockers if b != start and free[b] < budget))
        if not blk:
            return self._free_dict(start, budget)
        res = self._reach.get((start, budget, blk))
        if res is None:
            res = self._around(start, budget, blk)
        return res

    def _free_dict(self, start: int, budget: int) -> dict[int, int]:
        """The free path costs from `start` within `budget`, in cell order (memoised)."""
        res = self._reach.get((start, budget, ()))
        if res is None:
            row = self.free_costs(start)
            idx = np.flatnonzero(row <= budget)
            res = dict(zip(idx.tolist(), row[idx].tolist()))
            self._remember((start, budget, ()), res)
        return res

    def _remember(self, key: tuple, res: dict[int, int]) -> None:
        """Memoise a reach; every map's reach memos together are bounded (a planner's rollouts
        or a long evaluation otherwise grew a process past 3 GB); results never depend on it."""
        global _reach_cells
        if _reach_cells > REACH_CELL_BUDGET:
            for g in list(_ALL_GRIDS):
                g._reach.clear()
            _reach_cells = 0
        self._reach[key] = res
        _reach_cells += len(res)

    def _around(self, start: int, budget: int, blk: tuple) -> dict[int, int]:
        """`reachable` with blockers `blk`: the free costs, searched again only for the cells
        a blocker lies on a cheapest free path to (the others keep their free cost)."""
        fs = self.free_costs(start)
        shadow = np.zeros(self.n, dtype=bool)
        for b in blk:
            shadow |= fs[b] + self.free_costs(b) == fs
        shadow &= fs <= budget
        shadow[list(blk)] = False
        res = dict(self._free_dict(start, budget))
        for b in blk:
            res.pop(b, None)  # (blk may name a cell twice)
        cells = np.flatnonzero(shadow).tolist()
        if cells:
            again = search_shadow(self._adj, self._radj, self._free_lists[start], cells, set(blk), budget)
            for c in cells:
                d = again.get(c)
                if d is None:
                    del res[c]
                else:
                    res[c] = d
        self._remember((start, budget, blk), res)
        return res

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
        key = (new_rows, self.cell_m, id(self.legend), None if self.edges is None else self.edges.key,
               getattr(self.backdrop, "key", None))
        from rules.map_cache import remember, touch

        g = touch(_VARIANTS, key)
        if g is None:
            g = Grid(list(new_rows), self.legend, self.cell_m, edges=self.edges)
            g.backdrop = self.backdrop
            if g.opaque == self.opaque:  # cover objects broke, walls stand: the same sight lines
                g._los_rows = self._los_rows
                g._vis = self._vis
            remember(_VARIANTS, key, g)   # at most MAP_CACHE_CELLS cells (rules/map_cache.py)
        return g

    def render(self, marks: Mapping[int, str] | None = None) -> str:
        """The map as text, with optional characters over cells."""
        marks = marks or {}
        out = []
        for y in range(self.height):
            out.append("".join(marks.get(self.index(x, y), self.rows[y][x]) for x in range(self.width)))
        return "\n".join(out)


#: line-of-sight rows built together
_LOS_ROWS = 32


_VARIANTS: dict[tuple, "Grid"] = {}
#: every live map, so the reach caches can be bounded together
_ALL_GRIDS: "weakref.WeakSet[Grid]" = weakref.WeakSet()
#: cells stored in all reach caches (about 80 bytes each) before they are all cleared
REACH_CELL_BUDGET = 1_000_000
_reach_cells = 0
