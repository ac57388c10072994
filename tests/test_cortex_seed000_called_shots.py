"""Forced-dice tests for the seed 000 special rules of the `cortex` ruleset:
Called Shots.

Strict forced-dice replays through `rules.replay.run_replay`. The helpers, the roll order, the
sources cited ("seed 000, <heading>", "RULES-NOTES", "assumption <key>") and the geometry are
in tests/cortex_seed000_setup.py; the other topics in tests/test_cortex_seed000_*.py.
"""

from __future__ import annotations

import pytest

from rules.actions import Action
from tests.cortex_seed000_setup import (AREAS, RS, _ko_scene, act, afflictions, atk, attacks_in, brawler,
                                        cell, dummy, economy, effects, end, evs, fig, legal, max_move_cells,
                                        only, open_map, play, play_loose, rolls, scen, sides, who)


# ---------------------------------------------------------------------------------------
# Called Shots

@pytest.mark.parametrize("area,plus", sorted(AREAS.items()))
def test_called_shot_difficulty_by_area(area, plus):
    """seed 000, Called Shots: the area adds +4 (arm, leg), +8 (head, groin) or +12 (hand,
    kneecap, heart) to the Difficulty; one point short misses."""
    s = scen(open_map(), [fig("p", (0, 1), agi="d12", skills={"guns": "d12"}, weapons=("pistol",))],
             [dummy("t", (4, 1))])
    need = 3 + plus
    first = min(12, need - 2)
    b = play(s, [atk("p", "t", "pistol", f"called:{area}", [first, need - 1 - first])])
    a = only(evs(b, "attack"))
    assert a["result"] == "miss" and a["difficulty"] == need
    assert who(b, "t").res["afflictions"] == [] and who(b, "t").res["wound"] == 0


def test_called_shot_must_be_first_action_and_ends_the_actions():
    """assumption called_shot_single (seed 000, Called Shots: 'a called shot is a determined
    single attack. Extra actions ... cannot be called shots'): walking first keeps it; after
    another action no called shot is offered; after a called shot no more actions, but
    walking stays free."""
    called = Action("attack", "t", None, "pistol", "called:head")
    s = scen(open_map(), [brawler("p", (0, 1), weapons=("pistol",))], [dummy("t", (6, 1))])
    assert called in legal(play(s, []))
    assert called in legal(play(s, [act("p", "move", cell=[2, 1])]))      # a walk is free
    b = play(s, [atk("p", "t", "pistol", dice=[1, 1])])                      # a botched shot
    assert called not in legal(b) and attacks_in(b)
    # a called shot (a miss: 2 + 3 = 5 < 11) ends the turn's actions
    b = play(s, [atk("p", "t", "pistol", "called:head", [2, 3])])
    assert b.state.actor.id == "p"
    kinds = {a.kind for a in legal(b)}
    assert "attack" not in kinds and "defend" not in kinds and "reload" not in kinds
    assert Action("move", cell=cell(b, 3, 1)) in legal(b)        # a 15 ft walk
    assert Action("move", cell=cell(b, 4, 1)) not in legal(b)    # no hustle (an action)


def test_burst_and_autofire_cannot_be_called_shots():
    """seed 000, Called Shots: 'bursts, or autofire cannot be called shots' - no option
    combines them, and after a burst no called shot is offered."""
    s = scen(open_map(), [fig("p", (0, 1), agi="d8", skills={"guns": "d6"}, weapons=("smg",))],
             [dummy("t", (5, 1))])
    assert not [o for o in RS.supported_actions["attack"] if o.startswith("called:") and
                ("burst" in o or "auto" in o)]
    b = play(s, [atk("p", "t", "smg", "burst", [1, 1])])
    assert not [a for a in attacks_in(b) if (a.option or "").startswith("called:")]


def _arm_scene(column: str, n_attackers: int = 1) -> dict:
    """Attackers with bare hands (Stun column) or a pistol (Wound column) next to a target
    carrying a two-handed rifle and a pistol."""
    w = ("pistol",) if column == "wound" else ()
    a = [brawler(f"p{i}", (0, i), weapons=w) for i in range(n_attackers)]
    t = dummy("t", (1, 1), skills={"guns": "d6"}, weapons=("rifle", "pistol"))
    return scen(open_map(), a, [t])


