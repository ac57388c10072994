"""The choices seed 004 gives a figure are the figure's decisions (issue #32, rules/choices.py,
rules/systems/cybergeneration/asks.py).

Each test quotes the seed 004 sentence (/work/shared/seeds/004_*.txt) and plays a forced-dice
replay with `questions: ask`: the figure asked answers as a step of its own (`choose`), with
the dice rolled after the question in that step. The answer differs from the default (the
engine's choice before #32) and the outcome with it; the same dice with the default answer
give the old play.
"""

from __future__ import annotations

from rules.ruleset import get_ruleset
from rules.systems.cybergeneration.asks import ANSWERS
from tests.cybergeneration_setup import (act, attack, brawler, end, evs, fig, move, only, open_map, play,
                                         rolls, scen, shooter, who, wounds)

ASK = {"questions": "ask"}


def choose(actor: str, option: str, dice: list[int] = ()) -> dict:
    return act(actor, "choose", list(dice), option=option)


def question(b) -> tuple[str, str, tuple[str, ...], str] | None:
    q = b.question
    return None if q is None else (q.figure, q.key, q.options, q.default)


def choices(b, key: str) -> list[str]:
    return [e["choice"] for e in evs(b, "choice", key=key)]


def test_the_answers_are_a_fixed_vocabulary_and_only_actions_that_resolve_fights_ask():
    rs = get_ruleset("cybergeneration")
    assert rs.answers == ANSWERS and len(set(ANSWERS)) == len(ANSWERS)
    from rules.actions import Action
    b = play(_suppressed())
    st = b.state
    assert rs.may_ask(st, Action("attack", target="t", weapon="smg"))
    assert not rs.may_ask(st, Action("move", cell=3))                  # nothing held, no zone, no drops
    assert not rs.may_ask(st, Action("end_turn")) and not rs.may_ask(st, Action("defend", option="dodge"))
    b = play(_suppressed(), [act("s", "suppress", target="t", weapon="smg"), end("s", [3])])
    assert rs.may_ask(b.state, Action("move", cell=3))                 # a zone: the line shot may be asked


def test_critical_success_second_d10_or_two_damage_dice_is_the_attackers_choice():
    """seed 004, Critical Success: 'If you critically succeed when making an attack, you can either
    roll a second d10 and add it as normal, or roll 2 damage dice and take the higher'
    (assumption crit_success_choice: asked when the attack hits without the second die)."""
    s = scen(open_map(), [shooter()], [fig("t", (8, 1))])         # 12 m: difficulty 20; 11 + 10 = 21 hits
    b = play(s, [attack("s", "t", "light_pistol", [10])], **ASK)
    assert question(b) == ("s", "crit_success", ("second_die", "damage_dice"), "damage_dice")
    # the second d10 (5: total 26), then one damage die 3 (DC2: 1 Wound), the save 1
    b = play(s, [attack("s", "t", "light_pistol", [10]), choose("s", "second_die", [5, 3, 1])], **ASK)
    r = only(rolls(b, "attack"))
    assert r["dice"] == [[10, 10], [10, 5]] and r["total"] == 26 and "two_damage_dice" not in r
    assert only(rolls(b, "damage"))["dice"] == [[10, 3]] and wounds(b, "t") == 1
    assert choices(b, "crit_success") == ["second_die"]
    # the default, as before #32: two damage dice 3 and 8, keep 8 (3 Wounds)
    b = play(s, [attack("s", "t", "light_pistol", [10]), choose("s", "damage_dice", [3, 8, 1])], **ASK)
    assert only(rolls(b, "damage"))["dice"] == [[10, 3], [10, 8]] and wounds(b, "t") == 3
    # a natural 10 that misses without the second die: nothing to choose, the die is added
    far = scen(open_map(40), [shooter()], [fig("t", (20, 1))])
    b = play(far, [attack("s", "t", "light_pistol", [10, 5, 3, 1])], **ASK)
    assert b.question is None and only(rolls(b, "attack"))["total"] == 26


