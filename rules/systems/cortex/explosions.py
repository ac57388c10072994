"""seed 000, Cover and Explosions; Getting out of Harm's Way (p. 142).

"A character can roll Agility + Alertness (Average Difficulty) to leap away from an
explosion. The character moves 5 feet away from the blast on a success, 10 feet on an
extraordinary success, and may choose to fall prone."

Three choices belong to the figure in the blast (rules/choices.py), asked in this order:
`harms_way` (leap or stay), `leap_direction` (after a success: a compass direction whose
straight leap ends farther from the blast) and `fall_prone` (after a success). Their
defaults are the engine's choices before #32 (data.yaml assumptions harms_way_*).
"""

from __future__ import annotations

import math

from rules.choices import decide
from rules import calls
from rules.calls import RollCall, step_sides
from rules.dice import Dice, PoolRoll, Step, roll_steps
from rules.events import Event, event
from rules.grid import COMPASS, COMPASS_NAMES, FEET, Grid
from rules.state import BattleState, Combatant
from rules.systems.cortex.model import Weapon
from rules.systems.cortex.modifiers import bonus_dice, mod

DIRECTIONS = COMPASS_NAMES


def _faces(r: PoolRoll) -> list[list[int]]:
    return [list(f) for f in r.faces]


def leap_cells(g: Grid, start: int, d: int, feet: float, blocked: set[int]) -> list[int]:
    """The cells a straight leap in direction `d` (index into DIRECTIONS) passes, in order.

    The leap goes as many whole squares in a straight line as fit within the seed's
    distance, and never farther: a 5 ft leap on 5 ft (1.5 m) cells is one square along a
    row or column; a diagonal square (7 ft) does not fit, so that direction is not open
    (data.yaml assumption harms_way_leap). It stops before a cell that blocks movement or
    holds a standing figure, or at the map's edge."""
    dx, dy = COMPASS[d]
    step_m = g.cell_m * (math.sqrt(2) if dx and dy else 1.0)
    k = int((feet * FEET + 1e-6) // step_m)
    if k < 1:
        return []
    x, y = g.xy(start)
    out = []
    for _ in range(k):
        x, y = x + dx, y + dy
        if not g.in_bounds(x, y):
            break
        j = g.index(x, y)
        if not g.passable[j] or j in blocked:
            break
        out.append(j)
    return out


class ExplosionsMixin:
    """Thrown explosives, blasts and getting out of harm's way (mixed into CortexRuleset)."""

    def throw_explosive(self, state: BattleState, a: Combatant, t: Combatant, w: Weapon, attr_name: str,
                        attr: Step, sname: str, skill: Step, extra: list[Step], dice: Dice, mods: list = ()
                        ) -> list[Event]:
        """A grenade thrown at a figure's spot; a miss scatters (data.yaml assumption grenades)."""
        a.res["uses"][w.name] -= 1
        g = state.grid
        diff = int(self.expl["throw_difficulty"])
        ms = [*mods, *bonus_dice(extra)]
        pool = f"{attr_name.capitalize()} {attr} + {sname.replace('_', ' ').title()} {skill}"
        r = roll_steps(dice, (attr, skill, *extra), f"throw {w.name}",
                       RollCall(a.id, f"throw {w.name}", "throw_explosive", pool, step_sides((attr, skill, *extra)),
                                difficulty=diff, modifiers=calls.mods(ms), label=f"throw {w.name}"))
        evs = [event("roll", actor=a.id, purpose=f"throw {w.name}", check="throw_explosive",
                     modifiers=ms, pool=pool,
                     dice=_faces(r), total=r.total, difficulty=diff, **({"botch": True} if r.botch else {}))]
        centre = t.pos
        if r.botch or r.total < diff:
            short = max(diff - r.total, int(self.expl["scatter_points"]))if r.botch else diff - r.total
            feet = self.expl["scatter_ft_per_miss"] * max(1, math.ceil(short / self.expl["scatter_points"]))
            cells = max(1, int(round(feet * FEET / g.cell_m)))
            dice.announce(RollCall(a.id, "scatter direction (d8: 1 = north, clockwise)", "scatter", "d8", (8,),
                                   label="scatter direction"))
            k = dice.roll(8, "scatter direction")
            evs.append(event("roll", actor=a.id, purpose="scatter direction (d8: 1 = north, clockwise)",
                             check="scatter", modifiers=[], dice=[[8, k]], total=k))
            centre = g.slide(centre, *COMPASS[k - 1], cells)
        evs.append(event("attack", actor=a.id, target=t.id, weapon=w.name,
                         result="hit" if centre == t.pos else "miss", total=r.total, difficulty=diff,
                         lands=list(g.xy(centre))))
        return evs + self.blast(state, a, w, centre, dice)

    def blast(self, state: BattleState, a: Combatant, w: Weapon, centre: int, dice: Dice) -> list[Event]:
        """seed 000, Cover and Explosions and Getting out of Harm's Way."""
        g = state.grid
        radius = float(w.x("blast_radius_ft", 10)) * FEET + 1e-6
        near = float(self.expl["prone_no_help_within_ft"]) * FEET + 1e-6
        n_dice = int(w.x("blast_dice", 1))
        evs = [event("effect", target=a.id, effect=f"{w.name} explodes", at=list(g.xy(centre)), dice=n_dice)]
        changes: dict[int, str] = {}
        sturdy = {int(k): int(v) for k, v in self.expl["sturdiness"].items()}
        for c in state.combatants:
            if c.dead or g.distance_m(c.pos, centre) > radius or not g.los(centre, c.pos):
                continue
            if not c.down and "incapacitated" not in c.conditions and c.res["grappled_by"] is None:
                evs += self.harms_way(state, c, w, centre, radius, near, dice)
            d = g.distance_m(c.pos, centre)
            if d > radius:
                continue
            level, src = g.cover_source(c.pos, centre, melee=True) if c.pos != centre else (0, None)
            n = n_dice - level
            if "prone" in c.conditions and d > near:
                n -= int(self.expl["prone_dice"])
            n = max(0, n)
            cut = [mod("cover (dice)", -level)] if level else []
            if "prone" in c.conditions and d > near:
                cut.append(mod("lying prone (dice)", -int(self.expl["prone_dice"])))
            r = roll_steps(dice, [w.damage] * n, "blast",
                           RollCall(c.id, "blast damage", "blast_damage", f"{n}{w.damage}", step_sides([w.damage] * n),
                                    modifiers=calls.mods(cut), label="blast"))
            evs.append(event("roll", actor=c.id, purpose="blast damage", check="blast_damage", modifiers=cut,
                             pool=f"{n}{w.damage}",
                             dice=_faces(r), total=r.total, cover=level, prone="prone" in c.conditions))
            stun, wound = self.split(0, w.dtype, r.total)
            evs += self.take_damage(state, c, stun, wound, dice, w.name)
            if src is not None and level and n_dice > sturdy.get(level, 99) and g.terrain[src].blocks_move:
                changes[src] = ","
        if changes:
            state.grid = g.with_changes(changes)
            for cell in changes:
                evs.append(event("effect", target=a.id, effect="the blast destroys the cover",
                                 at=list(g.xy(cell))))
        return self.tag_harms_way(state, evs)

    def leap_options(self, state: BattleState, c: Combatant, centre: int, feet: float) -> dict[str, int]:
        """direction -> the cell a leap that way ends on, for the directions that end farther
        from the blast than the figure stands ("moves ... away from the blast")."""
        g = state.grid
        blocked = state.occupied() - {c.pos}
        here = g.distance_m(c.pos, centre)
        out = {}
        for d, name in enumerate(DIRECTIONS):
            path = leap_cells(g, c.pos, d, feet, blocked)
            if path and g.distance_m(path[-1], centre) > here + 1e-9:
                out[name] = path[-1]
        return out

    def harms_way(self, state: BattleState, c: Combatant, w: Weapon, centre: int, radius: float, near: float,
                  dice: Dice) -> list[Event]:
        """Agility + Alertness at Average (7): 5 ft away, 10 ft on an extraordinary success."""
        g = state.grid
        here = g.distance_m(c.pos, centre)
        cx, cy = g.xy(centre)
        evs: list[Event] = []
        if decide(state, c, "harms_way", ("leap", "stay"), "leap",
                  f"the {w.name} explodes at ({cx}, {cy}), {here:.1f} m from {c.id}: leap out of harm's way "
                  "(Agility + Alertness, Average; costs 1 action) or stay?") == "stay":
            return [event("choice", actor=c.id, key="harms_way", choice="stay")]
        evs.append(event("choice", actor=c.id, key="harms_way", choice="leap"))
        steps = self.traitbook.pair_steps(c.traits, {"harms_way"} | c.conditions, ("agility", "alertness"))
        at = c.stats["attributes"]
        agi = Step(max(1, at["agility"].index + self.base_attr_steps(c, "agility") + steps[0]))
        ale = Step(max(1, at["alertness"].index + self.base_attr_steps(c, "alertness") + steps[1]))
        diff = int(self.data["harms_way"]["difficulty"])
        r = roll_steps(dice, (agi, ale), "harm's way",
                       RollCall(c.id, "get out of harm's way", "harms_way", f"Agility {agi} + Alertness {ale}",
                                step_sides((agi, ale)), difficulty=diff, label="harm's way",
                                modifiers=calls.mods(self.pair_modifiers(c, ("agility", "alertness"), {"harms_way"}))))
        ok = r.total >= diff and not r.botch
        c.res["reaction_debt"] += 1
        evs.append(event("roll", actor=c.id, purpose="get out of harm's way", pool=f"Agility {agi} + Alertness {ale}",
                         dice=_faces(r), total=r.total, difficulty=diff, success=ok))
        if not ok:
            return evs
        feet = self.data["harms_way"]["extraordinary_ft" if r.total - diff >= self.xmargin else "success_ft"]
        options = self.leap_options(state, c, centre, feet)
        frm = c.pos
        if options:
            best = max(options, key=lambda n: (g.distance_m(options[n], centre), -options[n]))
            way = decide(state, c, "leap_direction", tuple(options), best,
                         f"{c.id} leaps {feet} ft: which way, away from the blast at ({cx}, {cy})?")
            evs.append(event("choice", actor=c.id, key="leap_direction", choice=way))
            c.pos = options[way]
            evs.append(event("move", actor=c.id, **{"from": list(g.xy(frm))}, to=list(g.xy(c.pos)),
                             metres=round(g.distance_m(frm, c.pos), 3), mode="leap"))
            if c.res["grappling"] is not None:
                self.release_grapple(state, c)
        else:
            evs.append(event("info", text=f"{c.id} has no room to leap away from the blast"))
        if "prone" in c.conditions:
            return evs
        d = g.distance_m(c.pos, centre)
        default = "prone" if near < d <= radius else "stand"
        way = decide(state, c, "fall_prone", ("prone", "stand"), default,
                     f"{c.id} has leapt {d:.1f} m from the blast: fall prone?")
        evs.append(event("choice", actor=c.id, key="fall_prone", choice=way))
        if way == "prone":
            c.conditions.add("prone")
            evs.append(event("condition", target=c.id, condition="prone", on=True, cause="dives face-down"))
        return evs
