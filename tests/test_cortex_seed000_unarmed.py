"""Forced-dice tests for the seed 000 special rules of the `cortex` ruleset:
Melee Combat: the Unarmed specialties and grappling.

Strict forced-dice replays through `rules.replay.run_replay`. The helpers, the roll order, the
sources cited ("seed 000, <heading>", "RULES-NOTES", "assumption <key>") and the geometry are
in tests/cortex_seed000_setup.py; the other topics in tests/test_cortex_seed000_*.py.
"""

from __future__ import annotations

import pytest

from rules.actions import Action
from tests.cortex_seed000_setup import (act, atk, attacks_in, dummy, economy, end, evs, fig, legal, only,
                                        open_map, play, play_loose, rolls, scen, sides, who)


# ---------------------------------------------------------------------------------------
# Melee Combat, Unarmed: the specialties and grappling

def test_offensive_martial_arts_double_two_attack_rolls_one_action():
    """seed 000, Melee Combat, Unarmed: Offensive Martial Arts can be used to attempt two
    unarmed attacks in one turn as a single action."""
    p = fig("p", (0, 1), skills={"unarmed_combat": "d4", "unarmed_combat/offensive_martial_arts": "d8"})
    s = scen(open_map(), [p], [dummy("t", (1, 1))])
    b = play(s, [atk("p", "t", "unarmed", "double", [2, 2, 1, 3, 1, 2])])
    assert [sides(r) for r in rolls(b, "attack")] == [[6, 8], [6, 8]]
    assert [e["margin"] for e in evs(b, "attack")] == [1, 1]
    assert who(b, "t").res["stun"] == (1 + 1) + (1 + 2)
    assert economy(b)["actions_used"] == 1


@pytest.mark.parametrize("style,double", [("wrestling", True), ("brawling", False),
                                          ("defensive_martial_arts", False), (None, False)])
def test_double_attack_only_with_offensive_martial_arts_or_wrestling(style, double):
    """seed 000, Unarmed: only Offensive Martial Arts and Wrestling give two attacks as one
    action."""
    skills = {"unarmed_combat": "d6"}
    if style:
        skills[f"unarmed_combat/{style}"] = "d8"
    s = scen(open_map(), [fig("p", (0, 1), skills=skills)], [dummy("t", (1, 1))])
    assert (Action("attack", "t", None, "unarmed", "double") in legal(play(s, []))) == double


@pytest.mark.parametrize("style,weapon_damage", [("defensive_martial_arts", False), ("brawling", True)])
def test_defensive_martial_arts_blocks_weapons_without_their_damage(style, weapon_damage):
    """seed 000, Unarmed: Defensive Martial Arts allows blocking melee weapon attacks
    without automatically suffering the weapon damage; a plain bare-handed block takes the
    weapon's die (assumption unarmed_block)."""
    d = fig("d", (0, 1), agi="d6", skills={"unarmed_combat": "d4", f"unarmed_combat/{style}": "d8"},
            life_points=99)
    x = fig("x", (1, 1), str_="d6", skills={"melee_weapons": "d6"}, weapons=("sword",))
    s = scen(open_map(), [d], [x])
    # sword 2 + 1 = 3; bare-handed block against a sword -1 step: Agility d6 + d6 = 4 + 4 = 8
    dice = [2, 1, 4, 4] + ([3] if weapon_damage else [])
    b = play(s, [act("d", "defend", option="block"), end("d"), atk("x", "d", "sword", dice=dice)])
    assert only(evs(b, "attack"))["result"] == "miss"
    blk = only(rolls(b, "block"))
    assert sides(blk) == [6, 6]
    assert who(b, "d").res["wound"] == (3 if weapon_damage else 0)


def _grapple_scene(p_skills=None, t_kw=None, extra_a=()) -> dict:
    p = fig("p", (0, 1), agi="d6", str_="d6",
            skills=p_skills or {"unarmed_combat": "d6", "unarmed_combat/wrestling": "d8"})
    t = fig("t", (1, 1), agi="d6", str_="d6", weapons=("club",), life_points=99,
            decline_innate="never", **(t_kw or {}))
    return scen(open_map(), [p, *extra_a], [t])


def test_grapple_hits_then_the_target_is_held_easy_three():
    """assumption grapple (seed 000 needs grappling for Wrestling): Agility + Unarmed
    Combat to hit against the defence; the held target cannot move, is an Easy (3) target
    for the holder's attacks and attacks only the holder."""
    s = _grapple_scene(extra_a=[dummy("q", (2, 1))])
    # grapple: Agility d6 + Wrestling d8 = 3 + 4 = 7 vs innate 5
    g = act("p", "grapple", [3, 4, 5], target="t")
    b = play(s, [g])
    r = only(rolls(b, "grapple"))
    assert sides(r) == [6, 8] and r["difficulty"] == 5
    assert who(b, "t").res["grappled_by"] == "p" and "grappled" in who(b, "t").conditions
    assert who(b, "p").res["grappling"] == "t"
    # the holder's next attack: Easy 3, no innate roll (Strength d6 + d8 -1 step: 2 + 1 = 3)
    b = play(s, [g, atk("p", "t", "unarmed", dice=[2, 1, 1])])
    assert only(evs(b, "defence", actor="t", mode="held"))["difficulty"] == 3
    assert only(evs(b, "attack", weapon="unarmed"))["result"] == "hit"
    # on t's turn: no moves, attacks only at the holder (q stands next to t too)
    b = play(s, [g, end("p"), end("q")])
    assert b.state.actor.id == "t"
    assert not [a for a in legal(b) if a.kind == "move"]
    assert {a.target for a in attacks_in(b)} == {"p"}
    assert Action("grapple", "p", None, None, "escape") in legal(b)


