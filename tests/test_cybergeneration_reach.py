"""Cybergeneration's moves read off the reach (`reach_now`, issue 30) are `move_options`' own.

`legal_actions`, `do_move` and `move_price` used to build `move_options`' dict (the reach
copied, the cells of figures that are not dead popped) to read its sorted cells or one cost;
they now read both off `reach_now`. The long way below is the old `move_options` line for
line; at each decision of seeded fights (and each figure's fresh turn there) the moves
listed, and the cost of every cell of the map, must be its answer.
"""

from __future__ import annotations

from rules.state import BattleState
from tests.test_threat_query import cyber_states


def long_move_options(rs, state: BattleState, a) -> dict[int, int]:
    """`move_options` as it was before `reach_now`."""
    budget = rs.move_cap(state, a)
    if budget <= 0:
        return {}
    blockers = [c.pos for c in state.combatants if c.team != a.team and not c.down]
    if state.settings.get("drops"):
        reach = rs.with_drops(state, a, budget, blockers, rs.drop_cells(state))
    else:
        reach = state.grid.reachable(a.pos, budget, blockers)
    res = dict(reach)
    for c in state.combatants:
        if not c.dead:
            res.pop(c.pos, None)
    return res


def test_moves_read_off_the_reach_are_move_options() -> None:
    checked = moves = down_in_reach = 0
    for rs, s in cyber_states(12, 60):
        a = s.actor
        want = long_move_options(rs, s, a)
        assert rs.move_options(s, a) == want
        listed = [x.cell for x in rs.legal_actions(s) if x.kind == "move"]
        if s.pending is None:
            assert listed == sorted(want), (s.round, a.id)
        for cell in range(s.grid.n):
            assert rs.move_cost(s, a, cell) == want.get(cell)
        found = rs.reach_now(s, a)
        if found is not None:
            down_in_reach += any(c.down and not c.dead and c.pos in found[0] for c in s.combatants)
        checked += 1
        moves += len(want)
    assert checked > 300 and moves > 3000 and down_in_reach > 5, (checked, moves, down_in_reach)
