"""Issue #33, the table session: `hint` gives the same plan as the prompt, numbered alike;
`Battle.clone()` is the one way to copy a fight; roles and dice mode change through the
session (the API and the terminal alike)."""

from __future__ import annotations

import pytest

from rules.errors import TacticaError
from tactica.table import Session


def npc_decision(seed: int = 1) -> Session:
    """A duel where the GM plays nobody: every decision is an NPC's."""
    s = Session.new("cortex/duel", seed=seed, npc=["crew", "outlaws"])
    s.begin()
    return s


def plan_json(s: Session, p) -> dict:
    return p.to_json(s.state)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_hint_is_the_plan_shown_at_the_prompt(seed):
    """'`hint` gives the same plan as the prompt (today it copies the policy after `plan()`
    changed it, and renumbers the choices)'."""
    s = npc_decision(seed)
    for _ in range(6):
        shown = plan_json(s, s.plan())
        assert plan_json(s, s.advise()) == shown
        assert plan_json(s, s.advise()) == shown     # asking twice changes nothing
        s.resolve(s.plan().action, by="npc")
        if s.state.over:
            break


def test_hint_before_the_prompt_is_the_plan_the_prompt_then_shows():
    s = npc_decision(4)
    for _ in range(5):
        if s.state.over:
            break
        early = plan_json(s, s.advise())
        assert plan_json(s, s.plan()) == early
        s.resolve(s.plan().action, by="npc")


def test_battle_clone_plays_on_alone():
    s = npc_decision(5)
    b = s.battle
    c = b.clone()
    assert c.state is not b.state and c.events == b.events and c.events is not b.events
    assert c.actions_resolved == b.actions_resolved and c.deciders == b.deciders
    a = c.legal_actions()[0]
    n = len(b.events)
    c.step(a)
    assert len(b.events) == n          # the original did not move
    b2 = b.clone()
    b2.step(a)
    assert b2.events == c.events       # same dice to come: the same fight


def test_roles_and_dice_mode_change_through_the_session(tmp_path):
    s = Session.new("cortex/duel", seed=1, save_path=tmp_path / "s.json")
    s.begin()
    s.set_role("outlaws", "npc", "aggressive")
    assert s.roles["outlaws"].policy == "aggressive" and s.policies["outlaws"].name == "aggressive"
    s.set_role("outlaws", "pc", None)
    assert "outlaws" not in s.policies and s.battle.deciders.get("outlaws") is not None
    with pytest.raises(TacticaError, match="did you mean tactical"):
        s.set_role("crew", "npc", "tacticle")
    with pytest.raises(TacticaError, match="no team"):
        s.set_role("nobody", "pc", None)
    s.set_dice_mode("manual")
    again = Session.resume(tmp_path / "s.json")
    assert again.dice_mode == "manual" and again.roles["outlaws"].role == "pc"


def test_every_change_moves_the_revision_a_front_end_follows():
    """The push stream compares revisions: an undo followed by another action leaves the event
    count, the decision and the history length as they were, but not the revision."""
    s = npc_decision(6)
    seen = [s.revision]
    s.resolve(s.plan().action)
    seen.append(s.revision)
    s.undo()
    seen.append(s.revision)
    s.set_role("outlaws", "npc", "aggressive")
    seen.append(s.revision)
    s.override({"kind": "track", "figure": "jubal", "track": "stun", "value": 1})
    seen.append(s.revision)
    assert seen == sorted(seen) and len(set(seen)) == len(seen)


def test_a_resumed_session_keeps_its_history_undo_and_export(tmp_path):
    """A save file carries the whole fight: resumed, the session has the same history, undoes
    the last action as the original does, and can still export a replay (which needs the
    history from the start)."""
    s = Session.new("cortex/duel", seed=1, npc=["crew", "outlaws"], save_path=tmp_path / "s.json")
    s.begin()
    while len(s.history) < 4 and not s.state.over:
        s.resolve(s.plan().action)
    s.save()
    again = Session.resume(tmp_path / "s.json")
    assert len(s.history) == 4 and not s.state.over and again.history == s.history
    assert not any("no history" in n for n in again.notes)
    assert again.undo() == s.undo()
    assert again.history == s.history and again.decision_key() == s.decision_key()
    assert again.export(tmp_path / "replay.json").exists()
