"""`tactical`'s exact value of a firing position: the attacks it allows (the rules' odds on a
copy of the fight after the move) against the fire it draws (each enemy's odds on a fresh turn
of that enemy, `assess.incoming`).

A position is scored to rank it among the candidate cells, and only the best three are kept.
So `exact_value` may stop pricing the enemies' fire once the cell's value is sure to fall
below the third best so far (`bar`): the exposure only grows with each enemy, so the value
computed from the enemies priced so far is an upper bound of the full one. The turns of the
enemies left are still started (`incoming(..., price=False)`), because a turn start may roll
the probe dice, and later looks in the decision must draw the same numbers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rules.actions import Action
from rules.state import BattleState

from agents import assess as A

if TYPE_CHECKING:
    from agents.tactical import Ctx, TacticalPolicy

#: expected number of attacks a figure gets in a turn (the first at full strength, later
#: ones at the multiple-action penalty): scales one attack's value to a turn's
ATTACKS_PER_TURN = 1.6


def exact_value(pol: "TacticalPolicy", ctx: "Ctx", cell: int, move: Action | None, bar: float | None = None,
                bonus: float = 0.0) -> tuple[float, float, float]:
    """(value, offence, exposure) of standing at `cell`, from the rules' odds on a copy.

    `bar`, `bonus`: the caller ranks `value + bonus` and needs it exactly only when it reaches
    `bar`; below it, the value returned is an upper bound (some enemies' fire left unpriced)."""
    rs = ctx.rs
    s2 = ctx.state if move is None else after_move(rs, ctx.state, move, pol.dice)
    me2 = s2.by_id[ctx.me.id]
    off = 0.0
    if not A.turn_over(s2) and s2.actor is me2:
        sub = ctx.sub(s2, me2)
        if move is None and not pol.lite:  # this decision's own odds (all of them when not lite)
            opts = [o for o in ctx.odds if not o.action.option] if pol.plain_only else ctx.odds
        else:
            opts = A.attack_options(rs, s2, me2, plain_only=pol.plain_only)
        scored = sorted(((pol.attack_value(sub, o), o) for o in opts if o.p_hit >= pol.p_min),
                        key=lambda x: -x[0])
        vals = [v for v, _ in scored]
        if scored:
            ctx.shots[cell] = scored[0][1]
            off = vals[0] + (ATTACKS_PER_TURN - 1.0) * (vals[1] if len(vals) > 1 else vals[0])
            off *= ctx.aggression
    if off <= 0:
        q, tgt = pol.offence_at(ctx, cell)
        off = ctx.later * q if tgt is not None else q  # attackable from there, but not this turn
    if not pol.odds_exposure:
        expo = pol.exposure(ctx, cell)[0]
    elif bar is None:
        expo = exact_exposure(pol, ctx, s2, cell)
    else:
        dw = ctx.def_weight
        # the fire priced so far, without the charges still to add, bounds the value from above
        expo = exact_exposure(pol, ctx, s2, cell, lambda total: off - dw * (total * ATTACKS_PER_TURN) + bonus < bar)
    return off - ctx.def_weight * expo, off, expo


def after_move(rs, state: BattleState, move: Action, dice) -> BattleState:
    """`A.after(rs, state, move, dice)` where the move changes only the figures the ruleset
    names (`Ruleset.move_touches`): those are copied, the others shared with `state` (the
    copy is only read: its attacks and the enemies' fire on it, each enemy's turn started on
    a copy of its own, agents/acting.py)."""
    ids = rs.move_touches(state, move) if move.kind == "move" else None
    if ids is None:
        return A.after(rs, state, move, dice)
    s2 = state.clone(ids)
    rs.apply(s2, move, dice)
    return s2


def exact_exposure(pol: "TacticalPolicy", ctx: "Ctx", s2: BattleState, cell: int, enough=None) -> float:
    """Expected damage fraction a turn of the enemies' fire costs at `cell` on state `s2`: each
    enemy in sight (or within a step, hand to hand) from its own odds; charging ones as guessed.

    `enough(total)`: asked after each enemy priced; once true, the others' turns are started
    but not priced, and the (smaller) sum so far is returned."""
    g = ctx.state.grid
    total = 0.0
    charging: list[float] = []
    price = True
    for e in ctx.enemies:
        reach = ctx.ereach[e.id]
        if reach <= A.MELEE_REACH_M:
            cheb = g.chebyshev(cell, e.pos)
            if cheb > 1:
                charging.append(ctx.danger[e.id] * pol.melee_threat(cheb))
                continue
        elif not g.los(e.pos, cell):
            continue
        x = A.incoming(ctx.rs, s2, e, ctx.me.id, pol.dice, pol.threats, price=price, keyed=pol.threat_memo)
        if price:
            total += x / ctx.hp
            if enough is not None and enough(total):
                price = False
    return (total + charge_sum(charging)) * ATTACKS_PER_TURN


def charge_sum(threats: list[float]) -> float:
    """Hand-to-hand enemies that could close in next turn: only the two worst count (the
    others will be busy with the figure's friends, or get in each other's way)."""
    threats.sort(reverse=True)
    return sum(threats[:2])


def third_best(scored: list[tuple[float, Action]]) -> float | None:
    """The third largest value of `scored` (None with fewer than three)."""
    if len(scored) < 3:
        return None
    return sorted((v for v, _ in scored), reverse=True)[2]
