"""Rule tests for the `cortex_hu` ruleset (seed 002, a Hungarian Cortex combat summary):
Megragadás/leszorítás (grapple and pin), Meglepetésből támadás (surprise), Fedezékek
(cover) and Lőtávolságok (ranges), Hajítófegyverek (throwing), Célzás (aiming), Célzott
lövés (called shots), Lefegyverzés (disarm).

Strict forced-dice replays through `rules.replay.run_replay`. The helpers, the roll order, the
sources cited ("seed 002, <rule>", "assumption <key>") and the geometry are in
tests/cortex_hu_setup.py; the other topics in tests/test_cortex_hu_*.py.
"""

from __future__ import annotations

import pytest

from rules.actions import Action
from rules.dice import D8, D12
from rules.errors import ScenarioError
from tests.cortex_hu_setup import (RS, act, attack, dummy, econ, end, evs, fencer, fig, legal, move, open_map,
                                   play, rolls, scen, sides, who)


# ---------------------------------------------------------------------------------------
# seed 002, Megragadás/leszorítás (grapple and pin)

WRESTLER = dict(agi="d8", str_="d8", skills={"unarmed_combat": "d6", "unarmed_combat/grappling": "d10"})


def test_grapple_holds_and_the_held_target_is_easy_three_for_unarmed_attacks():
    """seed 002, Megragadás: "Dobj Fürgeség+Kézitusa/specializáció képzettségre ... Minden
    körben, amíg leszorítod, az ellenfeled könnyű célpontnak (célszám 3) számít a fegyvertelen
    harc szempontjából"; holding is free."""
    s = scen(open_map(), [fig("w", (0, 1), **WRESTLER)], [fig("t", (1, 1), agi="d6", life_points=30,
                                                             reactions="never")])
    b = play(s, [act("w", "grapple", target="t", dice=[4, 6, 3]), attack("w", "t", "unarmed", [1, 2, 1]),
                 end("w"), end("t"), attack("w", "t", "unarmed", [1, 2, 1])])
    g = rolls(b, "grapple", "w")[0]
    assert sides(g) == [8, 10] and "grappled" in who(b, "t").conditions
    held = evs(b, "defence", actor="t", mode="held")
    assert [h["difficulty"] for h in held] == [3, 3]
    # holding cost nothing: the first attack of the next turn is unpenalised
    assert rolls(b, "attack with unarmed", "w")[-1]["steps"] == 0
    # the held figure cannot move
    b = play(s, [act("w", "grapple", target="t", dice=[4, 6, 3]), end("w")])
    assert not [a for a in legal(b) if a.kind == "move"]


def test_the_holder_may_choke_for_stun():
    """seed 002, Megragadás: "de akár fojtogathatod is"; assumption choke: margin and die all Stun."""
    s = scen(open_map(), [fig("w", (0, 1), **WRESTLER)], [fig("t", (1, 1), agi="d6", life_points=30,
                                                             reactions="never")])
    b = play(s, [act("w", "grapple", target="t", dice=[4, 6, 3]),
                 attack("w", "t", "unarmed", [3, 3, 2], option="choke")])
    dmg = evs(b, "damage", target="t")[0]
    assert (dmg["stun"], dmg["wound"]) == (3 + 2, 0)  # 6 - 3 = 3 margin, d2 = 2


def test_escape_is_agility_plus_strength_against_the_grapple_roll():
    """seed 002, Megragadás: "amire dobhat szabadulást Fürgeség+Erő-vel"; assumption grapple:
    against the grapple roll's total, a tie frees."""
    s = scen(open_map(), [fig("w", (0, 1), **WRESTLER)],
             [fig("t", (1, 1), agi="d6", str_="d8", life_points=30, reactions="never")])
    pre = [act("w", "grapple", target="t", dice=[4, 6, 3]), end("w")]        # grip 10
    b = play(s, pre + [act("t", "grapple", target="w", option="escape", dice=[6, 3])])
    e = rolls(b, "escape", "t")[0]
    assert sides(e) == [6, 8] and e["difficulty"] == 10 and not e["success"]
    assert "grappled" in who(b, "t").conditions
    b = play(s, pre + [act("t", "grapple", target="w", option="escape", dice=[4, 6])])
    assert "grappled" not in who(b, "t").conditions and "prone" not in who(b, "t").conditions


