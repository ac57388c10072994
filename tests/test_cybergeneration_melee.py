"""Rule tests for the `cybergeneration` ruleset (seed 004, Cybergeneration house rules), forced dice:
Melee, Grapple, Holds, and Critical Success and Failure.

Strict forced-dice replays through `rules.replay.run_replay`. The helpers, the order of the
dice in a step, the sources cited ("seed 004, <heading>", "assumption <key>") and the geometry
are in tests/cybergeneration_setup.py; the other topics in tests/test_cybergeneration_*.py.
"""

from __future__ import annotations

import pytest

from rules.events import narrate
from tests.cybergeneration_setup import (RS, _melee, act, attack, brawler, can, econ, end, evs, fig, legal,
                                         only, open_map, play, rolls, scen, shooter, who, wounds)


# ---------------------------------------------------------------------------------------
# Melee

def test_melee_is_an_opposed_roll_and_a_tie_fails():
    """seed 004, Melee: 'Melee is always opposed checks' (assumption melee_opposed: REF + skill +
    accuracy + 1d10 against REF + streetfighting + 1d10, the attacker must beat it)."""
    b = play(_melee(), [attack("a", "d", "knife", [5, 5])])
    r, dr = rolls(b, "attack")[0], only(rolls(b, "melee defence"))
    assert (r["total"], dr["total"]) == (15, 15) and only(evs(b, "attack"))["result"] == "miss"
    b = play(_melee(), [attack("a", "d", "knife", [6, 5, 9, 1])])
    # DC2 die 9 + 2 (BODY 10) = 11: column 10 (4) + 1 over (assumption damage_die_bounds)
    assert only(evs(b, "attack"))["result"] == "hit" and wounds(b, "d") == 5


@pytest.mark.parametrize("body,mod", [(1, -2), (2, -2), (3, -1), (4, -1), (5, 0), (7, 0), (8, 1), (9, 1),
                                      (10, 2), (11, 3), (12, 3), (13, 5), (14, 5), (15, 8), (20, 8)])
def test_body_type_damage_modifier(body, mod):
    """seed 004, Damage: 'Add to the Dice Roll based on body type: 2=-2, 2-4=-1, 5-7=0, 8-9=+1, 10=+2,
    11-12=+3, 13-14=+5, 15+=+8' (assumption body_bands: 2 or less -2, 3-4 -1)."""
    s = scen(open_map(), [brawler("a", (0, 1), body=body)], [brawler("d", (1, 1))])
    b = play(s)
    assert RS.body_mod(who(b, "a")) == mod


def test_body_type_on_melee_damage_but_cyber_limbs_only_for_borgs_and_tinmen():
    """seed 004, Damage: 'Cyber(punch/kick/crush) does not add body type unless they are a full body
    conversion. Tinmen evolution do add body type' (assumption cyber_body)."""
    for types, total in (((), 9), (("tinman",), 10), (("borg",), 10)):
        a = brawler("a", (0, 1), body=8, types=types, weapons=("cyberpunch",))
        b = play(_melee(a=a), [attack("a", "d", "cyberpunch", [6, 5, 9, 1])])
        assert only(rolls(b, "damage"))["total"] == total, types


def test_adults_against_kids_halve_the_kids_streetfighting():
    """seed 004, Adults v Kids: 'the kids streetfighting skill is halved (round down)'."""
    kid = brawler("a", (0, 1), skills={"streetfighting": 5})
    adult = brawler("d", (1, 1), kind="adult", skills={"streetfighting": 5})
    b = play(_melee(a=kid, d=adult), [attack("a", "d", "unarmed", [5, 5])])
    assert "streetfighting (halved: kid v adult) 2" in rolls(b, "attack")[0]["pool"]
    assert "halved" not in only(rolls(b, "melee defence"))["pool"]
    b = play(scen(open_map(), [dict(adult, at=[0, 1], id="a")], [dict(kid, at=[1, 1], id="d")]),
             [attack("a", "d", "unarmed", [2, 5])])
    assert "halved" not in rolls(b, "attack")[0]["pool"]
    assert "streetfighting (halved: kid v adult) 2" in only(rolls(b, "melee defence"))["pool"]


