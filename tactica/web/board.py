"""What the battle-map page draws, as JSON, from a rules-level state.

Nothing here decides a rule: reach comes from the ruleset's legal moves, line of sight,
cover and paths from `rules/grid.py`, health from `Ruleset.health` (the same sources the
env's observation channels use, `envs/encoding.py`).

Cells are sent as [x, y]; per-cell layers (line of sight, threat) as flat lists in
row-major order (index y * width + x).
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

import numpy as np

from rules.actions import Action
from rules.grid import COVER_NAMES, Grid
from rules.ruleset import Ruleset
from rules.state import BattleState, Combatant


def map_json(grid: Grid) -> dict[str, Any]:
    """The map: size, cell size, rows and what each map character means; walls between cells
    as [x0, y0, x1, y1] segments (rules/edges.py); `image` when the map has a picture to draw
    under the grid (a Universal VTT map: its bytes come from GET /fights/{id}/map-image)."""
    used = {ch for row in grid.rows for ch in row}
    out = {"width": grid.width, "height": grid.height, "cell_m": grid.cell_m, "rows": list(grid.rows),
           "terrain": {ch: {"name": t.name, "blocks_move": t.blocks_move, "blocks_sight": t.blocks_sight,
                            "cover": t.cover, "difficult": t.difficult}
                       for ch, t in grid.legend.items() if ch in used},
           "cover_names": list(COVER_NAMES),
           "walls": grid.edges.segments() if grid.edges is not None else []}
    b = grid.backdrop
    if b is not None:
        out["image"] = {"mime": b.mime, "key": b.key, "pixels_per_grid": b.pixels_per_grid,
                        "width_px": b.width_px, "height_px": b.height_px}
    return out


def figure_json(state: BattleState, rs: Ruleset, c: Combatant) -> dict[str, Any]:
    """One figure: where it stands, its health, its conditions, and its damage tracks in the
    ruleset's own terms (`Ruleset.damage_tracks`: name -> [value, the largest a GM may set])."""
    hp, mx = rs.health(c)
    return {"id": c.id, "name": c.name, "team": c.team, "at": list(state.grid.xy(c.pos)),
            "hp": round(float(hp), 2), "max": round(float(mx), 2), "conditions": sorted(c.conditions),
            "down": c.down, "dead": c.dead, "weapons": rs.weapon_slots(c), "describe": rs.describe(c),
            "tracks": {k: [int(v), int(m)] for k, (v, m) in rs.damage_tracks(c).items()}}


def gm_json(rs: Ruleset) -> dict[str, Any]:
    """What the GM panel offers: the conditions a GM may set (`Ruleset.gm_conditions`), the
    conditions that follow a track instead, and the templates a figure can be added from."""
    return {"conditions": list(rs.gm_conditions()), "track_conditions": dict(rs.track_conditions()),
            "templates": list(rs.templates())}


def board_json(state: BattleState, rs: Ruleset) -> dict[str, Any]:
    """The figures, the turn order, the acting figure and the outcome (the map apart)."""
    g = state.grid
    actor = state.actor if not state.over else None
    return {
        "round": state.round, "round_limit": state.round_limit, "order": list(state.order),
        "actor": actor.id if actor is not None else None,
        "over": state.over, "winner": state.winner, "end_reason": state.end_reason,
        "teams": [{"name": t, "pc": t in state.settings.get("pc_teams", [])} for t in state.teams],
        "figures": [figure_json(state, rs, c) for c in state.combatants],
        "objects": [{"at": list(g.xy(cell)), "items": list(items)} for cell, items in sorted(state.objects.items())
                    if items],
        "map_rows": list(g.rows),
        "gm": gm_json(rs),
    }


def _live_enemies(state: BattleState, team: str) -> list[Combatant]:
    return [c for c in state.combatants if c.team != team and not c.down]


def reach_cells(state: BattleState, legal: Iterable[Action]) -> list[list[int]]:
    """Cells the acting figure can move to with one legal move action."""
    g = state.grid
    return sorted({tuple(g.xy(a.cell)) for a in legal if a.kind == "move" and a.cell is not None})


