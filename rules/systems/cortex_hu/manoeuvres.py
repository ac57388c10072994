"""Movement, aiming, feints and grappling under seed 002 (`cortex_hu`).

seed 002 rules implemented here:
- free actions and movement: walking 4.5 m is free, jogging 9 m is an action, running
  covers 9 m + an Agility roll + an Athletics/Running roll (in metres) and gives -2 steps
  on the following actions (data.yaml assumptions jog, run, prone_movement);
- Célzás: aiming, +1 step a round up to 3, no movement or non-free action meanwhile;
- Csel: the feint (Alertness + melee against Intelligence + Perception/Intuition); the
  fooled figure has innate defence only against the next attack on it, by anyone
  (assumption feint: it lapses when its own next turn starts);
- Megragadás/leszorítás: grapple, escape (Agility + Strength), holding is free, choking
  (an attack option), and the released figure lying prone until it stands.
"""

from __future__ import annotations

from rules.actions import Action
from rules import calls
from rules.calls import RollCall, step_sides
from rules.dice import Dice, Step, roll_steps
from rules.events import Event, event
from rules.state import BattleState, Combatant
from rules.systems.cortex_common.mechanics import faces
from rules.systems.cortex_common.model import roll_pool, skill_die
from rules.systems.cortex_hu.combat import named_skill
from rules.systems.cortex_hu.ladder import ladder_pool, step_pool
from rules.systems.cortex_hu.rolls import mods, tag


