"""Issue #32 for the `cybergeneration` ruleset (seed 004): the engine held to the seed's words.

Forced-dice replays in the style of the rule tests, tests/test_cybergeneration_*.py (their
helpers, tests/cybergeneration_setup.py, are reused); each test quotes the seed 004 sentence
it checks (/work/shared/seeds/004_*.txt, the Cybergeneration combat page) and failed on the
engine before the fix. "assumption <key>" is an entry of the `assumptions` list in
rules/systems/cybergeneration/data.yaml.
"""

from __future__ import annotations

import re

from evaluation.simulate import check_policies, simulate
from rules.scenario import bundled_scenarios, load_scenario
from tests.cybergeneration_setup import (act, attack, brawler, can, econ, end, evs, fig, legal, only,
                                         open_map, play, scen, shooter, who, wounds)


def checked(b, check: str, actor: str | None = None) -> list[dict]:
    """The roll events of one kind, picked by their `check` key (not by words)."""
    return [e for e in b.events if e["type"] == "roll" and e.get("check") == check
            and (actor is None or e["actor"] == actor)]


def mods(e: dict) -> dict[str, int]:
    return {m["source"]: m["value"] for m in e["modifiers"]}


# ---------------------------------------------------------------------------------------
# 1. Two actions: -5 on every skill roll of a hurried action

def test_two_actions_minus_five_on_the_int_streetfighting_roll_to_spot_a_gap():
    """seed 004, Your Turn: 'Elect not to move and perform 2 actions (eg. shoot twice), with both at -5
    to all skill rolls'; Called Shots: 'In hand to hand combat you can make an INT + streetfighting roll
    to try to spot graps in armour' - that roll is a skill roll of the action, so it is at -5 too."""
    s = scen(open_map(8), [brawler("a", (0, 1), weapons=("knife",))],
             [brawler("d", (1, 1), armour=("heavy_armour",))])
    # gap: INT 6 + streetfighting 4 - 5 + 5 = 10 < 15 (not found; 15 found it before the fix);
    # attack 6 + 4 - 5 + 9 = 14 > defence REF 4 (heavy armour EV 2) + 4 + 2; knife DC2 die 10 + 2 body = 6,
    # less SP 6 halved (armour piercing) = 3
    b = play(s, [act("a", "use", option="two_actions"),
                 attack("a", "d", "knife", [5, 9, 2, 10, 1], option="called:gap")])
    gap = only(checked(b, "armour_gap"))
    assert gap["total"] == 10 and gap["success"] is False
    assert mods(gap) == {"two actions": -5}
    assert mods(only(checked(b, "attack"))) == {"two actions": -5}
    assert wounds(b, "d") == 3                                    # armour counted: no gap was found


def test_two_actions_an_attack_without_a_skill_roll_needs_the_hurried_stat_check():
    """seed 004, Your Turn: 'If your other action does not usually require a skill check it will require
    an appropriate stat check as you try to hurry it'; Genius Gun: 'Make no skill check ... The missile
    makes checks for you' (assumption two_actions: REF + 1d10 against 10, or the action is lost)."""
    s = scen(open_map(14), [fig("s", (0, 1), weapons=("genius_gun",))], [fig("t", (4, 1))])
    b = play(s, [act("s", "use", option="two_actions"), attack("s", "t", "genius_gun", [3], option="blast:5")])
    assert only(checked(b, "hurried_action"))["success"] is False          # REF 6 + 3 = 9 < 10
    assert checked(b, "genius_missile") == [] and wounds(b, "t") == 0
    assert who(b, "s").res["ammo"]["genius_gun"] == 24 and econ(b)["actions_left"] == 1.0
    b = play(s, [act("s", "use", option="two_actions"), attack("s", "t", "genius_gun", [4, 1, 5, 1], option="blast:5")])
    assert only(checked(b, "hurried_action"))["success"] is True
    assert only(checked(b, "genius_missile"))["total"] == 16 and wounds(b, "t") == 4   # DC5 die 5


def test_two_actions_an_automatic_hit_on_a_fallen_target_needs_the_hurried_stat_check():
    """seed 004, Your Turn: 'If your other action does not usually require a skill check it will require
    an appropriate stat check'; Unconscious Targets: 'You automatically hit in melee'."""
    s = scen(open_map(8), [brawler("a", (0, 1), weapons=("knife",))], [brawler("d", (1, 1), damage=10),
                                                                       brawler("e", (7, 2))])
    b = play(s, [act("a", "use", option="two_actions"), attack("a", "d", "knife", [2])])
    assert only(checked(b, "hurried_action"))["success"] is False and wounds(b, "d") == 10


