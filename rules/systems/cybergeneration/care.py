"""Wounds over time: the stun modifier, waking, bleeding, first aid, falls and healing (seed 004).

- "At the start of your turn every round, your stun modifier moves one point closer to 0."
- "If your character has passed out with >0 Wounds remaining then every turn they may make
  a stun save to regain consciousness ... If they succeed, they may move, but not perform an
  action. You can spend a round trying to wake them up, in which case they get another roll
  with +3."
- "If your character has -1 -> -4 hits ... Every other round they take another wound as they
  bleed to death. Every round they may make a stabilisation check, which is a BODY check."
- First aid: "TECH + schooling at DC 20. Success allows the downed person to make another body
  save with a bonus equal to the amount of success"; 15 on the cyber-evolved.
- Falling: "DC 3 for a 3m fall, and goes up 1DC per 3m."
- "Cyberevolved without medical attention heal at 2HP per day."
"""

from __future__ import annotations

from typing import Any, Mapping

from rules.actions import Action
from rules import calls
from rules.calls import RollCall
from rules.dice import Dice
from rules.errors import ScenarioError
from rules.events import Event, event
from rules.state import BattleState, Combatant
from rules.systems.cybergeneration.checks import d10_call, modifiers, roll_ev, skill_check


class CareMixin:
    """Recovery rolls, first aid, falls and healing for `CybergenerationRuleset`."""

    scenario_settings = {"drops": ([], "cells where the floor drops away, [{at: [x, y], metres: 6}, ...]: a move "
                                       "may end in one but not cross it, and the figure falls (assumption drops)")}

    def recover_stun_mod(self, c: Combatant, state: BattleState) -> list[Event]:
        if c.res["recovered_round"] == state.round:
            return []
        c.res["recovered_round"] = state.round
        m = c.res["stun_mod"]
        if m == 0:
            return []
        c.res["stun_mod"] = m + 1 if m < 0 else m - 1
        return [event("effect", target=c.id, effect=f"stun modifier recovers to {c.res['stun_mod']}",
                      stun_modifier=c.res["stun_mod"])]

    def fallen_rolls(self, state: BattleState, c: Combatant, dice: Dice) -> list[Event]:
        """A fallen figure's rolls at its turn: stabilise and bleed while dying, else try to wake."""
        if c.dead:
            return []
        if "dying" in c.conditions:
            ok, ev = self.body_check(c, dice, c.res["aid_bonus"], "stabilise (BODY check)")
            c.res["aid_bonus"] = 0
            evs = [ev]
            if ok:
                evs += self.stabilise(c)
                return evs
            since = state.round - c.res["dying_round"]
            if since > 0 and since % 2 == 0:
                evs.append(event("effect", target=c.id, effect="bleeds: one more Wound"))
                evs += self.wound(state, c, 1, dice, armour=False, save=False, source="bleeding")
            return evs
        if self.remaining(c) > 0 and c.conditions & {"unconscious", "stunned", "incapacitated"}:
            return self.wake_roll(state, c, dice, 0, "stun save to come round")
        return []

    def body_check(self, c: Combatant, dice: Dice, bonus: int, purpose: str) -> tuple[bool, Event]:
        body = c.stats["stats"]["body"]
        pool = f"d10 at or under BODY {body}" + (f" + first aid {bonus}" if bonus else "")
        dice.announce(RollCall(c.id, purpose, "stabilise", pool, (10,), difficulty=body + bonus,
                               modifiers=calls.mods(modifiers([("first aid", bonus)])), label=purpose))
        r = dice.roll(10, purpose)
        ok = r <= body + bonus
        return ok, roll_ev(c.id, "stabilise", purpose, [[10, r]], r, [("first aid", bonus)],
                           pool=pool, difficulty=body + bonus, success=ok)

    def stabilise(self, c: Combatant) -> list[Event]:
        c.res["stable"] = True
        c.conditions.discard("dying")
        return [event("condition", target=c.id, condition="dying", on=False, cause="stabilised")]

    def wake_roll(self, state: BattleState, c: Combatant, dice: Dice, bonus: int, purpose: str) -> list[Event]:
        ok, ev = self.save_roll(c, dice, bonus, purpose, "wake")
        evs = [ev]
        if ok:
            for cond in ("unconscious", "stunned", "incapacitated"):
                if cond in c.conditions:
                    c.conditions.discard(cond)
                    evs.append(event("condition", target=c.id, condition=cond, on=False, cause="comes round"))
            c.res["woke_round"] = state.round
        return evs

    # -- first aid ----------------------------------------------------------------------------
    def first_aid_actions(self, state: BattleState, a: Combatant, option: str) -> list[Action]:
        g = state.grid
        out: list[Action] = []
        for t in state.combatants:
            if t.team != a.team or t is a or t.dead or not g.adjacent(a.pos, t.pos) and t.pos != a.pos:
                continue
            if option == "" and "dying" in t.conditions and "first_aid_kit" in a.res["items"]:
                out.append(self.action("first_aid", target=t.id))
            if (option == "wake" and "dying" not in t.conditions and self.remaining(t) > 0
                    and t.conditions & {"unconscious", "stunned", "incapacitated"}):
                out.append(self.action("first_aid", target=t.id, option="wake"))
        return out

    def first_aid(self, state: BattleState, a: Combatant, t: Combatant, option: str, dice: Dice) -> list[Event]:
        e = state.economy
        if option == "wake":  # seed 004: 'spend a round trying to wake them up ... another roll with +3'
            e["move"] = "used"
            e["actions"] = e["max_actions"]
            evs = [event("effect", target=a.id, effect=f"spends the round trying to wake {t.id}")]
            return evs + self.wake_roll(state, t, dice, self.mod["wake_help"], "stun save to come round (helped)")
        e["actions"] += 1
        tech, sch = self.stat(a, "tech"), self.skill(a, "schooling")
        parts = self.action_parts(state)
        diff = self.chk["first_aid"] - (self.chk["evolved_medical_reduction"] if self.is_type(t, "evolved") else 0)
        pool = f"TECH {tech} + schooling {sch}" + self._pool(parts)
        r = skill_check(dice, tech + sch + sum(v for _, v in parts), "first aid",
                        call=d10_call(a.id, "first_aid", f"first aid on {t.id}", pool, parts, difficulty=diff,
                                      label="first aid"))
        ok = r.total >= diff
        evs = [self.roll_event(a, "first_aid", f"first aid on {t.id}", pool, r, parts, difficulty=diff, success=ok)]
        if not ok:
            return evs
        bonus = r.total - diff
        ok2, ev = self.body_check(t, dice, bonus, "stabilise after first aid (BODY check)")
        evs.append(ev)
        if ok2:
            evs += self.stabilise(t)
        return evs

    # -- falls from the map ----------------------------------------------------------------------
    def check_settings(self, settings: Mapping[str, Any], teams: list[str], ids: list[str],
                       source: str | None) -> None:
        """Scenario `settings.drops`: `[{at: [x, y], metres: 6}, ...]`, cells where the floor drops away."""
        drops = settings.get("drops")
        if drops is None:
            return
        if not isinstance(drops, list):
            raise ScenarioError(type(drops).__name__, source=source, field="settings.drops",
                                expected="a list of {at: [x, y], metres: height}")
        for i, d in enumerate(drops):
            f = f"settings.drops[{i}]"
            if not isinstance(d, Mapping) or set(d) != {"at", "metres"}:
                raise ScenarioError(f"{d!r}", source=source, field=f, expected="{at: [x, y], metres: height}")
            at, m = d["at"], d["metres"]
            if (not isinstance(at, list) or len(at) != 2
                    or not all(isinstance(v, int) and not isinstance(v, bool) for v in at)):
                raise ScenarioError(f"{at!r}", source=source, field=f"{f}.at", expected="[x, y] integers")
            if isinstance(m, bool) or not isinstance(m, (int, float)) or not 0 < m <= 1000:
                raise ScenarioError(f"{m!r}", source=source, field=f"{f}.metres",
                                    expected="a height in metres, above 0")

    def check_drop_cells(self, state: BattleState) -> None:
        """Every drop lies on a map cell a figure can enter (checked when the fight starts)."""
        g = state.grid
        for i, d in enumerate(state.settings.get("drops") or ()):
            if not g.in_bounds(*d["at"]) or not g.passable[g.index(*d["at"])]:
                raise ScenarioError(f"{d['at']} is off the map or inside a wall", field=f"settings.drops[{i}].at",
                                    expected=f"a free cell of the {g.width}x{g.height} map")

    def drop_cells(self, state: BattleState) -> dict[int, float]:
        """The map's drops (scenario `settings.drops`): cell -> height in metres."""
        drops = state.settings.get("drops")
        if not drops:
            return {}
        g = state.grid
        return {g.index(*d["at"]): float(d["metres"]) for d in drops if g.in_bounds(*d["at"])}

    def with_drops(self, state: BattleState, a: Combatant, budget: int, blockers: list[int],
                   drops: dict[int, float]) -> dict[int, int]:
        """Cells in reach when a drop may be stepped into but not crossed: a figure that enters one falls."""
        g = state.grid
        reach = dict(g.reachable(a.pos, budget, blockers + [d for d in drops if d != a.pos]))
        for d in drops:
            if d in reach or d in blockers:
                continue
            best = min((reach[n] + step for n, step in g._radj[d] if n in reach), default=budget + 1)
            if best <= budget:
                reach[d] = best
        return reach

    def fall_into(self, state: BattleState, a: Combatant, frm: int, cell: int, dice: Dice) -> list[Event]:
        """seed 004, Falling: a figure that steps into a drop falls its height."""
        drops = self.drop_cells(state)
        if cell not in drops or cell == frm:
            return []
        m = drops[cell]
        return [event("effect", target=a.id, effect=f"steps off the edge and falls {m:g} m",
                      at=list(state.grid.xy(cell)), metres=m)] + self.fall(state, a, m, dice)

    # -- outside the turn structure ------------------------------------------------------------
    def fall(self, state: BattleState, c: Combatant, metres: float, dice: Dice) -> list[Event]:
        """seed 004, falling: DC 3 for 3 m, +1 DC per further 3 m; armour does not help (assumption falling)."""
        fb = self.data["falling"]
        steps = int(metres // float(fb["per_m"]))
        if steps < 1 or c.dead:
            return [event("effect", target=c.id, effect=f"falls {metres:g} m without harm")]
        dc = int(fb["base_dc"]) + steps - 1
        dice.announce(RollCall(c.id, f"falling damage DC{dc} ({metres:g} m)", "falling_damage", "d10", (10,),
                               label="falling damage"))
        r = dice.roll(10, "falling damage")
        raw = self.table.wounds(dc, r)
        evs = [roll_ev(c.id, "falling_damage", f"falling damage DC{dc} ({metres:g} m)", [[10, r]], r, wounds=raw)]
        return evs + self.wound(state, c, raw, dice, armour=False, source=f"fall of {metres:g} m",
                                save=not c.down)

    def heal_days(self, c: Combatant, days: int) -> list[Event]:
        """seed 004: the cyber-evolved heal 2 Wounds a day up to BODY; others need treatment."""
        if days < 0:
            raise ValueError("days must be 0 or more")
        if not self.is_type(c, "evolved") or c.dead:
            return []
        healed = min(c.res["wound"], int(self.data["healing"]["evolved_per_day"]) * days)
        if healed <= 0:
            return []
        c.res["wound"] -= healed
        evs = [event("damage", target=c.id, stun=0, wound=-healed, source=f"cyber-evolved healing, {days} day(s)")]
        if self.remaining(c) > 0:
            for cond in ("dying", "unconscious", "stunned", "incapacitated"):
                if cond in c.conditions:
                    c.conditions.discard(cond)
                    evs.append(event("condition", target=c.id, condition=cond, on=False, cause="healed"))
            c.res["stable"] = False
        elif self.remaining(c) >= 0 and "dying" in c.conditions:
            c.conditions.discard("dying")
        evs += self.sync_wounds(c, 0)
        return evs
