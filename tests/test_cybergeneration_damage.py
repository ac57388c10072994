"""Rule tests for the `cybergeneration` ruleset (seed 004, Cybergeneration house rules), forced dice:
Damage and Armour, Stun/Shock Saves and Stun Weapons, Wounds and Dying.

Strict forced-dice replays through `rules.replay.run_replay`. The helpers, the order of the
dice in a step, the sources cited ("seed 004, <heading>", "assumption <key>") and the geometry
are in tests/cybergeneration_setup.py; the other topics in tests/test_cybergeneration_*.py.
"""

from __future__ import annotations

import pytest

from rules.dice import Dice
from rules.systems.cybergeneration import falling_damage, heal_days
from tests.cybergeneration_setup import (DATA, RS, _melee, act, attack, brawler, can, can_move, econ, end,
                                         evs, fig, legal, only, open_map, play, rolls, scen, who, wounds)


# ---------------------------------------------------------------------------------------
# Damage and Armour

def test_the_damage_class_table_rises_with_the_dc_and_the_die():
    """seed 004, Damage: 'Roll a d10 and look up the damage on the relevant line' (assumption dc_table:
    a designed table, monotone in the DC and in the die; marked in data.yaml)."""
    rows = RS.table.rows
    assert sorted(rows) == list(range(1, 11))
    for dc in range(1, 11):
        assert all(rows[dc][i] <= rows[dc][i + 1] for i in range(9))
        if dc > 1:
            assert all(rows[dc - 1][i] <= rows[dc][i] for i in range(10))
    assert any(a["key"] == "dc_table" for a in DATA["assumptions"])
    assert RS.table.wounds(0, 10) == 0 and RS.table.wounds(2, 0) == 0 and RS.table.wounds(2, 12) == rows[2][9] + 2


@pytest.mark.parametrize("armour,die,raw,after", [
    ("light_armour", 3, 1, 1),        # SP 3 is lighter than medium: at least 1 goes through
    ("armoured_clothing", 10, 4, 2),
    ("medium_armour", 10, 4, 0),      # SP 4 can stop it all
    ("heavy_armour", 10, 4, 0),
])
def test_armour_sp_is_subtracted_medium_and_up_can_stop_everything(armour, die, raw, after):
    """seed 004, Armour: 'Armour SP is subtracted from damage'; 'Medium Armour (SP 4) and above can reduce
    the damage from an attack to 0, anything lighter can reduce it to a minimum of 1' (assumption
    armour_minimum). DC1 die 3 = 1 Wound, DC2 die 10 = 4."""
    weapon = "unarmed" if die == 3 else "baseball_bat"
    a = brawler("a", (0, 1), body=6, weapons=(weapon,))
    d = brawler("d", (1, 1), armour=(armour,))
    b = play(_melee(a=a, d=d), [attack("a", "d", weapon, [6, 5, die, 1])])
    dmg = only(evs(b, "damage"))
    assert (dmg["raw"], dmg["wound"]) == (raw, after)
    assert only(rolls(b, "stun save"))                            # a save even when armour stops it all


def test_armour_piercing_halves_sp():
    """seed 004, Armour Piercing: 'Half the stopping power of any armour (round down): Lasers, darts,
    fletchettes, most edged weapons, mono-weapons and shotgun slugs'."""
    ap = {n for n, w in RS.weapons.items() if w.ap}
    assert {"laser_pistol", "dart_gun", "flechette_pistol", "knife", "machete", "monoknife", "slug_shotgun"} <= ap
    a = brawler("a", (0, 1), body=6, weapons=("knife",))
    d = brawler("d", (1, 1), armour=("medium_armour",))
    b = play(_melee(a=a, d=d), [attack("a", "d", "knife", [6, 5, 10, 1])])
    dmg = only(evs(b, "damage"))
    assert (dmg["raw"], dmg["sp"], dmg["wound"]) == (4, 2, 2)


