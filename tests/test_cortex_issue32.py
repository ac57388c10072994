"""Issue #32 for the `cortex` ruleset (seed 000): the deviations fixed, roll fields,
starting state in scenarios, inline weapons and armour, and the `tracked()` hook.

Forced-dice replays (rules.replay.run_replay), strict: each step's dice are exactly the
rolls it makes. Helpers come from tests/cortex_seed000_setup.py. "seed 000, <heading>"
cites /work/shared/seeds/000_*.txt.
"""

from __future__ import annotations

import pytest

from rules.errors import ScenarioError



from tests.cortex_seed000_setup import (act, atk, dummy, evs, fig, only, open_map, play, rolls, scen,
                                        who)


# ---------------------------------------------------------------------------------------
# 1. Capoeira

def test_capoeira_innate_defence_against_melee_is_five_no_roll():
    """seed 000, Unarmed, Capoeira: "Your Innate Defense against melee attacks is 5." No
    Agility roll is made: the attack's Difficulty is 5, a 4 misses and a 5 hits."""
    c = {"id": "c", "at": [1, 1], "template": "capoeirista", "life_points": 99}
    p = fig("p", (0, 1), skills={"unarmed_combat": "d6"})
    s = scen(open_map(), [p], [c])
    b = play(s, [atk("p", "c", "unarmed", dice=[2, 2])])           # 4 < 5: a miss, no roll for c
    assert not rolls(b, "innate defence")
    assert only(evs(b, "defence", actor="c"))["difficulty"] == 5
    assert only(evs(b, "attack"))["result"] == "miss"
    b = play(s, [atk("p", "c", "unarmed", dice=[3, 2, 2])])        # 5 = 5: a hit, d2 Stun 2
    assert not rolls(b, "innate defence")
    assert only(evs(b, "attack"))["difficulty"] == 5 and only(evs(b, "attack"))["result"] == "hit"
    assert who(b, "c").res["stun"] == 2


def test_capoeira_innate_defence_against_ranged_attacks_is_still_rolled():
    """seed 000, Capoeira speaks of melee attacks only: against a pistol the capoeirista
    rolls Agility (d10) as usual."""
    c = {"id": "c", "at": [5, 1], "template": "capoeirista"}
    p = fig("p", (0, 1), skills={"guns": "d6"}, weapons=("pistol",))
    b = play(scen(open_map(), [p], [c]), [atk("p", "c", "pistol", dice=[1, 2, 2, 1])])
    assert only(rolls(b, "innate defence", "c"))["dice"] == [[10, 2]]
    assert only(evs(b, "attack"))["difficulty"] == 2


# ---------------------------------------------------------------------------------------
# 2. Improvised weapons break after every hit or botch, trips included

def _trip_scene() -> dict:
    p = fig("p", (0, 1), agi="d6", skills={"melee_weapons": "d8"}, weapons=("pool_stick",))
    return scen(open_map(), [p], [dummy("t", (1, 1))])


def test_pool_stick_trip_that_hits_checks_for_breaking():
    """seed 000, Improvised Weapons: "improvised weapons have a chance of breaking (checked
    after a hit or botched attack roll)". A pool stick trip that hits (Agility d6 + Melee
    d8, the suited -1 waived: 2 + 1 = 3 vs Easy 3) rolls d100 for breaking (50: the stick,
    50%, breaks to nothing), then the opposed trip (12 vs 3) knocks the target prone."""
    b = play(_trip_scene(), [atk("p", "t", "pool_stick", "trip", [2, 1, 50, 6, 6, 1, 2])])
    assert only(rolls(b, "pool_stick breaks"))["total"] == 50
    assert "pool_stick" not in [w.name for w in b.ruleset.weapons_of(who(b, "p"))]
    assert "prone" in who(b, "t").conditions
    assert not b.state.objects


