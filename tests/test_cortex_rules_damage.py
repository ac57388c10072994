"""Rule tests for the `cortex` ruleset (seed 000 on Cortex Classic), with forced dice:
Damage, armour, Life Points, unconsciousness, dying and death; Ranges, rate of fire and
ammunition.

Strict forced-dice replays through `rules.replay.run_replay`. The helpers, the roll order, the
sources cited ("seed 000, <heading>", "RULES-NOTES cortex", "assumption <key>") and the
geometry are in tests/cortex_rules_setup.py; the other topics in tests/test_cortex_rules_*.py.
"""

from __future__ import annotations

import pytest

from rules.actions import Action
from rules.ruleset import get_ruleset
from tests.cortex_rules_setup import (attack, can_attack, dummy, end, evs, fig, gunslinger, legal, only,
                                      open_map, play, rolls, scen, sides, simple, who)


# ---------------------------------------------------------------------------------------
# Damage, armour, Life Points, unconsciousness, dying, death

def _shot(target: dict, dice: list[int], extra_b: list[dict] = ()):
    s = scen(open_map(), [gunslinger("g", (0, 1))], [target, *extra_b])
    return play(s, [attack("g", target["id"], "revolver", dice)])


@pytest.mark.parametrize("dice,stun,wound", [
    ([4, 4, 3], 3, 5),   # margin 5: 3 Stun + 2 Wound (odd point to Stun), revolver 3 W
    ([4, 3, 3], 2, 5),   # margin 4: 2 + 2, revolver 3 W
    ([2, 2, 6], 1, 6),   # margin 1: the odd point is Stun
])
def test_margin_is_basic_damage_split_odd_point_to_stun_plus_weapon_die(dice, stun, wound):
    """RULES-NOTES cortex: the margin is Basic damage and the weapon die adds its own type;
    assumption basic_split: Basic splits half Stun, half Wound, the odd point to Stun."""
    b = _shot(dummy("t", (5, 1)), dice)
    dmg = only(evs(b, "damage"))
    assert (dmg["stun"], dmg["wound"]) == (stun, wound)
    assert (who(b, "t").res["stun"], who(b, "t").res["wound"]) == (stun, wound)


def test_tie_hits_with_margin_zero():
    """assumption ties: a roll equal to the Difficulty succeeds (only the weapon die)."""
    b = _shot(dummy("t", (5, 1)), [2, 1, 3])
    hit = only(evs(b, "attack"))
    assert (hit["result"], hit["margin"], hit["difficulty"]) == ("hit", 0, 3)
    assert (who(b, "t").res["stun"], who(b, "t").res["wound"]) == (0, 3)


@pytest.mark.parametrize("weapon,dice,stun,wound", [
    ("club", [3, 2, 3], 3, 2),      # margin 2 -> 1/1; club d4 B 3 -> 2 Stun 1 Wound
    ("club", [3, 2, 4], 3, 3),      # club 4 -> 2/2
    ("unarmed", [3, 2, 2], 3, 1),   # margin 2 -> 1/1; unarmed d2 S 2 -> Stun
])
def test_weapon_damage_type_basic_splits_stun_stays_stun(weapon, dice, stun, wound):
    """RULES-NOTES cortex: the weapon die is added as its own type (Stun, Wound or Basic);
    assumption basic_split: Basic splits, odd point to Stun."""
    a = fig("a", (0, 1), str_="d8", skills={"melee_weapons": "d6", "unarmed_combat": "d6"},
            weapons=("club",))
    s = scen(open_map(), [a], [dummy("t", (1, 1))])
    b = play(s, [attack("a", "t", weapon, dice)])
    assert (who(b, "t").res["stun"], who(b, "t").res["wound"]) == (stun, wound)


def test_armour_subtracts_its_ratings_after_the_split():
    """RULES-NOTES cortex: armour has a rating per damage type; assumption armour: it
    removes its rating from each type after the Basic split (tactical vest W6 S2)."""
    t = {"id": "t", "at": [5, 1], "template": "alliance_soldier", "decline_innate": "always"}
    b = _shot(t, [5, 4, 4])                  # margin 6: 3 S + 3 W, revolver 4 W -> 3 S 7 W
    dmg = only(evs(b, "damage"))
    assert (dmg["stun"], dmg["wound"], dmg["absorbed"]) == (1, 1, 8)


def test_armour_never_takes_damage_below_zero():
    """assumption armour: never below 0 (plate vest W8 S3 against 1 Stun, 2 Wound)."""
    b = _shot(dummy("t", (5, 1), armour="plate_vest"), [2, 2, 2])
    dmg = only(evs(b, "damage"))
    assert (dmg["stun"], dmg["wound"]) == (0, 0)
    assert (who(b, "t").res["stun"], who(b, "t").res["wound"]) == (0, 0)


@pytest.mark.parametrize("template,life", [("gunslinger", 12), ("thug", 14),
                                           ("browncoat_veteran", 16), ("reaver", 22)])