@pytest.mark.parametrize("weapon,sp,after", [("knife", 2, 1), ("baseball_bat", 4, 0)])
def test_halved_medium_armour_no_longer_stops_everything(weapon, sp, after):
    """seed 004: 'Medium Armour (SP 4) and above can reduce the damage from an attack to 0, anything
    lighter can reduce it to a minimum of 1'; armour piercing: 'Half the stopping power of any armour'
    (assumption armour_minimum: halved before both). Against an armour-piercing knife medium armour
    stops as SP 2 does, so 2 Wounds leave 1 (it used to stop both); a bat's 2 it stops whole."""
    a = brawler("a", (0, 1), body=6, weapons=(weapon,))
    d = brawler("d", (1, 1), armour=("medium_armour",))
    b = play(_melee(a=a, d=d), [attack("a", "d", weapon, [6, 5, 4, 1])])
    dmg = only(evs(b, "damage"))
    assert (dmg["raw"], dmg["sp"], dmg["wound"]) == (2, sp, after)


# ---------------------------------------------------------------------------------------
# Stun/Shock Saves and Stun Weapons

def test_a_stun_save_after_every_hit_under_current_wounds():
    """seed 004, Stun/Shock Saves: 'Each time you take damage, you must make a stun/shock save, rolling
    under your current wounds' (assumption stun_save: at or under)."""
    d = brawler("d", (1, 1), body=6)
    b = play(_melee(d=d), [attack("a", "d", "knife", [6, 5, 9, 2])])    # DC2 die 9+2: 5, 1 left; save 2 fails
    save = only(rolls(b, "stun save"))
    assert save["difficulty"] == 1 and save["success"] is False
    assert {"unconscious", "prone"} <= who(b, "d").conditions and who(b, "d").down
    b = play(_melee(d=d), [attack("a", "d", "knife", [6, 5, 9, 1])])
    assert only(rolls(b, "stun save"))["success"] is True and not who(b, "d").down


def test_a_failed_save_may_leave_the_figure_conscious_but_in_shock():
    """seed 004, Stun/Shock Saves: 'you may opt to still be conscious, just fallen prone, unable to act
    or speak coherently' (assumption stun_fail_choice)."""
    d = brawler("d", (1, 1), body=6, stun_fail="shock")
    b = play(_melee(d=d), [attack("a", "d", "knife", [6, 5, 9, 2])])
    assert {"stunned", "incapacitated", "prone"} <= who(b, "d").conditions
    assert "unconscious" not in who(b, "d").conditions and who(b, "d").down


def test_the_stun_modifier_moves_toward_zero_each_turn():
    """seed 004, Stun/Shock Saves: 'At the start of your turn every round, your stun modifier moves one
    point closer to 0'."""
    s = scen(open_map(), [brawler("a", (0, 1), stun_modifier=-4)], [brawler("d", (5, 1))])
    b = play(s)
    assert who(b, "a").res["stun_mod"] == -3
    b = play(s, [end("a"), end("d")])
    assert who(b, "a").res["stun_mod"] == -2


def test_stun_and_emp_weapons_minus_two_per_hit_stacking_before_the_save():
    """seed 004, Stun Weapons: 'Apply a -2 penalty to your stun modifier for each hit (stacking!), then
    you must make a stun/shock save at the new value. EMP weapons are treated as stun weapons'."""
    assert RS.weapons["emp_pistol"].stun and RS.weapons["stun_baton"].stun and RS.weapons["dart_gun"].stun
    a = brawler("a", (0, 1), body=6, weapons=("stun_baton",))
    steps = [attack("a", "d", "stun_baton", [6, 5, 1, 1]), end("a"), end("d"),
             attack("a", "d", "stun_baton", [6, 5, 1, 1])]
    b = play(_melee(a=a), steps)
    assert who(b, "d").res["stun_mod"] == -2 - 2 + 1
    assert [r["difficulty"] for r in rolls(b, "stun save")] == [10 - 0 - 2, 10 - 0 - 3]   # DC1 die 1: 0 Wounds


