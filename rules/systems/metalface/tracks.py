"""What a GM may set on a METALFACE figure directly (issue #33).

One damage track, `status`: the Status points left, 0 to the figure's maximum (seed 003,
Status Levels). Setting it re-derives the Status level (weakening, suffering, critical,
non_responsive) with the ruleset's thresholds (assumption status_thresholds) and the down
state, as damage and repairs do (`sync_level`): Status 0 is Non-Responsive (down); raising it
brings a figure back into the fight only at the repair threshold (`back_up_at`, assumption
recover_at), below which it stays incapacitated with the lower level. No dice.

One condition a GM may put on or take off: `prone` (lying down: posture `lie`; taken off,
the figure stands). The Status levels and `incapacitated` follow the status track.
"""

from __future__ import annotations

from rules.events import Event
from rules.ruleset import condition_events
from rules.state import BattleState, Combatant
from rules.systems.metalface.geometry import bearing
from rules.systems.metalface.start import LEVEL_CONDITIONS


class MetalfaceGM:
    """The GM's overrides for `MetalfaceRuleset`."""

    def damage_tracks(self, c: Combatant) -> dict[str, tuple[int, int]]:
        mx = int(c.stats["status"])
        return {"status": (max(0, mx - int(c.res["damage"])), mx)}

    def track_conditions(self) -> dict[str, str]:
        return {name: "status" for name in LEVEL_CONDITIONS}

    def set_track(self, state: BattleState, c: Combatant, name: str, value: int) -> list[Event]:
        c.res["damage"] = int(c.stats["status"]) - int(value)
        return self.sync_level(c)

    def gm_conditions(self) -> tuple[str, ...]:
        return ("prone",)

    def set_condition(self, state: BattleState, c: Combatant, name: str, on: bool) -> list[Event]:
        before = set(c.conditions)
        c.res["posture"] = "lie" if on else "stand"
        (c.conditions.add if on else c.conditions.discard)("prone")
        return condition_events(c, before, "GM")

    def join(self, state: BattleState, c: Combatant) -> list[Event]:
        """As `setup` does: a figure without a `facing` faces the nearest enemy (assumption facings)."""
        face_nearest_foe(state, c)
        return []


def face_nearest_foe(state: BattleState, c: Combatant) -> None:
    """A figure whose scenario gives no `facing` faces the nearest enemy (assumption facings);
    at set-up (`setup`) and when a GM adds it (`join`)."""
    if c.res.get("auto_facing"):
        g = state.grid
        foes = [o for o in state.combatants if o.team != c.team]
        if foes:
            o = min(foes, key=lambda o: (g.distance_m(c.pos, o.pos), o.order))
            b = bearing(g, c.pos, o.pos)
            c.res["facing"] = b if b >= 0 else 0
        c.res["auto_facing"] = False


__all__ = ["MetalfaceGM"]
