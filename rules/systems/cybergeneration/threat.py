"""Cybergeneration's threat query: the largest expected Wounds of the acting figure's attacks on
each of some figures (issue #30: `assess.incoming` and `best_threat` ask it for every enemy,
cell and stance that `tactical` weighs).

`best_expected_damage` answers what listing `legal_attacks(state, victim)` (grapple options
left out) and pricing each with `attack_odds_many` would give as the maximum `exp_damage`,
without building actions or result dicts. It is exact because:

- it walks the victim's weapons and options with the same checks as `combat.attack_actions`
  and `grapple.grapple_start_actions`, on the same unchanged state, so it prices what that
  listing lists (on that victim only: the listing's other targets change nothing);
- each option is priced with `odds.weapon_odds`' arithmetic: the attack's base is the same
  integer sum (the option's own modifier added to the option-free sum: integers, so the order
  does not matter) and its `exp_damage` the same float product, so the floats are the same
  bit for bit, and equal floats make `max` order-free;
- options that `weapon_odds` prices exactly as another listed one are priced once: a melee
  called shot at a gap (the plain attack's roll and damage).

A figure in a grapple or a hold lists other attacks (`grapple_round_actions`, `held_actions`),
each behind a preliminary opposed roll: rare, so the query answers None there and the caller
lists and prices them the long way.

`threat_profile` splits the query (issue #30, seventh pass), as cortex's and cortex_hu's: the
attacker's part (`_prepared`) once, then a function of the victim, which agents/threat_memo.py
keeps per enemy and round over a fight; `start_turn_rolls` says which turn starts roll (only the
suppression check), so that `tactical` skips starting the others on a copy.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable

from rules.state import BattleState, Combatant
from rules.systems.cybergeneration.checks import p_at_least, p_beat
from rules.systems.cybergeneration.odds import _mean, burst, grapple_odds, weapon_odds


def best_expected_damage(rs: Any, state: BattleState, a: Combatant, victims: Iterable[str]
                         ) -> dict[str, float] | None:
    """For each figure id in `victims`: max(0.0, `exp_damage` of every attack `legal_attacks`
    lists on it, grapple options left out); None when `a` is not the acting figure or grapples."""
    if a is not state.actor:
        return None
    out = dict.fromkeys(victims, 0.0)
    if state.pending is not None or a is None or a.down or state.over:
        return out  # `legal_attacks` lists nothing
    prep = _prepared(rs, state, a)
    if prep is None:
        return None
    if prep is _NONE:
        return out
    for vid in out:
        out[vid] = _on(rs, state, a, prep, state.by_id[vid])
    return out


#: `_prepared`: the acting figure lists no attack (every answer is 0.0)
_NONE = ()


def _prepared(rs: Any, state: BattleState, a: Combatant) -> tuple | None:
    """What of the query depends on the acting figure `a` alone: (its turn modifiers, its
    weapons in hand, REF, the modifiers table); `_NONE` where it lists no attack; None where it
    attacks from a grapple or a hold (the long way)."""
    e = state.economy
    can_act = e["actions"] < e["max_actions"] and e["suppress"] != "fail"
    if a.res["held_by"] is not None or (can_act and rs.in_grapple(a)):
        return None  # attacks from a grapple or a hold: the long way (see the module's docstring)
    if not can_act:
        return _NONE
    turn = rs.turn_mods(state) if e else {}  # as `attack_odds` finds it for the acting figure
    ws = [w for w in rs.weapons_of(a) if rs.in_hand(a, w) and not w.grapple_only]
    return turn, ws, rs.stat(a, "ref"), rs.mod


def _on(rs: Any, state: BattleState, a: Combatant, prep: tuple, t: Combatant) -> float:
    """The query's answer for one victim `t` (`prep`: `_prepared`'s)."""
    if t.team == a.team or t.dead:
        return 0.0
    turn, ws, ref, m = prep
    g = state.grid
    shared: dict = {}  # `_mean`'s memo, as `attack_odds_many` keeps one
    adj = g.adjacent(a.pos, t.pos)
    best = 0.0
    if adj and not t.down:  # the plain grapple (`grapple_start_actions`)
        ed = grapple_odds(rs, state, a, t, "", turn, shared)["exp_damage"]
        best = ed if ed > best else best
    for w in ws:
        if w.melee:
            if adj:
                ed = _melee(rs, state, a, t, w, turn, shared, ref, m)
            elif w.throwable and rs.difficulty(state, a, t, w, throw=True) is not None:
                ed = _ranged(rs, state, a, t, w, "throw", turn, shared, ref, m)
            else:
                continue
        elif not rs.loaded(a, w) or rs.difficulty(state, a, t, w) is None:
            continue
        elif w.kind == "ranged":
            ed = _ranged(rs, state, a, t, w, "", turn, shared, ref, m)
        elif w.kind == "grenade":
            ed = _priced(rs, state, a, t, w, "", turn, shared)
        elif w.kind == "genius":
            charge = a.res["ammo"].get(w.name, 0)
            ed = 0.0
            for n in range(int(w.x("blast_min", 3)), int(w.x("blast_max", 7)) + 1):
                if charge >= n:
                    x = _priced(rs, state, a, t, w, f"blast:{n}", turn, shared)
                    ed = x if x > ed else ed
            if charge >= int(w.x("scribble_dc", 5)):
                x = _priced(rs, state, a, t, w, "scribble", turn, shared)
                ed = x if x > ed else ed
        else:
            continue
        best = ed if ed > best else best
    return best


class _Alone:
    """What `_on` reads of a state besides the two figures, for a victim in no grapple and no
    hold: the map, and no other figure (see `threat_profile`)."""

    __slots__ = ("grid", "combatants")

    def __init__(self, grid: Any) -> None:
        self.grid = grid
        self.combatants = ()


#: answers a profile keeps before starting afresh
_KNOWN = 4096


def _nothing(t: Combatant) -> float:
    return 0.0


def threat_profile(rs: Any, state: BattleState, a: Combatant) -> Callable[[Combatant], float | None] | None:
    """`best_expected_damage` in two parts (`Ruleset.threat_profile`): what depends on the acting
    figure `a` alone (`_prepared`) once, then a function of the victim figure, which
    agents/threat_memo.py keeps per enemy over a fight (one per round: a turn started in another
    round may aim or wake, `threat_profile_by_round`).

    Of the state, the function reads the attacker, its fresh turn's economy and the map. The
    other figures enter `_on` only through the dogpile bonus (allies of one side grappling the
    other) and a genius weapon's scribble (the figures around the target). So the profile is
    None for an attacker with a scribble in reach of its charge, or one in a grapple or a hold
    (`best_expected_damage` is None there too), and the function answers None (the caller goes
    the long way) for a victim in a grapple or a hold. Grapples are held pairwise (`start_grapple`,
    `release_all`), so a victim in none is grappled by nobody: its dogpile is 0 whatever the
    other figures, and `_on` reads them through `_Alone`, which has none. Answers are kept per
    victim figure as the function reads it (cell, conditions, dodge, stat block, armour)."""
    if a is not state.actor:
        return None
    if state.pending is not None or a is None or a.down or state.over:
        return _nothing
    prep = _prepared(rs, state, a)
    if prep is None:
        return None
    if prep is _NONE:
        return _nothing
    for w in prep[1]:
        if w.kind == "genius" and a.res["ammo"].get(w.name, 0) >= int(w.x("scribble_dc", 5)):
            return None  # its scribble's damage is split among the figures around the target
    alone = _Alone(state.grid)
    known: dict[tuple, tuple] = {}

    def damage(t: Combatant) -> float | None:
        r = t.res
        if r["grapple"] or r["hold"] is not None or r["held_by"] is not None:
            return None
        key = (t.id, t.team, t.pos, r["dodge"], frozenset(t.conditions))
        hit = known.get(key)
        if hit is not None and hit[0] is t.stats and hit[1] is t.armour:
            return hit[2]
        best = _on(rs, alone, a, prep, t)
        if len(known) >= _KNOWN:
            known.clear()
        known[key] = (t.stats, t.armour, best)
        return best

    return damage


def start_turn_rolls(state: BattleState, a: Combatant) -> bool:
    """Whether `start_turn` may roll for `a`: only the suppression check does (`suppression_check`,
    for a figure suppressed at the start of its turn); a delayed rest of a turn rolls nothing."""
    resume = a.res["resume"]
    if resume is not None and resume["round"] == state.round:
        return False
    return bool(a.res["suppressed_by"])


def _priced(rs: Any, state: BattleState, a: Combatant, t: Combatant, w: Any, option: str, turn: dict,
            shared: dict) -> float:
    """`exp_damage` of one listed option, priced by `weapon_odds` itself (0.0 for no odds)."""
    o = weapon_odds(rs, state, a, t, w, option, turn, shared)
    return float(o.get("exp_damage", 0.0)) if o else 0.0


def _melee(rs: Any, state: BattleState, a: Combatant, t: Combatant, w: Any, turn: dict, shared: dict,
           ref: int, m: dict) -> float:
    """The best `exp_damage` of the melee attacks `attack_actions` lists for a melee weapon on an
    adjacent target: the plain attack, and on a standing one the called shots at the head and
    (armoured) at a gap, knockdown and (blunt) stun."""
    if w.no_roll or t.down:
        # priced by `weapon_odds` (no roll or the automatic hit on a fallen figure: the only melee
        # attacks `rollless`, so the only ones with the hurried check of two actions)
        best = _priced(rs, state, a, t, w, "", turn, shared)
        if not t.down:
            for option in ("called:head", "called:gap", "knockdown", "stun"):
                if _listed(rs, t, w, option):
                    x = _priced(rs, state, a, t, w, option, turn, shared)
                    best = x if x > best else best
        return best
    # `weapon_odds`' melee branch: pre is 1.0 (no grapple, no hurried check), so pre * p is p
    mod = rs.melee_mod(a, w)
    _, sk = rs.attack_skill(a, w, t)
    parts = rs.attack_parts(state, a, t, w, "", turn, melee=True) + rs.opposed_bonus(state, a, t, knocked=False)
    base = ref + sk + w.accuracy + sum(v for _, v in parts)
    dbase = rs.defence_base(state, t, a)[0]
    # the plain attack (a called shot at a gap rolls and hurts the same: the same float)
    best = p_beat(base, dbase) * _mean(shared, rs, t, w.dc, mod, w.ap)
    x = p_beat(base + m["called_shot"], dbase) * _mean(shared, rs, t, w.dc, mod, w.ap, head=True)
    best = x if x > best else best
    x = p_beat(base, dbase) * _mean(shared, rs, t, 1, 0, False)  # knockdown
    best = x if x > best else best
    if w.blunt:
        x = p_beat(base + m["stun_attack"], dbase) * _mean(shared, rs, t, 1, 0, False)
        best = x if x > best else best
    return best


def _listed(rs: Any, t: Combatant, w: Any, option: str) -> bool:
    """Whether `attack_actions` lists this melee option on a standing adjacent target."""
    if option == "called:gap":
        return rs.body_armour(t) is not None
    if option == "stun":
        return bool(w.blunt)
    return True


def _ranged(rs: Any, state: BattleState, a: Combatant, t: Combatant, w: Any, option: str, turn: dict,
            shared: dict, ref: int, m: dict) -> float:
    """The best `exp_damage` of a ranged weapon's plain shot, called shot at the head and (when
    listed) full auto; or (`option` "throw") of throwing a melee weapon."""
    if w.no_roll:
        # priced by `weapon_odds` (a ranged shot or a throw `rollless` only without a roll, so only
        # then with the hurried check of two actions)
        best = _priced(rs, state, a, t, w, option, turn, shared)
        if option == "":
            for o in ("called:head", "full_auto"):
                if o == "called:head" or _full_auto_listed(rs, a, w):
                    x = _priced(rs, state, a, t, w, o, turn, shared)
                    best = x if x > best else best
        return best
    # `weapon_odds`' ranged branch: pre is 1.0 (no grapple, no hurried check), so pre * p is p
    throw = option == "throw"
    diff = rs.difficulty(state, a, t, w, throw=throw)[0]
    _, sk = rs.attack_skill(a, w, t, throw)
    parts = rs.attack_parts(state, a, t, w, option, turn, melee=False, throw=throw)
    base = ref + sk + (0 if throw else w.accuracy) + sum(v for _, v in parts)
    mod = rs.body_mod(a) if w.bow else 0
    best = p_at_least(base, diff) * _mean(shared, rs, t, w.dc, mod, w.ap)
    if throw:
        return best
    x = p_at_least(base + m["called_shot"], diff) * _mean(shared, rs, t, w.dc, mod, w.ap, head=True)
    best = x if x > best else best
    if _full_auto_listed(rs, a, w):
        # `exp_damage` is pre * total_d, and pre is 1.0
        x = burst(rs.table.wounds, rs.stop_all_sp, rs.body_armour(t), w.dc, w.ap, base + m["full_auto"] - diff)[1]
        best = x if x > best else best
    return best


def _full_auto_listed(rs: Any, a: Combatant, w: Any) -> bool:
    return w.full_auto and rs.loaded(a, w, int(rs.data["full_auto"]["rounds"]))


__all__ = ["best_expected_damage", "start_turn_rolls", "threat_profile"]
