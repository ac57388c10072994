"""Dice: one seeded source of every random number, with a record and forced results.

`Dice` wraps a `numpy.random.Generator`. Every roll is recorded as (sides, result) so the
event log can show the dice behind each outcome. Forced results (a queue) let a GM type in
physical dice and let tests script exact cases; forcing a face the die cannot show, or
running out of forced results while `strict`, is a `DiceError`.

`Step` is a Cortex die step (d0, d2, d4 ... d12, d12+d2 ...) as a value type with step
arithmetic: `Step.parse("d8") - 2 == Step.parse("d4")`.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Callable, Iterable

import numpy as np

from rules.calls import RollCall
from rules.errors import DiceError

_BATCH = 2048


class Dice:
    """Seeded dice with a roll record and an optional queue of forced results."""

    __slots__ = ("_rng", "_buf", "_pos", "_forced", "strict", "record", "on_roll", "_seed", "call", "on_call")
    #: uniforms drawn from the generator at a time
    batch = _BATCH

    def __init__(self, seed: int | np.random.Generator | None = 0) -> None:
        if isinstance(seed, np.random.Generator):
            self._rng = seed
            self._seed = None
        else:
            self._rng = np.random.default_rng(seed)
            self._seed = seed
        self._buf: list[float] = []
        self._pos = 0
        self._forced: deque[int] = deque()
        self.strict = False
        self.record: list[tuple[int, int]] = []
        # Optional hook for manual dice (GM types results): called with (sides, label)
        # and returns a face, or None to let the generator roll.
        self.on_roll: Callable[[int, str], int | None] | None = None
        # The roll announced last (rules/calls.py): every die rolled until the next
        # announcement belongs to it; `on_call`, when set, hears each announcement.
        self.call: RollCall | None = None
        self.on_call: Callable[[RollCall], None] | None = None

    # -- forced results -------------------------------------------------------------
    def force(self, results: Iterable[int], *, strict: bool = False) -> None:
        """Queue results that the next rolls will show, in order."""
        for r in results:
            if isinstance(r, bool) or not isinstance(r, (int, np.integer)):
                raise DiceError(f"forced result {r!r} is not a whole number",
                                expected="an integer die face")
            self._forced.append(int(r))
        self.strict = strict

    def force_first(self, results: Iterable[int]) -> None:
        """Put results before any already forced (the rolls of an action resolved again
        after a question, rules/choices.py); strictness is left as it is."""
        self._forced.extendleft(reversed([int(r) for r in results]))

    @property
    def forced_left(self) -> int:
        return len(self._forced)

    def clear_forced(self) -> None:
        self._forced.clear()
        self.strict = False

    # -- announcing ------------------------------------------------------------------
    def announce(self, call: RollCall) -> None:
        """The rules say which roll comes next (draws no random number)."""
        self.call = call
        if self.on_call is not None:
            self.on_call(call)

    # -- rolling --------------------------------------------------------------------
    def _uniform(self) -> float:
        if self._pos >= len(self._buf):
            self._buf = self._rng.random(self.batch).tolist()
            self._pos = 0
        u = self._buf[self._pos]
        self._pos += 1
        return u

    def roll(self, sides: int, label: str = "") -> int:
        """Roll one die with `sides` faces (1..sides)."""
        if self._forced:
            r = self._forced.popleft()
            if not 1 <= r <= sides:
                raise DiceError(f"forced result {r} cannot be shown by a d{sides}{' for ' + label if label else ''}",
                                expected=f"1..{sides}")
        elif self.strict:
            raise DiceError(f"forced results ran out at a d{sides}{' for ' + label if label else ''}",
                            expected="one more forced result")
        else:
            r = None
            if self.on_roll is not None:
                r = self.on_roll(sides, label)
            if r is None:
                r = int(self._uniform() * sides) + 1
        self.record.append((sides, r))
        return r

    def chance(self, p: float) -> bool:
        """A percentage check rolled on a d100: true with probability p (0..1)."""
        return self.roll(100, "percentile") <= round(p * 100)

    # -- state (for save/resume) --------------------------------------------------------
    def get_state(self, compact: bool = False) -> dict:
        """The generator's state and the numbers drawn but not used yet (`buf`). `compact` (a
        save file, the API's state): the generator wound back over those numbers instead, so `buf`
        is empty and the next rolls draw them again, the same (2,048 numbers were 90% of a table
        save with its undo steps); where the generator cannot be wound back, as without it."""
        rest = self._buf[self._pos:]
        state = self._rng.bit_generator.state
        if compact and rest and hasattr(self._rng.bit_generator, "advance"):
            bg = type(self._rng.bit_generator)(0)   # its state is set next
            bg.state = state
            bg.advance(-len(rest))
            back = bg.state
            if np.random.Generator(bg).random(len(rest)).tolist() == rest:   # the same numbers again
                return {"bit_generator": back, "buf": []}
        return {"bit_generator": state, "buf": list(rest)}

    def set_state(self, state: dict) -> None:
        self._rng.bit_generator.state = state["bit_generator"]
        self._buf = list(state["buf"])
        self._pos = 0



class StreamDice(Dice):
    """Dice with one stream per key: each roll is drawn from the stream of the figure that
    rolls it (the roller of the last announced `RollCall`; the rules announce every roll,
    rules/calls.py), mapped through `keys` (figure id -> stream number); rolls of nobody (a
    scatter) and of figures not in `keys` draw from the last stream, the table's.

    For paired comparisons (issue 31): with keys per seat (team), a swapped fight gives each
    seat the same luck even after the two players' decisions diverge and one of them rolls
    more dice; with one stream every later roll would shift to another use. Forced results,
    `on_roll` and the roll record work as in `Dice`."""

    __slots__ = ("_root", "_keys", "_streams", "_at")
    batch = 64  # a figure rolls a few dice a turn: short batches per stream

    def __init__(self, root: np.random.SeedSequence, keys: dict[str, int] | None = None) -> None:
        super().__init__(0)
        self._root = root
        self._at = -1
        self.bind(keys or {})

    def bind(self, keys: dict[str, int]) -> None:
        """Set the streams by figure id (before the first roll: the figures' ids may be known
        only once the battle is built)."""
        self._keys = dict(keys)
        n = max(self._keys.values(), default=-1) + 2
        # a SeedSequence per stream until its first roll, then (generator, buffer, position);
        # child i of the root is stream i, however often bind is called
        self._streams: list = [np.random.SeedSequence(self._root.entropy, spawn_key=(*self._root.spawn_key, i))
                               for i in range(n)]
        self._at = -1

    def _uniform(self) -> float:
        call = self.call
        i = self._keys.get(call.roller, -1) if call is not None and call.roller is not None else -1
        i = i if i >= 0 else len(self._streams) - 1
        if i != self._at:
            if self._at >= 0:
                self._streams[self._at] = (self._rng, self._buf, self._pos)
            st = self._streams[i]
            if isinstance(st, np.random.SeedSequence):
                st = (np.random.default_rng(st), [], 0)
            self._rng, self._buf, self._pos = st
            self._at = i
        return super()._uniform()

    def get_state(self, compact: bool = False) -> dict:
        if self._at >= 0:
            self._streams[self._at] = (self._rng, self._buf, self._pos)
        return {"streams": [None if isinstance(st, np.random.SeedSequence) else
                            {"bit_generator": st[0].bit_generator.state, "buf": list(st[1][st[2]:])}
                            for st in self._streams], "at": self._at}

    def set_state(self, state: dict) -> None:
        self.bind(self._keys)   # every stream as new; then the ones rolled from as saved
        for i, st in enumerate(state["streams"]):
            if st is not None:
                rng = np.random.default_rng(self._streams[i])
                rng.bit_generator.state = st["bit_generator"]
                self._streams[i] = (rng, list(st["buf"]), 0)


def stream_keys(teams: list[list[str]], mode: str) -> dict[str, int] | None:
    """Stream numbers by figure id for `StreamDice`, given each team's figure ids in order:
    `seat` one stream per team, `figure` one per figure; `shared` None (one stream, `Dice`)."""
    if mode == "shared":
        return None
    if mode == "seat":
        return {f: t for t, ids in enumerate(teams) for f in ids}
    if mode == "figure":
        return {f: i for i, f in enumerate(f for ids in teams for f in ids)}
    raise DiceError(f"unknown dice streams {mode!r}", field="--dice-streams", expected="shared, seat or figure")

# ---------------------------------------------------------------------------------------
# Cortex die steps
_BASE = (0, 2, 4, 6, 8, 10, 12)


@dataclass(frozen=True, order=True, slots=True)
class Step:
    """A Cortex die step: 0 = d0 (no die), 1 = d2 ... 6 = d12, 7 = d12+d2, 8 = d12+d4 ..."""

    index: int

    def __post_init__(self) -> None:
        if self.index < 0:
            object.__setattr__(self, "index", 0)

    @staticmethod
    def parse(text: "str | int | Step") -> "Step":
        """Parse 'd8', 'd12+d2', 'd0' or '-' into a step."""
        if isinstance(text, Step):
            return text
        if isinstance(text, int):
            return Step(text)
        t = str(text).strip().lower().replace(" ", "")
        if t in ("", "-", "d0", "0", "none"):
            return Step(0)
        parts = t.split("+")
        try:
            sizes = [int(p[1:]) for p in parts if p.startswith("d")]
        except ValueError:
            sizes = []
        if len(sizes) != len(parts) or not sizes:
            raise ValueError(f"not a die step: {text!r}")
        if any(sz not in _BASE[1:] for sz in sizes):
            raise ValueError(f"not a die step: {text!r}")
        if len(sizes) == 1:
            return Step(_BASE.index(sizes[0]))
        # d12 + d12 ... + dX: every die but the last is a d12
        if any(sz != 12 for sz in sizes[:-1]):
            raise ValueError(f"not a die step: {text!r}")
        return Step(6 * (len(sizes) - 1) + _BASE.index(sizes[-1]))

    @property
    def dice(self) -> tuple[int, ...]:
        """The dice rolled for this step, as side counts."""
        i = self.index
        if i < _TABLED:
            return _DICE[i]  # the same tuple `_dice_of` gives (tabled below)
        return _dice_of(i)

    @property
    def maximum(self) -> int:
        return sum(self.dice)

    @property
    def mean(self) -> float:
        i = self.index
        if i < _TABLED:
            return _MEAN[i]  # the same float, summed in the same order (tabled below)
        return sum((s + 1) / 2 for s in self.dice)

    def __add__(self, n: int) -> "Step":
        i = self.index + int(n)
        if i < _TABLED:
            return _STEPS[i] if i > 0 else _STEPS[0]  # equal to Step(max(0, i)): a value type
        return Step(i)

    def __sub__(self, n: int) -> "Step":
        i = self.index - int(n)
        if i < _TABLED:
            return _STEPS[i] if i > 0 else _STEPS[0]  # equal to Step(max(0, i))
        return Step(i)

    def __bool__(self) -> bool:
        return self.index > 0

    def __str__(self) -> str:
        i = self.index
        if i < _TABLED:
            return _NAMES[i]  # the same text `_name_of` gives (tabled below)
        return _name_of(i)

    def __repr__(self) -> str:
        return f"Step({str(self)})"


def _dice_of(i: int) -> tuple[int, ...]:
    """The dice rolled for step `i`, as side counts."""
    if i == 0:
        return ()
    if i <= 6:
        return (_BASE[i],)
    extra = i - 6
    dice: list[int] = []
    while extra > 6:
        dice.append(12)
        extra -= 6
    return (12, *dice, _BASE[extra])


def _name_of(i: int) -> str:
    """A step's text: 'd0', 'd8', 'd12+d2' ..."""
    if i == 0:
        return "d0"
    return "+".join(f"d{s}" for s in _dice_of(i))


