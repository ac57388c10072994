"""Cortex actions beyond attacking: grappling, picking up objects, Plot Points, Second Wind.

seed 000 headings: Melee Combat, Unarmed (Wrestling needs grappling); Melee Combat,
Improvised Weapons (objects lying on the map); Down But Not Out and Second Wind (p. 158);
Plot Points (RULES-NOTES).
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from rules.actions import Action
from rules import calls
from rules.calls import RollCall, step_sides
from rules.dice import Dice, Step, roll_steps
from rules.events import Event, event
from rules.state import BattleState, Combatant
from rules.systems.cortex.model import make_pool
from rules.systems.cortex.modifiers import bonus_dice, mod
from rules.systems.cortex.traits import CheckResult, skill_check


class SpecialsMixin:
    """Grapple, pick up, use (Plot Points, Second Wind) for `CortexRuleset`."""

    def can_second_wind(self, state: BattleState, a: Combatant) -> bool:
        return (a.res["stun"] > 0 and a.res["second_winds_used"] < a.stats["second_winds"]
                and a.res["second_wind_round"] != state.round
                and "no_second_wind_in_fight" not in a.stats["flags"])

    def grapple_dice(self, state: BattleState, a: Combatant) -> tuple[Step, Step, str] | None:
        sname, sk = self.unarmed_skill(a, ("wrestling", "krav_maga", "brawling", "capoeira",
                                            "offensive_martial_arts", "defensive_martial_arts"))
        steps = -state.economy["actions"] - (1 if state.economy["rise_penalty"] else 0)
        if "impaired" in a.conditions:
            steps += int(self.called["impaired_steps"])
        p = make_pool(a, "agility", sk, steps, self.attr_steps(a, "agility", {"attack"}))
        return None if p is None else (p[0], p[1], sname)

    def grapple_actions(self, state: BattleState, a: Combatant) -> list[Action]:
        """The grapple actions among `special_actions` (escape, or grapple a figure next to it)."""
        A = self.action
        if a.res["grappled_by"] is not None:
            return [A("grapple", target=a.res["grappled_by"], option="escape")]
        if a.res["grappling"] is None and self.arms_usable(a) > 0:
            g = state.grid
            ring = g._ring[a.pos]   # cells next to a: a cheap first test, `adjacent` then checks walls
            near = [t for t in state.combatants
                    if (t.pos in ring and t.team != a.team and not t.down and t.res["grappled_by"] is None
                        and t.res["grappling"] is None and g.adjacent(a.pos, t.pos))]
            if near and self.grapple_dice(state, a) is not None:  # the dice only matter with someone near
                return [A("grapple", target=t.id) for t in near]
        return []

    def special_actions(self, state: BattleState, a: Combatant) -> list[Action]:
        A = self.action
        out = self.grapple_actions(state, a)
        g = state.grid
        objects = state.objects
        if objects and self.arms_usable(a) > 0:
            for cell in (a.pos, *g._ring[a.pos]):
                items = objects.get(cell)
                if items:  # an empty cell lists nothing either way
                    for item in sorted(set(items)):
                        out.append(A("pick_up", cell=cell, weapon=item))
        if self.can_second_wind(state, a):
            out.append(A("use", option="second_wind"))
        if "vehicle" in a.res:
            out.extend(self.pilot_actions(state, a))
        return out

    def apply_special(self, state: BattleState, a: Combatant, action: Action, dice: Dice) -> list[Event]:
        e = state.economy
        k = action.kind
        if k == "grapple":
            if action.option == "release":
                return self.release_grapple(state, a)
            t = state.by_id[action.target]
            a.res["attacked_last"] = True
            if action.option == "escape":
                e["actions"] += 1
                return self.escape(state, a, t, dice)
            return self.grapple(state, a, t, dice)
        if k == "pick_up":
            e["actions"] += 1
            item = action.weapon
            state.objects[action.cell].remove(item)
            if not state.objects[action.cell]:
                del state.objects[action.cell]
            w = self.gain_weapon(state, a, item)
            if w.magazine and item not in a.res["ammo"]:
                a.res["ammo"][item] = w.magazine
            a.res["held"] = item
            return [event("effect", target=a.id, effect=f"picks up the {item}", item=item,
                          at=list(state.grid.xy(action.cell)))]
        if k == "use":
            opt = action.option or ""
            if opt.startswith("plot_points:"):
                n = int(opt.split(":")[1])
                a.res["pp"] -= n
                e["pp_bonus"] = n
                return [event("effect", target=a.id, effect=f"spends {n} Plot Points on the next roll",
                              points=n)]
            if opt == "second_wind":
                return self.second_wind(state, a, dice)
            if "vehicle" in a.res:
                return self.apply_piloting(state, a, opt, dice)
        raise ValueError(f"cortex cannot apply {action}")  # pragma: no cover - guarded by check_legal

    # -- grappling (data.yaml assumption `grapple`) ----------------------------------
    def grapple(self, state: BattleState, a: Combatant, t: Combatant, dice: Dice) -> list[Event]:
        attr, sk, sname = self.grapple_dice(state, a)
        e = state.economy
        mods = self.attr_modifiers(a, "agility", {"attack"}) + [
            mod(f"{why} (skill)", v) for on, why, v in (
                (e["actions"], "multiple actions", -e["actions"]), (e["rise_penalty"], "off balance after rising", -1),
                ("impaired" in a.conditions, "impaired", int(self.called["impaired_steps"]))) if on]
        state.economy["actions"] += 1
        state.economy["rise_penalty"] = False
        extra = self.take_pp_bonus(state, a, {"attack"})
        r = roll_steps(dice, (attr, sk, *extra), "grapple",
                       RollCall(a.id, "grapple", "grapple", f"Agility {attr} + {sname} {sk}",
                                step_sides((attr, sk, *extra)), against=self.defence_against(
                                    state, a, t, self.weapons["unarmed"]),
                                modifiers=calls.mods(mods + bonus_dice(extra)), label="grapple"))
        evs = [event("roll", actor=a.id, purpose="grapple", check="grapple", modifiers=mods + bonus_dice(extra),
                     pool=f"Agility {attr} + {sname} {sk}",
                     dice=[list(f) for f in r.faces], total=r.total, **({"botch": True} if r.botch else {}))]
        w = self.weapons["unarmed"]
        diff, info, dev = self.resolve_defence(state, a, t, w, r.total, dice)
        evs += dev
        evs[0]["difficulty"] = diff
        if r.botch or r.total < diff:
            evs.append(event("attack", actor=a.id, target=t.id, weapon="grapple", result="miss",
                             total=r.total, difficulty=diff))
            return evs
        a.res["grappling"] = t.id
        t.res["grappled_by"] = a.id
        a.conditions.add("grappling")
        t.conditions.add("grappled")
        evs.append(event("attack", actor=a.id, target=t.id, weapon="grapple", result="hit", total=r.total,
                         difficulty=diff, margin=r.total - diff))
        evs.append(event("condition", target=t.id, condition="grappled", on=True, by=a.id))
        return evs

    def escape(self, state: BattleState, a: Combatant, holder: Combatant, dice: Dice) -> list[Event]:
        """Opposed Agility + Strength; the escaper must win. The Strength die takes the skill
        die's steps, as the multiple-action penalty does: seed 000, Groin, impaired: "-2 step
        skill penalty to all actions"; Knocked Prone: "an additional -1 step skill penalty on the
        next combat-related action taken that turn" (used up here, as an attack uses it up). A
        Plot Point die declared before it is this roll's (assumption plot_points_use)."""
        att = self.data["grapple"]["escape_attribute"]
        e = state.economy
        before = e["actions"] - 1  # the escape's own action is counted already
        rise = e["rise_penalty"]
        e["rise_penalty"] = False
        impaired = self.impaired_steps(a)
        pa = make_pool(a, "agility", a.stats["attributes"][att], -before - (1 if rise else 0) + impaired,
                       self.attr_steps(a, "agility"))
        pa = pa or (Step(1), Step(0))
        extra = self.take_pp_bonus(state, a, {"escape"})
        ph = (holder.stats["attributes"]["agility"], holder.stats["attributes"][att])
        mods = self.attr_modifiers(a, "agility") + [
            mod(f"{why} (strength)", v) for on, why, v in (
                (before, "multiple actions", -before), (rise, "off balance after rising", -1),
                (impaired, "impaired", impaired)) if on] + bonus_dice(extra)
        pool = f"Agility {pa[0]} + Strength {pa[1]}" + "".join(f" + Plot Points {x}" for x in extra)
        pa = (*pa, *extra)
        ra = roll_steps(dice, pa, "escape",
                        RollCall(a.id, "escape (opposed)", "escape", pool,
                                 step_sides(pa), against={"figure": holder.id, "what": "hold on", "total": None},
                                 modifiers=calls.mods(mods), label="escape"))
        rh = roll_steps(dice, ph, "hold",
                        RollCall(holder.id, "hold on (opposed)", "hold_on", f"Agility {ph[0]} + Strength {ph[1]}",
                                 step_sides(ph), against={"figure": a.id, "what": "escape", "total": ra.total},
                                 label="hold"))
        ok = ra.total > rh.total
        evs = [event("roll", actor=a.id, purpose="escape (opposed)", check="escape", modifiers=mods, pool=pool,
                     dice=[list(f) for f in ra.faces], total=ra.total),
               event("roll", actor=holder.id, purpose="hold on (opposed)", check="hold_on", modifiers=[], pool=f"Agility {ph[0]} + Strength {ph[1]}",
                     dice=[list(f) for f in rh.faces], total=rh.total, success=not ok)]
        if ok:
            evs += self.release_grapple(state, holder)
        return evs

    # -- Second Wind --------------------------------------------------------------------
    def second_wind(self, state: BattleState, a: Combatant, dice: Dice) -> list[Event]:
        """RULES-NOTES / p. 158: an Endurance roll removes that much Stun (seed 000: Down But Not Out).

        The Endurance roll (`endurance`'s dice, context and event) takes the Plot Point die declared
        before it (assumption plot_points_use: "the figure's next roll this turn")."""
        state.economy["actions"] += 1
        a.res["second_winds_used"] += 1
        a.res["second_wind_round"] = state.round
        extra = self.take_pp_bonus(state, a, {"second_wind", "injury"})
        ok, ev = self.endurance(a, dice, 0, "Second Wind", context=frozenset({"second_wind", "injury"}),
                                check="second_wind", extra=tuple(extra))
        healed = min(a.res["stun"], ev["total"])
        a.res["stun"] -= healed
        return [ev, event("damage", target=a.id, stun=-healed, wound=0, source="second wind")]

    # -- the general skill check ----------------------------------------------------------
    def skill_check(self, c: Combatant | Mapping[str, Any], attribute: str, skill: str | None, difficulty: int,
                    context: Iterable[str], dice: Dice, plot_points: int = 0) -> CheckResult:
        """seed 000, Traits: a skill check whose trait modifiers depend on its context."""
        if isinstance(c, Combatant):
            impaired = int(self.called["impaired_steps"]) if "impaired" in c.conditions else 0
            return skill_check(self.traitbook, c.stats, c.traits, attribute, skill, difficulty, context, dice,
                               actor=c.id, conditions=c.conditions, plot_points=plot_points,
                               skill_steps=impaired)
        return skill_check(self.traitbook, c, c.get("traits", ()), attribute, skill, difficulty, context, dice,
                           plot_points=plot_points)
