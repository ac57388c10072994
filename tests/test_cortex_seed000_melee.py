"""Forced-dice tests for the seed 000 special rules of the `cortex` ruleset:
Melee Combat: Improvised Weapons and Tripping.

Strict forced-dice replays through `rules.replay.run_replay`. The helpers, the roll order, the
sources cited ("seed 000, <heading>", "RULES-NOTES", "assumption <key>") and the geometry are
in tests/cortex_seed000_setup.py; the other topics in tests/test_cortex_seed000_*.py.
"""

from __future__ import annotations

import pytest

from rules.actions import Action
from rules.dice import D2, Step
from tests.cortex_seed000_setup import (RS, act, atk, attacks_in, cell, dummy, economy, evs, fig, legal, only,
                                        open_map, play, play_loose, rolls, scen, sides, who)


# ---------------------------------------------------------------------------------------
# Melee Combat, Improvised Weapons (assumptions improvised_skill, improvised_break, pick_up)

SEED_IMPROVISED = {   # seed 000 table: penalty, chance of breaking, damage, after breaking
    "bottle_glass": (-1, 0.50, "d2", "S", "broken_bottle"),
    "chair_wood": (-3, 0.25, "d6", "B", "chair_leg"),
    "chair_metal": (-3, 0.10, "d6", "B", "metal_implement"),
    "chair_leg": (-2, 0.0, "d4", "B", None),
    "heavy_object": (-4, 0.10, "d8", "B", None),
    "metal_implement": (-1, 0.0, "d2", "B", None),
    "pool_stick": (-1, 0.50, "d2", "S", None),
    "pottery_small": (-2, 0.75, "d4", "B", None),
    "pottery_large": (-3, 0.75, "d4", "B", None),
}


@pytest.mark.parametrize("name", sorted(SEED_IMPROVISED))
def test_improvised_weapon_table_matches_the_seed(name):
    """seed 000, Melee Combat, Improvised Weapons: the table's skill penalty, chance of
    breaking, damage before and after breaking (broken bottle: d2 W)."""
    pen, chance, dmg, dtype, broken = SEED_IMPROVISED[name]
    w = RS.weapons[name]
    assert w.x("improvised") and w.x("penalty") == pen and w.x("break") == chance
    assert w.damage == Step.parse(dmg) and w.dtype == dtype
    assert w.x("broken") == broken
    if broken:
        assert broken in RS.weapons
    bb = RS.weapons["broken_bottle"]
    assert (bb.damage, bb.dtype) == (D2, "W")


@pytest.mark.parametrize("name,skill_sides", [
    ("bottle_glass", [6]), ("chair_wood", [2]), ("chair_metal", [2]), ("chair_leg", [4]),
    ("heavy_object", []), ("metal_implement", [6]), ("pool_stick", [6]), ("pottery_small", [4]),
    ("pottery_large", [2]),
])
def test_improvised_weapon_skill_penalty_on_the_attack(name, skill_sides):
    """seed 000, Improvised Weapons: the object's skill penalty steps the Melee Weapons die
    (d8) down: -1 d6, -2 d4, -3 d2, -4 none."""
    p = fig("p", (0, 1), str_="d6", skills={"melee_weapons": "d8"}, items=[name])
    s = scen(open_map(), [p], [fig("t", (1, 1), agi="d12", decline_innate="never")])
    dice = [2] + ([1] if skill_sides else []) + [12]        # a plain miss: no breaking roll
    b = play(s, [atk("p", "t", name, dice=dice)])
    assert sides(only(rolls(b, "attack"))) == [6] + skill_sides
    assert not rolls(b, f"{name} breaks")


def test_improvised_weapon_uses_brawling_when_better():
    """seed 000, Melee Combat, Unarmed: Brawling can be used to attack with improvised
    weapons (assumption improvised_skill: the better of Melee Weapons and Brawling)."""
    p = fig("p", (0, 1), skills={"melee_weapons": "d4", "unarmed_combat": "d4",
                                 "unarmed_combat/brawling": "d10"}, items=["bottle_glass"])
    s = scen(open_map(), [p], [fig("t", (1, 1), agi="d12", decline_innate="never")])
    b = play(s, [atk("p", "t", "bottle_glass", dice=[2, 1, 12])])
    r = only(rolls(b, "attack"))
    assert sides(r) == [6, 8] and "Brawling" in r["pool"]


