"""What a GM may set on a Cybergeneration figure directly (issue #33).

One damage track, `wound`: the Wounds taken, 0 to BODY + 5 (Wounds left = BODY - taken,
assumption starting_wounds). Setting it re-derives seed 004's thresholds ("When your wounds
reach 2 or lower your INT, REF and MA are halved. At 0 wounds you automatically pass out. At
-5 wounds, you die") with `sync_wounds`, and no dice: no stun save is rolled (assumption
gm_tracks). Lowering it lifts what the thresholds gave: above -5 Wounds left a dead figure
is alive again, unconscious (and dying below 0); at 0 or more it is no longer dying (nor
stabilised); it stays unconscious and wakes as the rules say, by its stun save at its turn
once its Wounds are above 0 (or by a GM's condition override).

Conditions a GM may put on or take off: `prone`, `knocked` (and prone), `unconscious` (and
prone), `stunned` (in shock: stunned, incapacitated and prone, as a failed stun save's
`shock` answer; taken off, stunned and incapacitated end). `impaired`, `dying` and `dead`
follow the wound track; `dodging`, `aiming`, `holding_action`, `suppressed`, `grappled` and
`grappling` follow the figures' actions.
"""

from __future__ import annotations

from rules.events import Event, event
from rules.ruleset import condition_events
from rules.state import DOWN_CONDITIONS, BattleState, Combatant

GM_CONDITIONS = ("prone", "knocked", "unconscious", "stunned")


class CybergenerationGM:
    """The GM's overrides for `CybergenerationRuleset`."""

    #: data.yaml assumption dodge (seed 004: "Adding 2 to all difficulties to hit")
    defend_words = {
        "dodge": "to hit it +2 (REF 10+: +4) for a turn",
    }

    def damage_tracks(self, c: Combatant) -> dict[str, tuple[int, int]]:
        return {"wound": (int(c.res["wound"]), int(c.stats["stats"]["body"]) + 5)}

    def track_conditions(self) -> dict[str, str]:
        return {"impaired": "wound", "dying": "wound", "dead": "wound"}

    def set_track(self, state: BattleState, c: Combatant, name: str, value: int) -> list[Event]:
        was_down = c.down
        c.res["wound"] = int(value)
        rem = self.remaining(c)
        why = f"GM: wound {value}"
        evs: list[Event] = []
        if c.dead and rem > -5:
            before = set(c.conditions)
            c.conditions.discard("dead")
            c.conditions |= {"unconscious", "prone"}
            evs += condition_events(c, before, why)
        if "dying" in c.conditions and rem >= 0:
            c.conditions.discard("dying")
            evs.append(event("condition", target=c.id, condition="dying", on=False, cause=why))
        if rem >= 0:
            c.res["stable"] = False
        evs += self.sync_wounds(c, state.round)
        if c.down and not was_down:
            evs += self.fall_down(state, c)
        return evs

    def gm_conditions(self) -> tuple[str, ...]:
        return GM_CONDITIONS

    def set_condition(self, state: BattleState, c: Combatant, name: str, on: bool) -> list[Event]:
        before = set(c.conditions)
        if on:
            c.conditions |= {"knocked": {"knocked", "prone"}, "unconscious": {"unconscious", "prone"},
                             "stunned": {"stunned", "incapacitated", "prone"}}.get(name, {name})
            if "unconscious" in c.conditions:
                c.conditions -= {"stunned", "incapacitated"}
        else:
            c.conditions -= {"prone": {"prone", "knocked"}, "stunned": {"stunned", "incapacitated"}}.get(name, {name})
        evs = condition_events(c, before, "GM")
        if c.down and DOWN_CONDITIONS.isdisjoint(before):
            evs += self.fall_down(state, c)
        return evs

    def detach(self, state: BattleState, c: Combatant, why: str) -> list[Event]:
        """Moved: it leaves its grapples. Out of the fight: everything it was doing ends too."""
        return self.fall_down(state, c) if why == "remove" else self.release_all(state, c)


__all__ = ["CybergenerationGM", "GM_CONDITIONS"]