def test_released_the_target_lies_prone_at_minus_two_until_it_stands():
    """seed 002, Megragadás: "Miután elengedted, az ellenfél földön fekszik amíg talpra nem
    áll. (-2 kockafokozat büntetést kap addig)"; standing up is an action."""
    t = fig("t", (1, 1), agi="d6", skills={"melee_weapons": "d8"}, weapons=("knife",), life_points=30,
            reactions="never")
    s = scen(open_map(), [fig("w", (0, 1), decline_innate="always", life_points=30, reactions="never",
                              **WRESTLER)], [t])
    pre = [act("w", "grapple", target="t", dice=[4, 6, 3]), act("w", "grapple", target="t", option="release"),
           end("w")]
    b = play(s, pre + [attack("t", "w", "knife", [3, 3, 1])])
    assert rolls(b, "attack with knife", "t")[0]["steps"] == -2 and sides(rolls(b, "attack with knife")[0]) == [6, 4]
    b = play(s, pre + [act("t", "stand"), attack("t", "w", "knife", [3, 3, 1])])
    assert "prone" not in who(b, "t").conditions
    assert rolls(b, "attack with knife", "t")[0]["steps"] == -1       # standing was one action


# ---------------------------------------------------------------------------------------
# seed 002, Meglepetésből támadás (surprise)

def test_surprised_figures_only_have_innate_defence_until_their_first_turn():
    """seed 002, Meglepetésből támadás: "Ha nem várja a támadást, a célpont csak Ösztönös
    kitéréssel védekezhet"; assumption surprise: `settings.surprised` names teams or figures."""
    t = fig("t", (1, 1), agi="d8", skills={"melee_weapons/swords": "d10", "athletics/dodge": "d8"},
            weapons=("sabre",), life_points=30)
    s = scen(open_map(), [fencer("f", (0, 1))], [t], settings={"surprised": ["b"]})
    b = play(s, [attack("f", "t", "sabre", [1, 2, 1])])
    assert "surprised" in who(b, "t").conditions and not rolls(b, "parry", "t")
    assert evs(b, "defence", actor="t")[0]["difficulty"] == 3
    b = play(s, [end("f"), end("t"), attack("f", "t", "sabre", [1, 2, 4, 4])])
    assert "surprised" not in who(b, "t").conditions and rolls(b, "parry (reaction)", "t")
    with pytest.raises(ScenarioError, match="surprised"):
        play(scen(open_map(), [fencer("f", (0, 1))], [t], settings={"surprised": ["nobody"]}))


# ---------------------------------------------------------------------------------------
# seed 002, Fedezékek (cover) and Lőtávolságok (ranges)

@pytest.mark.parametrize("mark,bonus", [(".", 0), ("l", 4), ("m", 8), ("h", 12), ("T", 16)])
def test_cover_adds_four_eight_twelve_or_sixteen(mark, bonus):
    """seed 002, Fedezékek: "Könnyű: +4 ... Közepes: +8 ... Nehéz: +12 ... Teljes: +16 célszám"."""
    rows = ["........", f"......{mark}.", "........"]
    shooter = fig("s", (0, 1), agi="d12", skills={"guns/pistols": "d12+d12"}, weapons=("pistol",))
    s = scen(rows, [shooter], [dummy("t", (7, 1))])
    b = play(s, [attack("s", "t", "pistol", [2, 1, 1] + ([1] if bonus == 0 else []))])   # 4: hits only in the open
    d = evs(b, "defence", actor="t")[0]
    assert d["difficulty"] == 3 + bonus and d["cover_bonus"] == bonus


@pytest.mark.parametrize("cells,cell_m,steps,skill_die", [
    (1, 1.5, 1, 12),      # 1.5 m, within 3 m: +1 step
    (3, 10, 0, 10),       # 30 m: short
    (5, 10, -2, 6),       # 50 m: medium
    (8, 10, -4, 2),       # 80 m: long
])
def test_range_steps_within_three_metres_short_medium_long(cells, cell_m, steps, skill_die):
    """seed 002, Lőtávolságok: "3m-en belül +1 ... Rövid távon belül nincs módosító; Közepes
    távon -2 ... Hosszú távon -4 kockafokozat"; assumption range_bands: pistol 30/60/90 m."""
    shooter = fig("s", (0, 1), agi="d6", skills={"guns": "d4", "guns/pistols": "d10"}, weapons=("pistol",))
    s = scen(open_map(12), [shooter], [dummy("t", (cells, 1))], cell_m=cell_m)
    b = play(s, [attack("s", "t", "pistol", [1, 1])])                        # 2 against Easy 3: a miss
    atk = rolls(b, "attack with pistol")[0]
    assert atk["steps"] == steps and sides(atk) == [6, skill_die]


