"""The remaining choices seed 000 gives a figure, asked as its side's decisions (issue #32,
second wave; rules/systems/cortex/asked.py). Each test answers differently from the default
(the engine's choice before these were questions) in a `questions: ask` replay and checks
that the outcome differs; each quotes the seed 000 sentence (or RULES-NOTES for Plot Points).
"""

from __future__ import annotations

import pytest

from rules.actions import Action
from rules.errors import DiceError, IllegalActionError
from rules.systems.cortex.asked import compass
from tests.cortex_seed000_setup import act, atk, brawler, evs, fig, only, open_map, play, pos, rolls, scen, who


@pytest.fixture
def ask_innate(monkeypatch):
    """The innate_defence question switched on (data.yaml `questions.innate_defence`, on by
    default: a GM may switch it off for a table that does not want to be asked)."""
    from rules.ruleset import get_ruleset
    monkeypatch.setattr(get_ruleset("cortex"), "ask_innate", True)


def _punch_scene(agi: str) -> dict:
    """p punches t (Strength d6 + Unarmed Combat d6); t's stat block leaves innate defence
    to the figure (`decline_innate: auto`)."""
    t = fig("t", (1, 1), agi=agi, life_points=99, decline_innate="auto")
    return scen(open_map(), [brawler("p", (0, 1))], [t, fig("u", (11, 2), life_points=99, decline_innate="always")])


def test_a_defender_may_stand_as_an_easy_target_instead_of_rolling_innate_defence(ask_innate) -> None:
    """seed 000, Defense, Melee Combat: "A defender may choose not to roll innate defense and
    remain a stationary Easy target (Difficulty 3)". Agility d6 rolls by default (assumption
    innate_decline); standing makes the punch of 4 a hit against Easy 3."""
    s = _punch_scene("d6")
    punch = atk("p", "t", "unarmed", dice=[2, 2])
    asked = play(s, [punch], questions="ask")
    q = asked.question
    assert q.figure == "t" and q.key == "innate_defence" and q.options == ("roll", "stand") and q.default == "roll"
    rolled = play(s, [punch, act("t", "choose", option="roll", dice=[6])], questions="ask")
    stood = play(s, [punch, act("t", "choose", option="stand", dice=[1])], questions="ask")
    assert only(evs(rolled, "attack"))["result"] == "miss" and only(evs(rolled, "defence"))["difficulty"] == 6
    assert not rolls(stood, "innate defence")
    assert only(evs(stood, "defence"))["mode"] == "declined innate"
    assert only(evs(stood, "attack"))["result"] == "hit" and who(stood, "t").res["stun"] == 2
    assert only(evs(stood, "choice", actor="t"))["choice"] == "stand"


def test_a_slow_defender_may_roll_innate_defence_after_all(ask_innate) -> None:
    """seed 000: "may choose not to roll": rolling stays the figure's right. Agility d4
    declines by default (its mean is under Easy 3); rolling a 4 makes the punch of 3 miss."""
    s = _punch_scene("d4")
    punch = atk("p", "t", "unarmed", dice=[2, 1])
    assert play(s, [punch], questions="ask").question.default == "stand"
    stood = play(s, [punch, act("t", "choose", option="stand", dice=[1])], questions="ask")
    rolled = play(s, [punch, act("t", "choose", option="roll", dice=[4])], questions="ask")
    assert only(evs(stood, "attack"))["result"] == "hit"
    assert only(evs(rolled, "attack"))["result"] == "miss" and only(rolls(rolled, "innate defence"))["total"] == 4


def test_a_stat_block_that_says_always_or_never_is_not_asked(ask_innate) -> None:
    """The question goes out only when the stat block leaves the choice to the figure (auto)."""
    s = scen(open_map(), [brawler("p", (0, 1))], [fig("t", (1, 1), life_points=99, decline_innate="never")])
    b = play(s, [atk("p", "t", "unarmed", dice=[2, 2, 6])], questions="ask")
    assert b.question is None and only(rolls(b, "innate defence"))["total"] == 6


