"""Rule tests for the `cortex` ruleset (seed 000 on Cortex Classic), with forced dice:
Defence in Melee Combat (block, dodge, innate) and in Ranged Combat.

Strict forced-dice replays through `rules.replay.run_replay`. The helpers, the roll order, the
sources cited ("seed 000, <heading>", "RULES-NOTES cortex", "assumption <key>") and the
geometry are in tests/cortex_rules_setup.py; the other topics in tests/test_cortex_rules_*.py.
"""

from __future__ import annotations

from typing import Any

import pytest

from rules.errors import DiceError
from tests.cortex_rules_setup import (attack, can_attack, defend, end, evs, fig, gunslinger, legal, only,
                                      open_map, play, pos, rolls, scen, sides, simple, who)


# ---------------------------------------------------------------------------------------
# Defence, Melee Combat: block, dodge, innate

def _melee(att_weapon: str = "sword", defender: dict | None = None, attacker: dict | None = None,
           initiative: str = "fixed", rows: list[str] | None = None):
    """Defender D (Agility d8, Melee Weapons d6, a sword) at (1,1) acts first; attacker A
    (Strength d8, Agility d8, Melee Weapons d6) next to it at (2,1)."""
    d = defender or fig("D", (1, 1), agi="d8", skills={"melee_weapons": "d6", "athletics/dodge": "d6"},
                        weapons=("sword",), life_points=99)
    a = attacker or fig("A", (2, 1), agi="d8", str_="d8", skills={"melee_weapons": "d6"},
                        weapons=() if att_weapon == "unarmed" else (att_weapon,), life_points=99)
    return scen(rows or open_map(6, 3), [d], [a], initiative=initiative)


def test_declaring_block_costs_an_action():
    """assumption defence_stance: block is declared on the figure's own turn as one action;
    seed 000, Defense, Melee Combat."""
    b = play(_melee(), [defend("D", "block")])
    assert b.state.actor.id == "D"
    assert b.state.economy["actions"] == 1
    assert only(evs(b, "stance"))["stance"] == "block"


def test_block_answers_every_attack_until_the_defenders_next_turn():
    """seed 000, Defense, Melee Combat: a target can block hand-to-hand attacks;
    assumption defence_stance: the stance answers every attack of its kind until the
    figure's next turn, each further roll one step lower; assumption block_attribute:
    Agility + the blocking weapon's skill."""
    b = play(_melee(), [
        defend("D", "block"), end("D"),
        attack("A", "D", "sword", [3, 3, 4, 4]),   # 6 against block d8+d6 = 8: miss
        attack("A", "D", "sword", [2, 2, 4, 4]),   # second action d8+d4 = 4 against block d8+d4 = 8
        end("A"),
        end("D"),                                   # round 2: D's turn ends the stance
        attack("A", "D", "sword", [3, 3, 2, 1]),   # innate 2: hit by 4, sword d4 shows 1
    ])
    blocks = rolls(b, "block", actor="D")
    assert [sides(r) for r in blocks] == [[8, 6], [8, 4]]
    assert [e["result"] for e in evs(b, "attack")] == ["miss", "miss", "hit"]
    assert [e["mode"] for e in evs(b, "defence")] == ["block", "block", "innate"]
    assert who(b, "D").res["wound"] == 3 and who(b, "D").res["stun"] == 2


def test_block_declared_as_second_action_rolls_one_step_lower():
    """assumption defence_stance: the block is rolled at the step penalty of the action
    that declared it (assumption multiple_actions)."""
    a = fig("A", (2, 1), agi="d8", str_="d8", skills={"melee_weapons": "d6"}, weapons=("sword",),
            life_points=99, decline_innate="always")
    b = play(_melee(attacker=a), [
        attack("D", "A", "sword", [1, 1]),          # D's first action (a botch)
        defend("D", "block"), end("D"),
        attack("A", "D", "sword", [3, 3, 4, 4]),
    ])
    assert only(evs(b, "stance"))["steps"] == -1
    assert sides(only(rolls(b, "block"))) == [8, 4]


