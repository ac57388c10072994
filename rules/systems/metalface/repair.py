"""METALFACE repair and healing (seed 003, Repairing / Healing).

Rates are kept in points per hour so every rate of the seed is a whole number: a Tekker
10 per level per minute = 600 per level per hour, a kit 3 per level per minute = 180, no
kit 1 per level per 5 minutes = 12. Treatment adds rate x seconds to the patient's
`repair_acc` (point-seconds per hour) and restores whole points of 3,600 each, so
fractions carry over between turns on the same patient (assumption `turn_seconds`).

In a fight the full-turn heal/repair action treats for one turn (`turn_seconds`); between
fights `treat(healer, patient, minutes)` treats for as long as the GM says, and
`repair_rate_per_minute` answers how fast a healer works on a patient.
"""

from __future__ import annotations

from rules.events import Event, event
from rules.state import Combatant


class RepairMixin:
    """Who may treat whom, at what rate, and restoring Status."""

    def heal_method(self, healer: Combatant, patient: Combatant) -> tuple[int, str | None]:
        """(rate in points per hour, method) of the best treatment `healer` can give `patient`
        ((0, None) when it can give none)."""
        ms = self.heal_methods(healer, patient)
        return ms[0] if ms else (0, None)

    def heal_methods(self, healer: Combatant, patient: Combatant) -> list[tuple[int, str]]:
        """Every treatment `healer` can give `patient` as (rate in points per hour, method),
        the fastest first (the healer picks one: question repair_method).

        seed 003: metalface by Tekkers or robotics/healing (with a Repair Kit at the kit
        rate); humans by medic/healing (with a MediKit at the kit rate). assumption
        repair_rates: the no-kit rate applies to the same skills without a kit."""
        r = self.repair_rates
        sk = healer.stats["skills"]
        defs = healer.stats["item_defs"]
        has_kit = {d["treats"] for d in defs.values() if d["kind"] == "kit"}
        out: list[tuple[int, str]] = []
        if patient.stats["kind"] == "metalface":
            tek = int(sk.get("tekker", 0))
            if tek > 0:
                out.append((r["tekker"] * tek, "tekker"))
            lv = max(int(sk.get("robotics", 0)), int(sk.get("healing", 0)))
            kit = "metalface" in has_kit
            kit_name = "repair kit"
        else:
            lv = max(int(sk.get("medic", 0)), int(sk.get("healing", 0)))
            kit = "human" in has_kit
            kit_name = "medikit"
        if lv > 0:
            out.append((r["kit"] * lv, kit_name) if kit else (r["no_kit"] * lv, "no kit"))
        return sorted(out, reverse=True)

    def repair_rate_per_minute(self, healer: Combatant, patient: Combatant) -> float:
        """Points of Status per minute `healer` restores to `patient` (0 when it cannot)."""
        return self.heal_method(healer, patient)[0] / 60.0

    def repair_per_turn(self, healer: Combatant, patient: Combatant) -> float:
        """Points per combat turn (the per-minute rate x turn_seconds / 60)."""
        return self.heal_method(healer, patient)[0] * self.turn_seconds / 3600.0

    def minutes_to_repair(self, healer: Combatant, patient: Combatant, points: int | None = None) -> float | None:
        """Minutes of treatment to restore `points` (default: all damage); None if impossible."""
        rate = self.heal_method(healer, patient)[0]
        need = patient.res["damage"] if points is None else int(points)
        if need <= 0:
            return 0.0
        if rate <= 0:
            return None
        acc = patient.res.get("repair_acc", 0)
        return max(0.0, (need * 3600 - acc) / rate / 60.0)

    def restore(self, healer: Combatant, patient: Combatant, seconds: int,
                how: tuple[int, str | None] | None = None) -> tuple[int, list[Event]]:
        """Treat `patient` for `seconds` (with `how`, a (rate, method) of `heal_methods`;
        by default the fastest): (points restored, events)."""
        rate, method = how if how is not None else self.heal_method(healer, patient)
        if rate <= 0 or patient.res["damage"] <= 0:
            return 0, []
        acc = patient.res.get("repair_acc", 0) + rate * int(seconds)
        pts = min(acc // 3600, patient.res["damage"])
        acc -= pts * 3600
        patient.res["damage"] -= pts
        patient.res["repair_acc"] = 0 if patient.res["damage"] == 0 else acc
        verb = "repairs" if patient.stats["kind"] == "metalface" else "heals"
        mx = patient.stats["status"]
        evs = [event("effect", target=patient.id, effect=f"{healer.id} {verb} {pts} Status ({method})",
                     healer=healer.id, healed=int(pts), method=method, status=mx - patient.res["damage"],
                     max_status=mx, progress=round(acc / 3600, 4))]
        evs += self.sync_level(patient)
        return int(pts), evs

    def treat(self, healer: Combatant, patient: Combatant, minutes: float) -> tuple[int, list[Event]]:
        """Between fights: treat for `minutes` at the per-minute rate (seed 003)."""
        return self.restore(healer, patient, int(round(float(minutes) * 60)))


__all__ = ["RepairMixin"]
