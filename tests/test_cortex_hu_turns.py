"""Rule tests for the `cortex_hu` ruleset (seed 002, a Hungarian Cortex combat summary):
Harcrendszer (the round, initiative, the multiple-action ladder); free actions, walking,
jogging and running.

Strict forced-dice replays through `rules.replay.run_replay`. The helpers, the roll order, the
sources cited ("seed 002, <rule>", "assumption <key>") and the geometry are in
tests/cortex_hu_setup.py; the other topics in tests/test_cortex_hu_*.py.
"""

from __future__ import annotations

import pytest

from rules.errors import IllegalActionError
from tests.cortex_hu_setup import (RS, act, attack, dummy, econ, evs, fencer, fig, legal, move, open_map,
                                   play, pos, rolls, scen, sides, who)


# ---------------------------------------------------------------------------------------
# seed 002, Harcrendszer: the round, initiative, the multiple-action ladder

def test_the_worked_example_melee_d8_rolls_d8_d6_d4_then_d2_and_no_fifth():
    """seed 002, multiple actions (worked example): "közelharc 1D8-on van. háromszor akarok
    ütni ... 1D8-al dobom. A második ütés már csak 1D6-al, a harmadik pedig 1D4-el" - and
    "Ha a kockadobás 1d2 alá csökkenne, akkor azt a cselekvést már nem próbálhatod meg":
    a fourth attack rolls d2, a fifth cannot be tried."""
    s = scen(open_map(), [fencer()], [dummy("t", (1, 1))])
    hit = [3, 2, 2]  # Agility, skill, sabre d4 damage: 5 against Easy 3
    b = play(s, [attack("f", "t", "sabre", hit), attack("f", "t", "sabre", hit),
                 attack("f", "t", "sabre", hit), attack("f", "t", "sabre", hit)])
    atk = rolls(b, "attack with sabre", "f")
    assert [sides(r) for r in atk] == [[6, 8], [6, 6], [6, 4], [6, 2]]
    assert [r["steps"] for r in atk] == [0, -1, -2, -3]
    assert not [a for a in legal(b) if a.kind == "attack"]
    with pytest.raises(IllegalActionError):
        play(s, [attack("f", "t", "sabre", hit)] * 4 + [attack("f", "t", "sabre", hit)])


def test_unskilled_actions_step_the_attribute_die():
    """seed 002, multiple actions; assumption multiple_actions: unskilled, the attribute die is the die that steps."""
    s = scen(open_map(), [fig("f", (0, 1), agi="d6", weapons=("knife",))], [dummy("t", (1, 1))])
    b = play(s, [attack("f", "t", "knife", [5, 1]), attack("f", "t", "knife", [4, 1]),
                 attack("f", "t", "knife", [2])])                    # a d2 cannot reach Easy 3
    assert [sides(r) for r in rolls(b, "attack with knife")] == [[6], [4], [2]]
    assert not [a for a in legal(b) if a.kind == "attack"]


def test_rate_of_fire_still_limits_firearms():
    """seed 002: "a lőfegyvereknél a körönkénti tűzgyorsaság" - the pistol's 3 shots a turn end
    its shooting although the ladder would allow more (assumption rof)."""
    s = scen(open_map(), [fig("g", (0, 1), agi="d6", skills={"guns": "d6", "guns/pistols": "d12+d4"},
                              weapons=("pistol",))], [dummy("t", (5, 1))])
    shot = [3, 6, 1, 1]  # Agility, the skill die's two dice, damage d6
    b = play(s, [attack("g", "t", "pistol", shot), attack("g", "t", "pistol", shot),
                 attack("g", "t", "pistol", [3, 6, 1])])
    assert [sides(r) for r in rolls(b, "attack with pistol")] == [[6, 12, 4], [6, 12, 2], [6, 12]]
    assert econ(b)["shots_left"] == 0
    assert not [a for a in legal(b) if a.kind == "attack" and a.weapon == "pistol"]
    assert who(b, "g").res["ammo"]["pistol"] == 12


def test_a_round_is_about_three_seconds():
    """seed 002, Harcrendszer: "Egy harci kör kb. 3 másodperc"."""
    assert RS.data["round_seconds"] == 3


def test_initiative_is_agility_plus_alertness_plus_an_advantage():
    """seed 002, Harcrendszer 1: "kezdeményezés Fürgeség+Éberség+módosítók (pl. előny)";
    assumption initiative: `initiative_steps` steps the Agility die; ties go to the higher Agility."""
    s = scen(open_map(), [fig("slow", (0, 0), agi="d6", ale="d6"), fig("quick", (0, 2), agi="d6", ale="d6",
                                                                      initiative_steps=1)],
             [fig("tie", (5, 1), agi="d4", ale="d8")], initiative="roll")
    b = play(s, start_dice=[3, 3, 3, 3, 2, 4])
    ini = rolls(b, "initiative")
    assert [(r["actor"], sides(r)) for r in ini] == [("slow", [6, 6]), ("quick", [8, 6]), ("tie", [4, 8])]
    # 6 = 6 = 6: the higher Agility die goes first (assumption initiative_ties)
    assert evs(b, "initiative")[0]["order"] == ["quick", "slow", "tie"]
    b = play(s, start_dice=[3, 3, 4, 3, 2, 3])
    assert evs(b, "initiative")[0]["order"] == ["quick", "slow", "tie"]   # 7, 6, 5


