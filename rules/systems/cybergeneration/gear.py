"""Weapons in hand: what a figure carries, draws, reloads, clears, drops and picks up (seed 004).

seed 004, Your Turn: with the move a figure may "Draw a weapon from a holster or sheath",
"Steady a weapon you have drawn for +1 to hit", "Get an item from a pocket ..." and "Reload
a clip fed weapon or bow or crossbow. (Note, that drawing the ammo is also a move action so
without rushing it takes an entire round to reload)"; its action may be "Reloading a non
clip fed weapon (revolver, shotgun)", "Changing weapons" or "Accessing a ... concealed
weapon". Critical failure: "Ranged weapons jam, requiring an action and (TECH +
Streetfighting roll) to clear them, melee weapons are dropped". Decided numbers: data.yaml
assumptions drawn_weapon, reload, steady, unjam, pick_up_move.
"""

from __future__ import annotations

from rules.actions import Action
from rules.dice import Dice
from rules.events import Event, event
from rules.state import BattleState, Combatant
from rules.systems.cybergeneration.checks import d10_call, roll_ev, skill_check
from rules.systems.cybergeneration.model import Weapon, weapon_from
from rules.systems.cybergeneration.start import weapon_row


class GearMixin:
    """Carried weapons and their handling for `CybergenerationRuleset`."""

    def weapons_of(self, c: Combatant) -> list[Weapon]:
        """Weapons the figure has now (carried ones not lost or broken, then picked-up ones)."""
        r = c.res
        if not r["lost"] and not r["broken"] and not r["gained"]:
            return list(c.weapons.values())
        gone = set(r["lost"]) | set(r["broken"])
        ws = [w for n, w in c.weapons.items() if n not in gone]
        seen = {w.name for w in ws}
        for n in c.res["gained"]:
            if n not in seen and n not in c.res["broken"]:
                ws.append(self.weapon_named(c, n))
                seen.add(n)
        return ws

    def weapon_named(self, c: Combatant, name: str) -> Weapon | None:
        """A weapon of the table, or one defined inline in the scenario that the figure has held."""
        w = self.weapons.get(name)
        if w is None:
            w = (c.stats.get("catalog") or {}).get(name)
            if w is None and name in c.res.get("inline", ()):
                w = weapon_from(name, c.res["inline"][name], self.table)
        return w

    def has_weapon(self, c: Combatant, name: str | None) -> Weapon | None:
        for w in self.weapons_of(c):
            if w.name == name:
                return w
        return None

    def in_hand(self, c: Combatant, w: Weapon) -> bool:
        """Drawn (or an implant / bare hands, always ready)."""
        return w.implant or c.res["drawn"] == w.name

    def loaded(self, c: Combatant, w: Weapon, n: int = 1) -> bool:
        if w.name in c.res["jammed"]:
            return False
        if w.magazine:
            return c.res["ammo"].get(w.name, 0) >= n
        return True

    def ready(self, state: BattleState, a: Combatant, A: Action, dice: Dice) -> list[Event]:
        """Draw (the move), change weapons (an action), steady (the move), unjam (an action), draw ammo (the move)."""
        e = state.economy
        w = self.has_weapon(a, A.weapon)
        opt = A.option
        if opt == "draw":
            e["move"] = "used"
            a.res["drawn"] = w.name
            return [event("effect", target=a.id, effect=f"draws the {w.name}", weapon=w.name)]
        if opt == "change":
            ok, pre = self.take_action(state, a, dice, "change of weapons")
            if not ok:
                return pre
            a.res["drawn"] = w.name
            return pre + [event("effect", target=a.id, effect=f"changes to the {w.name}", weapon=w.name)]
        if opt == "steady":
            e["move"] = "used"
            e["steady"] = w.name
            return [event("stance", actor=a.id, stance="steady", weapon=w.name, bonus=self.mod["steady"])]
        if opt == "ammo":
            e["move"] = "used"
            a.res["ammo_ready"].append(w.name)
            return [event("effect", target=a.id, effect=f"draws ammunition for the {w.name}", weapon=w.name)]
        return self.unjam(state, a, w, dice)

    def reload(self, state: BattleState, a: Combatant, A: Action, dice: Dice) -> list[Event]:
        """seed 004: a clip-fed weapon or bow reloads with the move (ammunition drawn first, else the
        whole round); a non-clip weapon (revolver, shotgun) with an action."""
        e = state.economy
        w = self.has_weapon(a, A.weapon)
        evs: list[Event] = []
        if w.reload == "clip":
            e["move"] = "used"
            if w.name in a.res["ammo_ready"]:
                a.res["ammo_ready"].remove(w.name)
            else:
                e["actions"] = e["max_actions"]
                evs.append(event("effect", target=a.id,
                                 effect="draws the ammunition first: the reload takes the whole round"))
        else:
            ok, pre = self.take_action(state, a, dice, "reload")
            if not ok:
                return pre
            evs += pre
        a.res["ammo"][w.name] = w.magazine
        return evs + [event("reload", actor=a.id, weapon=w.name)]

    def unjam(self, state: BattleState, a: Combatant, w: Weapon, dice: Dice) -> list[Event]:
        """seed 004, Critical failure: a jam needs an action and TECH + streetfighting (assumption unjam)."""
        e = state.economy
        e["actions"] += 1
        tech, sf = self.stat(a, "tech"), self.skill(a, "streetfighting")
        parts = self.action_parts(state)
        pen = sum(v for _, v in parts)
        diff = self.chk["unjam"]
        words = f"TECH {tech} + streetfighting {sf}" + (f" {pen}" if pen else "")
        r = skill_check(dice, tech + sf + pen, "unjam",
                        call=d10_call(a.id, "unjam", f"clear the jammed {w.name}", words, parts, difficulty=diff,
                                      label="unjam"))
        ok = r.total >= diff
        evs = [roll_ev(a.id, "unjam", f"clear the jammed {w.name}", r.faces, r.total, parts,
                       pool=words + " + 1d10", difficulty=diff, success=ok)]
        if ok:
            a.res["jammed"].remove(w.name)
            evs.append(event("effect", target=a.id, effect=f"clears the {w.name}", weapon=w.name))
        return evs

    def pick_up(self, state: BattleState, a: Combatant, A: Action) -> list[Event]:
        state.economy["move"] = "used"
        item = A.weapon
        state.objects[A.cell].remove(item)
        if not state.objects[A.cell]:
            del state.objects[A.cell]
        w = self.weapon_named(a, item)
        if w is None:  # another figure's inline weapon: the picker keeps its row (saved with the fight)
            w = next((o.stats["catalog"][item] for o in state.combatants if item in (o.stats.get("catalog") or {})),
                     None)
            if w is not None:
                a.res["inline"][item] = weapon_row(w)
        if w is not None:
            if item in a.res["lost"]:
                a.res["lost"].remove(item)
            elif item not in a.weapons or item in a.res["broken"]:
                a.res["gained"].append(item)
            if w.magazine and item not in a.res["ammo"]:
                a.res["ammo"][item] = w.magazine
            a.res["drawn"] = item
        else:
            a.res["items"].append(item)
        return [event("effect", target=a.id, effect=f"picks up the {item}", item=item,
                      at=list(state.grid.xy(A.cell)))]

    def drop_object(self, state: BattleState, c: Combatant, name: str, cell: int, verb: str = "is dropped"
                    ) -> list[Event]:
        """A weapon leaves the figure's hands and lies on `cell`."""
        if self.weapon_named(c, name).implant:
            return []
        self.remove_weapon(c, name)
        state.objects.setdefault(cell, []).append(name)
        return [event("effect", target=c.id, effect=f"the {name} {verb}", item=name, at=list(state.grid.xy(cell)))]

    def remove_weapon(self, c: Combatant, name: str) -> None:
        if name in c.res["gained"]:
            c.res["gained"].remove(name)
        elif name in c.weapons:
            c.res["lost"].append(name)
        if c.res["drawn"] == name:
            c.res["drawn"] = None
        if name in c.res["jammed"]:
            c.res["jammed"].remove(name)