def test_life_points_are_max_vitality_plus_max_willpower(template, life):
    """RULES-NOTES cortex: Life Points = maximum of the Vitality die + maximum of the
    Willpower die."""
    s = scen(open_map(), [{"id": "x", "at": [0, 0], "template": template}], [dummy("t", (5, 1))])
    b = play(s)
    assert get_ruleset("cortex").health(who(b, "x")) == (life, life)


def _thug(**kw):
    return {"id": "t", "at": [5, 1], "template": "thug", "decline_innate": "always", **kw}


def test_reaching_life_points_failed_endurance_knocks_out_and_ends_the_fight():
    """assumption unconscious: when Stun + Wound reach Life Points, Endurance (Vitality +
    Willpower) at Average (7) or unconscious; the last team standing wins (rules/battle.py).
    assumption wounded_penalty: 11 Wound of 14 costs Vitality two steps (d8 -> d4)."""
    # thug: Life Points 14. Margin 6 -> 3 S 3 W; revolver 8 -> 3 S 11 W = 14
    b = _shot(_thug(), [5, 4, 8, 1, 5])
    r = only(rolls(b, "Endurance"))
    assert (sides(r), r["difficulty"], r["success"]) == ([4, 6], 7, False)
    t = who(b, "t")
    assert (t.res["stun"], t.res["wound"]) == (3, 11)
    assert "unconscious" in t.conditions and t.down
    assert b.state.over and b.state.winner == "a"
    assert b.state.end_reason == "last team standing"
    assert evs(b, "battle_end")[0]["winner"] == "a"


def test_reaching_life_points_made_endurance_stays_up():
    """assumption unconscious: a made Endurance roll (7 against 7) keeps the figure up."""
    b = _shot(_thug(), [5, 4, 8, 2, 5])                      # Vitality d4 (wounded) + d6
    assert only(rolls(b, "Endurance"))["success"] is True
    assert not who(b, "t").down and not b.state.over
    assert b.state.actor.id == "g"


def test_below_life_points_no_endurance_roll():
    """assumption unconscious: the roll comes only when Stun + Wound reach Life Points
    (13 of 14: the strict dice list holds no Endurance roll)."""
    b = _shot(_thug(), [5, 4, 7])
    assert rolls(b, "Endurance") == []
    assert not who(b, "t").down


def _dying(life: int, dice: list[int], *more_steps: dict):
    """t (Life Points `life`) is shot by g; its ally `friend` keeps team b in the fight."""
    s = scen(open_map(), [gunslinger("g", (0, 1))],
             [dummy("t", (5, 1), life_points=life), dummy("friend", (11, 2))])
    return play(s, [attack("g", "t", "revolver", dice), *more_steps])


def test_wound_at_life_points_is_dying_without_a_consciousness_roll():
    """assumption dying: Wound at Life Points or more is dying (down)."""
    b = _dying(8, [4, 4, 6])                 # margin 5: 3 S 2 W; revolver 6: 8 W
    t = who(b, "t")
    assert t.res["wound"] == 8
    assert "dying" in t.conditions and t.down and "dead" not in t.conditions
    assert evs(b, "down", target="t", reason="dying")
    assert not b.state.over


@pytest.mark.parametrize("endurance,wound", [([2, 3], 9), ([1, 6], 8)])
def test_dying_rolls_endurance_each_round_or_takes_a_wound(endurance, wound):
    """assumption dying: each round an Endurance roll at Average (7) or 1 more Wound
    (rolled when the round ends: the last turn's end step carries the dice); assumption
    wounded_penalty: the dying figure's Vitality is two steps down (d6 -> d2)."""
    b = _dying(8, [4, 4, 6], end("g"), end("friend", endurance))
    r = only(rolls(b, "Endurance"))
    assert (sides(r), r["difficulty"], r["success"]) == ([2, 6], 7, wound == 8)
    assert who(b, "t").res["wound"] == wound
    assert b.state.round == 2 and b.state.actor.id == "g"


@pytest.mark.parametrize("dmg_die,dead", [(5, False), (6, True)])
def test_dead_at_twice_life_points(dmg_die, dead):
    """assumption dying: dead at twice Life Points (Life Points 4: 7 Wound is dying,
    8 Wound is dead)."""
    b = _dying(4, [4, 4, dmg_die])            # 3 S, 2 + die W
    t = who(b, "t")
    assert ("dead" in t.conditions) is dead
    assert ("dying" in t.conditions) is (not dead)
    assert bool(evs(b, "dead", target="t")) is dead


def test_bleeding_out_to_death():
    """assumption dying: a failed round-end Endurance roll adds 1 Wound; at twice Life
    Points the figure is dead."""
    b = _dying(4, [4, 4, 5], end("g"), end("friend", [1, 2]))
    t = who(b, "t")
    assert t.res["wound"] == 8
    assert "dead" in t.conditions and "dying" not in t.conditions


