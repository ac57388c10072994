"""The shortcuts in cortex's hot paths (issue #30) give what the long way gives.

Each check walks seeded fights of the bundled cortex scenarios (random, aggressive and
tactical policies; at each decision also every foe as if it acted) and compares a shortcut
with the code it replaced, kept here as the reference: the one-pass attack listing
(rules/systems/cortex/listing.py) with the per-target, per-weapon `_can_attack` walk.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from agents import assess as AS
from agents.base import make_policy
from rules.actions import Action
from rules.dice import Dice, Step, _dice_of
from rules.scenario import load_scenario, new_battle
from rules.state import BattleState, Combatant
from rules.systems.cortex.odds import _defence, hit_stats, steps_sizes

SCENARIOS = ["cortex/warehouse", "cortex/ambush", "cortex/duel", "cortex/saloon"]


def old_attack_actions(rs, state: BattleState, a: Combatant, only: str | None = None) -> list:
    """`CombatMixin.attack_actions` before issue #30's one-pass listing (the long way)."""
    e = state.economy
    A = rs.action
    out: list = []
    ws = rs.usable_weapons(a)
    if not ws:
        return out
    first = e["actions"] == 0
    holder = a.res["grappled_by"]
    g = state.grid
    sight = g.los_row(a.pos)
    can = rs._can_attack
    for t in state.combatants if only is None else [state.by_id[only]]:
        if t.team == a.team or t.down:
            continue
        if holder is not None and t.id != holder:
            continue
        seen = sight[t.pos]
        adj = g.adjacent(a.pos, t.pos)
        for w in ws:
            if not can(state, a, t, w, "", seen, adj):
                if w.x("throwable") and can(state, a, t, w, "throw", seen, adj):
                    out.append(A("attack", target=t.id, weapon=w.name, option="throw"))
                continue
            out.append(A("attack", target=t.id, weapon=w.name))
            if w.kind == "explosive":
                continue
            if first:
                out.extend(A("attack", target=t.id, weapon=w.name, option=o) for o in rs.called_options)
            if w.ranged:
                for mode in ("burst", "autofire"):
                    if w.x(mode) and can(state, a, t, w, mode, seen, adj):
                        out.append(A("attack", target=t.id, weapon=w.name, option=mode))
                continue
            extra: list[str] = []
            if w.name == "unarmed" or w.x("trip"):
                extra.append("trip")
            if w.name == "unarmed":
                if rs.has_style(a, "offensive_martial_arts") or rs.has_style(a, "wrestling"):
                    extra.append("double")
                if rs.has_style(a, "wrestling") and a.res["grappling"] == t.id:
                    if rs.held_weapon(t) is not None:
                        extra.append("disarm")
                    if "prone" not in t.conditions:
                        extra.append("takedown")
            out.extend(A("attack", target=t.id, weapon=w.name, option=o) for o in extra
                       if rs.attack_dice(state, a, t, w, o) is not None)
    return out


def old_attack_odds(rs, state: BattleState, a: Combatant, action: Action,
                    shared: dict | None = None):
    """`odds.attack_odds` before issue #30 (the long way).

    `shared`: a dict kept over several actions of the same figure on the same state
    (`attack_odds_many`): each target's attack pool, defence and armour per weapon, and
    each damage die, are worked out once."""
    if action.kind not in ("attack", "grapple") or action.target is None:
        return None
    if shared is None:
        shared = {}
    t = state.by_id[action.target]
    if action.kind == "grapple":
        if action.option:
            return None
        d = rs.grapple_dice(state, a)
        if d is None:
            return None
        w = rs.weapons["unarmed"]
        dfn, add, floor = _defence(rs, state, a, t, False, False)
        p_hit, e_margin, p_x = hit_stats(steps_sizes(d[:2]), dfn, add, floor, 0, rs.xmargin)
        return {"p_hit": p_hit, "p_extraordinary": p_x, "exp_damage": 0.0, "exp_margin": e_margin}
    option = action.option or ""
    w = shared.get(action.weapon)
    if w is None:
        w = shared[action.weapon] = rs.weapon_named(a, action.weapon)
    called = option.startswith("called:")
    # a called shot rolls the plain attack's pool (its Difficulty and damage are what
    # change), unless an improvised weapon suits one option better than another
    pool_opt = "" if called and not w.x("improvised") else option
    key = (t.id, w.name, pool_opt)
    ent = shared.get(key)
    if ent is None:
        dd = rs.attack_dice(state, a, t, w, pool_opt)
        if dd is None:
            ent = shared[key] = ()
        else:
            ranged = w.ranged or pool_opt == "throw"
            ent = shared[key] = (steps_sizes((dd[1], dd[3])),
                                 *_defence(rs, state, a, t, w.kind == "explosive", ranged),
                                 sum(x.W for x in t.armour), sum(x.S for x in t.armour))
    if not ent:
        return None
    att, dfn, add, floor, aw, as_ = ent
    extra = int(rs.called["areas"][option[7:]]["difficulty"]) if called else 0
    p_hit, e_margin, p_x = hit_stats(att, dfn, add, floor, extra, rs.xmargin)
    if option in ("trip", "disarm", "takedown"):
        return {"p_hit": p_hit, "p_extraordinary": p_x, "exp_damage": 0.0, "exp_margin": e_margin}
    if w.kind == "explosive":
        n = max(0, int(w.x("blast_dice", 1)) - state.grid.cover(t.pos, t.pos))
        e_total = n * w.damage.mean
        return {"p_hit": p_hit, "p_extraordinary": 0.0, "exp_damage": e_total, "exp_margin": 0.0}
    mkey = (w.name, option)
    die_total = shared.get(mkey)
    if die_total is None:
        die = w.damage
        if option in ("burst", "autofire"):
            die = die + int(rs.modes[option]["damage_steps"])
        if called:
            col = rs.called["areas"][option[7:]]["wound" if w.dtype == "W" else "stun_basic"]
            die = die + int(col.get("damage_steps", 0))
        die_total = shared[mkey] = int(round(die.mean))
    stun, wound = rs.split(int(round(e_margin)), w.dtype, die_total)
    dmg = max(0.0, wound - aw) + max(0.0, stun - as_)
    strikes = 2 if option == "double" else 1
    return {"p_hit": p_hit, "p_extraordinary": p_x, "exp_damage": strikes * p_hit * dmg, "exp_margin": e_margin,
            "damage_if_hit": dmg}