def test_improvised_weapon_with_unarmed_combat_but_no_brawling_specialty():
    """seed 000, Improvised Weapons: "uses Unarmed Combat/Brawling or the Melee Weapons general
    skill"; a figure without the Brawling specialty rolls its Unarmed Combat general skill for it,
    as for any specialty (assumption improvised_skill): d6 - 1 step = d4, not unskilled."""
    p = fig("p", (0, 1), skills={"unarmed_combat": "d6"}, items=["bottle_glass"])
    s = scen(open_map(), [p], [fig("t", (1, 1), agi="d12", decline_innate="never")])
    b = play_loose(s, [atk("p", "t", "bottle_glass")], [2, 1, 12])
    r = only(rolls(b, "attack"))
    assert sides(r) == [6, 4] and r["pool"] == "Strength d6 + Unarmed Combat d4"


def test_improvised_weapon_suited_attack_one_step_less_pool_stick_trip():
    """seed 000, Improvised Weapons: an attack particularly suited to the object's form
    reduces the skill penalty by 1 step (a pool stick used for a trip: -1 -> none)."""
    p = fig("p", (0, 1), agi="d6", skills={"melee_weapons": "d8"}, items=["pool_stick"])
    s = scen(open_map(), [p], [fig("t", (1, 1), agi="d12", decline_innate="never")])
    b = play(s, [atk("p", "t", "pool_stick", "trip", [2, 1, 12])])
    assert sides(only(rolls(b, "attack"))) == [6, 8]
    b = play(s, [atk("p", "t", "pool_stick", dice=[2, 1, 12])])
    assert sides(only(rolls(b, "attack"))) == [6, 6]


def _bottle_fight(items=("bottle_glass",), t_at=(1, 1), **kw) -> dict:
    p = fig("p", (0, 1), skills={"melee_weapons": "d6", "ranged_weapons": "d8"}, items=list(items), **kw)
    return scen(open_map(), [p], [dummy("t", t_at)])


def test_bottle_breaks_after_a_hit_into_a_broken_bottle_d2_wound():
    """seed 000, Improvised Weapons: breaking is checked after a hit (assumption
    improvised_break: d100 at or under the chance, 50 for a glass bottle); a broken glass
    bottle does d2 Wound."""
    # 3 + 2 = 5 vs 3; d2 Stun 1; d100 50: breaks
    b = play(_bottle_fight(), [atk("p", "t", "bottle_glass", dice=[3, 2, 1, 50])])
    brk = only(rolls(b, "bottle_glass breaks"))
    assert brk["dice"] == [[100, 50]]
    assert {a.weapon for a in attacks_in(b)} == {"broken_bottle", "unarmed"}
    assert who(b, "p").res["held"] == "broken_bottle"
    b = play(_bottle_fight(), [atk("p", "t", "bottle_glass", dice=[3, 2, 1, 50]),
                               atk("p", "t", "broken_bottle", dice=[3, 1, 2])])
    assert not rolls(b, "broken_bottle breaks")
    assert (who(b, "t").res["stun"], who(b, "t").res["wound"]) == (1 + 1 + 1, 1 + 0 + 2)
    # 51: it holds
    b = play(_bottle_fight(), [atk("p", "t", "bottle_glass", dice=[3, 2, 1, 51])])
    assert "bottle_glass" in {a.weapon for a in attacks_in(b)}


def test_improvised_weapon_breaks_on_a_botched_attack_not_on_a_miss():
    """seed 000, Improvised Weapons: the breaking check follows a hit or a botched attack
    roll - not an ordinary miss; objects with no chance (chair leg) never roll."""
    b = play(_bottle_fight(), [atk("p", "t", "bottle_glass", dice=[1, 1, 40])])
    assert only(evs(b, "attack"))["result"] == "miss"
    assert "broken_bottle" in {a.weapon for a in attacks_in(b)}
    s = scen(open_map(), [fig("p", (0, 1), skills={"melee_weapons": "d6"}, items=["bottle_glass"])],
             [fig("t", (1, 1), agi="d12", decline_innate="never")])
    b = play(s, [atk("p", "t", "bottle_glass", dice=[2, 1, 12])])
    assert not rolls(b, "bottle_glass breaks")
    b = play(_bottle_fight(("chair_leg",)), [atk("p", "t", "chair_leg", dice=[3, 2, 1])])
    assert not rolls(b, "chair_leg breaks")