@pytest.mark.parametrize("down", [{"damage": 10}, {"stun_fail": "shock"}])
def test_unconscious_or_stunned_targets_are_hit_automatically_as_if_rolling_ten(down):
    """seed 004, Unconscious Targets: 'You automatically hit in melee and are treated as rolling 10 on
    the damage dice (if you have a static modifier ... it is applied as normal)' (assumption auto_hit_down)."""
    d = brawler("d", (1, 1), **down)
    s = scen(open_map(8), [brawler("a", (0, 1), body=8, weapons=("knife",))], [d, brawler("d2", (7, 2))])
    steps = []
    if "stun_fail" in down:  # into shock first: DC2 die 1 = 1 Wound, save 10 fails (9 left); no waking (10)
        steps = [attack("a", "d", "knife", [6, 5, 1, 10]), end("a", [10]), end("d2")]
    b = play(s, steps)
    t = who(b, "d")
    assert t.down and ("stunned" in t.conditions) == ("stun_fail" in down)
    before = wounds(b, "d")
    assert can(b, "attack", target="d", weapon="knife")
    b = play(s, steps + [attack("a", "d", "knife", [])])
    r = rolls(b, "damage DC2")[-1]
    assert r["dice"] == [] and r["counts_as"] == 10 and r["total"] == 11      # 10 + 1 (BODY 8)
    # nothing was rolled: the line says so ("a rolls damage DC2 (...): no dice = 11" before)
    assert narrate(r) == "a's damage DC2 (d10 + 1 body type): the die counts as 10 = 11"
    assert wounds(b, "d") - before == 5 and "automatic hit" in evs(b, "attack")[-1]["note"]


def test_knockdown_dc1_and_prone_with_minus_two():
    """seed 004, Knockdown: 'A successful knockdown attack does DC1 damage and knocks the victim over.
    (They will suffer -2 to appropriate checks)' (assumption knockdown)."""
    b = play(_melee(), [attack("a", "d", "unarmed", [6, 5, 3, 1], option="knockdown"), end("a"),
                        attack("d", "a", "unarmed", [5, 5])])
    assert wounds(b, "d") == 1                                     # DC1 die 3 (no body modifier)
    assert {"prone", "knocked"} <= who(b, "d").conditions
    r = rolls(b, "attack", "d")[0]    # -2 once (2026-12-07: it was taken twice, 11)
    assert r["pool"] == "REF 6 + streetfighting 4 - 2 knocked down + 1d10" and r["total"] == 6 + 4 - 2 + 5
    b = play(_melee(), [attack("a", "d", "unarmed", [6, 5, 3, 1], option="knockdown"), end("a"), act("d", "stand")])
    assert not {"prone", "knocked"} & who(b, "d").conditions


def test_knockdown_in_a_grapple_brings_both_down():
    """seed 004, Knockdown: 'If you do this while grappling then you both fall over'; Grapple: special
    attacks 'knockdown, disarm and cybercrush require a successful opposed check'."""
    steps = [act("a", "grapple", target="d", dice=[6, 5, 1, 1]), end("a"), end("d"),
             attack("a", "d", "unarmed", [6, 5, 1, 1], option="knockdown")]
    b = play(_melee(), steps)
    assert rolls(b, "attack with unarmed (knockdown)")[0]["pool"].find("while grappling") == -1
    assert {"prone", "knocked"} <= who(b, "a").conditions and {"prone", "knocked"} <= who(b, "d").conditions


def test_cybercrush_in_a_grapple_is_an_opposed_special_attack():
    """seed 004, Grapple: 'cybercrush (using a cyber hand to crush whatever is in it) ... require[s] a
    successful opposed check' (assumption hold_damage: a cyber hand crushes for DC3)."""
    a = brawler("a", (0, 1), weapons=("cyberhand",))
    b = play(_melee(a=a))
    assert not can(b, "attack", target="d", weapon="cyberhand")    # only in a grapple
    steps = [act("a", "grapple", target="d", dice=[6, 5, 1, 1]), end("a"), end("d"),
             attack("a", "d", "cyberhand", [6, 5, 10, 1])]
    b = play(_melee(a=a), steps)
    assert only(rolls(b, "melee defence"))["total"] == 15
    assert rolls(b, "damage DC3")[-1]["total"] == 10 and wounds(b, "d") == 5   # no body type: not a 'borg