def states(scenario: str, policy: str, seed: int, n: int = 60) -> Iterator[tuple[object, BattleState]]:
    """(ruleset, state) before each of the first `n` decisions, and each foe acting there."""
    spec, src = load_scenario(scenario)
    b = new_battle(spec, Dice(np.random.default_rng(seed)), src, record=False)
    pols = {tm.name: make_policy(policy, seed) for tm in spec.teams}
    b.start()
    for _ in range(n):
        if b.state.over:
            return
        s = b.state
        yield b.ruleset, s
        if s.pending is None and s.actor is not None:
            for f in AS.foes(s, s.actor):
                s2 = AS.as_acting(b.ruleset, s, f.id, Dice(0))
                if s2 is not None:
                    yield b.ruleset, s2
        b.step(pols[s.actor.team].act(s, s.actor), check=False)


@pytest.mark.parametrize("scenario", SCENARIOS)
@pytest.mark.parametrize("policy", ["random", "aggressive", "tactical"])
def test_one_pass_attack_listing_is_the_long_way(scenario: str, policy: str) -> None:
    seen = 0
    for seed in (1, 2):
        for rs, s in states(scenario, policy, seed):
            a = s.actor
            if a is None or s.pending is not None or not s.economy:
                continue
            rs._pool_cache.clear()
            want = old_attack_actions(rs, s, a)
            rs._pool_cache.clear()
            assert rs.attack_actions(s, a) == want
            for c in s.combatants:
                rs._pool_cache.clear()
                assert rs.attack_actions(s, a, c.id) == old_attack_actions(rs, s, a, c.id)
            seen += len(want)
    assert seen > 0


def test_tabled_steps_are_the_computed_ones() -> None:
    for i in range(100):
        s = Step(i)
        assert s.dice == _dice_of(i)
        assert s.mean == sum((x + 1) / 2 for x in _dice_of(i))
        assert str(s) == ("d0" if i == 0 else "+".join(f"d{x}" for x in _dice_of(i)))
        for n in range(-15, 15):
            assert s + n == Step(max(0, i + n)) and s - n == Step(max(0, i - n))


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_has_defence_is_whether_the_pool_has_dice(scenario: str) -> None:
    checked = 0
    for policy in ("random", "tactical"):
        for rs, s0 in states(scenario, policy, 3):
            s = s0.clone()  # also as if impaired, or with no arms left
            s.combatants[0].conditions.add("impaired")
            s.combatants[-1].res["afflictions"].append({"effect": "lose_arm"})
            s.combatants[-1].res["afflictions"].append({"effect": "lose_hand"})
            for d in s0.combatants + s.combatants:
                st = s0 if d is s0.by_id[d.id] else s
                for mode in ("block", "dodge"):
                    for steps in range(-5, 3):
                        rs._pool_cache.clear()
                        assert rs.has_defence(st, d, mode, steps) == (rs.defence_pool(st, d, mode, steps) is not None)
                        checked += 1
    assert checked > 0


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_attack_odds_many_is_the_long_way(scenario: str) -> None:
    seen = 0
    for policy in ("random", "tactical"):
        for rs, s in states(scenario, policy, 4):
            if s.pending is not None or s.actor is None or not s.economy:
                continue
            acts = rs.legal_attacks(s)
            rs._pool_cache.clear()
            shared: dict = {}
            want = [old_attack_odds(rs, s, s.actor, x, shared) for x in acts]
            assert rs.attack_odds_many(s, s.actor, acts) == want
            seen += len(acts)
    assert seen > 0
