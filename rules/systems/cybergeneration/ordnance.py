"""Area fire of seed 004: shotgun blankets, grenades, the genius gun and suppression.

- Shotguns: "Treated as covering a blanket area in a 3m line wide all along their range";
  buckshot: "For every range category past 0-10 reduce the DC by 1".
- Grenades: "Delver a blast that extends 5m around point of impact. For every point the to
  hit rolls misses by the grenade misses by 1m and the DC drops by 1."
- The genius gun: "Make no skill check ... The missile makes checks for you"; blast DC 3-7
  or scribble, DC 5, "dividing the number of wounds evenly between the targets".
- Suppression: "Can be performed if the difficulty to hit is 20 or lower ... If anyone
  moves through the suppression line you may roll to hit against them with a -3 modifier";
  "Suppression eats 30 rounds".
Decided numbers: data.yaml assumptions shotgun_blanket, grenades, genius_missile,
genius_scribble, suppression_zone, suppression_line.
"""

from __future__ import annotations

import math
from typing import Any

from rules.calls import RollCall
from rules.dice import Dice
from rules.events import Event, event
from rules.grid import COMPASS
from rules.state import BattleState, Combatant
from rules.systems.cybergeneration.checks import Check, d10_call, roll_ev, skill_check
from rules.systems.cybergeneration.model import Weapon



