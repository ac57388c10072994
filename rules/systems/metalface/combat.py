"""METALFACE attacks, damage and Status levels (seed 003).

seed 003 headings implemented here: Body Attacks; Ranged Weapon Attacks; Targeting (the
Targeting Roll and Targeting Modifiers tables); Damage; Status Levels and Effects. The
numbers are in data.yaml; every decision the seed leaves open is an `assumptions` entry
there (named in the docstrings below).
"""

from __future__ import annotations

from typing import Any

from rules.actions import Action
from rules import calls
from rules.calls import RollCall
from rules.dice import Dice
from rules.events import Event, event
from rules.grid import Grid
from rules.state import DOWN_CONDITIONS, BattleState, Combatant
from rules.systems.metalface.geometry import STEPS, bearing, bearing_dxdy, turn_steps
from rules.systems.metalface.model import Weapon, mean_total, p_at_least, p_beats, pool, roll_value

EPS = 1e-6


def in_reach(g: Grid, apos: int, tpos: int, d: int, close: int, wl: list[tuple]):
    """The entries of `wl` (ranged, reach in squares, ...: one per ready weapon) that reach a target
    at `tpos`, `d` squares (Chebyshev) from `apos`: a ranged weapon beyond `close` squares, in sight
    and short of full cover; a body attack within its reach: on the next square with no wall between
    (`Grid.adjacent`), in sight beyond it.
    `attack_actions` lists by it and the threat query (threat.py) prices by it, so the two agree."""
    clear = None
    for entry in wl:
        if entry[0]:
            if d <= close:
                continue
            if clear is None:
                clear = g.los(apos, tpos) and g.cover(tpos, apos) < 4
            if not clear:
                continue
        elif d > entry[1] or (not g.los(apos, tpos) if d > 1 else not g.adjacent(apos, tpos)):
            continue
        yield entry


def _faces(faces: list[int]) -> list[list[int]]:
    return [[6, f] for f in faces]


def _with_shortfall(mods: list[dict[str, Any]], value: int) -> list[dict[str, Any]]:
    """The modifiers of a roll of `value`, with the shortfall of a value below one die."""
    short = pool(value)[1]
    return list(mods) + ([{"source": "below one die", "value": -short}] if short else [])


def roll_call(actor: str, purpose: str, check: str, pool_words: str, value: int, mods: list[dict[str, Any]],
              dice_mods: list[dict[str, Any]], label: str, difficulty: int | None = None,
              against: dict[str, Any] | None = None) -> RollCall:
    """The announcement of a roll that `roll_event` will record: the same modifiers, the
    changes to the number of dice named "(dice)", and the kept die."""
    n = pool(value)[0]
    ms = calls.mods(_with_shortfall(mods, value)) + tuple((f"{s} (dice)", v) for s, v in calls.mods(dice_mods))
    return RollCall(actor, purpose, check, pool_words, (6,) * n, difficulty=difficulty, against=against,
                    modifiers=ms, keep=f"highest of {n}d6", label=label)


def roll_event(actor: str, purpose: str, check: str, pool_words: str, value: int, faces: list[int], kept: int,
               total: int, mods: list[dict[str, Any]], dice_mods: list[dict[str, Any]], **extra: Any) -> Event:
    """A `roll` event: `modifiers` are the numbers added to the kept die (total = kept + their
    sum; a value below one die adds its shortfall, assumption pool_floor), `dice_modifiers`
    the changes to the number of dice (status level, cover, lying, attacked from behind)."""
    mods = _with_shortfall(mods, value)
    return event("roll", actor=actor, purpose=purpose, check=check, pool=pool_words, dice=_faces(faces), kept=kept,
                 modifiers=mods, dice_modifiers=list(dice_mods), total=total, **extra)


def _pool_words(name: str, value: int, fewer: int) -> str:
    s = f"{name.upper()} {value + fewer}"
    if fewer:
        s += f" -{fewer}d"
    return s