def test_pool_stick_trip_that_hits_and_holds_keeps_the_stick():
    """The same trip with a d100 of 51: the stick holds; the target still falls."""
    b = play(_trip_scene(), [atk("p", "t", "pool_stick", "trip", [2, 1, 51, 6, 6, 1, 2])])
    assert "pool_stick" in [w.name for w in b.ruleset.weapons_of(who(b, "p"))]
    assert "prone" in who(b, "t").conditions


def test_botched_trip_with_a_stick_that_breaks_leaves_nothing_to_drop():
    """seed 000, Tripping: "If the attacker botches ... the attacker is knocked prone. If
    tripping with a weapon ..., the attacker can drop it to avoid falling prone." A botched
    pool stick trip checks for breaking first; a stick that broke cannot be dropped, so the
    attacker falls, and no stick lies on the map."""
    b = play(_trip_scene(), [atk("p", "t", "pool_stick", "trip", [1, 1, 10])])
    assert "prone" in who(b, "p").conditions
    assert not b.state.objects
    assert who(b, "p").res["lost"] == ["pool_stick"]


# ---------------------------------------------------------------------------------------
# 4. Roll fields: every roll names its check and its modifiers

def _check_roll_fields(events) -> set[str]:
    import re
    seen = set()
    for e in events:
        if e["type"] != "roll":
            continue
        assert re.fullmatch(r"[a-z][a-z0-9_]*", e.get("check", "")), e
        assert isinstance(e["modifiers"], list), e
        for m in e["modifiers"]:
            assert set(m) == {"source", "value"} and isinstance(m["source"], str), e
            assert isinstance(m["value"], int) and not isinstance(m["value"], bool), e
        assert e["actor"] and isinstance(e["purpose"], str)
        seen.add(e["check"])
    return seen


def test_every_cortex_roll_has_check_and_modifiers():
    """Issue #32: rolls name their roller, purpose and modifiers as fields. Checked over
    the bundled cortex scenarios (random play) and the seed 000 replays."""
    from pathlib import Path

    from evaluation.simulate import check_policies, play_fight
    from rules.replay import run_replay
    from rules.scenario import bundled_scenarios, load_scenario

    seen: set[str] = set()
    for name in bundled_scenarios():
        if not name.startswith("cortex/"):
            continue
        spec, src = load_scenario(name)
        pols = check_policies(spec, {t.name: "random" for t in spec.teams})
        for i in range(4):
            got: list = []
            play_fight(spec, pols, 5, i, src, on_event=got.append)
            seen |= _check_roll_fields(got)
    for path in sorted((Path(__file__).parent / "replays" / "cortex_seed000").glob("*.yaml")):
        seen |= _check_roll_fields(run_replay(path).events)
    assert {"initiative", "attack", "damage", "innate_defence", "harms_way", "blast_damage"} <= seen, seen


def test_attack_roll_modifiers_name_each_step():
    """Issue #32: the attack roll lists its modifiers: a second action in the turn (-1 step,
    RULES-NOTES multiple actions), the improvised pool stick (-1, seed 000 table) and the
    trip suited to it (+1: "a pool stick used for a trip attack"); wounds of half the Life
    Points (-2 on the attribute die, assumption wounded_penalty)."""
    p = fig("p", (0, 1), agi="d6", skills={"melee_weapons": "d8"}, weapons=("pool_stick",),
            life_points=10, state={"wound": 5})
    s = scen(open_map(), [p], [dummy("t", (1, 1))])
    b = play(s, [act("p", "defend", option="block"),
                 atk("p", "t", "pool_stick", "trip", [2, 1, 51, 2, 3, 1, 2])])
    r = only([e for e in b.events if e["type"] == "roll" and e["check"] == "attack"])
    assert r["modifiers"] == [{"source": "wounded (agility)", "value": -2},
                              {"source": "multiple actions (skill)", "value": -1},
                              {"source": "improvised weapon pool_stick (skill)", "value": -1},
                              {"source": "attack suited to the object (skill)", "value": 1}]
    assert r["dice"] == [[2, 2], [6, 1]]          # Agility d6 -2 = d2; Melee d8 -1 -1 +1 = d6
    assert "prone" in who(b, "t").conditions      # opposed trip 5 vs 3
    assert only([e for e in b.events if e.get("check") == "breaking"])["modifiers"] == []