def test_full_auto_critical_success_may_take_two_damage_dice_too():
    """seed 004, Critical Success: 'you can either roll a second d10 and add it as normal, or roll
    2 damage dice and take the higher' - for full auto as well; the margin still adds to the die
    (Full Automatic: 'Every point over the to hit number adds 1 to the damage dice')."""
    g = fig("s", (0, 1), ref=8, weapons=("smg",), skills={"smg": 7})
    s = scen(open_map(), [g], [fig("t", (4, 1), body=20)])      # 8 + 7 - 5 + 10 = 20 against 15: margin 5
    b = play(s, [attack("s", "t", "smg", [10], option="full_auto")], **ASK)
    assert question(b) == ("s", "crit_success", ("second_die", "damage_dice"), "second_die")
    b = play(s, [attack("s", "t", "smg", [10], option="full_auto"), choose("s", "damage_dice", [2, 4, 1])], **ASK)
    d = only(rolls(b, "damage DC2 (full auto", "s"))
    assert d["dice"] == [[10, 2], [10, 4]] and d["total"] == 9 and d["hits"] == [9]     # 4 + 5
    b = play(s, [attack("s", "t", "smg", [10], option="full_auto"), choose("s", "second_die", [2, 4, 1, 1])], **ASK)
    d = only(rolls(b, "damage DC2 (full auto", "s"))
    assert d["dice"] == [[10, 4]] and d["total"] == 11 and d["hits"] == [10, 1]          # 4 + margin 7


def test_the_point_blank_bonus_is_the_shooters_to_take():
    """seed 004, Ranged Combat: 'At point blank range pistols and SMGs may add + 5 to roll'
    (assumption point_blank_choice). Asked before the roll."""
    s = scen(open_map(), [fig("s", (0, 1), weapons=("light_pistol",))], [fig("t", (1, 1))])   # base 6 + 0 + 1
    b = play(s, [attack("s", "t", "light_pistol")], **ASK)
    assert question(b) == ("s", "point_blank", ("add_bonus", "forgo_bonus"), "add_bonus")
    b = play(s, [attack("s", "t", "light_pistol"), choose("s", "forgo_bonus", [2])], **ASK)
    r = only(rolls(b, "attack"))
    assert r["total"] == 9 and r["difficulty"] == 10 and r["modifiers"] == []
    assert only(evs(b, "attack"))["result"] == "miss" and wounds(b, "t") == 0
    b = play(s, [attack("s", "t", "light_pistol"), choose("s", "add_bonus", [2, 5, 1])], **ASK)
    assert only(rolls(b, "attack"))["total"] == 14 and only(evs(b, "attack"))["result"] == "hit"


def test_a_tribal_chooses_streetfighting_or_yogang_for_a_bow():
    """seed 004, Bows: 'Bows are shot using your streetfighting skill. Tribals may use their yogang
    skill instead with a +2 accuracy bonus' (assumption bow_yogang: the default is the higher)."""
    tribal = fig("s", (0, 1), types=("tribal",), weapons=("bow",), skills={"streetfighting": 4, "yogang": 6})
    s = scen(open_map(), [tribal], [fig("t", (4, 1))])                    # 6 m: difficulty 15
    b = play(s, [attack("s", "t", "bow")], **ASK)
    assert question(b) == ("s", "bow_skill", ("streetfighting", "yogang"), "yogang")
    b = play(s, [attack("s", "t", "bow"), choose("s", "streetfighting", [3])], **ASK)
    r = only(rolls(b, "attack"))
    assert r["pool"].startswith("REF 6 + streetfighting 4") and r["total"] == 13
    assert only(evs(b, "attack"))["result"] == "miss"
    b = play(s, [attack("s", "t", "bow"), choose("s", "yogang", [3, 5, 1])], **ASK)
    assert only(rolls(b, "attack"))["total"] == 17 and only(evs(b, "attack"))["result"] == "hit"


def _suppressed(skills: dict | None = None):
    g = fig("s", (0, 1), ref=8, weapons=("smg",), skills={"smg": 7, "streetfighting": 4})
    t = fig("t", (8, 1), weapons=("light_pistol",), skills={"handgun": 4, **(skills or {})})
    return scen(open_map(14, 4), [g], [t, fig("u", (9, 3))])


