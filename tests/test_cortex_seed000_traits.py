"""Forced-dice tests for the seed 000 special rules of the `cortex` ruleset:
Plot Points, Second Wind and Down But Not Out, and every trait of the seed (through
`ruleset.skill_check` where a trait has no battle rule).

Strict forced-dice replays through `rules.replay.run_replay`. The helpers, the roll order, the
sources cited ("seed 000, <heading>", "RULES-NOTES", "assumption <key>") and the geometry are
in tests/cortex_seed000_setup.py; the other topics in tests/test_cortex_seed000_*.py.
"""

from __future__ import annotations

import pytest

from rules.actions import Action
from rules.replay import run_replay
from tests.cortex_seed000_setup import (act, atk, brawler, check, dummy, economy, end, fig, legal, only,
                                        open_map, person, play, pool_sides, rolls, scen, sides, who)


# ---------------------------------------------------------------------------------------
# Plot Points (RULES-NOTES; assumptions plot_points_use, npc_plot_points)

def _pp_scene(pp: dict, t_kw: dict | None = None, p_weapons=("pistol",)) -> dict:
    p = fig("p", (0, 1), agi="d6", str_="d6", skills={"guns": "d6", "unarmed_combat": "d6", "melee_weapons": "d6"},
            weapons=p_weapons)
    return scen(open_map(), [p], [dummy("t", (1, 1), **(t_kw or {}))], settings={"plot_points": pp})


def test_plot_points_from_scenario_settings_npcs_get_none():
    """assumption npc_plot_points: figures get Plot Points only from the scenario
    (`settings: {plot_points: {team: n}}`)."""
    b = play(_pp_scene({"a": 3}))
    assert who(b, "p").res["pp"] == 3 and who(b, "t").res["pp"] == 0
    assert economy(b)["plot_points"] == 3
    uses = {a.option for a in legal(b) if a.kind == "use"}
    assert uses == {"plot_points:1", "plot_points:2", "plot_points:3"}
    assert not [a for a in legal(play(_pp_scene({}))) if a.kind == "use"]


@pytest.mark.parametrize("n,die", [(1, 2), (2, 4), (3, 6), (5, 10)])
def test_plot_points_spent_before_a_roll_add_a_die(n, die):
    """RULES-NOTES: 1 Plot Point adds a d2, each further point steps the die up;
    assumption plot_points_use: spending is a free `use` action and the die joins the
    figure's next roll (after the attribute and skill dice) - only that one."""
    s = _pp_scene({"a": 6})
    b = play(s, [act("p", "use", option=f"plot_points:{n}")])
    assert economy(b)["actions_used"] == 0 and who(b, "p").res["pp"] == 6 - n
    assert economy(b)["pp_bonus_pending"] == n
    assert not [a for a in legal(b) if a.kind == "use" and a.option.startswith("plot_points")]
    b = play(s, [act("p", "use", option=f"plot_points:{n}"), atk("p", "t", "pistol", dice=[1, 1, 2, 1]),
                 atk("p", "t", "pistol", dice=[1, 1])])
    first, second = rolls(b, "attack")
    assert sides(first) == [6, 6, die] and first["total"] == 4
    assert "Plot Points" in first["pool"]
    assert sides(second) == [6, 4]


def test_plot_points_reduce_damage_that_would_take_the_figure_down():
    """RULES-NOTES: Plot Points spent just after taking damage reduce it by the same die;
    assumption plot_points_use: automatic when a hit would take the figure down, with as
    many points as it has (the die is rolled after the damage die)."""
    s = _pp_scene({"b": 2}, {"life_points": 6})
    # 4 + 3 = 7 vs 3: Basic 4 (2 Stun, 2 Wound) + d6 Wound 4 = 2 Stun + 6 Wound: 8 >= 6
    # 2 points: d4 -> 3 off (Wound first): 2 Stun + 3 Wound = 5 < 6: no Endurance roll
    b = play(s, [atk("p", "t", "pistol", dice=[4, 3, 4, 3])])
    pp = only(rolls(b, "spends 2 Plot Points"))
    assert sides(pp) == [4]
    assert who(b, "t").res["pp"] == 0
    assert (who(b, "t").res["stun"], who(b, "t").res["wound"]) == (2, 3)
    assert not who(b, "t").down
    # a hit that leaves it standing spends nothing
    b = play(s, [atk("p", "t", "pistol", dice=[2, 2, 1])])
    assert who(b, "t").res["pp"] == 2 and not rolls(b, "spends")


