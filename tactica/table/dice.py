"""Dice at the table: who rolls by hand, and which roll comes next.

The rules announce every roll before they make it (`rules/calls.py`: who rolls, the pool,
what for, against what, every modifier by name). The table reads those announcements: a
roll whose roller the GM rolls by hand (`DiceOwners`) is asked for; the engine rolls the
others from the fight's seeded dice. One run of the action asks the questions in order
(the terminal), or one run on a copy finds the next roll a front end must ask for (the API).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from rules.actions import Action
from rules.battle import Battle
from rules.calls import RollCall
from rules.dice import Dice
from rules.errors import DiceError
from rules.events import Event
from rules.narration import keys_told, roll_head
from rules.state import BattleState
from tactica.table.base import SessionError

MODES = ("engine", "manual")


@dataclass
class DiceOwners:
    """Who rolls which dice: `default` (engine or manual) for every roll, overridden per team
    and per figure (`--dice crew=manual`: the players roll the crew's dice by hand, the engine
    the NPCs'). A roll nobody makes (a scatter) follows `default`."""

    default: str = "engine"
    by: dict[str, str] = field(default_factory=dict)   # team or figure id -> mode

    def manual(self, state: BattleState, roller: str | None) -> bool:
        c = state.by_id.get(roller) if roller is not None else None
        if c is not None:
            mode = self.by.get(c.id) or self.by.get(c.team) or self.default
        else:
            mode = self.default
        return mode == "manual"

    def any_manual(self) -> bool:
        return self.default == "manual" or "manual" in self.by.values()

    def to_json(self) -> dict[str, Any]:
        return {"default": self.default, "by": dict(self.by)}

    @classmethod
    def parse(cls, items: list[str] | str | None, state: BattleState | None = None,
              base: "DiceOwners | None" = None, field_name: str = "--dice") -> "DiceOwners":
        """From `engine`, `manual`, or `NAME=MODE` items (NAME a team or a figure id)."""
        out = DiceOwners(base.default, dict(base.by)) if base is not None else DiceOwners()
        if items is None:
            return out
        for item in [items] if isinstance(items, str) else items:
            for part in str(item).split(","):
                part = part.strip()
                if not part:
                    continue
                name, sep, mode = part.partition("=")
                mode = (mode if sep else name).strip().lower()
                if mode not in MODES:
                    raise SessionError(f"{part!r}", field=field_name,
                                       expected="engine, manual, or NAME=engine|manual (NAME a team or a figure)")
                if not sep:
                    out.default = mode
                    continue
                name = name.strip()
                if state is not None and name not in state.teams and name not in state.by_id:
                    raise SessionError(f"no team or figure {name!r}", field=field_name,
                                       expected="one of " + ", ".join(list(state.teams) + sorted(state.by_id)))
                out.by[name] = mode
        return out

    @classmethod
    def from_json(cls, d: Mapping[str, Any] | None, default: str = "engine") -> "DiceOwners":
        if not isinstance(d, Mapping):
            return DiceOwners(default)
        by = {str(k): str(v) for k, v in (d.get("by") or {}).items() if v in MODES}
        return DiceOwners(str(d.get("default", default)) if d.get("default") in MODES else default, by)


@dataclass
class DiceRequest:
    """The next roll a GM makes by hand: who rolls what against what, and the dice."""

    roller: str | None
    purpose: str
    pool: str
    sides: list[int]
    against: str
    label: str
    modifiers: list[tuple[str, int]] = field(default_factory=list)
    keep: str | None = None
    call: dict[str, Any] | None = None
    #: the modifiers in the ruleset's own words, as the roll's log line will give them
    #: (rules/narration.py): Cortex steps, METALFACE dice and points, CyberGeneration points
    words: list[str] = field(default_factory=list)

    def text(self) -> str:
        head = roll_head(self.roller, self.purpose) if self.roller else f"roll {self.purpose}"
        pool = f": {keys_told(self.pool)}" if self.pool else ""
        mods = f" ({'; '.join(self.words)})" if self.words else ""
        keep = f", {self.keep}" if self.keep else ""
        against = f" {self.against}" if self.against else ""
        dice = " ".join(f"d{s}" for s in self.sides)
        n = len(self.sides)
        return (f"{head}{pool}{mods}{keep}{against} - enter {n} {'die' if n == 1 else 'dice'} "
                f"({dice}), or r to roll")

    def to_json(self) -> dict[str, Any]:
        return {"roller": self.roller, "purpose": self.purpose, "pool": self.pool, "sides": self.sides,
                "against": self.against, "modifiers": [list(m) for m in self.modifiers], "keep": self.keep,
                "words": self.words,
                "text": self.text(), "call": self.call}

    @classmethod
    def from_call(cls, call: RollCall, state: BattleState) -> "DiceRequest":
        def name(cid: Any) -> str:
            c = state.by_id.get(cid)
            return c.name if c is not None else str(cid)

        against = ""
        a = call.against
        if call.difficulty is not None:
            against = f"against Difficulty {call.difficulty}"
        elif a:
            what, total = a.get("what"), a.get("total")
            against = f"against {name(a.get('figure'))}'s {what}" + (f" of {total}" if total is not None else "")
            if a.get("cover"):
                against += f" (+{a['cover']} cover)"
        from rules.events import figures_named
        names = {c.id: c.name for c in state.combatants}
        return cls(name(call.roller) if call.roller is not None else None, figures_named(call.purpose, names), call.pool,
                   list(call.sides), against, call.label, [tuple(m) for m in call.modifiers], call.keep,
                   call.to_json(), modifier_words_of(call))


def modifier_words_of(call: RollCall) -> list[str]:
    """A call's modifiers in the words of its roll's log line (rules/narration.py)."""
    from rules.narration import roll_family, step_words

    e = {"pool": call.pool, "check": call.check, "modifiers": [{"source": n, "value": v} for n, v in call.modifiers]}
    family = "kept" if call.keep else roll_family(e)
    out = []
    for n, v in call.modifiers:
        if not isinstance(v, int) or isinstance(v, bool) or not v:
            continue
        if family == "steps":
            out.append(step_words(keys_told(n), v, damage=call.check == "damage"))
        elif not (family == "points" and n in call.pool):
            out.append(f"{keys_told(n)} {v:+d}")
    return out


class _NeedDice(Exception):
    def __init__(self, call: RollCall) -> None:
        super().__init__(call.purpose)
        self.call = call


def engine_face(dice: Dice, sides: int) -> int:
    """One face from the dice's own generator, drawn as `Dice.roll` draws it (inside a roll
    hook, where calling `roll` again would recurse)."""
    return int(dice._uniform() * sides) + 1


def hand_hook(dice: Dice, state_of: Callable[[], BattleState], owners: DiceOwners,
              faces_for: Callable[[RollCall], list[int] | None]) -> Callable[[int, str], int | None]:
    """A `Dice.on_roll` hook: the dice of an announced roll the GM makes come from
    `faces_for(call)` (asked once per roll, checked against the dice); the others are the
    engine's (None)."""
    pending: list[int] = []

    def hook(sides: int, label: str) -> int | None:
        call = dice.call
        if not pending:
            if call is None or not owners.manual(state_of(), call.roller):
                return None
            faces = faces_for(call)
            if faces is None:
                faces = [engine_face(dice, s) for s in call.sides]
            faces = [int(f) for f in faces]
            if len(faces) != len(call.sides) or any(not 1 <= f <= s for f, s in zip(faces, call.sides)):
                raise DiceError(f"dice {faces} do not fit {' '.join(f'd{s}' for s in call.sides)}", field="dice",
                                expected="one face per die, each one the die can show")
            pending.extend(faces)
        return pending.pop(0)

    return hook


def feeder(faces: list[int]) -> Callable[["DiceRequest"], list[int]]:
    """A dice provider that hands out `faces` roll by roll (the API's `hand_dice`): too few
    is a DiceError naming the roll that lacks them."""
    rest = [int(x) for x in faces]

    def give(req: "DiceRequest") -> list[int]:
        n = len(req.sides)
        if len(rest) < n:
            raise DiceError(f"the roll {req.purpose} ({req.roller or 'nobody'}) needs {n} more "
                            f"{'die' if n == 1 else 'dice'} ({' '.join(f'd{s}' for s in req.sides)}), "
                            f"{len(rest)} left", field="dice")
        out = rest[:n]
        del rest[:n]
        return out

    give.left = rest  # type: ignore[attr-defined]
    return give


def next_request(b: Battle, fn: Callable[[Battle], Any], given: list[int], owners: DiceOwners
                 ) -> tuple[DiceRequest | None, int]:
    """The next roll the GM makes by hand that `fn` needs past the faces `given` for the
    earlier hand rolls (None when they are enough), and how many of `given` were used. Runs
    `fn` once on a copy whose engine dice are the fight's own, so the engine's rolls in
    between are the very ones the real run will make."""
    nb = b.clone(events=False)
    rest = [int(x) for x in given]
    used = 0

    def faces_for(call: RollCall) -> list[int]:
        nonlocal used
        n = len(call.sides)
        if not rest:
            raise _NeedDice(call)
        group = rest[:n]
        for j, (v, s) in enumerate(zip(group, call.sides)):
            if not 1 <= v <= s:
                raise DiceError(f"dice[{used + j}]: a d{s} cannot show {v}", field="dice", expected=f"1..{s}")
        if len(group) < n:
            raise DiceError(f"the next roll ({call.purpose}) needs {n} dice "
                            f"({' '.join(f'd{s}' for s in call.sides)}), got {len(group)}", field="dice")
        del rest[:n]
        used += n
        return group

    nb.dice.on_roll = hand_hook(nb.dice, lambda: nb.state, owners, faces_for)
    try:
        fn(nb)
    except _NeedDice as need:
        return DiceRequest.from_call(need.call, b.state), used
    if rest:
        raise DiceError(f"{len(rest)} more than the action rolls", field="dice")
    return None, used


def next_dice_request(b: Battle, fn: Callable[[Battle], Any], prefix: list[int],
                      owners: DiceOwners | None = None) -> DiceRequest | None:
    """The next hand roll `fn` needs past the faces in `prefix` (every roll by hand unless
    `owners` says otherwise), or None when they are enough."""
    return next_request(b, fn, prefix, owners or DiceOwners("manual"))[0]


def next_roll(b: Battle, action: Action, dice: list[int], owners: DiceOwners | None = None) -> dict[str, Any]:
    """The next hand roll `action` needs after the faces `dice` (checked die by die), as JSON
    (`{"request": {...} | None, "given": n}`), for a front end that asks for one roll at a time."""
    req, used = next_request(b, lambda nb: nb.step(action, check=False), dice, owners or DiceOwners("manual"))
    return {"request": req.to_json() if req is not None else None, "given": used}


def run_with_dice(session, fn: Callable[[Battle], list[Event]], provider: Callable | None,
                  given: list[int] | None = None) -> tuple[list[Event], list[int]]:
    """`Session._run`: run `fn` on the session's fight with the engine's dice, the GM's
    (`provider`, asked for the rolls the session's `DiceOwners` give the GM) or exactly `given`.
    When the run fails the battle is replaced by a copy taken before it: nothing half-applied."""
    b = session.battle
    dice = b.dice
    if given is not None:
        return run_given(session, fn, [int(x) for x in given])
    if provider is None or not session.dice.any_manual():
        if getattr(provider, "left", None):
            raise DiceError(f"{len(provider.left)} hand dice given, but no roll is made by hand", field="dice",
                            expected="hand dice only for the teams or figures the settings' dice name")
        n0 = len(dice.record)
        evs = fn(b)
        used = [r for _, r in dice.record[n0:]]
        del dice.record[n0:]
        return evs, used
    # one run: the rules announce each roll (rules/calls.py); the GM's are asked for, the
    # engine rolls the rest; on an error or a cancel the fight is put back as it was
    backup = b.clone()
    n0 = len(dice.record)
    dice.on_roll = hand_hook(dice, lambda: session.battle.state, session.dice,
                             lambda call: provider(DiceRequest.from_call(call, session.battle.state)))
    try:
        evs = fn(b)
    except BaseException:
        session.battle = backup
        raise
    finally:
        dice.on_roll = None
    used = [r for _, r in dice.record[n0:]]
    del dice.record[n0:]
    left = getattr(provider, "left", None)
    if left:   # a feeder (the API's hand_dice) with faces no hand roll took
        session.battle = backup
        raise DiceError(f"{len(left)} of the hand dice were not used", field="dice",
                        expected="exactly the faces of the rolls made by hand")
    return evs, used


def run_given(session, fn: Callable[[Battle], list[Event]], given: list[int]) -> tuple[list[Event], list[int]]:
    """Run with exactly the dice `given` (as in replay files): too few, too many or a face a
    die cannot show is a DiceError naming the field `dice`."""
    dice = session.battle.dice
    n0 = len(dice.record)
    dice.force(given, strict=True)
    try:
        evs = fn(session.battle)
        left = dice.forced_left
    finally:
        dice.clear_forced()
        del dice.record[n0:]
    if left:
        raise DiceError(f"{left} of the given dice were not used", field="dice",
                        expected="exactly the dice this action rolls")
    return evs, given
