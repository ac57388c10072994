"""What an asked figure is told before it answers (`Battle.before_question`).

A question stops the action: the fight goes back to before it and the action is resolved again
from the start once answered (rules/choices.py), so the fight's log holds none of its events yet.
A GM asked "pass out, or stay conscious in shock?" was shown no attack, no damage and no failed
save. `before_question` plays the action on a copy up to the question; these tests check, over
random seeded fights of every ruleset with every team asked, that what it tells is exactly how the
answered action's events begin, and that telling it changes nothing in the fight.
"""

from __future__ import annotations

import pytest

from agents.base import make_policy
from rules.battle import Battle
from rules.choices import ASK
from rules.dice import Dice
from rules.scenario import load_scenario, new_battle

SCENARIOS = ["cortex/warehouse", "cortex_hu/csarda", "metalface/scrapyard", "cybergeneration/mall_raid"]


def _plain(evs: list[dict]) -> list[dict]:
    return [{k: v for k, v in e.items() if k not in ("round", "step")} for e in evs]


#: what names an event: a told event has these as the log will; its other fields are as they stood
#: at the question (an attack roll's difficulty waits for the defence asked about, and cortex_hu's
#: innate defence is raised by the Plot Points the question asks for)
WHO = ("type", "actor", "target", "purpose", "check", "dice", "weapon", "result", "condition", "on", "key", "choice")


def _begins(told: list[dict], final: list[dict], where: tuple) -> None:
    """Each event told is in `final`, in the same order. Events built after the question may come
    between them (cortex_hu tells a Plot Point roll before the defence it raises); the first event
    told is the action's first."""
    def same(t: dict, f: dict) -> bool:
        return all(t.get(k) == f.get(k) for k in WHO if k in t)

    j = 0
    for t in told:
        while j < len(final) and not same(t, final[j]):
            j += 1
        assert j < len(final), (where, t, told, final)
        j += 1
    if told:
        assert same(told[0], final[0]), (where, told, final)


def _fight(scenario: str, seed: int, look: bool) -> tuple[Battle, int, int]:
    """A random fight, every team asked; (battle, questions met, questions checked)."""
    spec, _ = load_scenario(scenario)
    b = new_battle(spec, Dice(seed))
    b.deciders = {t: ASK for t in b.state.teams}
    b.start()
    pols = {t: make_policy("random", seed * 7 + i) for i, t in enumerate(b.state.teams)}
    told: list[list[dict]] = []      # what each open question of the action being answered was told
    asked = checked = 0
    for _ in range(1500):
        if b.state.over:
            break
        actor = b.state.actor
        if b.question is not None:
            asked += 1
            if look:
                told.append(b.before_question())
        out = b.step(pols[actor.team].act(b.state, actor), check=False)
        if told and (not out or out[-1].get("type") != "question"):
            final = _plain(out)
            for t in told:           # the answered action's events begin with what each question was told
                _begins(_plain(t), final, (scenario, seed))
                checked += 1
            told = []
    return b, asked, checked


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_what_a_question_tells_is_how_the_answered_action_begins(scenario):
    asked = checked = 0
    for seed in range(6):
        _, a, c = _fight(scenario, seed, look=True)
        asked += a
        checked += c
    assert asked > 0, f"no question in 6 random fights of {scenario}"
    assert checked >= asked - 6      # every question but one cut short by the action limit


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_telling_changes_nothing_in_the_fight(scenario):
    a, asked, _ = _fight(scenario, 3, look=True)
    b, _, _ = _fight(scenario, 3, look=False)
    assert asked > 0
    assert a.events == b.events and a.dice.record == b.dice.record


def test_the_stun_choice_is_told_the_hit_the_damage_and_the_failed_save():
    """seed 004's failed stun save: "pass out, or stay conscious in shock"; the GM sees why."""
    from tactica.table import Session
    s = Session.new("cybergeneration/mall_raid", seed=0)
    s.begin()
    evs = s.resolve(s.plan().action)
    assert [e["type"] for e in evs] == ["question"] and s.state.pending.question.key == "stun_fail"
    told = s.battle.before_question()
    kinds = [e["type"] for e in told]
    assert kinds[:2] == ["roll", "attack"] and "damage" in kinds and told[-1]["type"] == "roll"
    assert told[-1]["check"] and "stun" in told[-1]["purpose"] and told[-1]["success"] is False
    assert s.battle.events[-1]["type"] == "question"     # the log is untouched
    assert s.battle.before_question() == told             # and telling again tells the same