@pytest.mark.parametrize("weapon,die", [("unarmed", 6), ("club", 6), ("pistol", 2)])
def test_takes_a_punch_major_plot_points_against_blunt_stun(weapon, die):
    """seed 000, Takes a Punch (major): Plot Points spent to reduce Stun damage from
    unarmed or bludgeoning attacks improve as if 2 more had been spent (1 point: d2 -> d6);
    not against a gun."""
    s = _pp_scene({"b": 1}, {"life_points": 4, "traits": [{"name": "takes_a_punch", "major": True}]},
                  p_weapons=("pistol", "club"))
    # Basic 4 (2 Stun 2 Wound) + weapon die 1 = 5 >= 4; the Plot Point die shows its top face
    b = play(s, [atk("p", "t", weapon, dice=[4, 3, 1, die])])
    assert sides(only(rolls(b, "spends 1 Plot Points"))) == [die]


@pytest.mark.parametrize("traits,pp_die,left", [([], 2, (6, 4)),
                                                 ([{"name": "takes_a_punch", "major": True}], 6, (0, 6))])
def test_takes_a_punch_major_plot_points_go_to_the_stun(traits, pp_die, left):
    """seed 000, Takes a Punch: "any Plot Points spent to reduce Stun damage inflicted by unarmed or
    bludgeoning attacks are improved as if you had spent 2 additional points" (assumption
    takes_a_punch_pp). A club hit of 6 Stun and 6 Wound, 1 Plot Point spent: without the trait its d2
    (2) comes off the Wound first; with it the improved d6 (6) comes off the Stun (before, off the
    Wound, leaving the Stun whole)."""
    s = _pp_scene({"b": 1}, {"life_points": 12, "traits": traits}, p_weapons=("pistol", "club"))
    b = play(s, [atk("p", "t", "club", dice=[6, 5, 4, pp_die, 4, 4])])
    assert sides(only(rolls(b, "spends 1 Plot Points"))) == [pp_die]
    assert (who(b, "t").res["stun"], who(b, "t").res["wound"]) == left


# ---------------------------------------------------------------------------------------
# Second Wind (assumption second_wind_action) and Down But Not Out

def _sw_scene(traits=(), **p_kw) -> dict:
    p = fig("p", (0, 1), life_points=99, decline_innate="always", traits=list(traits), **p_kw)
    x = fig("x", (1, 1), skills={"unarmed_combat": "d6"}, life_points=99, decline_innate="always")
    return scen(open_map(), [p], [x])


# x punches p: 4 + 4 = 8 vs 3: Basic 5 (3 Stun, 2 Wound) + d2 Stun 2 -> 5 Stun, 2 Wound
PUNCH = [end("p"), atk("x", "p", "unarmed", dice=[4, 4, 2]), end("x")]


