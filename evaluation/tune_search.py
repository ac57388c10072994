"""The tuner's search within one round, and the notes of what it tried and why.

`search_round` is the hill climb that `evaluation.tuning.tune` runs on each round's common
dice: from the current setting it plays every one-step neighbour, then moves to the one
whose PC win rate is nearest the target, until the current setting is within half the
tolerance or no neighbour is nearer.

The band (target +- tolerance) is never left for a setting outside it: once the current
setting's estimate on the round's dice is inside the band, a neighbour is taken only when it
is nearer the target on the same dice, so inside the band too. A refinement round starts
afresh on new dice, after the fresh check put the setting outside the band (pooled with its
earlier checks, `evaluation.tuning.pooled_check`), so the setting is judged there by what
the new dice and the checks say, not by the round that is refuted. (Holding on to a setting
that was once inside the band across rounds was tried and measured: on 120 seeded duel
tunes, 30 fights a candidate, it ended within tolerance 88 times against 94, keeping
settings that one lucky estimate had put in the band; see the commit that dropped it.)

Every candidate played, every step, every stop and every fresh check is a `Note`: one line
each in `tactica tune`'s step report (stderr), so a long tune is never silent.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

Values = tuple[int, ...]


@dataclass(frozen=True)
class Note:
    """One line of the tuner's step report.

    `kind`: `start` (a round's first setting), `try` (a neighbour played; `reason` says
    whether it is dropped or stays a contender), `keep` (the step taken), `stop` (why the
    round ends) or `check` (a fresh check of the round's result)."""

    round: int
    step: int
    kind: str
    change: str = ""
    win_rate: float | None = None
    ci_low: float | None = None
    ci_high: float | None = None
    episodes: int = 0
    in_band: bool | None = None
    reason: str = ""


@dataclass
class RoundResult:
    """Where a round's search ended: the settings, their measurement, the steps taken."""

    values: Values
    result: Mapping[str, Any]
    start: Mapping[str, Any]
    moves: list[tuple[int, str, Mapping[str, Any]]] = field(default_factory=list)


#: rates and targets are decimal fractions: 0.75 - 0.70 is 0.05000000000000004 in floating point, and
#: a 75.0% result of a 70% +- 5% target is inside the band as a GM reads it
EDGE = 1e-9


def in_band(rate: float, target: float, tolerance: float) -> bool:
    return abs(rate - target) <= tolerance + EDGE


def _pct(x: float) -> str:
    return f"{x:.1%}"


def measured(kind: str, rnd: int, step: int, change: str, r: Mapping[str, Any], target: float,
             tolerance: float, reason: str) -> Note:
    """A note of a measured setting (`r`: win_rate, ci_low, ci_high, episodes)."""
    return Note(round=rnd, step=step, kind=kind, change=change, win_rate=r["win_rate"], ci_low=r["ci_low"],
                ci_high=r["ci_high"], episodes=r["episodes"],
                in_band=in_band(r["win_rate"], target, tolerance), reason=reason)


def search_round(evaluate: Callable[[Values, str], Mapping[str, Any]], start: Values,
                 ranges: Sequence[tuple[int, int]], change: Callable[[int, int, int], str],
                 target: float, tolerance: float, max_steps: int, *, rnd: int,
                 start_label: str, note: Callable[[Note], None] | None = None,
                 signs: Sequence[int] | None = None) -> RoundResult:
    """One round of the search from `start` (see the module doc).

    `evaluate(values, label)` measures a setting on the round's dice (win_rate, ci_low,
    ci_high, episodes); `change(i, old, new)` words a step of knob `i`. `signs[i]`: +1 where
    knob `i` up helps the PCs, -1 where it helps their foes, 0 unknown (`evaluation.knobs.knob_sign`);
    a knob with a sign is stepped only toward the target."""
    say = note or (lambda n: None)

    def gap(r: Mapping[str, Any]) -> float:
        return abs(r["win_rate"] - target)

    def inside(r: Mapping[str, Any]) -> bool:
        return in_band(r["win_rate"], target, tolerance)

    cur = tuple(start)
    res = first = evaluate(cur, start_label)
    say(measured("start", rnd, 0, start_label, res, target, tolerance,
                 ("inside" if inside(res) else "outside") + f" the band {_pct(target)} +- {_pct(tolerance)}"))
    out = RoundResult(values=cur, result=res, start=first)
    for step in range(1, max_steps + 1):
        gap0 = gap(res)
        if gap0 <= tolerance / 2 + EDGE:
            say(Note(rnd, step - 1, "stop", reason=f"{_pct(res['win_rate'])} is within half the tolerance "
                                                   f"of the target {_pct(target)}"))
            break
        contenders: list[tuple[float, int, Values, str, Mapping[str, Any]]] = []
        want = 1 if res["win_rate"] < target else -1     # the PCs need help (+1), or their foes do
        for i in range(len(cur)):
            sign = signs[i] if signs is not None else 0
            for dv in (-1, 1):
                if sign and sign * dv != want:
                    continue                              # a step away from the target
                v = cur[i] + dv
                if not ranges[i][0] <= v <= ranges[i][1]:
                    continue
                cand = cur[:i] + (v,) + cur[i + 1:]
                text = change(i, cur[i], v)
                r = evaluate(cand, text)
                if gap(r) >= gap0:
                    why = f"dropped: not nearer the target than the current {_pct(res['win_rate'])}"
                else:
                    why = f"a contender: {100 * gap(r):.1f} points from the target"
                    contenders.append((gap(r), len(contenders), cand, text, r))
                say(measured("try", rnd, step, text, r, target, tolerance, why))
        if not contenders:
            say(Note(rnd, step, "stop", reason="no neighbour is nearer the target"))
            break
        g, _, cand, text, r = min(contenders, key=lambda c: (c[0], c[1]))
        cur, res = cand, r
        others = f" of {len(contenders)} contenders" if len(contenders) > 1 else ""
        say(measured("keep", rnd, step, text, r, target, tolerance,
                     f"kept: the nearest to the target{others} ({100 * g:.1f} points off), "
                     + ("inside" if inside(r) else "outside") + " the band"))
        out.moves.append((step, text, r))
    else:
        say(Note(rnd, max_steps, "stop", reason=f"the step limit ({max_steps}) is reached"))
    out.values, out.result = cur, res
    return out


def check_note(check: Mapping[str, Any], pooled: Mapping[str, Any], target: float, tolerance: float,
               more: tuple[int, int] | None) -> Note:
    """The note of a round's fresh check; `pooled`: every fresh check of these settings together.

    `more`: (search seed, fights per candidate) of the next round, or None when none follows."""
    r = {"win_rate": check["pc_win_rate"], "ci_low": check["ci_low"], "ci_high": check["ci_high"],
         "episodes": check["episodes"]}
    why = ""
    if len(pooled["rounds"]) > 1:
        why = (f"with the earlier checks of these settings {_pct(pooled['pc_win_rate'])} "
               f"({_pct(pooled['ci_low'])} - {_pct(pooled['ci_high'])}) over {pooled['episodes']} fights, ")
    if in_band(pooled["pc_win_rate"], target, tolerance):
        why += "inside the band: the tuner stops here"
    elif more is not None:
        why += (f"outside the band: round {check['round'] + 1} searches on from these settings "
                f"on new dice (seed {more[0]}, {more[1]} fights per candidate)")
    else:
        why += "outside the band, and no refinement round is left (--refine): NOT within tolerance"
    return measured("check", check["round"], 0, f"fresh check on seed {check['seed']}", r, target, tolerance, why)
