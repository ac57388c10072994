"""The NPC brain at the table: a policy's choice, its reason and the next best alternatives."""


from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


from agents.base import policy_copy
from rules.actions import Action
from rules.dice import Dice
from rules.errors import IllegalActionError, TacticaError
from rules.state import BattleState, Combatant
from tactica.table.base import ADVISOR_POLICY, DEFAULT_POLICY, SessionError
from tactica.table.words import action_json, cannot_succeed, command_for, describe_action


@dataclass
class Alternative:
    action: Action
    reason: str
    score: float | None = None

    def to_json(self, state: BattleState) -> dict[str, Any]:
        d: dict[str, Any] = {"action": action_json(state, self.action), "reason": self.reason,
                             "command": command_for(state, self.action)}
        if self.score is not None:
            d["score"] = round(float(self.score), 4)
        return d


@dataclass
class Plan:
    actor: str
    policy: str
    action: Action
    reason: str
    alternatives: list[Alternative] = field(default_factory=list)
    hypothetical: bool = False

    def to_json(self, state: BattleState) -> dict[str, Any]:
        d = {"actor": self.actor, "policy": self.policy, "action": action_json(state, self.action),
             "command": command_for(state, self.action), "reason": self.reason,
             "alternatives": [a.to_json(state) for a in self.alternatives]}
        if self.hypothetical:
            d["hypothetical"] = True
        return d


def _make_policy(name: str, seed: int, state: BattleState | None = None):
    """A policy by name; with `state`, `best` picks its player for that fight at once (so a
    save holds that player's generators: tactica/table/saves.py)."""
    from agents.base import make_policy

    try:
        pol = make_policy(name, seed=seed)
        resolve = getattr(pol, "resolve", None)
        if state is not None and resolve is not None:
            resolve(state)
        return pol
    except TacticaError:
        raise
    except (ImportError, AttributeError, OSError, ValueError) as e:
        raise SessionError(f"policy {name!r} cannot be loaded: {e.__class__.__name__}: {e}", field="policy",
                           expected="an installed policy (see agents/)") from None


def _ranked(policy, state: BattleState, actor: Combatant) -> list[tuple[Action, str, float | None]]:
    """(action, reason, score) best first from a policy that can rank (`rank`), else []."""
    rank = getattr(policy, "rank", None)
    if rank is None:
        return []
    try:
        choices = rank(state, actor)
    except Exception:  # noqa: BLE001 - alternatives are advice; the plan itself stands
        return []
    out = []
    for c in choices:
        a = getattr(c, "action", None)
        if isinstance(a, Action):
            reason = str(getattr(c, "reason", "") or "")
            if reason and not reason.startswith(actor.name):
                reason = f"{actor.name} {reason}"
            out.append((a, reason, getattr(c, "score", None)))
    return out


def _odds_ranked(state: BattleState, legal: list[Action]) -> list[tuple[Action, str, float | None]]:
    """Legal actions scored without a policy: attacks by expected damage, then the rest."""
    from rules.ruleset import get_ruleset

    rs = get_ruleset(state.ruleset)
    actor = state.actor
    scored: list[tuple[float, int, Action, str]] = []
    for i, a in enumerate(legal):
        if a.kind == "move":
            continue
        o = None
        if a.kind in ("attack", "grapple"):
            try:
                o = rs.attack_odds(state, actor, a)
            except Exception:  # noqa: BLE001
                o = None
        if o and float(o.get("p_hit", 0.0)) <= 0.0:
            continue
        if o:
            t = state.by_id.get(a.target) if a.target else None
            hp = max(1e-9, rs.health(t)[0]) if t is not None else 1.0
            score = float(o.get("exp_damage", 0.0)) / hp
            scored.append((score, i, a, f"{describe_action(state, a, with_odds=False)}: "
                                        f"{o.get('p_hit', 0):.0%} to hit, {o.get('exp_damage', 0):.1f} expected damage"))
        else:
            scored.append((0.0 if a.kind != "end_turn" else -0.01, i, a, describe_action(state, a, with_odds=False)))
    scored.sort(key=lambda s: (-s[0], s[1]))
    return [(a, r, sc) for sc, _, a, r in scored]


