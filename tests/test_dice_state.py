"""`Dice.get_state(compact=True)`: what a save file and the API's state hold of the dice. The
generator is wound back over the numbers drawn but not used, so the buffer is empty and the
same numbers come again (a table save held 2,048 numbers per undo step: 90% of the file)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from rules.dice import Dice
from tactica.table import Session


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


def _twins(tmp_path, seed: int, steps: int):
    """A session played `steps` decisions without stopping, and the same one saved and resumed."""
    path = tmp_path / "s.json"
    a = Session.new("cortex/warehouse", seed=seed)
    b = Session.new("cortex/warehouse", seed=seed, save_path=path)
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


@pytest.mark.xfail(strict=True, reason="found 2026-12-07: a resumed NPC policy has its turn memory back "
                   "(history commits) but not its memory of the fight (tactical's seen threats, offence, danger "
                   "by cell), so it may decide otherwise; cortex/warehouse seed 3 after 12 decisions: Heavy "
                   "drops prone unstopped, moves resumed (as before the dice change: the same with 7219830)")
def test_a_resumed_npc_decides_as_the_one_that_never_stopped(tmp_path):
    a, r, _ = _twins(tmp_path, 3, 12)
    for _ in range(6):
        pa, pr = a.plan(), r.plan()
        assert pa.action == pr.action
        a.resolve(pa.action)
        r.resolve(pr.action)
