"""The `cortex` ruleset: seed 000 (Serenity house rules) on Cortex Classic.

Rules and where they come from (seed 000 headings; base rules from RULES-NOTES.md):
- Attributes for Attacking: Agility for ranged attacks, Strength for most hand-to-hand.
- Initiative: Agility + Alertness, rolled each round (RULES-NOTES).
- Multiple actions: each action after the first steps down (data.yaml assumption).
- Defense, Melee/Ranged Combat; Extraordinary Success in Combat; Knocked Prone;
  Movement, Combat / Crawling; damage, Life Points, armour, dying (RULES-NOTES) - this
  module (turn flow, movement, legal actions) and `combat.py` (attacks and defences).
- Called Shots, Cover and Explosions, Getting out of Harm's Way, Improvised Weapons,
  Tripping, Unarmed specialties, Plot Points, Second Wind - `combat.py` and `specials.py`.
- Traits - `traits.py`; Vehicles and Spaceships - `vehicles.py` (the rolls) and `piloting.py`
  (a scenario figure's `vehicle:` and its `use` actions).
The Cortex base shared with `cortex_hu` (Difficulty ladder, stat blocks, Life Points, damage,
armour, dying, innate defence, initiative order) is `rules/systems/cortex_common/`.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any, Mapping

from rules.actions import END_TURN, Action
from rules.dice import Dice, Step
from rules.events import Event, event
from rules.grid import FEET
from rules.features import feature_names
from rules.systems.cortex.economy_table import ECONOMY
from rules.ruleset import Ruleset
from rules.names import check_known
from rules.state import BattleState, Combatant
from rules.systems.cortex.asked import ASKED_ANSWERS, AskedMixin
from rules.systems.cortex.combat import CombatMixin
from rules.systems.cortex.defence import DefenceMixin
from rules.systems.cortex.explosions import DIRECTIONS, ExplosionsMixin
from rules.systems.cortex.listing import _EXPLOSIVE, weapon_static
from rules.systems.cortex.melee import MeleeMixin
from rules.systems.cortex.modifiers import ModifiersMixin
from rules.systems.cortex.readouts import ReadoutsMixin
from rules.systems.cortex.piloting import PILOT_ANSWERS, PILOT_OPTIONS, PilotingMixin, build_vehicle
from rules.systems.cortex.model import (Weapon, build_armour, build_stat_block, build_weapons,
                                        load_data, skill_die)
from rules.systems.cortex.specials import SpecialsMixin
from rules.systems.cortex.start import CORTEX_START, apply_start, link_start
from rules.systems.cortex.traits import TraitBook
from rules.systems.cortex.tracks import CortexGM
from rules.systems.cortex.views import MovePriceMixin, OffenceMixin, UnitNumbersMixin
from rules.systems.cortex_common.mechanics import CortexBase

DATA = Path(__file__).with_name("data.yaml")

AFFLICTION_CONDITIONS = ("arm_lost", "leg_lost", "hand_lost", "knocked_out", "incapacitated", "impaired",
                         "crawl_only")


class CortexRuleset(ReadoutsMixin, CortexGM, UnitNumbersMixin, AskedMixin, PilotingMixin, CombatMixin, MeleeMixin, DefenceMixin, ModifiersMixin, ExplosionsMixin, SpecialsMixin, CortexBase,
                    MovePriceMixin, OffenceMixin, Ruleset):
    """Cortex Classic with the seed 000 house rules."""

    name = "cortex"
    description = "Serenity RPG house rules (seed 000) on Cortex Classic"
    #: answers to the choices seed 000 gives a figure (docs/cortex.md, Choices)
    answers = ("leap", "stay") + DIRECTIONS + ("prone", "stand", "bypass_armour", "special_effect",
                                               "disarm", "trip", "bash", "drop_weapon", "fall_prone",
                                               "attack", "pass")
    #: the economy's rows (name, meaning, scaling, range; economy_table.py), `economy()`'s names in order
    economy_table = ECONOMY
    economy_features = feature_names(ECONOMY)

    def __init__(self, data_path: Path = DATA) -> None:
        self.data = load_data(data_path)
        self.version = int(self.data.get("version", 1))
        self.weapons = build_weapons(self.data["weapons"])
        self.armours = build_armour(self.data["armour"])
        self.bestiary = self.data["bestiary"]
        self.traitbook = TraitBook(self.data["traits"])
        self.cover_table = {int(k): int(v) for k, v in self.data["cover_bonus"].items()}
        self.diff = dict(self.data["difficulty"])
        self.xmargin = int(self.data["extraordinary_margin"])
        self.max_actions = int(self.data["max_actions_per_turn"])
        self.mv = self.data["movement"]
        self.bands = self.data["range_bands"]
        self.dodge_table = self.data["dodge_cover_penalty"]
        self.called = self.data["called_shots"]
        self.modes = self.data["fire_modes"]
        self.expl = self.data["explosives"]
        self.pp_rules = self.data["plot_points"]
        #: ask `innate_defence` of `decline_innate: auto` figures (data.yaml `questions`)
        self.ask_innate = bool(self.data.get("questions", {}).get("innate_defence", True))
        self.answers = type(self).answers + ASKED_ANSWERS + tuple(
            f"pp_{n}" for n in range(int(self.pp_rules["max_spend"]) + 1)) + PILOT_ANSWERS
        areas = tuple(f"called:{a}" for a in self.called["areas"])
        self.called_options = areas  # the called-shot attack options, in the data file's order
        self.supported_actions = {
            "end_turn": (), "move": (),
            "attack": ("", *areas, "burst", "autofire", "trip", "double", "disarm", "takedown", "throw"),
            "defend": ("block", "dodge", "all_out_block", "all_out_dodge"),
            "reload": (), "drop_prone": (), "stand": (),
            "grapple": ("", "escape", "release"),
            "pick_up": (),
            "use": tuple(f"plot_points:{n}" for n in range(1, int(self.pp_rules["max_spend"]) + 1))
            + ("second_wind",) + PILOT_OPTIONS,
        }
        self._units_cache: dict[tuple, tuple] = {}
        self._actions: dict[tuple, Action] = {}
        # attack dice by (actor, weapon, option, range band, actions used, rise penalty); valid
        # only within one legal_actions or apply call, cleared at the start of each. One memo
        # per thread: fights played in several threads at once (the API server) never see
        # each other's pools, so the ruleset needs no lock
        self._local = threading.local()

    @property
    def _pool_cache(self) -> dict[tuple, Any]:
        """This thread's memo of attack and defence pools (see __init__)."""
        try:
            return self._local.pools
        except AttributeError:
            pools = self._local.pools = {}
            return pools

    # -- building -------------------------------------------------------------------
    def templates(self) -> list[str]:
        return sorted(self.bestiary)

    def build_combatant(self, spec: Mapping[str, Any], *, id: str, team: str, pos: int, order: int,
                        source: str | None, field: str) -> Combatant:
        vehicle = spec.get("vehicle")
        if vehicle is not None:
            spec = {k: v for k, v in spec.items() if k != "vehicle"}
        st = build_stat_block(spec, self.bestiary, self.weapons, self.armours, source, field, start=CORTEX_START,
                              extra_fields={"vehicle"}, names=self.skill_names)
        conds, start_state = st.pop("start")
        st["traits"] = self.traitbook.normalise(st["traits"], source, f"{field}.traits")
        st["life"] = self.life_points(st, int(self.traitbook.value(st["traits"], "life_points", 0) or 0))
        st["flags"] = self.traitbook.flags(st["traits"])
        st["second_winds"] = int(self.traitbook.value(st["traits"], "second_wind_per_day", 0)
                                 or self.data["second_wind"]["per_day"])
        ammo = {w.name: w.magazine for w in st["weapons"].values() if w.ranged and w.magazine}
        uses = {w.name: int(w.x("uses", 1)) for w in st["weapons"].values() if w.kind == "explosive"}
        for i, item in enumerate(st["items"]):
            check_known(item, sorted(self.weapons), source, f"{field}.items[{i}]", "item")
        res = {"stun": 0, "wound": 0, "ammo": ammo, "uses": uses, "stance": None, "no_move_round": 0,
               "attacked_last": False, "lost": [], "gained": list(st["items"]), "pp": st["plot_points"],
               "afflictions": [], "held": None, "grappled_by": None, "grappling": None,
               "second_winds_used": 0, "second_wind_round": 0, "reaction_debt": 0}
        c = Combatant(id=id, name=st["name"], team=team, template=st["template"], pos=pos,
                      stats=st, weapons=st["weapons"], armour=st["armour"], traits=st["traits"],
                      res=res, order=order)
        apply_start(self, c, conds, start_state, source, field)
        if vehicle is not None:  # seed 000, Vehicles and Spaceships: the pilot at the controls
            c.res["vehicle"] = build_vehicle(vehicle, self.data["vehicles"]["templates"], source, field)
        return c

    def setup(self, state: BattleState, dice: Dice) -> list[Event]:
        """Plot Points from the scenario (`settings.plot_points: {team: n}`)."""
        self.give_plot_points(state)
        link_start(state)
        return []

    def validate_object(self, item: str) -> bool:
        return item in self.weapons

    # -- helpers --------------------------------------------------------------------
    def speed_factor(self, c: Combatant) -> float:
        if not c.res["afflictions"] and "impaired" not in c.conditions:
            return 1.0   # no lost leg, not impaired (the lines below give 0.5 ** 0 = 1.0)
        legs = sum(1 for a in c.res["afflictions"] if a["effect"] in ("lose_leg",))
        f = 0.5 ** legs
        if "impaired" in c.conditions:
            f *= 0.5
        return f

    def units(self, state: BattleState, c: Combatant | None = None) -> tuple[int, ...]:
        """Movement allowances in half-cell units: walk, hustle, run, crawl x3 (after lost legs)."""
        f = self.speed_factor(c) if c is not None else 1.0
        key = (state.grid.cell_m, f)
        u = self._units_cache.get(key)
        if u is None:
            g = state.grid
            u = tuple(g.budget_units(self.mv[k] * FEET * f) for k in
                      ("walk", "hustle", "run", "crawl_free", "crawl_action", "crawl_run"))
            self._units_cache[key] = u
        return u

    def arms_usable(self, c: Combatant) -> int:
        if not c.res["afflictions"]:
            return 2
        lost = sum(1 for a in c.res["afflictions"] if a["effect"] in ("lose_arm", "lose_hand"))
        return max(0, 2 - lost)

    def usable_weapons(self, c: Combatant) -> list[Weapon]:
        arms = self.arms_usable(c)
        if arms == 0:
            return []
        out = []
        for w in self.weapons_of(c):
            _, kind, hands, _, _ = weapon_static(w)
            if hands > arms:
                continue
            if kind == _EXPLOSIVE and c.res["uses"].get(w.name, 0) <= 0:
                continue
            out.append(w)
        return out

    def attr_steps(self, c: Combatant, attr: str, context: frozenset | set = frozenset()) -> int:
        """Step modifiers on an attribute die from wounds, armour and traits."""
        s = self.base_attr_steps(c, attr)
        if c.traits:
            s += self.traitbook.modifiers(c.traits, set(context) | c.conditions, attr).attr_steps
        return s

    # -- turn structure -------------------------------------------------------------
    def roll_initiative(self, state: BattleState, dice: Dice) -> tuple[list[str], list[Event]]:
        # figures knocked out or incapacitated until an Endurance roll keep their place
        alive = [c for c in state.combatants
                 if not c.down or (c.conditions.isdisjoint({"unconscious", "dying", "dead"})
                                   and any(a["until"] == "endurance" for a in c.res["afflictions"]))]
        if state.settings.get("initiative") == "fixed":
            return self.fixed_order(state, alive)
        entries = []
        for c in alive:
            agi = Step(max(1, c.stats["attributes"]["agility"].index + self.attr_steps(c, "agility", {"initiative"})))
            ale = Step(max(1, c.stats["attributes"]["alertness"].index
                           + (self.traitbook.modifiers(c.traits, {"initiative"}, "alertness").attr_steps
                              if c.traits else 0)))
            entries.append((c, agi, ale, self.attr_modifiers(c, "agility", {"initiative"})
                            + self.pair_modifiers(c, ("alertness",), {"initiative"}, base=False)))
        return self.rolled_order(state, dice, entries)

    def _fresh_economy(self, state: BattleState, actor: Combatant) -> None:
        debt = min(actor.res["reaction_debt"], self.max_actions)
        actor.res["reaction_debt"] = 0
        state.economy = {"actions": debt, "move_units": 0, "mode": "walk", "ran": False, "shots": {},
                         "rise_penalty": False, "stood": False, "pp_bonus": 0, "called": False,
                         "no_move": actor.res["no_move_round"] == state.round, "turn_over": False,
                         "all_out": False}

    def start_turn_touches(self, state: BattleState, actor: Combatant) -> set[str]:
        """start_turn: stance, reaction debt, the called-shot recovery roll, the shift off a taken cell: the actor's own."""
        return {actor.id}

    def start_turn(self, state: BattleState, actor: Combatant, dice: Dice) -> tuple[bool, list[Event]]:
        actor.res["stance"] = None
        actor.res["attacked_last"] = False
        self._fresh_economy(state, actor)
        evs = self.recovery_roll(state, actor, dice)
        return not actor.down, evs

    def upkeep_down(self, state: BattleState, actor: Combatant, dice: Dice) -> list[Event]:
        """seed 000, Called Shots: one Endurance roll each turn in initiative order, no action."""
        return self.recovery_roll(state, actor, dice)  # start_turn follows when it recovers

    def end_round(self, state: BattleState, dice: Dice) -> list[Event]:
        """Dying figures roll Endurance each round (data.yaml assumption `dying`)."""
        return self.dying_upkeep(state, dice)

    # -- legal actions ----------------------------------------------------------------
    def move_options(self, state: BattleState, a: Combatant) -> dict[int, int]:
        """Free cells the actor may move to now -> path cost in half-cell units."""
        found = self._reach_now(state, a)
        if found is None:
            return {}
        res = dict(found[0])
        for p in found[1]:
            res.pop(p, None)
        return res

    def _reach_now(self, state: BattleState, a: Combatant) -> tuple[dict[int, int], set[int]] | None:
        """(cells within the actor's movement budget -> cost, cells taken by standing figures),
        or None when it may not move; the move options are the first less the second."""
        e = state.economy
        if (e["no_move"] or e["ran"] or e["all_out"] or "incapacitated" in a.conditions
                or a.res["grappled_by"] is not None):
            return None
        walk, hustle, run, cfree, caction, crun = self.units(state, a)
        prone = "prone" in a.conditions
        tiers = (cfree, caction, crun) if prone else (walk, hustle, run)
        only_move = e["actions"] == 0 or (e["actions"] == 1 and e["mode"] == "hustle")
        if only_move and not e["stood"] and not e["called"]:
            cap = tiers[2]
        elif e["mode"] == "hustle" or (e["actions"] < self.max_actions and not e["called"]):
            cap = tiers[1]
        else:
            cap = tiers[0]
        budget = cap - e["move_units"]
        if budget <= 0:
            return None
        blockers, occ = state.blockers_and_occupied(a.team)
        # every cost in reach is within budget
        return state.grid.reachable(a.pos, budget, blockers), occ

    def legal_actions(self, state: BattleState) -> list[Action]:
        self._pool_cache.clear()
        a = state.actor
        e = state.economy
        acts = [END_TURN]
        if a is None or a.down or e["ran"]:
            return acts
        g = state.grid
        mv = g.move_actions
        found = self._reach_now(state, a)
        if found is not None:  # `move_options`, in its order, without building the dict
            occ = found[1]
            acts.extend([mv[c] for c in found[0] if c not in occ])
        prone = "prone" in a.conditions
        can_act = e["actions"] < self.max_actions and not e["called"] and not e["all_out"]
        A = self.action
        if can_act:
            acts.extend(self.attack_actions(state, a))
            if a.res["stance"] is None:
                steps = -e.get("actions", 0)  # what `defence_pool` works out for the actor
                for mode in ("block", "dodge"):
                    if self.has_defence(state, a, mode, steps):
                        acts.append(A("defend", option=mode))
                        if e["actions"] == 0:
                            acts.append(A("defend", option=f"all_out_{mode}"))
            for w in self.weapons_of(a):
                if w.magazine and a.res["ammo"].get(w.name, 0) < w.magazine and self.arms_usable(a) > 0:
                    acts.append(A("reload", weapon=w.name))
            if prone and "crawl_only" not in a.conditions and "incapacitated" not in a.conditions:
                acts.append(A("stand"))
            acts.extend(self.special_actions(state, a))
        if a.res["grappling"] is not None:
            acts.append(A("grapple", target=a.res["grappling"], option="release"))
        if e["pp_bonus"] == 0 and a.res["pp"] > 0:
            for n in range(1, min(a.res["pp"], int(self.pp_rules["max_spend"])) + 1):
                acts.append(A("use", option=f"plot_points:{n}"))
        if not prone:
            acts.append(A("drop_prone"))
        return acts

    def legal_attacks(self, state: BattleState, target: str | None = None) -> list[Action]:
        """The attack-like legal actions, as `legal_actions` lists them (its other branches skipped)."""
        self._pool_cache.clear()
        a = state.actor
        e = state.economy
        if a is None or a.down or e["ran"]:
            return []
        out: list[Action] = []
        if e["actions"] < self.max_actions and not e["called"] and not e["all_out"]:
            out.extend(self.attack_actions(state, a, target))
            # the grapples among `special_actions` (its other actions are never grapples)
            out.extend(x for x in self.grapple_actions(state, a) if target is None or x.target == target)
        if a.res["grappling"] is not None and (target is None or a.res["grappling"] == target):
            out.append(self.action("grapple", target=a.res["grappling"], option="release"))
        return out

    # -- applying -------------------------------------------------------------------
    def may_ask(self, state: BattleState, action: Action) -> bool:
        """Attacks ask: harm's way, the extraordinary hit and block choices, falling or
        dropping a tripping weapon, innate defence, the dodge's cover, the improvised
        weapon's skill, the Krav Maga rifle and Plot Points against damage; a grapple
        attempt asks the target's innate defence; opening up the thrust asks the mechanical
        damage of a failure (docs/cortex.md, Choices)."""
        k = action.kind
        return k == "attack" or (k == "grapple" and not action.option) or (k == "use" and action.option == "thrust")

    def apply(self, state: BattleState, action: Action, dice: Dice) -> list[Event]:
        self._pool_cache.clear()
        a = state.actor
        k = action.kind
        e = state.economy
        if k == "move":
            return self._move(state, a, action.cell)
        if k == "attack":
            return self.attack(state, a, state.by_id[action.target], self.weapon_named(a, action.weapon),
                               action.option or "", dice)
        if k == "defend":
            opt = action.option
            all_out = opt.startswith("all_out_")
            mode = opt[len("all_out_"):] if all_out else opt
            pen = -e["actions"] - (1 if e["rise_penalty"] else 0)
            e["rise_penalty"] = False
            e["actions"] += 1
            a.res["stance"] = {"mode": mode, "steps": pen + (2 if all_out else 0), "rolls": 0,
                               "all_out": all_out}
            if all_out:
                e["all_out"] = True
                e["turn_over"] = True
            return [event("stance", actor=a.id, stance=opt, steps=a.res["stance"]["steps"])]
        if k == "reload":
            w = self.weapon_named(a, action.weapon)
            e["actions"] += 1
            a.res["ammo"][w.name] = w.magazine
            return [event("reload", actor=a.id, weapon=w.name)]
        if k == "drop_prone":
            a.conditions.add("prone")
            return [event("condition", target=a.id, condition="prone", on=True)]
        if k == "stand":
            e["actions"] += 1
            e["stood"] = True
            a.conditions.discard("prone")
            evs = [event("condition", target=a.id, condition="prone", on=False)]
            if "knocked" in a.conditions:
                a.conditions.discard("knocked")
                e["rise_penalty"] = True
                evs.append(event("effect", target=a.id, effect="off balance: -1 step on the next combat action"))
            return evs
        return self.apply_special(state, a, action, dice)

    def _move(self, state: BattleState, a: Combatant, cell: int) -> list[Event]:
        e = state.economy
        found = self._reach_now(state, a)
        if found is None or cell in found[1]:
            raise KeyError(cell)  # not a move option (as `move_options(state, a)[cell]` says)
        cost = found[0][cell]
        walk, hustle, run, cfree, caction, crun = self.units(state, a)
        prone = "prone" in a.conditions
        tiers = (cfree, caction, crun) if prone else (walk, hustle, run)
        total = e["move_units"] + cost
        if total <= tiers[0]:
            mode = "walk"
        elif total <= tiers[1]:
            mode = "hustle"
        else:
            mode = "run"
        if mode != "walk" and e["mode"] == "walk":
            e["actions"] += 1
        if mode == "run":
            e["ran"] = True
            e["turn_over"] = True
        e["mode"] = mode
        e["move_units"] = total
        frm = a.pos
        a.pos = cell
        g = state.grid
        if a.res["grappling"] is not None:
            self.release_grapple(state, a)
        name = "crawl" if prone else mode
        return [event("move", actor=a.id, **{"from": list(g.xy(frm))}, to=list(g.xy(cell)),
                      metres=round(g.units_to_m(cost), 3), mode=name)]

    # -- afflictions ----------------------------------------------------------------
    def sync_afflictions(self, c: Combatant) -> None:
        conds: set[str] = set()
        for a in c.res["afflictions"]:
            conds.update(a["conds"])
        for name in AFFLICTION_CONDITIONS:
            if name in conds:
                c.conditions.add(name)
            else:
                c.conditions.discard(name)


__all__ = ["CortexRuleset", "skill_die"]