def test_grapple_miss_leaves_both_free():
    """assumption grapple: a grapple that does not beat the defence holds nothing."""
    b = play(_grapple_scene(), [act("p", "grapple", [1, 3, 5], target="t")])
    assert who(b, "t").res["grappled_by"] is None and "grappled" not in who(b, "t").conditions


@pytest.mark.parametrize("esc,hold,free", [([4, 4], [3, 3], True), ([3, 3], [3, 3], False),
                                           ([1, 2], [5, 5], False)])
def test_grapple_escape_opposed_agility_strength_escaper_must_win(esc, hold, free):
    """assumption grapple: escaping costs one action: opposed Agility + Strength, the
    escaper must win (a tie holds)."""
    b = play(_grapple_scene(), [act("p", "grapple", [3, 4, 5], target="t"), end("p"),
                                act("t", "grapple", esc + hold, target="p", option="escape")])
    assert only(rolls(b, "escape", "t"))["pool"] == "Agility d6 + Strength d6"
    assert only(rolls(b, "hold on", "p"))["pool"] == "Agility d6 + Strength d6"
    assert (who(b, "t").res["grappled_by"] is None) == free
    assert economy(b)["actions_used"] == 1


def test_grapple_release_is_free():
    """assumption grapple: holding is free, and so is letting go."""
    b = play(_grapple_scene(), [act("p", "grapple", [3, 4, 5], target="t"),
                                act("p", "grapple", target="t", option="release")])
    assert who(b, "t").res["grappled_by"] is None and who(b, "p").res["grappling"] is None
    assert economy(b)["actions_used"] == 1


def test_wrestling_disarm_and_takedown_only_against_a_grappled_target():
    """seed 000, Unarmed, Wrestling: Disarm and Takedown attacks against a target you are
    grappling (assumption wrestling_moves: a hit drops the held weapon to the ground or
    knocks the target prone)."""
    s = _grapple_scene()
    b = play(s, [])
    assert not [a for a in attacks_in(b) if a.option in ("disarm", "takedown")]
    g = act("p", "grapple", [3, 4, 5], target="t")
    b = play(s, [g])
    assert {a.option for a in attacks_in(b) if a.option in ("disarm", "takedown")} == {"disarm", "takedown"}
    # disarm: Strength d6 + Wrestling d8 -1 step = d6: 2 + 1 = 3 vs Easy 3 (held)
    b = play(s, [g, atk("p", "t", "unarmed", "disarm", [2, 1])])
    r = only(rolls(b, "attack"))
    assert "Wrestling" in r["pool"] and sides(r) == [6, 6]
    assert b.state.objects == {who(b, "t").pos: ["club"]}
    assert not rolls(b, "damage")
    b = play(s, [g, atk("p", "t", "unarmed", "takedown", [2, 1])])
    assert "prone" in who(b, "t").conditions
    # grappling without Wrestling: no disarm or takedown
    s = _grapple_scene(p_skills={"unarmed_combat": "d8"})
    b = play(s, [act("p", "grapple", [3, 4, 5], target="t")])
    assert who(b, "t").res["grappled_by"] == "p"
    assert not [a for a in attacks_in(b) if a.option in ("disarm", "takedown")]


@pytest.mark.parametrize("ranged,roll,diff", [(False, None, 5), (True, 2, 2)])
def test_capoeira_innate_defence_against_melee_is_five(ranged, roll, diff):
    """seed 000, Unarmed, Capoeira: your Innate Defense against melee attacks is 5
    (assumption capoeira_innate: 5, no roll; issue #32); not against ranged attacks."""
    c = {"id": "c", "at": [1, 1] if not ranged else [5, 1], "template": "capoeirista"}
    p = fig("p", (0, 1), agi="d6", skills={"unarmed_combat": "d6", "guns": "d6"},
            weapons=("pistol",) if ranged else ())
    s = scen(open_map(), [p], [c])
    dmg = [1] if 3 >= diff else []          # 1 + 2 = 3 hits only the ranged Difficulty 2
    b = play(s, [atk("p", "c", "pistol" if ranged else "unarmed", dice=[1, 2] + ([roll] if roll else []) + dmg)])
    assert only(evs(b, "defence"))["difficulty"] == diff
    assert [r["dice"] for r in rolls(b, "innate defence")] == ([[[10, roll]]] if roll else [])


