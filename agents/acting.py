"""A cheap look at a fight as if another figure started its turn now (for its threat).

`assess.as_acting` copies the whole fight (`BattleState.clone`: every figure) and starts
the figure's turn on the copy. To ask "what could that enemy do to me?" the policies only
read the copy (`legal_attacks`, `attack_odds_many`), and `start_turn` changes only the
turn economy and the figures the ruleset names (`Ruleset.start_turn_touches`: the figure
whose turn starts; in cybergeneration also those its ending suppression frees). So
`acting_view` copies only those figures (and the state's own lists and dicts, as `clone`
does); every other figure is the original's own object, shared, and must not be changed by
whoever reads the view.

Exact: `start_turn`, `legal_attacks` and `attack_odds_many` see figures equal to those of a
full copy and the same dice, so they give the same answers and roll the same dice
(tests/test_tactical_acting.py plays fights checking that, and that no change reaches the
original state).
"""

from __future__ import annotations

from rules.dice import Dice
from rules.ruleset import Ruleset
from rules.state import BattleState

_new = object.__new__
_MUTABLE = (dict, list, set)  # copied one level deep, as `BattleState.clone` copies the economy


def acting_view(rs: Ruleset, state: BattleState, who: str, dice: Dice) -> BattleState | None:
    """`assess.as_acting(rs, state, who, dice)` for reading only: the same answers, the same
    dice rolled, but only the figures its turn start may change copied where the ruleset
    names them (`Ruleset.start_turn_touches`; a full copy where it does not)."""
    c0 = state.by_id[who]
    if c0.down:
        return None
    ids = rs.start_turn_touches(state, c0)
    s2 = state.clone() if ids is None else _copy_some(state, ids)
    c = s2.by_id[who]
    s2.order = [who]
    s2.turn_index = 0
    can, _ = rs.start_turn(s2, c, dice)
    if not can or c.down:
        return None
    return s2


def _copy_some(state: BattleState, ids: set[str]) -> BattleState:
    """`state.clone()` in which only the figures `ids` are copied; the others are shared. Field
    by field as `BattleState.clone` (a field added there must be added here: the test of every
    field fails until it is)."""
    cs = [x.clone() if x.id in ids else x for x in state.combatants]
    s = _new(BattleState)
    s.ruleset = state.ruleset
    s.scenario = state.scenario
    s.grid = state.grid
    s.combatants = cs
    s.teams = state.teams
    s.round = state.round
    s.round_limit = state.round_limit
    s.order = list(state.order)
    s.turn_index = state.turn_index
    s.economy = {k: v.copy() if isinstance(v, _MUTABLE) else v for k, v in state.economy.items()}
    s.settings = state.settings
    s.objects = {k: list(v) for k, v in state.objects.items()} if state.objects else {}
    s.over = state.over
    s.winner = state.winner
    s.end_reason = state.end_reason
    s.by_id = {x.id: x for x in cs}
    s.pending = state.pending
    s.asking = None
    return s
