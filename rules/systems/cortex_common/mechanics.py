"""The Cortex base mechanics every Cortex-family ruleset shares (RULES-NOTES, "cortex").

`CortexBase` is a mixin for a `Ruleset` whose figures are built by
`rules.systems.cortex_common.model.build_stat_block` and whose data come from
`model.load_data` (so `self.diff` is the Difficulty ladder). It gives:

- Life Points and health; the wounded penalty and armour's Agility steps on attribute dice;
- damage: the Basic split, armour per damage type, Stun overflow, unconsciousness (an
  Endurance roll), dying and death, and the dying figures' Endurance roll each round;
- the Endurance roll (Vitality + Willpower);
- innate defence (a free Agility roll as the Difficulty, or Easy 3 when declined);
- the initiative order from Agility + Alertness rolls, with its tie-breaks;
- the figure's weapons: what it carries, holds, drops.

A ruleset supplies `attr_steps` (trait-aware in `cortex`) and `release_grapple`.
"""

from __future__ import annotations

import functools
from typing import Any, Iterable, Mapping

from rules.actions import Action
from rules import calls
from rules.calls import RollCall, step_sides
from rules.dice import Dice, Step, roll_steps
from rules.errors import ScenarioError
from rules.events import Event, event
from rules.state import BattleState, Combatant
from rules.systems.cortex_common.model import SkillNames, Weapon, known_skills


def faces(r) -> list[list[int]]:
    """The (sides, result) pairs of a pool roll as JSON lists."""
    return [list(f) for f in r.faces]


def modifier(source: str, value: int) -> dict[str, Any]:
    """One named modifier of a roll event (`{"source": why, "value": n}`; issue #32)."""
    return {"source": source, "value": int(value)}


