"""Rule tests for the `cortex` ruleset (seed 000 on Cortex Classic), with forced dice:
Extraordinary success in combat, Knocked prone, and Movement.

Strict forced-dice replays through `rules.replay.run_replay`. The helpers, the roll order, the
sources cited ("seed 000, <heading>", "RULES-NOTES cortex", "assumption <key>") and the
geometry are in tests/cortex_rules_setup.py; the other topics in tests/test_cortex_rules_*.py.
"""

from __future__ import annotations

import pytest

from tests.cortex_rules_setup import (attack, can_move, defend, dummy, end, evs, fig, gunslinger, move, only,
                                      open_map, play, pos, rolls, scen, sides, simple, who)


# ---------------------------------------------------------------------------------------
# Extraordinary success in combat

def _xscen(target: dict):
    return scen(open_map(), [gunslinger("g", (0, 1))], [target])


def test_extraordinary_hit_endurance_failed_knocks_prone():
    """seed 000, Extraordinary Success in Combat: beating the Difficulty by 7 makes the
    target roll Endurance or suffer a special effect; assumption extraordinary_attack:
    Endurance (Vitality + Willpower) at Average (7) or knocked prone; roll_order: after
    the damage die."""
    t = dummy("t", (5, 1), vit="d6", wil="d6")
    b = play(_xscen(t), [attack("g", "t", "revolver", [5, 5, 1, 3, 3])])
    hit = only(evs(b, "attack"))
    assert (hit["result"], hit["margin"]) == ("extraordinary hit", 7)
    end_roll = only(rolls(b, "Endurance"))
    assert (end_roll["difficulty"], end_roll["total"], end_roll["success"]) == (7, 6, False)
    assert "prone" in who(b, "t").conditions
    assert (who(b, "t").res["stun"], who(b, "t").res["wound"]) == (4, 4)


def test_extraordinary_hit_endurance_made_stays_standing():
    """assumption extraordinary_attack: a made Endurance roll (7 meets Average 7,
    assumption ties) avoids the knock-down."""
    t = dummy("t", (5, 1), vit="d6", wil="d6")
    b = play(_xscen(t), [attack("g", "t", "revolver", [5, 5, 1, 4, 3])])
    assert only(rolls(b, "Endurance"))["success"] is True
    assert "prone" not in who(b, "t").conditions


def test_margin_of_six_is_an_ordinary_hit():
    """seed 000, Extraordinary Success in Combat: the effect needs a margin of 7 or more
    (no Endurance roll at 6: the strict dice list has none)."""
    b = play(_xscen(dummy("t", (5, 1))), [attack("g", "t", "revolver", [5, 4, 1])])
    hit = only(evs(b, "attack"))
    assert (hit["result"], hit["margin"]) == ("hit", 6)
    assert rolls(b, "Endurance") == []


def test_extraordinary_hit_bypasses_armour():
    """seed 000, Extraordinary Success in Combat: the attacker may bypass body armour;
    assumption extraordinary_attack: chosen when the target's armour stops the weapon's
    type (no Endurance roll then)."""
    t = dummy("t", (5, 1), armour="tactical_vest")
    b = play(_xscen(t), [attack("g", "t", "revolver", [5, 5, 1])])
    assert evs(b, "effect", effect="the attack bypasses armour")
    dmg = only(evs(b, "damage"))
    assert (dmg["stun"], dmg["wound"]) == (4, 4)
    assert "absorbed" not in dmg
    assert rolls(b, "Endurance") == []


# ---------------------------------------------------------------------------------------
# Knocked prone

def _knockdown(**target_kw):
    """g's extraordinary hit knocks t (next to it) prone; then it is t's turn."""
    t = fig("t", (1, 1), str_="d8", skills={"unarmed_combat": "d8", "melee_weapons": "d6"},
            weapons=("sword",), life_points=99, decline_innate="always", **target_kw)
    s = scen(open_map(), [gunslinger("g", (0, 1), decline_innate="always")], [t])
    return s, [attack("g", "t", "revolver", [5, 5, 1, 1, 2]), end("g")]


def test_standing_up_costs_one_action():
    """seed 000, Melee Combat, Knocked Prone: a character knocked prone must spend 1 action
    to get back up."""
    s, steps = _knockdown()
    b = play(s, steps)
    assert {"prone", "knocked"} <= who(b, "t").conditions
    b = play(s, steps + [simple("t", "stand")])
    assert "prone" not in who(b, "t").conditions
    assert b.state.economy["actions"] == 1


def test_after_standing_up_the_next_attack_is_one_more_step_lower():
    """seed 000, Melee Combat, Knocked Prone: after getting up, an additional -1 step on
    the next combat-related action that turn (on top of the second action's -1 step,
    assumption multiple_actions): Unarmed d8 -> d4."""
    s, steps = _knockdown()
    b = play(s, steps + [simple("t", "stand"), attack("t", "g", "unarmed", [1, 1])])
    assert sides(rolls(b, "attack", actor="t")[0]) == [8, 4]


def test_dropping_prone_by_choice_has_no_rise_penalty():
    """seed 000, Melee Combat, Knocked Prone: the extra -1 step is for a character
    *forcibly* knocked prone; one who dropped prone only pays the action (-1 step)."""
    t = fig("t", (1, 1), str_="d8", skills={"unarmed_combat": "d8"}, life_points=99)
    s = scen(open_map(), [t], [dummy("g", (0, 1))])
    b = play(s, [simple("t", "drop_prone"), simple("t", "stand"), attack("t", "g", "unarmed", [1, 1])])
    assert sides(only(rolls(b, "attack"))) == [8, 6]


