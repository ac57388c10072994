"""Cortex defences (seed 000, Defense, Melee Combat and Defense, Ranged Combat): block and
dodge pools, the dodge to cover, innate defence (Capoeira), and the Difficulty an attack
must beat.

Moved out of `combat.py` (issue #32) so that module stays readable.
"""

from __future__ import annotations

from typing import Any

from rules import calls
from rules.calls import RollCall, step_sides
from rules.dice import Dice, Step, roll_steps
from rules.events import Event, event
from rules.grid import FEET
from rules.state import BattleState, Combatant
from rules.systems.cortex.model import Weapon, make_pool, skill_die


def _faces(r) -> list[list[int]]:
    return [list(f) for f in r.faces]


class DefenceMixin:
    """Block, dodge and innate defence for `CortexRuleset`."""

    def defence_pool(self, state: BattleState, d: Combatant, mode: str, steps: int | None = None
                     ) -> tuple[Step, Step, str] | None:
        """The defender's dice for a block or dodge (None if impossible)."""
        if steps is None:
            steps = -state.economy.get("actions", 0) if state.actor is d else 0
        key = ("defence", d.id, mode, steps)
        hit = self._pool_cache.get(key, key)
        if hit is not key:
            return hit
        res = self._defence_pool(state, d, mode, steps)
        self._pool_cache[key] = res
        return res

    def has_defence(self, state: BattleState, d: Combatant, mode: str, steps: int) -> bool:
        """Whether `defence_pool(state, d, mode, steps)` has dice; found without the pool when
        no penalty applies (`make_pool` empties a pool only under a penalty)."""
        if steps + (int(self.called["impaired_steps"]) if "impaired" in d.conditions else 0) >= 0:
            return mode == "dodge" or self.arms_usable(d) > 0
        return self.defence_pool(state, d, mode, steps) is not None

    def _defence_pool(self, state: BattleState, d: Combatant, mode: str, steps: int
                      ) -> tuple[Step, Step, str] | None:
        if "impaired" in d.conditions:
            steps += int(self.called["impaired_steps"])
        if mode == "dodge":
            sk = skill_die(d.stats, "athletics", "dodge")
            p = make_pool(d, "agility", sk, steps, self.attr_steps(d, "agility"))
            return None if p is None else (p[0], p[1], "athletics/dodge")
        if self.arms_usable(d) == 0:
            return None
        w = self.block_weapon(d)
        sname, sk = self.weapon_skill(d, w)
        if w.name == "unarmed":
            sname, sk = self.unarmed_skill(d, ("defensive_martial_arts", "capoeira", "krav_maga", "brawling",
                                               "wrestling", "offensive_martial_arts"))
        p = make_pool(d, "agility", sk, steps, self.attr_steps(d, "agility"))
        return None if p is None else (p[0], p[1], sname)

    def block_weapon(self, d: Combatant) -> Weapon:
        melee = [w for w in self.usable_weapons(d) if not w.ranged]
        if len(melee) > 1:
            melee.sort(key=lambda w: (self.weapon_skill(d, w)[1].index, w.size, w.name), reverse=True)
        return melee[0] if melee else self.weapons["unarmed"]

    def dodge_destination(self, state: BattleState, d: Combatant, attacker: Combatant
                          ) -> tuple[int, int, list[int]] | None:
        """(cell, skill steps, path) of the nearest cover against the attacker within 30 ft."""
        g = state.grid
        if g.cover(d.pos, attacker.pos) > 0:
            return d.pos, 0, [d.pos]
        far, blockers, cands = self.dodge_reach(state, d, attacker)
        if not cands:
            return None
        return self.dodge_to(state, d, far, blockers, *min(cands))

    def dodge_reach(self, state: BattleState, d: Combatant, attacker: Combatant
                    ) -> tuple[int, list[int], list[tuple[int, int]]]:
        """(budget, blockers, [(cost, cell)] of the free cells with cover against the
        attacker that a dodge within 30 ft reaches)."""
        g = state.grid
        far = g.budget_units(30 * FEET * self.speed_factor(d))
        if far <= 0:
            return far, [], []
        blockers = [c.pos for c in state.combatants if c.team != d.team and not c.down]
        reach = g.reachable(d.pos, far, blockers)
        occ = state.occupied()
        return far, blockers, [(cost, cell) for cell, cost in reach.items()
                               if cost <= far and cell not in occ and g.cover(cell, attacker.pos) > 0]

    def dodge_to(self, state: BattleState, d: Combatant, far: int, blockers: list[int], cost: int, cell: int
                 ) -> tuple[int, int, list[int]] | None:
        """(cell, skill steps by the distance to it, path) of a dodge to `cell`."""
        g = state.grid
        ft = g.units_to_m(cost) / FEET
        for row in self.dodge_table:
            if ft <= row["feet"] + 1e-9:
                return cell, int(row["steps"]), g.path(d.pos, cell, far, blockers)
        return None

    def innate(self, state: BattleState, d: Combatant, dice: Dice, cover_bonus: int, melee: bool,
               against: dict | None = None) -> tuple[int, list[Event]]:
        """seed 000, Capoeira: "Your Innate Defense against melee attacks is 5": no roll, the
        Difficulty is 5 (plus any cover a sheltering figure has); ranged attacks as usual."""
        if melee and self.has_style(d, "capoeira"):
            diff = int(self.data["capoeira"]["innate_melee"]) + cover_bonus
            return diff, [event("defence", actor=d.id, mode="innate (capoeira)", difficulty=diff,
                                cover_bonus=cover_bonus)]
        return self.innate_or_stand(state, d, dice, cover_bonus, against)

    def stance_steps(self, d: Combatant) -> int:
        """The step modifier of the next defensive roll in the stance (each further roll is one lower)."""
        st = d.res["stance"]
        k = st["rolls"]
        if st.get("all_out") and self.has_style(d, "capoeira"):
            k = max(0, k - 1)  # seed 000, Capoeira: the first 2 defensive moves count as 1 action
        return st["steps"] - k

    def defence_cover(self, state: BattleState, a: Combatant, d: Combatant, ranged: bool) -> int:
        """The cover bonus the defender's Difficulty gets against this attack (hand-to-hand:
        cover only when sheltering and not attacking, seed 000)."""
        g = state.grid
        if ranged:
            return self.cover_table[g.cover(d.pos, a.pos)]
        return self.cover_table[g.cover(d.pos, a.pos, melee=True) if not d.res["attacked_last"] else 0]

    def defence_against(self, state: BattleState, a: Combatant, d: Combatant, w: Weapon, option: str = ""
                        ) -> dict[str, Any]:
        """The `against` of an attack's roll call (rules/calls.py): the defender's Difficulty,
        rolled after the attack, with the cover bonus it will get."""
        if d.res["grappled_by"] == a.id and not w.ranged:
            return {"figure": d.id, "what": "held", "total": None, "cover": 0}
        return {"figure": d.id, "what": "defence", "total": None,
                "cover": self.defence_cover(state, a, d, w.ranged or option == "throw")}

    def resolve_defence(self, state: BattleState, a: Combatant, d: Combatant, w: Weapon, atk_total: int,
                        dice: Dice, option: str = "") -> tuple[int, dict, list[Event]]:
        """The Difficulty to hit d, with what the defence did (stumble, block result ...)."""
        evs: list[Event] = []
        info: dict[str, Any] = {}
        stance = d.res["stance"]
        ranged = w.ranged or option == "throw"
        can_react = "incapacitated" not in d.conditions
        if ranged:
            cb = self.defence_cover(state, a, d, ranged)
            if "prone" in d.conditions:
                diff = self.diff["easy"] + max(self.cover_table[1], cb)
                evs.append(event("defence", actor=d.id, mode="prone", difficulty=diff, cover_bonus=cb))
                return diff, info, evs
            if stance is not None and stance["mode"] == "dodge" and can_react:
                dest, chose = self.dodge_cover(state, d, a)
                if dest is not None:
                    cell, cstep, path = dest
                    p = self.defence_pool(state, d, "dodge", self.stance_steps(d) + cstep)
                    if p is not None:
                        evs += chose
                        mods = self.stance_modifiers(d, cstep, "distance to cover")
                        stance["rolls"] += 1
                        pool = f"Agility {p[0]} + Athletics/Dodge {p[1]}"
                        r = roll_steps(dice, (p[0], p[1]), "dodge",
                                       RollCall(d.id, "dodge to cover", "dodge", pool, step_sides(p[:2]),
                                                against={"figure": a.id, "what": "attack", "total": atk_total},
                                                modifiers=calls.mods(mods), label="dodge"))
                        evs.append(event("roll", actor=d.id, purpose="dodge to cover", check="dodge",
                                         modifiers=mods,
                                         pool=pool, dice=_faces(r),
                                         total=r.total, **({"botch": True} if r.botch else {})))
                        if r.botch:
                            occ = state.occupied() - {d.pos}
                            steps_ = path[: (len(path) - 1) // 2 + 1] if path else [d.pos]
                            half = next((c for c in reversed(steps_) if c not in occ), d.pos)
                            evs += self.dive(state, d, half, "stumble")
                            d.res["no_move_round"] = state.round
                            diff = self.diff["easy"]
                            evs.append(event("defence", actor=d.id, mode="dodge (botch)", difficulty=diff))
                            info["stumble"] = True
                            return diff, info, evs
                        evs += self.dive(state, d, cell, "dive")
                        evs.append(event("defence", actor=d.id, mode="dodge", difficulty=r.total))
                        return r.total, info, evs
            if not can_react:
                diff = self.diff["easy"] + cb
                evs.append(event("defence", actor=d.id, mode="helpless", difficulty=diff, cover_bonus=cb))
                return diff, info, evs
            diff, ev = self.innate(state, d, dice, cb, melee=False,
                                   against={"figure": a.id, "what": "attack", "total": atk_total})
            return diff, info, evs + ev
        cb = self.defence_cover(state, a, d, ranged)
        if not can_react:
            diff = self.diff["easy"] + cb
            evs.append(event("defence", actor=d.id, mode="helpless", difficulty=diff, cover_bonus=cb))
            return diff, info, evs
        if stance is not None:
            mode = stance["mode"]
            extra = 0
            if mode == "block":
                bw = self.block_weapon(d)
                if bw.size < w.size:
                    extra = -1
                elif bw.size > w.size:
                    extra = 1
                info["block_weapon"] = bw
            p = self.defence_pool(state, d, mode, self.stance_steps(d) + extra)
            if p is not None:
                mods = self.stance_modifiers(d, extra, "smaller blocking weapon" if extra < 0
                                             else "larger blocking weapon")
                stance["rolls"] += 1
                pool = f"Agility {p[0]} + {p[2].replace('_', ' ').title()} {p[1]}"
                r = roll_steps(dice, (p[0], p[1]), mode,
                               RollCall(d.id, mode, mode, pool, step_sides(p[:2]),
                                        against={"figure": a.id, "what": "attack", "total": atk_total},
                                        modifiers=calls.mods(mods), label=mode))
                evs.append(event("roll", actor=d.id, purpose=mode, check=mode, modifiers=mods,
                                 pool=pool,
                                 dice=_faces(r), total=r.total, **({"botch": True} if r.botch else {})))
                if r.botch:
                    d.res["no_move_round"] = state.round
                    diff = self.diff["easy"]
                    evs.append(event("defence", actor=d.id, mode=f"{mode} (botch)", difficulty=diff))
                    evs.append(event("effect", target=d.id, effect="stumbles and cannot move further this turn"))
                    info["stumble"] = True
                    return diff, info, evs
                diff = r.total + cb
                info["mode"] = mode
                info["roll"] = r.total
                evs.append(event("defence", actor=d.id, mode=mode, difficulty=diff, cover_bonus=cb))
                return diff, info, evs
        diff, ev = self.innate(state, d, dice, cb, melee=True,
                               against={"figure": a.id, "what": "attack", "total": atk_total})
        return diff, info, evs + ev

    def dive(self, state: BattleState, d: Combatant, cell: int, mode: str) -> list[Event]:
        if cell == d.pos:
            return []
        g = state.grid
        frm = d.pos
        d.pos = cell
        if d.res["grappling"] is not None:
            self.release_grapple(state, d)
        return [event("move", actor=d.id, **{"from": list(g.xy(frm))}, to=list(g.xy(cell)),
                      metres=round(g.distance_m(frm, cell), 3), mode=mode)]