def test_called_arm_stun_column_loses_the_arm_until_an_endurance_roll():
    """seed 000, Called Shots, Arm (Stun/Basic): the victim loses use of the limb until it
    succeeds on an Endurance roll (Hard 11, once a turn in its initiative order); assumption
    limbs: a lost arm rules out two-handed weapons (the rifle), not the pistol."""
    s = _arm_scene("stun")
    # bare hands: Strength d6 + Unarmed d6 = 4 + 3 = 7 vs Easy 3 + 4: hit by 0; d2 Stun -> 1
    hit = atk("p0", "t", "unarmed", "called:arm", [4, 3, 1])
    b = play(s, [hit, end("p0", [1, 2])])                 # t's recovery roll: 3 < 11
    assert only(evs(b, "attack"))["difficulty"] == 7
    assert afflictions(b, "t") == [("lose_arm", "endurance")]
    assert "arm_lost" in who(b, "t").conditions
    assert b.state.actor.id == "t"
    rec = only(rolls(b, "Endurance to recover"))
    assert sides(rec) == [6, 6] and rec["difficulty"] == 11
    weapons = {a.weapon for a in attacks_in(b)}
    assert "pistol" in weapons and "rifle" not in weapons
    assert economy(b)["arms_usable"] == 1 and economy(b)["actions_used"] == 0
    # the roll made: the arm works again at once
    b = play(s, [hit, end("p0", [6, 5])])
    assert afflictions(b, "t") == [] and "arm_lost" not in who(b, "t").conditions
    assert "rifle" in {a.weapon for a in attacks_in(b)}


def test_called_arm_wound_column_immediate_endurance_or_lost_until_medical():
    """seed 000, Called Shots, Arm (Wound): the victim must immediately make an Endurance
    roll or lose use of the limb until given medical treatment (assumption
    medical_treatment: the whole fight - no recovery rolls)."""
    s = _arm_scene("wound")
    # pistol: Agility d6 + Guns d6 = 7 vs 7; d6 Wound 2; immediate Endurance 2 + 3 = 5: failed
    b = play(s, [atk("p0", "t", "pistol", "called:arm", [4, 3, 2, 2, 3]), end("p0"), end("t"),
                 end("p0")])
    assert afflictions(b, "t") == [("lose_arm", "medical")]
    assert who(b, "t").res["wound"] == 2
    assert not rolls(b, "Endurance to recover")
    assert only(rolls(b, "Endurance vs called shot"))["difficulty"] == 11
    assert "rifle" not in {a.weapon for a in attacks_in(b)}
    # made (6 + 5 = 11): no effect
    b = play(s, [atk("p0", "t", "pistol", "called:arm", [4, 3, 2, 6, 5])])
    assert afflictions(b, "t") == [] and "arm_lost" not in who(b, "t").conditions


def test_both_arms_lost_no_attacks_or_blocks():
    """seed 000, Called Shots, Arm: incapacitated arms cannot attack or block (assumption
    limbs: with both lost, no weapons or fists); a dodge is still possible."""
    s = _arm_scene("stun", 2)
    b = play(s, [atk("p0", "t", "unarmed", "called:arm", [4, 3, 1]), end("p0"),
                 atk("p1", "t", "unarmed", "called:arm", [4, 3, 1]), end("p1", [1, 2])])
    assert b.state.actor.id == "t"
    assert economy(b)["arms_usable"] == 0
    assert attacks_in(b) == []
    assert Action("defend", option="block") not in legal(b)
    assert Action("defend", option="dodge") in legal(b)
    assert not [a for a in legal(b) if a.kind in ("grapple", "reload")]


@pytest.mark.parametrize("n_legs,run_cells", [(0, 9), (1, 4), (2, 2)])
def test_called_leg_each_lost_leg_halves_movement(n_legs, run_cells):
    """seed 000, Called Shots, Leg: each incapacitated leg reduces base speed by half
    (assumption leg_speed: walk, hustle and run; run 45 ft = 9 cells -> 4 -> 2)."""
    a = [brawler(f"p{i}", (0, i)) for i in range(2)]
    s = scen(open_map(14), a, [dummy("t", (1, 1))])
    steps = []
    for i in range(2):
        if i < n_legs:
            steps.append(atk(f"p{i}", "t", "unarmed", "called:leg", [4, 3, 1]))
        steps.append(end(f"p{i}", [1, 2] if (i == 1 and n_legs) else []))
    b = play(s, steps)
    assert b.state.actor.id == "t"
    assert [e for e, _ in afflictions(b, "t")] == ["lose_leg"] * n_legs
    assert max_move_cells(b) == run_cells
    if n_legs == 1:
        # walking is 7.5 ft: one cell is free, two cells are a hustle (one action)
        b1 = play(s, steps + [act("t", "move", cell=[2, 1])])
        assert economy(b1)["actions_used"] == 0
        b2 = play(s, steps + [act("t", "move", cell=[3, 1])])
        assert economy(b2)["actions_used"] == 1


