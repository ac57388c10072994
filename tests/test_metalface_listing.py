"""Fourth speed pass (issue 30): metalface's `legal_actions` (rules/systems/metalface/listing.py)
lists what the code it replaced listed, in the same order.

The replaced `legal_actions` is kept here (`old_legal_actions`, with the helper tests it
called) and compared with the ruleset's at every decision of seeded fights on every bundled
metalface scenario, and with every other standing figure put in the acting one's place (its
turn, the same economy). The moves (`paths.move_listing`, a copy of a kept list with the
occupied cells deleted) are compared with a fresh search as well, with no memo in between.
"""

from __future__ import annotations

from collections import Counter

import pytest

from rules.actions import END_TURN
from rules.systems.metalface import paths
from tests.seeded_states import as_actor, decisions

SCENARIOS = ["metalface/foundry", "metalface/rooftop", "metalface/scrapyard"]
EPS = 1e-6


def old_move_actions(rs, state, a) -> list:
    if a.res["posture"] != "stand":
        return []
    left = rs.move_left(a, state.economy)
    if left <= EPS:
        return []
    g = state.grid
    blockers, occs = state.blockers_and_occupied(a.team)
    reach = paths.moves(g, a.pos, a.res["facing"], left, rs.turn_m_per_45, blockers, cap=2 * rs.walk_m(a))
    out = {c: m for c, (m, _) in reach.items() if c not in occs}
    mv = g.move_actions
    return [mv[c] for c in out]


def fresh_move_actions(rs, state, a) -> list:
    """The moves from a search of its own: every enemy blocks, nothing remembered."""
    if a.res["posture"] != "stand":
        return []
    left = rs.move_left(a, state.economy)
    if left <= EPS:
        return []
    g = state.grid
    blockers, occs = state.blockers_and_occupied(a.team)
    ua, ub, unit = paths.units(g.cell_m, rs.turn_m_per_45)
    best, _ = paths.search(g, a.pos, a.res["facing"], int(left / unit + EPS), ua, ub,
                           [x for x in blockers if x != a.pos])
    return [g.move_actions[c] for c in sorted(best) if c not in occs]


def old_legal_actions(rs, state) -> list:
    """`MetalfaceRuleset.legal_actions` before the fourth speed pass."""
    if state.pending is not None:
        return rs.legal_actions(state)
    a = state.actor
    e = state.economy
    acts = [END_TURN]
    if a is None or a.down or not e or e.get("turn_over"):
        return acts
    acts.extend(old_move_actions(rs, state, a))
    A = rs.action
    ws = list(a.weapons.values())
    acts.extend(rs.attack_actions(state, a, ws))
    r = a.res
    half_ok = rs.can_spend_half(a, e)
    for w in ws:
        if w.ranged and rs.can_reload(state, a, w, half_ok):
            acts.append(A("reload", weapon=w.name))
    if r["jammed"] or r["packed"]:
        for w in ws:
            if rs.can_ready(state, a, w, half_ok):
                acts.append(A("ready", weapon=w.name))
    left = rs.move_left(a, e)
    if left > EPS:
        lim = left + EPS
        acts.extend(act for _, _, m, act in rs._turns[r["facing"]] if m <= lim)
        pi = rs.postures.index(r["posture"])
        for i, p in enumerate(rs.postures):
            if i != pi and abs(i - pi) * rs.posture_m <= lim:
                acts.append(A("posture", option=p))
    if not e["halves"] and e["move_m"] <= EPS:
        for t in state.combatants:
            if t.team == a.team and t is not a and rs.can_treat(state, a, t):
                acts.append(A("heal", target=t.id))
    if not e["activated"] and r["shield"] == "off" and rs.shield_device(a) is not None:
        acts.append(A("use", option="shield"))
    if r["damage"] > 0 and rs.can_treat(state, a, a):
        acts.append(A("use", option="heal_self"))
    if r["chooser"] == state.round and rs.can_delay(state, a):
        acts.append(A("delay"))
    return acts




def check_state(rs, s, seen: Counter) -> None:
    got = rs.legal_actions(s)
    assert got == old_legal_actions(rs, s)
    seen.update(x.kind for x in got)
    seen["states"] += 1
    a = s.actor
    if s.pending is None and a is not None and not a.down and s.economy and not s.economy.get("turn_over"):
        moves = [x for x in got if x.kind == "move"]
        assert moves == fresh_move_actions(rs, s, a)


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_legal_actions_are_the_old_listing(scenario: str) -> None:
    seen: Counter = Counter()
    for seed, pols in ((1, ("random", "random")), (2, ("aggressive", "random")), (3, ("tactical", "random")),
                       (4, ("random", "aggressive")), (5, ("random", "random")), (6, ("tactical", "tactical"))):
        for rs, s in decisions(scenario, seed, pols):
            check_state(rs, s, seen)
            if s.pending is None and s.actor is not None:
                for c in s.combatants:
                    if c is not s.actor and not c.down and c.id in s.order:
                        check_state(rs, as_actor(s, c), seen)
    assert seen["states"] > 500 and seen["move"] > 1000 and seen["attack"] > 50, seen
    for kind in ("turn", "posture", "reload", "delay"):
        assert seen[kind] > 0, (kind, seen)


def test_every_kind_of_action_is_compared() -> None:
    """Across the scenarios, each kind the listing can give is listed (and compared) somewhere."""
    seen: Counter = Counter()
    for scenario in SCENARIOS:
        for seed in (7, 8, 9):
            for rs, s in decisions(scenario, seed, ("random", "random"), 250):
                check_state(rs, s, seen)
    for kind in ("move", "attack", "turn", "posture", "reload", "delay", "end_turn"):
        assert seen[kind] > 0, (kind, seen)