@pytest.mark.parametrize("style,block_sides", [
    ("capoeira", [[10, 12], [10, 12], [10, 10]]),
    ("brawling", [[10, 12], [10, 10], [10, 8]]),
])
def test_all_out_defence_capoeira_first_two_rolls_count_as_one(style, block_sides):
    """assumption all_out_defence (RULES-NOTES: +2 steps): each defence roll in the stance
    after the first is one step lower; seed 000, Capoeira: with All-Out Defense the first 2
    defensive moves count as 1 action. All-out defence ends the turn's actions."""
    c = fig("c", (1, 1), agi="d10", skills={"unarmed_combat": "d4", f"unarmed_combat/{style}": "d8"},
            life_points=99)
    xs = [fig(f"x{i}", xy, skills={"unarmed_combat": "d6"}) for i, xy in
          enumerate([(0, 1), (2, 1), (1, 0)])]
    s = scen(open_map(), [c], xs)
    b = play(s, [act("c", "defend", option="all_out_block")])
    assert b.state.actor.id == "x0"                     # the turn is over
    steps = [act("c", "defend", option="all_out_block")]
    for i in range(3):
        steps += [atk(f"x{i}", "c", "unarmed", dice=[2, 1, 2, 2]), end(f"x{i}")]
    b = play(s, steps)
    assert [sides(r) for r in rolls(b, "block")] == block_sides
    assert [e["result"] for e in evs(b, "attack")] == ["miss"] * 3


def test_krav_maga_extraordinary_block_free_counter_against_easy_three():
    """seed 000, Unarmed, Krav Maga: an extraordinary success on a block allows an
    immediate unarmed attack on the attacker as a free action against an Easy (3) target."""
    k = fig("k", (0, 1), agi="d6", str_="d8", skills={"unarmed_combat": "d6", "unarmed_combat/krav_maga": "d8"},
            block_effect="trip", life_points=99)
    x = fig("x", (1, 1), agi="d12", skills={"unarmed_combat": "d6"}, life_points=99, decline_innate="never")
    s = scen(open_map(), [k], [x])
    # x: 1 + 2 = 3; block Agility d6 + Krav Maga d8: 6 + 8 = 14 (by 11); trip, then the
    # counter: Strength d8 + Krav Maga d8 = 2 + 2 = 4 vs Easy 3 (no innate roll); d2 Stun 2
    b = play(s, [act("k", "defend", option="block"), end("k"),
                 atk("x", "k", "unarmed", dice=[1, 2, 6, 8, 2, 2, 2])])
    counter = only(rolls(b, "Krav Maga counter"))
    assert counter["difficulty"] == 3 and sides(counter) == [8, 8]
    assert not rolls(b, "innate defence")
    assert who(b, "x").res["stun"] == 1 + 2
    assert "prone" in who(b, "x").conditions
    assert b.state.actor.id == "x" and economy(b)["actions_used"] == 1


def test_krav_maga_assault_rifle_adds_d6_basic_to_unarmed_attacks():
    """seed 000, Krav Maga: an assault rifle may be used to add d6 Basic damage to an
    unarmed attack (assumption krav_maga_rifle); without the rifle, no extra die."""
    for weapons, extra in ((("assault_rifle",), True), ((), False)):
        k = fig("k", (0, 1), str_="d8", skills={"unarmed_combat": "d6", "unarmed_combat/krav_maga": "d8"},
                weapons=weapons)
        s = scen(open_map(), [k], [dummy("t", (1, 1))])
        dice = [2, 2, 1] + ([5] if extra else [])
        b = play(s, [atk("k", "t", "unarmed", dice=dice)])
        assert bool(rolls(b, "assault rifle")) == extra
        basic = 1 + (5 if extra else 0)
        assert (who(b, "t").res["stun"], who(b, "t").res["wound"]) == (basic - basic // 2 + 1, basic // 2)


def test_krav_maga_counter_is_an_unarmed_attack_with_the_rifle_bonus():
    """seed 000, Krav Maga: the counter after an extraordinary block is an Unarmed attack,
    so a Krav Maga fighter with an assault rifle adds d6 Basic to it too (assumption
    krav_maga_rifle: 'adds d6 Basic to unarmed attacks')."""
    k = fig("k", (0, 1), agi="d6", str_="d8", skills={"unarmed_combat": "d6", "unarmed_combat/krav_maga": "d8"},
            weapons=("assault_rifle",), block_effect="trip", life_points=99)
    x = fig("x", (1, 1), skills={"unarmed_combat": "d6"}, life_points=99)
    s = scen(open_map(), [k], [x])
    b = play_loose(s, [{"action": {"type": "defend", "option": "block"}}, {"action": "end_turn"},
                       {"action": {"type": "attack", "target": "k", "weapon": "unarmed"}}],
                   [1, 2, 6, 8, 2, 2, 2, 5])
    assert rolls(b, "Krav Maga counter")
    assert rolls(b, "assault rifle"), "no d6 Basic from the assault rifle on the counter"
