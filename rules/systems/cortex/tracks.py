"""What a GM may set on a `cortex` figure directly (issue #33): its damage tracks (the shared
Cortex ones, `cortex_common/tracks.py`) and its conditions.

Conditions a GM may put on or take off: `prone`, `knocked` (prone and off balance; taking
`prone` off also ends `knocked`), `unconscious`, and the called-shot afflictions
(`arm_lost`, `leg_lost`, `hand_lost`, `knocked_out`, `incapacitated`, `impaired`,
`crawl_only`), which a GM gives as an affliction lasting until medical treatment (the whole
fight, assumption medical_treatment), as a scenario's starting conditions do
(`start.py`). `dying` and `dead` follow the wound track.
"""

from __future__ import annotations

from rules.events import Event
from rules.ruleset import condition_events
from rules.state import BattleState, Combatant
from rules.systems.cortex.start import AFFLICTIONS
from rules.systems.cortex_common.tracks import CortexTracks

GM_CONDITIONS = ("prone", "knocked", "unconscious") + tuple(AFFLICTIONS)


class CortexGM(CortexTracks):
    """The GM's overrides for `CortexRuleset`."""

    #: data.yaml assumptions defence_stance and all_out_defence; rules/systems/cortex/defence.py
    #: (a block answers hand-to-hand attacks only, a dodge any attack, a shot with a dive to cover)
    defend_words = {
        "block": "blocks hand-to-hand till its next turn",
        "dodge": "dodges every attack till its next turn",
        "all_out_block": "the block at +2 steps, no other action",
        "all_out_dodge": "the dodge at +2 steps, no other action",
    }

    def gm_conditions(self) -> tuple[str, ...]:
        return GM_CONDITIONS

    def set_condition(self, state: BattleState, c: Combatant, name: str, on: bool) -> list[Event]:
        before = set(c.conditions)
        if name in AFFLICTIONS:
            if on and name not in c.conditions:
                effect, given = AFFLICTIONS[name]
                c.res["afflictions"].append({"area": "gm", "effect": effect, "until": "medical",
                                             "conds": list(given), "blunt": False})
            elif not on:
                kept = []
                for a in c.res["afflictions"]:
                    if name in a["conds"]:
                        a = dict(a, conds=[x for x in a["conds"] if x != name])
                    if a["conds"]:
                        kept.append(a)
                c.res["afflictions"] = kept
            self.sync_afflictions(c)
        elif on:
            c.conditions |= {"prone", "knocked"} if name == "knocked" else {name}
        else:
            c.conditions -= {"prone", "knocked"} if name == "prone" else {name}
        evs = condition_events(c, before, "GM")
        if c.down and not (before & {"unconscious", "dying", "dead", "incapacitated", "knocked_out"}):
            evs += self.release_grapple(state, c)
        return evs


__all__ = ["CortexGM", "GM_CONDITIONS"]