class CombatMixin:
    """Attacks, damage and Status levels for `MetalfaceRuleset`."""

    # -- facing -----------------------------------------------------------------------
    def face_plan(self, g: Grid, a: Combatant, target_pos: int) -> tuple[float, int]:
        """(turning metres, facing afterwards) for `a` to attack into `target_pos`.

        assumption front_arc: a target within 90 degrees of the facing needs no turn; any
        other target makes the figure turn to face it, paid as movement."""
        b = bearing(g, a.pos, target_pos)
        f = a.res["facing"]
        if b < 0 or turn_steps(f, b) <= 2:
            return 0.0, f
        return self.turn_cost(f, b), b

    def in_front(self, g: Grid, c: Combatant, other_pos: int) -> bool:
        b = bearing(g, c.pos, other_pos)
        return b < 0 or turn_steps(c.res["facing"], b) <= 2

    # -- readiness --------------------------------------------------------------------
    def weapon_ready(self, a: Combatant, w: Weapon) -> bool:
        """A ranged weapon that can fire now: unpacked, not jammed, loaded or charged."""
        if not w.ranged:
            return True
        r = a.res
        return w.name not in r["packed"] and w.name not in r["jammed"] and r["ammo"].get(w.name, 0) >= 1

    def close_squares(self, g: Grid) -> int:
        """Squares out to which a target is closer than the seed's 1 m (assumption
        range_measure): each step to a next square, diagonal or not, counts one square of
        `cell_m` metres, as a body attack's 1 m radius counts them; a target within 1 m
        cannot be fired at (1 m squares: the next squares; 1.5 m: none; 0.5 m: two)."""
        return int(self.min_fire_m / g.cell_m + EPS)

    def too_close(self, g: Grid, squares: int) -> bool:
        """seed 003, Ranged Weapon Attacks: "A weapon may not be fired at a target closer than 1m"."""
        return squares <= self.close_squares(g)

    def reach_cells(self, g: Grid, w: Weapon) -> int:
        """assumption body_reach: the next squares; reach_m 2 reaches two squares."""
        return max(1, int(w.reach_m / g.cell_m + EPS))

    def targetable(self, t: Combatant) -> bool:
        """Whether `t` may be attacked at all (assumption down_targets): a figure that is up, or a
        down one with Status left (repaired or healed part of the way back, not yet to 25%). seed
        003, Damage: "'Down' means the character is unable to make actions of any kind" limits
        what the down figure does, not what is done to it; at 0 Status left no damage can land
        (assumption no_death), so that figure is not a target."""
        return DOWN_CONDITIONS.isdisjoint(t.conditions) or t.res["damage"] < t.stats["status"]

    def can_attack(self, state: BattleState, a: Combatant, t: Combatant, w: Weapon) -> bool:
        if t.team == a.team or not self.targetable(t):
            return False
        g = state.grid
        if w.ranged:
            if not self.weapon_ready(a, w):
                return False
            if self.too_close(g, g.chebyshev(a.pos, t.pos)):   # seed 003: not closer than 1 m
                return False
            if not g.los(a.pos, t.pos):
                return False
            if g.cover(t.pos, a.pos) >= 4:          # assumption full_cover: no attack at all
                return False
        else:
            cells = self.reach_cells(g, w)
            d = g.chebyshev(a.pos, t.pos)
            if d > cells or (not g.los(a.pos, t.pos) if d > 1 else not g.adjacent(a.pos, t.pos)):
                return False
        turn_m, _ = self.face_plan(g, a, t.pos)
        return self.can_spend_half(a, state.economy, turn_m)

    def attack_actions(self, state: BattleState, a: Combatant, ws: list[Weapon], target: str | None = None,
                       walk: float | None = None) -> list[Action]:
        """Every legal attack of `a` (on `target` only, when given): the same tests as
        `can_attack` for each enemy and weapon, with the per-target geometry shared (the hot
        path of `legal_actions`). `walk`: `walk_m(a)`, when the caller has it."""
        e = state.economy
        h = e["halves"]
        if h >= 2:
            return []
        g = state.grid
        r = a.res
        packed, jammed, ammo = r["packed"], r["jammed"], r["ammo"]
        # per weapon once, not per target: ranged, its reach in squares (melee), its name; the
        # ranged ones only when ready (`weapon_ready`), the reach as `reach_cells` gives it
        wl = [(False, max(1, int(w.reach_m / g.cell_m + EPS)), w.name) if w.kind == "melee" else (True, 0, w.name)
              for w in ws if w.kind == "melee" or (w.name not in packed and w.name not in jammed
                                                   and ammo.get(w.name, 0) >= 1)]
        if not wl:
            return []
        out: list[Action] = []
        A = self.action
        interned = self._actions
        if walk is None:
            walk = self.walk_m(a)
        moved = e["move_m"]
        per45 = self.turn_m_per_45
        steps = STEPS[r["facing"]]
        close = int(self.min_fire_m / g.cell_m + EPS)   # `close_squares`
        gw = g.width
        ax, ay = a.pos % gw, a.pos // gw
        team = a.team
        # exact: each enemy's attacks are tested on their own, so skipping the others keeps its list
        ts = state.combatants if target is None else [t for t in state.combatants if t.id == target]
        down = DOWN_CONDITIONS
        # with no ranged weapon ready, a target farther than every body attack's reach gets none
        far = 1 << 30 if any(ranged for ranged, _, _ in wl) else max(cells for _, cells, _ in wl)
        for t in ts:
            # `targetable`: up, or down with Status left (assumption down_targets)
            if t.team == team or (not down.isdisjoint(t.conditions) and t.res["damage"] >= t.stats["status"]):
                continue
            tx, ty = t.pos % gw, t.pos // gw
            d = max(abs(tx - ax), abs(ty - ay))
            if d > far:
                continue
            b = bearing_dxdy(tx - ax, ty - ay)
            st = steps[b] if b >= 0 else 0
            total = moved + (st * per45 if st > 2 else 0.0)
            mh = 0 if total <= EPS else (1 if total <= walk + EPS else 2)
            if h + mh + 1 > 2:
                continue
            for _, _, name in in_reach(g, a.pos, t.pos, d, close, wl):
                x = interned.get(("attack", t.id, None, name, None))   # `self.action`'s key
                out.append(x if x is not None else A("attack", target=t.id, weapon=name))
        return out

    # -- plans (shared by apply and attack_odds) ---------------------------------------
    def band(self, dist_m: float, per: int) -> tuple[str, int]:
        """seed 003, Targeting Roll: short PER x 10 m +1, medium PER x 100 0, long PER x 200 -1,
        out of range -2 (assumption out_of_range: still allowed)."""
        for b in self.bands:
            if dist_m <= per * b["per_x"] + EPS:
                return b["name"], int(b["mod"])
        return "out_of_range", self.out_of_range_mod

    def partial_cover(self, state: BattleState, t: Combatant, a: Combatant) -> str | None:
        """Why `t` is partially covered against ranged fire from `a` (None when it is not).

        assumption cover_levels: light/medium/heavy map cover is partial; posture_effects:
        lying is partial; shield_device: an active shield is partial; they do not add up."""
        lvl = state.grid.cover(t.pos, a.pos)
        if 1 <= lvl <= 3:
            return "cover"
        if t.res["posture"] == "lie":
            return "lying"
        if t.res["shield"] == "on":
            return "shield"
        return None

    def damage_vs(self, t: Combatant, attack_value: int, least: int = 0) -> int:
        """attack value - (END + armour) (assumption armour), at least `least`.

        seed 003, Body Attacks: "attacker deals damage equal to (STR + modifiers) - defenders
        (END + modifiers)": none at zero or below. Ranged hits deal at least
        `ranged_min_damage` (assumption ranged_damage)."""
        return max(least, attack_value - (self.val(t, "end") + t.stats["armour"]))

    def level_dice(self, c: Combatant, v: str) -> list[dict[str, Any]]:
        """The status level's modifier to value `v`, as a dice modifier (none at Perfect)."""
        d = self.val(c, v) - c.stats["values"][v]
        return [{"source": f"status {c.res['level']}", "value": d}] if d else []

    def ranged_plan(self, state: BattleState, a: Combatant, t: Combatant, w: Weapon,
                    face: tuple[float, int] | None = None) -> dict[str, Any]:
        """seed 003, Targeting: the PER roll with range, movement and cover modifiers.
        `face`: (turning metres, facing after) when the attacker chose its turn."""
        g = state.grid
        e = state.economy
        turn_m, facing = face or self.face_plan(g, a, t.pos)
        amove = self.moved_status(a, e["move_m"] + turn_m, e["flew"])
        tmove = t.res["moved"]
        per = self.val(a, "per")
        band, bmod = self.band(g.distance_m(a.pos, t.pos), max(1, per))
        partial = self.partial_cover(state, t, a)
        fewer = 1 if partial else 0
        mods = [{"source": "skill", "value": int(a.stats["skills"].get(w.skill, 0))},
                {"source": "range", "value": bmod},
                {"source": "attacker", "value": int(self.movement_mods[amove])},
                {"source": "target", "value": int(self.movement_mods[tmove])}]
        dice_mods = self.level_dice(a, "per") + ([{"source": f"partial cover ({partial})", "value": -1}]
                                                 if partial else [])
        return {"turn_m": turn_m, "facing": facing, "value": per - fewer, "fewer": fewer,
                "mod": sum(m["value"] for m in mods), "mods": mods, "dice_mods": dice_mods, "band": band,
                "attacker_moved": amove, "target_moved": tmove, "cover": partial,
                "difficulty": self.target_difficulty,
                "damage": self.damage_vs(t, int(w.damage), self.ranged_min_damage)}

    def body_plan(self, state: BattleState, a: Combatant, t: Combatant, w: Weapon,
                  face: tuple[float, int] | None = None) -> dict[str, Any]:
        """seed 003, Body Attacks: "the attacker must roll STR and add any weapons or
        modifiers" - STR + melee skill + the weapon - against the defender's block (STR +
        melee) or dodge (AGL + dodge): by default the better expected total, the defender
        chooses (`_body`, question defence); assumptions body_attack_rolls, rear_defence,
        posture_effects."""
        g = state.grid
        turn_m, facing = face or self.face_plan(g, a, t.pos)
        a_fewer = 1 if a.res["posture"] == "lie" else 0
        a_value = self.val(a, "str") - a_fewer
        a_mods = [{"source": "skill", "value": int(a.stats["skills"].get("melee", 0))},
                  {"source": "weapon", "value": int(w.damage)}]
        a_dice = self.level_dice(a, "str") + ([{"source": "lying", "value": -1}] if a_fewer else [])
        rear = not self.in_front(g, t, a.pos)
        d_dice = (([{"source": "lying", "value": -1}] if t.res["posture"] == "lie" else [])
                  + ([{"source": "attacked from behind", "value": -1}] if rear else []))
        d_fewer = len(d_dice)
        sk = t.stats["skills"]
        block = (self.val(t, "str") - d_fewer, int(sk.get("melee", 0)))
        dodge = (self.val(t, "agl") - d_fewer, int(sk.get("dodge", 0)))
        if mean_total(*block) > mean_total(*dodge):
            mode, (d_value, d_mod), dname = "block", block, "str"
        else:
            mode, (d_value, d_mod), dname = "dodge", dodge, "agl"
        return {"turn_m": turn_m, "facing": facing, "a_value": a_value, "a_fewer": a_fewer,
                "a_mod": sum(m["value"] for m in a_mods), "a_mods": a_mods, "a_dice": a_dice,
                "mode": mode, "d_value": d_value, "d_fewer": d_fewer, "d_mod": d_mod, "d_name": dname,
                "d_mods": [{"source": "skill", "value": d_mod}], "d_dice": self.level_dice(t, dname) + d_dice,
                "rear": rear, "damage": self.damage_vs(t, self.val(a, "str") + int(w.damage)),
                "block": block, "dodge": dodge, "d_dice_extra": d_dice}

    # -- resolving ----------------------------------------------------------------------
    def attack(self, state: BattleState, a: Combatant, t: Combatant, w: Weapon, dice: Dice) -> list[Event]:
        e = state.economy
        turn_m, facing, evs = self.choose_face(state, a, t)
        face = (turn_m, facing)
        plan = self.ranged_plan(state, a, t, w, face) if w.ranged else self.body_plan(state, a, t, w, face)
        if plan["turn_m"] > 0:
            evs += self.turn_to(state, a, plan["facing"], plan["turn_m"], why=f"to face {t.id}")
        e["halves"] += 1
        e["acted"] = True
        if w.ranged:
            evs += self._fire(state, a, t, w, plan, dice)
        else:
            evs += self._body(state, a, t, w, plan, dice)
        return evs

    def _fire(self, state: BattleState, a: Combatant, t: Combatant, w: Weapon, plan: dict, dice: Dice
              ) -> list[Event]:
        diff = plan["difficulty"]
        words = _pool_words("per", plan["value"], plan["fewer"])
        faces, kept, total = roll_value(dice, plan["value"], plan["mod"], "targeting",
                                        roll_call(a.id, "targeting", "targeting", words, plan["value"], plan["mods"],
                                                  plan["dice_mods"], "targeting", difficulty=diff))
        a.res["ammo"][w.name] -= 1
        evs = [roll_event(a.id, "targeting", "targeting", words,
                          plan["value"], faces, kept, total, plan["mods"], plan["dice_mods"], difficulty=diff,
                          band=plan["band"], attacker_moved=plan["attacker_moved"],
                          target_moved=plan["target_moved"], cover=plan["cover"])]
        hit = total >= diff
        evs.append(event("attack", actor=a.id, target=t.id, weapon=w.name, result="hit" if hit else "miss",
                         margin=total - diff))
        if hit:
            evs += self.apply_damage(state, t, plan["damage"], w.name)
        if w.kind in ("clip", "projectile") and all(f == 1 for f in faces):
            a.res["jammed"].add(w.name)           # assumption jams
            evs.append(event("effect", target=a.id, effect=f"the {w.name} jams", weapon=w.name))
        return evs

    def _body(self, state: BattleState, a: Combatant, t: Combatant, w: Weapon, plan: dict, dice: Dice
              ) -> list[Event]:
        a_pool = _pool_words("str", plan["a_value"], plan["a_fewer"])
        fa, ka, ta = roll_value(dice, plan["a_value"], plan["a_mod"], "body attack",
                                roll_call(a.id, "body attack", "body_attack", a_pool, plan["a_value"], plan["a_mods"],
                                          plan["a_dice"], "body attack",
                                          against={"figure": t.id, "what": "defence", "total": None}))
        mode, evs = self.choose_defence(state, t, plan["mode"], ta)
        if mode != plan["mode"]:                  # the defender's choice (seed 003, Body Attacks)
            dname = "str" if mode == "block" else "agl"
            plan = dict(plan, mode=mode, d_name=dname, d_value=plan[mode][0], d_mod=plan[mode][1],
                        d_mods=[{"source": "skill", "value": plan[mode][1]}],
                        d_dice=self.level_dice(t, dname) + plan["d_dice_extra"])
        d_pool = _pool_words(plan["d_name"], plan["d_value"], plan["d_fewer"])
        fd, kd, td = roll_value(dice, plan["d_value"], plan["d_mod"], plan["mode"],
                                roll_call(t.id, plan["mode"], plan["mode"], d_pool, plan["d_value"], plan["d_mods"],
                                          plan["d_dice"], plan["mode"],
                                          against={"figure": a.id, "what": "body attack", "total": ta}))
        evs = [roll_event(a.id, "body attack", "body_attack", a_pool, plan["a_value"], fa, ka, ta, plan["a_mods"],
                          plan["a_dice"], opposed=td)] + evs + [
               roll_event(t.id, plan["mode"], plan["mode"], d_pool, plan["d_value"], fd, kd, td, plan["d_mods"],
                          plan["d_dice"], opposed=ta, rear=plan["rear"])]
        hit = ta > td
        evs.append(event("attack", actor=a.id, target=t.id, weapon=w.name, result="hit" if hit else "miss",
                         margin=ta - td))
        if hit:
            evs += self.apply_damage(state, t, plan["damage"], w.name)
        return evs

    # -- damage and status levels ----------------------------------------------------------
    def max_status(self, c: Combatant) -> int:
        return c.stats["status"]

    def level_for(self, c: Combatant) -> str:
        """seed 003, Status Levels: the level for the Status left (assumption status_thresholds)."""
        mx = c.stats["status"]
        left = mx - c.res["damage"]
        if left <= 0:
            return "non_responsive"
        level = "perfect"
        for lv in self.levels:
            if left <= lv["upto"] * mx + EPS:
                level = lv["name"]
        return level

    def sync_level(self, c: Combatant) -> list[Event]:
        """Update the level condition, and the down state (seed 003, Damage)."""
        evs: list[Event] = []
        old = c.res["level"]
        new = self.level_for(c)
        if new != old:
            if old != "perfect":
                c.conditions.discard(old)
                evs.append(event("condition", target=c.id, condition=old, on=False))
            if new != "perfect":
                c.conditions.add(new)
                evs.append(event("condition", target=c.id, condition=new, on=True))
            c.res["level"] = new
        mx = c.stats["status"]
        left = mx - c.res["damage"]
        if "incapacitated" not in c.conditions and left <= 0:
            c.conditions.add("incapacitated")
            evs.append(event("down", target=c.id, reason="Non-Responsive: damage reached max Status"))
        elif "incapacitated" in c.conditions and left > 0 and left + EPS >= self.recover_at * mx:
            c.conditions.discard("incapacitated")
            evs.append(event("condition", target=c.id, condition="incapacitated", on=False))
            evs.append(event("effect", target=c.id, effect=f"repaired to {left}/{mx} Status: back in the fight"))
        return evs

    def apply_damage(self, state: BattleState, t: Combatant, amount: int, source: str) -> list[Event]:
        """seed 003, Damage: applied at once; assumption no_death: it stops at max Status."""
        mx = t.stats["status"]
        applied = max(0, min(int(amount), mx - t.res["damage"]))
        t.res["damage"] += applied
        evs = [event("damage", target=t.id, stun=0, wound=applied, status=mx - t.res["damage"], max_status=mx,
                     source=source)]
        return evs + self.sync_level(t)

    # -- odds --------------------------------------------------------------------------------
    def attack_odds(self, state: BattleState, actor: Combatant, action: Action) -> dict[str, float] | None:
        if action.kind != "attack" or action.target is None:
            return None
        t = state.by_id.get(action.target)
        w = actor.weapons.get(action.weapon or "")
        if t is None or w is None:
            return None
        if w.ranged:
            plan = self.ranged_plan(state, actor, t, w)
            p = p_at_least(plan["value"], plan["mod"], plan["difficulty"])
        else:
            plan = self.body_plan(state, actor, t, w)
            p = p_beats(plan["a_value"], plan["a_mod"], plan["d_value"], plan["d_mod"])
        dmg = float(min(plan["damage"], max(0, t.stats["status"] - t.res["damage"])))
        return {"p_hit": p, "exp_damage": p * dmg, "damage_if_hit": dmg}


__all__ = ["CombatMixin"]
