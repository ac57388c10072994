"""Replay and lookup helpers that the rules tests of every ruleset share (tests/*_setup.py
import them): inline maps (`open_map`), replay steps (`step`, `end`, `move`, `act`), and
event and state lookups on a finished replay (`evs`, `rolls`, `sides`, `who`, `pos`, `cell`,
`legal`, `only`)."""

from __future__ import annotations

from typing import Any

from rules.actions import Action


def open_map(w: int = 12, h: int = 3) -> list[str]:
    return ["." * w] * h


def step(actor: str, action: Any, dice: list[int] = ()) -> dict:
    return {"actor": actor, "action": action, "dice": list(dice)}


def end(actor: str, dice: list[int] = ()) -> dict:
    return step(actor, "end_turn", dice)


def move(actor: str, x: int, y: int, dice: list[int] = ()) -> dict:
    return step(actor, {"type": "move", "cell": [x, y]}, dice)


def act(actor: str, kind: str, dice: list[int] = (), **kw: Any) -> dict:
    return step(actor, {"type": kind, **kw}, dice)


def evs(b, type_: str, **match: Any) -> list[dict]:
    return [e for e in b.events if e["type"] == type_ and all(e.get(k) == v for k, v in match.items())]


def rolls(b, purpose: str, actor: str | None = None) -> list[dict]:
    return [e for e in b.events if e["type"] == "roll" and e["purpose"].startswith(purpose)
            and (actor is None or e["actor"] == actor)]


def sides(roll_event: dict) -> list[int]:
    return [s for s, _ in roll_event["dice"]]


def who(b, id: str):
    return b.state.by_id[id]


def pos(b, id: str) -> tuple[int, int]:
    return b.state.grid.xy(who(b, id).pos)


def cell(b, x: int, y: int) -> int:
    return b.state.grid.index(x, y)


def legal(b) -> list[Action]:
    return b.legal_actions()