# ---------------------------------------------------------------------------------------
# 2. Dodging: every ranged attack at the dodger, thrown grenades included (and cover)

def test_dodge_and_cover_add_to_the_difficulty_of_a_thrown_grenade():
    """seed 004, Actions: 'Dodge and make yourself harder to hit. Adding 2 to all difficulties to hit';
    Ranged Combat: 'Cover ... makes you harder to hit. Cover adds between +1 and +5 to the difficulty'.
    A grenade is thrown at the dodger: its difficulty (15 at 9 m of 50) rises by both."""
    rows = ["..............", ".....l........", ".............."]
    s = scen(rows, [fig("t", (6, 1))], [fig("s", (0, 1), weapons=("frag_grenade",), skills={"athletics": 4})])
    # 6 + 4 + 7 = 17 against 15 + 1 (light cover) + 2 (dodge) = 18: a miss by 1 lands 1 m (a cell) south
    b = play(s, [act("t", "defend", option="dodge"), end("t"), attack("s", "t", "frag_grenade", [7, 5, 1, 1])])
    r = only(checked(b, "attack", "s"))
    assert r["difficulty"] == 18 and (r["range"], r["cover"], r["dodge"]) == (15, 1, 2)
    a = only(evs(b, "attack"))
    assert a["result"] == "miss" and a["lands"] == [6, 2] and a["dc"] == 4


# ---------------------------------------------------------------------------------------
# 3. "You may attack an unconscious/stunned target": at range too

def test_an_unconscious_target_may_be_shot_at_range():
    """seed 004, Unconscious Targets: 'You may attack an unconscious/stunned target. You automatically hit
    in melee and are treated as rolling 10 on the damage dice' (assumption auto_hit_down: at range the
    attack is rolled against the range difficulty and the damage die is rolled)."""
    s = scen(open_map(14), [shooter()], [fig("t", (4, 1), damage=9), fig("u", (13, 2))])
    b = play(s)
    assert "unconscious" not in who(b, "t").conditions          # 1 Wound left: not yet
    s = scen(open_map(14), [shooter()], [fig("t", (4, 1), damage=10), fig("u", (13, 2))])
    b = play(s)
    assert "unconscious" in who(b, "t").conditions and can(b, "attack", target="t", weapon="light_pistol")
    b = play(s, [attack("s", "t", "light_pistol", [4, 6])])    # 11 + 4 = 15 against 15 (6 m); DC2 die 6 = 2
    r = only(checked(b, "attack"))
    assert r["difficulty"] == 15 and only(evs(b, "attack"))["result"] == "hit"
    assert wounds(b, "t") == 12 and "dying" in who(b, "t").conditions
    b = play(s, [attack("s", "t", "light_pistol", [3])])       # 14 < 15: a miss, no damage
    assert wounds(b, "t") == 10


# ---------------------------------------------------------------------------------------
# 4. Grapples: "Attempt another action"

def _grapple_then(a: dict, steps_after: list[dict]) -> list[dict]:
    """a grapples d (16 against 15; scuffle DC1 die 1: 0 Wounds; d saves on 1), both end a turn."""
    return [act("a", "grapple", target="d", dice=[6, 5, 1, 1]), end("a"), end("d")] + steps_after


def test_in_a_grapple_another_action_needs_an_opposed_roll_first():
    """seed 004, Grapple: 'If you are in a grapple you can ... Attempt another action'; 'To do anything
    else ... requires a successful opposed roll to even attempt it ... if you fail your opponent has managed
    to twist the grapple sufficiently to prevent your action'."""
    a = brawler("a", (0, 1), weapons=("knife", "light_pistol"), skills={"streetfighting": 4, "handgun": 4})
    s = scen(open_map(8), [a], [brawler("d", (1, 1))])
    b = play(s, _grapple_then(a, []))
    assert can(b, "ready", weapon="light_pistol", option="change") and can(b, "defend", option="dodge")
    b = play(s, _grapple_then(a, [act("a", "ready", weapon="light_pistol", option="change", dice=[6, 5])]))
    assert only(checked(b, "grapple_free"))["success"] is True and who(b, "a").res["drawn"] == "light_pistol"
    b = play(s, _grapple_then(a, [act("a", "ready", weapon="light_pistol", option="change", dice=[5, 5])]))
    assert only(checked(b, "grapple_free"))["success"] is False and who(b, "a").res["drawn"] == "knife"
    assert econ(b)["actions_left"] == 0.0                      # the attempt was the action
    b = play(s, _grapple_then(a, [act("a", "defend", option="dodge", dice=[6, 5])]))
    assert who(b, "a").res["dodge"] == 2


