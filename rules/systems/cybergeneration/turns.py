"""The round of seed 004 (Your Turn, the Facedown): initiative, the start and end of a turn
and of a round, and the upkeep of fallen figures that still roll. A mixin of
`CybergenerationRuleset` (first among its bases, so these are the methods that answer, as
when they were written in the class); delays and held actions are in `timing.py`."""

from __future__ import annotations

from typing import Any

from rules.dice import Dice
from rules.events import Event, event
from rules.state import BattleState, Combatant
from rules.systems.cybergeneration.checks import d10_call, roll_ev


class TurnsMixin:
    """Initiative, turn and round start and end, and fallen figures' upkeep (see the module)."""

    def needs_upkeep(self, c: Combatant) -> bool:
        """A fallen figure that still rolls each round: waking, or stabilising while dying."""
        if c.dead:
            return False
        if "dying" in c.conditions:
            return True
        return bool(c.conditions & {"unconscious", "stunned", "incapacitated"}) and self.remaining(c) > 0

    def roll_initiative(self, state: BattleState, dice: Dice) -> tuple[list[str], list[Event]]:
        """seed 004, the Facedown: REF + 1d10, highest first; Solos add combat sense."""
        for c in state.combatants:
            c.res["delays"] = 0
        active = [c for c in state.combatants if not c.down]
        waiting = [c.id for c in state.combatants if c.down and self.needs_upkeep(c)]
        if state.settings.get("initiative") == "fixed":
            order = [c.id for c in active] + waiting
            return order, [event("initiative", round=state.round, order=list(order), mode="fixed")]
        evs: list[Event] = []
        keyed = []
        for c in active:
            ref = self.stat(c, "ref")
            sense = self.skill(c, "combat_sense") if self.is_type(c, "solo") else 0
            words = f"REF {ref}" + (f" + combat sense {sense}" if sense else "")
            dice.announce(d10_call(c.id, "initiative", "initiative", words, [("combat sense", sense)]))
            r = dice.roll(10, "initiative")
            total = ref + sense + r
            evs.append(roll_ev(c.id, "initiative", "initiative", [[10, r]], total, [("combat sense", sense)],
                               pool=words + " + 1d10"))
            keyed.append((-total, -ref, c.order, c.id))
        keyed.sort()
        order = [k[3] for k in keyed] + waiting
        evs.append(event("initiative", round=state.round, order=list(order)))
        return order, evs

    def fresh_economy(self, state: BattleState, a: Combatant) -> dict[str, Any]:
        e = {"move": "", "move_units": 0, "actions": 0, "max_actions": 1, "two": False, "ran": False,
             "steady": None, "aim": 0, "suppress": "", "suppress_pen": 0, "resumed": False, "woke": False,
             "turn_over": False}
        state.economy = e
        return e

    def start_turn(self, state: BattleState, actor: Combatant, dice: Dice) -> tuple[bool, list[Event]]:
        r = actor.res
        resume = r["resume"]
        if resume is not None and resume["round"] == state.round:
            r["resume"] = None
            state.economy = dict(resume["economy"], resumed=True, turn_over=False)
            return not actor.down, [event("info", text=f"{actor.id} takes the delayed rest of its turn")]
        r["resume"] = None
        e = self.fresh_economy(state, actor)
        evs: list[Event] = []
        if r["turn_round"] != state.round:
            r["turn_round"] = state.round
            evs += self.recover_stun_mod(actor, state)
            evs += self.start_of_turn_upkeep(state, actor)
            if r["aim_round"] == state.round:
                e["aim"] = self.mod["aim"]
            if r["suppressed_by"] and not actor.down:
                evs += self.suppression_check(state, actor, dice)
        elif r["aim_round"] == state.round:
            e["aim"] = self.mod["aim"]
        if r["woke_round"] == state.round:
            e["woke"] = True
            e["actions"] = e["max_actions"]  # seed 004: 'they may move, but not perform an action'
        return not actor.down, evs

    def start_turn_touches(self, state: BattleState, actor: Combatant) -> set[str]:
        """start_turn changes the actor and, where its suppression ends (start_of_turn_upkeep ->
        end_suppression), the figures it suppressed; the suppression check only reads the zones."""
        if actor.res["zone"] is None:
            return {actor.id}
        return {actor.id} | {o.id for o in state.combatants if actor.id in o.res["suppressed_by"]}

    def start_of_turn_upkeep(self, state: BattleState, a: Combatant) -> list[Event]:
        """Effects that last 'until the figure's next turn' end now: dodging, aiming, its suppression."""
        evs: list[Event] = []
        if a.res["dodge"]:
            a.res["dodge"] = 0
            a.conditions.discard("dodging")
        if a.res["aim_round"] < state.round and "aiming" in a.conditions:
            a.conditions.discard("aiming")
            evs.append(event("condition", target=a.id, condition="aiming", on=False))
        if a.res["zone"] is not None:
            evs += self.end_suppression(state, a)
        return evs

    def upkeep_down(self, state: BattleState, actor: Combatant, dice: Dice) -> list[Event]:
        """A fallen figure's turn: stun modifier recovery, then waking or stabilising rolls."""
        if actor.res["upkeep_round"] == state.round:
            return []
        actor.res["upkeep_round"] = state.round
        evs = self.recover_stun_mod(actor, state)
        evs += self.fallen_rolls(state, actor, dice)
        return evs

    def end_turn(self, state: BattleState, actor: Combatant, dice: Dice) -> list[Event]:
        return []

    def end_round(self, state: BattleState, dice: Dice) -> list[Event]:
        """Held actions lapse at the end of the round (seed 004: 'later in the same round')."""
        evs: list[Event] = []
        for c in state.combatants:
            if c.res["trigger"] is not None:
                evs += self.clear_trigger(c, "the held action lapses")
            c.res["resume"] = None
        return evs