def alternatives_for(state: BattleState, actor: Combatant, chosen: Action, ranker=None, n: int = 4,
                     seed: int = 0, own=None) -> list[Alternative]:
    """The next best actions after `chosen`: first the policy's `own` view of this decision where
    it keeps one (a learned player's `last_choices`: (action, words) likeliest first, each shown
    with its numbers and then the player's words), then from `ranker.rank` (or the advisor
    policy), then the legal actions scored by the ruleset's odds; at least 3 when that many are
    legal."""
    from agents import net_words
    from rules.ruleset import get_ruleset

    legal = get_ruleset(state.ruleset).legal_actions(state)
    legal_set = set(legal)
    out: list[Alternative] = []
    seen = {chosen}
    for a, note in own or ():
        if len(out) >= n:
            break
        if a in seen or a not in legal_set or cannot_succeed(state, a):
            continue
        seen.add(a)
        out.append(Alternative(a, f"{net_words.head(state, actor, a)} - {note}"))
    pools = []
    if ranker is not None:
        pools.append(_ranked(ranker, state, actor))
    if ranker is None or not pools[0]:
        try:
            pools.append(_ranked(_make_policy(ADVISOR_POLICY, seed), state, actor))
        except TacticaError:
            pass
    pools.append(_odds_ranked(state, legal))
    moves_listed = sum(x.action.kind == "move" for x in out)
    for pool in pools:
        for a, reason, score in pool:
            if len(out) >= n:
                break
            if a in seen or a not in legal_set or cannot_succeed(state, a):
                continue
            if a.kind == "move" and moves_listed >= 2:
                continue
            seen.add(a)
            moves_listed += a.kind == "move"
            out.append(Alternative(a, _in_numbers(state, actor, a, reason or describe_action(state, a)), score))
    return out


def _in_numbers(state: BattleState, actor: Combatant, a: Action, own: str) -> str:
    """An alternative's reason in numbers a GM checks (hit odds, expected damage in the
    ruleset's track, cover gained or lost, the path's length: agents/reasons.py), with what
    the policy meant it for."""
    from agents.reasons import _purpose, attack_words, move_words

    try:  # the numbers only: with none (aim, end the turn) the policy's own words stand
        words = attack_words(state, actor, a) or move_words(state, actor, a)
    except Exception:  # noqa: BLE001 - words are advice; the policy's own reason stands
        words = ""
    if not words:  # a bare description ("delay") is said of the figure, as the policy's words are
        return own if not own or own.startswith(actor.name + " ") else f"{actor.name}: {own}"
    bare = own[len(actor.name) + 1:] if own.startswith(actor.name + " ") else own
    purpose = _purpose(bare) if a.kind == "move" else ""
    purpose = purpose if purpose and purpose != bare else ""
    return f"{actor.name} {words}" + (f" - {purpose}" if purpose else "")


def suggest(state: BattleState, actor_id: str | None = None, policy: str | Any = DEFAULT_POLICY,
            seed: int = 0, n_alternatives: int = 4) -> Plan:
    """The policy's action for a figure with its one-line reason and the next alternatives.

    `state` is not changed. When `actor_id` is not the acting figure, the suggestion is for
    a fresh turn of that figure now (`hypothetical`)."""
    from rules.ruleset import get_ruleset

    rs = get_ruleset(state.ruleset)
    if state.over:
        raise IllegalActionError("the fight is over", field="state", expected="a fight in progress")
    hypothetical = False
    s = state.clone()
    cur = s.actor
    if actor_id is None:
        if cur is None:
            raise IllegalActionError("no figure is acting", field="state", expected="a fight in progress")
        actor_id = cur.id
    if actor_id not in s.by_id:
        raise SessionError(f"no figure {actor_id!r}", field="actor", expected="one of " + ", ".join(s.by_id))
    if cur is None or cur.id != actor_id:
        from agents.assess import as_acting

        s2 = as_acting(rs, s, actor_id, Dice(seed))
        if s2 is None:
            raise IllegalActionError(f"{actor_id} cannot act (down or out of the fight)", field="actor",
                                     expected="a figure that can act")
        s, hypothetical = s2, True
    me = s.by_id[actor_id]
    pol = _make_policy(policy, seed) if isinstance(policy, str) else policy
    pre = policy_copy(pol, keep=(rs, s.grid)) if hasattr(pol, "rank") else None
    action = pol.act(s, me)
    reason = pol.explain(s, me, action)
    alts = alternatives_for(s, me, action, pre, n_alternatives, seed, getattr(pol, "last_choices", None))
    return Plan(actor_id, getattr(pol, "name", str(policy)), action, reason, alts, hypothetical)