def test_second_wind_one_action_endurance_removes_that_much_stun_once_a_fight():
    """RULES-NOTES / p. 158 and assumption second_wind_action: Second Wind is one action;
    an Endurance roll (Vitality + Willpower) removes that much Stun; once a day (per fight)."""
    b = play(_sw_scene(), PUNCH)
    assert who(b, "p").res["stun"] == 5
    assert Action("use", option="second_wind") in legal(b)
    b = play(_sw_scene(), PUNCH + [act("p", "use", [2, 1], option="second_wind")])
    sw = only(rolls(b, "Second Wind"))
    assert sw["pool"] == "Vitality d6 + Willpower d6"
    assert who(b, "p").res["stun"] == 2 and who(b, "p").res["wound"] == 2
    assert economy(b)["actions_used"] == 1
    assert Action("use", option="second_wind") not in legal(b)
    b = play(_sw_scene(), PUNCH + [act("p", "use", [2, 1], option="second_wind"), end("p")] + PUNCH[1:])
    assert b.state.actor.id == "p" and who(b, "p").res["stun"] > 0
    assert Action("use", option="second_wind") not in legal(b)
    # more than the Stun it has: Stun goes to 0, Wound stays
    b = play(_sw_scene(), PUNCH + [act("p", "use", [6, 6], option="second_wind")])
    assert (who(b, "p").res["stun"], who(b, "p").res["wound"]) == (0, 2)


def test_second_wind_needs_stun():
    """RULES-NOTES: Second Wind shakes off Stun; with none there is nothing to do."""
    assert Action("use", option="second_wind") not in legal(play(_sw_scene()))


def test_down_but_not_out_two_second_winds_not_in_the_same_turn():
    """seed 000, Down But Not Out (major): two Second Wind rolls a day, never more than one
    in the same turn."""
    s = _sw_scene(traits=("down_but_not_out",))
    b = play(s, PUNCH + [act("p", "use", [1, 2], option="second_wind")])
    assert who(b, "p").res["stun"] == 2
    assert economy(b)["second_winds_left"] == 1
    assert Action("use", option="second_wind") not in legal(b)
    b = play(s, PUNCH + [act("p", "use", [1, 2], option="second_wind"), end("p")] + PUNCH[1:])
    assert Action("use", option="second_wind") in legal(b)
    b = play(s, PUNCH + [act("p", "use", [1, 2], option="second_wind"), end("p")] + PUNCH[1:]
             + [act("p", "use", [1, 2], option="second_wind"), end("p")] + PUNCH[1:])
    assert Action("use", option="second_wind") not in legal(b)
    assert economy(b)["second_winds_left"] == 0


def test_glass_jaw_major_no_second_wind_in_a_fight():
    """seed 000, Glass Jaw (major): you cannot use your Second Wind during a fight."""
    b = play(_sw_scene(traits=({"name": "glass_jaw", "major": True},)), PUNCH)
    assert who(b, "p").res["stun"] > 0
    assert Action("use", option="second_wind") not in legal(b)
    b = play(_sw_scene(traits=("glass_jaw",)), PUNCH)          # minor: allowed
    assert Action("use", option="second_wind") in legal(b)


@pytest.mark.parametrize("traits,pool", [
    (("takes_a_punch",), "Vitality d10 + Willpower d6"),
    (({"name": "gettin_on_in_years", "major": True},), "Vitality d2 + Willpower d6"),
    (({"name": "gettin_on_in_years"},), "Vitality d6 + Willpower d6"),
])
def test_second_wind_trait_modifiers(traits, pool):
    """seed 000, Takes a Punch: +2 steps to Vitality on Second Wind rolls; Gettin' On in
    Years (major): the Vitality penalty (-2) applies to all rolls involving injury; the
    minor form does not touch Second Wind."""
    b = play(_sw_scene(traits=traits), PUNCH + [act("p", "use", [1, 1], option="second_wind")])
    assert only(rolls(b, "Second Wind"))["pool"] == pool


# ---------------------------------------------------------------------------------------
# Traits in battle: Endurance against unarmed or bludgeoning attacks, initiative