def test_disarm_only_while_grappling():
    """seed 004, Disarm: 'Only possible if you are grappling, success results in whatever the opponent
    was holding in one hand being dropped' (assumption disarm)."""
    d = brawler("d", (1, 1), weapons=("knife",))
    b = play(_melee(d=d))
    assert not can(b, "attack", target="d", weapon="unarmed", option="disarm")
    steps = [act("a", "grapple", target="d", dice=[6, 5, 1, 1]), end("a"), end("d"),
             attack("a", "d", "unarmed", [6, 5], option="disarm")]
    b = play(_melee(d=d), steps)
    assert who(b, "d").res["drawn"] is None and b.state.objects[b.state.grid.index(1, 1)] == ["knife"]


def test_stun_attack_minus_two_dc1_and_minus_two_stun_modifier_before_the_save():
    """seed 004, Stun Weapons: 'Unarmed and blunt melee weapons can do stun by taking -2 to your attack
    roll. In the case of a hit they do DC 1 damage and apply a -2 penalty to your stun modifier (The
    penalty is applied before you have to make the save)'."""
    b = play(_melee(), [attack("a", "d", "unarmed", [8, 5, 3, 8], option="stun")])
    assert "- 2 stun attack" in rolls(b, "attack")[0]["pool"]
    assert wounds(b, "d") == 1 and who(b, "d").res["stun_mod"] == -2
    save = only(rolls(b, "stun save"))
    assert save["difficulty"] == 9 - 2 and save["success"] is False
    assert "unconscious" in who(b, "d").conditions


def test_spotting_a_gap_in_armour():
    """seed 004, Called Shots: 'In hand to hand combat you can make an INT + streetfighting roll to try to
    spot gaps in armour' (assumption armour_gap: against 15; found: -3 and the armour does not count)."""
    d = brawler("d", (1, 1), armour=("heavy_armour",))
    b = play(_melee(d=d), [attack("a", "d", "knife", [5, 9, 2, 10, 1], option="called:gap")])
    spot = only(rolls(b, "spot a gap"))
    assert spot["total"] == 6 + 4 + 5 and spot["success"] is True
    assert "- 3 called shot (gap)" in rolls(b, "attack")[0]["pool"]
    assert wounds(b, "d") == 6 and "armour" not in only(evs(b, "damage"))   # DC2 die 10+2: 4+2, no SP
    b = play(_melee(d=d), [attack("a", "d", "knife", [4, 9, 2, 10, 1], option="called:gap")])
    assert only(rolls(b, "spot a gap"))["success"] is False
    assert wounds(b, "d") == 3                                   # knife AP: SP 6 halves to 3


# ---------------------------------------------------------------------------------------
# Grapple

def _grappled(a: dict | None = None, d: dict | None = None, more_a: list[dict] = (), rows=None):
    """a grapples d (16 against 15), scuffle DC1 die 1 (0 Wounds), d saves on 1."""
    return _melee(a=a, d=d, more_a=more_a, rows=rows), [act("a", "grapple", target="d", dice=[6, 5, 1, 1])]


def test_grapple_dc1_both_grappling_and_no_movement():
    """seed 004, Grapple: 'A successful grapple attack inflicts DC1 damage as you scuffle ... both parties
    are defined as "grappling"' (assumption grapple: grappling figures cannot move)."""
    s, g = _grappled()
    b = play(s, [act("a", "grapple", target="d", dice=[6, 5, 3, 1])])
    assert wounds(b, "d") == 1
    assert "grappling" in who(b, "a").conditions and "grappling" in who(b, "d").conditions
    assert not any(a.kind == "move" for a in legal(b))
    b = play(s, g + [end("a")])
    assert not any(a.kind == "move" for a in legal(b))
    b = play(s, [act("a", "grapple", target="d", dice=[5, 5])])
    assert "grappling" not in who(b, "a").conditions


