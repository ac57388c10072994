"""A move's path and its end_facing question from one look-up of the search (seed 003, Move).

`_move` used to find the equally cheap last steps (`end_headings`, for the end_facing
question) and then the path (`path_to`): two look-ups of the same memoised search, and
every tying heading priced along its parents even where nobody is asked. Here the search
is looked up once, and with no asker (`state.asking is None`: a recorded fight with no
decider, or a planner's copy) only whether a second heading ties is worked out: the
question then takes its default, the engine's heading (listed first), and the choice event
names it, so the answer and the event log are those of the full list.
"""

from __future__ import annotations

from rules.events import Event
from rules.state import BattleState, Combatant
from rules.systems.metalface.paths import headings_in, path_in, reach_parents


def move_path(rs, state: BattleState, a: Combatant, cell: int) -> tuple[list[int], float, int, list[Event]]:
    """(cells from the figure to `cell`, metres, facing after, the end_facing choice event)
    for `rs`'s `_move`: `choose_end_facing`'s answer, then `path_to` along it."""
    blockers, _ = state.blockers_and_occupied(a.team)
    per45 = rs.turn_m_per_45
    facing = a.res["facing"]
    res, par = reach_parents(state.grid, a.pos, facing, rs.move_left(a, state.economy), per45, blockers,
                             cap=2 * rs.walk_m(a))
    # exact: with no asker only len(hs) > 1 and hs[0] matter (decide answers the default)
    hs = headings_in(state.grid, res, par, cell, per45, 8 if state.asking is not None else 2)
    h, evs = rs.choose_end_facing(state, a, cell, hs)
    path, m, b = path_in(res, par, facing, cell, h)
    return path, m, b, evs


__all__ = ["move_path"]