@pytest.mark.parametrize("trait,weapon,vit", [
    ("glass_jaw", "unarmed", "d4"), ("glass_jaw", "club", "d4"), ("glass_jaw", "pistol", "d8"),
    ("takes_a_punch", "unarmed", "d12"), ("takes_a_punch", "club", "d12"), ("takes_a_punch", "pistol", "d8"),
])
def test_endurance_against_unarmed_or_bludgeoning(trait, weapon, vit):
    """seed 000, Glass Jaw: -2 steps to Vitality on Endurance rolls against unarmed or
    bludgeoning attacks; Takes a Punch: +2 steps; neither against a gun."""
    p = fig("p", (0, 1), str_="d6", agi="d6", skills={"unarmed_combat": "d6", "melee_weapons": "d6", "guns": "d6"},
            weapons=("club", "pistol"))
    t = dummy("t", (1, 1), vit="d8", traits=[trait])
    s = scen(open_map(), [p], [t, dummy("u", (11, 2))])
    # 6 + 4 = 10 vs 3: by 7, an extraordinary hit: Endurance at Average or knocked prone
    b = play(s, [atk("p", "t", weapon, dice=[6, 4, 1, 4, 3])])
    assert only(rolls(b, "Endurance vs special effect"))["pool"] == f"Vitality {vit} + Willpower d6"


def test_glass_jaw_applies_to_the_head_shot_recovery_roll():
    """seed 000, Glass Jaw: the penalty applies to Endurance rolls against unarmed attacks
    'such as called shots to the head' - the recovery roll after a punch to the head."""
    t = dummy("t", (1, 1), vit="d8", traits=["glass_jaw"])
    s = scen(open_map(), [brawler("p", (0, 1))], [t, dummy("u", (11, 2))])
    b = play(s, [atk("p", "t", "unarmed", "called:head", [6, 5, 3]), end("p", [1, 2])])
    assert only(rolls(b, "Endurance to recover"))["pool"] == "Vitality d4 + Willpower d6"


def test_slow_reflexes_initiative_minus_one_agility_step():
    """seed 000, Slow Reflexes: -1 step to Agility on Initiative rolls."""
    s = scen(open_map(), [fig("p", (0, 1), agi="d8", ale="d6", traits=["slow_reflexes"])],
             [fig("q", (5, 1), agi="d8", ale="d6")])
    s["initiative"] = "roll"
    b = run_replay({"scenario": s, "start_dice": [3, 3, 3, 3], "steps": []})
    pools = {r["actor"]: r["pool"] for r in rolls(b, "initiative")}
    assert pools == {"p": "Agility d6 + Alertness d6", "q": "Agility d8 + Alertness d6"}
    assert b.state.order == ["q", "p"]        # tie 6 - 6: the higher Agility die first


@pytest.mark.parametrize("form,life", [(None, 12), ("minor", 10), ("major", 8)])
def test_paper_tiger_life_points(form, life):
    """seed 000, Paper Tiger: normal total Life Points (max Vitality + max Willpower, here
    6 + 6) reduced by 2; by 4 as a major trait."""
    traits = [] if form is None else [{"name": "paper_tiger", "major": form == "major"}]
    b = play(scen(open_map(), [fig("p", (0, 1), traits=traits)], [dummy("t", (5, 1))]))
    assert who(b, "p").stats["life"] == life


# ---------------------------------------------------------------------------------------
# Traits through ruleset.skill_check (seed 000, Traits)

