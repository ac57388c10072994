"""Issue #32: the choices seed 002 gives a defender are its side's decisions (rules/choices.py).

Seed 002 is /work/shared/seeds/002_b3cd129274de58b9.txt (Hungarian; English in
/work/shared/RULES-NOTES.md, "cortex_hu"). Four choices the engine used to make itself are
questions now (docs/cortex_hu.md, Choices): `reaction`, `parry_weapon`, `innate_defence` and
`plot_points`. Each test is a strict forced-dice replay with `questions: ask`: the attack
step carries the dice rolled before the question, the answering step (`choose`) those
rolled after it. Each answers differently from the default (the engine's old pick) and
checks the different outcome, quoting the seed sentence.
"""

from __future__ import annotations

import pytest

from rules.actions import Action
from tests.cortex_hu_setup import (RS, act, attack, end, evs, fencer, fig, open_map, play, rolls, scen, sides,
                                   who)

REACT = ("Ha a köröd vége után még felbukkan egyéb támadó is, akkor az ő támadásukat is megpróbálhatod "
         "elhárítani, de akkor a következő kört már a megfelelő számú kockafokozat büntetéssel fogod kezdeni.")
# "If further attackers turn up after the end of your turn, you may try to ward off their
# attacks too, but then you start your next round with the matching number of steps' penalty."
INNATE = ("Ha figyeled a támadó(ka)t tehetsz egy Fürgeség próbát, aminek az eredménye lesz a védő értéked.")
# "If you watch the attacker(s) you may make an Agility roll, whose result is your defence."
EASY = "Mert akkor Könnyű célpont vagy (célszám: 3) közeli távra."
# "Because then you are an Easy target (Difficulty 3) at close range."
PLOT = "Persze adhatsz bele Plot pontot is, ha gondolod."
# "Of course you may add Plot Points to it too, if you like."
PARRY = "Hárítás: Fürgeség+ szükséges képzettség mint pl. közelharc"
# "Parry: Agility + the skill needed, e.g. Unarmed Combat."


def choose(actor: str, option: str, dice: list[int] = ()) -> dict:
    return act(actor, "choose", dice, option=option)


def questions(b) -> list[dict]:
    return evs(b, "question")


def choices(b) -> list[tuple[str, str, str]]:
    return [(e["actor"], e["key"], e["choice"]) for e in evs(b, "choice")]


# ---------------------------------------------------------------------------------------
# reaction: parry, dodge or innate defence against an attacker after the figure's turn

def _reactor():
    d = fig("d", (1, 1), agi="d6", skills={"athletics/dodge": "d8", "melee_weapons/swords": "d8"},
            weapons=("sabre",), life_points=40)
    return scen(open_map(), [d], [fencer("f", (2, 1))])


def test_the_figure_may_let_an_attacker_after_its_turn_meet_innate_defence_only():
    """seed 002 (REACT): "megpróbálhatod elhárítani" - the defender *may* try to ward off an
    attacker that comes after its turn, at the price of its next turn. The default (assumption
    reactions) parries: its pool (d6 + d8) averages more than innate defence. Answering
    `innate` makes no reaction: the Agility roll is the Difficulty, and its next turn starts
    with no carried-over step."""
    s = _reactor()
    steps = [end("d"), attack("f", "d", "sabre", [2, 1])]                     # attack 3
    default = play(s, steps[:1] + [attack("f", "d", "sabre", [2, 1, 1, 1, 2]), end("f"),
                                   attack("d", "f", "sabre", [1, 1])])
    assert rolls(default, "parry (reaction)", "d") and evs(default, "effect", target="d", carried=1)
    assert rolls(default, "attack with sabre", "d")[0]["steps"] == -1       # the reaction's price
    asked = play(s, steps, questions="ask")
    q = questions(asked)[-1]
    assert (q["actor"], q["key"], q["options"], q["default"]) == ("d", "reaction", ["parry", "dodge", "innate"],
                                                                  "parry")
    b = play(s, steps + [choose("d", "innate"), choose("d", "roll", [1, 2]), end("f"),
                         attack("d", "f", "sabre", [1, 1])], questions="ask")
    assert choices(b) == [("d", "reaction", "innate")]
    assert not rolls(b, "parry (reaction)") and sides(rolls(b, "innate defence", "d")[0]) == [6]
    assert evs(b, "attack", actor="f")[0]["result"] == "hit" and evs(b, "damage", target="d")
    assert not evs(b, "effect", target="d", carried=1)
    assert rolls(b, "attack with sabre", "d")[0]["steps"] == 0              # no step carried over


