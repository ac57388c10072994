"""Rule tests for the `metalface` ruleset (seed 003, METALFACE: RPG), with forced dice:
Damage, Status Levels and Effects, and Repairing / Healing.

Strict forced-dice replays through `rules.replay.run_replay`. The helpers, how many dice a
roll takes, the sources cited ("seed 003, <heading>", "RULES-NOTES metalface", "assumption
<key>") and the geometry are in tests/metalface_setup.py; the other topics in
tests/test_metalface_*.py.
"""

from __future__ import annotations

import pytest

from tests.metalface_setup import (RS, act, attack, can, can_attack, dummy, econ, end, evs, fig, n_dice, only,
                                   open_map, play, rolls, scen, shooter, who)


# ---------------------------------------------------------------------------------------
# seed 003, Damage; Status Levels and Effects

def test_status_formula_and_health():
    """seed 003, Damage (max Status); assumption status_formula: max Status = 10 + 5 x END unless
    the stat block gives it."""
    b = play(scen(open_map(), [shooter(end=3), dummy("u", (0, 2), status=33)], [dummy()]))
    assert RS.health(who(b, "s")) == (25.0, 25.0)
    assert RS.health(who(b, "u")) == (33.0, 33.0)
    assert RS.health(who(b, "t")) == (20.0, 20.0)


@pytest.mark.parametrize("damage,level", [(0, "perfect"), (4, "perfect"), (5, "weakening"), (9, "weakening"),
                                          (10, "suffering"), (15, "critical"), (19, "critical"),
                                          (20, "non_responsive")])
def test_status_levels_at_75_50_25_and_0_percent(damage, level):
    """seed 003, Status Levels and Effects: Weakening at 75% or less, Suffering at 50%,
    Critical at 25%, Non-Responsive at 0% (Status 20)."""
    b = play(scen(open_map(), [shooter()], [dummy(damage=damage)]))
    t = who(b, "t")
    assert t.res["level"] == level
    assert (level in t.conditions) == (level != "perfect")


@pytest.mark.parametrize("damage,body,mind", [(0, 0, 0), (5, -2, 0), (10, -4, -2), (15, -4, -4)])
def test_status_level_modifiers_on_body_and_mind_values(damage, body, mind):
    """seed 003, Status Levels: Weakening -2 to body values, Suffering -4 body -2 mind,
    Critical -4 to all (assumption body_and_mind_values: STR/AGL/END body, PER/INT/WIL mind)."""
    six = shooter(str_=6, agl=6, end=6, per=6, int_=6, wil=6, status=20, damage=damage)
    b = play(scen(open_map(), [six], [dummy()]))
    c = who(b, "s")
    assert [RS.val(c, v) - 6 for v in ("str", "agl", "end")] == [body] * 3
    assert [RS.val(c, v) - 6 for v in ("per", "int", "wil")] == [mind] * 3


def test_weakening_rolls_fewer_dice_and_walks_shorter():
    """seed 003, Status Levels: Weakening -2 to body values - STR 4 rolls 2 dice, AGL 3
    walks 1 m (assumption modified_values)."""
    att = fig("m", (1, 1), str_=4, agl=3, weapons=("knife",), damage=5)
    b = play(scen(open_map(), [att], [dummy(at=(2, 1), agl=1, str_=1)]))
    assert econ(b)["walk_m"] == 1
    b = play(scen(open_map(), [att], [dummy(at=(2, 1), agl=1, str_=1)]), [attack("m", "t", "knife", [6, 1, 1])])
    assert n_dice(only(rolls(b, "body attack"))) == 2


def test_suffering_takes_two_dice_off_per():
    """seed 003, Status Levels: Suffering -2 to mind values (PER 4 -> 2 dice)."""
    b = play(scen(open_map(), [shooter(per=4, damage=10)], [dummy()]), [attack("s", "t", "pistol", [2, 2])])
    assert n_dice(only(rolls(b, "targeting"))) == 2


def test_critical_value_below_one_rolls_one_die_minus_the_shortfall():
    """seed 003, Status Levels: Critical -4 to all values; assumption pool_floor: PER 3 - 4 =
    -1 rolls one die and subtracts 2."""
    b = play(scen(open_map(), [shooter(per=3, damage=15)], [dummy()]), [attack("s", "t", "pistol", [6])])
    r = only(rolls(b, "targeting"))
    assert n_dice(r) == 1 and r["total"] == 6 - 2 + 4