def test_in_a_grapple_another_action_with_a_skill_roll_is_at_minus_two():
    """seed 004, Grapple: 'If you succeed, you may make the regular check with a -2 penalty'; Critical
    Failure: 'Ranged weapons jam, requiring an action and (TECH + Streetfighting roll) to clear them'."""
    a = brawler("a", (0, 1), weapons=("light_pistol",), skills={"streetfighting": 4, "handgun": 4})
    s = scen(open_map(8), [a], [brawler("d", (1, 1)), brawler("e", (5, 1))])
    jam = [attack("a", "e", "light_pistol", [1, 6]), end("a"), end("d"), end("e")]   # a natural 1, second 6: jam
    steps = jam + [end("a"), act("d", "grapple", target="a", dice=[6, 5, 1, 1]), end("d"), end("e"),
                   act("a", "ready", weapon="light_pistol", option="unjam", dice=[6, 5, 8])]
    b = play(s, steps)
    r = only(checked(b, "unjam"))
    assert mods(r) == {"in a grapple": -2} and r["total"] == 5 + 4 - 2 + 8 and r["success"] is True
    assert not who(b, "a").res["jammed"]


def test_the_victim_of_a_hold_still_only_escapes():
    """seed 004, Holds: 'The victim of a hold can only attempt to escape the hold'."""
    a = brawler("a", (0, 1))
    d = brawler("d", (1, 1), weapons=("knife", "light_pistol"), skills={"streetfighting": 4, "handgun": 4})
    s = scen(open_map(8), [a], [d])
    b = play(s, _grapple_then(a, [act("a", "grapple", target="d", option="hold", dice=[6, 5, 3, 1]), end("a")]))
    assert {(x.kind, x.option) for x in legal(b)} == {("end_turn", None), ("grapple", "escape")}


# ---------------------------------------------------------------------------------------
# 6. Roll fields: every roll names its check and its modifiers

_CHECK = re.compile(r"^[a-z][a-z0-9_]*$")


def test_every_roll_of_the_bundled_fights_has_a_check_key_and_modifiers():
    """Issue #32: 'Rolls name their roller, their purpose and their modifiers as fields'."""
    import io
    import json
    seen: set[str] = set()
    for name in [n for n in bundled_scenarios() if n.startswith("cybergeneration/")]:
        spec, src = load_scenario(name)
        buf = io.StringIO()
        simulate(spec, check_policies(spec, {"*": "aggressive"}), 2, 5, src, log=buf)
        for line in buf.getvalue().splitlines():
            e = json.loads(line)
            e = e.get("event", e)
            if e.get("type") != "roll":
                continue
            assert _CHECK.match(e["check"]), e
            assert isinstance(e["modifiers"], list), e
            for m in e["modifiers"]:
                assert set(m) == {"source", "value"} and isinstance(m["source"], str) and m["value"] != 0, e
            seen.add(e["check"])
    assert {"initiative", "attack", "damage", "stun_save"} <= seen


# ---------------------------------------------------------------------------------------
# 7. Starting state and inline equipment (common conventions of issue #32)