def test_the_figure_may_dodge_where_the_engine_would_parry():
    """seed 002 (REACT): the reaction is the figure's, parry or dodge ("a kitérés/blokkolás");
    answering `dodge` rolls Agility + Athletics/Dodge where the default parried."""
    s = _reactor()
    b = play(s, [end("d"), attack("f", "d", "sabre", [2, 1]), choose("d", "dodge", [3, 3])], questions="ask")
    assert choices(b) == [("d", "reaction", "dodge")]
    dodge = rolls(b, "dodge (reaction)", "d")
    assert dodge and dodge[0]["check"] == "dodge" and sides(dodge[0]) == [6, 8] and not rolls(b, "parry")
    assert evs(b, "attack", actor="f")[0]["result"] == "miss" and who(b, "d").res["debt"] == 1


# ---------------------------------------------------------------------------------------
# innate defence: roll Agility or stand as Easy 3

def test_a_watching_figure_may_stand_as_easy_three_instead_of_rolling():
    """seed 002, Ösztönös kitérés (INNATE, EASY): rolling Agility is what the watching figure
    *may* do ("tehetsz"); otherwise it is an Easy target, 3. Agility d8 rolls by default
    (assumption innate_decline); answering `easy` takes 3 without a roll, and the attack
    roll of 6 that the default's 7 stopped now hits."""
    t = fig("t", (1, 1), agi="d8", reactions="never", life_points=30)
    s = scen(open_map(), [fencer("f", (0, 1))], [t])
    default = play(s, [attack("f", "t", "sabre", [2, 4, 7])])
    assert evs(default, "attack", actor="f")[0]["result"] == "miss"
    b = play(s, [attack("f", "t", "sabre", [2, 4]), choose("t", "easy", [3])], questions="ask")
    q = questions(b)[0]
    assert (q["key"], q["options"], q["default"]) == ("innate_defence", ["roll", "easy"], "roll")
    assert choices(b) == [("t", "innate_defence", "easy")] and not rolls(b, "innate defence")
    d = evs(b, "defence", actor="t")[0]
    assert (d["mode"], d["difficulty"]) == ("declined innate", 3)
    assert evs(b, "attack", actor="f")[0]["result"] == "hit" and evs(b, "damage", target="t")


def test_a_slow_figure_may_roll_its_agility_all_the_same():
    """seed 002, Ösztönös kitérés (INNATE): the roll is the figure's to make; Agility d4
    stands as Easy 3 by default (its average is below 3: assumption innate_decline), but
    answering `roll` rolls the d4: a 4 stops the attack roll of 3 that Easy 3 let through."""
    t = fig("t", (1, 1), agi="d4", reactions="never", life_points=30)
    s = scen(open_map(), [fencer("f", (0, 1))], [t])
    default = play(s, [attack("f", "t", "sabre", [2, 1, 1])])
    assert evs(default, "attack", actor="f")[0]["result"] == "hit"
    b = play(s, [attack("f", "t", "sabre", [2, 1]), choose("t", "roll", [4])], questions="ask")
    assert questions(b)[0]["default"] == "easy" and choices(b) == [("t", "innate_defence", "roll")]
    assert sides(rolls(b, "innate defence", "t")[0]) == [4]
    assert evs(b, "attack", actor="f")[0]["result"] == "miss" and not evs(b, "damage", target="t")


