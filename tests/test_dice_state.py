"""`Dice.get_state(compact=True)`: what a save file and the API's state hold of the dice. The
generator is wound back over the numbers drawn but not used, so the buffer is empty and the
same numbers come again (a table save held 2,048 numbers per undo step: 90% of the file)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from rules.dice import Dice
from tactica.table import Session
from tests.session_setup import play_alike


def _rolls(d: Dice, n: int) -> list[int]:
    return [d.roll((4, 6, 8, 10, 12, 20, 100)[i % 7]) for i in range(n)]


def test_a_compact_state_rolls_the_same_numbers_past_the_next_refill():
    for used in (1, 700, 2047, 2048, 2049):
        d = Dice(11)
        _rolls(d, used)
        full, compact = d.get_state(), d.get_state(compact=True)
        assert compact["buf"] == [] and (full["buf"] or used % 2048 == 0)
        a, b, c = Dice(0), Dice(0), Dice(0)
        a.set_state(json.loads(json.dumps(full)))
        b.set_state(json.loads(json.dumps(compact)))
        c.set_state(d.get_state(compact=True))
        assert _rolls(a, 5000) == _rolls(b, 5000) == _rolls(c, 5000) == _rolls(d, 5000)


def test_a_generator_that_cannot_be_wound_back_keeps_its_buffer():
    d = Dice(np.random.Generator(np.random.MT19937(3)))   # no `advance`
    _rolls(d, 10)
    st = d.get_state(compact=True)
    assert len(st["buf"]) == 2048 - 10
    assert json.dumps(st, default=lambda o: o.tolist()) == json.dumps(d.get_state(), default=lambda o: o.tolist())


def _twins(tmp_path, seed: int, steps: int, npc: str = "best"):
    """A session played `steps` decisions without stopping, and the same one saved and resumed."""
    path = tmp_path / "s.json"
    a = Session.new("cortex/warehouse", seed=seed, npc=[f"syndicate={npc}"])
    b = Session.new("cortex/warehouse", seed=seed, save_path=path, npc=[f"syndicate={npc}"])
    a.begin(None)
    b.begin(None)
    for _ in range(steps):
        a.resolve(a.plan().action)
        b.resolve(b.plan().action)
    return a, Session.resume(path), json.loads(path.read_text())


def test_a_table_save_holds_no_dice_buffers(tmp_path):
    """The save and each of its undo steps hold the dice wound back; resumed, the fight and its dice
    are where the one that never stopped is, and the same action rolls the same dice."""
    a, r, d = _twins(tmp_path, 3, 12)
    assert d["dice"]["buf"] == [] and d["session"]["undo"]
    assert all(u["state"]["dice"]["buf"] == [] for u in d["session"]["undo"])
    assert r.battle.dice.get_state(compact=True) == a.battle.dice.get_state(compact=True)
    act = a.plan().action
    assert a.resolve(act) == r.resolve(act)


@pytest.mark.parametrize("seed,steps,npc", [(3, 12, "best"), (4, 18, "tactical"), (4, 12, "planner")])
def test_a_resumed_npc_decides_as_the_one_that_never_stopped(tmp_path, seed, steps, npc):
    """Found 2026-12-07: a resumed NPC had its generator and its turn memory back, not its memory of the
    fight (tactical's threats seen, offence, danger by cell), and could decide otherwise: seed 3 after 12
    decisions, Heavy dropped prone unstopped and moved resumed. The resumed session plays its history
    again to rebuild that memory (tactica/table/memory.py)."""
    a, r, d = _twins(tmp_path, seed, steps, npc)
    assert any(h.get("planned") for h in d["session"]["history"])
    play_alike(a, r, 8)


def test_a_history_that_cannot_be_played_again_leaves_the_policies_fresh(tmp_path):
    """A GM override in the history (or a history that does not end where the save does): the
    resumed session's policies start afresh, as before, and the session resumes."""
    from tactica.table.memory import replayed_policies

    path = tmp_path / "s.json"
    s = Session.new("cortex/warehouse", seed=2, save_path=path)
    s.begin(None)
    for _ in range(3):
        s.resolve(s.plan().action)
    assert replayed_policies(Session.resume(path)) is not None
    s.override({"kind": "track", "figure": "zoe", "track": "wound", "value": 3})
    r = Session.resume(path)
    assert replayed_policies(r) is None and r.plan().action is not None
    d = json.loads(path.read_text())
    d["session"]["history"] = [h for h in d["session"]["history"] if h.get("override") is None]
    h = next(h for h in d["session"]["history"] if h["dice"])
    h["dice"] = [1] * len(h["dice"])      # played again, the fight does not end where the save's does
    path.write_text(json.dumps(d))
    r = Session.resume(path)
    assert replayed_policies(r) is None and r.plan().action is not None
