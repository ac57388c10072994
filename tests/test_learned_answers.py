"""A learned network answers the rules' questions itself wherever it plays (rules/choices.py,
`decider_for`): in `Battle.run` (evaluate, simulate, difficulty), as an env's opponent and as a
table session's NPC, its team's questions go out as decisions and the network answers them
through its answer block, as it learned to in the env. Before, outside the env, every question
took the default answer (`Policy.choose`).

metalface's `face_turn` (data.yaml, assumption front_arc: "the figure chooses how far" it turns
before attacking a target outside its front arc; seed 003: "Turning ... counts as one meter per
90 degrees") is the question where the shipped network's answer differs from the default.
"""

from __future__ import annotations

from agents.learned import NumpyPolicy
from envs.generators import generate_scenario
from evaluation.simulate import play_fight
from rules.choices import ASK, decider_for
from rules.scenario import load_scenario


def _fight(ruleset: str, i: int, monkeypatch=None, defaults: bool = False) -> tuple[list[dict], object]:
    if defaults:   # the old behaviour: the network's team takes every default
        monkeypatch.setattr(NumpyPolicy, "asks", lambda self, state: False)
    spec = load_scenario(generate_scenario(ruleset, 1_000_000 + i, mirrored=True))[0]
    evs: list[dict] = []
    r = play_fight(spec, {"red": "ppo", "blue": "tactical"}, 1, i, on_event=evs.append, record=True)
    return evs, r


def _answer(evs: list[dict], key: str, figure: str) -> tuple[dict, dict]:
    q = next(e for e in evs if e["type"] == "question" and e["key"] == key and e["actor"] == figure)
    c = next(e for e in evs[evs.index(q):] if e["type"] == "choice" and e["key"] == key)
    return q, c


def test_the_network_answers_a_question_its_own_way_in_a_fight(monkeypatch):
    """Held-out metalface map 10, dice seed 1: red3 (the network's) attacks blue2 outside its front
    arc in round 8. The default faces blue2 (s); the network turns only to sw (the nearer facing
    that brings blue2 into the arc). With the network's answers taken away the figure faces s."""
    evs, _ = _fight("metalface", 10)
    q, c = _answer(evs, "face_turn", "red3")
    assert (q["default"], q["round"], c["choice"]) == ("s", 8, "sw")
    evs, _ = _fight("metalface", 10, monkeypatch, defaults=True)
    assert not any(e["type"] == "question" for e in evs)      # answered at once, nothing asked
    assert next(e for e in evs if e["type"] == "choice" and e["key"] == "face_turn"
                and e["actor"] == "red3")["choice"] == "s"


def test_asking_the_network_changes_nothing_where_it_answers_as_the_default(monkeypatch):
    """The question going out puts the action back and resolves it again with the same dice, so
    a fight where the network answers every question as the default ends exactly as before."""
    asked, ends = 0, []
    for i in range(4):
        evs, r = _fight("cortex", i)
        asked += sum(e["type"] == "question" and e["actor"].startswith("red") for e in evs)
        ends.append((r.winner, r.rounds, r.dead, sorted(r.damage_taken.items())))
    assert asked >= 5
    with monkeypatch.context() as m:
        before = []
        for i in range(4):
            _, r = _fight("cortex", i, m, defaults=True)
            before.append((r.winner, r.rounds, r.dead, sorted(r.damage_taken.items())))
    assert ends == before


def test_who_asks():
    """A network with an answer block asks (its team's entry is ASK); scripted players answer
    at once or take the default; `best` and a behaviour book follow the player they wrap."""
    from agents.base import make_policy
    from agents.behaved import BehavedPolicy

    from rules.dice import Dice
    from rules.scenario import new_battle

    spec = load_scenario(generate_scenario("metalface", 1_000_000, mirrored=True))[0]
    s = new_battle(spec, Dice(1)).state
    assert decider_for(make_policy("ppo", 0), s) == ASK
    assert decider_for(make_policy("best", 0), s) == ASK          # metalface's best is the network
    assert decider_for(BehavedPolicy(make_policy("ppo", 0), {"teams": {}}), s) == ASK
    assert decider_for(make_policy("tactical", 0), s) is None
    rnd = make_policy("random", 0)
    assert decider_for(rnd, s) is rnd


def test_a_network_opponent_answers_its_questions_in_the_env(monkeypatch):
    """SkirmishEnv with the shipped network as the opponent: the opponent's team asks, and the
    env plays on through the network's answers (its questions never reach the agent)."""
    import numpy as np
    from envs.skirmish import SkirmishEnv

    answers = []
    act = NumpyPolicy.act

    def spy(self, state, actor):
        a = act(self, state, actor)
        if state.pending is not None:
            answers.append((actor.team, a.kind))
        return a

    monkeypatch.setattr(NumpyPolicy, "act", spy)
    env = SkirmishEnv(ruleset="cortex", scenario="generated", opponent="ppo")
    rng = np.random.default_rng(0)
    for ep in range(6):
        obs, info = env.reset(seed=ep)
        opp = [t for t in env.battle.state.teams if t != env.agent_team][0]
        assert env.battle.deciders[opp] == ASK
        done = False
        while not done:
            assert env.battle.question is None or env.battle.state.actor.team == env.agent_team
            legal = np.flatnonzero(info["action_mask"])
            obs, _, term, trunc, info = env.step(int(rng.choice(legal)))
            done = term or trunc
        assert all(t == opp and k == "choose" for t, k in answers)
    env.close()
    assert len(answers) >= 1


def test_a_table_npc_played_by_the_network_answers_as_a_decision():
    """At the table an NPC team the network plays asks its questions: each is a decision of the
    figure asked, planned by the network (a `choose` plan), resolved and kept in the history."""
    from tactica.table import Session

    doc = generate_scenario("metalface", 1_000_010, mirrored=True)
    s = Session.new(doc, seed=1)
    s.set_role("red", "npc", "ppo")
    s.set_role("blue", "npc", "tactical")
    assert s.battle.deciders == {"red": ASK}
    s.begin()
    chosen = 0
    for _ in range(3000):
        if s.state.over:
            break
        p = s.plan()
        if s.battle.question is not None:
            assert s.state.actor.team == "red" and p.action.kind == "choose"
            chosen += 1
        s.resolve(p.action, by="npc")
    assert s.state.over and chosen >= 1
    assert sum(h["action"]["type"] == "choose" for h in s.history) == chosen
