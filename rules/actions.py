"""One vocabulary of actions shared by every rule system.

An `Action` names a kind from `KINDS` and its arguments: a target figure, a map cell, a
weapon and an option. A ruleset declares which kinds and options it supports; legality is
always the ruleset's decision (`Ruleset.legal_actions`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from rules.errors import IllegalActionError

KINDS: dict[str, str] = {
    "end_turn": "end the acting figure's turn",
    "move": "move to a map cell (cost from the distance and the movement already used)",
    "attack": "attack a target with a weapon (option: a ruleset's attack option)",
    "defend": "declare a defensive stance (option: block, dodge ...)",
    "aim": "spend an action aiming",
    "reload": "reload a weapon",
    "drop_prone": "drop prone",
    "stand": "stand up from prone",
    "grapple": "grapple a target",
    "first_aid": "give first aid to a figure",
    "ready": "ready, draw or unjam a weapon",
    "pick_up": "pick up an object",
    "use": "use an item or device",
    "delay": "hold the action for later (option: a trigger)",
    "feint": "feint against a target",
    "suppress": "lay down suppressive fire on a target's area",
    "turn": "turn to a new facing (option: the direction)",
    "posture": "change posture (option: stand, kneel, sit, lie)",
    "heal": "heal or repair a figure",
    "drop": "drop a weapon or item the figure carries (it lies on the figure's cell)",
    "choose": "answer a choice the rules give the figure (option: the answer; rules/choices.py)",
}

#: what each kind is aimed at, for encoders and UIs: an enemy figure, an ally figure
#: (another figure of the actor's team), a map cell, or the actor itself.
KIND_TARGET: dict[str, str] = {
    "end_turn": "self", "move": "cell", "attack": "enemy", "grapple": "enemy", "feint": "enemy",
    "suppress": "enemy", "first_aid": "ally", "heal": "ally", "pick_up": "cell",
}
#: each kind's verb in a GM's words ("drop prone", "stand up"), for the lines the table and the
#: policies' reasons write (agents/reasons.py `label`, tactica/table/words.py `describe_action`)
KIND_VERBS: dict[str, str] = {
    "end_turn": "end the turn", "attack": "attack", "grapple": "grapple", "reload": "reload", "pick_up": "pick up",
    "defend": "defend", "drop_prone": "drop prone", "stand": "stand up", "aim": "aim", "use": "use",
    "first_aid": "first aid to", "ready": "ready", "delay": "delay", "feint": "feint", "suppress": "suppress",
    "heal": "heal", "turn": "turn", "posture": "posture", "drop": "drop"}
#: the kinds whose weapon is what the verb acts on ("ready the rifle"), not what it acts with
#: ("attack Mal with the rifle")
WEAPON_OBJECT_KINDS = frozenset({"reload", "pick_up", "ready", "drop"})


def option_words(option: str) -> str:
    """An action's option as a GM reads it: "called:head" -> "called head", "all_out" -> "all out"."""
    return option.replace(":", " ").replace("_", " ")


#: what a `use` action does, in a GM's words (imperative, third person), by its option; others read "use (x)"
USE_WORDS: dict[str, tuple[str, str]] = {
    "second_wind": ("take a second wind", "takes a second wind"),
    "two_actions": ("take two actions this round, with no move", "takes two actions this round, with no move"),
    "shield": ("switch the shield on", "switches the shield on"),
    "heal_self": ("treat its own damage", "treats its own damage"),
}


def use_words(option: str | None, third: bool = False) -> str:
    """A `use` action as a GM reads it: "spend 2 Plot Points on the next roll" (cortex's `plot_points:2`),
    "switch the shield on" (metalface); `third`: as a figure does it ("Jayne spends 1 Plot Point ...")."""
    if option and option.startswith("plot_points:"):
        n = option.split(":", 1)[1]
        verb = "spends" if third else "spend"
        return f"{verb} {n} Plot Point{'' if n == '1' else 's'} on the next roll"
    if option in USE_WORDS:
        return USE_WORDS[option][1 if third else 0]
    return ("uses" if third else "use") + (f" ({option_words(option)})" if option else "")