def test_damage_applies_at_once_and_changes_later_hits():
    """seed 003, Combat: damage is resolved as attacks land and modified values apply at once
    - after the first hit the target is Weakening (END 2 - 2), so the second hit is harder."""
    b = play(scen(open_map(), [shooter()], [dummy()]),
             [attack("s", "t", "pistol", [6, 1, 1]), attack("s", "t", "pistol", [6, 1, 1])])
    assert [e["wound"] for e in evs(b, "damage")] == [5, 7]
    assert who(b, "t").res["level"] == "suffering"


def test_down_at_max_status_cannot_act_or_be_targeted():
    """seed 003, Damage: damage equal to or higher than max Status takes the figure down; it
    cannot act. assumption no_death: damage stops at max Status; down_targets: at 0 Status
    left it is no target."""
    s = scen(open_map(), [shooter(), shooter("u", (0, 2))], [dummy(damage=18), dummy("v", (6, 2))])
    b = play(s, [attack("s", "t", "pistol", [6, 1, 1])])
    t = who(b, "t")
    assert t.down and t.res["damage"] == 20 and only(evs(b, "damage"))["wound"] == 2
    assert only(evs(b, "down"))["target"] == "t" and not t.dead
    assert not can_attack(b, "t", "pistol")
    b = play(s, [attack("s", "t", "pistol", [6, 1, 1]), end("s"), end("u")])
    assert b.state.actor.id == "v"                              # t is skipped


def test_last_figure_down_ends_the_fight():
    """seed 003, Damage: a side with every figure down has lost."""
    b = play(scen(open_map(), [shooter()], [dummy(damage=18)]), [attack("s", "t", "pistol", [6, 1, 1])])
    assert b.state.over and b.state.winner == "a"


# ---------------------------------------------------------------------------------------
# seed 003, Repairing / Healing

def _repair_scene(healer: dict, patient: dict, enemy_at=(11, 1)):
    return scen(open_map(), [healer, patient], [dummy("e", enemy_at, status=99)])


def test_tekker_repairs_ten_per_level_per_minute():
    """seed 003, Repairing / Healing: a Tekker restores 10 points per level per minute;
    assumption turn_seconds: a 6-second turn restores a tenth of that (tekker 2 -> 2)."""
    tek = fig("tek", (0, 1), skills={"tekker": 2})
    mf = fig("mf", (1, 1), kind="metalface", end=4, damage=10)
    b = play(_repair_scene(tek, mf), [act("tek", "heal", target="mf")])
    assert who(b, "mf").res["damage"] == 8
    e = only([e for e in evs(b, "effect") if "healed" in e])
    assert e["healed"] == 2 and e["method"] == "tekker"
    assert RS.repair_rate_per_minute(who(b, "tek"), who(b, "mf")) == 20


def test_robotics_with_repair_kit_three_per_level_per_minute_fractions_carry():
    """seed 003, Repairing / Healing: robotics + Repair Kit, 3 per level per minute: 0.6 a
    turn at level 2, so the first turn restores 0 and the second 1 (assumption turn_seconds)."""
    mech = fig("mech", (0, 1), kind="metalface", skills={"robotics": 2}, items=["repair_kit"])
    mf = fig("mf", (1, 1), kind="metalface", end=4, damage=10)
    s = _repair_scene(mech, mf)
    b = play(s, [act("mech", "heal", target="mf"), end("mf"), end("e")])
    assert who(b, "mf").res["damage"] == 10 and who(b, "mf").res["repair_acc"] == 2160
    b = play(s, [act("mech", "heal", target="mf"), end("mf"), end("e"), act("mech", "heal", target="mf")])
    assert who(b, "mf").res["damage"] == 9
    assert RS.repair_rate_per_minute(who(b, "mech"), who(b, "mf")) == 6


def test_humans_only_by_medic_or_healing():
    """seed 003, Repairing / Healing: humans only by medic or healing (with a MediKit for the
    kit rate); a Tekker or robotics cannot; medic cannot repair a metalface."""
    hurt = fig("h", (1, 1), damage=5)
    for healer, ok in ((fig("x", (0, 1), skills={"tekker": 3, "robotics": 3}, items=["repair_kit"]), False),
                       (fig("x", (0, 1), skills={"medic": 1}, items=["medikit"]), True),
                       (fig("x", (0, 1), skills={"healing": 1}), True)):
        b = play(_repair_scene(healer, hurt))
        assert can(b, "heal", target="h") == ok
    b = play(_repair_scene(fig("x", (0, 1), skills={"medic": 3}, items=["medikit"]),
                           fig("mf", (1, 1), kind="metalface", damage=5)))
    assert not can(b, "heal", target="mf")


