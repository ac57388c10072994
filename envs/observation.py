"""The observation arrays of a `Layout`, written with numpy over per-map tables.

`MapTables` holds what one map gives every observation at one padded size: the static
grid layers (in map, impassable, blocks sight, cover, difficult) and the padded position
of each map cell. They are built once per map (maps are shared between fights; a generated
map is a new one) and held weakly, keyed by the map object, so a map that goes away takes
its tables with it. Nothing here changes a value: the arrays are those the per-cell loops
wrote before (tests/env_digests.py checks it, step by step).
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Iterable, Sequence

import numpy as np

from envs.features import GRID_CHANNELS, UNIT_BASE
from rules.features import feature_names
from rules.grid import Grid
from rules.state import DOWN_CONDITIONS, BattleState, Combatant

if TYPE_CHECKING:
    from envs.encoding import Layout

#: grid channel indices, looked up by name in envs/features.py's `GRID` table
(IN_MAP, IMPASSABLE, BLOCKS_SIGHT, COVER, DIFFICULT, ACTOR, ALLIES, ENEMIES, ALLY_HEALTH, ENEMY_HEALTH,
 PRONE, DOWN, REACHABLE, LINE_OF_SIGHT, THREAT, OBJECTS) = map(GRID_CHANNELS.index, (
    "in_map", "impassable", "blocks_sight", "cover", "difficult", "actor", "allies", "enemies", "ally_health",
    "enemy_health", "prone", "down", "reachable", "line_of_sight", "threat", "objects"))
N_CHANNELS = len(GRID_CHANNELS)
#: the static (map) layers come first, in this order
N_STATIC = 5
assert (IN_MAP, IMPASSABLE, BLOCKS_SIGHT, COVER, DIFFICULT) == tuple(range(N_STATIC))
#: unit features before the condition flags (envs/features.py's `UNIT_BASE`)
N_UNIT_BASE = len(UNIT_BASE)
#: unit row columns, looked up by name in `UNIT_BASE`
_UNIT_COLUMNS = tuple(map(feature_names(UNIT_BASE).index, (
    "present", "is_self", "is_ally", "is_enemy", "dx", "dy", "distance", "health", "down", "reach", "ammo",
    "in_sight", "cover_vs_actor", "actor_cover_vs")))


class MapTables:
    """One map at one padded size: the static layers and each cell's padded position."""

    __slots__ = ("static", "blank", "pos", "pos_list", "full", "ch", "cw", "gh", "gw")

    def __init__(self, g: Grid, height: int, width: int) -> None:
        gh, gw = g.height, g.width
        ch, cw = min(gh, height), min(gw, width)
        st = np.zeros((N_STATIC, height, width), dtype=np.float32)
        st[IMPASSABLE] = 1.0   # padding is impassable
        terr = g.terrain

        def layer(values: list) -> np.ndarray:
            return np.array(values, dtype=np.float64).reshape(gh, gw)[:ch, :cw]

        st[IN_MAP, :ch, :cw] = 1.0
        st[IMPASSABLE, :ch, :cw] = layer([float(t.blocks_move) for t in terr])
        st[BLOCKS_SIGHT, :ch, :cw] = layer([float(t.blocks_sight) for t in terr])
        st[COVER, :ch, :cw] = layer([t.cover / 4.0 for t in terr])
        st[DIFFICULT, :ch, :cw] = layer([float(t.difficult) for t in terr])
        st.flags.writeable = False
        self.static = st
        blank = np.zeros((N_CHANNELS, height, width), dtype=np.float32)
        blank[:N_STATIC] = st
        blank.flags.writeable = False
        #: a grid observation before anything of a state is written: the static layers, zeros elsewhere
        self.blank = blank
        cells = np.arange(g.n)
        xs, ys = cells % gw, cells // gw
        pos = np.where((xs < width) & (ys < height), ys * width + xs, -1)
        #: cell -> its flat position in the padded H x W map, -1 outside it
        self.pos = pos.astype(np.intp)
        self.pos.flags.writeable = False
        self.pos_list: list[int] = pos.tolist()
        self.full = (gh, gw) == (height, width)
        self.ch, self.cw, self.gh, self.gw = ch, cw, gh, gw

    def crop(self, row: np.ndarray) -> np.ndarray:
        """A per-cell row of the map as the (ch, cw) block it fills in the padded map."""
        return row.reshape(self.gh, self.gw)[:self.ch, :self.cw]


