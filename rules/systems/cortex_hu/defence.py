"""Defences under seed 002 (`cortex_hu`), and the choices seed 002 gives the defender.

seed 002 rules implemented here (headings of /work/shared/seeds/002_*.txt):
- Kitérés/blokkolás: parries and dodges declared on the figure's turn answer the next
  hand-to-hand attack even after its turn; reactions after its turn are carried into its
  next turn;
- Ösztönös kitérés: innate defence, Easy (3) when not watching, Plot Points;
- Hárítás, Kitérés: parry (not against firearms, energy weapons or thrown objects;
  bare-handed against a weapon still takes its damage die) and dodge;
- Teljes körű támadás, Meglepetésből támadás, Csel: innate defence only;
- Fedezékek: cover adds to the Difficulty of ranged attacks.
"""

from __future__ import annotations

from typing import Any

from rules.dice import Dice, Step, roll_steps
from rules.events import Event, event
from rules.state import BattleState, Combatant
from rules.systems.cortex_common.mechanics import faces
from rules.systems.cortex_common.model import Weapon, plot_point_die, roll_pool
from rules.systems.cortex_hu.combat import named_skill
from rules.systems.cortex_hu.ladder import ladder_pool
from rules.systems.cortex_hu.rolls import fill, mods, tag


class DefenceHu:
    """The defence against an attack for `CortexHuRuleset` (with `CombatHu`'s weapons and skills)."""

    # -- defence ---------------------------------------------------------------------------
    def watches(self, state: BattleState, d: Combatant, a: Combatant) -> bool:
        """seed 002, Ösztönös kitérés: whether the defender watches its attacker."""
        return not d.res["surprised"] and state.grid.los(d.pos, a.pos)

    def innate_only_reason(self, d: Combatant, feinted: bool) -> str | None:
        if feinted:
            return "feinted"
        if d.res["surprised"]:
            return "surprised"
        if d.res["all_out"]:
            return "all-out attack"
        return None

    def cover_against(self, state: BattleState, a: Combatant, d: Combatant, w: Weapon, option: str) -> int:
        """seed 002, Fedezékek: the Difficulty bonus of d's cover against a's ranged attack."""
        if not self.ranged_attack(w, option):
            return 0
        g = state.grid
        level = g.cover(d.pos, a.pos)
        if "prone" in d.conditions and g.distance_m(d.pos, a.pos) > self.rng["point_blank_m"] + 1e-9:
            level = max(level, int(self.prone_rules["ranged_cover_level"]))
        return self.cover_table[level]

    def defence_pool(self, d: Combatant, mode: str, steps: int) -> tuple[Step, Step, str] | None:
        """Agility + the parry or dodge skill with `steps` on the ladder (None if impossible)."""
        if mode == "dodge":
            sname, sk = named_skill(d, "athletics", "dodge")
        else:
            sname, sk = self.weapon_skill(d, self.parry_weapon(d))
        p = ladder_pool(d, "agility", sk, steps, self.attr_steps(d, "agility"))
        return None if p is None else (p[0], p[1], sname)

    def parry_weapon(self, d: Combatant) -> Weapon:
        melee = [w for w in self.usable_weapons(d) if not w.ranged]
        melee.sort(key=lambda w: (self.weapon_skill(d, w)[1].index, w.size, w.name), reverse=True)
        return melee[0] if melee else self.weapons["unarmed"]

    def prepared_for(self, d: Combatant, w: Weapon, option: str) -> int | None:
        """Index of the first prepared defence that can answer this attack: a parry or dodge
        declared on the turn answers the next hand-to-hand attack (seed 002, Kitérés/blokkolás:
        "közelharcban/kézitusában"); gunfire is dodged by reaction only."""
        if self.ranged_attack(w, option) or not d.res["prepared"]:
            return None
        return 0

    def reaction_steps(self, d: Combatant) -> int:
        """The ladder step of a reaction: after the actions of its last turn and earlier reactions."""
        steps = -(d.res["last_actions"] + d.res["debt"])
        if "prone" in d.conditions:
            steps += int(self.prone_rules["steps"])
        if d.res["full_defence"]:
            steps += self.full_defence_steps
        return steps

    def innate_mean(self, state: BattleState, d: Combatant, a: Combatant) -> float:
        if not self.watches(state, d, a) or self.declines_innate(d):
            return float(self.diff["easy"])
        return self.attr_die(d, "agility").mean

    def reaction(self, state: BattleState, d: Combatant, a: Combatant, w: Weapon, option: str
                 ) -> tuple[str, tuple[Step, Step, str], int] | None:
        """The reactive parry or dodge d makes against this attack, if any (assumption reactions)."""
        if d.stats["reactions"] == "never" or d.res["debt"] >= self.reaction_limit:
            return None
        steps = self.reaction_steps(d)
        best = None
        for mode in ("parry", "dodge"):
            if mode == "parry" and not self.can_parry(w, option):
                continue
            p = self.defence_pool(d, mode, steps)
            if p is None:
                continue
            mean = p[0].mean + p[1].mean
            if best is None or mean > best[0]:
                best = (mean, mode, p)
        if best is None or best[0] <= self.innate_mean(state, d, a):
            return None
        return best[1], best[2], steps

    def resolve_defence(self, state: BattleState, a: Combatant, d: Combatant, w: Weapon, option: str,
                        atk_total: int, dice: Dice, innate_only: bool = False) -> tuple[int, dict, list[Event]]:
        """The Difficulty to hit d, the events of its defence, and what the defence was."""
        cb = self.cover_against(state, a, d, w, option)
        info: dict[str, Any] = {}
        why = self.innate_only_reason(d, innate_only)
        if why is None:
            i = self.prepared_for(d, w, option)
            if i is not None:
                p = d.res["prepared"].pop(i)
                pool = self.defence_pool(d, p["mode"], p["steps"])
                if pool is not None:
                    declared = p.get("modifiers", mods(("declared", p["steps"])))
                    return self._active_defence(a, d, w, p["mode"], pool, p["steps"], cb, dice, "prepared",
                                                declared + self.attr_mods(d, "agility"))
            react = self.reaction(state, d, a, w, option)
            if react is not None:
                mode, pool, steps = react
                modifiers = self.reaction_mods(d) + self.attr_mods(d, "agility")
                d.res["debt"] += 1
                self.lose_aim(d)
                diff, info, evs = self._active_defence(a, d, w, mode, pool, steps, cb, dice, "reaction", modifiers)
                evs.append(event("effect", target=d.id, effect=f"reacts off its turn: its next turn starts "
                                 f"{d.res['debt']} step{'s' if d.res['debt'] > 1 else ''} lower",
                                 carried=d.res["debt"]))
                return diff, info, evs
        if not self.watches(state, d, a):
            diff = self.diff["easy"] + cb
            return diff, info, [event("defence", actor=d.id, mode="innate, not watching", difficulty=diff,
                                      cover_bonus=cb)]
        diff, evs = self.innate_defence(d, dice, cb)
        fill(evs, "innate_defence", lambda _id: self.attr_mods(d, "agility"))
        if why:
            evs[-1]["mode"] += f" only ({why})"
        if len(evs) == 2:  # rolled: Plot Points may be added (seed 002, Ösztönös kitérés)
            diff, pev = self.innate_plot_points(d, atk_total, diff, dice)
            if pev:
                evs.insert(1, pev)
                evs[-1]["difficulty"] = diff
        return diff, info, evs

    def _active_defence(self, a: Combatant, d: Combatant, w: Weapon, mode: str, pool: tuple[Step, Step, str],
                        steps: int, cb: int, dice: Dice, how: str, modifiers: list[dict[str, Any]]
                        ) -> tuple[int, dict, list[Event]]:
        r, ev = roll_pool(dice, d.id, f"{mode} ({how})", "agility", pool[0], pool[2], pool[1],
                          extra={"steps": steps, "check": mode, "modifiers": modifiers})
        diff = r.total + cb
        info: dict[str, Any] = {"mode": mode, "roll": r.total}
        if mode == "parry" and w.name != "unarmed" and self.parry_weapon(d).name == "unarmed":
            info["bare_parry"] = True
        return diff, info, [ev, event("defence", actor=d.id, mode=f"{mode} ({how})", difficulty=diff,
                                      cover_bonus=cb)]

    def innate_plot_points(self, d: Combatant, atk_total: int, diff: int, dice: Dice) -> tuple[int, Event | None]:
        """Spend the fewest Plot Points whose die could lift the innate roll over the attack
        (assumption innate_plot_points); the die is added to the Difficulty."""
        if d.res["pp"] <= 0 or atk_total < diff:
            return diff, None
        gap = atk_total - diff + 1
        cap = min(d.res["pp"], int(self.pp_rules["max_spend"]))
        n = next((k for k in range(1, cap + 1) if plot_point_die(k).maximum >= gap), None)
        if n is None:
            return diff, None
        d.res["pp"] -= n
        die = plot_point_die(n)
        r = roll_steps(dice, (die,), "plot points")
        return diff + r.total, tag(event("roll", actor=d.id, purpose=f"spends {n} Plot Point{'s' if n > 1 else ''} "
                                         "on innate defence", pool=str(die), dice=faces(r), total=r.total, points=n),
                                   "plot_points")

    def expected_defence(self, state: BattleState, a: Combatant, d: Combatant, w: Weapon, option: str,
                         innate_only: bool = False) -> tuple[tuple[int, ...], int]:
        """(defence dice sides, flat addition) that `resolve_defence` would use now, without rolling."""
        if d.res["grappled_by"] is not None and w.name == "unarmed":
            return (), self.held_difficulty
        cb = self.cover_against(state, a, d, w, option)
        if self.innate_only_reason(d, innate_only) is None:
            i = self.prepared_for(d, w, option)
            pool = None
            if i is not None:
                p = d.res["prepared"][i]
                pool = self.defence_pool(d, p["mode"], p["steps"])
            if pool is None:
                react = self.reaction(state, d, a, w, option)
                pool = react[1] if react is not None else None
            if pool is not None:
                return pool[0].dice + pool[1].dice, cb
        if not self.watches(state, d, a) or self.declines_innate(d):
            return (), self.diff["easy"] + cb
        return self.attr_die(d, "agility").dice, cb


__all__ = ["DefenceHu"]