def test_ranges_beyond_long_and_the_long_band_on_the_ladder():
    """seed 002, Lőtávolságok: no shot beyond the long band (assumption range_bands); at long
    range -4 steps can take the skill die below d2 (seed 002, multiple actions)."""
    shooter = fig("s", (0, 1), agi="d6", skills={"guns/pistols": "d12"}, weapons=("pistol",))
    s = scen(open_map(12), [shooter], [dummy("t", (10, 1))], cell_m=10)        # 100 m: beyond 90
    assert not [a for a in legal(play(s)) if a.kind == "attack" and a.weapon == "pistol"]
    s = scen(open_map(12), [shooter], [dummy("t", (8, 1))], cell_m=10)         # 80 m: long
    b = play(s, [attack("s", "t", "pistol", [1, 1])])
    assert sides(rolls(b, "attack with pistol")[0]) == [6, 4]                  # d12 -4 = d4
    weak = fig("s", (0, 1), agi="d6", skills={"guns/pistols": "d6"}, weapons=("pistol",))
    s = scen(open_map(12), [weak], [dummy("t", (8, 1))], cell_m=10)
    assert not [a for a in legal(play(s)) if a.kind == "attack" and a.weapon == "pistol" and not a.option]
    assert Action("attack", target="t", weapon="pistol", option="all_out") in legal(play(s))  # +2 makes it d2


# ---------------------------------------------------------------------------------------
# seed 002, Hajítófegyverek (throwing)

@pytest.mark.parametrize("cells,steps", [(2, -1), (4, -2), (6, -3), (10, -4)])
def test_throwing_an_object_not_made_for_throwing(cells, steps):
    """seed 002, Hajítófegyverek: "ha nem dobásra lett kitalálva valami, akkor a távolságtól
    függően -1-től -4-ig kap kockafokozat büntetést"; assumption improvised_throw (3, 6, 10,
    15 m) - and the object lands on the target's cell."""
    t = fig("t", (0, 1), agi="d6", skills={"athletics/throwing": "d12"}, weapons=("club",))
    s = scen(open_map(12), [t], [dummy("d", (cells, 1))])
    b = play(s, [attack("t", "d", "club", [1, 1], option="throw")])
    atk = rolls(b, "attack with club (throw)")[0]
    assert atk["steps"] == steps and sides(atk) == [6, (D12 + steps).dice[0]]
    assert b.state.objects[who(b, "d").pos] == ["club"] and "club" not in RS.weapon_slots(who(b, "t"))


def test_no_improvised_throw_beyond_fifteen_metres_and_made_for_throwing_uses_the_bands():
    """seed 002, Hajítófegyverek; assumptions improvised_throw and thrown_weapons."""
    t = fig("t", (0, 1), agi="d6", skills={"athletics/throwing": "d12"}, weapons=("club", "throwing_knives"))
    s = scen(open_map(14), [t], [dummy("d", (11, 1))])                         # 16.5 m
    assert not [a for a in legal(play(s)) if a.option == "throw"]
    s = scen(open_map(14), [t], [dummy("d", (6, 1))])                          # 9 m: medium for knives
    b = play(s, [attack("t", "d", "throwing_knives", [1, 1])])
    assert rolls(b, "attack with throwing_knives")[0]["steps"] == -2
    assert who(b, "t").res["ammo"]["throwing_knives"] == 2
    assert not [a for a in legal(b) if a.kind == "reload"]


# ---------------------------------------------------------------------------------------
# seed 002, Célzás (aiming)

def test_aiming_adds_a_step_a_round_up_to_three():
    """seed 002, Célzás: "körönként +1 kockafokozat bónuszt a dobásokra - max 3 körig lehet
    halmozni őket"."""
    shooter = fig("s", (0, 1), agi="d6", skills={"guns/rifles": "d6"}, weapons=("rifle",))
    s = scen(open_map(12), [shooter], [dummy("t", (10, 1))])
    aim3 = []
    for _ in range(3):
        aim3 += [act("s", "aim"), end("s"), end("t")]
    b = play(s, aim3 + [attack("s", "t", "rifle", [1, 1])])
    atk = rolls(b, "attack with rifle")[0]
    assert atk["steps"] == 3 and sides(atk) == [6, 12]
    b = play(s, aim3)
    assert econ(b)["aim_steps"] == 3 and "aiming" in who(b, "s").conditions
    assert Action("aim") in legal(b)          # aiming on is allowed; it keeps +3 (test_cortex_hu_seed_words.py)