@pytest.mark.parametrize("att_weapon,block_sides", [
    ("knife", [8, 8]),   # sword (medium) blocks a knife (small): +1 step
    ("sword", [8, 6]),   # same size: no change
    ("axe", [8, 4]),     # sword blocks an axe (large): -1 step
])
def test_block_weapon_size_modifier(att_weapon, block_sides):
    """seed 000, Defense, Melee Combat: a considerably smaller blocking weapon is -1 step,
    a considerably larger one +1 step; assumption weapon_size: sizes 0/1/2/3."""
    b = play(_melee(att_weapon), [defend("D", "block"), end("D"),
                                  attack("A", "D", att_weapon, [2, 2, 3, 3])])
    assert sides(only(rolls(b, "block"))) == block_sides
    assert only(evs(b, "attack"))["result"] == "miss"


def test_extraordinary_block_disarms_an_armed_attacker_by_default():
    """seed 000, Defense, Melee Combat: a block 7 higher than the attack lets the defender
    disarm the attacker; assumption block_effect: disarm is the default against a weapon."""
    b = play(_melee("axe"), [defend("D", "block"), end("D"),
                             attack("A", "D", "axe", [2, 1, 8, 2])])   # 3 against 10
    assert only(evs(b, "attack"))["result"] == "miss"
    assert evs(b, "effect", effect="extraordinary block: disarm")
    assert who(b, "A").res["lost"] == ["axe"]
    assert who(b, "D").res["gained"] == []          # D blocked with a sword: no grab
    assert b.state.actor.id == "A"
    assert not can_attack(b, "D", "axe")
    assert can_attack(b, "D", "unarmed")


def test_block_beating_attack_by_six_has_no_special_effect():
    """seed 000, Defense, Melee Combat: the special effect needs an extraordinary success
    (7 higher than the attack result)."""
    b = play(_melee("axe"), [defend("D", "block"), end("D"),
                             attack("A", "D", "axe", [2, 1, 7, 2])])   # 3 against 9
    assert only(evs(b, "attack"))["result"] == "miss"
    assert evs(b, "effect") == []
    assert who(b, "A").res["lost"] == []


def test_bare_handed_block_takes_weapon_damage_and_grabs_the_weapon():
    """seed 000, Melee Combat, Unarmed and assumption unarmed_block: blocking a weapon
    bare-handed still takes the weapon's damage die; seed 000, Defense, Melee Combat: a
    bare-handed disarm grabs the weapon."""
    d = fig("D", (1, 1), agi="d8", skills={"unarmed_combat": "d6"}, life_points=99)
    b = play(_melee("knife", defender=d), [
        defend("D", "block"), end("D"),
        # knife (Agility d8 + Melee Weapons d6) 3; bare hands (size 0) vs knife (1): d8+d4 -> 12
        attack("A", "D", "knife", [2, 1, 8, 4, 2]),   # then the knife's d2 shows 2
        end("A"),
    ])
    assert sides(only(rolls(b, "block"))) == [8, 4]
    assert (who(b, "D").res["stun"], who(b, "D").res["wound"]) == (0, 2)
    assert who(b, "A").res["lost"] == ["knife"]
    assert who(b, "D").res["gained"] == ["knife"]
    assert b.state.actor.id == "D"
    assert can_attack(b, "A", "knife")


def test_block_effect_trip_knocks_the_attacker_prone():
    """seed 000, Defense, Melee Combat: the attacker is tripped and knocked prone;
    the stat block's `block_effect` chooses it (assumption block_effect)."""
    d = fig("D", (1, 1), agi="d8", skills={"melee_weapons": "d6"}, weapons=("sword",),
            life_points=99, block_effect="trip")
    b = play(_melee(defender=d), [defend("D", "block"), end("D"),
                                  attack("A", "D", "sword", [2, 1, 8, 6])])
    assert {"prone"} <= who(b, "A").conditions
    assert who(b, "A").res["lost"] == []
    assert evs(b, "condition", target="A", condition="prone", on=True)


@pytest.mark.parametrize("strength,bash_die,face", [("d4", 2, 2), ("d8", 4, 3), ("d12", 8, 5)])
def test_block_effect_bash_deals_strength_minus_two_steps_stun(strength, bash_die, face):
    """seed 000, Defense, Melee Combat: the attacker is bashed and takes Stun damage equal
    to the defender's Strength -2 steps (minimum d2)."""
    d = fig("D", (1, 1), agi="d8", str_=strength, skills={"melee_weapons": "d6"},
            weapons=("sword",), life_points=99, block_effect="bash")
    b = play(_melee(defender=d), [defend("D", "block"), end("D"),
                                  attack("A", "D", "sword", [2, 1, 8, 6, face])])
    assert sides(only(rolls(b, "bash"))) == [bash_die]
    assert (who(b, "A").res["stun"], who(b, "A").res["wound"]) == (face, 0)