def test_called_head_stun_column_plus_two_steps_knocked_out_until_endurance():
    """seed 000, Called Shots, Head (Stun/Basic): the damage die is +2 steps (d2 -> d6) and
    the victim is knocked unconscious until it succeeds on an Endurance roll: one Hard (11)
    roll each turn in its initiative order, costing no action."""
    s = _ko_scene()
    hit = atk("p", "t", "unarmed", "called:head", [6, 5, 3])     # 11 vs 3 + 8; d6 damage 3
    b = play(s, [hit])
    assert only(evs(b, "attack"))["difficulty"] == 11
    assert sides(only(rolls(b, "damage"))) == [6]
    assert who(b, "t").res["stun"] == 3
    assert afflictions(b, "t") == [("knocked_out", "endurance")]
    assert who(b, "t").down and evs(b, "down", target="t")
    # failed recovery at t's turn: t is skipped, u acts; next round t tries again and wakes
    b = play(s, [hit, end("p", [1, 2]), end("u"), end("p", [6, 5])])
    assert [r["success"] for r in rolls(b, "Endurance to recover", "t")] == [False, True]
    assert b.state.actor.id == "t" and not who(b, "t").down
    assert economy(b)["actions_used"] == 0
    assert attacks_in(b, "p")


def test_called_head_wound_column_immediate_endurance_or_out_until_surgery():
    """seed 000, Called Shots, Head (Wound): +2 damage steps; the victim must immediately
    make an Endurance roll or be knocked unconscious until treated by surgery (assumption
    medical_treatment: the whole fight - no recovery rolls)."""
    s = _ko_scene(weapons=("knife",))
    # knife: Agility d6 + Melee Weapons d6 = 11; d2 +2 steps = d6 -> 2 Wound; Endurance 1 + 2 fails
    b = play(s, [atk("p", "t", "knife", "called:head", [6, 5, 2, 1, 2]), end("p"), end("u"),
                 end("p"), end("u"), end("p")])
    assert sides(only(rolls(b, "damage"))) == [6]
    assert afflictions(b, "t") == [("knocked_out", "surgery")]
    assert who(b, "t").down and b.state.round == 3
    assert not rolls(b, "Endurance to recover")
    b = play(s, [atk("p", "t", "knife", "called:head", [6, 5, 2, 6, 5])])
    assert afflictions(b, "t") == [] and not who(b, "t").down


def test_called_groin_impaired_minus_two_steps_and_half_speed():
    """seed 000, Called Shots, Groin: impaired (-2 step skill penalty to all actions, base
    speed reduced by half) until an Endurance roll."""
    t = dummy("t", (1, 1), skills={"unarmed_combat": "d6"})
    s = scen(open_map(14), [brawler("p", (0, 1), decline_innate="always")], [t])
    steps = [atk("p", "t", "unarmed", "called:groin", [6, 5, 1]), end("p", [1, 2])]
    b = play(s, steps)
    assert "impaired" in who(b, "t").conditions
    assert afflictions(b, "t") == [("impaired", "endurance")]
    assert max_move_cells(b) == 4
    b = play(s, steps + [atk("t", "p", "unarmed", dice=[1, 1])])   # Strength d6 + Unarmed d6 -2 = d2
    assert sides(only(rolls(b, "attack", "t"))) == [6, 2]


