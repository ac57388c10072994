"""A cheap look at a fight as if another figure started its turn now (for its threat).

`assess.as_acting` copies the whole fight (`BattleState.clone`: every figure) and starts
the figure's turn on the copy. To ask "what could that enemy do to me?" the policies only
read the copy (`legal_attacks`, `attack_odds_many`), and for most rulesets `start_turn`
changes only the figure whose turn starts and the turn economy. So `acting_view` copies
only that figure (and the state's own lists and dicts, as `clone` does); every other figure
is the original's own object, shared, and must not be changed by whoever reads the view.

Exact: `start_turn`, `legal_attacks` and `attack_odds_many` see figures equal to those of a
full copy and the same dice, so they give the same answers and roll the same dice
(tests/test_tactical_acting.py plays fights checking that, and that no change reaches the
original state).
"""

from __future__ import annotations

from rules.dice import Dice
from rules.ruleset import Ruleset
from rules.state import BattleState

# Which rulesets allow it is the ruleset's own declaration (`Ruleset.start_turn_changes_only_actor`):
# cybergeneration does not: its upkeep ends the actor's suppression, which changes the figures it
# suppressed.

_new = object.__new__
_MUTABLE = (dict, list, set)  # copied one level deep, as `BattleState.clone` copies the economy


def acting_view(rs: Ruleset, state: BattleState, who: str, dice: Dice) -> BattleState | None:
    """`assess.as_acting(rs, state, who, dice)` for reading only: the same answers, the same
    dice rolled, but only figure `who` copied where the ruleset allows (`Ruleset.start_turn_changes_only_actor`)."""
    if state.by_id[who].down:
        return None
    s2 = _copy_one(state, who) if rs.start_turn_changes_only_actor else state.clone()
    c = s2.by_id[who]
    s2.order = [who]
    s2.turn_index = 0
    can, _ = rs.start_turn(s2, c, dice)
    if not can or c.down:
        return None
    return s2


def _copy_one(state: BattleState, who: str) -> BattleState:
    """`state.clone()` in which only figure `who` is copied; the others are shared. Field by
    field as `BattleState.clone` (a field added there must be added here: the test of every
    field fails until it is)."""
    c0 = state.by_id[who]
    c = c0.clone()
    cs = [c if x is c0 else x for x in state.combatants]
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