@pytest.mark.parametrize("traits,attribute,skill,context,expected", [
    # Born Behind the Wheel (land by default): a bonus d4 at the controls of its vehicle type
    (["born_behind_the_wheel"], "agility", "pilot", {"piloting", "land"}, [8, 6, 4]),
    (["born_behind_the_wheel"], "agility", "pilot", {"piloting", "air_space"}, [8, 6]),
    ([{"name": "born_behind_the_wheel", "vehicle_type": "air_space"}], "agility", "pilot",
     {"piloting", "air_space"}, [8, 6, 4]),
    (["born_behind_the_wheel"], "agility", "athletics", {"land"}, [8, 6]),
    # Stingy: -2 skill steps in social interactions where parting with money is needed
    (["stingy"], "willpower", "influence", {"social", "parting_with_money"}, [8, 4]),
    (["stingy"], "willpower", "influence", {"social"}, [8, 8]),
    # Greedy: -2 skill steps in negotiations (minor and major)
    (["greedy"], "intelligence", "influence", {"negotiation"}, [8, 4]),
    ([{"name": "greedy", "major": True}], "intelligence", "influence", {"negotiation"}, [8, 4]),
    (["greedy"], "intelligence", "influence", {"social"}, [8, 8]),
    # Trustworthy Face: +2 skill steps where trust is involved
    (["trustworthy_face"], "willpower", "influence", {"trust"}, [8, 12]),
    (["trustworthy_face"], "willpower", "influence", {"negotiation"}, [8, 8]),
    # Clumsy: -2 Agility or Alertness steps on balancing, catching, delicate, graceful
    (["clumsy"], "agility", "athletics", {"balance"}, [4, 6]),
    (["clumsy"], "alertness", "perception", {"catching"}, [4, 6]),
    (["clumsy"], "agility", None, {"delicate"}, [4]),
    (["clumsy"], "agility", "athletics", {"graceful"}, [4, 6]),
    (["clumsy"], "agility", "athletics", {"climbing"}, [8, 6]),
    (["clumsy"], "strength", "athletics", {"balance"}, [8, 6]),
    # Gettin' On in Years: -1 (minor) / -2 (major) steps
    (["gettin_on_in_years"], "strength", "athletics", {"athletics"}, [6, 6]),
    ([{"name": "gettin_on_in_years", "major": True}], "strength", "athletics", {"athletics"}, [4, 6]),
    (["gettin_on_in_years"], "vitality", None, {"resist_disease"}, [6]),
    (["gettin_on_in_years"], "vitality", None, {"resist_environment"}, [6]),
    ([{"name": "gettin_on_in_years", "major": True}], "vitality", None, {"resist_environment"}, [4]),
    (["gettin_on_in_years"], "willpower", "influence", {"influence", "appearance"}, [6, 8]),
    (["gettin_on_in_years"], "intelligence", "knowledge", {"memory"}, [6, 6]),
    ([{"name": "gettin_on_in_years", "major": True}], "intelligence", "knowledge", {"memory"}, [4, 6]),
    (["gettin_on_in_years"], "vitality", None, {"injury", "endurance"}, [8]),
    ([{"name": "gettin_on_in_years", "major": True}], "vitality", None, {"injury", "endurance"}, [4]),
    (["gettin_on_in_years"], "intelligence", "knowledge", {"science"}, [8, 6]),
    # Glass Jaw / Takes a Punch: Vitality on Endurance against unarmed or bludgeoning
    (["glass_jaw"], "vitality", None, {"endurance", "unarmed_or_bludgeoning"}, [4]),
    (["glass_jaw"], "vitality", None, {"endurance"}, [8]),
    (["takes_a_punch"], "vitality", None, {"endurance", "unarmed_or_bludgeoning"}, [12]),
    (["takes_a_punch"], "vitality", None, {"second_wind"}, [12]),
    # Slow Reflexes: -1 Agility on initiative, -1 Alertness getting out of harm's way
    (["slow_reflexes"], "agility", None, {"initiative"}, [6]),
    (["slow_reflexes"], "alertness", None, {"harms_way"}, [6]),
    (["slow_reflexes"], "agility", None, {"harms_way"}, [8]),
    # Uneducated: -2 Intelligence steps on knowledge-based checks
    (["uneducated"], "intelligence", "knowledge", {"knowledge"}, [4, 6]),
    (["uneducated"], "intelligence", "perception", {"investigation"}, [8, 6]),
    # Good Luck Charm: -1 Attribute step on all actions while separated from the charm
    (["good_luck_charm"], "agility", "athletics", {"separated_from_charm"}, [6, 6]),
    (["good_luck_charm"], "intelligence", None, {"separated_from_charm"}, [6]),
    (["good_luck_charm"], "agility", "athletics", set(), [8, 6]),
])
def test_trait_modifiers_in_skill_checks(traits, attribute, skill, context, expected):
    """seed 000, Traits (Born Behind the Wheel, Stingy, Greedy, Trustworthy Face, Clumsy,
    Gettin' On in Years, Glass Jaw, Takes a Punch, Slow Reflexes, Uneducated, Good Luck
    Charm): each modifier applies when the roll's context matches, to the die the seed names."""
    r = check(person(traits), attribute, skill, context)
    assert pool_sides(r) == expected, r.event