def _dodge_scene() -> dict:
    """Jubal shoots from the west; Zoe, dodging in the open, has heavy cover 2 cells west
    (nearest, the engine's pick; (5, 2)) and 2 cells east behind a second block ((9, 2))."""
    rows = ["............",
            "........h...",
            "....h.......",
            "............",
            "............"]
    return {"name": "test/dodge_cover", "ruleset": "cortex", "initiative": "fixed",
            "map": {"rows": rows},
            "teams": [{"name": "crew", "combatants": [{"id": "zoe", "template": "browncoat_veteran", "at": [7, 2]}]},
                      {"name": "outlaws", "combatants": [{"id": "jubal", "template": "gunslinger", "at": [0, 2]}]}]}


def test_innate_defence_is_not_asked_when_switched_off(monkeypatch) -> None:
    """data.yaml `questions.innate_defence: false`: the engine's default, no question."""
    from rules.ruleset import get_ruleset
    assert get_ruleset("cortex").ask_innate        # on as shipped
    monkeypatch.setattr(get_ruleset("cortex"), "ask_innate", False)
    b = play(_punch_scene("d6"), [atk("p", "t", "unarmed", dice=[2, 2, 6])], questions="ask")
    assert b.question is None and only(rolls(b, "innate defence"))["total"] == 6


def test_compass_points_name_the_direction_of_a_dive() -> None:
    assert [compass(*v) for v in ((0, -1), (2, -2), (3, 1), (2, 2), (0, 2), (-1, 1), (-4, 0), (-1, -1))] == \
        ["n", "ne", "e", "se", "s", "sw", "w", "nw"]  # (3, 1) is 18 degrees off east


def test_the_dodger_chooses_which_cover_to_dive_behind() -> None:
    """seed 000, Defense, Ranged Combat: "A targeted character can dodge against ranged
    attacks only if there is some kind of cover in the area. The roll is Agility +
    Athletics/Dodge at a skill penalty based on the distance to the available cover".
    The cover is the dodger's pick (by compass direction); the engine's was the nearest."""
    s = _dodge_scene()
    shot = atk("jubal", "zoe", "revolver", dice=[2, 2])
    b = play(s, [act("zoe", "defend", option="dodge"), act("zoe", "end_turn"), shot], questions="ask")
    q = b.question
    assert q.figure == "zoe" and q.key == "dodge_cover" and "w" in q.options and q.default == "w"
    with pytest.raises(IllegalActionError):
        b.step(Action("choose", option="n"))
    near = play(s, [act("zoe", "defend", option="dodge"), act("zoe", "end_turn"), shot, act("zoe", "choose", option="w", dice=[8, 3])], questions="ask")
    assert pos(near, "zoe") == (5, 2)
    assert set(q.options) == {"w", "e", "nw", "sw", "ne"}
    far = play(s, [act("zoe", "defend", option="dodge"), act("zoe", "end_turn"), shot, act("zoe", "choose", option="e", dice=[8, 3])], questions="ask")
    assert pos(far, "zoe") == (9, 2) and far.state.grid.cover(who(far, "zoe").pos, who(far, "jubal").pos) > 0
    assert only(evs(far, "choice", actor="zoe"))["choice"] == "e"
    assert only(rolls(far, "dodge"))["modifiers"] == only(rolls(near, "dodge"))["modifiers"]  # both 10 ft


def _krav_scene() -> dict:
    p = fig("p", (0, 1), skills={"unarmed_combat": "d6", "unarmed_combat/krav_maga": "d6", "guns": "d6"},
            weapons=("assault_rifle",))
    return scen(open_map(), [p], [fig("t", (1, 1), life_points=99, decline_innate="always"),
                                  fig("u", (11, 2), life_points=99, decline_innate="always")])