def test_while_aiming_no_movement_or_other_action_and_moving_loses_it():
    """seed 002, Célzás: "Közben nem lehet mozogni, továbbá nem lehet szabad cselekvésen kívül
    mást végezni"; assumption aim."""
    shooter = fig("s", (0, 1), agi="d6", skills={"guns/rifles": "d6"}, weapons=("rifle", "knife"))
    s = scen(open_map(12), [shooter], [dummy("t", (10, 1))])
    b = play(s, [act("s", "aim")])
    assert {a.kind for a in legal(b)} == {"end_turn", "drop_prone", "drop"}
    b = play(s, [act("s", "aim"), end("s"), end("t"), move("s", 1, 1)])
    assert econ(b)["aim_steps"] == 0
    b = play(s, [act("s", "aim"), end("s"), end("t"), end("s"), end("t")])   # a turn without aiming
    assert who(b, "s").res["aim"] == 1                                         # keeps it (issue #32)
    b = play(s, [move("s", 1, 1)])
    assert Action("aim") not in legal(b)                                       # not after moving


# ---------------------------------------------------------------------------------------
# seed 002, Célzott lövés (called shots)

@pytest.mark.parametrize("area,atk_steps,dmg_die", [
    ("leg", -1, [12]), ("head", -2, [12, 4]), ("groin", -2, [12, 4]), ("eye", -3, [12, 8]),
    ("heart", -3, [12, 8]), ("elbow", -3, [12, 8]), ("knee", -3, [12, 8]), ("knee_waive", -3, [8]),
])
def test_called_shot_attack_penalty_and_damage_bonus(area, atk_steps, dmg_die):
    """seed 002, Célzott lövés: leg -1 step, +2 damage steps; vital organs -2, +4; tiny targets
    -3, +6; elbow or knee: "a támadó eldöntheti, hogy akarja-e érvényesíteni a sebzés bónuszt"
    (assumption joint_shot). The revolver's d8, stepped; V+W succeeds (7 + 7)."""
    shooter = fig("s", (0, 1), agi="d6", skills={"guns/pistols": "d12"}, weapons=("revolver",))
    t = dummy("t", (4, 1), vit="d8", wil="d8")
    s = scen(open_map(12), [shooter], [t])
    dice = [1, 3] + [1] * len(dmg_die) + [7, 7]
    b = play(s, [attack("s", "t", "revolver", dice, option=f"called:{area}")])
    atk = rolls(b, "attack with revolver")[0]
    assert atk["steps"] == atk_steps
    assert sides(rolls(b, "damage")[0]) == dmg_die
    resist = rolls(b, "Vitality + Willpower vs called shot")[0]
    assert resist["difficulty"] == 7 and resist["success"]
    assert who(b, "t").conditions == set()


def _called(area: str, extra: list[int], t_kw: dict | None = None):
    shooter = fig("s", (0, 1), agi="d6", skills={"guns/pistols": "d12"}, weapons=("revolver",))
    t = dummy("t", (4, 1), vit="d8", wil="d8", **(t_kw or {}))
    s = scen(open_map(12), [shooter], [t, dummy("u", (11, 2))])   # u keeps the fight going
    spec = RS.called["areas"][RS.area_of(f"called:{area}")]
    die = 1 if area.endswith("_waive") else len((D8 + int(spec["damage_steps"])).dice)
    return s, [attack("s", "t", "revolver", [1, 3] + [1] * die + [3, 3] + extra, option=f"called:{area}")]


def test_called_shot_to_the_leg_paralyses_on_a_failed_roll():
    """seed 002, Célzott lövés: láb - "Egészség + Akaraterő próba 7-es célszám ellen, hogy
    elkerülje a lebénulását"; assumption called_shot_roll: prone, cannot stand, crawls."""
    s, steps = _called("leg", [])
    b = play(s, steps + [end("s")])
    t = who(b, "t")
    assert {"leg_useless", "prone"} <= t.conditions
    assert Action("stand") not in legal(b)
    assert max(RS.move_options(b.state, t).values()) <= 2                     # 1.5 m of crawling


