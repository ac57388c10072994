"""Choices the seeds give a figure are the figure's decisions (issue 32, rules/choices.py).

Each test quotes the seed 000 sentence. With `questions: ask` a replay answers each choice
as a step of the figure asked; without, the default (the engine's choice before #32) holds.
"""

from __future__ import annotations

import json

import pytest

from rules.actions import Action
from rules.battle import Battle
from rules.choices import ASK
from rules.dice import Dice
from rules.errors import IllegalActionError
from rules.scenario import load_scenario, new_battle
from rules.serialize import battle_from_dict, battle_to_dict
from tests.cortex_seed000_setup import _ko_scene, act, atk, evs, fig, only, play, pos, rolls, scen, who

HARMS_WAY = ("seed 000, Getting out of Harm's Way: 'The character moves 5 feet away from the blast on a "
             "success, 10 feet on an extraordinary success, and may choose to fall prone.'")


def _blast_scene() -> dict:
    """A grenadier throws at wash on an open 1.5 m map; book stands diagonally next to wash."""
    crew = [fig("wash", (5, 3), life_points=40), fig("book", (6, 4), agi="d8", ale="d8", life_points=40)]
    return scen(["." * 12] * 7, [{"id": "grenadier", "template": "grenadier", "at": [0, 3]}], crew, cell_m=1.5)


# throw 4 + 3 = 7 hits wash's cell (4 dice of d6 blast); wash fails harm's way (1 + 1) and
# takes 4d6 = 4; book succeeds (5 + 4 = 9 vs 7, by 2: 5 ft) and lands out of the blast
THROW, WASH, BOOK = [4, 3], [1, 1, 1, 1, 1, 1], [5, 4]


def test_a_five_foot_leap_is_one_square_along_a_row_or_column() -> None:
    """"moves 5 feet away": on 5 ft (1.5 m) cells the leap is one square, 1.5 m, never the
    7 ft (2.1 m) diagonal step the engine took before #32."""
    b = play(_blast_scene(), [atk("grenadier", "wash", "frag_grenade", dice=THROW + WASH + BOOK)])
    leap = only(evs(b, "move", actor="book"))
    assert leap["mode"] == "leap" and leap["metres"] == pytest.approx(1.5)
    assert pos(b, "book") == (7, 4)            # east: the default, the farther of east and south
    assert who(b, "book").res["wound"] == 0 and "prone" not in who(b, "book").conditions


def test_the_leaper_chooses_the_direction_and_whether_to_fall_prone() -> None:
    """HARMS_WAY: the direction is the figure's, among those that lead away from the blast,
    and so is falling prone."""
    steps = [atk("grenadier", "wash", "frag_grenade", dice=THROW),
             act("wash", "choose", option="leap", dice=WASH),
             act("book", "choose", option="leap", dice=BOOK)]
    b = play(_blast_scene(), steps, questions="ask")
    q = b.question
    assert q.figure == "book" and q.key == "leap_direction" and set(q.options) == {"e", "s"}
    with pytest.raises(IllegalActionError):
        b.step(Action("choose", option="n"))         # toward the blast: not offered
    b = play(_blast_scene(), steps + [act("book", "choose", option="s"), act("book", "choose", option="prone")],
             questions="ask")
    assert pos(b, "book") == (6, 5) and "prone" in who(b, "book").conditions
    assert [e["key"] for e in evs(b, "choice", actor="book")] == ["harms_way", "leap_direction", "fall_prone"]
    assert b.state.actor.id == "grenadier" and b.question is None


def test_a_figure_may_stay_put_and_take_the_blast() -> None:
    """seed 000: "A character can roll Agility + Alertness ... to leap away": can, not must.
    Staying costs no action (no reaction debt) and rolls nothing."""
    steps = [atk("grenadier", "wash", "frag_grenade", dice=THROW),
             act("wash", "choose", option="stay", dice=[1, 1, 1, 1]),
             act("book", "choose", option="stay", dice=[2, 2, 2, 2])]
    b = play(_blast_scene(), steps, questions="ask")
    assert not rolls(b, "harm's way")
    assert who(b, "wash").res["reaction_debt"] == 0 and who(b, "book").res["wound"] > 0
    assert pos(b, "book") == (6, 4)


def test_extraordinary_hit_bypass_or_special_effect_is_the_attackers_choice() -> None:
    """seed 000, Extraordinary Success in Combat: "the attacker may choose to bypass the
    victim's body armor instead of inflicting a special effect"."""
    s = _ko_scene(str_="d12", armour="tactical_vest")
    hit = atk("p", "t", "unarmed", dice=[12, 6])         # 18 vs Easy 3: extraordinary
    b = play(s, [hit], questions="ask")
    assert b.question.key == "extraordinary_hit" and b.question.figure == "p"
    assert b.question.default == "bypass_armour"
    bypass = play(s, [hit, act("p", "choose", option="bypass_armour", dice=[2])], questions="ask")
    effect = play(s, [hit, act("p", "choose", option="special_effect", dice=[2, 3, 3])], questions="ask")
    assert not only(evs(bypass, "damage")).get("absorbed")
    assert not rolls(bypass, "Endurance vs special effect")
    assert only(evs(effect, "damage")).get("absorbed")
    assert rolls(effect, "Endurance vs special effect")