def test_after_standing_up_a_declared_block_is_one_more_step_lower():
    """seed 000, Melee Combat, Knocked Prone: the -1 step applies to the next
    combat-related action taken that turn; declaring a block is one (assumption
    defence_stance: rolled at that action's step penalty), so it is at -2 steps."""
    s, steps = _knockdown()
    b = play(s, steps + [simple("t", "stand"), defend("t", "block")])
    assert only(evs(b, "stance"))["steps"] == -2


# ---------------------------------------------------------------------------------------
# Movement

def _mover(rows=None, mover=None, others=None):
    m = mover or fig("m", (0, 0), life_points=99)
    return scen(rows or open_map(12, 12), [m], others or [dummy("far", (11, 11))])


def test_walking_three_cells_is_free():
    """seed 000, Movement, Combat: walking (15 ft, 3 cells) does not count as an action."""
    b = play(_mover(), [move("m", 3, 0)])
    assert pos(b, "m") == (3, 0)
    assert b.state.economy["actions"] == 0
    assert only(evs(b, "move"))["mode"] == "walk"
    assert b.state.actor.id == "m"


@pytest.mark.parametrize("x", [4, 6])
def test_hustling_up_to_six_cells_is_one_action(x):
    """seed 000, Movement, Combat: hustling (30 ft, 6 cells) counts as 1 action."""
    b = play(_mover(), [move("m", x, 0)])
    assert pos(b, "m") == (x, 0)
    assert b.state.economy["actions"] == 1
    assert only(evs(b, "move"))["mode"] == "hustle"
    assert b.state.actor.id == "m"


def test_walk_then_more_becomes_a_hustle_costing_one_action():
    """seed 000, Movement, Combat: the walk is free, moving past it in the same turn is a
    hustle (1 action), counted once."""
    b = play(_mover(), [move("m", 2, 0), move("m", 4, 0), move("m", 6, 0)])
    assert b.state.economy["actions"] == 1
    assert [e["mode"] for e in evs(b, "move")] == ["walk", "hustle", "hustle"]


@pytest.mark.parametrize("x,actions,metres", [(2, 0, 4.5), (3, 1, 6.75), (4, 1, 9.0)])
def test_diagonal_steps_cost_one_and_a_half_cells(x, actions, metres):
    """seed 000, Movement, Combat on the grid (rules/grid.py): diagonal steps cost 1.5
    cells, so 2 diagonals (15 ft) are a free walk but 3 diagonals need a hustle."""
    b = play(_mover(), [move("m", x, x)])
    assert b.state.economy["actions"] == actions
    assert only(evs(b, "move"))["metres"] == metres


@pytest.mark.parametrize("x", [7, 9])
def test_running_is_the_only_action_and_ends_the_turn(x):
    """seed 000, Movement, Combat: running counts as an action and is the only action in
    the turn; assumption run_distance: 45 ft (9 cells)."""
    b = play(_mover(), [move("m", x, 0)])
    assert pos(b, "m") == (x, 0)
    assert only(evs(b, "move"))["mode"] == "run"
    assert b.state.actor.id == "far"


def test_no_move_beyond_running_distance():
    """assumption run_distance: running covers 45 ft (9 cells), no more."""
    b = play(_mover())
    assert can_move(b, 9, 0)
    assert not can_move(b, 10, 0)


def test_cannot_run_after_another_action():
    """seed 000, Movement, Combat: running is the only action the character can take in
    the turn, so after an attack at most a hustle is left."""
    s = _mover(mover=fig("m", (0, 1), life_points=99), others=[dummy("t", (0, 0))])
    b = play(s, [attack("m", "t", "unarmed", [1])])     # unskilled: Strength d6 alone
    assert can_move(b, 6, 1)
    assert not can_move(b, 7, 1)


def test_crawling_one_cell_is_free():
    """seed 000, Movement, Crawling: a prone character crawls; up to 5 ft is free."""
    b = play(_mover(), [simple("m", "drop_prone"), move("m", 1, 0)])
    assert b.state.economy["actions"] == 0
    assert only(evs(b, "move"))["mode"] == "crawl"
    assert b.state.actor.id == "m"


def test_crawling_two_cells_is_an_action():
    """seed 000, Movement, Crawling: crawling up to 10 ft counts as an action."""
    b = play(_mover(), [simple("m", "drop_prone"), move("m", 2, 0)])
    assert b.state.economy["actions"] == 1
    assert b.state.actor.id == "m"


def test_crawling_three_cells_is_the_only_action():
    """seed 000, Movement, Crawling: crawling up to 15 ft is the only action of the turn;
    farther is not possible."""
    b = play(_mover(), [simple("m", "drop_prone")])
    assert can_move(b, 3, 0) and not can_move(b, 4, 0)
    assert can_move(b, 2, 2)            # two diagonals cost 3 cells: still a crawl
    assert not can_move(b, 3, 2)        # 1 + 1.5 + 1.5 = 4 cells: beyond the crawl
    b = play(_mover(), [simple("m", "drop_prone"), move("m", 3, 0)])
    assert pos(b, "m") == (3, 0)
    assert b.state.actor.id == "far"


CORRIDOR = ["########", "........", "########"]


def test_enemies_block_passage():
    """rules/grid.py (movement): enemy figures block passage."""
    s = scen(CORRIDOR, [fig("m", (0, 1))], [dummy("e", (1, 1))])
    b = play(s)
    assert not can_move(b, 2, 1)


def test_allies_can_be_passed_but_not_stood_on():
    """rules/grid.py (movement): allies do not block passage; nobody ends on an occupied
    cell."""
    s = scen(CORRIDOR, [fig("m", (0, 1)), fig("ally", (1, 1))], [dummy("e", (7, 1))])
    b = play(s)
    assert can_move(b, 2, 1)
    assert not can_move(b, 1, 1)