def test_heavy_object_breaks_to_nothing():
    """seed 000, Improvised Weapons: a heavy object that breaks leaves nothing to fight with
    (damage after breaking: 0)."""
    b = play(_bottle_fight(("heavy_object",), str_="d12"),
             [atk("p", "t", "heavy_object", dice=[5, 1, 10])])   # d6 -4 steps: Strength d10 alone
    assert sides(only(rolls(b, "attack"))) == [10]
    assert only(rolls(b, "heavy_object breaks"))["total"] == 10
    assert {a.weapon for a in attacks_in(b)} == {"unarmed"}


def test_pick_up_an_object_from_the_map_costs_an_action():
    """assumption pick_up (seed 000, Improvised Weapons: objects lying around): picking up
    an object from the figure's cell or a next cell is one action; then it can be used."""
    p = fig("p", (0, 1), skills={"melee_weapons": "d6"})
    s = scen(open_map(), [p], [dummy("t", (1, 2))], objects=[{"item": "chair_leg", "at": [1, 1]},
                                                             {"item": "bottle_glass", "at": [5, 1]}])
    b = play(s, [])
    picks = [a for a in legal(b) if a.kind == "pick_up"]
    assert picks == [Action("pick_up", cell=cell(b, 1, 1), weapon="chair_leg")]
    b = play(s, [act("p", "pick_up", cell=[1, 1], weapon="chair_leg")])
    assert economy(b)["actions_used"] == 1
    assert b.state.objects == {cell(b, 5, 1): ["bottle_glass"]}
    assert Action("attack", "t", None, "chair_leg") in legal(b)
    b = play(s, [act("p", "pick_up", cell=[1, 1], weapon="chair_leg"), atk("p", "t", "chair_leg", dice=[3, 1])])
    assert sides(only(rolls(b, "attack"))) == [6]     # d6 -2 (chair leg) -1 (second action): none


def test_thrown_improvised_object_uses_ranged_weapons_and_lands_by_the_target():
    """seed 000, Improvised Weapons: a thrown object uses the Ranged Weapons general skill
    (option 'throw'); it lands on the target's cell and the thrower no longer has it."""
    s = _bottle_fight(t_at=(2, 1))
    b = play(s, [])
    assert Action("attack", "t", None, "bottle_glass", "throw") in legal(b)
    b = play(s, [atk("p", "t", "bottle_glass", "throw", [3, 3, 1, 51])])
    r = only(rolls(b, "attack"))
    assert "Ranged Weapons" in r["pool"] and sides(r)[1] == 6       # d8, -1 step
    assert b.state.objects == {who(b, "t").pos: ["bottle_glass"]}
    assert "bottle_glass" not in {w.name for w in RS.weapons_of(who(b, "p"))}
    # adjacent: no throw
    b = play(_bottle_fight(), [])
    assert not [a for a in legal(b) if a.option == "throw"]


def test_thrown_object_is_a_ranged_attack_rolled_with_agility():
    """seed 000, Attributes for Attacking: Agility is rolled for ranged attacks - a thrown
    object (Ranged Weapons skill, ranged defence) included."""
    b = play(_bottle_fight(t_at=(2, 1), agi="d10", str_="d4"), [atk("p", "t", "bottle_glass", "throw", [3, 3, 1, 51])])
    r = only(rolls(b, "attack"))
    assert r["pool"].startswith("Agility d10"), r["pool"]


def test_thrown_bottle_that_breaks_does_not_come_back_whole():
    """seed 000, Improvised Weapons: a thrown bottle that breaks on the hit is gone: the
    thrower is not left holding a broken bottle, no whole bottle lands on the map, and the
    thrower's second bottle is untouched."""
    s = _bottle_fight(items=("bottle_glass", "bottle_glass"), t_at=(2, 1))
    b = play(s, [atk("p", "t", "bottle_glass", "throw", [3, 3, 1, 20])])
    mine = [w.name for w in RS.weapons_of(who(b, "p"))]
    assert "broken_bottle" not in mine
    assert "bottle_glass" in mine                       # the other bottle
    assert "bottle_glass" not in b.state.objects.get(who(b, "t").pos, [])


