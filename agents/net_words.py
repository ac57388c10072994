"""The learned players' reasons in a GM's words: the network alone (`ppo`, `NumpyPolicy`) and the
network with the planner's lookahead (`selective`, `planner-net` ... : `SelectivePolicy`).

A GM at the table reads an NPC's plan and its reason before confirming it. A network has no score
a GM can check, but it has what it weighed: its probability for each action, what its advisor
(`tactical` or `bold`) would have done, and, where it looked ahead, the mean result of each
candidate played out on the same dice. These lines say that with the action's own numbers first
(hit odds, expected damage, cover, the path: agents/reasons.py), actions named as the map shows
them ("move to [18, 8]", never a cell index). Nothing here changes the state or a decision.
"""

from __future__ import annotations

from typing import Sequence

from agents import reasons
from rules.actions import Action
from rules.state import BattleState, Combatant

#: what a lookahead's number means (agents/planner.py `evaluate`), said once per line
STANDING = "our side's standing after it, health and figures up, ours minus theirs"
#: a probability below this is not worth a GM's reading
SHOWN = 0.005


def pct(q: float) -> str:
    """A probability as a GM reads it: "62%", and "<1%" / ">99%" for what rounds to 0% or 100% but is not."""
    text = f"{q:.0%}"
    if q > 0.0 and text == "0%":
        return "<1%"
    if q < 1.0 and text == "100%":
        return ">99%"
    return text


def head(state: BattleState, actor: Combatant, action: Action) -> str:
    """"Heavy moves to [17, 9]: 2.2 m, ..." (the action's numbers), or "Heavy: drop prone"."""
    words = reasons.attack_words(state, actor, action) or reasons.move_words(state, actor, action)
    return f"{actor.name} {words}" if words else f"{actor.name}: {reasons.label(state, action)}"


def network(state: BattleState, action: Action, probs: Sequence[tuple[float, Action]], drawn: bool = False) -> str:
    """What the network gave `action` among its likeliest `probs` ((p, action), likeliest first): "the
    network's first choice at 62% (then move to [18, 8] 16%, stand up 10%)", or "the network gave it 18%
    (first: move to [18, 8] 62%, ...)"; `drawn`: a sampling network drew it at that probability."""
    if not probs:
        return "the network's only choice"
    mine = next((q for q, a in probs if a == action), None)
    if probs[0][1] == action:
        rest = [f"{reasons.label(state, a)} {pct(q)}" for q, a in probs[1:] if q >= SHOWN]
        return f"the network's first choice at {pct(mine)}" + (f" (then {', '.join(rest)})" if rest else "")
    others = ", ".join(f"{reasons.label(state, a)} {pct(q)}" for q, a in probs if a != action and q >= SHOWN)
    gave = f"the network gave it {pct(mine)}" if mine is not None else "not among the network's likeliest"
    return gave + (", drawn at that chance" if drawn and mine is not None else "") + f" (first: {others})"


def advice(state: BattleState, action: Action, advisor: str, pick: Action | None) -> str:
    """"tactical advised the same" / "tactical advised move to [18, 9]"; '' without advice."""
    if not advisor or pick is None:
        return ""
    if pick == action:
        return f"{advisor} advised the same"
    return f"{advisor} advised {reasons.label(state, pick)}"


def search(state: BattleState, action: Action, pick: Action, cands: Sequence[Action],
           samples: dict[Action, list[float]], guide: str, horizon: int = 1, confidence: float = 1.5,
           whose: str = "the network's", noun: str = "likeliest", choice: str = "") -> str:
    """What the lookahead found: each candidate's mean over its rollouts, and whether the pick of `whose`
    ranking stood; where another candidate did better on the dice streams both were rolled on but the pick
    stood, that its lead was within the dice's spread (agents/planner.py `pick`: a paired comparison on at
    least 3 shared streams).

    The planner halves its candidates as it goes (`PlannerPolicy.lookahead`): one that falls behind on the first
    streams is not rolled on the later ones. Its mean is over fewer streams, so it is said so, and it is
    compared with the pick on the streams they share only (the means over all of each one's streams are of
    different dice). `choice`: the words for `pick` where it is not `whose` choice ("the next choice")."""
    choice = choice or f"{whose} choice"
    shown = [a for a in cands if samples.get(a)]
    if not shown:
        return ""
    mean = means(samples)
    n = max(len(samples[a]) for a in shown)
    turns = "one more turn" if horizon == 1 else f"{horizon} more turns"

    def found(a: Action) -> str:
        k = len(samples[a])
        fewer = "" if k == n else f" (on the first {k}, then left behind)"
        return f"{reasons.label(state, a)} {mean[a]:+.2f}{fewer}"

    line = (f"looked ahead over {whose} {len(shown)} {noun} on the same {n} dice streams, {turns} each with {guide} "
            f"playing our side ({STANDING}): " + ", ".join(found(a) for a in shown))
    if len({tuple(samples[a]) for a in shown}) == 1:
        return line + f"; all came out alike on every stream: no difference {turns} ahead, {choice} stands"
    if action != pick:
        k = min(len(samples.get(action, ())), len(samples.get(pick, ())))
        lead = paired_lead(samples, action, pick)
        return line + (f"; plays it over {choice} ({reasons.label(state, pick)}): "
                       f"{lead:+.2f} on the same dice" + ("" if k == n else f" (its {k} streams)"))
    line += f"; {choice} stands"
    if pick not in mean:
        return line
    leads = {a: paired_lead(samples, a, pick) for a in shown if a != pick}
    rival = max(leads, key=lambda a: leads[a], default=None)
    if rival is not None and leads[rival] > 1e-9:
        k = min(len(samples[rival]), len(samples[pick]))
        why = (f"is within the dice's spread over {k} streams (it must be {confidence:g} standard errors)" if k >= 3
               else f"rests on {k} stream{'s' if k != 1 else ''}, too few to tell (at least 3)")
        line += f": {reasons.label(state, rival)}'s lead ({leads[rival]:+.2f} on the same dice) {why}"
    return line


def paired_lead(samples: dict[Action, list[float]], a: Action, b: Action) -> float:
    """How much better `a` did than `b` on the dice streams both were rolled on (their first k)."""
    xs, ys = samples.get(a, ()), samples.get(b, ())
    k = min(len(xs), len(ys))
    return (sum(xs[:k]) - sum(ys[:k])) / k if k else 0.0


def means(samples: dict[Action, list[float]]) -> dict[Action, float]:
    """Each looked-ahead candidate's mean rollout score."""
    return {a: sum(v) / len(v) for a, v in samples.items() if v}


def choices(probs: Sequence[tuple[float, Action]], samples: dict[Action, list[float]] | None = None
            ) -> list[tuple[Action, str]]:
    """The network's candidates, likeliest first, each with what the player knew of it: "the network
    16%; looked ahead -0.24" (the table's alternatives), "-0.24 on 2 streams, then left behind" where the
    search stopped rolling it early (`search`)."""
    samples = samples or {}
    mean = means(samples)
    n = max((len(v) for v in samples.values()), default=0)

    def looked(a: Action) -> str:
        k = len(samples[a])
        return f"; looked ahead {mean[a]:+.2f}" + ("" if k == n else f" on {k} streams, then left behind")
    return [(a, f"the network {pct(q)}" + (looked(a) if a in mean else "")) for q, a in probs]
