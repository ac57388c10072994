"""Rule tests for the `metalface` ruleset (seed 003, METALFACE: RPG), with forced dice:
the ruleset registry, the data file and the roll; the turn economy, the views the
environments see, and the bestiary.

Strict forced-dice replays through `rules.replay.run_replay`. The helpers, how many dice a
roll takes, the sources cited ("seed 003, <heading>", "RULES-NOTES metalface", "assumption
<key>") and the geometry are in tests/metalface_setup.py; the other topics in
tests/test_metalface_*.py.
"""

from __future__ import annotations

from collections import Counter

import pytest

from rules.actions import KIND_TARGET, Action
from rules.errors import DiceError, IllegalActionError, ScenarioError, UnknownNameError
from rules.ruleset import available_rulesets
from rules.systems.metalface.model import p_at_least, p_beats, total_pmf
from tests.metalface_setup import (ASSUMPTIONS, DATA, RS, act, attack, dummy, econ, evs, fig, mods, move,
                                   only, open_map, play, rolls, scen, shooter, who)


# ---------------------------------------------------------------------------------------
# registry, data file and the roll

def test_registered_and_declared():
    """The ruleset is registered as `metalface` with 1 m cells and declares only shared kinds."""
    assert "metalface" in available_rulesets()
    assert RS.default_cell_m == 1.0
    assert set(RS.supported_actions) <= set(KIND_TARGET) | {"end_turn", "move", "attack", "reload", "ready",
                                                             "turn", "posture", "use", "delay"}
    assert len(RS.economy_features) <= 32
    for f in ("half_turns_used", "half_turns_left", "move_m_left", "facing", "posture", "moved_this_round",
              "charges"):
        assert f in RS.economy_features


def test_every_assumption_has_a_value_and_a_reason():
    """ARCHITECTURE.md: every value the seed does not give is marked with its reason."""
    keys = [a["key"] for a in DATA["assumptions"]]
    assert len(keys) == len(set(keys)) >= 30
    for a in DATA["assumptions"]:
        assert a.get("value") and a.get("reason"), a
    for key in ("dice", "status_formula", "ranged_damage", "initiative", "turn_order_choice", "turn_seconds",
                "full_cover", "no_death", "body_attack_rolls", "energy_actions", "targeting_difficulty"):
        assert key in ASSUMPTIONS


def test_difficulty_ladder():
    """RULES-NOTES metalface: Easy 4, Normal 5, Hard 6, Extreme 8, Insane 12."""
    assert RS.diff == {"easy": 4, "normal": 5, "hard": 6, "extreme": 8, "insane": 12}
    assert RS.target_difficulty == 8   # assumption targeting_difficulty


def test_roll_keeps_the_highest_die_and_adds_skill():
    """RULES-NOTES metalface: roll as many d6 as the value, keep the single highest, add skill
    levels; equal to the Difficulty succeeds. seed 003, Targeting: the targeting roll is a
    PER roll (here PER 3, firearms 1, short +1, both stationary +1 +1: 5 + 4 = 9 >= 8)."""
    b = play(scen(open_map(), [shooter()], [dummy()]), [attack("s", "t", "pistol", [2, 5, 3])])
    r = only(rolls(b, "targeting"))
    assert r["dice"] == [[6, 2], [6, 5], [6, 3]]
    assert r["kept"] == 5 and r["total"] == 9 and r["difficulty"] == 8
    assert mods(r) == {"skill": 1, "range": 1, "attacker": 1, "target": 1}
    assert only(evs(b, "attack"))["result"] == "hit"


def test_roll_equal_to_difficulty_hits_one_below_misses():
    """seed 003, Targeting: the targeting roll against its Difficulty; RULES-NOTES metalface: 'equal
    to or higher than the difficulty' succeeds."""
    b = play(scen(open_map(), [shooter()], [dummy()]),
             [attack("s", "t", "pistol", [4, 1, 2]), attack("s", "t", "pistol", [3, 3, 2])])
    assert [e["total"] for e in rolls(b, "targeting")] == [8, 7]
    assert [e["result"] for e in evs(b, "attack")] == ["hit", "miss"]


def test_odds_are_exact():
    """model.py: the distribution of a keep-the-highest roll and an opposed roll."""
    pmf = dict(total_pmf(3, 0))
    assert pmf[6] == pytest.approx(1 - (5 / 6) ** 3)
    assert pmf[1] == pytest.approx((1 / 6) ** 3)
    assert p_at_least(3, 4, 8) == pytest.approx(1 - (3 / 6) ** 3)
    assert p_at_least(-1, 0, 1) == pytest.approx(4 / 6)    # value -1: 1d6 - 2, so -1 .. 4
    assert dict(total_pmf(-1, 0)) == {t - 2: pytest.approx(1 / 6) for t in range(1, 7)}
    # opposed: 1 die against 1 die, the attacker must roll higher
    assert p_beats(1, 0, 1, 0) == pytest.approx(15 / 36)


def test_attack_odds_match_the_roll():
    """seed 003, Targeting Roll: attack_odds mirrors the resolution: P(hit) and damage if it hits."""
    b = play(scen(open_map(), [shooter()], [dummy()]))
    o = RS.attack_odds(b.state, who(b, "s"), Action("attack", target="t", weapon="pistol"))
    assert o["p_hit"] == pytest.approx(1 - (3 / 6) ** 3)
    assert o["damage_if_hit"] == 5 and o["exp_damage"] == pytest.approx(5 * o["p_hit"])