# ---------------------------------------------------------------------------------------
# seed 002: free actions, walking, jogging, running

def test_walking_dropping_an_item_and_dropping_prone_are_free():
    """seed 002: "szabad cselekvés ... a pár szavas beszéd, a földre vetődés, valaminek az
    elejtése és a séta. A séta körönként 4,5m" - none of them steps the next action down."""
    s = scen(open_map(12, 3), [fig("f", (0, 1), skills={"melee_weapons": "d8"}, weapons=("knife", "club"))],
             [dummy("t", (4, 1))])
    b = play(s, [move("f", 3, 1), act("f", "drop", weapon="club")])
    assert evs(b, "move")[0]["metres"] == 4.5 and evs(b, "move")[0]["mode"] == "walk"
    assert econ(b)["actions_used"] == 0 and econ(b)["walk_left_m"] == 0
    assert "club" in b.state.objects[who(b, "f").pos] and "club" not in RS.weapon_slots(who(b, "f"))
    b = play(s, [move("f", 3, 1), act("f", "drop", weapon="club"), attack("f", "t", "knife", [2, 4, 1])])
    assert rolls(b, "attack with knife")[0]["steps"] == 0 and sides(rolls(b, "attack")[0]) == [6, 8]
    b = play(s, [act("f", "drop_prone")])
    assert "prone" in who(b, "f").conditions and econ(b)["actions_used"] == 0


def test_jogging_nine_metres_is_an_action():
    """seed 002: "A kocogás 9m megtételét jelenti, és az már nem számít szabad cselekvésnek"."""
    s = scen(open_map(12, 3), [fig("f", (0, 1), skills={"melee_weapons": "d8"}, weapons=("knife",))],
             [dummy("t", (7, 1))])
    b = play(s, [move("f", 6, 1), attack("f", "t", "knife", [2, 4, 1])])
    assert evs(b, "move")[0]["mode"] == "jog" and evs(b, "move")[0]["metres"] == 9.0
    assert rolls(b, "attack with knife")[0]["steps"] == -1 and sides(rolls(b, "attack")[0]) == [6, 6]
    b = play(s, [move("f", 4, 1), move("f", 6, 1)])  # 6 m then 3 m more: still one action
    assert econ(b)["actions_used"] == 1 and econ(b)["jogged"] == 1


def test_running_adds_agility_and_running_rolls_in_metres_and_minus_two_steps_after():
    """seed 002: "A rohanás 9m+Fürgeség dobás+Atlétika/Futás dobás távolság megtételét
    biztosítja, de utána/mellette -2 kockafokozatos büntetést ad az utána következő
    cselekvésekre"; assumption run: the run is an action of the ladder and its -2 adds to it."""
    runner = fig("r", (0, 1), agi="d8", skills={"athletics": "d4", "athletics/running": "d6",
                                               "melee_weapons": "d10"}, weapons=("knife",))
    s = scen(open_map(16, 3), [runner], [dummy("t", (12, 1))])
    b = play(s, [move("r", 11, 1, [4, 6]), attack("r", "t", "knife", [4, 4, 1])])
    run = rolls(b, "run")[0]
    assert sides(run) == [8, 6] and run["total"] == 10
    assert evs(b, "move")[0]["mode"] == "run" and pos(b, "r") == (11, 1)  # 16.5 m within 9 + 10
    atk = rolls(b, "attack with knife")[0]
    assert atk["steps"] == -3 and sides(atk) == [8, 4]  # d10: ladder -1, run -2
    assert econ(b)["run_penalty"] == -2 and econ(b)["ran"] == 1
    assert not [a for a in legal(b) if a.kind == "move"]  # movement ends with the run


def test_a_short_run_roll_stops_the_runner_on_the_way():
    """seed 002: the run covers 9 m + the rolls, no more (assumption run: it stops on the path)."""
    runner = fig("r", (0, 1), agi="d4", skills={"athletics/running": "d4"})
    s = scen(open_map(16, 3), [runner], [dummy("t", (15, 1))])
    b = play(s, [move("r", 10, 1, [1, 1])])  # 15 m asked, 9 + 2 = 11 m allowed
    assert pos(b, "r") == (7, 1) and evs(b, "move")[0]["metres"] == 10.5