# ---------------------------------------------------------------------------------------
# Melee Combat, Tripping (assumptions trip_ties, trip_weapon_drop)

def _trip_scene(weapons: tuple = (), **t_kw) -> dict:
    p = fig("p", (0, 1), agi="d6", str_="d6", skills={"unarmed_combat": "d6", "melee_weapons": "d6"},
            weapons=weapons)
    return scen(open_map(), [p], [dummy("t", (1, 1), **t_kw)])


def test_trip_to_hit_agility_plus_unarmed_then_opposed_agility_strength():
    """seed 000, Melee Combat, Tripping: Agility + Unarmed Combat to hit; then opposed
    Agility + Strength rolls; the attacker winning knocks the defender prone. No damage."""
    b = play(_trip_scene(), [atk("p", "t", "unarmed", "trip", [2, 2, 4, 4, 3, 3])])
    hit = only(rolls(b, "attack"))
    assert hit["pool"].startswith("Agility d6") and "Unarmed" in hit["pool"]
    mine, theirs = only(rolls(b, "trip (opposed)")), only(rolls(b, "resist trip"))
    assert mine["pool"] == theirs["pool"] == "Agility d6 + Strength d6"
    assert "prone" in who(b, "t").conditions and "prone" not in who(b, "p").conditions
    assert not rolls(b, "damage") and who(b, "t").res["stun"] == 0


@pytest.mark.parametrize("opposed,t_prone,p_prone", [
    ([3, 3, 3, 3], False, False),    # a tie: both stand (assumption trip_ties)
    ([1, 2, 5, 4], False, False),    # the defender wins by 6
    ([1, 2, 6, 4], False, True),     # the defender wins by 7: extraordinary, the attacker falls
    ([1, 1, 2, 2], False, True),     # the attacker botches the opposed roll (assumption trip_botch)
    ([1, 1, 1, 1], False, True),     # a botch that ties is still a botch
])
def test_trip_ties_and_defenders_extraordinary_success(opposed, t_prone, p_prone):
    """seed 000, Tripping: the attacker must win the opposed roll; "If the attacker botches or
    the defender get an extraordinary success, the attacker is knocked prone" (7 over; a botch on
    the opposed roll too: assumption trip_botch)."""
    b = play(_trip_scene(), [atk("p", "t", "unarmed", "trip", [2, 2] + opposed)])
    assert ("prone" in who(b, "t").conditions) == t_prone
    assert ("prone" in who(b, "p").conditions) == p_prone


def test_trip_extraordinary_hit_gives_plus_two_steps_on_the_opposed_roll():
    """seed 000, Tripping: +2 step bonus on the opposed roll after an extraordinary success
    on the attack roll (Strength d6 -> d10)."""
    b = play(_trip_scene(), [atk("p", "t", "unarmed", "trip", [6, 4, 4, 9, 6, 6])])
    assert only(evs(b, "attack"))["result"] == "extraordinary hit"
    assert sides(only(rolls(b, "trip (opposed)"))) == [6, 10]
    assert "prone" in who(b, "t").conditions


def test_trip_botch_knocks_the_attacker_prone():
    """seed 000, Tripping: if the attacker botches, the attacker is knocked prone."""
    b = play(_trip_scene(), [atk("p", "t", "unarmed", "trip", [1, 1])])
    assert "prone" in who(b, "p").conditions and "prone" not in who(b, "t").conditions


def test_tripping_weapon_is_dropped_instead_of_falling():
    """seed 000, Tripping: tripping with a weapon (fighting staff), the attacker can drop
    it to avoid falling prone (assumption trip_weapon_drop: always)."""
    s = _trip_scene(weapons=("fighting_staff",))
    assert Action("attack", "t", None, "fighting_staff", "trip") in legal(play(s, []))
    b = play(s, [atk("p", "t", "fighting_staff", "trip", [1, 1])])
    assert "prone" not in who(b, "p").conditions
    assert b.state.objects == {who(b, "p").pos: ["fighting_staff"]}
    b = play(s, [atk("p", "t", "fighting_staff", "trip", [2, 2, 1, 2, 6, 4])])
    assert "prone" not in who(b, "p").conditions
    assert b.state.objects == {who(b, "p").pos: ["fighting_staff"]}
    # a non-tripping weapon offers no trip
    s = _trip_scene(weapons=("sword",))
    assert Action("attack", "t", None, "sword", "trip") not in legal(play(s, []))