def weapon_words(weapon: str | None) -> str:
    """A weapon's (or item's) key as a GM reads it: "sniper_rifle" -> "sniper rifle" (None: "no weapon").
    The key stays what commands, events and logs hold; the table's prose tells it by this."""
    return weapon.replace("_", " ") if weapon else "no weapon"


def weapon_phrase(kind: str, weapon: str) -> str:
    """The weapon part of an action's words: "the sniper rifle" where the weapon is what the verb acts on
    ("ready the sniper rifle"), "with the sniper rifle" where it is what the verb acts with, and "unarmed"
    for the bare-handed attack ("attack Drunk unarmed", not "with the unarmed")."""
    if weapon == "unarmed" and kind not in WEAPON_OBJECT_KINDS:
        return "unarmed"
    return ("the " if kind in WEAPON_OBJECT_KINDS else "with the ") + weapon_words(weapon)


#: kinds that name one of the actor's weapons
WEAPON_KINDS: frozenset[str] = frozenset({"attack", "reload", "ready", "suppress", "drop"})


def target_of(kind: str) -> str:
    """'enemy', 'ally', 'cell' or 'self' (the default for kinds not listed)."""
    return KIND_TARGET.get(kind, "self")


@dataclass(frozen=True, slots=True)
class Action:
    """One decision of the acting figure."""

    kind: str
    target: str | None = None
    cell: int | None = None
    weapon: str | None = None
    option: str | None = None

    def __deepcopy__(self, memo: dict) -> "Action":
        """Itself: a frozen value (deep copies of policies, envs/snapshot.py, need no new one)."""
        return self

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"type": self.kind}
        for k in ("target", "cell", "weapon", "option"):
            v = getattr(self, k)
            if v is not None:
                d[k] = v
        return d

    @staticmethod
    def from_dict(d: Mapping[str, Any], width: int | None = None, field: str = "action",
                  height: int | None = None) -> "Action":
        """Parse `{type: attack, target: x, weapon: pistol}`; a cell may be [x, y]."""
        if isinstance(d, str):
            d = {"type": d}
        if not isinstance(d, Mapping):
            raise IllegalActionError(f"an action must be a mapping, got {type(d).__name__}",
                                     field=field, expected="{type: KIND, ...}")
        kind = d.get("type", d.get("kind"))
        if kind not in KINDS:
            raise IllegalActionError(f"unknown action type {kind!r}", field=f"{field}.type",
                                     expected="one of " + ", ".join(KINDS))
        unknown = set(d) - {"type", "kind", "target", "cell", "weapon", "option"}
        if unknown:
            raise IllegalActionError(f"unknown action field(s) {sorted(unknown)}", field=field,
                                     expected="type, target, cell, weapon, option")
        cell = d.get("cell")
        if isinstance(cell, (list, tuple)):
            if (width is None or len(cell) != 2
                    or not all(isinstance(v, int) and not isinstance(v, bool) for v in cell)):
                raise IllegalActionError(f"bad cell {cell!r}", field=f"{field}.cell",
                                         expected="[x, y] integers")
            x, y = cell
            if not 0 <= x < width or (height is not None and not 0 <= y < height) or y < 0:
                raise IllegalActionError(f"cell {list(cell)} is off the map", field=f"{field}.cell",
                                         expected=f"0 <= x < {width}" + (f", 0 <= y < {height}" if height else ""))
            cell = y * width + x
        elif cell is not None and (isinstance(cell, bool) or not isinstance(cell, int)):
            raise IllegalActionError(f"bad cell {cell!r}", field=f"{field}.cell", expected="[x, y]")
        for k in ("target", "weapon", "option"):
            if d.get(k) is not None and not isinstance(d.get(k), str):
                raise IllegalActionError(f"{k} must be a name, got {d.get(k)!r}",
                                         field=f"{field}.{k}", expected="a string")
        return Action(kind, d.get("target"), cell, d.get("weapon"), d.get("option"))

    def __str__(self) -> str:
        bits = [self.kind]
        if self.weapon:
            bits.append(f"with {self.weapon}")
        if self.target:
            bits.append(f"-> {self.target}")
        if self.cell is not None:
            bits.append(f"@{self.cell}")
        if self.option:
            bits.append(f"[{self.option}]")
        return " ".join(bits)


END_TURN = Action("end_turn")