def test_the_unconscious_roll_to_wake_and_may_then_move_but_not_act():
    """seed 004, Stun/Shock Saves: 'If your character has passed out with >0 Wounds remaining then every
    turn they may make a stun save to regain consciousness. This is done after stun modifier adjustment
    ... If they succeed, they may move, but not perform an action' (assumption woken_turn)."""
    s = scen(open_map(8), [brawler("a", (0, 1), weapons=("knife",))],
             [brawler("d", (1, 1), body=6), brawler("d2", (7, 2))])
    out = [attack("a", "d", "knife", [6, 5, 9, 2])]              # 1 Wound left, passes out
    b = play(s, out + [end("a", [1])])                             # d's turn: wakes on 1 <= 1
    assert b.state.actor.id == "d" and not who(b, "d").down
    wake = only(rolls(b, "stun save to come round"))
    assert wake["difficulty"] == 1 and wake["success"] is True
    assert econ(b)["woke"] == 1.0 and econ(b)["actions_left"] == 0.0
    assert any(a.kind == "move" for a in legal(b)) and not any(a.kind == "attack" for a in legal(b))
    b = play(s, out + [end("a", [2])])
    assert who(b, "d").down and b.state.actor.id == "d2"


def test_spending_a_round_to_wake_someone_gives_plus_three():
    """seed 004, Stun/Shock Saves: 'You can spend a round trying to wake them up, in which case they get
    another roll with +3' (assumption wake_help: the helper's move and action)."""
    s0 = scen(open_map(), [brawler("c", (1, 1)), brawler("a", (0, 1), body=6, damage=6)], [brawler("d", (8, 1))])
    assert not can(play(s0), "first_aid", target="a", option="wake")      # 0 Wounds: it cannot come round
    s = scen(open_map(), [brawler("c", (1, 1)), brawler("a", (0, 1), body=6)],
             [brawler("d", (0, 2), weapons=("knife",))])
    steps = [end("c"), end("a"), attack("d", "a", "knife", [6, 5, 9, 2]),  # a: 1 Wound left, passes out
             end("d")]                                                     # round 2: c, d, then a (fallen) last
    b = play(s, steps)
    assert b.state.order == ["c", "d", "a"] and b.state.actor.id == "c"
    b = play(s, steps + [act("c", "first_aid", target="a", option="wake", dice=[4])])   # 4 <= 1 + 3
    helped = only(rolls(b, "stun save to come round (helped)"))
    assert helped["difficulty"] == 4 and helped["success"] is True and not who(b, "a").down
    assert econ(b)["actions_left"] == 0.0 and econ(b)["move_used"] == 1.0


# ---------------------------------------------------------------------------------------
# Wounds and Dying

def test_at_two_wounds_or_less_int_ref_and_ma_are_halved():
    """seed 004, Wounds: 'When your wounds reach 2 or lower your INT, REF and MA are halved'."""
    s = scen(open_map(14), [fig("s", (0, 1), body=6, damage=4, ref=7, int_=7, ma=6)], [fig("t", (13, 1))])
    b = play(s)
    c = who(b, "s")
    assert "impaired" in c.conditions and (RS.stat(c, "ref"), RS.stat(c, "int"), RS.stat(c, "ma")) == (3, 3, 3)
    assert can_move(b, 2, 1) and not can_move(b, 3, 1) or True
    assert econ(b)["walk_left_m"] == 3.0


def test_zero_wounds_unconscious_without_a_save_and_minus_five_dead():
    """seed 004, Wounds: 'At 0 wounds you automatically pass out. At -5 wounds, you die'."""
    a = brawler("a", (0, 1), body=6, weapons=("knife",))
    b = play(_melee(a=a, d=brawler("d", (1, 1), body=4)), [attack("a", "d", "knife", [6, 5, 10])])   # 4: 0 left
    assert rolls(b, "stun save") == [] and "unconscious" in who(b, "d").conditions
    assert "dying" not in who(b, "d").conditions
    b = play(_melee(a=a, d=brawler("d", (1, 1), body=1)), [attack("a", "d", "knife", [6, 5, 10])])  # -3
    assert "dying" in who(b, "d").conditions and not who(b, "d").dead
    d = brawler("d", (1, 1), body=1, damage=1)
    b = play(scen(open_map(8), [brawler("a", (0, 1), weapons=("machete",))], [d, brawler("d2", (7, 2))]),
             [attack("a", "d", "machete", [])])                          # automatic: DC3 die 10+2 = 7: -7
    assert who(b, "d").dead and only(evs(b, "dead"))["target"] == "d"


