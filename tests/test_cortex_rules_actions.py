"""Rule tests for the `cortex` ruleset (seed 000 on Cortex Classic), with forced dice:
Attributes for attacking, Initiative, Multiple actions and Innate defence.

Strict forced-dice replays through `rules.replay.run_replay`. The helpers, the roll order, the
sources cited ("seed 000, <heading>", "RULES-NOTES cortex", "assumption <key>") and the
geometry are in tests/cortex_rules_setup.py; the other topics in tests/test_cortex_rules_*.py.
"""

from __future__ import annotations

import pytest

from rules.actions import Action
from rules.errors import IllegalActionError
from rules.ruleset import get_ruleset
from tests.cortex_rules_setup import (attack, can_attack, can_move, dummy, end, evs, fig, gunslinger, legal,
                                      only, open_map, play, rolls, scen, sides)


# ---------------------------------------------------------------------------------------
# Attributes for attacking

def test_ranged_attack_rolls_agility_then_skill():
    """seed 000, Attributes for Attacking: Agility is rolled for ranged attacks;
    assumption roll_order: the attribute die comes first, then the skill die."""
    s = scen(open_map(), [fig("shooter", (0, 1), agi="d10", str_="d4", skills={"guns": "d6"},
                              weapons=("pistol",))], [dummy("t", (5, 1))])
    b = play(s, [attack("shooter", "t", "pistol", [5, 3, 2])])
    r = only(rolls(b, "attack"))
    assert r["dice"] == [[10, 5], [6, 3]]
    assert r["pool"].startswith("Agility d10")
    assert r["difficulty"] == 3


@pytest.mark.parametrize("weapon", ["unarmed", "club", "axe", "sword"])
def test_hand_to_hand_attack_rolls_strength(weapon):
    """seed 000, Attributes for Attacking: Strength is rolled for most hand-to-hand attacks."""
    s = scen(open_map(), [fig("brute", (0, 1), agi="d4", str_="d10",
                              skills={"melee_weapons": "d6", "unarmed_combat": "d6"},
                              weapons=() if weapon == "unarmed" else (weapon,))],
             [dummy("t", (1, 1))])
    # 7 + 2 = 9 against Easy 3: margin 6, then the weapon's damage die shows 1
    b = play(s, [attack("brute", "t", weapon, [7, 2, 1])])
    r = only(rolls(b, "attack"))
    assert sides(r) == [10, 6]
    assert r["pool"].startswith("Strength d10")
    assert only(evs(b, "attack"))["margin"] == 6


def test_weapon_table_attack_attributes():
    """seed 000, Attributes for Attacking: every gun uses Agility; most hand-to-hand
    weapons (and bare hands) use Strength."""
    rs = get_ruleset("cortex")
    ranged = [w for w in rs.weapons.values() if w.ranged]
    melee = [w for w in rs.weapons.values() if not w.ranged]
    assert ranged and all(w.attribute == "agility" for w in ranged)
    assert rs.weapons["unarmed"].attribute == "strength"
    assert sum(w.attribute == "strength" for w in melee) > len(melee) / 2


# ---------------------------------------------------------------------------------------
# Initiative

def _init_figs():
    return ([fig("p", (0, 0), agi="d6", ale="d6"), fig("q", (0, 2), agi="d6", ale="d8")],
            [fig("r", (11, 0), agi="d8", ale="d4"), fig("s", (11, 2), agi="d8", ale="d6")])


def test_initiative_agility_plus_alertness_ties_by_agility_then_listing():
    """RULES-NOTES cortex: Initiative is Agility + Alertness (highest total first);
    assumption initiative_ties: ties go to the higher Agility die, then the figure listed
    first in the scenario."""
    a, bt = _init_figs()
    s = scen(open_map(), a, bt, initiative="roll")
    # p: d6+d6 = 12; q: d6+d8 = 8; r: d8+d4 = 8; s: d8+d6 = 8
    b = play(s, start_dice=[6, 6, 4, 4, 4, 4, 5, 3])
    init_rolls = rolls(b, "initiative")
    assert [r["actor"] for r in init_rolls] == ["p", "q", "r", "s"]
    assert [sides(r) for r in init_rolls] == [[6, 6], [6, 8], [8, 4], [8, 6]]
    assert only(evs(b, "initiative"))["order"] == ["p", "r", "s", "q"]
    assert b.state.actor.id == "p"


