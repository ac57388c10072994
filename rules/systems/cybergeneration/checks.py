"""Interlock rolls for seed 004: d10 checks with criticals, opposed rolls, and their exact odds.

seed 004, Critical success and failure: "Same as with skill checks - you roll a 2nd d10
and either add or subtract it from the total" (a natural 10 adds a second d10, a natural
1 subtracts one). Stat-only rolls (initiative, stun and BODY saves) roll one plain d10
(data.yaml assumption crit_scope).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import lru_cache

from typing import Any, Iterable

from rules import calls
from rules.calls import RollCall
from rules.dice import Dice
from rules.events import Event, event

#: a named modifier of a roll: (source, value)
Part = tuple[str, int]


@dataclass(slots=True)
class Check:
    """One d10 check: the natural die, the second die of a critical, the total."""

    base: int
    natural: int
    second: int | None = None
    total: int = 0
    crit: str | None = None          # "success" | "failure" | None
    two_damage_dice: bool = False    # a critical attack that takes two damage dice instead
    faces: list[list[int]] = field(default_factory=list)
    call: RollCall | None = None     # the announcement of the natural die (rules/calls.py)


def d10_call(actor: str, check: str, purpose: str, pool: str, parts: Iterable[Part] = (), *,
             difficulty: int | None = None, against: dict[str, Any] | None = None, label: str | None = None
             ) -> RollCall:
    """The announcement of a d10 check that `roll_ev` will record: `pool` in words without the
    die (" + 1d10" is added, as the roll event has it), `parts` its named modifiers."""
    return RollCall(actor, purpose, check, pool + " + 1d10", (10,), difficulty=difficulty, against=against,
                    modifiers=calls.mods(modifiers(parts)), label=purpose if label is None else label)


def crit_call(call: RollCall, label: str) -> RollCall:
    """The second d10 of a critical: a follow-up of the check's call (the same roll event)."""
    return replace(call, label=label, follow_up=True)


def first_die(dice: Dice, base: int, label: str, *, call: RollCall) -> Check:
    """The natural d10 of a skill check (announced as `call` first); a natural 1 rolls (and
    subtracts) its second die at once."""
    dice.announce(call)
    r = dice.roll(10, label)
    c = Check(base, r, faces=[[10, r]], call=call)
    if r == 1:
        dice.announce(crit_call(call, label + " (critical failure)"))
        s = dice.roll(10, label + " (critical failure)")
        c.second = s
        c.faces.append([10, s])
        c.crit = "failure"
        c.total = base + 1 - s
    else:
        c.total = base + r
        if r == 10:
            c.crit = "success"
    return c


def finish(dice: Dice, c: Check, label: str, need: int | None = None, may_take_damage: bool = False) -> Check:
    """Settle a natural 10: add a second d10, or (an attack that already reaches `need`) take
    two damage dice instead (data.yaml assumption crit_success_choice)."""
    if c.crit != "success" or c.second is not None or c.two_damage_dice:
        return c
    if may_take_damage and need is not None and c.total >= need:
        c.two_damage_dice = True
        return c
    dice.announce(crit_call(c.call, label + " (critical success)"))
    s = dice.roll(10, label + " (critical success)")
    c.second = s
    c.faces.append([10, s])
    c.total += s
    return c


def skill_check(dice: Dice, base: int, label: str, *, call: RollCall) -> Check:
    """A plain skill check: stat + skill + modifiers + 1d10, criticals both ways, announced as `call`."""
    return finish(dice, first_die(dice, base, label, call=call), label)


def modifiers(parts: Iterable[Part]) -> list[dict[str, Any]]:
    """The `modifiers` field of a roll event: every modifier applied, by source."""
    return [{"source": n, "value": v} for n, v in parts if v]


def roll_ev(actor: str, check: str, purpose: str, dice: list, total: int, parts: Iterable[Part] = (),
            **extra: Any) -> Event:
    """A `roll` event with its stable `check` key and its `modifiers` (common roll fields)."""
    return event("roll", actor=actor, purpose=purpose, check=check, modifiers=modifiers(parts), dice=dice,
                 total=total, **extra)


# -- odds -------------------------------------------------------------------------------------
@lru_cache(maxsize=1)
def crit_pmf() -> tuple[tuple[int, float], ...]:
    """The distribution of one d10 with criticals: (value, probability)."""
    out: dict[int, float] = {}
    for f in range(2, 10):
        out[f] = out.get(f, 0.0) + 0.1
    for s in range(1, 11):
        out[1 - s] = out.get(1 - s, 0.0) + 0.01
        out[10 + s] = out.get(10 + s, 0.0) + 0.01
    return tuple(sorted(out.items()))


@lru_cache(maxsize=4096)
def p_at_least(base: int, need: int) -> float:
    """P(base + d10 with criticals >= need)."""
    return sum(p for v, p in crit_pmf() if base + v >= need)


@lru_cache(maxsize=4096)
def p_beat(att: int, dfn: int) -> float:
    """P(att + d10 > dfn + d10), both with criticals (a tie fails the attacker)."""
    pmf = crit_pmf()
    total = 0.0
    for va, pa in pmf:
        for vd, pd in pmf:
            if att + va > dfn + vd:
                total += pa * pd
    return total


def p_save(target: int) -> float:
    """P(d10 <= target): a stun or BODY save."""
    return max(0.0, min(1.0, target / 10.0))