def test_scanner_static_wave_with_the_grapple_and_without_a_roll():
    """seed 004, Grapple: 'it is necessary to make a successful grapple attack for scanners to use their
    static wave attack ... (and static wave/contact charged for evolved)'; 'Static wave does not require
    another roll' (assumption static_wave: DC1, -2 stun modifier)."""
    scanner = brawler("a", (0, 1), types=("scanner",), weapons=("static_wave",))
    s, g = _grappled(a=scanner)
    b = play(s, [act("a", "grapple", target="d", dice=[6, 5, 1, 1, 3, 1])])
    assert who(b, "d").res["stun_mod"] == -2 and wounds(b, "d") == 1
    b = play(s, g[:0] + [act("a", "grapple", target="d", dice=[6, 5, 1, 1, 1, 1]), end("a"), end("d"),
                         attack("a", "d", "static_wave", [1, 1])])
    assert [r for r in rolls(b, "attack")] == [] and who(b, "d").res["stun_mod"] == -3   # -2, +1, -2
    b = play(s)
    assert not can(b, "attack", target="d", weapon="static_wave")


def test_small_weapons_in_a_grapple_at_minus_two_larger_ones_need_an_opposed_roll_first():
    """seed 004, Grapple: 'Unarmed attacks or attacks with small melee weapons or implants ... can be made
    while grappling without an opposed check. There is a -2 penalty'; 'To do anything else ... requires a
    successful opposed roll to even attempt it ... the regular check with a -2 penalty ... you do not get
    the +5 WA bonus for pistols shooting at point blank range'."""
    a = brawler("a", (0, 1), weapons=("knife", "baseball_bat", "light_pistol"),
                skills={"streetfighting": 4, "handgun": 4})
    s, g = _grappled(a=a)
    g = g + [end("a"), end("d")]
    b = play(s, g + [attack("a", "d", "knife", [5, 5])])
    assert rolls(b, "get a hand free") == [] and "- 2 while grappling" in rolls(b, "attack")[-1]["pool"]
    b = play(s, g)
    assert can(b, "ready", weapon="baseball_bat", option="change")  # 'Attempt another action' (after a roll)
    a2 = dict(a, drawn="baseball_bat")
    s2, g2 = _grappled(a=a2)
    b = play(s2, g2 + [end("a"), end("d"), attack("a", "d", "baseball_bat", [5, 5])])
    assert only(rolls(b, "get a hand free"))["success"] is False and rolls(b, "attack with") == []
    a3 = dict(a, drawn="light_pistol")
    s3, g3 = _grappled(a=a3)
    b = play(s3, g3 + [end("a"), end("d"), attack("a", "d", "light_pistol", [6, 5, 5, 1, 1])])
    r = rolls(b, "attack with")[-1]
    assert "- 2 while grappling" in r["pool"] and "point blank" not in r["pool"]


def test_firing_into_a_grapple_minus_three_and_near_misses_hit_the_other_guy():
    """seed 004, Grapple: 'Anyone firing into a grapple is at -3 and near-misses may hit the other guy'
    (assumption fire_into_grapple: a miss by 3 or less)."""
    s, g = _grappled(more_a=[shooter(at=(0, 2))], rows=open_map(8, 3))
    s["teams"][0]["combatants"][1]["at"] = [6, 2]
    b = play(s, g + [end("a"), attack("s", "d", "light_pistol", [4, 4, 1])])   # 11 - 3 + 4 = 12 vs 15: by 3
    r = only(rolls(b, "attack with light_pistol"))
    assert "- 3 firing into a grapple" in r["pool"]
    hit = evs(b, "attack", actor="s")
    assert hit[0]["result"] == "miss" and hit[1]["target"] == "a" and wounds(b, "a") == 2


def test_dogpiling_gives_a_bonus():
    """seed 004, Grapple: 'If you all want to dogpile in on someone there will be bonuses' (assumption
    dogpile: +2 for each ally already grappling the enemy)."""
    s, g = _grappled(more_a=[brawler("c", (1, 0))])
    b = play(s, g + [end("a"), act("c", "grapple", target="d", dice=[5, 5, 1, 1])])
    assert "+ 2 dogpile" in rolls(b, "grapple", "c")[0]["pool"]
    assert set(who(b, "d").res["grapple"]) == {"a", "c"}


def test_breaking_the_grapple_ends_the_actions_but_not_the_move():
    """seed 004, Grapple: 'Breaking the grapple ... requires a successful opposed roll. If you break the
    grapple you cannot take another action (but you can move)'."""
    s, g = _grappled()
    b = play(s, g + [end("a"), act("d", "grapple", target="a", option="break", dice=[6, 5])])
    assert not who(b, "d").res["grapple"] and not who(b, "a").res["grapple"]
    assert econ(b)["actions_left"] == 0.0 and any(a.kind == "move" for a in legal(b))
    b = play(s, g + [end("a"), act("d", "grapple", target="a", option="break", dice=[5, 5])])
    assert who(b, "d").res["grapple"] == ["a"]


