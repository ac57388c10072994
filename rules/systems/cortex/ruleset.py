"""The `cortex` ruleset: seed 000 (Serenity house rules) on Cortex Classic.

Rules and where they come from (seed 000 headings; base rules from RULES-NOTES.md):
- Attributes for Attacking: Agility for ranged attacks, Strength for most hand-to-hand.
- Initiative: Agility + Alertness, rolled each round (RULES-NOTES).
- Multiple actions: each action after the first steps down (data.yaml assumption).
- Defense, Melee Combat: block, dodge or innate defence; Easy 3 when declining; cover only
  when sheltering; weapon-size block modifier; extraordinary block effects; botched
  block/dodge stumbles.
- Defense, Ranged Combat: innate defence in the open, prone targets, dodge towards nearby
  cover at the range-to-cover penalty, cover +4/+8/+12/+16.
- Extraordinary Success in Combat: beat by 7, Endurance or special effect, or bypass armour.
- Melee Combat, Knocked Prone: one action to rise, -1 step on the next combat action.
- Movement, Combat / Crawling: walk, hustle, run; crawl 5/10/15 ft.
- Damage, Life Points, armour, unconsciousness, dying and death (RULES-NOTES).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

from rules.actions import END_TURN, Action
from rules.dice import D2, Dice, Step, roll_steps
from rules.events import Event, event
from rules.grid import FEET
from rules.ruleset import Ruleset
from rules.state import BattleState, Combatant
from rules.systems.cortex.model import (Weapon, build_armour, build_stat_block, build_weapons,
                                        load_data, make_pool, roll_pool, skill_die)

DATA = Path(__file__).with_name("data.yaml")


class CortexRuleset(Ruleset):
    """Cortex Classic with the seed 000 house rules."""

    name = "cortex"
    description = "Serenity RPG house rules (seed 000) on Cortex Classic"
    economy_features = ("actions_used", "next_action_steps", "actions_left", "move_used_m",
                        "walk_left_m", "move_left_m", "can_run", "ran", "stance_block",
                        "stance_dodge", "prone", "rise_penalty", "no_move", "shots_left", "ammo_frac")

    def __init__(self, data_path: Path = DATA) -> None:
        self.data = load_data(data_path)
        self.version = int(self.data.get("version", 1))
        self.weapons = build_weapons(self.data["weapons"])
        self.armours = build_armour(self.data["armour"])
        self.bestiary = self.data["bestiary"]
        self.cover_table = {int(k): int(v) for k, v in self.data["cover_bonus"].items()}
        self.diff = dict(self.data["difficulty"])
        self.xmargin = int(self.data["extraordinary_margin"])
        self.max_actions = int(self.data["max_actions_per_turn"])
        self.mv = self.data["movement"]
        self.bands = self.data["range_bands"]
        self.dodge_table = self.data["dodge_cover_penalty"]
        self.supported_actions = {
            "end_turn": (), "move": (), "attack": (), "defend": ("block", "dodge"),
            "reload": (), "drop_prone": (), "stand": (),
        }
        self._units_cache: dict[float, tuple] = {}
        self._attack_actions: dict[tuple[str, str], Action] = {}

    # -- building -------------------------------------------------------------------
    def templates(self) -> list[str]:
        return sorted(self.bestiary)

    def build_combatant(self, spec: Mapping[str, Any], *, id: str, team: str, pos: int, order: int,
                        source: str | None, field: str) -> Combatant:
        st = build_stat_block(spec, self.bestiary, self.weapons, self.armours, source, field)
        life = st["life_points"]
        if life is None:
            life = st["attributes"]["vitality"].maximum + st["attributes"]["willpower"].maximum
        st["life"] = int(life)
        ammo = {w.name: w.magazine for w in st["weapons"].values() if w.ranged and w.magazine}
        res = {"stun": 0, "wound": 0, "ammo": ammo, "stance": None, "no_move_round": 0,
               "attacked_last": False, "lost": [], "gained": [], "plot_points": st["plot_points"]}
        return Combatant(id=id, name=st["name"], team=team, template=st["template"], pos=pos,
                         stats=st, weapons=st["weapons"], armour=st["armour"], traits=st["traits"],
                         res=res, order=order)

    # -- helpers --------------------------------------------------------------------
    def life(self, c: Combatant) -> int:
        return c.stats["life"]

    def health(self, c: Combatant) -> tuple[float, float]:
        L = c.stats["life"]
        return float(max(0, L - c.res["stun"] - c.res["wound"])), float(L)

    def units(self, state: BattleState) -> tuple[int, ...]:
        """Movement allowances in half-cell units: walk, hustle, run, crawl x3."""
        cm = state.grid.cell_m
        u = self._units_cache.get(cm)
        if u is None:
            g = state.grid
            u = tuple(g.budget_units(self.mv[k] * FEET) for k in
                      ("walk", "hustle", "run", "crawl_free", "crawl_action", "crawl_run"))
            self._units_cache[cm] = u
        g = state.grid
        if g.reach_cap < max(u):
            g.reach_cap = max(u)
        return u

    def weapons_of(self, c: Combatant) -> list[Weapon]:
        lost = c.res["lost"]
        ws = [w for n, w in c.weapons.items() if n not in lost]
        ws += [self.weapons[n] for n in c.res["gained"] if n not in c.weapons]
        return ws

    def attr_steps(self, c: Combatant, attr: str) -> int:
        """Step modifiers on an attribute die from wounds and armour."""
        s = 0
        if c.res["wound"] * 2 >= c.stats["life"] and c.res["wound"] > 0:
            s -= 2
        if attr == "agility":
            for a in c.armour:
                s += a.agility_steps
        return s

    def _ranged_band(self, state: BattleState, a: Combatant, t: Combatant, w: Weapon) -> int | None:
        d_ft = state.grid.distance_m(a.pos, t.pos) / FEET
        for b in self.bands:
            if d_ft <= w.range_ft * b["upto"] + 1e-9:
                return int(b["steps"])
        return None

    def attack_pool(self, state: BattleState, a: Combatant, t: Combatant, w: Weapon, extra_steps: int = 0
                    ) -> tuple[Step, Step] | None:
        """The attacker's dice for attacking t with w now (None if it cannot be tried)."""
        e = state.economy
        steps = -e.get("actions", 0) + extra_steps
        if e.get("rise_penalty"):
            steps -= 1
        if w.ranged:
            band = self._ranged_band(state, a, t, w)
            if band is None:
                return None
            steps += band
        return make_pool(a, w.attribute, skill_die(a.stats, w.skill, w.specialty), steps,
                         self.attr_steps(a, w.attribute))

    def can_attack(self, state: BattleState, a: Combatant, t: Combatant, w: Weapon) -> bool:
        if t.down or t.team == a.team:
            return False
        g = state.grid
        if w.ranged:
            if w.magazine and a.res["ammo"].get(w.name, 0) <= 0:
                return False
            if state.economy["shots"].get(w.name, 0) >= w.rof:
                return False
            if not g.los(a.pos, t.pos):
                return False
        else:
            if not g.adjacent(a.pos, t.pos):
                return False
        return self.attack_pool(state, a, t, w) is not None

    # -- turn structure -------------------------------------------------------------
    def roll_initiative(self, state: BattleState, dice: Dice) -> tuple[list[str], list[Event]]:
        alive = [c for c in state.combatants if not c.down]
        if state.settings.get("initiative") == "fixed":
            order = [c.id for c in alive]
            return order, [event("initiative", round=state.round, order=order, mode="fixed")]
        evs: list[Event] = []
        keyed = []
        for c in alive:
            agi = Step(max(1, c.stats["attributes"]["agility"].index + self.init_steps(c)))
            ale = c.stats["attributes"]["alertness"]
            r = roll_steps(dice, (agi, ale), "initiative")
            evs.append(event("roll", actor=c.id, purpose="initiative", pool=f"Agility {agi} + Alertness {ale}",
                             dice=[list(f) for f in r.faces], total=r.total))
            keyed.append((-r.total, -agi.index, c.order, c.id))
        keyed.sort()
        order = [k[3] for k in keyed]
        evs.append(event("initiative", round=state.round, order=order))
        return order, evs

    def init_steps(self, c: Combatant) -> int:
        return 0

    def start_turn(self, state: BattleState, actor: Combatant, dice: Dice) -> tuple[bool, list[Event]]:
        evs: list[Event] = []
        if actor.res["stance"] is not None:
            actor.res["stance"] = None
        actor.res["attacked_last"] = False
        state.economy = {"actions": 0, "move_units": 0, "mode": "walk", "ran": False, "shots": {},
                         "rise_penalty": False, "stood": False,
                         "no_move": actor.res["no_move_round"] == state.round, "turn_over": False}
        return not actor.down, evs

    def end_round(self, state: BattleState, dice: Dice) -> list[Event]:
        """Dying figures roll Endurance each round (data.yaml assumption `dying`)."""
        evs: list[Event] = []
        for c in state.combatants:
            if "dying" in c.conditions and "dead" not in c.conditions:
                ok, ev = self.endurance(c, dice, self.diff["average"], "Endurance (dying)")
                evs.append(ev)
                if not ok:
                    evs += self.apply_damage(state, c, 0, 1, dice, source="bleeding", check=False)
        return evs

    # -- legal actions ----------------------------------------------------------------
    def move_options(self, state: BattleState, a: Combatant) -> dict[int, int]:
        """Free cells the actor may move to now -> path cost in half-cell units."""
        e = state.economy
        if e["no_move"] or e["ran"] or "incapacitated" in a.conditions:
            return {}
        walk, hustle, run, cfree, caction, crun = self.units(state)
        prone = "prone" in a.conditions
        tiers = (cfree, caction, crun) if prone else (walk, hustle, run)
        only_move = e["actions"] == 0 or (e["actions"] == 1 and e["mode"] == "hustle")
        if only_move and not e["stood"]:
            cap = tiers[2]
        elif e["mode"] == "hustle" or e["actions"] < self.max_actions:
            cap = tiers[1]
        else:
            cap = tiers[0]
        budget = cap - e["move_units"]
        if budget <= 0:
            return {}
        blockers = [c.pos for c in state.combatants if c.team != a.team and not c.down]
        reach = state.grid.reachable(a.pos, budget, blockers)
        occ = state.occupied()
        return {c: u for c, u in reach.items() if u <= budget and c not in occ}

    def legal_actions(self, state: BattleState) -> list[Action]:
        a = state.actor
        e = state.economy
        acts = [END_TURN]
        if a is None or a.down or e["ran"]:
            return acts
        g = state.grid
        if not g.move_actions:
            g.move_actions = [Action("move", cell=i) for i in range(g.n)]
        mv = g.move_actions
        acts.extend(mv[cell] for cell in self.move_options(state, a))
        prone = "prone" in a.conditions
        if e["actions"] < self.max_actions:
            ws = self.weapons_of(a)
            for t in state.combatants:
                if t.team == a.team or t.down:
                    continue
                for w in ws:
                    if self.can_attack(state, a, t, w):
                        key = (t.id, w.name)
                        act = self._attack_actions.get(key)
                        if act is None:
                            act = self._attack_actions[key] = Action("attack", target=t.id, weapon=w.name)
                        acts.append(act)
            if a.res["stance"] is None and e["actions"] < self.max_actions:
                if self.defence_pool(state, a, "block") is not None:
                    acts.append(Action("defend", option="block"))
                if self.defence_pool(state, a, "dodge") is not None:
                    acts.append(Action("defend", option="dodge"))
            for w in ws:
                if w.magazine and a.res["ammo"].get(w.name, 0) < w.magazine:
                    acts.append(Action("reload", weapon=w.name))
            if prone:
                acts.append(Action("stand"))
        if not prone:
            acts.append(Action("drop_prone"))
        return acts

    # -- applying -------------------------------------------------------------------
    def apply(self, state: BattleState, action: Action, dice: Dice) -> list[Event]:
        a = state.actor
        k = action.kind
        if k == "move":
            return self._move(state, a, action.cell)
        if k == "attack":
            return self._attack(state, a, state.by_id[action.target], self._weapon(a, action.weapon), dice)
        if k == "defend":
            pen = -state.economy["actions"]
            state.economy["actions"] += 1
            a.res["stance"] = {"mode": action.option, "steps": pen}
            return [event("stance", actor=a.id, stance=action.option, steps=pen)]
        if k == "reload":
            w = self._weapon(a, action.weapon)
            state.economy["actions"] += 1
            a.res["ammo"][w.name] = w.magazine
            return [event("reload", actor=a.id, weapon=w.name)]
        if k == "drop_prone":
            a.conditions.add("prone")
            return [event("condition", target=a.id, condition="prone", on=True)]
        if k == "stand":
            state.economy["actions"] += 1
            state.economy["stood"] = True
            a.conditions.discard("prone")
            evs = [event("condition", target=a.id, condition="prone", on=False)]
            if "knocked" in a.conditions:
                a.conditions.discard("knocked")
                state.economy["rise_penalty"] = True
                evs.append(event("effect", target=a.id, effect="off balance: -1 step on the next combat action"))
            return evs
        raise ValueError(f"cortex cannot apply {action}")  # pragma: no cover - guarded by check_legal

    def _weapon(self, a: Combatant, name: str | None) -> Weapon:
        for w in self.weapons_of(a):
            if w.name == name:
                return w
        return self.weapons["unarmed"]

    def _move(self, state: BattleState, a: Combatant, cell: int) -> list[Event]:
        e = state.economy
        cost = self.move_options(state, a)[cell]
        walk, hustle, run, cfree, caction, crun = self.units(state)
        prone = "prone" in a.conditions
        tiers = (cfree, caction, crun) if prone else (walk, hustle, run)
        total = e["move_units"] + cost
        if total <= tiers[0]:
            mode = "walk"
        elif total <= tiers[1]:
            mode = "hustle"
        else:
            mode = "run"
        if mode == "hustle" and e["mode"] == "walk":
            e["actions"] += 1
        if mode == "run":
            e["ran"] = True
            e["turn_over"] = True
        e["mode"] = mode
        e["move_units"] = total
        frm = a.pos
        a.pos = cell
        g = state.grid
        name = ("crawl" if prone else mode)
        return [event("move", actor=a.id, **{"from": list(g.xy(frm))}, to=list(g.xy(cell)),
                      metres=round(g.units_to_m(cost), 3), mode=name)]

    # -- defence --------------------------------------------------------------------
    def defence_pool(self, state: BattleState, d: Combatant, mode: str, steps: int | None = None
                     ) -> tuple[Step, Step, str] | None:
        """The defender's dice for a block or dodge (None if impossible)."""
        if steps is None:
            steps = -state.economy.get("actions", 0) if state.actor is d else 0
        if mode == "dodge":
            sk = skill_die(d.stats, "athletics", "dodge")
            p = make_pool(d, "agility", sk, steps, self.attr_steps(d, "agility"))
            return None if p is None else (p[0], p[1], "athletics/dodge")
        w = self.block_weapon(d)
        p = make_pool(d, "agility", skill_die(d.stats, w.skill, w.specialty), steps,
                      self.attr_steps(d, "agility"))
        return None if p is None else (p[0], p[1], w.skill)

    def block_weapon(self, d: Combatant) -> Weapon:
        melee = [w for w in self.weapons_of(d) if not w.ranged]
        melee.sort(key=lambda w: (skill_die(d.stats, w.skill, w.specialty).index, w.size), reverse=True)
        return melee[0] if melee else self.weapons["unarmed"]

    def dodge_destination(self, state: BattleState, d: Combatant, attacker: Combatant
                          ) -> tuple[int, int, list[int]] | None:
        """(cell, skill steps, path) of the nearest cover against the attacker within 30 ft."""
        g = state.grid
        if g.cover(d.pos, attacker.pos) > 0:
            return d.pos, 0, [d.pos]
        far = g.budget_units(30 * FEET)
        blockers = [c.pos for c in state.combatants if c.team != d.team and not c.down]
        reach = g.reachable(d.pos, far, blockers)
        occ = state.occupied()
        best = None
        for cell, cost in reach.items():
            if cost > far or cell in occ or g.cover(cell, attacker.pos) == 0:
                continue
            key = (cost, cell)
            if best is None or key < best:
                best = key
        if best is None:
            return None
        cost, cell = best
        ft = g.units_to_m(cost) / FEET
        steps = None
        for row in self.dodge_table:
            if ft <= row["feet"] + 1e-9:
                steps = int(row["steps"])
                break
        if steps is None:
            return None
        return cell, steps, g.path(d.pos, cell, far, blockers)

    def declines_innate(self, d: Combatant) -> bool:
        pref = d.stats["decline_innate"]
        if pref == "always":
            return True
        if pref == "never":
            return False
        agi = Step(max(1, d.stats["attributes"]["agility"].index + self.attr_steps(d, "agility")))
        return agi.mean < self.diff["easy"]

    def _innate(self, state: BattleState, d: Combatant, dice: Dice, cover_bonus: int, purpose: str
                ) -> tuple[int, list[Event]]:
        if self.declines_innate(d):
            diff = self.diff["easy"] + cover_bonus
            return diff, [event("defence", actor=d.id, mode="declined innate", difficulty=diff,
                                cover_bonus=cover_bonus)]
        agi = Step(max(1, d.stats["attributes"]["agility"].index + self.attr_steps(d, "agility")))
        r = roll_steps(dice, (agi,), purpose)
        diff = r.total + cover_bonus
        return diff, [event("roll", actor=d.id, purpose=purpose, pool=f"Agility {agi}",
                            dice=[list(f) for f in r.faces], total=r.total),
                      event("defence", actor=d.id, mode="innate", difficulty=diff, cover_bonus=cover_bonus)]

    def resolve_defence(self, state: BattleState, a: Combatant, d: Combatant, w: Weapon, atk_total: int,
                        dice: Dice) -> tuple[int, dict, list[Event]]:
        """The Difficulty to hit d, with what the defence did (stumble, block result ...)."""
        g = state.grid
        evs: list[Event] = []
        info: dict[str, Any] = {}
        stance = d.res["stance"]
        cover = g.cover(d.pos, a.pos)
        if w.ranged:
            cb = self.cover_table[cover]
            if "prone" in d.conditions:
                diff = self.diff["easy"] + max(self.cover_table[1], cb)
                evs.append(event("defence", actor=d.id, mode="prone", difficulty=diff, cover_bonus=cb))
                return diff, info, evs
            if stance is not None and stance["mode"] == "dodge":
                dest = self.dodge_destination(state, d, a)
                if dest is not None:
                    cell, cstep, path = dest
                    p = self.defence_pool(state, d, "dodge", stance["steps"] + cstep)
                    if p is not None:
                        r, ev = roll_pool(dice, d.id, "dodge to cover", "agility", p[0], p[2], p[1])
                        evs.append(ev)
                        if r.botch:
                            half = path[(len(path) - 1) // 2] if path else d.pos
                            evs += self._dive(state, d, half, "stumbles")
                            d.res["no_move_round"] = state.round
                            diff = self.diff["easy"]
                            evs.append(event("defence", actor=d.id, mode="dodge (botch)", difficulty=diff))
                            info["stumble"] = True
                            return diff, info, evs
                        if cell != d.pos:
                            evs += self._dive(state, d, cell, "dives")
                        diff = r.total
                        evs.append(event("defence", actor=d.id, mode="dodge", difficulty=diff))
                        return diff, info, evs
            diff, ev = self._innate(state, d, dice, cb, "innate defence")
            return diff, info, evs + ev
        # hand-to-hand
        cb = self.cover_table[cover] if not d.res["attacked_last"] and cover else 0
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
            p = self.defence_pool(state, d, mode, stance["steps"] + extra)
            if p is not None:
                r, ev = roll_pool(dice, d.id, mode, "agility", p[0], p[2], p[1])
                evs.append(ev)
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
        diff, ev = self._innate(state, d, dice, cb, "innate defence")
        return diff, info, evs + ev

    def _dive(self, state: BattleState, d: Combatant, cell: int, verb: str) -> list[Event]:
        if cell == d.pos:
            return []
        g = state.grid
        frm = d.pos
        d.pos = cell
        return [event("move", actor=d.id, **{"from": list(g.xy(frm))}, to=list(g.xy(cell)),
                      metres=round(g.distance_m(frm, cell), 3), mode="dive" if verb == "dives" else "stumble")]

    # -- attacking ------------------------------------------------------------------
    def _attack(self, state: BattleState, a: Combatant, t: Combatant, w: Weapon, dice: Dice) -> list[Event]:
        e = state.economy
        attr, skill = self.attack_pool(state, a, t, w)
        e["actions"] += 1
        e["rise_penalty"] = False
        a.res["attacked_last"] = True
        if w.ranged:
            e["shots"][w.name] = e["shots"].get(w.name, 0) + 1
            if w.magazine:
                a.res["ammo"][w.name] -= 1
        r, ev = roll_pool(dice, a.id, f"attack with {w.name}", w.attribute, attr,
                          f"{w.skill}/{w.specialty}" if w.specialty else w.skill, skill)
        evs = [ev]
        diff, info, dev = self.resolve_defence(state, a, t, w, r.total, dice)
        evs += dev
        ev["difficulty"] = diff
        if r.botch or r.total < diff:
            evs.append(event("attack", actor=a.id, target=t.id, weapon=w.name, result="miss",
                             total=r.total, difficulty=diff, botch=r.botch))
            if info.get("mode") == "block":
                if w.size > 0 and info["block_weapon"].size == 0:
                    # blocked bare-handed: the weapon's damage still lands (seed 000, Unarmed)
                    evs.append(event("effect", target=t.id, effect="blocks bare-handed and takes the weapon's damage"))
                    evs += self.damage(state, a, t, w, 0, dice, False, weapon_only=True)
                if info["roll"] - r.total >= self.xmargin and not a.down:
                    evs += self._block_effect(state, t, a, w, info["block_weapon"], dice)
            return evs
        margin = r.total - diff
        extraordinary = margin >= self.xmargin
        evs.append(event("attack", actor=a.id, target=t.id, weapon=w.name,
                         result="extraordinary hit" if extraordinary else "hit", total=r.total,
                         difficulty=diff, margin=margin))
        bypass = False
        if extraordinary:
            if t.armour and any((a_.W if w.dtype != "S" else a_.S) > 0 for a_ in t.armour):
                bypass = True
                evs.append(event("effect", target=t.id, effect="the attack bypasses armour"))
        evs += self.damage(state, a, t, w, margin, dice, bypass)
        if extraordinary and not bypass and not t.down:
            ok, ev2 = self.endurance(t, dice, self.diff["average"], "Endurance vs special effect")
            evs.append(ev2)
            if not ok and "prone" not in t.conditions:
                t.conditions.add("prone")
                t.conditions.add("knocked")
                evs.append(event("condition", target=t.id, condition="prone", on=True, cause="extraordinary hit"))
        return evs

    def _block_effect(self, state: BattleState, d: Combatant, a: Combatant, w: Weapon, bw: Weapon,
                      dice: Dice) -> list[Event]:
        choice = d.stats["block_effect"] or ("disarm" if w.name != "unarmed" else "bash")
        if choice == "disarm" and w.name == "unarmed":
            choice = "bash"
        evs = [event("effect", target=a.id, effect=f"extraordinary block: {choice}", by=d.id)]
        if choice == "disarm":
            a.res["lost"].append(w.name)
            if bw.name == "unarmed" and w.name not in d.weapons:
                d.res["gained"].append(w.name)
                if w.magazine:
                    d.res["ammo"][w.name] = a.res["ammo"].get(w.name, 0)
                evs.append(event("effect", target=d.id, effect=f"grabs the {w.name}"))
        elif choice == "trip":
            if "prone" not in a.conditions:
                a.conditions.add("prone")
                a.conditions.add("knocked")
                evs.append(event("condition", target=a.id, condition="prone", on=True, cause="tripped"))
        else:
            st = Step(max(1, d.stats["attributes"]["strength"].index - 2))
            r = roll_steps(dice, (st,), "bash")
            evs.append(event("roll", actor=d.id, purpose="bash damage", pool=f"Strength {st}",
                             dice=[list(f) for f in r.faces], total=r.total))
            evs += self.apply_damage(state, a, r.total, 0, dice, source="bash")
        return evs

    def damage(self, state: BattleState, a: Combatant, t: Combatant, w: Weapon, margin: int, dice: Dice,
               bypass: bool, weapon_only: bool = False) -> list[Event]:
        """Margin as Basic plus the weapon's damage die, less armour."""
        r = roll_steps(dice, (w.damage,), "damage")
        evs = [event("roll", actor=a.id, purpose=f"damage ({w.dtype})", pool=f"{w.name} {w.damage}",
                     dice=[list(f) for f in r.faces], total=r.total)]
        basic = 0 if weapon_only else margin
        stun = basic - basic // 2
        wound = basic // 2
        if w.dtype == "S":
            stun += r.total
        elif w.dtype == "W":
            wound += r.total
        else:
            stun += r.total - r.total // 2
            wound += r.total // 2
        absorbed = 0
        if t.armour and not bypass:
            aw = sum(x.W for x in t.armour)
            as_ = sum(x.S for x in t.armour)
            dw, ds = min(wound, aw), min(stun, as_)
            wound -= dw
            stun -= ds
            absorbed = dw + ds
        return evs + self.apply_damage(state, t, stun, wound, dice, source=w.name, absorbed=absorbed)

    def endurance(self, c: Combatant, dice: Dice, difficulty: int, purpose: str, vit_steps: int = 0
                  ) -> tuple[bool, Event]:
        vit = Step(max(1, c.stats["attributes"]["vitality"].index + vit_steps))
        wil = c.stats["attributes"]["willpower"]
        r = roll_steps(dice, (vit, wil), purpose)
        ok = r.total >= difficulty and not r.botch
        return ok, event("roll", actor=c.id, purpose=purpose, pool=f"Vitality {vit} + Willpower {wil}",
                         dice=[list(f) for f in r.faces], total=r.total, difficulty=difficulty, success=ok)

    def apply_damage(self, state: BattleState, t: Combatant, stun: int, wound: int, dice: Dice,
                     source: str = "", absorbed: int = 0, check: bool = True) -> list[Event]:
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
            ok, ev2 = self.endurance(t, dice, self.diff["average"], "Endurance to stay conscious")
            evs.append(ev2)
            if not ok:
                t.conditions.add("unconscious")
                evs.append(event("down", target=t.id, reason="unconscious"))
        return evs

    # -- views ----------------------------------------------------------------------
    def economy(self, state: BattleState) -> dict[str, float]:
        a = state.actor
        e = state.economy
        walk, hustle, run, *_ = self.units(state)
        g = state.grid
        st = a.res["stance"] if a else None
        opts = self.move_options(state, a) if a else {}
        best_shots = 0.0
        ammo_frac = 1.0
        if a:
            ranged = [w for w in self.weapons_of(a) if w.ranged]
            if ranged:
                w = ranged[0]
                best_shots = float(w.rof - e["shots"].get(w.name, 0))
                ammo_frac = a.res["ammo"].get(w.name, 0) / max(1, w.magazine)
        return {
            "actions_used": float(e.get("actions", 0)),
            "next_action_steps": -float(e.get("actions", 0)),
            "actions_left": float(self.max_actions - e.get("actions", 0)),
            "move_used_m": g.units_to_m(e.get("move_units", 0)),
            "walk_left_m": g.units_to_m(max(0, walk - e.get("move_units", 0))),
            "move_left_m": g.units_to_m(max(opts.values(), default=0)),
            "can_run": float(e.get("actions", 0) == 0 and not e.get("stood")),
            "ran": float(bool(e.get("ran"))),
            "stance_block": float(bool(st and st["mode"] == "block")),
            "stance_dodge": float(bool(st and st["mode"] == "dodge")),
            "prone": float(bool(a and "prone" in a.conditions)),
            "rise_penalty": float(bool(e.get("rise_penalty"))),
            "no_move": float(bool(e.get("no_move"))),
            "shots_left": best_shots,
            "ammo_frac": float(ammo_frac),
        }


__all__ = ["CortexRuleset", "D2"]