def test_a_figure_that_never_or_always_declines_is_not_asked():
    """A stat block's `decline_innate: always/never` and `reactions: never` state the
    figure's answer in the scenario: no question is asked then."""
    t = fig("t", (1, 1), agi="d8", reactions="never", decline_innate="never", life_points=30)
    b = play(scen(open_map(), [fencer("f", (0, 1))], [t]), [attack("f", "t", "sabre", [2, 4, 7])],
             questions="ask")
    assert not questions(b) and evs(b, "attack", actor="f")[0]["result"] == "miss"


# ---------------------------------------------------------------------------------------
# Plot Points added to innate defence

def _pp_target():
    t = fig("t", (1, 1), agi="d6", reactions="never", life_points=30, plot_points=3)
    return scen(open_map(), [fencer("f", (0, 1))], [t])


def test_the_figure_may_keep_its_plot_points():
    """seed 002, Ösztönös kitérés (PLOT): Plot Points are added "ha gondolod" (if you like).
    Attack 6 against an innate 4: the default spends 2 (a d4 could make up the 3) and the
    d4's 4 stops the attack; answering `spend_0` keeps all three points and is hit."""
    s = _pp_target()
    default = play(s, [attack("f", "t", "sabre", [2, 4, 4, 4])])
    assert who(default, "t").res["pp"] == 1 and evs(default, "attack", actor="f")[0]["result"] == "miss"
    steps = [attack("f", "t", "sabre", [2, 4]), choose("t", "roll", [4])]
    asked = play(s, steps, questions="ask")
    q = questions(asked)[-1]
    assert (q["key"], q["options"], q["default"]) == ("plot_points", ["spend_0", "spend_1", "spend_2", "spend_3"],
                                                      "spend_2")
    b = play(s, steps + [choose("t", "spend_0", [2])], questions="ask")
    assert choices(b) == [("t", "plot_points", "spend_0")] and not rolls(b, "spends")
    assert who(b, "t").res["pp"] == 3 and evs(b, "attack", actor="f")[0]["result"] == "hit"


def test_the_figure_may_spend_more_plot_points_than_the_fewest():
    """seed 002, Ösztönös kitérés (PLOT): how many points is the figure's choice too:
    `spend_3` rolls a d6 (three points) where the default would spend two (a d4)."""
    s = _pp_target()
    b = play(s, [attack("f", "t", "sabre", [2, 4]), choose("t", "roll", [4]), choose("t", "spend_3", [5])],
             questions="ask")
    pp = rolls(b, "spends 3 Plot Points", "t")
    assert pp and sides(pp[0]) == [6] and pp[0]["check"] == "plot_points" and who(b, "t").res["pp"] == 0
    d = evs(b, "defence", actor="t")[0]
    assert d["difficulty"] == 9 and evs(b, "attack", actor="f")[0]["result"] == "miss"


# ---------------------------------------------------------------------------------------
# the parrying weapon

def _brawler():
    d = fig("d", (1, 1), agi="d8", skills={"unarmed_combat": "d10", "melee_weapons/swords": "d6"},
            weapons=("sabre",), reactions="never", life_points=30)
    return scen(open_map(), [d], [fencer("f", (2, 1))])