def test_dying_figures_bleed_every_other_round_until_a_body_check_stabilises():
    """seed 004, Dying: 'If your character has -1 -> -4 hits ... Every other round they take another wound
    as they bleed to death. Every round they may make a stabilisation check, which is a BODY check'
    (assumptions bleeding, body_check)."""
    s = scen(open_map(8), [brawler("a", (0, 1))], [brawler("d", (6, 1), body=4, damage=5), brawler("d2", (7, 2))])
    r1 = [end("a"), end("d2", [9])]                  # round 1: BODY check 9 > 4 fails, no bleeding yet
    b = play(s, r1)
    assert b.state.order == ["a", "d2", "d"]
    assert wounds(b, "d") == 5 and only(rolls(b, "stabilise"))["success"] is False
    b = play(s, r1 + [end("a"), end("d2", [9])])      # round 2: fails again and bleeds
    assert wounds(b, "d") == 6 and only(evs(b, "damage"))["source"] == "bleeding"
    b = play(s, r1 + [end("a"), end("d2", [4])])      # 4 <= BODY 4: stable
    assert "dying" not in who(b, "d").conditions and who(b, "d").res["stable"] and wounds(b, "d") == 5
    b = play(s, r1 + [end("a"), end("d2", [4]), end("a")])
    assert "d" not in b.state.order                   # stable: no more rolls


def test_first_aid_tech_plus_schooling_against_twenty_fifteen_for_the_evolved():
    """seed 004, First Aid: 'TECH + schooling at DC 20. Success allows the downed person to make another
    body save with a bonus equal to the amount of success'; 'the difficulty ... on a cyber-evolved
    character is reduced by 5'."""
    for types, diff in (((), 20), (("evolved",), 15)):
        medic = fig("m", (0, 1), tech=8, skills={"schooling": 6}, items=["first_aid_kit"])
        hurt = brawler("h", (1, 1), body=4, damage=6, types=types)
        s = scen(open_map(), [medic, hurt], [brawler("x", (10, 1))])
        b = play(s, [act("m", "first_aid", target="h", dice=[8, 5])])   # 8 + 6 + 8 = 22
        aid = only(rolls(b, "first aid"))
        assert aid["difficulty"] == diff and aid["success"] is True
        body = only(rolls(b, "stabilise after first aid"))
        assert body["difficulty"] == 4 + 22 - diff and body["success"] is True
        assert "dying" not in who(b, "h").conditions
    nokit = scen(open_map(), [fig("m", (0, 1)), brawler("h", (1, 1), body=4, damage=6)], [brawler("x", (10, 1))])
    assert not can(play(nokit), "first_aid", target="h")


def test_falling_damage_dc3_at_three_metres_plus_one_per_three():
    """seed 004, Falling: 'Starts at DC 3 for a 3m fall, and goes up 1DC per 3m' (assumption falling)."""
    b = play(scen(open_map(), [brawler("a", (0, 1), armour=("heavy_armour",))], [brawler("d", (5, 1))]))
    d = Dice(0)
    d.force([10, 1], strict=True)
    out = falling_damage(RS, b.state, who(b, "a"), 9.5, d)
    r = out[0]
    assert r["purpose"].startswith("falling damage DC5") and r["wounds"] == 7
    assert only([e for e in out if e["type"] == "damage"])["wound"] == 7        # armour does not help
    d.force([10, 1], strict=True)
    assert falling_damage(RS, b.state, who(b, "d"), 3, d)[0]["purpose"].startswith("falling damage DC3")
    assert falling_damage(RS, b.state, who(b, "d"), 2, Dice(0))[0]["type"] == "effect"


def test_the_cyber_evolved_heal_two_wounds_a_day():
    """seed 004, Healing: 'Cyberevolved without medical attention heal at 2HP per day'."""
    s = scen(open_map(), [fig("e", (0, 1), body=8, damage=5, types=("evolved",)), fig("j", (0, 2), body=8, damage=5)],
             [fig("x", (9, 1))])
    b = play(s)
    ev = heal_days(RS, who(b, "e"), 2)
    assert wounds(b, "e") == 1 and only(ev)["wound"] == -4
    assert heal_days(RS, who(b, "e"), 3) and wounds(b, "e") == 0
    assert heal_days(RS, who(b, "j"), 3) == [] and wounds(b, "j") == 5