# ---------------------------------------------------------------------------------------
# Holds

def _hold(a: dict | None = None, d: dict | None = None):
    """a (BODY 10: +2 body type) grapples d, then puts on a hold: 16 vs 15, hold DC2 die 3 + 2 = 2 Wounds."""
    s, g = _grappled(a=a, d=d)
    return s, g + [end("a"), end("d"), act("a", "grapple", target="d", option="hold", dice=[6, 5, 3, 1])]


def test_a_hold_needs_an_opposed_roll_and_does_hold_damage():
    """seed 004, Holds: 'It requires a successful opposed roll whilst grappling and inflicts hold damage'
    (assumption hold_damage: DC2 + body type)."""
    s, h = _hold()
    b = play(s, h)
    assert who(b, "a").res["hold"] == "d" and "grappled" in who(b, "d").conditions
    assert wounds(b, "d") == 2
    assert only(rolls(b, "damage DC2 (hold)"))["total"] == 5


def test_the_held_can_only_escape_and_a_failure_takes_hold_damage():
    """seed 004, Holds: 'The victim of a hold can only attempt to escape the hold which requires a
    successful opposed roll, if they fail then ... they automatically take hold damage'; 'If the victim
    escapes the hold then it breaks the grapple'; the holder adds '+3 / +their melee damage bonus
    (whichever is higher)' (assumption hold_bonus)."""
    s, h = _hold()
    b = play(s, h + [end("a")])
    assert {(a.kind, a.option) for a in legal(b)} == {("end_turn", None), ("grapple", "escape")}
    b = play(s, h + [end("a"), act("d", "grapple", target="a", option="escape", dice=[6, 3, 3, 1])])
    assert "+ 3 hold" in only(rolls(b, "resist escape"))["pool"]   # max(3, +2)
    assert wounds(b, "d") == 4 and who(b, "d").res["held_by"] == "a"
    b = play(s, h + [end("a"), act("d", "grapple", target="a", option="escape", dice=[9, 2])])   # 19 > 18
    assert who(b, "d").res["held_by"] is None and not who(b, "d").res["grapple"] and not who(b, "a").res["grapple"]


def test_hold_damage_on_the_holders_turn_and_the_borg_bonus():
    """seed 004, Holds: 'The attacker may inflict hold (or cybercrush with a cyberarm) damage on their
    turn with a successful opposed roll ... a BOD 15 'Borg is +8!'."""
    s, h = _hold()
    b = play(s, h + [end("a"), end("d"), act("a", "grapple", target="d", option="squeeze", dice=[3, 5, 3, 1])])
    assert "+ 3 hold" in rolls(b, "hold damage")[0]["pool"] and wounds(b, "d") == 4
    borg = brawler("a", (0, 1), body=15, types=("borg",), weapons=("cyberhand",))
    s, h = _hold(a=borg, d=brawler("d", (1, 1), body=20))
    b = play(s, h + [end("a"), end("d"), act("a", "grapple", target="d", option="squeeze", dice=[3, 5, 3, 1])])
    assert "+ 8 hold" in rolls(b, "hold damage")[0]["pool"]
    assert rolls(b, "damage DC3 (cybercrush hold)")[-1]["total"] == 3 + 8


