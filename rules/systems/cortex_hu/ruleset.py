"""The `cortex_hu` ruleset: seed 002 (a Hungarian Cortex combat summary).

It shares the Cortex base with `cortex` through `rules.systems.cortex_common` (die steps,
the Difficulty ladder, stat blocks and dice pools, Life Points, damage types and the Basic
split, armour, unconsciousness and dying, innate defence, the initiative order) and
differs where seed 002 differs (docs/cortex_hu.md lists every difference and decision):

- Harcrendszer: a round of about 3 seconds; initiative Agility + Alertness + modifiers;
  the multiple-action ladder of the worked example (`ladder.py`); rate of fire;
  free actions, walking, jogging and running (`manoeuvres.py`);
- Kitérés/blokkolás, Ösztönös kitérés, Hárítás, Kitérés, Teljes Védekezés, Teljes körű
  támadás, Meglepetésből támadás, Fedezékek, Lőtávolságok, Hajítófegyverek (`combat.py`);
  damage, Célzott lövés, Lefegyverzés (`effects.py`); Csel, Megragadás/leszorítás, Célzás
  (`manoeuvres.py`);
- what each roll is for and its modifiers (`rolls.py`), what the rules track for a figure
  (`tracked.py`) and a scenario figure's starting conditions and state (`start.py`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

from rules.actions import Action
from rules.dice import Dice, Step
from rules.errors import ScenarioError
from rules.events import Event, event
from rules.features import feature_names
from rules.systems.cortex_hu.economy_table import ECONOMY
from rules.ruleset import Ruleset
from rules.state import BattleState, Combatant
from rules.systems.cortex_common.mechanics import CortexBase
from rules.systems.cortex_common.model import build_armour, build_stat_block, build_weapons, load_data
from rules.systems.cortex_hu.combat import CombatHu
from rules.systems.cortex_hu.defence import SPEND, DefenceHu
from rules.systems.cortex_hu.effects import EffectsHu
from rules.systems.cortex_hu.listing import legal_list
from rules.systems.cortex_hu.manoeuvres import ManoeuvresHu
from rules.systems.cortex_hu.offence import OffenceHu
from rules.systems.cortex_hu.rolls import RollsHu, fill, mods
from rules.systems.cortex_hu.start import apply_start, link_start, start_schema
from rules.systems.cortex_hu.tracked import TrackedHu
from rules.systems.cortex_hu.tracks import CortexHuGM

DATA = Path(__file__).with_name("data.yaml")

#: the hand-to-hand weapons of data.yaml's table: the answers of the `parry_weapon` question
MELEE_WEAPONS = ("unarmed", "knife", "club", "sabre", "axe", "shepherds_axe", "staff")

#: stat-block fields of `cortex` (seed 000) that seed 002 has no rules for
NOT_HERE = ("block_effect", "traits", "items")


class CortexHuRuleset(OffenceHu, CortexHuGM, CombatHu, DefenceHu, EffectsHu, ManoeuvresHu, RollsHu, TrackedHu, CortexBase, Ruleset):
    """Cortex with the seed 002 combat rules."""

    name = "cortex_hu"
    description = "Hungarian Cortex combat summary (seed 002) on Cortex Classic"
    #: the economy's rows (name, meaning, scaling, range; economy_table.py), `economy()`'s names in order
    economy_table = ECONOMY
    economy_features = feature_names(ECONOMY)
    #: every answer to the choices seed 002 gives a figure (docs/cortex_hu.md, Choices), in a
    #: fixed order (the envs' answer block): `reaction`, `innate_defence`, `plot_points`, and
    #: `parry_weapon` (the hand-to-hand weapons of the data's table)
    answers = ("parry", "dodge", "innate", "roll", "easy") + SPEND + MELEE_WEAPONS
    scenario_settings = {**CortexBase.scenario_settings,
                         "surprised": ([], "teams or figure ids caught by surprise: they meet attacks with "
                                           "innate defence only, Easy (3), until their own first turn starts "
                                           "(assumption surprise)")}

    def __init__(self, data_path: Path = DATA) -> None:
        self.data = load_data(data_path)
        d = self.data
        self.version = int(d.get("version", 1))
        self.weapons = build_weapons(d["weapons"])
        self.armours = build_armour(d["armour"])
        self.bestiary = d["bestiary"]
        self.diff = dict(d["difficulty"])
        self.cover_table = {int(k): int(v) for k, v in d["cover_bonus"].items()}
        self.max_actions = int(d["max_actions_per_turn"])
        self.mv = d["movement"]
        self.rng = d["ranges"]
        self.improvised = d["improvised_throw"]
        self.aim_rules = d["aim"]
        self.prone_rules = d["prone"]
        self.disarm_rules = d["disarm"]
        self.called = d["called_shots"]
        self.pp_rules = d["plot_points"]
        if int(self.pp_rules["max_spend"]) >= len(SPEND):
            raise ValueError(f"plot_points.max_spend above {len(SPEND) - 1}: the plot_points answers stop there")
        self.full_defence_steps = int(d["full_defence_steps"])
        self.all_out_steps = int(d["all_out_attack_steps"])
        self.reaction_limit = int(d["reaction_limit"])
        self.held_difficulty = int(d["grapple"]["held_difficulty"])
        areas = []
        for area, spec in self.called["areas"].items():
            areas.append(f"called:{area}")
            if spec.get("waivable"):
                areas.append(f"called:{area}_waive")
        self.attack_options = ("", "all_out", *areas, "disarm", "throw", "choke")
        self.supported_actions = {
            "end_turn": (), "move": (),
            "attack": self.attack_options,
            "defend": ("parry", "dodge", "full_defence"),
            "aim": (),
            "feint": (),
            "grapple": ("", "escape", "release"),
            "reload": (), "drop_prone": (), "stand": (), "drop": (),
        }
        self._units_cache: dict[float, tuple] = {}
        self._actions: dict[tuple, Action] = {}
        #: what a scenario may start a figure with, for the shared builder (start.py)
        self.start = start_schema(self)

    # -- building -------------------------------------------------------------------
    def templates(self) -> list[str]:
        return sorted(self.bestiary)

    def build_combatant(self, spec: Mapping[str, Any], *, id: str, team: str, pos: int, order: int,
                        source: str | None, field: str) -> Combatant:
        for k in NOT_HERE:
            if k in spec:
                raise ScenarioError(f"{k!r} is a cortex (seed 000) field; cortex_hu has no rules for it",
                                    source=source, field=f"{field}.{k}", expected="no such field")
        st = build_stat_block(spec, self.bestiary, self.weapons, self.armours, source, field,
                              extra_fields={"initiative_steps", "reactions"}, start=self.start,
                              names=self.skill_names)
        conds, start = st.pop("start")
        ini = (spec.get("initiative_steps") if "initiative_steps" in spec
               else self.bestiary.get(spec.get("template"), {}).get("initiative_steps", 0))
        if isinstance(ini, bool) or not isinstance(ini, int) or not -6 <= ini <= 6:
            raise ScenarioError(f"initiative_steps {ini!r}", source=source, field=f"{field}.initiative_steps",
                                expected="a whole number of steps from -6 to 6")
        react = spec.get("reactions", "auto")
        if react not in ("auto", "never"):
            raise ScenarioError(f"reactions {react!r}", source=source, field=f"{field}.reactions",
                                expected="auto or never")
        st["initiative_steps"] = ini
        st["reactions"] = react
        st["life"] = self.life_points(st)
        ammo = {w.name: w.magazine for w in st["weapons"].values() if w.ranged and w.magazine}
        res = {"stun": 0, "wound": 0, "ammo": ammo, "lost": [], "gained": [], "held": None,
               "pp": st["plot_points"], "grappling": None, "grappled_by": None, "grip": 0, "prepared": [],
               "last_actions": 0, "debt": 0, "full_defence": False, "all_out": False, "aim": 0,
               "surprised": False, "ko_turns": 0, "feinted_by": None, "ran": False, "carried_defence": False}
        c = Combatant(id=id, name=st["name"], team=team, template=st["template"], pos=pos,
                      stats=st, weapons=st["weapons"], armour=st["armour"], traits=(), res=res, order=order)
        apply_start(self, c, conds, start, source, field)
        return c

    def check_settings(self, settings: Mapping[str, Any], teams: list[str], ids: list[str],
                       source: str | None) -> None:
        """`surprised` must list teams or figures of the scenario (assumption surprise)."""
        sur = settings.get("surprised")
        if sur is None:
            return
        if not isinstance(sur, list):
            raise ScenarioError(f"surprised {sur!r} is not a list", source=source, field="settings.surprised",
                                expected="a list of team names or figure ids")
        for i, name in enumerate(sur):
            if not isinstance(name, str) or (name not in teams and name not in ids):
                raise ScenarioError(f"{name!r} is neither a team nor a figure", source=source,
                                    field=f"settings.surprised[{i}]",
                                    expected="one of " + ", ".join(list(teams) + list(ids)))

    def setup(self, state: BattleState, dice: Dice) -> list[Event]:
        """Plot Points (`settings.plot_points: {team: n}`) and who is surprised (`settings.surprised`)."""
        self.give_plot_points(state)
        link_start(state)
        self.check_settings(state.settings, state.teams, [c.id for c in state.combatants], None)
        evs: list[Event] = []
        for name in state.settings.get("surprised") or []:
            for c in (c for c in state.combatants if name in (c.team, c.id)):
                if not c.res["surprised"]:
                    c.res["surprised"] = True
                    c.conditions.add("surprised")
                    evs.append(event("condition", target=c.id, condition="surprised", on=True))
        return evs

    def validate_object(self, item: str) -> bool:
        return item in self.weapons

    # -- turn structure -------------------------------------------------------------
    def roll_initiative(self, state: BattleState, dice: Dice) -> tuple[list[str], list[Event]]:
        """seed 002: Agility + Alertness + modifiers (`initiative_steps`, an advantage), each round."""
        alive = [c for c in state.combatants
                 if not c.down or ("knocked_out" in c.conditions
                                   and c.conditions.isdisjoint({"unconscious", "dying", "dead"}))]
        if state.settings.get("initiative") == "fixed":
            return self.fixed_order(state, alive)
        entries = []
        for c in alive:
            at = c.stats["attributes"]
            agi = Step(max(1, at["agility"].index + self.attr_steps(c, "agility") + c.stats["initiative_steps"]))
            entries.append((c, agi, self.attr_die(c, "alertness"),
                            mods(("advantage (agility)", c.stats["initiative_steps"]))
                            + self.attr_mods(c, "agility") + self.attr_mods(c, "alertness")))
        return self.rolled_order(state, dice, entries)

    def fresh_economy(self, state: BattleState, actor: Combatant) -> list[Event]:
        """The turn's economy. `carried`: an action was brought over from the previous round -
        a reaction since its last turn, or a defence declared in an earlier round and used in
        this one (seed 002, Teljes Védekezés: "Ha viszont az előző körből "áthozol" valamilyen
        cselekvést - akár védekezést is"): no full defence, no all-out attack this turn."""
        debt = min(actor.res["debt"], self.max_actions)
        actor.res["debt"] = 0
        brought = actor.res["carried_defence"]
        actor.res["carried_defence"] = False
        state.economy = {"actions": debt, "acted": 0, "carried": debt > 0 or brought, "debt": debt, "move_units": 0,
                         "mode": "walk", "move_slot": 0, "ran": False, "run_penalty": 0, "shots": {},
                         "full_defence": False, "all_out": False, "aimed": False, "turn_over": False}
        evs: list[Event] = []
        if debt:
            evs.append(event("effect", target=actor.id, effect=f"carries over {debt} reaction{'s' if debt > 1 else ''}: "
                             f"its first action is {debt} step{'s' if debt > 1 else ''} lower", carried=debt))
        if brought:
            evs.append(event("effect", target=actor.id, effect="brought a defence declared last round into this one: "
                             "no full defence or all-out attack this turn", carried_defence=True))
        return evs

    def start_turn_touches(self, state: BattleState, actor: Combatant) -> set[str]:
        """start_turn: surprise, feint, prepared defences, reaction debt: the actor's own."""
        return {actor.id}

    def start_turn(self, state: BattleState, actor: Combatant, dice: Dice) -> tuple[bool, list[Event]]:
        evs: list[Event] = []
        if actor.res["surprised"]:
            actor.res["surprised"] = False
            actor.conditions.discard("surprised")
            evs.append(event("condition", target=actor.id, condition="surprised", on=False))
        evs += self.feint_lapses(actor)
        actor.res["prepared"] = []
        actor.res["full_defence"] = False
        actor.res["all_out"] = False
        actor.res["ran"] = False  # a run's -2 lasts until the figure's next turn (assumption run)
        evs += self.fresh_economy(state, actor)
        return not actor.down, evs

    def upkeep_down(self, state: BattleState, actor: Combatant, dice: Dice) -> list[Event]:
        """A knocked-out figure misses its turns, then wakes (assumption knockout_timing)."""
        if "knocked_out" not in actor.conditions or not actor.conditions.isdisjoint({"unconscious", "dying", "dead"}):
            return []
        if actor.res["ko_turns"] > 0:
            actor.res["ko_turns"] -= 1
            return [event("effect", target=actor.id, effect="is knocked out and misses the turn",
                          turns_left=actor.res["ko_turns"])]
        actor.conditions.discard("knocked_out")
        return [event("condition", target=actor.id, condition="knocked_out", on=False)]

    def end_turn(self, state: BattleState, actor: Combatant, dice: Dice) -> list[Event]:
        e = state.economy
        actor.res["last_actions"] = e.get("actions", 0)
        return []

    def end_round(self, state: BattleState, dice: Dice) -> list[Event]:
        return fill(self.dying_upkeep(state, dice), "dying",
                    lambda id: self.attr_mods(state.by_id[id], "vitality"))

    # -- the ladder -------------------------------------------------------------------
    def turn_steps(self, state: BattleState, a: Combatant) -> int:
        """The step modifier every action of the acting figure takes now: the ladder, a run, prone."""
        e = state.economy
        steps = -e["actions"] + e["run_penalty"]
        if "prone" in a.conditions:
            steps += int(self.prone_rules["steps"])
        return steps

    def spend(self, state: BattleState, a: Combatant) -> None:
        """One more action on the ladder; any non-free action ends aiming (seed 002, Célzás)."""
        state.economy["actions"] += 1
        state.economy["acted"] += 1
        self.lose_aim(a)

    def can_act(self, state: BattleState) -> bool:
        """Room on the ladder for an action without a roll of its own (assumption no_roll_actions)."""
        return state.economy["actions"] < self.max_actions

    # -- legal actions ----------------------------------------------------------------
    def legal_actions(self, state: BattleState) -> list[Action]:
        """End turn, moves, attacks, stances, aim, feints, grapples, reloads, standing up, then
        the free actions (dropping prone, dropping a weapon, letting go): `listing.legal_list`."""
        return legal_list(self, state)

    def legal_attacks(self, state: BattleState, target: str | None = None) -> list[Action]:
        """The attack-like legal actions, as `legal_actions` lists them (its other branches skipped)."""
        a = state.actor
        if a is None or a.down:
            return []
        e = state.economy
        A = self.action
        release = [A("grapple", target=a.res["grappling"], option="release")] if a.res["grappling"] is not None else []
        if e["aimed"] or e["full_defence"]:
            return release
        out = [x for x in self.attack_actions(state, a) if x.kind in ("attack", "grapple")]
        if a.res["grappled_by"] is not None:
            if self.escape_pool(state, a) is not None:
                out.append(A("grapple", target=a.res["grappled_by"], option="escape"))
        else:
            out.extend(A("grapple", target=t.id) for t in state.combatants if self.can_grapple(state, a, t))
        out += release
        return out if target is None else [x for x in out if x.target == target]

    # -- applying -------------------------------------------------------------------
    def may_ask(self, state: BattleState, action: Action) -> bool:
        """Attacks and grabs ask the defender its choices (reaction, parrying weapon, innate
        roll or Easy 3, Plot Points: docs/cortex_hu.md, Choices)."""
        return action.kind == "attack" or (action.kind == "grapple" and not action.option)

    def apply(self, state: BattleState, action: Action, dice: Dice) -> list[Event]:
        a = state.actor
        e = state.economy
        k = action.kind
        if k == "move":
            return self.move(state, a, action.cell, dice)
        if k == "attack":
            return self.attack(state, a, state.by_id[action.target], self.weapon_named(a, action.weapon),
                               action.option or "", dice)
        if k == "defend":
            if action.option == "full_defence":
                e["full_defence"] = True
                a.res["full_defence"] = True
                return [event("stance", actor=a.id, stance="full defence", steps=self.full_defence_steps)]
            # the ladder, a run and full defence as declared; lying prone counts when the defence
            # is rolled (`prepared_steps`: seed 002, "-2 kockafokozat büntetést kap addig")
            fd = self.full_defence_steps if e["full_defence"] else 0
            steps = -e["actions"] + e["run_penalty"] + fd
            declared = self.ladder_mods(state, e["actions"]) + mods(("running", e["run_penalty"]),
                                                                    ("full defence", fd))
            self.spend(state, a)
            a.res["prepared"].append({"mode": action.option, "steps": steps, "modifiers": declared,
                                      "round": state.round})
            return [event("stance", actor=a.id, stance=action.option, steps=steps)]
        if k == "aim":
            return self.aim(state, a)
        if k == "feint":
            return self.feint(state, a, state.by_id[action.target], dice)
        if k == "grapple":
            if action.option == "release":
                return self.let_go(state, a)
            if action.option == "escape":
                return self.escape(state, a, dice)
            return self.grapple(state, a, state.by_id[action.target], dice)
        if k == "reload":
            w = self.weapon_named(a, action.weapon)
            self.spend(state, a)
            a.res["ammo"][w.name] = w.magazine
            return [event("reload", actor=a.id, weapon=w.name)]
        if k == "drop_prone":
            a.conditions.add("prone")
            return [event("condition", target=a.id, condition="prone", on=True, cause="drops prone (free)")]
        if k == "stand":
            self.spend(state, a)
            a.conditions.discard("prone")
            return [event("condition", target=a.id, condition="prone", on=False)]
        if k == "drop":
            return self.drop_object(state, a, action.weapon, a.pos, verb="is dropped (free)")
        raise ValueError(f"cortex_hu cannot apply {action}")  # pragma: no cover - guarded by check_legal

    # -- views ----------------------------------------------------------------------
    def economy(self, state: BattleState) -> dict[str, float]:
        a = state.actor
        e = state.economy
        if a is None or not e:
            return {k: 0.0 for k in self.economy_features}
        g = state.grid
        walk, _, _ = self.units(state)
        opts = self.move_options(state, a)
        shots, ammo = 0.0, 1.0
        ranged = [w for w in self.weapons_of(a) if w.ranged and w.magazine]
        if ranged:
            w = ranged[0]
            shots = float(max(0, w.rof - e["shots"].get(w.name, 0)))
            ammo = a.res["ammo"].get(w.name, 0) / max(1, w.magazine)
        prep = a.res["prepared"]
        return {
            "actions_used": float(e["actions"]),
            "next_action_steps": float(self.turn_steps(state, a)),
            "actions_left": float(max(0, self.max_actions - e["actions"])),
            "move_used_m": g.units_to_m(e["move_units"]),
            "walk_left_m": g.units_to_m(max(0, walk - e["move_units"])) if "prone" not in a.conditions else 0.0,
            "move_left_m": g.units_to_m(max(opts.values(), default=0)),
            "jogged": float(e["mode"] in ("jog", "run")),
            "ran": float(e["ran"]),
            "run_penalty": float(e["run_penalty"]),
            "prepared_parries": float(sum(1 for p in prep if p["mode"] == "parry")),
            "prepared_dodges": float(sum(1 for p in prep if p["mode"] == "dodge")),
            "full_defence": float(e["full_defence"]),
            "all_out_attack": float(e["all_out"]),
            "carried_over": float(e.get("debt", 0) > 0),
            "reaction_debt": float(a.res["debt"]),
            "aim_steps": float(a.res["aim"] * int(self.aim_rules["steps_per_round"])),
            "aimed": float(e["aimed"]),
            "feint_ready": float(any(c.res["feinted_by"] is not None and c.team != a.team and not c.down
                                     for c in state.combatants)),
            "prone": float("prone" in a.conditions),
            "shots_left": shots,
            "ammo_frac": float(ammo),
            "plot_points": float(a.res["pp"]),
            "grappled": float(a.res["grappled_by"] is not None),
            "grappling": float(a.res["grappling"] is not None),
            "surprised": float(a.res["surprised"]),
        }

    def attack_odds(self, state: BattleState, actor: Combatant, action: Action) -> dict[str, float] | None:
        from rules.systems.cortex_hu.odds import attack_odds
        return attack_odds(self, state, actor, action)

    def attack_odds_many(self, state: BattleState, actor: Combatant, actions: list[Action]
                         ) -> list[dict[str, float] | None]:
        from rules.systems.cortex_hu.odds import attack_odds
        shared: dict = {}
        return [attack_odds(self, state, actor, a, shared) for a in actions]

    def start_turn_rolls(self, state: BattleState, actor: Combatant) -> bool:
        """start_turn rolls nothing (surprise, feints, prepared defences, reaction debt)."""
        return False

    def threat_profile(self, state: BattleState, attacker: Combatant):
        from rules.systems.cortex_hu.threat import threat_profile
        return threat_profile(self, state, attacker)

    def reach_m(self, c: Combatant) -> float:
        """Ranged weapons with ammunition reach their long band; hand to hand reaches the next cell."""
        best = 0.0
        for w in self.usable_weapons(c):
            if w.ranged:
                if w.magazine and c.res["ammo"].get(w.name, 0) <= 0:
                    continue
                best = max(best, float(w.x("range_m")[-1]))
            else:
                best = max(best, 1.5 * 1.5)  # the next cell, diagonals included
        return best

    def unit_numbers(self, figures: list[Combatant]) -> list[tuple[float, float]]:
        """(`reach_m(c)`, `ammo_frac(c)`) of each figure from one look at its weapons: the same
        loops, fused (tests/test_env_shortcuts.py checks them against the two calls)."""
        out = []
        for c in figures:
            ammo = c.res["ammo"]
            one_arm = "arm_useless" in c.conditions
            best = 0.0
            frac = None
            for w in self.weapons_of(c):
                if w.ranged:
                    if frac is None and w.magazine:            # ammo_frac: the first ranged magazine
                        frac = ammo.get(w.name, 0) / max(1, w.magazine)
                    if (one_arm and w.hands > 1) or (w.magazine and ammo.get(w.name, 0) <= 0):
                        continue                               # reach_m: usable and loaded
                    best = max(best, float(w.x("range_m")[-1]))
                elif not (one_arm and w.hands > 1):
                    best = max(best, 1.5 * 1.5)
            out.append((best, 1.0 if frac is None else frac))
        return out


__all__ = ["CortexHuRuleset"]
