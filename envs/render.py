"""Text and image renderings of a battle (the env's `ansi` and `rgb_array` modes)."""

from __future__ import annotations

import numpy as np

from rules.ruleset import Ruleset
from rules.state import BattleState

CELL_PX = 16
_TERRAIN_RGB = {
    "floor": (225, 218, 200), "difficult": (190, 175, 140), "wall": (60, 60, 66),
}
_COVER_RGB = {1: (170, 200, 150), 2: (120, 160, 100), 3: (80, 110, 70), 4: (40, 60, 40)}
_TEAM_RGB = [(40, 90, 200), (200, 50, 40), (220, 160, 30), (130, 60, 170)]


def render_ansi(state: BattleState, rs: Ruleset, agent_team: str | None = None) -> str:
    """The map with figures (agent team upper case), then one line per figure."""
    g = state.grid
    marks: dict[int, str] = {}
    letters = {}
    for i, c in enumerate(state.combatants):
        ch = chr(ord("a") + i % 26)
        if c.team == agent_team or (agent_team is None and c.team == state.teams[0]):
            ch = ch.upper()
        if c.down:
            ch = "x"
        letters[c.id] = ch
        if not c.down or c.pos not in marks:
            marks[c.pos] = ch
    lines = [f"round {state.round}" + (f", {state.actor.id} to act" if state.actor is not None and not state.over else "")]
    lines.append(g.render(marks))
    for c in state.combatants:
        hp, mx = rs.health(c)
        bar = "#" * int(round(10 * hp / mx)) if mx else ""
        cond = ",".join(sorted(c.conditions)) or "-"
        lines.append(f"{letters[c.id]} {c.id:<12} {c.team:<10} {bar:<10} {hp:g}/{mx:g} {cond}")
    if state.over:
        lines.append(f"over: {state.winner or 'draw'} ({state.end_reason})")
    return "\n".join(lines)


def render_rgb(state: BattleState, rs: Ruleset, agent_team: str | None = None,
               size: tuple[int, int] | None = None) -> np.ndarray:
    """An RGB image (H*16 x W*16 x 3, uint8): terrain, cover shaded by level, figures with health bars."""
    g = state.grid
    H, W = size or (g.height, g.width)
    img = np.zeros((H * CELL_PX, W * CELL_PX, 3), dtype=np.uint8)
    img[:] = (20, 20, 20)
    for i in range(g.n):
        x, y = g.xy(i)
        if x >= W or y >= H:
            continue
        t = g.terrain[i]
        if t.blocks_sight:
            col = _TERRAIN_RGB["wall"]
        elif t.cover:
            col = _COVER_RGB.get(t.cover, (100, 100, 100))
        elif t.difficult:
            col = _TERRAIN_RGB["difficult"]
        else:
            col = _TERRAIN_RGB["floor"]
        img[y * CELL_PX:(y + 1) * CELL_PX, x * CELL_PX:(x + 1) * CELL_PX] = col
        img[y * CELL_PX, x * CELL_PX:(x + 1) * CELL_PX] = (150, 150, 150)
        img[y * CELL_PX:(y + 1) * CELL_PX, x * CELL_PX] = (150, 150, 150)
    team_index = {t: i for i, t in enumerate(state.teams)}
    for c in state.combatants:
        x, y = g.xy(c.pos)
        if x >= W or y >= H:
            continue
        col = _TEAM_RGB[team_index[c.team] % len(_TEAM_RGB)]
        if c.down:
            col = tuple(v // 3 + 60 for v in col)
        y0, x0 = y * CELL_PX, x * CELL_PX
        img[y0 + 3:y0 + 12, x0 + 3:x0 + 13] = col
        if state.actor is c and not state.over:
            img[y0 + 1:y0 + 2, x0 + 1:x0 + 15] = (255, 255, 255)
        hp, mx = rs.health(c)
        n = int(round(12 * hp / mx)) if mx else 0
        img[y0 + 13:y0 + 15, x0 + 2:x0 + 14] = (80, 0, 0)
        img[y0 + 13:y0 + 15, x0 + 2:x0 + 2 + n] = (0, 200, 0)
        if "prone" in c.conditions:
            img[y0 + 7:y0 + 9, x0 + 3:x0 + 13] = (250, 250, 250)
    return img