def test_initiative_is_rolled_again_each_round():
    """RULES-NOTES cortex: Initiative (Agility + Alertness) is rolled each round; a tie
    with equal Agility goes to the figure listed first (assumption initiative_ties)."""
    a, bt = _init_figs()
    s = scen(open_map(), a, bt, initiative="roll")
    b = play(s, [end("p"), end("r"), end("s"),
                 # round 2: p 1+1 = 2, q 6+8 = 14, r 2+2 = 4, s 3+1 = 4
                 end("q", [1, 1, 6, 8, 2, 2, 3, 1])],
             start_dice=[6, 6, 4, 4, 4, 4, 5, 3])
    assert b.state.round == 2
    assert evs(b, "initiative", round=2)[0]["order"] == ["q", "r", "s", "p"]
    assert b.state.actor.id == "q"


# ---------------------------------------------------------------------------------------
# Multiple actions

def test_each_later_attack_steps_the_skill_die_down():
    """assumption multiple_actions: each action after the first in a turn steps the skill
    die down one, cumulatively (d10, d8, d6)."""
    s = scen(open_map(), [gunslinger("g", (0, 1))], [dummy("t", (5, 1))])
    b = play(s, [attack("g", "t", "revolver", [1, 1])] * 3)  # all botches: misses, no damage
    assert [sides(r) for r in rolls(b, "attack")] == [[10, 10], [10, 8], [10, 6]]
    assert b.state.economy["actions"] == 3


def test_step_penalty_spills_onto_attribute_and_stops_below_d2():
    """assumption multiple_actions: the excess steps the attribute die; an action whose
    attribute die would fall below d2 cannot be tried (RULES-NOTES: seed 002's example)."""
    s = scen(open_map(), [fig("w", (0, 1), str_="d4", skills={"unarmed_combat": "d2"})],
             [dummy("t", (1, 1))])
    steps = [attack("w", "t", "unarmed", [1, 1]), attack("w", "t", "unarmed", [1]),
             attack("w", "t", "unarmed", [1])]
    b = play(s, steps)
    assert [sides(r) for r in rolls(b, "attack")] == [[4, 2], [4], [2]]
    assert b.state.economy["actions"] == 3
    assert not can_attack(b, "t", "unarmed")  # would need Strength below d2
    with pytest.raises(IllegalActionError):
        play(s, steps + [attack("w", "t", "unarmed", [1])])


def test_at_most_four_actions_a_turn():
    """assumption multiple_actions / data.yaml max_actions_per_turn: at most 4 actions a
    turn; afterwards only the free walk is left."""
    s = scen(open_map(), [fig("w", (5, 1), str_="d12", skills={"unarmed_combat": "d12"})],
             [dummy("t", (6, 1))])
    steps = [attack("w", "t", "unarmed", [1, 1])] * 4
    b = play(s, steps)
    assert [sides(r) for r in rolls(b, "attack")] == [[12, 12], [12, 10], [12, 8], [12, 6]]
    assert not can_attack(b, "t", "unarmed")
    assert Action("defend", option="block") not in legal(b)
    assert can_move(b, 2, 1)        # 3 cells: a free walk
    assert not can_move(b, 1, 1)    # 4 cells: a hustle would be a fifth action
    with pytest.raises(IllegalActionError):
        play(s, steps + [attack("w", "t", "unarmed", [1, 1])])


# ---------------------------------------------------------------------------------------
# Innate defence

@pytest.mark.parametrize("agi,decline,rolled", [
    ("d6", "auto", 6), ("d2", "auto", None), ("d4", "auto", None),
    ("d4", "never", 4), ("d10", "always", None),
])
def test_innate_defence_free_agility_roll_or_declined_easy(agi, decline, rolled):
    """RULES-NOTES cortex: Innate Defense is a free Agility roll whose total is the
    Difficulty; seed 000, Defense: the defender may decline and be an Easy (3) target;
    assumption innate_decline: declined when the roll averages below 3 (d4 or less),
    unless the stat block says never/always."""
    t = fig("t", (5, 1), agi=agi, decline_innate=decline, life_points=99)
    s = scen(open_map(), [gunslinger("g", (0, 1))], [t])
    # attack 2 + 2 = 4; innate roll 1 when rolled; revolver damage 1
    dice = [2, 2] + ([1] if rolled else []) + [1]
    b = play(s, [attack("g", "t", "revolver", dice)])
    d = only(evs(b, "defence"))
    if rolled:
        assert sides(only(rolls(b, "innate defence"))) == [rolled]
        assert (d["mode"], d["difficulty"]) == ("innate", 1)
    else:
        assert rolls(b, "innate defence") == []
        assert (d["mode"], d["difficulty"]) == ("declined innate", 3)
    # free: the defender's next turn starts with no action spent
    b = play(s, [attack("g", "t", "revolver", dice), end("g")])
    assert b.state.actor.id == "t" and b.state.economy["actions"] == 0