_TABLES: "weakref.WeakKeyDictionary[Grid, dict[tuple[int, int], MapTables]]" = weakref.WeakKeyDictionary()


def map_tables(g: Grid, height: int, width: int) -> MapTables:
    """The tables of map `g` padded to height x width (built on first use)."""
    per = _TABLES.get(g)
    if per is None:
        per = _TABLES[g] = {}
    t = per.get((height, width))
    if t is None:
        t = per[(height, width)] = MapTables(g, height, width)
    return t


def write_grid(grid: np.ndarray, tb: MapTables, state: BattleState, actor: Combatant | None, team: str,
               enemies: Sequence[Combatant], health: dict[str, tuple[float, float]],
               moves: np.ndarray | None) -> None:
    """Fill the (C, H, W) `grid`, a copy of `tb.blank` (the static layers, zeros elsewhere), for
    `team` with `actor` acting (`moves`: the flat H x W 0/1 block of the cells it can move to)."""
    g = state.grid
    C, H, W = grid.shape
    HW = H * W
    flat = grid.reshape(C * HW)   # a view: channel ch of padded position p is flat[ch * HW + p]
    gf = flat.reshape(C, HW)
    pos = tb.pos_list
    o_actor, o_allies, o_enemies = ACTOR * HW, ALLIES * HW, ENEMIES * HW
    o_ahealth, o_ehealth, o_prone, o_down = ALLY_HEALTH * HW, ENEMY_HEALTH * HW, PRONE * HW, DOWN * HW
    for c in state.combatants:
        p = pos[c.pos]
        if p < 0:
            continue
        hp, mx = health[c.id]
        own = c.team == team
        flat[(o_actor if c is actor else o_allies if own else o_enemies) + p] = 1.0
        flat[(o_ahealth if own else o_ehealth) + p] = hp / mx if mx else 0.0
        conds = c.conditions
        if conds:   # no condition: neither prone nor down
            if "prone" in conds:
                flat[o_prone + p] = 1.0
            if not DOWN_CONDITIONS.isdisjoint(conds):   # `c.down`, without the property call
                flat[o_down + p] = 1.0
    if actor is not None:
        if moves is not None:
            gf[REACHABLE] = moves
        vis = g.visible_row(actor.pos)
        if tb.full:
            gf[LINE_OF_SIGHT] = vis
        else:
            grid[LINE_OF_SIGHT, :tb.ch, :tb.cw] = tb.crop(vis)
    live = [c for c in enemies if DOWN_CONDITIONS.isdisjoint(c.conditions)]
    if live:   # the share of live enemies that see each cell, summed in float32 as 0/1 counts
        if tb.full:
            threat = gf[THREAT]   # a view: summed in place
        else:
            threat = np.zeros(g.n, dtype=np.float32)
        for c in live:
            threat += g.visible_row(c.pos)
        if len(live) > 1:
            threat /= len(live)
        if not tb.full:
            grid[THREAT, :tb.ch, :tb.cw] = tb.crop(threat)
    if state.objects:
        o_objects = OBJECTS * HW
        for cell, items in state.objects.items():
            if items:
                p = pos[cell]
                if p >= 0:
                    flat[o_objects + p] = 1.0


def move_positions(tb: MapTables, cells: Iterable[int]) -> np.ndarray:
    """The padded positions of the map cells `cells` that lie inside the padded map."""
    pos = tb.pos_list
    return np.array([p for p in (pos[c] for c in cells) if p >= 0], dtype=np.intp)