class CortexBase:
    """Shared Cortex mechanics (see the module docstring)."""

    diff: dict[str, int]
    data: dict[str, Any]
    weapons: dict[str, Weapon]
    _actions: dict[tuple, Action]
    scenario_settings = {"plot_points": ({}, "Plot Points per team, {team: n}: each figure of the team starts with "
                                             "at least n (otherwise its stat block's plot_points, 0 unless set)")}

    # -- figures --------------------------------------------------------------------
    @functools.cached_property
    def skill_names(self) -> SkillNames:
        """The general skills and specialties a figure's `skills:` may name (`known_skills`)."""
        return known_skills(self.data)

    def life_points(self, stats: dict[str, Any], bonus: int = 0) -> int:
        """RULES-NOTES: the maximum of the Vitality die + the maximum of the Willpower die."""
        life = stats.get("life_points")
        if life is None:
            life = stats["attributes"]["vitality"].maximum + stats["attributes"]["willpower"].maximum + bonus
        return max(1, int(life))

    def health(self, c: Combatant) -> tuple[float, float]:
        L = c.stats["life"]
        return float(max(0, L - c.res["stun"] - c.res["wound"])), float(L)

    def action(self, kind: str, target: str | None = None, cell: int | None = None, weapon: str | None = None,
               option: str | None = None) -> Action:
        """One shared `Action` object per distinct action (legal_actions is the hot path)."""
        key = (kind, target, cell, weapon, option)
        a = self._actions.get(key)
        if a is None:
            a = self._actions[key] = Action(kind, target, cell, weapon, option)
        return a

    def base_attr_steps(self, c: Combatant, attr: str) -> int:
        """Step modifiers on an attribute die from wounds and armour."""
        s = 0
        if c.res["wound"] > 0 and c.res["wound"] * 2 >= c.stats["life"]:
            s -= 2
        if attr == "agility":
            for a in c.armour:
                s += a.agility_steps
        return s

    def base_attr_modifiers(self, c: Combatant, attr: str) -> list[dict[str, Any]]:
        """`base_attr_steps` named, as roll-event modifiers (value: die steps on `attr`)."""
        out = []
        if c.res["wound"] > 0 and c.res["wound"] * 2 >= c.stats["life"]:
            out.append(modifier(f"wounded ({attr})", -2))
        if attr == "agility":
            out.extend(modifier(f"{a.name} ({attr})", a.agility_steps) for a in c.armour if a.agility_steps)
        return out

    def attr_steps(self, c: Combatant, attr: str, context: frozenset | set = frozenset()) -> int:
        """Step modifiers on an attribute die (rulesets with traits add theirs)."""
        return self.base_attr_steps(c, attr)

    def attr_modifiers(self, c: Combatant, attr: str, context: Iterable[str] = frozenset()
                       ) -> list[dict[str, Any]]:
        """`attr_steps` named, as roll-event modifiers (rulesets with traits add theirs)."""
        return self.base_attr_modifiers(c, attr)

    def attr_die(self, c: Combatant, attr: str, context: frozenset | set = frozenset()) -> Step:
        """An attribute die after its modifiers, never below d2."""
        return Step(max(1, c.stats["attributes"][attr].index + self.attr_steps(c, attr, context)))

    def give_plot_points(self, state: BattleState) -> None:
        """Plot Points from the scenario (`settings.plot_points: {team: n}`); NPCs get none otherwise."""
        pp = state.settings.get("plot_points") or {}
        if not isinstance(pp, Mapping):
            raise ScenarioError("plot_points must map team names to numbers", field="settings.plot_points",
                                expected="{team: n}")
        for team, n in pp.items():
            if team not in state.teams or isinstance(n, bool) or not isinstance(n, int) or n < 0:
                raise ScenarioError(f"plot_points {team}: {n!r}", field=f"settings.plot_points.{team}",
                                    expected="a team of the scenario and a whole number >= 0")
            for c in state.combatants:
                if c.team == team:
                    c.res["pp"] = max(c.res["pp"], n)

    # -- what the rules track (issue #32: the replay's final state) ---------------------
    def tracked_common(self, state: BattleState, c: Combatant) -> dict[str, Any]:
        """The Cortex base's part of `tracked()`: Life Points with their thresholds, damage,
        weapons carried, held and lost, objects on the map, ammunition, Plot Points, grapples."""
        L = c.stats["life"]
        held = self.held_weapon(c)
        g = state.grid
        return {
            "life_points": L, "stun": c.res["stun"], "wound": c.res["wound"],
            "thresholds": {"wounded_penalty_at_wound": (L + 1) // 2, "endurance_roll_at_stun_plus_wound": L,
                           "dying_at_wound": L, "dead_at_wound": 2 * L},
            "conditions": sorted(c.conditions),
            "weapons": [w.name for w in self.weapons_of(c)],
            "held": held.name if held is not None else None,
            "lost": list(c.res["lost"]),
            "ammo": dict(c.res.get("ammo", {})),
            "plot_points": c.res.get("pp", 0),
            "grappling": c.res.get("grappling"), "grappled_by": c.res.get("grappled_by"),
            "objects_here": sorted(state.objects.get(c.pos, [])),
            "pos": list(g.xy(c.pos)),
        }

    # -- weapons carried ------------------------------------------------------------
    def weapon_slots(self, c: Combatant) -> list[str]:
        """The names of the weapons a figure has now (`weapons_of`)."""
        return [w.name for w in self.weapons_of(c)]

    def ammo_frac(self, c: Combatant) -> float:
        """The ammunition left in the figure's first ranged weapon with a magazine (1 without one)."""
        ranged = [w for w in self.weapons_of(c) if w.ranged and w.magazine]
        if not ranged:
            return 1.0
        w = ranged[0]
        return c.res["ammo"].get(w.name, 0) / max(1, w.magazine)

    def weapons_of(self, c: Combatant) -> list[Weapon]:
        """The weapons a figure has now: its own less those lost, then those it gained."""
        lost = c.res["lost"]
        if not lost and not c.res["gained"]:
            return list(c.weapons.values())
        ws = [w for n, w in c.weapons.items() if n not in lost]
        seen = {w.name for w in ws}
        for n in c.res["gained"]:
            if n not in seen and n not in lost:
                ws.append(self.weapons[n] if n in self.weapons else c.res["inline"][n])
                seen.add(n)
        return ws

    def weapon_record(self, state: BattleState, name: str) -> Weapon:
        """A weapon by name: the table's, or one a scenario wrote inline for some figure."""
        w = self.weapons.get(name)
        if w is not None:
            return w
        for c in state.combatants:
            w = c.weapons.get(name) or c.res.get("inline", {}).get(name)
            if w is not None:
                return w
        raise KeyError(name)

    def gain_weapon(self, state: BattleState, c: Combatant, name: str) -> Weapon:
        """The figure now carries weapon `name` (picked up, grabbed); inline ones are remembered."""
        w = self.weapon_record(state, name)
        if name not in self.weapons:
            c.res["inline"] = {**c.res.get("inline", {}), name: w}
        if name in c.res["lost"]:
            c.res["lost"].remove(name)
        else:
            c.res["gained"].append(name)
        return w

    def held_weapon(self, c: Combatant) -> Weapon | None:
        """The object in the figure's hand: the last weapon it used, else its first real weapon."""
        h = c.res["held"]
        ws = self.weapons_of(c)
        for w in ws:
            if w.name == h:
                return w
        for w in ws:
            if w.name != "unarmed":
                return w
        return None

    def weapon_named(self, a: Combatant, name: str | None) -> Weapon:
        for w in self.weapons_of(a):
            if w.name == name:
                return w
        return self.weapons["unarmed"]

    def remove_weapon(self, c: Combatant, name: str) -> None:
        if name in c.res["gained"]:
            c.res["gained"].remove(name)
        else:
            c.res["lost"].append(name)
        if c.res["held"] == name:
            c.res["held"] = None

    def drop_object(self, state: BattleState, c: Combatant, name: str, cell: int, verb: str = "is dropped"
                    ) -> list[Event]:
        """The figure loses the weapon; it lies on `cell`."""
        if name == "unarmed":
            return []
        self.remove_weapon(c, name)
        state.objects.setdefault(cell, []).append(name)
        return [event("effect", target=c.id, effect=f"the {name} {verb}", item=name,
                      at=list(state.grid.xy(cell)))]

    # -- initiative -----------------------------------------------------------------
    def fixed_order(self, state: BattleState, figures: Iterable[Combatant]) -> tuple[list[str], list[Event]]:
        """Scenario order, no rolls (`initiative: fixed`, for exact tests)."""
        order = [c.id for c in figures]
        return order, [event("initiative", round=state.round, order=list(order), mode="fixed")]

    def rolled_order(self, state: BattleState, dice: Dice, entries: Iterable[tuple]
                     ) -> tuple[list[str], list[Event]]:
        """Agility + Alertness for each (figure, Agility die, Alertness die[, modifiers]);
        highest first. `modifiers` names the steps in the dice (roll event `modifiers`).

        Ties: the higher Agility die, then the figure listed first (assumption initiative_ties)."""
        evs: list[Event] = []
        keyed = []
        for c, agi, ale, *mods in entries:
            pool = f"Agility {agi} + Alertness {ale}"
            ms = list(mods[0]) if mods else []
            r = roll_steps(dice, (agi, ale), "initiative",
                           RollCall(c.id, "initiative", "initiative", pool, step_sides((agi, ale)),
                                    modifiers=calls.mods(ms), label="initiative"))
            evs.append(event("roll", actor=c.id, purpose="initiative", check="initiative",
                             modifiers=ms, pool=pool,
                             dice=faces(r), total=r.total))
            keyed.append((-r.total, -agi.index, c.order, c.id))
        keyed.sort()
        order = [k[3] for k in keyed]
        evs.append(event("initiative", round=state.round, order=list(order)))
        return order, evs

    # -- defence --------------------------------------------------------------------
    def declines_innate(self, d: Combatant) -> bool:
        """Whether the figure takes Easy (3) rather than roll (assumption innate_decline)."""
        pref = d.stats["decline_innate"]
        if pref == "always":
            return True
        if pref == "never":
            return False
        return self.innate_die(d).mean < self.diff["easy"]

    def innate_steps(self, d: Combatant) -> list[dict[str, Any]]:
        """Named steps on the innate defence's Agility die beyond the attribute's own ({"source",
        "value"}): none in the Cortex base (cortex_hu: a prone figure's -2)."""
        return []

    def innate_more(self, d: Combatant) -> int:
        """The sum of `innate_steps`' values (a ruleset may sum them without building the list)."""
        return sum(m["value"] for m in self.innate_steps(d))

    def innate_die(self, d: Combatant) -> Step:
        """The Agility die of the figure's innate defence, never below d2."""
        return Step(max(1, d.stats["attributes"]["agility"].index + self.attr_steps(d, "agility")
                        + self.innate_more(d)))

    def innate_defence(self, d: Combatant, dice: Dice, cover_bonus: int, decline: bool | None = None,
                       against: dict | None = None) -> tuple[int, list[Event]]:
        """Innate defence: a free Agility roll is the Difficulty, or Easy (3) when declined
        (`decline`: the figure's answer where the ruleset asks it; None: `declines_innate`).

        Cover adds to either (it is not a modifier of the roll: the `defence` event has it).
        `against`: the attack it defends against, for the roll's announcement (rules/calls.py)."""
        if self.declines_innate(d) if decline is None else decline:
            diff = self.diff["easy"] + cover_bonus
            return diff, [event("defence", actor=d.id, mode="declined innate", difficulty=diff,
                                cover_bonus=cover_bonus)]
        agi = self.innate_die(d)
        ms = self.attr_modifiers(d, "agility") + self.innate_steps(d)
        r = roll_steps(dice, (agi,), "innate defence",
                       RollCall(d.id, "innate defence", "innate_defence", f"Agility {agi}", step_sides((agi,)),
                                against=against, modifiers=calls.mods(ms), label="innate defence"))
        diff = r.total + cover_bonus
        return diff, [event("roll", actor=d.id, purpose="innate defence", check="innate_defence",
                            modifiers=ms, pool=f"Agility {agi}",
                            dice=faces(r), total=r.total),
                      event("defence", actor=d.id, mode="innate", difficulty=diff, cover_bonus=cover_bonus)]

    # -- damage ---------------------------------------------------------------------
    def endurance(self, c: Combatant, dice: Dice, difficulty: int, purpose: str, blunt: bool = False,
                  context: frozenset[str] = frozenset({"endurance", "injury"}), check: str = "endurance",
                  modifiers: list | None = None, extra: tuple[Step, ...] = ()) -> tuple[bool, Event]:
        """An Endurance roll: Vitality + Willpower against `difficulty` (a botch fails);
        `check` is the roll event's key (what the roll is for), `modifiers` its named steps
        when the ruleset names them its own way (default: `attr_modifiers`); `extra`: Plot Point
        dice declared for this roll (named in the pool and the modifiers)."""
        ctx = set(context) | ({"unarmed_or_bludgeoning"} if blunt else set())
        vit = Step(max(1, c.stats["attributes"]["vitality"].index + self.attr_steps(c, "vitality", ctx)))
        wil = c.stats["attributes"]["willpower"]
        ms = self.attr_modifiers(c, "vitality", ctx) if modifiers is None else modifiers
        pool = f"Vitality {vit} + Willpower {wil}"
        rolled = (vit, wil)
        if extra:
            ms = ms + [{"source": "plot points (bonus die)", "value": x.index} for x in extra]
            pool += "".join(f" + Plot Points {x}" for x in extra)
            rolled += tuple(extra)
        r = roll_steps(dice, rolled, purpose,
                       RollCall(c.id, purpose, check, pool, step_sides(rolled), difficulty=difficulty,
                                modifiers=calls.mods(ms), label=purpose))
        ok = r.total >= difficulty and not r.botch
        return ok, event("roll", actor=c.id, purpose=purpose, check=check,
                         modifiers=ms, pool=pool,
                         dice=faces(r), total=r.total, difficulty=difficulty, success=ok)

    @staticmethod
    def split(basic: int, dtype: str, die_total: int) -> tuple[int, int]:
        """Basic splits half Stun, half Wound, the odd point to Stun (assumption basic_split);
        the weapon's die is added as its own type (S, W or B)."""
        stun = basic - basic // 2
        wound = basic // 2
        if dtype == "S":
            stun += die_total
        elif dtype == "W":
            wound += die_total
        else:
            stun += die_total - die_total // 2
            wound += die_total // 2
        return stun, wound

    @staticmethod
    def absorb_armour(t: Combatant, stun: int, wound: int, bypass: bool = False) -> tuple[int, int, int]:
        """(stun, wound, absorbed) after the target's armour ratings (assumption armour)."""
        if not t.armour or bypass:
            return stun, wound, 0
        aw = sum(x.W for x in t.armour)
        as_ = sum(x.S for x in t.armour)
        dw, ds = min(wound, aw), min(stun, as_)
        return stun - ds, wound - dw, dw + ds

    def apply_damage(self, state: BattleState, t: Combatant, stun: int, wound: int, dice: Dice,
                     source: str = "", absorbed: int = 0, check: bool = True, blunt: bool = False) -> list[Event]:
        """Add damage, convert Stun overflow, and settle consciousness, dying and death."""
        L = t.stats["life"]
        stun = max(0, stun)
        wound = max(0, wound)
        new_stun = t.res["stun"] + stun
        if new_stun > L:
            wound += new_stun - L
            stun -= new_stun - L
            new_stun = L
        t.res["stun"] = new_stun
        t.res["wound"] += wound
        ev = event("damage", target=t.id, stun=stun, wound=wound, source=source)
        if absorbed:
            ev["absorbed"] = absorbed
        evs = [ev]
        if stun == 0 and wound == 0:
            return evs
        was_down = t.down
        W = t.res["wound"]
        if W >= 2 * L:
            if "dead" not in t.conditions:
                t.conditions.discard("dying")
                t.conditions.add("dead")
                evs.append(event("dead", target=t.id))
        elif W >= L:
            if "dying" not in t.conditions:
                t.conditions.add("dying")
                evs.append(event("down", target=t.id, reason="dying"))
        elif check and t.res["stun"] + W >= L and "unconscious" not in t.conditions:
            ok, ev2 = self.endurance(t, dice, self.diff["average"], "Endurance to stay conscious", blunt=blunt,
                                     check="stay_conscious")
            evs.append(ev2)
            if not ok:
                t.conditions.add("unconscious")
                evs.append(event("down", target=t.id, reason="unconscious"))
        if t.down and not was_down:
            self.release_grapple(state, t)
        return evs

    def release_grapple(self, state: BattleState, c: Combatant) -> list[Event]:
        """End any grapple c takes part in (as holder or held); nobody falls."""
        evs: list[Event] = []
        tid = c.res.get("grappling")
        if tid is not None:
            t = state.by_id[tid]
            t.res["grappled_by"] = None
            t.conditions.discard("grappled")
            c.res["grappling"] = None
            c.conditions.discard("grappling")
            evs.append(event("condition", target=t.id, condition="grappled", on=False))
        hid = c.res.get("grappled_by")
        if hid is not None:
            h = state.by_id[hid]
            h.res["grappling"] = None
            h.conditions.discard("grappling")
            c.res["grappled_by"] = None
            c.conditions.discard("grappled")
            evs.append(event("condition", target=c.id, condition="grappled", on=False))
        return evs

    def dying_upkeep(self, state: BattleState, dice: Dice) -> list[Event]:
        """Dying figures roll Endurance at Average (7) each round or take 1 more Wound (assumption dying)."""
        evs: list[Event] = []
        for c in state.combatants:
            if "dying" in c.conditions and "dead" not in c.conditions:
                ok, ev = self.endurance(c, dice, self.diff["average"], "Endurance (dying)", check="dying")
                evs.append(ev)
                if not ok:
                    evs += self.apply_damage(state, c, 0, 1, dice, source="bleeding", check=False)
        return evs


__all__ = ["CortexBase", "faces", "modifier"]