def test_the_suppressing_shooter_may_hold_fire_at_a_figure_crossing_the_line():
    """seed 004, Suppression: 'If anyone moves through the suppression line you may roll to hit
    against them with a -3 modifier on the roll' (assumption suppression_line)."""
    # t keeps its cool (COOL 5 + leader 5 + 5 = 15): a pinned figure could only get into cover
    steps = [act("s", "suppress", target="t", weapon="smg"), end("s", [5]), move("t", 10, 1)]
    b = play(_suppressed(skills={"fearless_leader": 5}), steps, **ASK)
    assert question(b) == ("s", "suppression_line", ("fire", "hold_fire"), "fire")
    b = play(_suppressed(skills={"fearless_leader": 5}), steps + [choose("s", "hold_fire")], **ASK)
    assert rolls(b, "attack", "s") == [] and wounds(b, "t") == 0
    assert who(b, "t").pos == b.state.grid.index(10, 1) and b.state.actor.id == "t"
    assert choices(b, "suppression_line") == ["hold_fire"]
    b = play(_suppressed(skills={"fearless_leader": 5}), steps + [choose("s", "fire", [9, 1, 1])], **ASK)   # 21 against 20: hit
    assert only(evs(b, "attack", actor="s"))["result"] == "hit" and wounds(b, "t") == 1


def test_a_held_action_may_wait_for_another_figure():
    """seed 004, Your Turn: 'You can opt to delay your action ... (including as an interrupt, so for
    example you can use your move to draw a pistol on someone and say "if he draws, I will fire"'
    - on someone: the holder lets t draw and keeps the shot for u (assumption held_actions)."""
    s = scen(open_map(14), [shooter(drawn="none")],
             [fig("t", (4, 1), weapons=("heavy_pistol",), drawn="none", skills={"handgun": 4}),
              fig("u", (5, 2), weapons=("heavy_pistol",), drawn="none", skills={"handgun": 4})])
    steps = [act("s", "ready", weapon="light_pistol", option="draw"), act("s", "delay", option="on_draw"), end("s"),
             act("t", "ready", weapon="heavy_pistol", option="draw")]
    b = play(s, steps, **ASK)
    assert question(b) == ("s", "held_fire", ("fire", "wait"), "fire")
    steps += [choose("s", "wait"), end("t"), act("u", "ready", weapon="heavy_pistol", option="draw")]
    b = play(s, steps, **ASK)
    assert who(b, "t").res["drawn"] == "heavy_pistol" and wounds(b, "t") == 0
    assert "holding_action" in who(b, "s").conditions and question(b)[:2] == ("s", "held_fire")
    b = play(s, steps + [choose("s", "fire", [8, 10, 3])], **ASK)     # 11 + 8 = 19 against 15: DC2 die 10
    assert [e["target"] for e in evs(b, "attack", actor="s")] == ["u"] and wounds(b, "u") == 4
    assert "holding_action" not in who(b, "s").conditions and who(b, "u").res["drawn"] == "heavy_pistol"


def test_a_figure_that_fails_a_stun_save_chooses_to_pass_out_or_go_into_shock():
    """seed 004, Stun/Shock Saves: 'If you fail you pass out / go into shock - you may opt to still be
    conscious, just fallen prone, unable to act or speak coherently' (assumption stun_fail_choice:
    the stat block's `stun_fail` is the default answer)."""
    s = scen(open_map(8), [brawler("a", (0, 1), weapons=("knife",))], [brawler("d", (1, 1), body=6)])
    hit = attack("a", "d", "knife", [6, 5, 9, 2])       # 5 Wounds of 6, the save 2 fails (1 left)
    b = play(s, [hit], **ASK)
    assert question(b) == ("d", "stun_fail", ("pass_out", "shock"), "pass_out")
    b = play(s, [hit, choose("d", "shock")], **ASK)
    d = who(b, "d")
    assert {"stunned", "incapacitated", "prone"} <= d.conditions and "unconscious" not in d.conditions
    assert choices(b, "stun_fail") == ["shock"]
    b = play(s, [hit, choose("d", "pass_out")], **ASK)
    assert "unconscious" in who(b, "d").conditions and "stunned" not in who(b, "d").conditions
    # without questions the stat block decides, as before #32
    assert "unconscious" in who(play(s, [hit]), "d").conditions