def unit_rows(lay: Layout, state: BattleState, actor: Combatant | None, team: str, allies: Sequence[Combatant],
              enemies: Sequence[Combatant], health: dict[str, tuple[float, float]],
              conditions: dict[str, int]) -> tuple[np.ndarray, np.ndarray]:
    """(units, cover) arrays: slot 0 the acting figure, then allies, then enemies.

    `conditions`: condition name -> its feature column. The rows are written as Python
    floats into a list and converted once: each float is rounded from double to float32
    once, as writing it into the array one by one did. The ruleset's reach and ammunition
    of the standing figures come from one `unit_numbers` call."""
    g = state.grid
    H, W = lay.height, lay.width
    n_ally, n_enemy = lay.n_ally, lay.n_enemy
    nf = N_UNIT_BASE + len(conditions)
    n_units = lay.n_units
    flat = [0.0] * (n_units * nf)
    cov = [0.0] * (2 * n_enemy)
    diag = lay.diag
    slots: list[tuple[int, Combatant]] = []
    if actor is not None:
        slots.append((0, actor))
    others = [c for c in allies if c is not actor][:n_ally]
    slots += [(1 + i, c) for i, c in enumerate(others)]
    slots += [(1 + n_ally + i, c) for i, c in enumerate(enemies[:n_enemy])]
    span = max(1.0, max(H, W) * g.cell_m)
    gw = g.width
    if actor is not None:
        apos = actor.pos
        rx, ry = apos % gw, apos // gw
        vis = g.los_row(apos)
        cover_vs = g.cover_row(apos)
    down_conds = DOWN_CONDITIONS
    (PRESENT, IS_SELF, IS_ALLY, IS_ENEMY, DX, DY, DISTANCE, HEALTH, IS_DOWN, REACH, AMMO, IN_SIGHT, COVER_VS_ACTOR,
     ACTOR_COVER_VS) = _UNIT_COLUMNS
    standing: list[tuple[int, Combatant]] = []
    for row, c in slots:
        b = row * nf
        hp, mx = health[c.id]
        enemy = c.team != team
        flat[b + PRESENT] = 1.0
        if c is actor:
            flat[b + IS_SELF] = 1.0
        if enemy:
            flat[b + IS_ENEMY] = 1.0
        elif c is not actor:
            flat[b + IS_ALLY] = 1.0
        cpos = c.pos
        cx, cy = cpos % gw, cpos // gw
        if actor is not None:
            dx, dy = cx - rx, cy - ry
            flat[b + DX] = dx / W
            flat[b + DY] = dy / H
            flat[b + DISTANCE] = min(1.0, (dx ** 2 + dy ** 2) ** 0.5 / diag)
            if vis[cpos]:
                flat[b + IN_SIGHT] = 1.0
            if enemy:
                e = 2 * (row - 1 - n_ally)
                cov[e] = flat[b + COVER_VS_ACTOR] = g.cover(cpos, apos) / 4.0
                cov[e + 1] = flat[b + ACTOR_COVER_VS] = cover_vs[cpos] / 4.0
        else:
            flat[b + DX], flat[b + DY] = cx / W, cy / H
        flat[b + HEALTH] = hp / mx if mx else 0.0
        conds = c.conditions
        if conds:
            if not down_conds.isdisjoint(conds):   # `c.down`
                flat[b + IS_DOWN] = 1.0
            else:
                standing.append((b, c))
            for name in conds:
                j = conditions.get(name)
                if j is not None:
                    flat[b + j] = 1.0
        else:
            standing.append((b, c))
    if standing:
        numbers = lay.ruleset.unit_numbers([c for _, c in standing])
        for (b, _), (reach, ammo) in zip(standing, numbers):
            flat[b + REACH] = min(1.0, reach / span)
            flat[b + AMMO] = ammo
    units = np.array(flat, dtype=np.float32).reshape(n_units, nf)
    cover = np.array(cov, dtype=np.float32).reshape(n_enemy, 2)
    return units, cover