def test_a_question_survives_save_and_load_and_resolves_the_same() -> None:
    """A GM's fight never loses an open question: saved mid-question, loaded, answered, it
    plays exactly as the fight that was never saved (dice included)."""
    doc = _blast_scene()
    spec, _ = load_scenario(doc)

    def start() -> Battle:
        b = new_battle(spec, Dice(7))
        b.deciders = {t: ASK for t in b.state.teams}
        b.start()
        b.step(Action("attack", target="wash", weapon="frag_grenade"))
        return b

    a = start()
    assert a.question is not None and a.question.figure == "wash"
    saved = json.loads(json.dumps(battle_to_dict(a, doc)))
    b = battle_from_dict(saved)
    b.deciders = {t: ASK for t in b.state.teams}
    for x in (a, b):
        while x.question is not None:
            x.step(Action("choose", option=x.question.default))
    assert b.events == a.events
    assert [c.res["wound"] for c in a.state.combatants] == [c.res["wound"] for c in b.state.combatants]


def test_policies_answer_at_once_and_random_answers_at_random() -> None:
    """A policy in `Battle.deciders` answers without a step; the default policy answer is
    the engine's own choice (so scripted fights keep their play)."""
    from agents.base import make_policy
    spec, _ = load_scenario(_blast_scene())
    seen = []

    class Spy:
        def choose(self, state, q):
            seen.append(q.key)
            return "stay"

    b = new_battle(spec, Dice(3))
    b.deciders = {"b": Spy()}
    b.start()
    b.dice.force(THROW)
    b.step(Action("attack", target="wash", weapon="frag_grenade"))
    assert b.question is None and seen[:2] == ["harms_way", "harms_way"]
    assert not rolls(b, "harm's way")
    r = make_policy("random", 1)
    answers = {r.choose(b.state, type("Q", (), {"options": ("a", "b", "c"), "default": "a"})()) for _ in range(60)}
    assert answers == {"a", "b", "c"}


def test_a_figure_that_is_asked_acts_before_the_turn_goes_on() -> None:
    """While a question is open the asked figure is the acting one, its only legal actions
    are the answers, and the turn owner's other actions are refused."""
    b = play(_blast_scene(), [atk("grenadier", "wash", "frag_grenade", dice=THROW)], questions="ask")
    assert b.state.actor.id == "wash" and b.state.turn_owner.id == "grenadier"
    assert b.legal_actions() == [Action("choose", option="leap"), Action("choose", option="stay")]
    with pytest.raises(IllegalActionError):
        b.step(Action("end_turn"))
    assert [e["type"] for e in b.events][-1] == "question"


def test_the_env_agent_answers_its_figures_choices_from_the_answer_block() -> None:
    """The environments' action space holds the answers (a block after the ally options),
    and when the rules ask one of the agent's figures, the mask offers only the answers."""
    from agents.base import Policy
    from envs.skirmish import SkirmishEnv

    class Thrower(Policy):
        name = "thrower"

        def act(self, state, actor):
            throw = Action("attack", target="wash", weapon="frag_grenade")
            legal = self.ruleset(state).legal_actions(state)
            return throw if throw in legal else Action("end_turn")

    env = SkirmishEnv(scenario=_blast_scene(), opponent=Thrower(0), agent_team="b")
    lay = env.layout
    assert lay.answer_templates[:2] == ("leap", "stay") and lay.n_actions == lay.off_answer + len(lay.answer_templates)
    for seed in range(40):
        obs, info = env.reset(seed=seed)
        if info["actor"] == "wash" and env.battle.question is not None:
            break
    else:
        pytest.fail("the grenade never asked wash in 40 seeds")
    legal = set(map(int, info["action_mask"].nonzero()[0]))
    assert legal == {lay.off_answer, lay.off_answer + 1}
    assert env.describe_action(lay.off_answer) == "answer leap"
    obs, reward, term, trunc, info = env.step(lay.off_answer + 1)     # stay
    assert not info.get("illegal_action")
    assert env.battle.state.by_id["wash"].res["reaction_debt"] == 0    # stayed: no leap, no action spent
    assert info["actor"] == "book" and env.battle.question.key == "harms_way"


def test_the_gm_answers_the_choices_of_the_figures_the_gm_plays() -> None:
    """At the autopilot the GM's figures' choices are the GM's: the numbered list holds the
    answers and `choose stay` picks one; the NPCs' take their policy's default."""
    from tactica.table import Session, command_for, parse_command

    doc = _blast_scene()
    doc["teams"][1]["pc"] = True
    s = Session.new(doc, seed=3)
    s.begin()
    s.battle.dice.force(THROW)
    s.resolve(Action("attack", target="wash", weapon="frag_grenade"))
    assert s.state.actor.id == "wash" and s.battle.question.key == "harms_way"
    legal = s.legal()
    assert [command_for(s.state, a) for a in legal] == ["choose leap", "choose stay"]
    s.resolve(parse_command("choose stay", s.state, legal).action)
    assert s.battle.question.figure == "book"
    assert s.state.by_id["wash"].res["reaction_debt"] == 0