@pytest.mark.parametrize("mode", ["block", "dodge"])
def test_botched_block_or_dodge_stumbles_easy_target_no_more_movement(mode):
    """seed 000, Defense, Melee Combat: a botched block or dodge (every die a 1,
    RULES-NOTES) makes the defender stumble: it cannot move any further this turn (round)
    and is an Easy (3) target against the attack."""
    s = _melee(initiative="roll")
    b = play(s, [
        defend("D", mode), end("D"),
        end("A", [1, 1, 8, 6]),                   # round 2: D 2, A 14 -> A first
        attack("A", "D", "sword", [4, 4, 1, 1, 1]),  # 8 against the botch's Easy 3, sword 1
        end("A"),
    ], start_dice=[8, 6, 1, 1])                  # round 1: D 14, A 2
    d = only(evs(b, "defence"))
    assert (d["mode"], d["difficulty"]) == (f"{mode} (botch)", 3)
    assert only(rolls(b, mode))["botch"] is True
    hit = only(evs(b, "attack"))
    assert (hit["result"], hit["margin"]) == ("hit", 5)
    assert b.state.round == 2 and b.state.actor.id == "D"
    assert not [a for a in legal(b) if a.kind == "move"]
    assert can_attack(b, "A", "sword")            # it may still act, just not move


def test_melee_dodge_uses_agility_plus_athletics_dodge():
    """seed 000, Defense, Melee Combat: a target can dodge hand-to-hand attacks;
    RULES-NOTES cortex: dodge is Agility + Athletics/Dodge."""
    b = play(_melee(), [defend("D", "dodge"), end("D"),
                        attack("A", "D", "sword", [3, 3, 5, 4])])
    assert sides(only(rolls(b, "dodge"))) == [8, 6]
    d = only(evs(b, "defence"))
    assert (d["mode"], d["difficulty"]) == ("dodge", 9)
    assert only(evs(b, "attack"))["result"] == "miss"


# The defender at (1,1) and the attacker at (2,2) are diagonal neighbours; the heavy cover
# object at (2,1) stands between them.
SHELTER_MAP = ["....", "..h.", "....", "...."]


def _shelter(defender_attacks_first: bool):
    d = fig("D", (1, 1), agi="d6", skills={"unarmed_combat": "d6"}, life_points=99)
    a = fig("A", (2, 2), str_="d8", skills={"unarmed_combat": "d6"}, life_points=99,
            decline_innate="always")
    s = scen(SHELTER_MAP, [d], [a])
    first = [attack("D", "A", "unarmed", [1, 1])] if defender_attacks_first else []
    return play(s, first + [end("D"), attack("A", "D", "unarmed", [1, 1, 3])])


def test_cover_counts_in_melee_when_the_defender_made_no_attack():
    """seed 000, Defense, Melee Combat: cover applies to hand-to-hand combat when the
    target is sheltering behind obstacles and not attacking; assumption shelter: cover
    counts when the defender made no attack on its last turn (heavy cover +12)."""
    b = _shelter(defender_attacks_first=False)
    d = only(evs(b, "defence"))
    assert (d["mode"], d["cover_bonus"], d["difficulty"]) == ("innate", 12, 15)


def test_cover_does_not_count_in_melee_after_the_defender_attacked():
    """seed 000, Defense, Melee Combat: generally cover does not apply to hand-to-hand
    combat; assumption shelter: not when the defender attacked on its last turn."""
    b = _shelter(defender_attacks_first=True)
    d = [e for e in evs(b, "defence") if e["actor"] == "D"][0]
    assert (d["mode"], d["cover_bonus"], d["difficulty"]) == ("innate", 0, 3)


# ---------------------------------------------------------------------------------------
# Defence, Ranged Combat

