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


def acting_view(rs: Ruleset, state: BattleState, who: str, dice: Dice) -> BattleState | None:
    """`assess.as_acting(rs, state, who, dice)` for reading only: the same answers, the same
    dice rolled, but only the figures its turn start may change copied where the ruleset
    names them (`Ruleset.start_turn_touches`; a full copy where it does not)."""
    c0 = state.by_id[who]
    if c0.down:
        return None
    ids = rs.start_turn_touches(state, c0)
    s2 = state.clone(ids)  # None: every figure
    c = s2.by_id[who]
    s2.order = [who]
    s2.turn_index = 0
    can, _ = rs.start_turn(s2, c, dice)
    if not can or c.down:
        return None
    return s2