# ---------------------------------------------------------------------------------------
# 5. Starting state, inline weapons and armour

def test_figure_starts_prone_wounded_and_impaired_with_no_setup_moves():
    """Issue #32: a case needs no setup moves. seed 000, Defense, Ranged Combat: "A prone
    target cannot roll innate defense against ranged attacks. He is automatically an Easy
    target with a +4 light cover bonus (Difficulty 7)". The target starts prone with 5 Wounds
    of 10 Life Points, so a 7 hits (Difficulty 7) and d6 Wound 1 brings it to 6."""
    t = dummy("t", (5, 1), life_points=10, conditions=["prone", {"name": "impaired", "until": "endurance"}],
              state={"wound": 5, "stun": 1})
    p = fig("p", (0, 1), skills={"guns": "d6"}, weapons=("pistol",))
    b = play(scen(open_map(), [p], [t]), [atk("p", "t", "pistol", dice=[4, 3, 1])])
    assert only(evs(b, "defence", actor="t"))["mode"] == "prone"
    assert only(evs(b, "attack"))["difficulty"] == 7 and only(evs(b, "attack"))["result"] == "hit"
    c = who(b, "t")
    assert (c.res["wound"], c.res["stun"]) == (6, 1)
    assert {"prone", "impaired"} <= c.conditions
    assert [(x["effect"], x["until"]) for x in c.res["afflictions"]] == [("impaired", "endurance")]


def test_figure_starts_grappled_and_knocked():
    """A grapple stated in the scenario: the holder's `state.grappling` ties both figures;
    seed 000, Knocked Prone: a knocked figure stands with -1 step on its next combat action."""
    p = fig("p", (0, 1), skills={"unarmed_combat": "d6"}, state={"grappling": "t"}, conditions=["knocked"])
    b = play(scen(open_map(), [p], [dummy("t", (1, 1))]), [])
    assert who(b, "t").res["grappled_by"] == "p" and "grappled" in who(b, "t").conditions
    assert {"prone", "knocked", "grappling"} <= who(b, "p").conditions
    b = play(scen(open_map(), [p], [dummy("t", (1, 1))]),
             [act("p", "stand"), atk("p", "t", "unarmed", dice=[2, 1, 1])])
    r = only([e for e in b.events if e.get("check") == "attack"])
    assert {"source": "off balance after rising (skill)", "value": -1} in r["modifiers"]


def test_inline_armour_and_weapon():
    """Issue #32: armour and weapons written inline. Armour W 5 S 0 (no table armour has
    it) stops 5 of a d8 Wound hit; an inline sap (d4 Stun, Strength + Melee Weapons)."""
    t = dummy("t", (1, 1), armour={"name": "scrap_plate", "W": 5, "S": 0, "covers": ["torso"]})
    sap = {"name": "sap", "kind": "melee", "attribute": "strength", "skill": "melee_weapons",
           "damage": "d4", "type": "S", "size": 1}
    p = fig("p", (0, 1), skills={"melee_weapons": "d6"}, weapons=(sap, {"name": "big_axe", "like": "axe",
                                                                       "damage": "d8"}))
    b = play(scen(open_map(), [p], [t]), [atk("p", "t", "big_axe", dice=[1, 2, 8])])   # 3 vs 3: d8 W 8
    dmg = only(evs(b, "damage"))
    assert (dmg["wound"], dmg["absorbed"]) == (3, 5)
    b = play(scen(open_map(), [p], [t]), [atk("p", "t", "sap", dice=[1, 2, 4])])       # d4 S 4: armour S 0
    assert only(evs(b, "damage"))["stun"] == 4


