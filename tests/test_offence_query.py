"""`Ruleset.priced_attacks` (the offence query, issue 30) gives the long way's list.

The long way is what `assess.attack_options` does without the query: list the acting
figure's attacks (`legal_attacks`), price them with `attack_odds_many`, drop those without
odds and read (p_hit, exp_damage, damage_if_hit) off each dict. Seeded fights of each ruleset
that provides the query, on bundled and generated maps, with random, aggressive and tactical
teams, are walked decision by decision; at each, the query is compared with the long way,
bit for bit and in order, on the state itself and on copies after some of the legal moves
and after a reload, a stance or a dropped weapon (what `tactical` tries before pricing its
own attacks), with and without `plain_only`. A test breaks the query on purpose and checks
that the comparison notices.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from agents import assess as A
from agents.base import make_policy
from rules.dice import Dice
from rules.ruleset import get_ruleset
from rules.scenario import bundled_scenarios, load_scenario, new_battle
from rules.state import BattleState

PROVIDERS = ["cortex"]
POLICIES = ("tactical", "aggressive", "random")
TRIED = ("move", "reload", "defend", "drop_prone", "stand", "pick_up", "use")


def long_way(rs, state: BattleState, actor, plain_only: bool) -> list[tuple]:
    """`attack_options` without the query: (action, p_hit, exp_damage, damage_if_hit)."""
    acts = [a for a in rs.legal_attacks(state)
            if a.kind in A.ATTACK_KINDS and a.target is not None and not (plain_only and a.option)]
    out = []
    for a, o in zip(acts, rs.attack_odds_many(state, actor, acts) if acts else ()):
        if not o:
            continue
        p = float(o.get("p_hit", 0.0))
        ed = float(o.get("exp_damage", 0.0))
        out.append((a, p, ed, float(o.get("damage_if_hit", ed / p if p > 0 else 0.0))))
    return out


def same(got, want) -> bool:
    return got is not None and len(got) == len(want) and all(
        g[0] == w[0] and all(type(x) is float and x.hex() == y.hex() for x, y in zip(g[1:], w[1:]))
        for g, w in zip(got, want))


def fights(ruleset: str, n: int) -> Iterator[tuple[str | dict, str, int]]:
    """(scenario, policy, seed) of n fights: bundled and generated maps in turn."""
    from envs.generators import generate_scenario
    bundled = [s for s in bundled_scenarios() if s.split("/")[0] == ruleset]
    for k in range(n):
        scen = bundled[(k // 2) % len(bundled)] if k % 2 == 0 else generate_scenario(ruleset, 500 + k)
        yield scen, POLICIES[k % len(POLICIES)], k


def states(ruleset: str, n_fights: int, n_decisions: int, tries: int = 3) -> Iterator[tuple[object, BattleState]]:
    """(ruleset, state) at each decision of the fights, and copies after a few trial actions."""
    for scen, policy, seed in fights(ruleset, n_fights):
        spec, src = load_scenario(scen)
        b = new_battle(spec, Dice(np.random.default_rng(seed)), src, record=False)
        pols = {tm.name: make_policy(policy, seed) for tm in spec.teams}
        b.start()
        rng = np.random.default_rng(seed)
        for _ in range(n_decisions):
            s = b.state
            if s.over:
                break
            if s.pending is None:
                rs = b.ruleset
                yield rs, s
                legal = [a for a in rs.legal_actions(s) if a.kind in TRIED]
                for i in rng.permutation(len(legal))[:tries]:
                    s2 = A.after(rs, s, legal[i], Dice(np.random.default_rng(seed)))
                    if s2.actor is not None and s2.pending is None:
                        yield rs, s2
            b.step(pols[s.actor.team].act(s, s.actor), check=False)


def check(ruleset: str, n_fights: int, n_decisions: int) -> tuple[int, int]:
    checked = priced = 0
    for rs, s in states(ruleset, n_fights, n_decisions):
        for plain_only in (False, True):
            want = long_way(rs, s, s.actor, plain_only)
            got = rs.priced_attacks(s, s.actor, plain_only)
            assert same(got, want), (s.round, s.actor.id, plain_only, got, want)
            # and as `attack_options` gives it, from the full legal list too
            legal = rs.legal_actions(s)
            for opts in (A.attack_options(rs, s, s.actor, plain_only=plain_only),
                         A.attack_options(rs, s, s.actor, legal, plain_only=plain_only, complete=True)):
                assert same([(o.action, o.p_hit, o.exp_damage, o.damage_if_hit) for o in opts], want)
            checked += 1
            priced += len(want)
        other = next((c for c in s.combatants if c is not s.actor), None)
        assert rs.priced_attacks(s, other) is None  # not the acting figure: the long way answers
    return checked, priced


@pytest.mark.parametrize("ruleset", PROVIDERS)
def test_offence_query_is_the_priced_listing(ruleset: str) -> None:
    checked, priced = check(ruleset, 12, 50)
    assert checked > 500 and priced > 2000


@pytest.mark.slow
@pytest.mark.parametrize("ruleset", PROVIDERS)
def test_offence_query_is_the_priced_listing_long(ruleset: str) -> None:
    checked, priced = check(ruleset, 60, 120)
    assert checked > 3000


def test_offence_query_broken_is_noticed(monkeypatch) -> None:
    """Break one part of the query at a time: the comparison fails."""
    from rules.systems.cortex import offence
    real_strike, real_defence = offence._strike, offence._defence

    def strike(*args):
        p, ed, dih = real_strike(*args)
        return p, ed * (1 + 1e-12) if args[10] == 2 or args[4] else ed, dih  # called shots, doubles

    def defence(rs, state, a, t, explosive, ranged):
        dfn, add, floor = real_defence(rs, state, a, t, explosive, ranged)
        return dfn, add + (1 if not ranged else 0), floor  # melee and grapples only

    for name, fake in (("_strike", strike), ("_defence", defence)):
        monkeypatch.setattr(offence, name, fake)
        with pytest.raises(AssertionError):
            check("cortex", 12, 50)
        monkeypatch.setattr(offence, name, real_strike if name == "_strike" else real_defence)


def test_offence_query_is_optional() -> None:
    """A ruleset without the query answers None, and `attack_options` lists and prices instead."""
    rs = get_ruleset("metalface")
    spec, src = load_scenario([s for s in bundled_scenarios() if s.startswith("metalface")][0])
    b = new_battle(spec, Dice(np.random.default_rng(0)), src, record=False)
    b.start()
    assert rs.priced_attacks(b.state, b.state.actor) is None


# -- a trial move on a copy of the mover alone (`Ruleset.move_touches`, agents/refine.py) ------
def snapshot(s: BattleState) -> tuple:
    """Everything a fight can change, deep-copied, for comparing states and before/after."""
    import copy
    figs = tuple((c.id, c.pos, copy.deepcopy(c.conditions), copy.deepcopy(c.res)) for c in s.combatants)
    return (figs, copy.deepcopy(s.economy), copy.deepcopy(s.objects), list(s.order), s.turn_index, s.round,
            s.over, s.winner, s.pending, s.asking)


def check_moves(ruleset: str, n_fights: int, n_decisions: int, moves: int = 4) -> int:
    from agents.refine import after_move
    tried = 0
    for scen, policy, seed in fights(ruleset, n_fights):
        spec, src = load_scenario(scen)
        b = new_battle(spec, Dice(np.random.default_rng(seed)), src, record=False)
        pols = {tm.name: make_policy(policy, seed) for tm in spec.teams}
        b.start()
        rng = np.random.default_rng(seed)
        for _ in range(n_decisions):
            s = b.state
            if s.over:
                break
            rs = b.ruleset
            if s.pending is None:
                mv = [a for a in rs.legal_actions(s) if a.kind == "move"]
                for i in rng.permutation(len(mv))[:moves]:
                    before = snapshot(s)
                    d1, d2 = Dice(np.random.default_rng(seed)), Dice(np.random.default_rng(seed))
                    full, light = A.after(rs, s, mv[i], d1), after_move(rs, s, mv[i], d2)
                    assert snapshot(light) == snapshot(full) and d1.record == d2.record
                    # what is read off the copy: the mover's attacks, each enemy's fire on it
                    me = s.actor.id
                    got = rs.priced_attacks(light, light.by_id[me])
                    if got is None:   # a ruleset without the query (metalface): the long way on both
                        got = long_way(rs, light, light.by_id[me], False)
                    assert same(got, long_way(rs, full, full.by_id[me], False))
                    for e in A.foes(full, full.by_id[me]):
                        x1 = A.incoming(rs, full, e, me, Dice(np.random.default_rng(1)))
                        x2 = A.incoming(rs, light, light.by_id[e.id], me, Dice(np.random.default_rng(1)))
                        assert x1.hex() == x2.hex()
                    assert snapshot(s) == before  # the fight looked at is unchanged
                    tried += rs.move_touches(s, mv[i]) is not None
            b.step(pols[s.actor.team].act(s, s.actor), check=False)
    return tried


@pytest.mark.parametrize("ruleset", ["cortex", "metalface", "cybergeneration"])
def test_a_move_on_a_copy_of_the_mover_alone_is_the_full_trial(ruleset: str) -> None:
    assert check_moves(ruleset, 8, 40) > 300


@pytest.mark.parametrize("ruleset", ["cortex", "metalface", "cybergeneration"])
def test_a_move_touching_too_few_is_noticed(monkeypatch, ruleset: str) -> None:
    """A ruleset naming nobody (the mover shared with the fight): the check fails."""
    rs = get_ruleset(ruleset)
    monkeypatch.setattr(type(rs), "move_touches", lambda self, state, action: set())
    with pytest.raises(AssertionError):
        check_moves(ruleset, 2, 20)
