"""Manual dice: which roll comes next, who rolls it and against what."""


from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable


from rules.actions import Action
from rules.battle import Battle
from rules.choices import ASK
from rules.dice import Dice
from rules.errors import DiceError
from rules.events import Event


class _NeedDie(Exception):
    def __init__(self, sides: int, label: str) -> None:
        super().__init__(label)
        self.sides = sides
        self.label = label


@dataclass
class DiceRequest:
    """The next roll of a pending action: who rolls what against what, and the dice."""

    roller: str | None
    purpose: str
    pool: str
    sides: list[int]
    against: str
    label: str

    def text(self) -> str:
        who = f"{self.roller} rolls " if self.roller else "roll "
        pool = f": {self.pool}" if self.pool else ""
        against = f" {self.against}" if self.against else ""
        dice = " ".join(f"d{s}" for s in self.sides)
        n = len(self.sides)
        return (f"{who}{self.purpose}{pool}{against} - enter {n} {'die' if n == 1 else 'dice'} ({dice}), "
                f"or r to roll")


def _probe(b: Battle, fn: Callable[[Battle], Any], prefix: list[int], tail: str | None):
    """Run `fn` on a copy of the battle with `prefix` forced. `tail` None: stop at the first
    die past the prefix (its sides and label); "low"/"high": the dice past the prefix show 1 / max,
    and the figures' choices take their defaults, so the run goes on to the events that name
    the roll (a question would keep them back until it is answered: rules/choices.py)."""
    d = Dice(0)
    d.force(prefix)

    def hook(sides: int, label: str) -> int:
        if tail is None:
            raise _NeedDie(sides, label)
        return 1 if tail == "low" else sides

    d.on_roll = hook
    nb = b.clone(d, events=False)
    if tail is not None:
        nb.deciders = {t: x for t, x in nb.deciders.items() if x != ASK}
    try:
        fn(nb)
    except _NeedDie as need:
        return need, d.record, nb.events
    return None, d.record, nb.events


def _roll_event_of(record: list[tuple[int, int]], events: list[Event], k: int) -> tuple[Event | None, int]:
    """The roll event that holds die number `k` of `record`, and the die's place in it."""
    p = 0
    for e in events:
        faces = e.get("dice")
        if not isinstance(faces, list) or not faces:
            continue
        try:
            fs = [(int(s), int(r)) for s, r in faces]
        except (TypeError, ValueError):
            continue
        n = len(fs)
        q = p
        while q + n <= len(record) and [tuple(x) for x in record[q:q + n]] != fs:
            q += 1
        if q + n > len(record):
            continue
        if q <= k < q + n:
            return e, k - q
        p = q + n
        if p > k:
            break
    return None, 0


def next_dice_request(b: Battle, fn: Callable[[Battle], Any], prefix: list[int]) -> DiceRequest | None:
    """The next roll `fn` needs past the dice in `prefix`, or None when they are enough."""
    need, _, _ = _probe(b, fn, prefix, None)
    if need is None:
        return None
    k = len(prefix)
    _, rec_lo, ev_lo = _probe(b, fn, prefix, "low")
    _, rec_hi, ev_hi = _probe(b, fn, prefix, "high")
    e_lo, pos = _roll_event_of(rec_lo, ev_lo, k)
    s = b.state
    label = need.label or "a roll"
    if e_lo is None or pos != 0:
        return DiceRequest(None, label, "", [need.sides], "", label)
    sides = [int(x[0]) for x in e_lo["dice"]]
    e_hi, _ = _roll_event_of(rec_hi, ev_hi, k)
    rid = e_lo.get("actor")
    roller = s.by_id[rid].name if rid in s.by_id else rid
    purpose = str(e_lo.get("purpose") or label)
    against = ""
    d_lo = e_lo.get("difficulty")
    d_hi = e_hi.get("difficulty") if e_hi is not None else None
    idx = next(i for i, e in enumerate(ev_lo) if e is e_lo)

    def name(cid: Any) -> str:
        return s.by_id[cid].name if cid in s.by_id else str(cid)

    boundary = {"round_start", "turn_start", "turn_end", "initiative", "battle_end", "move", "stance", "reload"}
    after: list[Event] = []
    for e in ev_lo[idx + 1:]:
        if e.get("type") in boundary or (e.get("type") == "roll" and e.get("actor") == rid):
            break
        after.append(e)
    before: list[Event] = []
    for e in reversed(ev_lo[:idx]):
        if e.get("type") in boundary:
            break
        before.append(e)
    atk_after = next((e for e in after if e.get("type") == "attack"), None)
    atk_before = next((e for e in before if e.get("type") == "attack"), None)
    prev = next((e for e in before if e.get("type") == "roll" and e.get("dice")), None)
    if purpose == "initiative":
        atk_after = atk_before = prev = None
    if d_lo is not None and d_lo == d_hi:
        against = f"against Difficulty {d_lo}"
    elif atk_after is not None and atk_after.get("actor") == rid and d_lo is not None:
        against = f"against {name(atk_after.get('target'))}'s defence"
    elif atk_after is not None and atk_after.get("target") == rid:
        opp = next((e for e in reversed(ev_lo[:idx]) if e.get("type") == "roll"
                    and e.get("actor") == atk_after.get("actor")), None)
        against = (f"against {name(atk_after.get('actor'))}'s {opp.get('purpose')} of {opp.get('total')}"
                   if opp is not None else f"against {name(atk_after.get('actor'))}'s attack")
    elif atk_before is not None and atk_before.get("actor") == rid and "damage" in purpose:
        against = f"on {name(atk_before.get('target'))}"
    elif prev is not None and prev.get("actor") != rid and d_lo is None:
        against = f"against {name(prev.get('actor'))}'s {prev.get('purpose')} of {prev.get('total')}"
    return DiceRequest(roller, purpose, str(e_lo.get("pool") or ""), sides, against, label)




def next_roll(b: Battle, action: Action, dice: list[int]) -> dict[str, Any]:
    """The roll `action` needs after the faces `dice` (checked die by die), as JSON
    (`{"request": {...} | None, "given": n}`), for a front end that asks for one roll at a
    time. Bad faces are a DiceError on the field `dice`."""
    def run(nb: Battle) -> None:
        nb.step(action, check=False)

    prefix: list[int] = []
    rest = [int(x) for x in dice]
    while True:
        req = next_dice_request(b, run, prefix)
        if req is None:
            if rest:
                raise DiceError(f"{len(rest)} more than the action rolls", field="dice")
            return {"request": None, "given": len(prefix)}
        if not rest:
            return {"request": {"roller": req.roller, "purpose": req.purpose, "pool": req.pool, "sides": req.sides,
                                "against": req.against, "text": req.text()}, "given": len(prefix)}
        group = rest[:len(req.sides)]
        for j, (v, n) in enumerate(zip(group, req.sides)):
            if not 1 <= v <= n:
                raise DiceError(f"dice[{len(prefix) + j}]: a d{n} cannot show {v}", field="dice",
                                expected=f"1..{n}")
        if len(group) < len(req.sides):
            raise DiceError(f"the next roll ({req.purpose}) needs {len(req.sides)} dice "
                            f"({' '.join(f'd{n}' for n in req.sides)}), got {len(group)}", field="dice")
        prefix += group
        rest = rest[len(group):]