def test_the_figure_chooses_the_weapon_it_parries_with():
    """seed 002, Hárítás (PARRY): the parry is Agility + the skill *needed* - the skill of
    what the figure parries with. The default is the best melee skill (assumption parry):
    bare hands, Unarmed Combat d10, and bare-handed against a sabre the parrier still takes
    its d4 ("a fegyver alapsebzését akkor is megkapod"). Parrying with its sabre instead
    (Melee Weapons/Swords d6) the same 6 stops the attack and costs nothing."""
    s = _brawler()
    steps = [act("d", "defend", option="parry"), end("d")]
    default = play(s, steps + [attack("f", "d", "sabre", [2, 2, 3, 3, 3])])
    assert sides(rolls(default, "parry (prepared)", "d")[0]) == [8, 10]
    assert evs(default, "attack", actor="f")[0]["result"] == "miss"
    assert evs(default, "damage", target="d")[0]["wound"] == 3             # the sabre's die all the same
    b = play(s, steps + [attack("f", "d", "sabre", [2, 2]), choose("d", "sabre", [3, 3])], questions="ask")
    q = questions(b)[0]
    assert (q["key"], q["options"], q["default"]) == ("parry_weapon", ["unarmed", "sabre"], "unarmed")
    assert choices(b) == [("d", "parry_weapon", "sabre")]
    p = rolls(b, "parry (prepared)", "d")[0]
    assert sides(p) == [8, 6] and "Swords" in p["pool"]
    assert evs(b, "attack", actor="f")[0]["result"] == "miss" and not evs(b, "damage", target="d")


# ---------------------------------------------------------------------------------------
# the vocabulary, the actions that ask, and the answers in the environments

def test_every_answer_is_in_the_fixed_vocabulary():
    """`answers` holds every answer of the four questions: the data's hand-to-hand weapons
    (parry_weapon) and spend_0 up to the data's max_spend (plot_points)."""
    melee = {n for n, w in RS.data["weapons"].items() if w["kind"] == "melee"}
    spend = {f"spend_{n}" for n in range(int(RS.data["plot_points"]["max_spend"]) + 1)}
    assert melee | spend | {"parry", "dodge", "innate", "roll", "easy"} == set(RS.answers)
    assert len(set(RS.answers)) == len(RS.answers)
    assert RS.may_ask(None, Action("attack", target="x", weapon="sabre"))
    assert RS.may_ask(None, Action("grapple", target="x"))
    assert not RS.may_ask(None, Action("grapple", target="x", option="escape"))
    assert not RS.may_ask(None, Action("move", cell=0)) and not RS.may_ask(None, Action("feint", target="x"))


def test_a_grab_asks_the_defender_too():
    """Megragadás is resolved against the target's defence as an unarmed attack, so the
    innate defence question is asked there as well (answer `easy`: the grab of 4 holds)."""
    w = fig("w", (0, 1), skills={"unarmed_combat": "d8"}, reactions="never")
    t = fig("t", (1, 1), agi="d8", reactions="never", life_points=30)
    b = play(scen(open_map(), [w], [t]), [act("w", "grapple", [2, 2], target="t"), choose("t", "easy")],
             questions="ask")
    assert choices(b) == [("t", "innate_defence", "easy")] and "grappled" in who(b, "t").conditions


@pytest.mark.parametrize("seed", [0])
def test_the_env_agent_answers_cortex_hu_questions(seed):
    """SkirmishEnv asks the agent's figures: when one is asked, the mask offers exactly
    the answers of the question (in the answer block); answering goes on with the fight."""
    from envs.skirmish import SkirmishEnv
    env = SkirmishEnv(scenario="cortex_hu/csarda", opponent="aggressive")
    lay = env.layout
    assert lay.answer_templates == RS.answers
    obs, info = env.reset(seed=seed)
    asked = 0
    for _ in range(400):
        q = env.battle.question
        legal = [int(i) for i in info["action_mask"].nonzero()[0]]
        if q is not None:
            asked += 1
            assert sorted(legal) == sorted(lay.off_answer + RS.answers.index(o) for o in q.options)
            pick = lay.off_answer + RS.answers.index(q.options[-1])
        else:
            attacks = [i for i in legal if env.describe_action(i).startswith("attack")]
            pick = attacks[0] if attacks else legal[-1]
        obs, reward, term, trunc, info = env.step(pick)
        assert not info.get("illegal_action")
        if term or trunc:
            obs, info = env.reset(seed=seed + 1 + asked)
        if asked >= 3:
            break
    assert asked >= 3
