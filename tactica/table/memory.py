"""The NPC policies' memory of a fight, rebuilt when a session is resumed.

A save holds each policy's generator (`policy_states`), not what it remembers of the fight:
`tactical`'s threats seen, its offence, the danger it found by cell, its move tiers, a
network's last action. Resumed with fresh policies (and only the current turn's actions
committed), an NPC could decide otherwise than the one that never stopped: cortex/warehouse
seed 3 after 12 decisions, Heavy dropped prone unstopped and moved resumed (found 2026-12-07;
tests/test_dice_state.py). A session that holds its whole history (its start dice and every
step) is played again here, on a scratch session with the same scenario, seed, roles and
behaviour: each step a plan was made for is planned again (history `planned`; in saves
before that flag, every step of a team a policy plays), then resolved with the step's own
dice, so the policies see and remember what they did. The result is taken only where the
fight played again ends where the save's does; otherwise (a GM override in the history, a
damaged or made-up history, more than `MAX_STEPS` steps) the resumed policies start afresh as
before. The history is played with the roles and behaviour the session has now: where the GM
changed a team's policy or behaviour mid-fight, the rebuilt memory is that of today's policy
over the whole fight, not the live one's since the change (a known limit).
"""

from __future__ import annotations

from typing import Any

from rules.actions import Action
from rules.battle import Battle
from rules.dice import Dice
from rules.errors import TacticaError
from rules.scenario import new_battle, parse_scenario
from rules.serialize import battle_to_dict

#: a step the session planned before resolving it (a plan of that decision was shown or asked for)
PLANNED = "planned"
#: the longest history played again (each step may be an NPC's whole decision, 0.05 s with `best`:
#: an 80-decision fight resumes in 3-4 s); a longer one (or a state posted to the API with a
#: made-up history) resumes with fresh policies, as before
MAX_STEPS = 400


def _fight(b: Battle) -> dict[str, Any]:
    """What must agree between the fight played again and the saved one."""
    d = battle_to_dict(b, {}, include_events=False)
    d.pop("scenario", None)
    d.pop("dice", None)   # the same numbers, told in two ways (a save's generator is wound back)
    return d


def replayed_policies(session: Any) -> dict[str, Any] | None:
    """The policies of `session` as they stand after its history, played again; None when the
    history cannot be played again exactly (see the module)."""
    history, start = session.history, session.start_dice
    if not session.policies or start is None or not history or len(history) > MAX_STEPS:
        return None
    if any(h.get("override") is not None for h in history):
        return None
    cls = type(session)
    try:
        spec = parse_scenario(session.scenario_doc, "<session>")
        battle = new_battle(spec, Dice(session.seed), "<session>")
        scratch = cls(battle, session.scenario_doc, session.roles, seed=session.seed, dice_mode="engine",
                      confirm=session.confirm, ask_all=session.ask_all)
        if session.behaviour is not None:
            scratch.set_behaviour(session.behaviour)
        scratch._run(lambda b: b.start(), None, list(start))
        for h in history:
            s = scratch.state
            if s.over or s.actor is None or s.actor.id != h.get("actor"):
                return None
            action = Action.from_dict(h["action"], s.grid.width)
            planned = h.get(PLANNED, s.actor.team in scratch.policies)
            if planned and s.actor.team in scratch.policies:
                scratch.plan(alternatives=False)
            scratch.resolve(action, by=h.get("by", "gm"), dice=list(h.get("dice", [])))
    except (TacticaError, KeyError, TypeError, ValueError):
        return None
    if _fight(scratch.battle) != _fight(session.battle):
        return None
    return scratch.policies
