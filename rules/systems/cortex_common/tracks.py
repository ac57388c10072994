"""The Cortex damage tracks a GM may set (issue #33, "The GM overrules the engine").

Two tracks, Stun (0 to Life Points: Stun above Life Points becomes Wound, assumption
stun_overflow) and Wound (0 to twice Life Points: dead there, assumption dying). Setting one
re-derives what the total means under RULES-NOTES ("When Stun + Wound reach Life Points the
character rolls Endurance ... to stay conscious. Wounds at or above Life Points: dying ...
death at Wounds of twice Life Points"), with no dice (assumption gm_tracks):

- Wound at twice Life Points or more: dead (dying ends);
- Wound at Life Points or more: dying (down);
- otherwise Stun + Wound at Life Points or more: unconscious, as if the Endurance roll failed
  (the GM lifts `unconscious` with a condition override when the figure passed it);
- lowering a track below a threshold lifts what it gave: below twice Life Points a dead
  figure is dying again, below Life Points no longer dying, and Stun + Wound below Life
  Points wakes an unconscious figure.
"""

from __future__ import annotations

from rules.events import Event, event
from rules.state import BattleState, Combatant

TRACK_CONDITIONS = {"dying": "wound", "dead": "wound"}


class CortexTracks:
    """`damage_tracks`, `set_track` and `detach` for the Cortex-family rulesets."""

    def damage_tracks(self, c: Combatant) -> dict[str, tuple[int, int]]:
        L = int(c.stats["life"])
        return {"stun": (int(c.res["stun"]), L), "wound": (int(c.res["wound"]), 2 * L)}

    def track_conditions(self) -> dict[str, str]:
        return dict(TRACK_CONDITIONS)

    def set_track(self, state: BattleState, c: Combatant, name: str, value: int) -> list[Event]:
        was_down = c.down
        c.res[name] = int(value)
        L = int(c.stats["life"])
        S, W = int(c.res["stun"]), int(c.res["wound"])
        cond = c.conditions
        evs: list[Event] = []
        why = f"GM: {name} {value}"
        if W >= 2 * L:
            if "dying" in cond:
                cond.discard("dying")
                evs.append(event("condition", target=c.id, condition="dying", on=False, cause=why))
            if "dead" not in cond:
                cond.add("dead")
                evs.append(event("dead", target=c.id, cause=why))
        else:
            if "dead" in cond:
                cond.discard("dead")
                evs.append(event("condition", target=c.id, condition="dead", on=False, cause=why))
            if W >= L:
                if "dying" not in cond:
                    cond.add("dying")
                    evs.append(event("down", target=c.id, reason=f"dying ({why})"))
            else:
                if "dying" in cond:
                    cond.discard("dying")
                    evs.append(event("condition", target=c.id, condition="dying", on=False, cause=why))
                if S + W >= L and "unconscious" not in cond:
                    cond.add("unconscious")
                    evs.append(event("down", target=c.id, reason=f"unconscious ({why})"))
        if S + W < L and "unconscious" in cond:
            cond.discard("unconscious")
            evs.append(event("condition", target=c.id, condition="unconscious", on=False, cause=why))
        if c.down and not was_down:
            evs += self.release_grapple(state, c)
        return evs

    def detach(self, state: BattleState, c: Combatant, why: str) -> list[Event]:
        """A figure moved away or out of the fight lets go of its grapples (and is let go)."""
        return self.release_grapple(state, c)


__all__ = ["CortexTracks", "TRACK_CONDITIONS"]