class ManoeuvresHu:
    """Movement, aim, feint and grapple for `CortexHuRuleset`."""

    # -- movement -------------------------------------------------------------------------
    def units(self, state: BattleState) -> tuple[int, int, int]:
        """(walk, jog, crawl) allowances in half-cell units on this map."""
        g = state.grid
        u = self._units_cache.get(g.cell_m)
        if u is None:
            u = (g.budget_units(self.mv["walk"]), g.budget_units(self.mv["jog"]), g.budget_units(self.mv["crawl"]))
            self._units_cache[g.cell_m] = u
        return u

    def run_pool(self, state: BattleState, a: Combatant) -> tuple[Step, Step] | None:
        """Agility + Athletics/Running at the ladder step of the movement action (the jog's, if any)."""
        e = state.economy
        slot = e["move_slot"] if e["mode"] == "jog" else e["actions"]
        return ladder_pool(a, "agility", skill_die(a.stats, "athletics", "running"), -slot,
                           self.attr_steps(a, "agility"))

    def move_cap(self, state: BattleState, a: Combatant) -> int:
        """The most half-cell units the figure's movement may total this turn (0: none)."""
        e = state.economy
        if e["ran"] or e["aimed"] or a.res["grappled_by"] is not None:
            return 0
        walk, jog, crawl = self.units(state)
        if "prone" in a.conditions:
            return crawl
        if e["full_defence"]:
            return walk
        cap = walk
        if e["mode"] == "jog" or e["actions"] < self.max_actions:
            cap = jog
        p = self.run_pool(state, a)
        if p is not None:
            cap = max(cap, state.grid.budget_units(self.mv["run_base"] + p[0].maximum + p[1].maximum))
        return cap

    def move_options(self, state: BattleState, a: Combatant) -> dict[int, int]:
        """Free cells the figure may move to now -> path cost in half-cell units."""
        budget = self.move_cap(state, a) - state.economy["move_units"]
        if budget <= 0:
            return {}
        g = state.grid
        blockers = [c.pos for c in state.combatants if c.team != a.team and not c.down]
        reach = g.reachable(a.pos, budget, blockers)
        res = dict(reach)  # every cost in reach is within budget
        for c in self.taken_cells(state):
            res.pop(c, None)
        return res

    @staticmethod
    def taken_cells(state: BattleState, but: Combatant | None = None) -> set[int]:
        """Cells no figure may end a move on: those of standing figures and of knocked-out
        ones, which will get up there (the unconscious, dying and dead may be stepped over)."""
        return {c.pos for c in state.combatants if c is not but and (
            not c.down or ("knocked_out" in c.conditions
                           and c.conditions.isdisjoint({"unconscious", "dying", "dead"})))}

    def move(self, state: BattleState, a: Combatant, cell: int, dice: Dice) -> list[Event]:
        e = state.economy
        g = state.grid
        budget = self.move_cap(state, a) - e["move_units"]
        cost = self.move_options(state, a)[cell]
        walk, jog, _ = self.units(state)
        total = e["move_units"] + cost
        evs: list[Event] = []
        self.lose_aim(a)
        dest = cell
        if "prone" in a.conditions:
            mode = "crawl"
        elif total <= walk:
            mode = "walk"
        elif total <= jog:
            mode = "jog"
            if e["mode"] != "jog":
                e["move_slot"] = e["actions"]
                self.spend(state, a)
        else:
            mode = "run"
            pool = self.run_pool(state, a)
            if e["mode"] != "jog":
                e["move_slot"] = e["actions"]
                self.spend(state, a)
            r, ev = roll_pool(dice, a.id, "run (metres beyond 9)", "agility", pool[0],
                              named_skill(a, "athletics", "running")[0], pool[1],
                              extra={"steps": -e["move_slot"], "check": "run",
                                     "modifiers": self.ladder_mods(state, e["move_slot"]) + self.attr_mods(a, "agility")})
            evs.append(ev)
            allowed = g.budget_units(self.mv["run_base"] + r.total)
            blockers = [c.pos for c in state.combatants if c.team != a.team and not c.down]
            reach = g.reachable(a.pos, budget, blockers)
            occ = self.taken_cells(state, but=a)
            dest = a.pos
            for c in g.path(a.pos, cell, budget, blockers)[1:]:
                if e["move_units"] + reach[c] > allowed:
                    break
                if c not in occ:
                    dest = c
            cost = reach[dest]
            total = e["move_units"] + cost
            e["ran"] = True
            e["run_penalty"] = int(self.mv["run_penalty_steps"])
            a.res["ran"] = True  # off its turn too, until its next turn starts (`run_steps`)
            allowed_m = self.mv["run_base"] + r.total
            evs.append(event("effect", target=a.id, effect=f"runs: {self.mv['run_base']:g} + {r.total} m this turn; "
                             f"{e['run_penalty']} steps on the following actions", allowed_m=allowed_m))
        if mode in ("jog", "run"):
            e["mode"] = mode
        e["move_units"] = total
        frm = a.pos
        a.pos = dest
        evs.append(event("move", actor=a.id, **{"from": list(g.xy(frm))}, to=list(g.xy(dest)),
                         metres=round(g.units_to_m(cost), 3), mode=mode))
        if a.res["grappling"] is not None and dest != frm:
            evs += self.let_go(state, a)
        return evs

    def move_price(self, state: BattleState, action: Action) -> tuple[float, bool] | None:
        """(`actions_left`, `turn_over`) after the move, as `move` then `economy` give them;
        None for a run (it rolls the run pool, and how far it gets depends on the roll).

        Exact: short of a run `move` rolls no die and asks nothing (`may_ask` is False for
        moves); its cost and modes are its own lines below, and it sets no `turn_over`."""
        a = state.actor
        e = state.economy
        cost = self.move_options(state, a).get(action.cell)
        if cost is None:
            return None              # `move` raises on it: try it
        walk, jog, _ = self.units(state)
        total = e["move_units"] + cost
        if "prone" in a.conditions or total <= walk:
            spent = 0                # a crawl or a walk
        elif total <= jog:
            spent = 1 if e["mode"] != "jog" else 0
        else:
            return None
        return float(max(0, self.max_actions - (e["actions"] + spent))), bool(e.get("turn_over"))

    def move_touches(self, state: BattleState, action: Action) -> set[str] | None:
        """{the mover} for a walk, a jog or a crawl: `move` then changes only the economy and
        the mover (its cell, its aim, through `spend` and `lose_aim`). None for a run (it rolls
        the run pool), for a figure in a grapple (letting go changes the other figure too) and
        for a cell `move` would not take (`move_options`' cells and costs, read without
        copying them)."""
        a = state.actor
        if a is None or action.kind != "move" or a.res["grappling"] is not None or a.res["grappled_by"] is not None:
            return None
        e = state.economy
        budget = self.move_cap(state, a) - e["move_units"]
        if budget <= 0:
            return None
        blockers = [c.pos for c in state.combatants if c.team != a.team and not c.down]
        cost = state.grid.reachable(a.pos, budget, blockers).get(action.cell)
        if cost is None or action.cell in self.taken_cells(state):
            return None
        walk, jog, _ = self.units(state)
        if "prone" not in a.conditions and e["move_units"] + cost > jog:
            return None              # a run
        return {a.id}

    # -- aiming ---------------------------------------------------------------------------
    def can_aim(self, state: BattleState, a: Combatant) -> bool:
        """seed 002, Célzás: before anything else this turn, with a ranged weapon ready. The
        bonus stops growing after 3 rounds ("max 3 körig lehet halmozni"), but aiming on is
        allowed and keeps it."""
        e = state.economy
        if e["acted"] or e["move_units"] or e["aimed"] or e["full_defence"] or a.res["grappled_by"] is not None:
            return False
        return any(w.ranged and (not w.magazine or a.res["ammo"].get(w.name, 0) > 0) for w in self.usable_weapons(a))

    def aim(self, state: BattleState, a: Combatant) -> list[Event]:
        """One more round of aiming: +1 step, at most 3 rounds' worth (`res["aim"]`)."""
        state.economy["aimed"] = True
        a.res["aim"] = min(a.res["aim"] + 1, int(self.aim_rules["max_rounds"]))
        a.conditions.add("aiming")
        steps = a.res["aim"] * int(self.aim_rules["steps_per_round"])
        return [event("stance", actor=a.id, stance="aim", steps=steps, rounds=a.res["aim"])]

    def lose_aim(self, c: Combatant) -> None:
        c.res["aim"] = 0
        c.conditions.discard("aiming")

    # -- feint ----------------------------------------------------------------------------
    def feint_pool(self, state: BattleState, a: Combatant) -> tuple[Step, Step, str] | None:
        sname, sk = self.melee_skill(a)
        p = ladder_pool(a, "alertness", sk, self.turn_steps(state, a), self.attr_steps(a, "alertness"))
        return None if p is None else (p[0], p[1], sname)

    def can_feint(self, state: BattleState, a: Combatant, t: Combatant) -> bool:
        holder = a.res["grappled_by"]
        return (t.team != a.team and not t.down and state.grid.adjacent(a.pos, t.pos)
                and (holder is None or holder == t.id) and t.res["feinted_by"] is None
                and self.feint_pool(state, a) is not None)

    def feint(self, state: BattleState, a: Combatant, t: Combatant, dice: Dice) -> list[Event]:
        """seed 002, Csel: if the feinter rolls higher, t may use only innate defence against the next
        attack on it ("a következő támadás ellen csak Ösztönös kitéréssel védekezhet"), whoever makes it."""
        attr, sk, sname = self.feint_pool(state, a)
        steps = self.turn_steps(state, a)
        modifiers = self.turn_mods(state, a) + self.attr_mods(a, "alertness")
        self.spend(state, a)
        ra, ea = roll_pool(dice, a.id, "feint", "alertness", attr, sname, sk,
                           extra={"steps": steps, "check": "feint", "modifiers": modifiers},
                           against={"figure": t.id, "what": "see through the feint", "total": None})
        intel = self.attr_die(t, "intelligence")
        pname, per = named_skill(t, "perception", "intuition")
        rt, et = roll_pool(dice, t.id, "see through the feint", "intelligence", intel, pname, per,
                           extra={"check": "feint_resist", "modifiers": self.attr_mods(t, "intelligence")},
                           against={"figure": a.id, "what": "feint", "total": ra.total})
        ok = ra.total > rt.total and not ra.botch
        ea["difficulty"] = rt.total
        ea["success"] = ok
        evs = [ea, et]
        if ok:
            t.res["feinted_by"] = a.id
            t.conditions.add("feinted")
            evs.append(event("effect", target=t.id, effect=f"is fooled by {a.id}'s feint: innate defence only "
                             "against the next attack on it", by=a.id))
            evs.append(event("condition", target=t.id, condition="feinted", on=True, by=a.id))
        return evs

    def use_feint(self, t: Combatant) -> str | None:
        """The next attack on a fooled figure, by anyone, uses the feint up: who feinted, or None.
        The attack tells it after its roll (`feint_used`): events are built in the order they are told
        (`Battle.before_question` relies on it)."""
        by = t.res["feinted_by"]
        if by is None:
            return None
        t.res["feinted_by"] = None
        t.conditions.discard("feinted")
        return by

    @staticmethod
    def feint_used(t: Combatant, by: str) -> Event:
        return event("condition", target=t.id, condition="feinted", on=False, by=by, cause="attacked")

    def feint_lapses(self, c: Combatant) -> list[Event]:
        """Assumption feint: a feint no attack used lapses when the fooled figure's next turn starts."""
        by = c.res["feinted_by"]
        if by is None:
            return []
        c.res["feinted_by"] = None
        c.conditions.discard("feinted")
        return [event("condition", target=c.id, condition="feinted", on=False, by=by, cause="lapses")]

    # -- grappling ------------------------------------------------------------------------
    def grapple_pool(self, state: BattleState, a: Combatant) -> tuple[Step, Step, str] | None:
        sname, sk = named_skill(a, "unarmed_combat", "grappling")
        steps = self.turn_steps(state, a) + (self.all_out_steps if state.economy["all_out"] else 0)
        p = ladder_pool(a, "agility", sk, steps, self.attr_steps(a, "agility"))
        return None if p is None else (p[0], p[1], sname)

    def can_grapple(self, state: BattleState, a: Combatant, t: Combatant) -> bool:
        """seed 002, Megragadás: "ezzel meg is ragadtad a célpontot" - any adjacent enemy, one
        that holds a third figure too (it keeps that hold). A figure holds one figure at a time
        and is held by one (assumption one_hold), and a held figure fights only its holder
        (assumption grapple), so neither a holder nor a held figure grabs, and a held one is
        not grabbed again."""
        return (a.res["grappling"] is None and a.res["grappled_by"] is None and t.team != a.team and not t.down
                and t.res["grappled_by"] is None
                and state.grid.adjacent(a.pos, t.pos) and self.grapple_pool(state, a) is not None)

    def grapple(self, state: BattleState, a: Combatant, t: Combatant, dice: Dice) -> list[Event]:
        """seed 002, Megragadás: Agility + Unarmed Combat against t's defence, as an unarmed attack."""
        e = state.economy
        attr, sk, sname = self.grapple_pool(state, a)
        steps = self.turn_steps(state, a) + (self.all_out_steps if e["all_out"] else 0)
        modifiers = (self.turn_mods(state, a) + mods(("all-out attack", self.all_out_steps if e["all_out"] else 0))
                     + self.attr_mods(a, "agility"))
        used = self.use_feint(t)
        self.spend(state, a)
        r, ev = roll_pool(dice, a.id, "grapple", "agility", attr, sname, sk,
                          extra={"steps": steps, "check": "grapple", "modifiers": modifiers},
                          against={"figure": t.id, "what": "defence", "total": None})
        w = self.weapons["unarmed"]
        told = [self.feint_used(t, used)] if used else []
        diff, _, dev = self.resolve_defence(state, a, t, w, "grapple", -1 if r.botch else r.total, dice,
                                            innate_only=used is not None)
        ev["difficulty"] = diff
        evs = [ev] + told + dev
        if r.botch or r.total < diff:
            evs.append(event("attack", actor=a.id, target=t.id, weapon="grapple", result="miss", total=r.total,
                             difficulty=diff))
            return evs
        a.res["grappling"] = t.id
        t.res["grappled_by"] = a.id
        t.res["grip"] = r.total
        a.conditions.add("grappling")
        t.conditions.add("grappled")
        self.lose_aim(t)
        evs.append(event("attack", actor=a.id, target=t.id, weapon="grapple", result="hit", total=r.total,
                         difficulty=diff, margin=r.total - diff))
        evs.append(event("condition", target=t.id, condition="grappled", on=True, by=a.id))
        return evs

    def escape_pool(self, state: BattleState, a: Combatant) -> tuple[Step, Step] | None:
        """Agility + Strength, the Strength die on the ladder (assumption two_attribute_actions)."""
        return step_pool(self.attr_die(a, "agility"), self.attr_die(a, "strength"), self.turn_steps(state, a))

    def escape(self, state: BattleState, a: Combatant, dice: Dice) -> list[Event]:
        """seed 002: the held figure breaks free with Agility + Strength (against the grapple roll)."""
        agi, st = self.escape_pool(state, a)
        steps = self.turn_steps(state, a)
        modifiers = self.turn_mods(state, a) + self.attr_mods(a, "agility") + self.attr_mods(a, "strength")
        self.spend(state, a)
        grip = a.res["grip"]
        r = roll_steps(dice, (agi, st), "escape",
                       RollCall(a.id, "escape (Agility + Strength)", "escape", f"Agility {agi} + Strength {st}",
                                step_sides((agi, st)), difficulty=grip, modifiers=calls.mods(modifiers),
                                label="escape"))
        ok = r.total >= grip and not r.botch
        evs = [tag(event("roll", actor=a.id, purpose="escape (Agility + Strength)",
                         pool=f"Agility {agi} + Strength {st}", dice=faces(r), total=r.total, difficulty=grip,
                         success=ok, steps=steps), "escape", modifiers)]
        if ok:  # free of its holder; a hold of its own on a third figure stays
            evs += self.end_hold(state, state.by_id[a.res["grappled_by"]])
        return evs

    @staticmethod
    def end_hold(state: BattleState, holder: Combatant) -> list[Event]:
        """The holder's grapple ends (the one it holds is free); a grapple on the holder itself
        stays (`release_grapple` ends both, for a figure that goes down or leaves)."""
        t = state.by_id[holder.res["grappling"]]
        t.res["grappled_by"] = None
        t.conditions.discard("grappled")
        holder.res["grappling"] = None
        holder.conditions.discard("grappling")
        return [event("condition", target=t.id, condition="grappled", on=False)]

    def let_go(self, state: BattleState, holder: Combatant) -> list[Event]:
        """seed 002: released, the figure lies on the ground until it stands up (-2 steps meanwhile)."""
        t = state.by_id[holder.res["grappling"]]
        evs = self.end_hold(state, holder)
        if "prone" not in t.conditions and not t.down:
            t.conditions.add("prone")
            evs.append(event("condition", target=t.id, condition="prone", on=True, cause="released"))
        return evs


__all__ = ["ManoeuvresHu"]