# ---------------------------------------------------------------------------------------
# seed 000, Defense, Melee Combat: the bash is a blow (assumption block_bash)

def _bash_scene(traits=(), armour=None, stun=9, life=10):
    """x (Stun 9 of 10 Life Points) punches d, who blocks with an extraordinary success and,
    x being unarmed, bashes (assumption block_effect)."""
    d = fig("d", (0, 1), str_="d8", skills={"unarmed_combat": "d6"}, decline_innate="always")
    kw = {"armour": armour} if armour else {}
    x = fig("x", (1, 1), skills={"unarmed_combat": "d6"}, life_points=life, traits=list(traits),
            state={"stun": stun}, decline_innate="always", **kw)
    return scen(open_map(), [d], [x])


_BASH = [{"action": {"type": "defend", "option": "block"}}, {"action": "end_turn"},
         {"action": {"type": "attack", "target": "d", "weapon": "unarmed"}}]


@pytest.mark.parametrize("traits,vitality", [((), "d6"), (("glass_jaw",), "d2"),
                                             (({"name": "takes_a_punch"},), "d10")])
def test_a_bash_is_a_bludgeoning_attack_for_glass_jaw_and_takes_a_punch(traits, vitality):
    """seed 000: "the attacker is bashed and takes Stun damage equal to the defender's Strength
    -2 steps"; Glass Jaw: "-2 step Attribute penalty to Vitality on Endurance rolls made against
    unarmed or bludgeoning attacks"; Takes a Punch: "+2 step bonus to Vitality on Endurance rolls
    made against unarmed or bludgeoning attacks". The bash (d8 - 2 steps = d4, a 2) takes x to 11
    Stun of 10: its roll to stay conscious is stepped as against a punch (it rolled d6 with either
    trait)."""
    b = play_loose(_bash_scene(traits), _BASH, [1, 2, 6, 6, 2, 1, 1])
    assert sides(only(rolls(b, "bash"))) == [4]
    stay = [e for e in b.events if e["type"] == "roll" and e.get("check") == "stay_conscious"]
    assert [e["pool"] for e in stay] == [f"Vitality {vitality} + Willpower d6"]


def test_armour_absorbs_a_bash_as_any_blow():
    """assumption block_bash: the attacker's armour absorbs its Stun rating of the bash (a
    tactical vest: S 2), as it does of any hit's Stun: a bash of 4 does 2."""
    b = play_loose(_bash_scene(armour="tactical_vest", stun=0, life=30), _BASH, [1, 2, 6, 6, 4])
    assert only(rolls(b, "bash"))["total"] == 4
    assert [(e["stun"], e.get("absorbed"), e["source"]) for e in evs(b, "damage", target="x")] == [(2, 2, "bash")]
    assert who(b, "x").res["stun"] == 2


@pytest.mark.parametrize("impaired,die", [(False, 8), (True, 4)])
def test_an_impaired_krav_maga_counter_takes_the_skill_penalty(impaired, die):
    """seed 000, Called Shots, Groin: "impaired (-2 step skill penalty to all actions)"; Krav
    Maga: "an Extraordinary Success on a block allows you to immediately make an Unarmed attack
    against your attacker as a free action". The counter is an action: impaired, Krav Maga d8
    rolls d4, as the block itself does."""
    conds = [{"name": "impaired", "until": "medical"}] if impaired else []
    d = fig("d", (0, 1), agi="d12", skills={"unarmed_combat": "d6", "unarmed_combat/krav_maga": "d8"},
            decline_innate="always", conditions=conds, life_points=99)
    x = fig("x", (1, 1), skills={"unarmed_combat": "d6"}, life_points=99, decline_innate="always")
    b = play_loose(scen(open_map(), [d], [x]), _BASH, [1, 2, 12, die, 1, 1, 1, 1, 1, 1])
    checks = {e.get("check"): e for e in b.events if e["type"] == "roll"}
    block, counter = checks["block"], checks["krav_maga_counter"]
    assert sides(block)[1] == die and sides(counter) == [6, die]
    assert [m["source"] for m in counter["modifiers"]] == (["impaired (skill)"] if impaired else [])
