"""Metalface's threat query (`rules/systems/metalface/threat.py`) gives the long way's number.

The long way is what `assess.incoming` did before the query: list the acting figure's attacks
on the victim (`legal_attacks`), price them with `attack_odds_many` and keep the largest
`exp_damage` (0.0 when none). Seeded fights on bundled and generated maps, with random,
aggressive and tactical teams, are walked decision by decision (`test_threat_query.states`:
the acting figure mid-turn and every figure started on a fresh turn); at each, the query is
compared bit for bit with the long way for every figure as the victim. Copies of some of those
states set by hand what the fights seldom show (lying, moved, flying, shields, jammed or
packed weapons, half turns spent).
"""

from __future__ import annotations

from collections.abc import Iterator

from rules.state import BattleState
from tests.test_threat_query import long_way, states


def _check(rs, s: BattleState) -> tuple[int, int]:
    ids = [c.id for c in s.combatants]
    got = rs.best_expected_damage(s, s.actor, ids)
    assert got is not None and list(got) == ids
    nonzero = 0
    for vid in ids:
        want = long_way(rs, s, vid)
        assert got[vid].hex() == want.hex(), (s.round, s.actor.id, vid, got[vid], want)
        assert rs.best_expected_damage(s, s.actor, (vid,))[vid].hex() == want.hex()
        nonzero += want > 0
    return len(ids), nonzero


def test_threat_query_metalface_is_the_largest_priced_attack() -> None:
    checked = nonzero = 0
    for rs, s in states("metalface", 24, 60):
        n, nz = _check(rs, s)
        checked += n
        nonzero += nz
    assert nonzero > 200 and checked > 2 * nonzero, (checked, nonzero)


def _variants(s: BattleState) -> Iterator[BattleState]:
    """Copies of `s` with the numbers set by hand (both ways read the same copy)."""
    a = s.actor
    for posture in ("lie", "kneel"):
        s2 = s.clone()
        s2.actor.res["posture"] = posture
        for c in s2.combatants:
            if c.team != a.team:
                c.res["posture"] = posture
        yield s2
    for moved, flew, halves in ((0.5, False, 0), (a.stats["values"]["agl"] + 0.5, False, 0), (0.0, True, 1),
                                (1.0, False, 1)):
        s2 = s.clone()
        s2.economy["move_m"], s2.economy["flew"], s2.economy["halves"] = moved, flew, halves
        yield s2
    s2 = s.clone()
    for c in s2.combatants:
        if c.team != a.team:
            c.res["moved"] = "running"
            c.res["shield"] = "on"
    yield s2
    for w in a.weapons.values():
        if w.ranged:
            for what in ("jammed", "packed"):
                s2 = s.clone()
                s2.actor.res[what].add(w.name)
                yield s2
            s2 = s.clone()
            s2.actor.res["ammo"][w.name] = 0
            yield s2
    for turn in range(8):
        s2 = s.clone()
        s2.actor.res["facing"] = turn
        yield s2


def test_threat_query_metalface_on_staged_states() -> None:
    checked = nonzero = 0
    for k, (rs, s) in enumerate(states("metalface", 8, 40)):
        if k % 3 or not s.economy:
            continue
        for s2 in _variants(s):
            n, nz = _check(rs, s2)
            checked += n
            nonzero += nz
    assert nonzero > 100 and checked > 2 * nonzero, (checked, nonzero)