def test_a_tinman_gives_no_hold_bonus_and_scanners_attack_while_held():
    """seed 004, Holds: 'While a Tinman can be held, their opponent does not get any bonuses for doing so
    due to the nature of their limbs (they are still restrained, but that is all a hold gives)'
    (assumption hold_bonus: no bonus, no hold damage, nothing to squeeze); 'Scanners and bolters can use
    their attacks whilst held'."""
    s, g = _grappled(d=brawler("d", (1, 1), types=("tinman",)))
    h = g + [end("a"), end("d"), act("a", "grapple", target="d", option="hold", dice=[6, 5])]
    b = play(s, h)
    assert who(b, "a").res["hold"] == "d" and "grappled" in who(b, "d").conditions   # restrained
    assert wounds(b, "d") == 0 and not rolls(b, "damage DC2 (hold)")
    b = play(s, h + [end("a"), act("d", "grapple", target="a", option="escape", dice=[5, 5])])
    assert "hold" not in only(rolls(b, "resist escape"))["pool"]
    assert who(b, "d").res["held_by"] == "a" and wounds(b, "d") == 0   # failed, but no hold damage
    b = play(s, h + [end("a"), end("d")])
    assert not can(b, "grapple", target="d", option="squeeze")
    s, h = _hold(d=brawler("d", (1, 1), types=("bolter",), weapons=("contact_charge",)))
    b = play(s, h + [end("a")])
    assert can(b, "attack", target="a", weapon="contact_charge")
    b = play(s, h + [end("a"), attack("d", "a", "contact_charge", [5, 1])])
    assert wounds(b, "a") == 3                                      # DC3 die 5, no roll to hit


# ---------------------------------------------------------------------------------------
# Critical Success and Failure

def test_a_natural_ten_adds_a_second_d10_when_it_would_miss():
    """seed 004, Critical Success: 'roll a second d10 and add it' (assumption crit_success_choice)."""
    b = play(scen(open_map(40), [shooter()], [fig("t", (20, 1))]), [attack("s", "t", "light_pistol", [10, 5, 3, 1])])
    r = only(rolls(b, "attack"))
    assert r["dice"] == [[10, 10], [10, 5]] and r["total"] == 26 and r["critical"] == "success"
    assert only(evs(b, "attack"))["result"] == "hit"


def test_a_natural_ten_that_hits_takes_two_damage_dice_and_keeps_the_higher():
    """seed 004, Critical Success: 'or roll 2 damage dice and take the higher' (assumption crit_success_choice)."""
    b = play(scen(open_map(), [shooter()], [fig("t", (8, 1))]), [attack("s", "t", "light_pistol", [10, 3, 8, 1])])
    assert only(rolls(b, "attack"))["two_damage_dice"] is True
    d = only(rolls(b, "damage"))
    assert d["dice"] == [[10, 3], [10, 8]] and d["total"] == 8 and wounds(b, "t") == 3


@pytest.mark.parametrize("second,effect", [(2, None), (6, "jam"), (9, "broken")])
def test_a_natural_one_subtracts_a_second_d10_which_decides_the_weapon(second, effect):
    """seed 004, Critical Failure: 'you roll a 2nd d10 and ... subtract it'; 'the result of the second d10
    roll determines on what happens to your weapon. Ranged weapons jam ... Broken' (assumption
    crit_failure_table: 1-4 nothing, 5-8 jam or drop, 9-10 broken)."""
    b = play(scen(open_map(), [shooter()], [fig("t", (4, 1))]), [attack("s", "t", "light_pistol", [1, second])])
    r = only(rolls(b, "attack"))
    assert r["total"] == 11 + 1 - second and r["critical"] == "failure"
    res = who(b, "s").res
    assert ("light_pistol" in res["jammed"]) == (effect == "jam")
    assert ("light_pistol" in res["broken"]) == (effect == "broken")


def test_a_fumbled_melee_weapon_is_dropped():
    """seed 004, Critical Failure: 'melee weapons are dropped'."""
    b = play(_melee(), [attack("a", "d", "knife", [1, 6, 5])])
    assert who(b, "a").res["drawn"] is None and b.state.objects[b.state.grid.index(0, 1)] == ["knife"]


def test_clearing_a_jam_takes_an_action_and_tech_plus_streetfighting():
    """seed 004, Critical Failure: 'Ranged weapons jam, requiring an action and (TECH + Streetfighting roll)
    to clear them' (assumption unjam: against 15)."""
    s = scen(open_map(), [shooter()], [fig("t", (4, 1))])
    jam = [attack("s", "t", "light_pistol", [1, 6]), end("s"), end("t")]
    b = play(s, jam)
    assert not can(b, "attack", target="t", weapon="light_pistol")
    b = play(s, jam + [act("s", "ready", weapon="light_pistol", option="unjam", dice=[6])])   # 5 + 4 + 6 = 15
    assert only(rolls(b, "clear the jammed"))["success"] is True
    assert econ(b)["actions_left"] == 0.0 and not who(b, "s").res["jammed"]