def test_a_figure_starts_stunned_wounded_dodging_or_aiming_without_setup_moves():
    """seed 004, Stun/Shock Saves: 'you may opt to still be conscious, just fallen prone, unable to act'
    and 'If your character has passed out with >0 Wounds remaining then every turn they may make a stun
    save to regain consciousness ... they may move, but not perform an action'; Actions: 'Dodge ... Adding 2
    to all difficulties to hit'; 'Aim - ... +3 to hit next round'."""
    t = fig("t", (4, 1), conditions=["stunned"], state={"wound": 4, "stun_modifier": -1})
    s = scen(open_map(14), [shooter()], [t, fig("u", (8, 1), conditions=[{"name": "dodging"}])])
    b = play(s)
    assert {"stunned", "incapacitated", "prone"} <= who(b, "t").conditions and wounds(b, "t") == 4
    assert who(b, "t").res["stun_mod"] == -1 and b.state.order == ["s", "u", "t"]
    b = play(s, [attack("s", "u", "light_pistol", [9]), end("s"), end("u", [5])])         # 20 < 22: a miss
    assert only(checked(b, "attack"))["difficulty"] == 20 + 2          # 12 m: 20, dodging: +2
    wake = only(checked(b, "wake"))                                    # 5 <= 6 Wounds left - 0 (recovered)
    assert wake["success"] is True and "stunned" not in who(b, "t").conditions
    assert econ(b)["woke"] == 1.0 and not any(x.kind == "attack" for x in legal(b))
    s = scen(open_map(14), [shooter(conditions=["aiming"])], [fig("t", (8, 1))])
    b = play(s, [attack("s", "t", "light_pistol", [2])])
    assert mods(only(checked(b, "attack"))) == {"aimed": 3}


def test_a_figure_starts_in_a_grapple_with_a_jammed_gun_and_an_empty_magazine():
    """seed 004, Grapple: 'Once someone has suddenly initiated a grapple both parties are defined as
    "grappling"'; Critical Failure: 'Ranged weapons jam, requiring an action ... to clear them'."""
    a = brawler("a", (0, 1), weapons=("light_pistol", "smg"), state={"grapple": ["d"], "jammed": ["light_pistol"],
                                                                     "ammo": {"smg": 0}})
    b = play(scen(open_map(8), [a], [brawler("d", (1, 1))]))
    assert who(b, "a").res["grapple"] == ["d"] and who(b, "d").res["grapple"] == ["a"]
    assert {"grappling"} <= who(b, "d").conditions and not any(x.kind == "move" for x in legal(b))
    assert can(b, "ready", weapon="light_pistol", option="unjam") and who(b, "a").res["ammo"]["smg"] == 0
    held = brawler("a", (0, 1), state={"hold": "d"})
    b = play(scen(open_map(8), [brawler("d", (1, 1))], [held]))
    assert who(b, "d").res["held_by"] == "a"
    assert {(x.kind, x.option) for x in legal(b)} == {("end_turn", None), ("grapple", "escape")}


def test_inline_armour_of_sp_five_and_an_inline_weapon():
    """seed 004, Armour: 'Armour SP is subtracted from damage ... Medium Armour (SP 4) and above can reduce
    the damage from an attack to 0' - an SP 5 vest (no such row in the armour table) written inline."""
    zip_gun = {"name": "zip_gun", "kind": "ranged", "skill": "handgun", "range": "handgun", "dc": 3,
               "accuracy": -1, "magazine": 2, "reload": "clip", "point_blank": True}
    s = scen(open_map(14), [shooter(weapon=zip_gun)], [fig("t", (4, 1), armour=[{"name": "vest", "sp": 5}])])
    b = play(s, [attack("s", "t", "zip_gun", [6, 10, 1])])       # 6 + 4 - 1 + 6 = 15 vs 15; DC3 die 10 = 5
    r = only(checked(b, "attack"))
    assert r["total"] == 15 and "accuracy -1" in r["pool"]
    d = only(evs(b, "damage"))
    assert (d["raw"], d["wound"], d["armour"], d["sp"]) == (5, 0, "vest", 5)
    assert who(b, "s").res["ammo"]["zip_gun"] == 1