def test_called_hand_stun_column_drop_roll_hard_agility_willpower():
    """seed 000, Called Shots, Hand (Stun/Basic): the hand is lost until an Endurance roll
    and the victim must make a Hard Agility + Willpower roll or drop the object held
    (assumption held_object); a dropped object lies on the map."""
    s = _ko_scene(str_="d12")
    # Strength d12 + Unarmed d6 = 12 + 3 = 15 vs 3 + 12; d2 Stun 1; hold on: 1 + 2 = 3 < 11
    b = play(s, [atk("p", "t", "unarmed", "called:hand", [12, 3, 1, 1, 2])])
    hold = only(rolls(b, "keep hold"))
    assert hold["difficulty"] == 11 and hold["pool"] == "Agility d6 + Willpower d6"
    assert afflictions(b, "t") == [("lose_hand", "endurance")]
    assert b.state.objects == {who(b, "t").pos: ["club"]}
    assert "club" in who(b, "t").res["lost"]
    # 6 + 5 = 11: holds on
    b = play(s, [atk("p", "t", "unarmed", "called:hand", [12, 3, 1, 6, 5])])
    assert b.state.objects == {} and "club" not in who(b, "t").res["lost"]
    assert afflictions(b, "t") == [("lose_hand", "endurance")]


def test_called_hand_wound_column_drops_and_lost_until_surgery():
    """seed 000, Called Shots, Hand (Wound): an immediate Endurance roll or drop any object
    held and lose use of the hand until treated by surgery (no separate drop roll)."""
    s = _ko_scene(weapons=("knife",), agi="d12")
    b = play(s, [atk("p", "t", "knife", "called:hand", [12, 3, 1, 1, 2])])
    assert len(rolls(b, "keep hold")) == 0
    assert afflictions(b, "t") == [("lose_hand", "surgery")]
    assert b.state.objects == {who(b, "t").pos: ["club"]}


def test_called_kneecap_stun_column_prone_incapacitated_crawl_until_endurance():
    """seed 000, Called Shots, Kneecap (Stun/Basic): knocked prone, incapacitated (no
    actions) and crawling until an Endurance roll; once it is made the figure acts again
    (still prone: it must stand up)."""
    s = _ko_scene(str_="d12")
    hit = atk("p", "t", "unarmed", "called:kneecap", [12, 3, 1])
    b = play(s, [hit])
    t = who(b, "t")
    assert {"prone", "incapacitated", "crawl_only", "leg_lost"} <= t.conditions and t.down
    b = play(s, [hit, end("p", [1, 2]), end("u"), end("p", [6, 5])])
    assert b.state.actor.id == "t"
    t = who(b, "t")
    assert "incapacitated" not in t.conditions and "crawl_only" not in t.conditions
    assert "prone" in t.conditions and Action("stand") in legal(b)


def test_called_kneecap_wound_column_incapacitated_until_medical_leg_until_surgery():
    """seed 000, Called Shots, Kneecap (Wound): an immediate Endurance roll or knocked
    prone, incapacitated until given medical treatment, and the leg lost (a crawl) until
    treated by surgery."""
    s = _ko_scene(weapons=("knife",), agi="d12")
    b = play(s, [atk("p", "t", "knife", "called:kneecap", [12, 3, 1, 1, 2]), end("p"), end("u")])
    t = who(b, "t")
    assert {"prone", "incapacitated", "crawl_only", "leg_lost"} <= t.conditions
    assert sorted(afflictions(b, "t")) == [("incapacitated", "medical"), ("lose_leg", "surgery")]
    assert not rolls(b, "Endurance to recover")


def test_called_heart_stun_column_needs_an_electrical_weapon():
    """seed 000, Called Shots, Heart (Stun/Basic): no additional effect unless the attack
    is electrical (the stun baton): then the victim falls down, incapacitated until an
    Endurance roll."""
    s = _ko_scene(weapons=("stun_baton",), str_="d12")
    b = play(s, [atk("p", "t", "unarmed", "called:heart", [12, 3, 1])])
    assert afflictions(b, "t") == [] and "prone" not in who(b, "t").conditions
    b = play(s, [atk("p", "t", "stun_baton", "called:heart", [12, 3, 2])])
    assert afflictions(b, "t") == [("heart_stopped", "endurance")]
    assert {"prone", "incapacitated"} <= who(b, "t").conditions
    assert who(b, "t").res["stun"] == 2