#: steps below this index are made once and shared (a frozen value type), with their dice and means
_TABLED = 64
_STEPS = tuple(Step(i) for i in range(_TABLED))
_DICE = tuple(_dice_of(i) for i in range(_TABLED))
_MEAN = tuple(sum((s + 1) / 2 for s in d) for d in _DICE)
_NAMES = tuple(_name_of(i) for i in range(_TABLED))

D0, D2, D4, D6, D8, D10, D12 = _STEPS[:7]


@dataclass(frozen=True, slots=True)
class PoolRoll:
    """The outcome of rolling several Cortex steps together."""

    faces: tuple[tuple[int, int], ...]  # (sides, result) per die
    total: int

    @property
    def botch(self) -> bool:
        """Every die shows 1 (RULES-NOTES: Cortex botch)."""
        return bool(self.faces) and all(r == 1 for _, r in self.faces)


def roll_steps(dice: Dice, steps: Iterable[Step], label: str = "", call: RollCall | None = None) -> PoolRoll:
    """Roll the dice of every step and add them up; `call`, when given, is announced first."""
    if call is not None:
        dice.announce(call)
    faces = []
    total = 0
    for st in steps:
        for sides in st.dice:
            r = dice.roll(sides, label)
            faces.append((sides, r))
            total += r
    return PoolRoll(tuple(faces), total)
