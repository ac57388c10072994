"""What the table's session tests share: playing two sessions on, decision by decision, that
must decide alike (a session and its resumed save: tests/test_autopilot.py,
tests/test_dice_state.py)."""

from __future__ import annotations

from typing import Any


def play_alike(a: Any, b: Any, decisions: int) -> None:
    """Plan and resolve `decisions` decisions of sessions `a` and `b` (fewer if the fight ends),
    each session its own plan, asserting the plans' actions are the same."""
    for _ in range(decisions):
        if a.state.over:
            break
        pa, pb = a.plan(), b.plan()
        assert pa.action == pb.action
        a.resolve(pa.action)
        b.resolve(pb.action)
