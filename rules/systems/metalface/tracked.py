"""What the METALFACE rules track for one figure, as JSON (the replay's final state).

`tracked(state, c)` answers everything beyond position and team: Status points with the
level thresholds, conditions, facing, posture and movement status, every weapon's state
(loaded rounds or charged shots, spares, jammed, packed, charging), armour, items and
device uses, the shield, repair carried over, the turn-order choice and, for the figure
whose turn it is, the half-turn economy.
"""

from __future__ import annotations

import math
from typing import Any

from rules.state import BattleState, Combatant
from rules.systems.metalface.geometry import NAMES


class TrackedMixin:
    """`tracked` for `MetalfaceRuleset`."""

    def tracked(self, state: BattleState, c: Combatant) -> dict[str, Any]:
        r = c.res
        mx = c.stats["status"]
        left = max(0, mx - r["damage"])
        # the Status left at or below which each level applies (assumption status_thresholds)
        thresholds = {lv["name"]: math.floor(lv["upto"] * mx + 1e-6) for lv in self.levels if lv["name"] != "perfect"}
        thresholds["non_responsive"] = 0
        weapons = {}
        for n, w in c.weapons.items():
            d: dict[str, Any] = {"kind": w.kind, "damage": int(w.damage)}
            if w.ranged:
                d.update(ammo=r["ammo"].get(n, 0), capacity=w.capacity, spare=r["spare"].get(n, 0),
                         jammed=n in r["jammed"], packed=n in r["packed"], charging=n in r["charging"])
            else:
                d["reach_m"] = w.reach_m
            weapons[n] = d
        out: dict[str, Any] = {
            "status": left, "max_status": mx, "damage": r["damage"], "level": r["level"],
            "level_thresholds": thresholds, "back_up_at": math.ceil(self.recover_at * mx - 1e-6),
            "down": c.down,
            "conditions": [{"name": k, "rounds": None} for k in sorted(c.conditions)],
            "facing": NAMES[r["facing"]], "posture": r["posture"], "moved": r["moved"],
            "weapons": weapons,
            "armour": {"name": c.stats["armour_name"], "points": c.stats["armour"]},
            "items": list(c.stats["items"]), "device_uses": dict(r["uses"]),
            "shield": r["shield"], "repair_progress": int(r.get("repair_acc", 0)),
            "may_choose_order": r["chooser"] == state.round,
        }
        if state.actor is c and state.economy:
            e = state.economy
            out["turn"] = {"half_turns_used": self.halves_used(c, e), "actions_half_turns": int(e["halves"]),
                           "move_m": e["move_m"], "move_m_left": self.move_left(c, e),
                           "device_activated": bool(e["activated"]), "flew": bool(e["flew"]),
                           "acted": bool(e["acted"]), "turn_over": bool(e["turn_over"])}
        return out


__all__ = ["TrackedMixin"]