def reach_modes(state: BattleState, legal: Iterable[Action], reach: list[list[int]]) -> list[str]:
    """For each reach cell, how the figure gets there in the ruleset's words (walk, hustle,
    run, ...), with "!" added when the move ends the turn: the map colours walk and run reach
    apart. The cheapest way is shown where several moves reach one cell."""
    from tactica.table.words import move_facts

    g = state.grid
    best: dict[tuple, tuple] = {}
    for a in legal:
        if a.kind != "move" or a.cell is None:
            continue
        f = move_facts(state, a)
        mode = "move" if f is None else f["mode"] + ("!" if f["ends_turn"] else "")
        key = tuple(g.xy(a.cell))
        rank = (f is not None and f["ends_turn"], f["metres"] if f else 0.0)
        if key not in best or rank < best[key][0]:
            best[key] = (rank, mode)
    return [best[tuple(c)][1] if tuple(c) in best else "move" for c in reach]


def path_to(state: BattleState, goal: int) -> list[list[int]]:
    """A cheapest path of the acting figure to `goal` around walls and standing enemies, as
    cells (for drawing a planned move); [] when there is none."""
    actor = state.actor
    if actor is None:
        return []
    g = state.grid
    blockers = [c.pos for c in _live_enemies(state, actor.team)]
    budget = 3 * (g.width + g.height) * 2
    return [list(g.xy(c)) for c in g.path(actor.pos, goal, budget, blockers)]


def cover_from(state: BattleState, rs: Ruleset, cell: int) -> list[dict[str, Any]]:
    """For a figure of the acting team standing in `cell`: per standing enemy, the cover it
    would have against that enemy, the cover the enemy has against it, sight and distance."""
    actor = state.actor
    if actor is None:
        return []
    g = state.grid
    out = []
    for e in _live_enemies(state, actor.team):
        mine, theirs = g.cover(cell, e.pos), g.cover(e.pos, cell)
        out.append({"id": e.id, "name": e.name, "at": list(g.xy(e.pos)), "los": g.los(cell, e.pos),
                    "cover": mine, "cover_name": COVER_NAMES[min(mine, 4)],
                    "cover_effect": _effect(rs, mine),
                    "their_cover": theirs, "their_cover_name": COVER_NAMES[min(theirs, 4)],
                    "distance_m": round(g.distance_m(cell, e.pos), 2)})
    return out


def _effect(rs: Ruleset, level: int) -> str | None:
    """What a cover level gives in the ruleset's terms (`Ruleset.cover_table`): a number is a
    bonus to the Difficulty of hitting the figure."""
    v = rs.cover_table.get(level) if isinstance(rs.cover_table, Mapping) else None
    if v is None:
        return None
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return f"+{v:g} to the Difficulty to hit" if v else "no bonus"
    return str(v)


def overlays(state: BattleState, rs: Ruleset, legal: list[Action] | None, cell: int | None = None,
             goal: int | None = None) -> dict[str, Any]:
    """Reach, line of sight and threat for the acting figure; cover from `cell` (the hovered
    cell) against each enemy; a path to `goal`. Threat: per cell, how many standing enemies
    of the acting team see it (`threat_max` of them stand)."""
    g = state.grid
    actor = state.actor if not state.over else None
    out: dict[str, Any] = {"actor": actor.id if actor is not None else None, "width": g.width,
                           "height": g.height, "reach": [], "los": None, "threat": None, "threat_max": 0,
                           "cover": None, "cell": None, "path": None}
    if actor is None:
        return out
    out["reach"] = [list(c) for c in reach_cells(state, legal or [])]
    out["reach_mode"] = reach_modes(state, legal or [], out["reach"])
    out["los"] = g.visible_row(actor.pos).astype(np.int8).tolist()
    enemies = _live_enemies(state, actor.team)
    threat = np.zeros(g.n, dtype=np.int64)
    for e in enemies:
        threat += g.visible_row(e.pos)
    out["threat"] = threat.tolist()
    out["threat_max"] = len(enemies)
    if cell is not None:
        out["cell"] = list(g.xy(cell))
        out["cover"] = cover_from(state, rs, cell)
    if goal is not None:
        out["path"] = path_to(state, goal)
    return out