def test_bad_starting_state_and_inline_equipment_are_clear_errors():
    """Issue #32: 'validated with clear errors ... naming the field path'; unknown keys list the allowed ones."""
    import pytest

    from rules.errors import ScenarioError, TacticaError
    cases = [
        ({"state": {"wounds": 3}}, "state.wounds", "wound, stun_modifier"),
        ({"state": {"ammo": {"light_pistol": 99}}}, "state.ammo.light_pistol", "0..12"),
        ({"conditions": ["impaired"]}, "conditions[0]", "wound"),
        ({"conditions": [{"name": "stunned", "rounds": 2}]}, "conditions[0].rounds", "no duration"),
        ({"conditions": ["dying"]}, "conditions", "-1..-4"),
        ({"armour": [{"name": "vest", "sp": 50}]}, "armour[0].sp", "0..20"),
        ({"armour": [{"name": "vest", "sp": 5, "cover": "body"}]}, "armour[0].cover", "covers"),
        ({"weapons": [{"name": "zip", "kind": "ranged", "dc": 2}]}, "weapons[0].range", "handgun"),
        ({"weapons": [{"name": "knife", "kind": "melee", "dc": 2}]}, "weapons[0].name", "new name"),
        ({"state": {"grapple": ["u"]}}, "state.grapple[0]", "standing enemy next to"),
    ]
    for extra, field, expected in cases:
        who_ = shooter(weapon=extra["weapons"][0]) if "weapons" in extra else shooter(**extra)
        s = scen(open_map(14), [who_], [fig("t", (1, 1)), fig("u", (8, 1))])
        with pytest.raises(TacticaError) as e:
            play(s)
        assert isinstance(e.value, ScenarioError), e.value
        assert e.value.field.endswith(field) and expected in (e.value.expected or ""), e.value


# ---------------------------------------------------------------------------------------
# 5. Falling and evolved healing, stated in a scenario

def _ledge(a: dict) -> dict:
    s = scen(open_map(10), [a], [fig("t", (9, 1))])
    s["settings"] = {"drops": [{"at": [3, 0], "metres": 3}, {"at": [3, 1], "metres": 2}, {"at": [3, 2], "metres": 9.5}]}
    return s


def test_stepping_into_a_drop_falls_its_height():
    """seed 004, Falling: 'Starts at DC 3 for a 3m fall, and goes up 1DC per 3m' (assumption falling: armour
    does not help, a stun save follows; a drop is a scenario `settings.drops` cell that is entered, not crossed)."""
    a = brawler("a", (0, 1), armour=("heavy_armour",))
    b = play(_ledge(a))
    assert can(b, "move", cell=b.state.grid.index(3, 1)) and not can(b, "move", cell=b.state.grid.index(4, 1))
    b = play(_ledge(a), [act("a", "move", cell=[3, 1])])                      # 2 m: no harm, no dice
    assert "without harm" in evs(b, "effect")[-1]["effect"] and wounds(b, "a") == 0
    b = play(_ledge(a), [act("a", "move", cell=[3, 0], dice=[10, 1])])        # 3 m: DC3 die 10 = 5
    r = only(checked(b, "falling_damage"))
    assert r["purpose"].startswith("falling damage DC3") and wounds(b, "a") == 5
    assert "armour" not in only(evs(b, "damage")) and only(checked(b, "stun_save"))["success"] is True
    b = play(_ledge(a), [act("a", "move", cell=[3, 2], dice=[10, 6])])        # 9.5 m: DC5 die 10 = 7; save 6 > 3
    assert only(checked(b, "falling_damage"))["purpose"].startswith("falling damage DC5") and wounds(b, "a") == 7
    assert "unconscious" in who(b, "a").conditions and b.state.grid.xy(who(b, "a").pos) == (3, 2)


def test_days_of_rest_before_the_fight_heal_the_cyber_evolved():
    """seed 004, Healing: 'Cyberevolved without medical attention heal at 2HP per day' (a scenario's
    `rest_days`; the others keep their Wounds; assumption evolved_healing: up to BODY, not the dead)."""
    s = scen(open_map(), [fig("e", (0, 1), types=("evolved",), state={"wound": 10}, rest_days=2),
                          fig("j", (0, 2), state={"wound": 6}, rest_days=2),
                          fig("k", (0, 0), types=("scanner",), state={"wound": 3}, rest_days=5)], [fig("x", (9, 1))])
    b = play(s)
    assert (wounds(b, "e"), wounds(b, "j"), wounds(b, "k")) == (6, 6, 0)
    assert not who(b, "e").down                                      # 0 Wounds left before the rest: it woke
    healed = evs(b, "damage", target="e")
    assert only(healed)["wound"] == -4 and "healing" in healed[0]["source"]


def test_bad_drops_are_clear_errors():
    import pytest

    from rules.errors import ScenarioError
    for drops, field in [([{"at": [3, 1]}], "settings.drops[0]"), ([{"at": [3, 1], "metres": -2}], "metres"),
                         ([{"at": [30, 1], "metres": 3}], "settings.drops[0].at")]:
        s = _ledge(brawler("a", (0, 1)))
        s["settings"]["drops"] = drops
        with pytest.raises(ScenarioError) as e:
            play(s)
        assert e.value.field.endswith(field), e.value