def test_ranged_in_the_open_only_innate_even_with_a_dodge_stance():
    """seed 000, Defense, Ranged Combat: a character in the open with no cover in the area
    can only roll innate defence against ranged attacks."""
    d = fig("D", (6, 1), agi="d8", skills={"athletics/dodge": "d8"}, life_points=99)
    s = scen(open_map(), [d], [gunslinger("g", (0, 1))])
    b = play(s, [defend("D", "dodge"), end("D"), attack("g", "D", "revolver", [5, 5, 4, 1])])
    assert rolls(b, "dodge") == []
    assert sides(only(rolls(b, "innate defence"))) == [8]
    d = only(evs(b, "defence"))
    assert (d["mode"], d["difficulty"]) == ("innate", 4)
    assert pos(b, "D") == (6, 1)


def test_dropping_prone_is_free():
    """assumption drop_prone: dropping prone is free."""
    s = scen(open_map(), [fig("D", (6, 1))], [gunslinger("g", (0, 1))])
    b = play(s, [simple("D", "drop_prone")])
    assert "prone" in who(b, "D").conditions
    assert b.state.economy["actions"] == 0


def test_prone_target_is_difficulty_7_without_a_roll():
    """seed 000, Defense, Ranged Combat: a prone target cannot roll innate defence; it is
    an Easy target with a +4 light cover bonus (Difficulty 7); assumption ties: 7 hits 7."""
    s = scen(open_map(), [fig("D", (6, 1), agi="d12", life_points=99)], [gunslinger("g", (0, 1))])
    b = play(s, [simple("D", "drop_prone"), end("D"), attack("g", "D", "revolver", [4, 3, 2])])
    assert rolls(b, "innate") == []
    d = only(evs(b, "defence"))
    assert (d["mode"], d["difficulty"]) == ("prone", 7)
    hit = only(evs(b, "attack"))
    assert (hit["result"], hit["margin"]) == ("hit", 0)
    assert (who(b, "D").res["stun"], who(b, "D").res["wound"]) == (0, 2)
    with pytest.raises(DiceError):   # one die more than attack + damage is never used
        play(s, [simple("D", "drop_prone"), end("D"), attack("g", "D", "revolver", [4, 3, 2, 2])])


@pytest.mark.parametrize("ch,diff", [("l", 7), ("m", 11), ("h", 15), ("T", 19)])
def test_prone_target_behind_cover(ch, diff):
    """assumption prone_cover: a prone target's Difficulty is 3 + the larger of +4 and its
    cover bonus (seed 000, Defense, Ranged Combat: Difficulty 7 in the open)."""
    rows = ["." * 12, "." * 5 + ch + "." * 6, "." * 12]
    s = scen(rows, [fig("D", (6, 1), life_points=99)], [gunslinger("g", (0, 1))])
    b = play(s, [simple("D", "drop_prone"), end("D"), attack("g", "D", "revolver", [1, 1])])
    assert only(evs(b, "defence"))["difficulty"] == diff


# One row: heavy cover at x=8 shields x=7 against a gunman at x=14.
DODGE_ROW = ["........h....."]


def _dodger(x: int, **kw: Any) -> dict:
    kw.setdefault("life_points", 99)
    return fig("D", (x, 0), agi="d8", skills={"athletics": "d4", "athletics/dodge": "d12"}, **kw)


@pytest.mark.parametrize("x,skill_sides,band", [
    (7, 12, "adjacent"),   # already behind the cover: no move, no penalty
    (6, 10, "close"),      # 5 ft: -1 step
    (5, 8, "near"),        # 10 ft: -2 steps
    (4, 8, "near"),        # 15 ft: -2 steps
    (3, 6, "far"),         # 20 ft: -3 steps
    (1, 6, "far"),         # 30 ft: -3 steps
])
def test_ranged_dodge_to_cover_at_range_to_cover_penalty(x, skill_sides, band):
    """seed 000, Defense, Ranged Combat: dodging needs cover in the area; the roll is
    Agility + Athletics/Dodge at the range-to-cover penalty (adjacent 0, close -1, near -2,
    far -3 steps); the dodge roll is the Difficulty; assumption ranged_dodge: the figure
    moves to the nearest cell with cover against the attacker within 30 ft."""
    s = scen(DODGE_ROW, [_dodger(x)], [gunslinger("g", (13, 0))])
    b = play(s, [defend("D", "dodge"), end("D"), attack("g", "D", "revolver", [1, 2, 5, 5])])
    assert sides(only(rolls(b, "dodge to cover"))) == [8, skill_sides]
    d = only(evs(b, "defence"))
    assert (d["mode"], d["difficulty"]) == ("dodge", 10)
    assert only(evs(b, "attack"))["result"] == "miss"
    assert pos(b, "D") == (7, 0)
    if x != 7:
        assert only(evs(b, "move", actor="D"))["mode"] == "dive"