def test_krav_maga_fighter_may_leave_the_rifle_out_of_an_unarmed_attack() -> None:
    """seed 000, Krav Maga: "an assault rifle may be used to add d6B damage to an Unarmed
    attack". May: the default uses it (the engine always did); not using it rolls no d6."""
    s = _krav_scene()
    punch = atk("p", "t", "unarmed", dice=[2, 2])            # 4 vs Easy 3: hit by 1
    q = play(s, [punch], questions="ask").question
    assert (q.figure, q.key, q.options, q.default) == ("p", "krav_maga_rifle", ("use", "not_use"), "use")
    used = play(s, [punch, act("p", "choose", option="use", dice=[1, 5])], questions="ask")
    left = play(s, [punch, act("p", "choose", option="not_use", dice=[1])], questions="ask")
    assert only(rolls(used, "assault rifle"))["total"] == 5
    assert (who(used, "t").res["stun"], who(used, "t").res["wound"]) == (4, 3)   # Basic 1 + 5: 3 S 3 W; d2 S 1
    assert not rolls(left, "assault rifle")
    assert (who(left, "t").res["stun"], who(left, "t").res["wound"]) == (2, 0)   # Basic 1: 1 S; d2 S 1
    assert only(evs(left, "choice", actor="p"))["choice"] == "not_use"


def test_an_improvised_weapon_may_be_swung_with_melee_weapons_rather_than_brawling() -> None:
    """seed 000, Melee Combat, Improvised Weapons: "Attacking with an improvised weapon uses
    Unarmed Combat/Brawling or the Melee Weapons general skill". Either: the engine took the
    better (Brawling d8); the attacker may take Melee Weapons d4 (the bottle's -1: d2)."""
    thug = fig("thug", (0, 1), str_="d8", skills={"melee_weapons": "d4", "unarmed_combat/brawling": "d8"},
               weapons=("bottle_glass",))
    s = scen(open_map(), [thug], [fig("t", (1, 1), life_points=99, decline_innate="always"),
                                  fig("u", (11, 2), life_points=99, decline_innate="always")])
    swing = atk("thug", "t", "bottle_glass")
    q = play(s, [swing], questions="ask").question
    assert (q.key, q.options, q.default) == ("improvised_skill", ("melee_weapons", "unarmed"), "unarmed")
    brawl = play(s, [swing, act("thug", "choose", option="unarmed", dice=[3, 2, 1, 90])], questions="ask")
    melee = play(s, [swing, act("thug", "choose", option="melee_weapons", dice=[3, 2, 1, 90])], questions="ask")
    b_roll, m_roll = only(rolls(brawl, "attack")), only(rolls(melee, "attack"))
    assert [s for s, _ in b_roll["dice"]] == [8, 6] and "Brawling" in b_roll["pool"]
    assert [s for s, _ in m_roll["dice"]] == [8, 2] and "Melee Weapons" in m_roll["pool"]
    with pytest.raises(DiceError):                             # a d2 cannot show 3: the pool really changed
        play(s, [swing, act("thug", "choose", option="melee_weapons", dice=[3, 3, 1, 90])], questions="ask")
    assert play(s, [swing, act("thug", "choose", option="unarmed", dice=[3, 3, 1, 90])], questions="ask")


def test_plot_points_against_damage_are_the_figures_to_spend() -> None:
    """RULES-NOTES, Plot Points: "PP spent just after taking damage reduce it by the same
    die". The engine spent them only when a hit would take the figure down; the figure may
    spend them on any hit: 2 points (d4) take 2 Stun off a 2 Stun punch."""
    t = fig("t", (1, 1), life_points=99, decline_innate="always")
    s = scen(open_map(), [brawler("p", (0, 1))], [t, fig("u", (11, 2), life_points=99, decline_innate="always")],
             settings={"plot_points": {"b": 3}})
    punch = atk("p", "t", "unarmed", dice=[2, 2, 1])           # hit by 1: 1 Stun, d2 Stun 1
    q = play(s, [punch], questions="ask").question
    assert (q.figure, q.key, q.default) == ("t", "plot_points_damage", "pp_0")
    assert q.options == ("pp_0", "pp_1", "pp_2", "pp_3")
    kept = play(s, [punch, act("t", "choose", option="pp_0")], questions="ask")
    spent = play(s, [punch, act("t", "choose", option="pp_2", dice=[2])], questions="ask")
    assert (who(kept, "t").res["stun"], who(kept, "t").res["pp"]) == (2, 3)
    assert (who(spent, "t").res["stun"], who(spent, "t").res["pp"]) == (0, 1)
    assert [s for s, _ in only(rolls(spent, "spends 2 Plot Points"))["dice"]] == [4]
