"""Rich renderings of a fight for the GM tools: the map, the figures, the initiative order.

Only `rules/` and `rich` are used (no gymnasium, no torch), so the GM autopilot starts fast.
"""

from __future__ import annotations

from typing import Iterable, Mapping

from rich.console import Group
from rich.table import Table
from rich.text import Text

from rules.actions import weapon_words
from rules.ruleset import Ruleset
from rules.state import BattleState, Combatant
from tactica.textsafe import one_line, safe_text

TEAM_STYLES = ("bold cyan", "bold red", "bold yellow", "bold magenta", "bold blue", "bold green")
_TERRAIN_STYLE = {
    ".": ("·", "grey35"), ",": (",", "yellow4"), "#": ("#", "grey50"),
    "l": ("l", "green"), "m": ("m", "green3"), "h": ("h", "bold bright_green"), "T": ("T", "bold white on green4"),
}


def figure_marks(state: BattleState, pc_teams: Iterable[str] = ()) -> dict[str, str]:
    """One letter per figure: the first free letter of its name (upper case for PC teams)."""
    pcs = set(pc_teams)
    used: set[str] = set()
    marks: dict[str, str] = {}
    for c in state.combatants:
        cands = [ch.lower() for ch in (c.name + c.id) if ch.isalpha()] + list("abcdefghijklmnopqrstuvwyz")
        ch = next((x for x in cands if x not in used), "?")
        used.add(ch)
        marks[c.id] = ch.upper() if c.team in pcs else ch
    return marks


def team_style(state: BattleState, team: str) -> str:
    try:
        return TEAM_STYLES[state.teams.index(team) % len(TEAM_STYLES)]
    except ValueError:
        return "bold"


def render_map(state: BattleState, pc_teams: Iterable[str] = (), highlight: Iterable[int] = (),
               marks: Mapping[str, str] | None = None) -> Text:
    """The map, two characters per cell, with x/y coordinates; figures as letters.

    The acting figure is shown reversed, figures that are down as `x`; `highlight` cells
    (reachable moves, say) are shown as `+`."""
    g = state.grid
    marks = dict(marks or figure_marks(state, pc_teams))
    at: dict[int, Combatant] = {}
    for c in state.combatants:
        if c.pos not in at or (at[c.pos].down and not c.down):
            at[c.pos] = c
    hl = set(highlight)
    actor = state.actor if not state.over else None
    t = Text()
    t.append("   " + "".join(f"{x % 10:<2}" for x in range(g.width)) + "\n", style="grey50")
    for y in range(g.height):
        t.append(f"{y:>2} ", style="grey50")
        for x in range(g.width):
            i = g.index(x, y)
            c = at.get(i)
            if c is not None:
                ch = "x" if c.down else marks.get(c.id, "?")
                style = "grey50" if c.down else team_style(state, c.team)
                if actor is not None and c is actor:
                    style += " reverse"
                t.append(ch, style=style)
            elif i in hl:
                t.append("+", style="bold white")
            else:
                raw = g.rows[y][x]
                ch, style = _TERRAIN_STYLE.get(raw, (one_line(raw), "white"))
                t.append(ch, style=style)
            t.append(" ")
        t.append(f"{y}\n", style="grey50")
    t.append("   · floor  , difficult  # wall  l/m/h/T light/medium/heavy/total cover", style="grey50")
    return t


def health_bar(hp: float, mx: float, width: int = 10) -> Text:
    n = int(round(width * hp / mx)) if mx > 0 else 0
    n = max(0, min(width, n))
    frac = hp / mx if mx > 0 else 0
    style = "green" if frac > 0.6 else ("yellow" if frac > 0.3 else "red")
    return Text("█" * n, style=style) + Text("░" * (width - n), style="grey30")


def figures_table(state: BattleState, rs: Ruleset, pc_teams: Iterable[str] = (),
                  marks: Mapping[str, str] | None = None, roles: Mapping[str, str] | None = None) -> Table:
    """One row per figure: mark, id, name, team, position (x,y: as `move X,Y` takes it), health,
    conditions and ammunition (one a line, so no word is split in 80 columns)."""
    marks = dict(marks or figure_marks(state, pc_teams))
    roles = roles or {}
    tb = Table(box=None, pad_edge=False, show_header=True, header_style="bold", padding=(0, 1, 0, 0))
    ammo_of = {c.id: c.res.get("ammo") if isinstance(c.res.get("ammo"), dict) else {} for c in state.combatants}
    # one weapon's count a line, and the column as wide as the longest (capped), so a count is
    # never split ("assault_rifle:3" over "0" in 80 columns, when the column held keys)
    ammo_width = min(24, max((len(_ammo(k, v)) for a in ammo_of.values() for k, v in a.items()), default=1))
    for col in ("", "id", "name", "team", "at", "health", "", "conditions", "ammo"):
        # conditions and ammunition counts are never cut short (in 80 columns "dart_gun:1" came out
        # as "dart_gun:..."): a word too long for its column folds onto the next line
        tb.add_column(col, no_wrap=col in ("", "id", "at", "health", "ammo"),
                      min_width=ammo_width if col == "ammo" else None,
                      overflow="fold" if col in ("conditions", "ammo") else "ellipsis")
    actor = state.actor if not state.over else None
    for c in state.combatants:
        hp, mx = rs.health(c)
        ammo = ammo_of[c.id]
        tb.add_row(Text(marks.get(c.id, "?"), style=team_style(state, c.team) + (" reverse" if c is actor else "")),
                   safe_text(c.id), safe_text(c.name),
                   safe_text(c.team + (f" ({roles[c.team]})" if c.team in roles else "")),
                   "{},{}".format(*state.grid.xy(c.pos)), health_bar(hp, mx, 6),
                   f"{hp:g}/{mx:g}",
                   # a condition's key as words, as the log tells it ("non responsive")
                   Text("\n").join(safe_text(k.replace("_", " ")) for k in sorted(c.conditions))
                   if c.conditions else Text("-"),
                   Text("\n").join(safe_text(_ammo(k, v)) for k, v in ammo.items()) if ammo else Text("-"))
    return tb


def _ammo(weapon: str, count: object) -> str:
    """One weapon's count as the log tells the weapon: "heavy pistol 8" (`reload heavy pistol` takes
    these words, as it takes the key)."""
    return f"{weapon_words(weapon)} {count}"


def order_line(state: BattleState) -> Text:
    """The round's initiative order, the acting figure marked."""
    t = Text(f"Round {state.round}/{state.round_limit}  order: ", style="bold")
    for i, cid in enumerate(state.order):
        c = state.by_id.get(cid)
        name = one_line(c.name if c else cid)
        style = team_style(state, c.team) if c else ""
        if c is not None and c.down:
            style = "grey50 strike"
        if i == state.turn_index and not state.over:
            t.append(f"▶{name}", style=style + " reverse")
        else:
            t.append(name, style=style)
        if i < len(state.order) - 1:
            t.append(" → ", style="grey50")
    if state.over:
        t.append(one_line(f"   fight over: {state.winner or 'draw'} ({state.end_reason})"), style="bold")
    return t


def battle_view(state: BattleState, rs: Ruleset, pc_teams: Iterable[str] = (),
                roles: Mapping[str, str] | None = None, highlight: Iterable[int] = ()) -> Group:
    """Map, initiative order and figures, ready to print."""
    marks = figure_marks(state, pc_teams)
    return Group(render_map(state, pc_teams, highlight, marks), order_line(state),
                 figures_table(state, rs, pc_teams, marks, roles))