# ---------------------------------------------------------------------------------------
# economy, views and the bestiary

def test_economy_shows_the_half_turns():
    """seed 003, Combat Actions: The half-turn economy in `economy` (what the env observes)."""
    b = play(scen(open_map(), [shooter(agl=3)], [dummy(at=(9, 1))]))
    e = econ(b)
    assert set(e) == set(RS.economy_features)
    assert (e["half_turns_used"], e["half_turns_left"], e["walk_m"], e["run_m"], e["move_m_left"]) == (0, 2, 3, 6, 6)
    assert (e["facing"], e["posture"], e["standing"], e["charges"], e["ammo_frac"]) == (2, 0, 1, 12, 1)
    b = play(scen(open_map(), [shooter(agl=3)], [dummy(at=(9, 1))]), [move("s", 2, 1)])
    e = econ(b)
    assert (e["half_turns_used"], e["move_m_used"], e["move_m_left"], e["moved_this_round"]) == (1, 2, 4, 1)


def test_views_for_policies_and_envs():
    """seed 003, Ranged Weapon Attacks and Body Attacks (reach): reach_m, ammo_frac and weapon_slots
    feed the generic policies and the env."""
    b = play(scen(open_map(), [shooter()], [fig("m", (5, 1), weapons=("shock_staff",))]))
    s, m = who(b, "s"), who(b, "m")
    assert RS.weapon_slots(s) == ["pistol", "unarmed"]
    assert RS.reach_m(s) == 600 and RS.reach_m(m) == 2.5
    assert RS.ammo_frac(s) == 1 and RS.ammo_frac(m) == 1
    s.res["ammo"]["pistol"] = 3
    assert RS.ammo_frac(s) == 0.25
    s.res["jammed"].add("pistol")
    assert RS.reach_m(s) == 1.5                       # only fists now
    assert RS.validate_object("medikit") and RS.validate_object("pistol") and not RS.validate_object("laser")
    assert "Status" in RS.describe(s)


def test_bestiary_humans_and_metalfaces_with_every_weapon_kind():
    """seed 003: humans and metalfaces as distinct kinds; beam, clip, projectile and melee
    weapons; Tekkers; repair kits and medikits."""
    kinds = Counter(t["kind"] for t in DATA["bestiary"].values())
    assert kinds["human"] >= 4 and kinds["metalface"] >= 4
    wkinds = {RS.weapons[w].kind for t in DATA["bestiary"].values() for w in t["weapons"]}
    assert wkinds == {"beam", "clip", "projectile", "melee"}
    assert any(t.get("skills", {}).get("tekker") for t in DATA["bestiary"].values())
    items = {i for t in DATA["bestiary"].values() for i in t.get("items", [])}
    assert {"repair_kit", "medikit"} <= items
    for name in RS.templates():
        b = play(scen(open_map(), [{"id": "x", "at": [0, 1], "template": name}], [dummy()]))
        assert RS.health(who(b, "x"))[1] > 0


@pytest.mark.parametrize("change,field,expected", [
    ({"template": "dragon"}, "template", "metalface_trooper"),
    ({"weapons": ["laser"]}, "weapons[0]", "beam_rifle"),
    ({"values": {"per": 0}}, "values.per", ">= 1"),
    ({"kind": "robot"}, "kind", "human or metalface"),
    ({"facing": "up"}, "facing", "ne"),
    ({"posture": "crouch"}, "posture", "kneel"),
    ({"skills": {"hacking": 1}}, "skills.hacking", "biotech"),
    ({"items": ["bazooka"]}, "items[0]", "medikit"),
    ({"armour": "tin"}, "armour", "metal_plating"),
    ({"packed": ["knife"]}, "packed[0]", "pistol"),
    ({"damage": 50}, "damage", "0 .. 20"),
    ({"status": 0}, "status", ">= 1"),
    ({"wings": True}, "combatants[0]", "template"),
])
def test_bad_stat_blocks_name_the_field(change, field, expected):
    """Bad input names the field and what was expected (ARCHITECTURE.md, Conventions)."""
    base = shooter("s", (0, 1))
    if "template" in change:
        base = {"id": "s", "at": [0, 1]}
    if "values" in change:
        change = {"values": {**base["values"], **change["values"]}}
    base.update(change)
    with pytest.raises((ScenarioError, UnknownNameError)) as ei:
        play(scen(open_map(), [base], [dummy()]))
    err = ei.value
    assert field in (err.field or "") and expected in (err.expected or ""), str(err)


def test_unknown_settings_are_named():
    """Bad input names the field: metalface takes no scenario settings."""
    sc = scen(open_map(), [shooter()], [dummy()])
    sc["settings"] = {"plot_points": {"a": 2}}
    with pytest.raises(ScenarioError) as ei:
        play(sc)
    # inline scenarios in a replay are named by their place in the replay file
    assert ei.value.field == "scenario.settings.plot_points" and "no settings" in ei.value.expected


def test_strict_replays_catch_wrong_dice_counts():
    """seed 003, Targeting (a PER roll); The forced-dice replays are exact: a PER 3 roll needs
    exactly three dice."""
    s = scen(open_map(), [shooter()], [dummy()])
    with pytest.raises(DiceError):
        play(s, [attack("s", "t", "pistol", [2, 2])])
    with pytest.raises(DiceError):
        play(s, [attack("s", "t", "pistol", [2, 2, 2, 2])])
    with pytest.raises(IllegalActionError):
        play(s, [act("s", "heal", target="t")])