@pytest.mark.parametrize("area", ["head", "groin"])
def test_called_shot_to_a_vital_organ_knocks_out_for_d6_rounds(area):
    """seed 002, Célzott lövés: létfontosságú szervek - "ha sikertelen, 1d6 körre ájulás";
    assumption knockout_timing: it misses that many of its turns, then acts."""
    s, steps = _called(area, [2])
    b = play(s, steps + [end("s"), end("u"), end("s"), end("u")])            # rounds 1 and 2: out
    assert "knocked_out" in who(b, "t").conditions and b.state.actor.id == "s" and b.state.round == 3
    skipped = [e for e in b.events if e["type"] == "effect" and e.get("target") == "t"
               and "misses the turn" in e["effect"]]
    assert len(skipped) == 2
    b = play(s, steps + [end("s"), end("u"), end("s"), end("u"), end("s")])   # round 3: awake, it acts
    assert "knocked_out" not in who(b, "t").conditions and b.state.actor.id == "t"


@pytest.mark.parametrize("area", ["eye", "heart"])
def test_called_shot_to_a_tiny_target_kills_on_a_failed_roll(area):
    """seed 002, Célzott lövés: apró célpont - "Egészség + Akaraterő próba 7-es célszám ellen,
    hogy elkerülje halált. ha sikertelen, meghal"."""
    s, steps = _called(area, [])
    b = play(s, steps)
    assert who(b, "t").dead and evs(b, "dead", target="t")


def test_called_shot_to_the_elbow_knocks_out_and_the_joint_is_useless():
    """seed 002, Célzott lövés: "könyök vagy térd ... 1d6 körre a fájdalom kiüti-e, illetve
    sebészeti beavatkozásig használhatatlan az adott ízület"; assumption called_shot_roll:
    the elbow drops the held weapon and rules out two-handed weapons."""
    s, steps = _called("elbow", [3], {"weapons": ("knife", "staff")})
    b = play(s, steps)
    t = who(b, "t")
    assert {"knocked_out", "arm_useless"} <= t.conditions and t.res["ko_turns"] == 3
    assert "knife" in b.state.objects[t.pos]
    assert [w.name for w in RS.usable_weapons(t)] == ["unarmed"]             # the staff needs two hands


def test_called_shot_to_the_knee_knocks_out_and_cripples_the_leg():
    """seed 002, Célzott lövés: the knee - knocked out 1d6 rounds and useless until surgery."""
    s, steps = _called("knee_waive", [1])
    b = play(s, steps)
    assert {"knocked_out", "leg_useless", "prone"} <= who(b, "t").conditions
    assert evs(b, "info") and "waives" in evs(b, "info")[0]["text"]


# ---------------------------------------------------------------------------------------
# seed 002, Lefegyverzés (disarm)

def test_disarm_in_melee_is_minus_two_and_the_victim_rolls_against_eleven():
    """seed 002, Lefegyverzés: "-2 kockafokozat büntetéssel dobod közelharc esetén ... ha a
    támadásod sikeres, az áldozat dob 11-es célszámra Fürgeség+akaraterőt, vagy elejti a
    fegyvert"; assumption disarm: no damage."""
    t = dummy("t", (1, 1), agi="d6", wil="d6", weapons=("knife",))
    s = scen(open_map(), [fencer("f", (0, 1))], [t])
    b = play(s, [attack("f", "t", "sabre", [3, 2, 5, 5], option="disarm")])
    assert rolls(b, "attack with sabre (disarm)")[0]["steps"] == -2 and sides(rolls(b, "attack")[0]) == [6, 4]
    keep = rolls(b, "keep hold", "t")[0]
    assert sides(keep) == [6, 6] and keep["difficulty"] == 11 and not keep["success"]
    assert "knife" in b.state.objects[who(b, "t").pos] and not evs(b, "damage")
    b = play(s, [attack("f", "t", "sabre", [3, 2, 5, 6], option="disarm")])
    assert rolls(b, "keep hold", "t")[0]["success"] and "knife" in RS.weapon_slots(who(b, "t"))


def test_disarm_with_a_firearm_is_minus_four():
    """seed 002, Lefegyverzés: "-4 kockafokozat büntetéssel dobod lőfegyver esetén"."""
    shooter = fig("s", (0, 1), agi="d6", skills={"guns/pistols": "d12"}, weapons=("pistol",))
    s = scen(open_map(12), [shooter], [dummy("t", (4, 1), weapons=("knife",))])
    b = play(s, [attack("s", "t", "pistol", [3, 3, 1, 1], option="disarm")])
    assert rolls(b, "attack with pistol (disarm)")[0]["steps"] == -4
    assert not [a for a in legal(play(scen(open_map(12), [shooter], [dummy("t", (4, 1))])))
                if a.option == "disarm"]                                      # nothing to disarm
