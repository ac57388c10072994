"""What a GM may set on a `cortex_hu` figure directly (issue #33): its damage tracks (the
shared Cortex ones, `cortex_common/tracks.py`) and its conditions.

Conditions a GM may put on or take off: `prone`, `aiming` (one round of aim on; off loses
all aim), `surprised`, `knocked_out` (out for 1 turn, as if the knockout die showed 1;
assumption gm_tracks), `leg_useless` (the figure falls prone, as the called shot makes it),
`arm_useless` and `unconscious`. `dying` and `dead` follow the wound track; `grappled`,
`grappling` and `feinted` tie two figures and come only from the actions.
"""

from __future__ import annotations

from rules.events import Event
from rules.ruleset import condition_events
from rules.state import DOWN_CONDITIONS, BattleState, Combatant
from rules.systems.cortex_common.tracks import CortexTracks
from rules.systems.cortex_hu.start import _aim, _surprise

GM_CONDITIONS = ("prone", "aiming", "surprised", "knocked_out", "leg_useless", "arm_useless", "unconscious")


class CortexHuGM(CortexTracks):
    """The GM's overrides for `CortexHuRuleset`."""

    #: data.yaml assumptions prepared_defence and full_defence
    defend_words = {
        "parry": "parries the next hand-to-hand attack",
        "dodge": "dodges the next hand-to-hand attack",
        "full_defence": "free: defence rolls +2; no attacks",
    }

    def gm_conditions(self) -> tuple[str, ...]:
        return GM_CONDITIONS

    def set_condition(self, state: BattleState, c: Combatant, name: str, on: bool) -> list[Event]:
        before = set(c.conditions)
        if name == "aiming":
            _aim(self, c, 1) if on else self.lose_aim(c)
        elif name == "surprised":
            _surprise(c, on)
        elif name == "knocked_out":
            if on and name not in c.conditions:
                c.res["ko_turns"] = 1
                c.res["prepared"] = []
                self.lose_aim(c)
                c.conditions.add(name)
            elif not on:
                c.res["ko_turns"] = 0
                c.conditions.discard(name)
        elif on:
            c.conditions |= {"leg_useless", "prone"} if name == "leg_useless" else {name}
        else:
            c.conditions.discard(name)
        evs = condition_events(c, before, "GM")
        if c.down and DOWN_CONDITIONS.isdisjoint(before):
            evs += self.release_grapple(state, c)
        return evs

    def detach(self, state: BattleState, c: Combatant, why: str) -> list[Event]:
        """Grapples end (`release_grapple`); taken out of the fight, its feints end too."""
        evs = self.release_grapple(state, c)
        if why == "remove":
            for o in state.combatants:
                if o.res.get("feinted_by") == c.id:
                    o.res["feinted_by"] = None
                    if "feinted" in o.conditions:
                        before = set(o.conditions)
                        o.conditions.discard("feinted")
                        evs += condition_events(o, before, "GM")
        return evs


__all__ = ["CortexHuGM", "GM_CONDITIONS"]