def test_skill_check_accepts_a_stat_block_and_reports_traits():
    """seed 000, Traits (Uneducated) through the rules API: `ruleset.skill_check` takes a
    Combatant or its stat block; the event names the traits that changed the roll and the
    check succeeds at or over the Difficulty."""
    c = person(["uneducated"])
    r = check(c.stats, "intelligence", "knowledge", {"knowledge"}, faces=[4, 3])
    assert pool_sides(r) == [4, 6] and r.total == 7 and r.success and not r.botch
    assert r.event["traits"] == ["uneducated"] and r.event["difficulty"] == 7
    r = check(c, "intelligence", "knowledge", {"knowledge"}, faces=[1, 1])
    assert r.botch and not r.success
    r = check(c, "intelligence", "knowledge", {"knowledge"}, faces=[4, 2])
    assert r.total == 6 and not r.success


def test_good_luck_charm_condition_separated_from_charm():
    """seed 000, Good Luck Charm: while separated from the charm (a figure condition), -1
    Attribute step on all actions - the figure's conditions count as the check's context."""
    c = person(["good_luck_charm"])
    assert pool_sides(check(c, "willpower", "discipline", set())) == [8, 6]
    c.conditions.add("separated_from_charm")
    assert pool_sides(check(c, "willpower", "discipline", set())) == [6, 6]
    assert pool_sides(check(c, "strength", None, {"lifting"})) == [6]


@pytest.mark.parametrize("traits,flags", [
    (["criminal"], {"criminal_record"}),
    ([{"name": "criminal", "major": True}], {"criminal_record", "felony", "no_voting", "no_legal_firearms",
                                              "no_legal_work", "bounty_if_rim"}),
    (["dandy"], {"must_focus_when_appearance_at_risk"}),
    ([{"name": "greedy", "major": True}], {"must_resist_selling_out"}),
    (["greedy"], set()),
    ([{"name": "glass_jaw", "major": True}], {"no_second_wind_in_fight"}),
])
def test_trait_flags(traits, flags):
    """seed 000, Criminal (minor: a record; major: a felony - no voting, no legal firearms,
    no legal work, a bounty on the Rim), Dandy, Greedy (major: must resist selling out the
    crew), Glass Jaw (major): facts with no roll, in stats['flags']."""
    assert person(traits).stats["flags"] == flags


def test_greedy_major_resisting_a_sell_out_is_willpower_discipline():
    """seed 000, Greedy (major): a Willpower + Discipline test to resist offers to sell out
    the crew (the -2 negotiation penalty does not touch it)."""
    c = person([{"name": "greedy", "major": True}])
    r = check(c, "willpower", "discipline", {"resist_selling_out"}, faces=[5, 2])
    assert pool_sides(r) == [8, 6] and r.success


@pytest.mark.parametrize("traits,pp,die", [
    (["born_behind_the_wheel"], 1, 2),
    ([{"name": "born_behind_the_wheel", "major": True}], 1, 6),
    ([{"name": "born_behind_the_wheel", "major": True}], 2, 8),
])
def test_born_behind_the_wheel_major_plot_points_as_two_more(traits, pp, die):
    """seed 000, Born Behind the Wheel (major): Plot Points spent on actions with the
    chosen vehicle type improve as if 2 more had been spent (1 PP: d2 -> d6); the d4 comes
    in addition to the Plot Point die."""
    r = check(person(traits), "agility", "pilot", {"piloting", "land"}, plot_points=pp)
    assert pool_sides(r) == [8, 6, 4, die]
    r = check(person(traits), "agility", "athletics", {"running"}, plot_points=pp)
    assert pool_sides(r) == [8, 6, 2 * pp]