def test_called_heart_wound_column_plus_four_steps_endurance_or_dead():
    """seed 000, Called Shots, Heart (Wound): the damage die is +4 steps (knife d2 -> d10)
    and the victim must immediately make an Endurance roll or fall dead."""
    s = _ko_scene(weapons=("knife",), agi="d12")
    b = play(s, [atk("p", "t", "knife", "called:heart", [12, 3, 7, 1, 2])])
    assert sides(only(rolls(b, "damage"))) == [10]
    assert who(b, "t").res["wound"] == 7
    assert who(b, "t").dead and evs(b, "dead", target="t")
    b = play(s, [atk("p", "t", "knife", "called:heart", [12, 3, 7, 6, 5])])
    assert not who(b, "t").dead and not who(b, "t").down


@pytest.mark.parametrize("area,armour,negated", [
    ("head", "combat_helmet", True),
    ("arm", "ballistic_mesh", True),
    ("leg", "ballistic_mesh", True),
    ("hand", "ballistic_mesh", True),
    ("kneecap", "ballistic_mesh", True),
    ("heart", "tactical_vest", True),
    ("heart", "ballistic_mesh", True),
    ("arm", "tactical_vest", False),      # a vest does not cover the limbs
    ("head", "ballistic_mesh", False),    # a body suit does not cover the head
    ("groin", "ballistic_mesh", False),   # no armour covers the groin
])
def test_called_shot_armour_on_the_area_negates_the_effect(area, armour, negated):
    """seed 000, Called Shots: body armour negates the special effects of a called shot to
    covered areas (a helmet the head, a body suit the limbs, a vest or body suit the
    heart)."""
    s = _ko_scene(weapons=("stun_baton",), str_="d12", armour=armour)
    need = 3 + AREAS[area]       # Strength d12 + Melee d6 hit exactly: margin 0
    dice = [min(12, need - 1), need - min(12, need - 1), 1] + ([1, 2] if area == "hand" and not negated else [])
    b = play(s, [atk("p", "t", "stun_baton", f"called:{area}", dice)])
    assert only(evs(b, "attack"))["result"] == "hit"
    negates = [e for e in effects(b, "t") if e.startswith("armour negates")]
    assert bool(negates) == negated
    assert (afflictions(b, "t") == []) == negated


def test_extraordinary_called_shot_bypasses_covering_armour():
    """seed 000, Called Shots: armour negates the effect 'unless the attacker scores an
    extraordinary success that bypasses the body armor' (beat the Difficulty by 7)."""
    s = _ko_scene(str_="d12", armour="combat_helmet")
    # 12 + 6 = 18 vs 3 + 8 = 11: by 7, extraordinary; d6 Stun 4 passes the helmet whole
    b = play(s, [atk("p", "t", "unarmed", "called:head", [12, 6, 4])])
    assert only(evs(b, "attack"))["result"] == "extraordinary hit"
    assert afflictions(b, "t") == [("knocked_out", "endurance")]
    assert who(b, "t").res["stun"] == 7 + 4 - 3   # Basic 7 (4 Stun + 3 Wound) + 4 Stun
    # by 6: the helmet negates it
    b = play(s, [atk("p", "t", "unarmed", "called:head", [12, 5, 4])])
    assert afflictions(b, "t") == []


@pytest.mark.parametrize("area", ["arm", "leg"])
def test_an_extraordinary_called_shot_brings_the_special_effect_too(area):
    """seed 000, Extraordinary Success in Combat: "When an attacker beats the Difficulty to hit a
    defender by 7 or more, the target must make an Endurance roll or suffer a special effect";
    Called Shots: "The extra effects of a called shot are in addition to normal damage". No
    exception for called shots: a club's extraordinary called shot to the arm or leg (12 + 6 = 18
    against 3 + 4 = 7, by 11) brings the Endurance roll against the special effect (assumption
    extraordinary_attack: Average 7, or prone) beside the called shot's own effect (a club's
    Basic damage: the limb is lost until an Endurance roll succeeds on a later turn)."""
    s = _ko_scene(weapons=("club",), str_="d12")
    b = play_loose(s, [atk("p", "t", "club", f"called:{area}")], [12, 6, 2, 1, 1, 1, 1])
    assert only(evs(b, "attack"))["result"] == "extraordinary hit"
    purposes = [e["purpose"] for e in b.events if e["type"] == "roll" and "Endurance" in e["purpose"]]
    assert purposes == ["Endurance vs special effect"]
    assert "prone" in who(b, "t").conditions
    assert afflictions(b, "t") == [(f"lose_{area}", "endurance")]
