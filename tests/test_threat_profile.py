"""Enemies' threat profiles kept over a fight (agents/threat_memo.py, issue #30) give the
numbers of the long way, and skip only turn starts that roll no dice.

`assess.incoming` and `best_threat`, given `tactical`'s `ThreatMemo`, price an enemy's fire
with a function of the victim made once per enemy figure (`Ruleset.threat_profile`) on an
earlier state, and skip starting the enemy's turn where `Ruleset.start_turn_rolls` says it
rolls nothing. These checks play seeded fights of the rulesets that split the query and, at
every call `tactical` makes, ask the long way (a fresh turn start on a copy of that state,
then `best_expected_damage`) with dice of their own: the same float, and no die rolled where
the ruleset said none would be.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

import numpy as np
import pytest

from agents import assess as A
from agents import threat_memo as TM
from agents.acting import acting_view
from agents.base import make_policy
from rules.dice import Dice
from rules.scenario import load_scenario, new_battle
from rules.state import BattleState

FIGHTS = {
    "cortex": [("cortex/warehouse", ("tactical", "tactical"), 3), ("cortex/warehouse", ("tactical", "bold"), 8)],
    "cortex_hu": [("cortex_hu/magtar", ("tactical", "tactical"), 3), ("cortex_hu/magtar", ("bold", "tactical"), 5)],
    "metalface": [("metalface/scrapyard", ("tactical", "tactical"), 3), ("metalface/foundry", ("bold", "tactical"), 5)],
    "cybergeneration": [("cybergeneration/mall_raid", ("tactical", "tactical"), 3),
                        ("cybergeneration/alley_brawl", ("bold", "tactical"), 5)],
}


def play(scenario: str, pair: tuple[str, str], seed: int, n: int) -> Iterator[tuple[object, BattleState]]:
    """(ruleset, state) before each of the first `n` decisions of a seeded fight, played."""
    spec, src = load_scenario(scenario)
    b = new_battle(spec, Dice(np.random.default_rng(seed)), src, record=False)
    pols = {tm.name: make_policy(pair[i % 2], seed) for i, tm in enumerate(spec.teams)}
    b.start()
    for _ in range(n):
        if b.state.over:
            return
        yield b.ruleset, b.state
        b.step(pols[b.state.actor.team].act(b.state, b.state.actor), check=False)


def spare() -> Dice:
    return Dice(np.random.default_rng(11))


@pytest.mark.parametrize("ruleset", sorted(FIGHTS))
def test_profiles_answer_as_the_long_way(ruleset: str, monkeypatch: pytest.MonkeyPatch) -> None:
    incoming, best_threat, build = A.incoming, A.best_threat, TM.ThreatMemo.profile
    seen: Counter = Counter()

    def checked_incoming(rs, state, enemy, victim_id, dice, memo=None, price=True, keyed=None):
        got = incoming(rs, state, enemy, victim_id, dice, memo, price, keyed)
        if keyed is not None and price:
            d = spare()
            assert got == incoming(rs, state, enemy, victim_id, d), (state.round, enemy.id, victim_id)
            if not rs.start_turn_rolls(state, state.by_id[enemy.id]):
                assert d.record == []
            seen["incoming"] += 1
        return got

    def checked_best_threat(rs, state, enemy, dice, memo=None, keyed=None):
        got = best_threat(rs, state, enemy, dice, memo, keyed)
        if keyed is not None:
            assert got == best_threat(rs, state, enemy, spare())
            seen["best_threat"] += 1
        return got

    def counted(self, rs, state, enemy, dice):
        n = len(self.profiles)
        prof = build(self, rs, state, enemy, dice)
        seen["made" if len(self.profiles) != n else "reused"] += 1
        return prof

    monkeypatch.setattr(A, "incoming", checked_incoming)
    monkeypatch.setattr(A, "best_threat", checked_best_threat)
    monkeypatch.setattr(TM.ThreatMemo, "profile", counted)
    for scen, pair, seed in FIGHTS[ruleset]:
        for _ in play(scen, pair, seed, 70):
            pass
    assert seen["incoming"] > 120 and seen["best_threat"] > 20   # cortex_hu 143 since its prone rule (2026-12-07)
    assert seen["reused"] > 3 * seen["made"] > 0  # profiles are made on one state and used on others


@pytest.mark.parametrize("ruleset", sorted(FIGHTS))
def test_a_turn_start_said_to_roll_nothing_rolls_nothing(ruleset: str) -> None:
    looked = 0
    for scen, pair, seed in FIGHTS[ruleset]:
        for rs, s in play(scen, pair, seed, 40):
            for c in s.combatants:
                if not c.down and not rs.start_turn_rolls(s, c):
                    d = spare()
                    acting_view(rs, s, c.id, d)
                    assert d.record == []
                    looked += 1
    assert looked > 100


def test_a_cortex_turn_start_with_a_recovery_roll_is_said_to_roll() -> None:
    """seed 000, Called Shots: an effect lasting until an Endurance roll makes the turn start
    roll; dead, unconscious or dying figures roll no more."""
    rs, s = next(play("cortex/warehouse", ("tactical", "tactical"), 3, 1))
    c = next(x for x in s.combatants if x is not s.actor)
    assert not rs.start_turn_rolls(s, c)
    c.res["afflictions"].append({"area": "arm", "effect": "stunned", "until": "endurance", "conds": [],
                                 "blunt": False})
    assert rs.start_turn_rolls(s, c)
    d = spare()
    acting_view(rs, s, c.id, d)
    assert d.record != []
    c.conditions.add("dying")
    assert not rs.start_turn_rolls(s, c)


def test_a_figure_is_versioned_by_all_it_holds() -> None:
    """The memo's versions: an equal figure (another copy) is the same version; a change of
    position, condition or any resource, however deep, is another."""
    rs, s = next(play("cortex/warehouse", ("tactical", "tactical"), 3, 1))
    memo = TM.ThreatMemo()
    c = s.combatants[0]
    v = memo._version(c)
    assert v is not None and memo._version(c.clone()) == v
    moved = c.clone()
    moved.pos += 1
    held = c.clone()
    held.conditions.add("prone")
    deep = c.clone()
    deep.res["ammo"] = {k: n + 1 for k, n in deep.res["ammo"].items()} or {"x": 1}
    seen = {memo._version(x) for x in (moved, held, deep)}
    assert v not in seen and len(seen) == 3
    # a value the memo cannot copy as plain data: not versioned (the caller goes the long way)
    odd = c.clone()
    odd.res["thing"] = object()
    assert memo._version(odd) is None


def _mall_raid():
    """cybergeneration/mall_raid at its first decision (seed 3): `pixel` (juves) acts; the cswat
    troopers carry assault rifles, `pixel` a genius gun."""
    spec, src = load_scenario("cybergeneration/mall_raid")
    b = new_battle(spec, Dice(np.random.default_rng(3)), src, record=False)
    b.start()
    return b.ruleset, b.state


def _long_way(rs, s, enemy_id: str, victim_id: str) -> float:
    """`incoming` with no memo: a turn started on a copy, then the threat query."""
    return A.incoming(rs, s, s.by_id[enemy_id], victim_id, spare())


def test_a_suppressed_cybergeneration_figure_is_said_to_roll() -> None:
    """seed 004, Suppression: the suppressed make a COOL roll at the start of their turn; nothing
    else in a turn start rolls (a delayed rest of a turn rolls nothing either)."""
    rs, s = _mall_raid()
    t = s.by_id["trooper1"]
    assert not rs.start_turn_rolls(s, t)
    t.res["suppressed_by"].append("rico")
    assert rs.start_turn_rolls(s, t)
    d = spare()
    acting_view(rs, s, "trooper1", d)
    assert d.record != []
    t.res["resume"] = {"round": s.round, "economy": dict(s.economy)}
    assert not rs.start_turn_rolls(s, t)


def test_cybergeneration_profiles_decline_what_reads_other_figures() -> None:
    """The victim in a grapple (its dogpile counts the attacker's allies grappling it) is answered
    the long way, and an attacker whose genius gun can scribble (its damage is split among the
    figures around the target) has no profile; both still get the long way's number."""
    rs, s = _mall_raid()
    memo = TM.ThreatMemo()
    prof = memo.profile(rs, s, s.by_id["trooper2"], spare())
    assert prof is not None and prof(s.by_id["hawk"]) == _long_way(rs, s, "trooper2", "hawk") > 0
    for a, b in (("hawk", "tin"), ("tin", "hawk")):
        s.by_id[a].res["grapple"].append(b)
    assert prof(s.by_id["hawk"]) is None
    assert A.incoming(rs, s, s.by_id["trooper2"], "hawk", spare(), keyed=memo) == _long_way(rs, s, "trooper2", "hawk")
    pixel = s.by_id["pixel"]
    gun = next(w for w in rs.weapons_of(pixel) if w.kind == "genius")
    pixel.res["ammo"][gun.name] = int(gun.x("scribble_dc", 5))
    s2 = acting_view(rs, s, "pixel", spare())
    assert rs.threat_profile(s2, s2.by_id["pixel"]) is None
    pixel.res["ammo"][gun.name] = int(gun.x("scribble_dc", 5)) - 1
    s2 = acting_view(rs, s, "pixel", spare())
    assert rs.threat_profile(s2, s2.by_id["pixel"]) is not None


def test_a_cybergeneration_profile_holds_for_its_round() -> None:
    """A figure that aimed last turn starts its next turn aimed only in the round it aimed for
    (`aim_round`): the same figure's threat differs between rounds, and the memo keeps a profile
    per round (`threat_profile_by_round`) to give the long way's number in each."""
    rs, s = _mall_raid()
    memo = TM.ThreatMemo()
    t = s.by_id["trooper2"]
    t.res["aim_round"] = s.round + 1
    now = A.incoming(rs, s, t, "hawk", spare(), keyed=memo)
    assert now == _long_way(rs, s, "trooper2", "hawk")
    s.round += 1
    later = A.incoming(rs, s, t, "hawk", spare(), keyed=memo)
    assert later == _long_way(rs, s, "trooper2", "hawk") > now
    assert len(memo.profiles) == 2


def test_a_metalface_profile_tells_victims_apart_by_all_it_reads() -> None:
    """One profile per enemy serves every victim state of a fight: a victim changed in anything the
    query reads (seed 003: lying and a shield are partial cover, the target's movement status and
    Status level are modifiers, the damage is capped by the Status left; a body attack from behind
    loses a die) gets the long way's number, not the one kept for it as it was."""
    spec, src = load_scenario("metalface/scrapyard")
    b = new_battle(spec, Dice(np.random.default_rng(3)), src, record=False)
    b.start()
    rs, s = b.ruleset, b.state
    memo = TM.ThreatMemo()
    variants = [("posture", "lie"), ("shield", "on"), ("moved", "running"), ("level", "critical"),
                ("damage", None)] + [("facing", f) for f in range(8)]
    moved = set()
    for enemy, victim in (("ganger1", "wisp"), ("sprocket", "wrench")):  # a shot; a body attack (adjacent)
        t = s.by_id[victim]
        base = A.incoming(rs, s, s.by_id[enemy], victim, spare(), keyed=memo)
        assert base == _long_way(rs, s, enemy, victim) > 0
        for key, value in variants:
            old = t.res[key]
            t.res[key] = t.stats["status"] - 1 if key == "damage" else value
            got = A.incoming(rs, s, s.by_id[enemy], victim, spare(), keyed=memo)
            assert got == _long_way(rs, s, enemy, victim), (enemy, victim, key, value)
            if got != base:
                moved.add(key)
            t.res[key] = old
            assert A.incoming(rs, s, s.by_id[enemy], victim, spare(), keyed=memo) == base
    assert moved >= {"posture", "shield", "moved", "level", "damage"}
    assert len(memo.profiles) == 2