# ---------------------------------------------------------------------------------------
# 8. tracked(): what the rules track, for the replay's final state

def test_tracked_shows_wounds_weapons_conditions_grapples_and_the_turn():
    """Issue #32: 'The final state shows everything the rules track: life or status points and their
    thresholds, weapons carried, held and dropped ... every condition with its duration, the turn economy
    ... jams and breakage, grapple partners, held actions'."""
    import json

    from tests.cybergeneration_setup import RS
    a = brawler("a", (0, 1), weapons=("light_pistol", "knife"), state={"grapple": ["d"], "jammed": ["light_pistol"],
                                                                      "wound": 8, "ammo": {"light_pistol": 3}})
    e = brawler("e", (5, 1), state={"held_action": "on_move"}, conditions=["dodging"])
    b = play(scen(open_map(8), [a], [brawler("d", (1, 1)), e]))
    t = RS.tracked(b.state, who(b, "a"))
    json.dumps(t)
    assert t["wounds"] == {"taken": 8, "left": 2, "body": 10, "halved_at": 2, "unconscious_at": 0,
                           "dying_below": 0, "dead_at": -5}
    assert t["stats_now"]["ref"] == 3 and "impaired" in t["conditions"]
    assert t["weapons"]["jammed"] == ["light_pistol"] and t["weapons"]["ammo"]["light_pistol"] == 3
    assert t["weapons"]["drawn"] == "light_pistol" and "unarmed" in t["weapons"]["carried"]
    assert t["grapple"]["partners"] == ["d"] and t["turn"]["actions_used"] == 0 and t["turn"]["move"] == "unused"
    x = RS.tracked(b.state, who(b, "e"))
    assert x["held_action"]["trigger"] == "on_move" and "turn" not in x
    assert x["conditions"]["dodging"] == {"ends": "the start of its next turn", "bonus": 2}


# ---------------------------------------------------------------------------------------
# Replay files (tests/replays/cybergeneration/*.yaml): each states one case as a GM would

def test_replay_files_state_a_fall_and_another_action_in_a_grapple():
    """seed 004, Falling and Grapple (the sentences are quoted in each file's description)."""
    from pathlib import Path

    from rules.replay import run_replay
    here = Path(__file__).parent / "replays" / "cybergeneration"
    b = run_replay(here / "roof_edge_fall.yaml")
    assert (wounds(b, "kat"), wounds(b, "zed")) == (4, 0) and "impaired" in who(b, "kat").conditions
    assert only(checked(b, "falling_damage"))["purpose"].startswith("falling damage DC4")
    b = run_replay(here / "grapple_another_action.yaml")
    free = checked(b, "grapple_free")
    assert [r["success"] for r in free] == [False, True]
    assert mods(only(checked(b, "unjam"))) == {"in a grapple": -2} and not who(b, "rex").res["jammed"]


def test_a_dropped_inline_weapon_can_be_picked_up_by_another_figure_and_saved():
    """seed 004, Critical Failure: '... melee weapons are dropped'; an inline weapon keeps its fields
    when another figure picks it up, and in a saved fight."""
    from rules.serialize import battle_from_dict, battle_to_dict
    pipe = {"name": "pipe", "kind": "melee", "dc": 3, "blunt": True, "access": "slung", "body_bonus": True}
    a = brawler("a", (0, 1), weapons=[pipe])
    s = scen(open_map(8), [a, brawler("c", (0, 0))], [brawler("d", (1, 1))])
    b = play(s, [attack("a", "d", "pipe", [1, 6, 5]), end("a"),             # a natural 1, second 6: dropped
                 act("c", "pick_up", cell=[0, 1], weapon="pipe")])
    c = who(b, "c")
    assert c.res["drawn"] == "pipe" and c.res["inline"]["pipe"]["dc"] == 3
    assert can(b, "attack", target="d", weapon="pipe")
    saved = battle_to_dict(b, s)
    again = battle_from_dict(saved)
    w = again.ruleset.has_weapon(again.state.by_id["c"], "pipe")
    assert w is not None and w.dc == 3 and w.blunt
