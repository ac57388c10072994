"""Roll calls: the rules announce each roll before it is made.

A `RollCall` says who rolls, for what (`purpose`, and `check`, the stable key the roll event
carries), which pool, the dice it throws (`sides`, in the order they are rolled), the target
number when it is known before the roll (`difficulty`), the opposing figure of an opposed
roll (`against`) and every modifier by name. A ruleset announces it with
`dice.announce(call)` before rolling its dice (issue 33: "the rules announce each roll
before it is made: who rolls, what pool, for what, against what, and the modifiers by
name"); the dice rolled until the next announcement belong to it. Announcing draws no
random number, so fights stay as they were.

A die rolled because of the previous roll's result (a Cybergeneration critical's second
d10) is its own call with `follow_up` set: it belongs to the same roll event.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Mapping

#: a named modifier: (source, value)
Modifier = tuple[str, int]


@dataclass(frozen=True, slots=True)
class RollCall:
    """One roll, announced before its dice are rolled."""

    roller: str | None          # the figure that rolls (None: nobody's roll, e.g. a scatter)
    purpose: str                # words, as the roll event's `purpose`
    check: str                  # the stable key the roll event carries
    pool: str                   # words: "Agility d10 + Guns d8", "PER 3", "REF 6 + handgun 4 + 1d10"
    sides: tuple[int, ...]      # the dice this roll throws, in the order they are rolled
    difficulty: int | None = None           # a target number known before the roll
    against: Mapping[str, Any] | None = None  # {"figure": id, "what": ..., "total": int | None}
    modifiers: tuple[Modifier, ...] = ()    # as the roll event's `modifiers`, by name
    keep: str | None = None     # which die counts (METALFACE: "highest of 3d6")
    label: str = ""             # the label the dice are rolled with
    follow_up: bool = False     # a die the previous call's result asked for (same roll event)

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (lists for tuples)."""
        return {"roller": self.roller, "purpose": self.purpose, "check": self.check, "pool": self.pool,
                "sides": list(self.sides), "difficulty": self.difficulty,
                "against": dict(self.against) if self.against is not None else None,
                "modifiers": [[n, v] for n, v in self.modifiers], "keep": self.keep, "label": self.label,
                "follow_up": self.follow_up}


def mods(modifiers: Iterable[Any] | None) -> tuple[Modifier, ...]:
    """Modifiers as (name, value) pairs, from a roll event's `modifiers` (dicts with `source`
    and `value`) or from pairs."""
    out = []
    for m in modifiers or ():
        if isinstance(m, Mapping):
            out.append((m["source"], m["value"]))
        else:
            out.append((m[0], m[1]))
    return tuple(out)


def against(figure: str, what: str, total: int | None = None) -> dict[str, Any]:
    """The `against` of an opposed roll: the other figure, its roll, its total once known."""
    return {"figure": figure, "what": what, "total": total}


def step_sides(steps: Iterable[Any]) -> tuple[int, ...]:
    """The dice of Cortex steps, in the order `roll_steps` rolls them."""
    return tuple(s for st in steps for s in st.dice)


__all__ = ["RollCall", "Modifier", "mods", "against", "step_sides"]