def test_no_ranged_dodge_when_cover_is_beyond_running_distance():
    """seed 000, Defense, Ranged Combat: the range-to-cover table stops at running distance
    (30 ft); farther cover is not 'in the area', so only innate defence is left."""
    s = scen(DODGE_ROW, [_dodger(0)], [gunslinger("g", (13, 0))])   # cover 35 ft away
    b = play(s, [defend("D", "dodge"), end("D"), attack("g", "D", "revolver", [1, 2, 5])])
    assert rolls(b, "dodge") == []
    assert only(evs(b, "defence"))["mode"] == "innate"
    assert pos(b, "D") == (0, 0)


def test_botched_ranged_dodge_stumbles_half_way_easy_target():
    """seed 000, Defense, Ranged Combat: on a botched dodge the character stumbles half-way
    to the cover, cannot move any further this turn and is an Easy (3) target."""
    d = _dodger(3, ale="d6")
    s = scen(DODGE_ROW, [d], [gunslinger("g", (13, 0))], initiative="roll")
    b = play(s, [
        defend("D", "dodge"), end("D"),
        end("g", [1, 1, 10, 8]),                        # round 2: g first
        attack("g", "D", "revolver", [2, 2, 1, 1, 1]),  # 4 against Easy 3, revolver 1
        end("g"),
    ], start_dice=[8, 6, 1, 1])
    d = only(evs(b, "defence"))
    assert (d["mode"], d["difficulty"]) == ("dodge (botch)", 3)
    assert pos(b, "D") == (5, 0)                       # half-way from x=3 to x=7
    assert only(evs(b, "attack"))["result"] == "hit"
    assert b.state.actor.id == "D"
    assert not [a for a in legal(b) if a.kind == "move"]


@pytest.mark.parametrize("ch,bonus", [("l", 4), ("m", 8), ("h", 12), ("T", 16)])
def test_cover_levels_add_to_innate_defence(ch, bonus):
    """seed 000, Defense, Ranged Combat: cover grants +4/+8/+12/+16 (light, medium, heavy,
    total) to innate defence against ranged attacks from that direction."""
    rows = ["." * 12, "." * 5 + ch + "." * 6, "." * 12]
    s = scen(rows, [fig("D", (6, 1), agi="d6", life_points=99)], [gunslinger("g", (0, 1))])
    b = play(s, [end("D"), attack("g", "D", "revolver", [1, 1, 2])])
    d = only(evs(b, "defence"))
    assert (d["cover_bonus"], d["difficulty"]) == (bonus, 2 + bonus)


@pytest.mark.parametrize("cover_x,why", [(1, "next to the attacker"), (7, "behind the defender")])
def test_cover_not_between_does_not_help(cover_x, why):
    """seed 000, Defense, Ranged Combat: cover counts only against attacks from its
    direction; a cover object next to the attacker is the attacker's cover."""
    rows = ["." * 12, "." * cover_x + "h" + "." * (11 - cover_x), "." * 12]
    s = scen(rows, [fig("D", (6, 1), agi="d6", life_points=99)], [gunslinger("g", (0, 1))])
    b = play(s, [end("D"), attack("g", "D", "revolver", [1, 1, 2])])
    d = only(evs(b, "defence"))
    assert (d["cover_bonus"], d["difficulty"]) == (0, 2), why


def test_declined_innate_defence_still_gets_cover():
    """assumption innate_cover: cover adds to the declined Easy (3) Difficulty."""
    rows = ["." * 12, "....." + "m" + "......", "." * 12]
    s = scen(rows, [fig("D", (6, 1), agi="d4", life_points=99)], [gunslinger("g", (0, 1))])
    b = play(s, [end("D"), attack("g", "D", "revolver", [1, 1])])
    d = only(evs(b, "defence"))
    assert (d["mode"], d["difficulty"]) == ("declined innate", 11)