def test_stun_above_life_points_becomes_wound():
    """assumption stun_overflow: Stun above Life Points becomes Wound (Life Points 4:
    5 Stun 3 Wound -> 4 Stun 4 Wound)."""
    a = fig("a", (0, 1), str_="d8", skills={"unarmed_combat": "d6"})
    s = scen(open_map(), [a], [dummy("t", (1, 1), life_points=4), dummy("friend", (11, 2))])
    b = play(s, [attack("a", "t", "unarmed", [5, 4, 2])])   # margin 6: 3 S 3 W; d2 S 2
    t = who(b, "t")
    assert (t.res["stun"], t.res["wound"]) == (4, 4)
    assert "dying" in t.conditions


@pytest.mark.parametrize("axe_face,agility_sides", [(4, 6), (3, 10)])
def test_wounds_of_half_life_points_cost_two_attribute_steps(axe_face, agility_sides):
    """assumption wounded_penalty: Wound of half Life Points or more is -2 steps to the
    attribute die (Life Points 10: 5 Wound costs Agility d10 -> d6, 4 Wound does not)."""
    axeman = fig("x", (1, 1), str_="d8", skills={"melee_weapons": "d6"}, weapons=("axe",),
                 decline_innate="always", life_points=99)
    g = gunslinger("g", (0, 1), decline_innate="always", life_points=10)
    s = scen(open_map(), [axeman], [g])
    b = play(s, [attack("x", "g", "axe", [3, 3, axe_face]),   # margin 3: 2 S 1 W + axe W
                 end("x"), attack("g", "x", "revolver", [1, 1])])
    assert who(b, "g").res["wound"] == 1 + axe_face
    assert sides(rolls(b, "attack", actor="g")[0]) == [agility_sides, 10]


# ---------------------------------------------------------------------------------------
# Ranges, rate of fire, ammunition

def _range(dist: int):
    shooter = fig("s", (0, 0), agi="d8", skills={"guns": "d6", "guns/shotguns": "d12"},
                  weapons=("shotgun",))
    return scen(["." * 27], [shooter], [dummy("t", (dist, 0))])


@pytest.mark.parametrize("dist,skill_sides", [
    (8, 12),    # 39 ft: short (shotgun 40 ft), no penalty
    (9, 8),     # 44 ft: medium, -2 steps
    (16, 8),    # 79 ft: medium
    (17, 4),    # 84 ft: long, -4 steps
    (24, 4),    # 118 ft: long
])
def test_range_bands(dist, skill_sides):
    """RULES-NOTES cortex: medium range -2 steps, long range -4 steps; assumption
    range_bands: short up to the range increment, medium up to 2x, long up to 3x."""
    b = play(_range(dist), [attack("s", "t", "shotgun", [1, 1])])
    assert sides(only(rolls(b, "attack"))) == [8, skill_sides]


def test_no_shot_beyond_three_range_increments():
    """assumption range_bands: no shot beyond 3x the range increment (123 ft > 120 ft)."""
    b = play(_range(25))
    assert not can_attack(b, "t", "shotgun")
    assert can_attack(play(_range(24)), "t", "shotgun")


def test_rate_of_fire_limits_shots_per_turn():
    """assumption rof: shots per turn per weapon (3 for a revolver); the next turn the
    weapon may fire again."""
    s = scen(open_map(), [gunslinger("g", (0, 1))], [dummy("t", (5, 1))])
    shots = [attack("g", "t", "revolver", [1, 1])] * 3
    b = play(s, shots)
    assert b.state.economy["actions"] == 3
    assert not can_attack(b, "t", "revolver")
    b = play(s, shots + [end("g"), end("t")])
    assert b.state.actor.id == "g" and can_attack(b, "t", "revolver")


def test_ammunition_runs_out_and_reloading_costs_an_action():
    """data.yaml weapons (magazine): each shot uses a round (revolver: 6); an empty gun
    cannot fire; reloading is an action (assumption multiple_actions: the next shot is one
    step lower) and fills the magazine."""
    s = scen(open_map(), [gunslinger("g", (0, 1))], [dummy("t", (5, 1))])
    shots = [attack("g", "t", "revolver", [1, 1])] * 3
    steps = shots + [end("g"), end("t")] + shots + [end("g"), end("t")]
    b = play(s, steps)
    assert who(b, "g").res["ammo"]["revolver"] == 0
    assert not can_attack(b, "t", "revolver")
    assert Action("reload", weapon="revolver") in legal(b)
    b = play(s, steps + [simple("g", "reload", weapon="revolver"),
                         attack("g", "t", "revolver", [1, 1])])
    assert who(b, "g").res["ammo"]["revolver"] == 5
    assert b.state.economy["actions"] == 2
    assert sides(rolls(b, "attack")[-1]) == [10, 8]


def test_full_magazine_cannot_be_reloaded():
    """data.yaml weapons (magazine): reloading a full gun is no action at all."""
    s = scen(open_map(), [gunslinger("g", (0, 1))], [dummy("t", (5, 1))])
    assert Action("reload", weapon="revolver") not in legal(play(s))
