"""Everything seed 004's rules track for one figure, as JSON (`Ruleset.tracked`, issue #32).

Wounds and their thresholds ("When your wounds reach 2 or lower your INT, REF and MA are
halved. At 0 wounds you automatically pass out. At -5 wounds, you die"), the stun modifier,
weapons carried, drawn, dropped, picked up, broken and jammed, ammunition, armour, every
condition with what ends it (no seed 004 condition lasts a number of rounds), grapples and
holds, held and delayed actions, suppression, and the acting figure's turn so far.
"""

from __future__ import annotations

from typing import Any

from rules.state import BattleState, Combatant

#: what ends each condition (seed 004; data.yaml assumptions)
ENDS = {
    "prone": "standing up (the move)",
    "knocked": "standing up (the move)",
    "unconscious": "a stun save at its turn (Wounds above 0), or healing",
    "stunned": "a stun save at its turn (Wounds above 0)",
    "incapacitated": "a stun save at its turn (Wounds above 0)",
    "dying": "a BODY check (stabilised) or Wounds -5 (dead)",
    "dead": None,
    "impaired": "more than 2 Wounds left",
    "dodging": "the start of its next turn",
    "aiming": "its next turn",
    "grappling": "breaking or escaping the grapple, or a partner going down",
    "grappled": "escaping the hold",
    "holding_action": "firing, or the end of the round",
    "suppressed": "the shooter's next turn, or the shooter going down",
}


def tracked(rs: Any, state: BattleState, c: Combatant) -> dict[str, Any]:
    """The rules' view of figure `c` now (see the module docstring)."""
    r = c.res
    body = c.stats["stats"]["body"]
    g = state.grid
    out: dict[str, Any] = {
        "wounds": {"taken": r["wound"], "left": rs.remaining(c), "body": body, "halved_at": 2,
                   "unconscious_at": 0, "dying_below": 0, "dead_at": -5},
        "stun_modifier": r["stun_mod"],
        "stats_now": {s: rs.stat(c, s) for s in ("int", "ref", "ma")},
        "conditions": {k: {"ends": ENDS.get(k)} for k in sorted(c.conditions)},
        "weapons": {"carried": [w.name for w in rs.weapons_of(c)], "drawn": r["drawn"], "dropped": list(r["lost"]),
                    "picked_up": list(r["gained"]), "broken": list(r["broken"]), "jammed": list(r["jammed"]),
                    "ammo": dict(r["ammo"]), "ammo_drawn": list(r["ammo_ready"])},
        "armour": [{"name": a.name, "sp": a.sp, "ev": a.ev, "covers": a.covers} for a in c.armour],
        "items": list(r["items"]),
        "grapple": {"partners": list(r["grapple"]), "holding": r["hold"], "held_by": r["held_by"]},
        "held_action": ({"trigger": r["trigger"]["on"], "weapon": r["trigger"]["weapon"],
                         "round": r["trigger"]["round"]} if r["trigger"] else None),
        "delays_this_round": r["delays"],
        "delayed_turn_waiting": r["resume"] is not None,
        "suppressing": ({"weapon": r["zone"]["weapon"], "penalty": r["zone"]["penalty"],
                         "cells": [list(g.xy(x)) for x in r["zone"]["cells"]]} if r["zone"] else None),
        "suppressed_by": list(r["suppressed_by"]),
    }
    if "dodging" in c.conditions:
        out["conditions"]["dodging"]["bonus"] = r["dodge"]
    if "aiming" in c.conditions:
        out["conditions"]["aiming"].update(bonus=rs.mod["aim"], round=r["aim_round"])
    if "dying" in c.conditions or r["stable"]:
        out["dying"] = {"stable": r["stable"], "since_round": r["dying_round"], "first_aid_bonus": r["aid_bonus"]}
    if state.actor is c and state.economy and not state.over:
        e = state.economy
        out["turn"] = {"actions_used": e["actions"], "actions": e["max_actions"], "move": e["move"] or "unused",
                       "metres_moved": g.units_to_m(e["move_units"]), "ran": e["ran"], "two_actions": e["two"],
                       "steadied": e["steady"], "aim_bonus": e["aim"], "suppression_check": e["suppress"] or None,
                       "woke_this_round": e["woke"], "resumed": e["resumed"]}
    return out