def test_the_table_tells_the_action_before_asking_and_again_on_resume(tmp_path):
    """At the autopilot the stun choice came right after "> Trooper 2: attack Pixel": no roll, no
    hit, no damage. Now they are told first, and again when a fight saved at the question resumes."""
    import io

    from rich.console import Console

    from tactica.table import Session, Terminal

    def run(s: Session, feed: list[str]) -> str:
        buf = io.StringIO()
        Terminal(s, Console(file=buf, width=400, color_system=None), lambda p: feed.pop(0) if feed else "quit").run()
        return buf.getvalue()

    s = Session.new("cybergeneration/mall_raid", npc=["cswat=tactical"], seed=0, save_path=tmp_path / "s.json")
    out = run(s, [""])
    asked = out.index("Pixel must choose stun fail")
    told = out[out.index("> Trooper 2: attack Pixel"):asked]
    for words in ("Trooper 2 rolls attack with assault rifle", "hit by 6", "Pixel takes 4 Wounds",
                  "Pixel rolls stun save", "failure"):
        assert words in told, (words, told)
    assert "Answer: stun fail" in out[asked:]
    again = run(Session.resume(tmp_path / "s.json"), [])
    assert again.index("Pixel rolls stun save") < again.index("Pixel must choose stun fail")


def test_the_answer_does_not_print_what_the_question_already_told(tmp_path):
    """The answered action is resolved again from the start, so its events were printed twice: "Pixel takes 4
    Wounds" before the stun choice and again after the answer (at cortex_hu/les, "Imre takes the all-out attack
    stance." twice). What was told before the question is printed once; what the answer adds is printed."""
    import io

    from rich.console import Console

    from tactica.table import Session, Terminal

    s = Session.new("cybergeneration/mall_raid", npc=["cswat=tactical"], seed=0, save_path=tmp_path / "s.json")
    buf = io.StringIO()
    feed = ["", "choose pass_out", "quit"]
    Terminal(s, Console(file=buf, width=400, color_system=None), lambda p: feed.pop(0) if feed else "quit").run()
    out = buf.getvalue()
    asked = out.index("Pixel must choose stun fail")
    answered = out.index("> Pixel: ", asked)
    assert "Pixel takes 4 Wounds" in out[:asked] and "Pixel rolls stun save" in out[:asked]
    after = out[answered:]
    assert "Pixel takes 4 Wounds" not in after and "Pixel rolls stun save" not in after, after[:2000]
    assert "Pixel goes down" in after or "unconscious" in after, after[:2000]


def test_enter_at_a_pc_prompt_says_what_is_wanted(tmp_path):
    """Enter accepts an NPC's plan; at a PC's prompt (here an open question) it was silently
    ignored, prompt after prompt. It now says what the prompt wants."""
    import io

    from rich.console import Console

    from tactica.table import Session, Terminal

    s = Session.new("cybergeneration/mall_raid", npc=["cswat=tactical"], seed=0, save_path=tmp_path / "s.json")
    buf = io.StringIO()
    feed = ["", ""]
    Terminal(s, Console(file=buf, width=400, color_system=None), lambda p: feed.pop(0) if feed else "quit").run()
    out = buf.getvalue()
    assert "pick a number from the list or type an action" in out and "Pixel must answer first" in out


def test_a_replay_that_stops_at_a_question_tells_its_action_first(tmp_path):
    """`export` at an open question, then `tactica replay` of it: the narration ended with the
    question alone; the action's roll, hit, damage and failed save now come before it."""
    from typer.testing import CliRunner

    from tactica.cli import app
    from tactica.table import Session

    s = Session.new("cybergeneration/mall_raid", npc=["cswat=tactical"], seed=0, save_path=tmp_path / "s.json")
    s.begin()
    s.resolve(s.plan().action)
    p = s.export(tmp_path / "at-question.yaml")
    r = CliRunner().invoke(app, ["replay", str(p)])
    assert r.exit_code == 0, r.output
    out = r.output
    assert out.index("rolls attack with assault rifle") < out.index("takes 4 Wounds") \
        < out.index("rolls stun save") < out.index("must choose stun fail")
    r = CliRunner().invoke(app, ["validate", str(p)])
    assert "(1 step)" in r.output