def test_medikit_rate_and_no_kit_rate():
    """seed 003, Repairing / Healing: 3 per level per minute with a kit, 1 per level per five
    minutes without (assumption repair_rates)."""
    b = play(_repair_scene(fig("x", (0, 1), skills={"medic": 2}, items=["medikit"]), fig("h", (1, 1), damage=5)))
    x, h = who(b, "x"), who(b, "h")
    assert RS.repair_rate_per_minute(x, h) == 6 and RS.repair_per_turn(x, h) == pytest.approx(0.6)
    b = play(_repair_scene(fig("x", (0, 1), skills={"medic": 2}), fig("h", (1, 1), damage=5)))
    assert RS.repair_rate_per_minute(who(b, "x"), who(b, "h")) == pytest.approx(0.4)


def test_between_fights_treatment_by_the_minute():
    """seed 003, Repairing / Healing: the per-minute rates as rules-API functions between
    fights: 1 per level per 5 minutes without a kit -> 10 minutes at level 1 restore 2."""
    b = play(_repair_scene(fig("x", (0, 1), skills={"healing": 1}), fig("h", (1, 1), damage=12)))
    x, h = who(b, "x"), who(b, "h")
    assert RS.minutes_to_repair(x, h, 2) == pytest.approx(10.0)
    pts, ev = RS.treat(x, h, 10)
    assert pts == 2 and h.res["damage"] == 10
    assert h.res["level"] == "suffering"
    assert RS.minutes_to_repair(x, h) == pytest.approx(50.0)
    tek = fig("tek", (0, 1), skills={"tekker": 1})
    b = play(_repair_scene(tek, fig("mf", (1, 1), kind="metalface", end=4, damage=30)))
    pts, _ = RS.treat(who(b, "tek"), who(b, "mf"), 3)
    assert pts == 30 and not who(b, "mf").down and who(b, "mf").res["level"] == "perfect"


def test_repair_to_a_quarter_brings_a_down_figure_back():
    """seed 003, Damage: down until repaired to at least 25% of max Status (metalface Status
    30: 7.5 -> 8 points; a Tekker 3 restores 3 a turn)."""
    tek = fig("tek", (0, 1), skills={"tekker": 3})
    mf = fig("mf", (1, 1), kind="metalface", end=4, damage=30)
    s = _repair_scene(tek, mf)
    heal = [act("tek", "heal", target="mf"), end("e")]
    b = play(s, heal * 2)
    assert who(b, "mf").down and who(b, "mf").res["damage"] == 24   # 6 left: under 25%
    assert b.state.actor.id == "tek"
    b = play(s, heal * 2 + [act("tek", "heal", target="mf")])
    assert not who(b, "mf").down and who(b, "mf").res["damage"] == 21
    assert b.state.actor.id == "mf"                  # back up: it acts in its place


def test_heal_needs_an_adjacent_hurt_patient():
    """seed 003, Repairing / Healing; assumption repair_reach: next to the patient; nothing to
    repair, no action."""
    tek = fig("tek", (0, 1), skills={"tekker": 1})
    b = play(_repair_scene(tek, fig("mf", (2, 1), kind="metalface", damage=5)))
    assert not can(b, "heal", target="mf")
    b = play(_repair_scene(tek, fig("mf", (1, 2), kind="metalface")))
    assert not can(b, "heal", target="mf")


def test_heal_self():
    """seed 003, Repairing / Healing; assumption repair_reach: a figure may treat itself (`use:
    heal_self`, a full turn)."""
    x = fig("x", (0, 1), skills={"medic": 3}, items=["medikit"], damage=6)
    b = play(_repair_scene(x, fig("y", (0, 2))), [act("x", "use", option="heal_self")])
    assert who(b, "x").res["repair_acc"] == 540 * 6 % 3600 and b.state.actor.id == "y"
    assert who(b, "x").res["damage"] == 6 - (540 * 6) // 3600


def test_heal_not_through_a_wall_between_the_squares():
    """seed 003, Repairing / Healing; assumptions repair_reach and doors: the healer is next to
    the patient with no wall between them."""
    tek = fig("tek", (1, 1), skills={"tekker": 1})
    s = _repair_scene(tek, fig("mf", (2, 1), kind="metalface", damage=5))
    assert can(play(s), "heal", target="mf")
    s["map"]["walls"] = [[2, 0, 2, 3]]
    b = play(s)
    assert not can(b, "heal", target="mf") and not RS.can_treat(b.state, who(b, "tek"), who(b, "mf"))