class OrdnanceMixin:
    """Blankets, blasts and suppressive fire for `CybergenerationRuleset`."""

    def blanket(self, state: BattleState, a: Combatant, t: Combatant, w: Weapon, c: Check, diff: int, dice: Dice,
                head: bool = False) -> list[Event]:
        """seed 004, shotguns: a blanket 3 m wide along the range; buckshot loses 1 DC per band past 0-10 m.
        `head`: a called shot to the head of `t` (assumption called_head: its body armour does not
        apply, a helmet does); the others in the blanket are hit where the spread finds them."""
        g = state.grid
        reach = self.ranges[w.range][-1][0]
        others = [o for o in state.combatants if o is not a and o is not t and not o.down
                  and self.in_strip(g, a.pos, t.pos, o.pos, 1.5, reach) and g.los(a.pos, o.pos)]
        evs: list[Event] = []
        for o in [t] + others:
            if o.dead:
                continue
            d = diff if o is t else self.difficulty(state, a, o, w)
            if d is None:
                continue
            d = d if isinstance(d, int) else d[0]
            dc = max(0, w.dc - self.band_index(g, a.pos, o.pos, w))
            if c.total >= d:
                evs.append(self.attack_event(a, o, w, "hit", c, d, "", blanket=True, dc=dc))
                evs += self.hit(state, a, o, w, dice, dc=dc, two_dice=c.two_damage_dice, head=head and o is t)
            else:
                evs.append(self.attack_event(a, o, w, "miss", c, d, "", blanket=True))
        return evs

    @staticmethod
    def in_strip(g, a: int, t: int, o: int, half_m: float, reach_m: float) -> bool:
        ax, ay = g.xy(a)
        tx, ty = g.xy(t)
        ox, oy = g.xy(o)
        vx, vy = tx - ax, ty - ay
        n = math.hypot(vx, vy)
        if n == 0:
            return False
        wx, wy = ox - ax, oy - ay
        along = (wx * vx + wy * vy) / n * g.cell_m
        if along <= 0 or along > reach_m + 1e-9:
            return False
        perp = abs(wx * vy - wy * vx) / n * g.cell_m
        return perp <= half_m + 1e-9

    def throw_grenade(self, state: BattleState, a: Combatant, t: Combatant, w: Weapon, dice: Dice,
                      turn: dict[str, Any]) -> list[Event]:
        """seed 004, grenades: a 5 m blast; a miss by n lands n m away at n DC less."""
        g = state.grid
        a.res["ammo"][w.name] = max(0, a.res["ammo"][w.name] - 1)
        a.res["drawn"] = None
        # seed 004: dodging adds 'to all difficulties to hit', cover 'makes you harder to hit'
        diff, dparts = self.difficulty(state, a, t, w, throw=True)
        ref = self.stat(a, "ref")
        sk = self.skill(a, "athletics")
        parts = self.attack_parts(state, a, t, w, "", turn, melee=False, throw=True)
        base = ref + sk + sum(v for _, v in parts)
        pool = f"REF {ref} + athletics {sk}" + self._pool(parts)
        c = skill_check(dice, base, f"throw {w.name}",
                        call=d10_call(a.id, "attack", f"throw {w.name}", pool, parts, difficulty=diff))
        evs = [self.roll_event(a, "attack", f"throw {w.name}", pool, c, parts, difficulty=diff, **dparts)]
        centre = t.pos
        dc = w.dc
        if c.total < diff:
            n = diff - c.total
            dice.announce(RollCall(a.id, "scatter direction (d8: 1 = north, clockwise)", "grenade_scatter", "d8", (8,),
                                   label="grenade scatter direction"))
            k = dice.roll(8, "grenade scatter direction")
            evs.append(roll_ev(a.id, "grenade_scatter", "scatter direction (d8: 1 = north, clockwise)", [[8, k]], k))
            cells = int(round(n * float(self.data["grenades"]["scatter_m_per_point"]) / g.cell_m))
            centre = g.slide(centre, *COMPASS[k - 1], cells)
            dc = w.dc - n * int(self.data["grenades"]["dc_per_point"])
        evs.append(event("attack", actor=a.id, target=t.id, weapon=w.name, result="hit" if centre == t.pos else "miss",
                         total=c.total, difficulty=diff, lands=list(g.xy(centre)), dc=max(0, dc)))
        return evs + self.blast(state, a, w, centre, dc, dice)

    def blast(self, state: BattleState, a: Combatant, w: Weapon, centre: int, dc: int, dice: Dice) -> list[Event]:
        g = state.grid
        if dc <= 0:
            return [event("effect", target=a.id, effect=f"the {w.name} lands too far off to hurt anyone",
                          at=list(g.xy(centre)))]
        evs = [event("effect", target=a.id, effect=f"the {w.name} explodes (DC{dc}, {w.blast_m:g} m)",
                     at=list(g.xy(centre)))]
        for c in state.combatants:
            if c.dead or g.distance_m(c.pos, centre) > w.blast_m + 1e-6 or not g.los(centre, c.pos):
                continue
            evs += self.hit(state, a, c, w, dice, dc=dc, label=f"blast on {c.id}")
        return evs

    def genius_attack(self, state: BattleState, a: Combatant, t: Combatant, w: Weapon, option: str, dice: Dice
                      ) -> list[Event]:
        """seed 004, the genius gun: the missile makes the check; blast DC 3-7 or scribble DC 5 over an area."""
        g = state.grid
        scribble = option == "scribble"
        dc = int(w.x("scribble_dc", 5)) if scribble else int(option.split(":")[1])
        a.res["ammo"][w.name] = max(0, a.res["ammo"][w.name] - dc)
        diff, dparts = self.difficulty(state, a, t, w)
        skill = int(w.x("missile_skill", 15))
        dice.announce(RollCall(a.id, f"genius gun missile ({option})", "genius_missile", f"missile {skill} + 1d10",
                               (10,), difficulty=diff, label="genius missile"))
        r = dice.roll(10, "genius missile")
        total = skill + r
        evs = [roll_ev(a.id, "genius_missile", f"genius gun missile ({option})", [[10, r]], total,
                       pool=f"missile {skill} + 1d10", difficulty=diff, charge_left=a.res["ammo"][w.name], **dparts)]
        if total < diff:
            evs.append(event("attack", actor=a.id, target=t.id, weapon=w.name, result="miss", total=total,
                             difficulty=diff, option=option))
            return evs
        evs.append(event("attack", actor=a.id, target=t.id, weapon=w.name, result="hit", total=total,
                         difficulty=diff, margin=total - diff, option=option))
        if not scribble:
            return evs + self.hit(state, a, t, w, dice, dc=dc)
        radius = float(w.x("scribble_radius_m", 3))
        area = [t] + [o for o in state.combatants if o is not t and not o.down
                      and g.distance_m(o.pos, t.pos) <= radius + 1e-6 and g.los(t.pos, o.pos)]
        dice.announce(RollCall(a.id, f"damage DC{dc} (scribble, shared by {len(area)})", "damage", "d10", (10,),
                               label="damage (scribble)"))
        d = dice.roll(10, "damage (scribble)")
        wounds = self.table.wounds(dc, d)
        share, rest = divmod(wounds, len(area))
        evs.append(roll_ev(a.id, "damage", f"damage DC{dc} (scribble, shared by {len(area)})", [[10, d]], d,
                           wounds=wounds, shares=[share + (rest if o is t else 0) for o in area],
                           targets=[o.id for o in area]))
        for o in area:
            if o.dead:
                continue
            evs += self.wound(state, o, share + (rest if o is t else 0), dice, ap=w.ap, source=f"{w.name} scribble")
        return evs

    def suppress(self, state: BattleState, a: Combatant, t: Combatant, w: Weapon, dice: Dice) -> list[Event]:
        """seed 004, Suppression: firing wildly at an area; 30 rounds."""
        g = state.grid
        ok, evs = self.take_action(state, a, dice, "suppression")
        if not ok:
            return evs
        n = int(self.data["suppression"]["rounds"])
        a.res["ammo"][w.name] = max(0, a.res["ammo"][w.name] - n)
        r = int(self.data["suppression"]["zone_cells"])
        cells = sorted(c for c in range(g.n) if g.passable[c] and g.chebyshev(c, t.pos) <= r)
        if a.res["zone"] is not None:
            self.end_suppression(state, a)
        a.res["zone"] = {"cells": cells, "weapon": w.name, "penalty": w.suppress_penalty, "round": state.round}
        evs.append(event("effect", target=t.id, effect=f"{a.id} lays down suppressive fire with the {w.name}",
                         by=a.id, weapon=w.name, cells=[list(g.xy(c)) for c in cells], penalty=w.suppress_penalty))
        for o in state.combatants:
            if o.team != a.team and not o.down and o.pos in cells:
                if a.id not in o.res["suppressed_by"]:
                    o.res["suppressed_by"].append(a.id)
                if "suppressed" not in o.conditions:
                    o.conditions.add("suppressed")
                    evs.append(event("condition", target=o.id, condition="suppressed", on=True, by=a.id))
        return evs

    def end_suppression(self, state: BattleState, a: Combatant) -> list[Event]:
        evs: list[Event] = []
        a.res["zone"] = None
        for o in state.combatants:
            if a.id in o.res["suppressed_by"]:
                o.res["suppressed_by"].remove(a.id)
                if not o.res["suppressed_by"] and "suppressed" in o.conditions:
                    o.conditions.discard("suppressed")
                    evs.append(event("condition", target=o.id, condition="suppressed", on=False))
        return evs

    def suppression_line(self, state: BattleState, m: Combatant, frm: int, to: int, cost: int, dice: Dice
                         ) -> list[Event]:
        """seed 004: anyone moving through the suppression line may be shot at -3 (assumption suppression_line)."""
        shooters = [s for s in state.combatants if s.res["zone"] is not None and s.team != m.team
                    and not s.down and not self.in_grapple(s)]
        if not shooters:
            return []
        g = state.grid
        blockers = [c.pos for c in state.combatants if c.team != m.team and not c.down]
        path = g.path(frm, to, max(cost, 1), blockers) or [frm, to]
        evs: list[Event] = []
        for s in shooters:
            if m.down or state.over:
                break
            zone = set(s.res["zone"]["cells"])
            w = self.weapon_named(s, s.res["zone"]["weapon"])
            cell = next((c for c in path if c in zone and self.difficulty(state, s, m, w, at=c) is not None), None)
            if cell is None:
                continue
            evs.append(event("effect", target=m.id, effect=f"moves through {s.id}'s suppression line",
                             by=s.id, at=list(g.xy(cell))))
            if self.line_shot_wanted(state, s, m, evs):
                evs += self.ranged_attack(state, s, m, w, "", dice, {"line": True, "no_ammo": True}, at=cell)
        return evs