@pytest.mark.parametrize("extra,field,expected", [
    ({"conditions": ["stunned"]}, "conditions[0]", "one of arm_lost"),
    ({"conditions": [{"name": "impaired", "rounds": 2}]}, "conditions[0].rounds", "until"),
    ({"conditions": [{"name": "impaired", "until": "dawn"}]}, "conditions[0].until", "endurance"),
    ({"state": {"aim": 1}}, "state.aim", "one of ammo"),
    ({"state": {"wound": "two"}}, "state.wound", "int"),
    ({"state": {"ammo": {"pistol": 99}}}, "state.ammo.pistol", "at most its magazine"),
    ({"state": {"stance": "parry"}}, "state.stance", "block"),
    ({"armour": {"name": "x", "W": -1}}, "armour.W", "0 or more"),
    ({"armour": {"name": "x", "covers": ["tail"]}}, "armour.covers[0]", "limbs"),
    ({"weapons": [{"name": "zap", "kind": "melee"}]}, "weapons[0].attribute", "like"),
    ({"weapons": [{"name": "zap", "like": "club", "colour": "red"}]}, "weapons[0].colour", "damage"),
    ({"weapons": [{"name": "zap", "like": "club", "damage": "d7"}]}, "weapons[0].damage", "d6"),
])
def test_bad_starting_state_is_a_clear_error(extra, field, expected):
    from rules.scenario import load_scenario, new_battle
    p = fig("p", (0, 1), **{"weapons": ("pistol",), **extra})
    with pytest.raises(ScenarioError) as e:
        new_battle(load_scenario(scen(open_map(), [p], [dummy("t", (3, 1))]))[0]).start()
    assert e.value.field.endswith(field), e.value
    assert expected in str(e.value), e.value


def test_cortex_hu_refuses_cortex_fields_it_has_no_schema_for():
    """cortex_hu has its own starting-state keys (docs/cortex_hu.md): a cortex-only key such
    as reaction_debt (cortex_hu calls its reactions `debt`) is refused, not silently kept."""
    from rules.scenario import load_scenario
    s = scen(open_map(), [{"id": "p", "at": [0, 1], "template": "betyar", "state": {"reaction_debt": 1}}],
             [{"id": "t", "at": [3, 1], "template": "betyar"}])
    s["ruleset"] = "cortex_hu"
    with pytest.raises(ScenarioError):
        from rules.scenario import build_state
        build_state(load_scenario(s)[0])


# ---------------------------------------------------------------------------------------
# 6. tracked(): what the rules track, for the replay's final state

def test_tracked_reports_life_thresholds_conditions_weapons_and_the_turn():
    """Issue #32: the final state shows life and its thresholds, weapons carried and held,
    conditions with their duration, the turn economy and grapples."""
    import json as _json
    p = fig("p", (0, 1), skills={"guns": "d6", "athletics": "d4"}, weapons=("pistol", "knife"), life_points=10,
            conditions=["arm_lost"], state={"wound": 5, "ammo": {"pistol": 3}})
    b = play(scen(open_map(), [p], [dummy("t", (5, 1))]), [act("p", "defend", option="dodge"),
                                                           atk("p", "t", "pistol", dice=[1, 2, 1])])
    tr = b.ruleset.tracked(b.state, who(b, "p"))
    _json.dumps(tr)
    assert tr["life_points"] == 10 and tr["wound"] == 5
    assert tr["thresholds"] == {"wounded_penalty_at_wound": 5, "endurance_roll_at_stun_plus_wound": 10,
                                "dying_at_wound": 10, "dead_at_wound": 20}
    assert tr["weapons"] == ["pistol", "knife", "unarmed"] and tr["held"] == "pistol"
    assert tr["ammo"] == {"pistol": 2} and tr["arms_usable"] == 1
    assert tr["afflictions"] == [{"effect": "lose_arm", "area": "start", "until": "medical",
                                  "conditions": ["arm_lost"]}]
    assert tr["stance"]["mode"] == "dodge" and tr["stance"]["next_roll_steps"] == 0
    assert tr["turn"]["actions_used"] == 2 and tr["turn"]["shots"] == {"pistol": 1}
    assert "turn" not in b.ruleset.tracked(b.state, who(b, "t"))
