"""The `cybergeneration` ruleset: seed 004 (a house-ruled Cybergeneration combat chapter).

Rules and where they are (seed 004 headings; base rules from RULES-NOTES.md; every decided
gap is an `assumptions` entry of data.yaml, see docs/cybergeneration.md):
- Your Turn / the Facedown (initiative), the round of one move and one action - `turns.py`;
  moves and actions - this module; delaying and held actions (interrupts) - `timing.py`.
- Ranged combat, point blank, cover, full automatic, suppression, the genius gun, bows,
  shotguns, thrown objects, grenades, called shots, criticals - `combat.py`; melee,
  knockdown, disarm, stun attacks - `melee.py`; damage, armour, stun saves - `damage.py`.
- Grappling and holds - `grapple.py`.
- Wounds, bleeding, first aid, waking, falling, cyber-evolved healing - `care.py`.
- Exact hit chances and expected Wounds for policies - `odds.py`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable, Mapping

from rules.actions import Action
from rules.dice import Dice
from rules.errors import IllegalActionError
from rules.events import Event, event
from rules.names import skill_names
from rules.features import feature_names
from rules.systems.cybergeneration.economy_table import ECONOMY
from rules.ruleset import Ruleset
from rules.state import DOWN_CONDITIONS, BattleState, Combatant
from rules.systems.cybergeneration.asks import AsksMixin
from rules.systems.cybergeneration.care import CareMixin
from rules.systems.cybergeneration.choices import ChoicesMixin
from rules.systems.cybergeneration.combat import CombatMixin
from rules.systems.cybergeneration.damage import DamageMixin
from rules.systems.cybergeneration.gear import GearMixin
from rules.systems.cybergeneration.grapple import ANOTHER_ACTION, GrappleMixin
from rules.systems.cybergeneration.melee import MeleeMixin
from rules.systems.cybergeneration.model import (Armour, DamageTable, Weapon, build_armour, build_stat_block,
                                                 build_weapons, load_data)
from rules.systems.cybergeneration.ordnance import OrdnanceMixin
from rules.systems.cybergeneration.start import apply_start, check_links
from rules.systems.cybergeneration.threat import best_expected_damage, start_turn_rolls, threat_profile
from rules.systems.cybergeneration.timing import TimingMixin
from rules.systems.cybergeneration.tracks import CybergenerationGM
from rules.systems.cybergeneration.turns import TurnsMixin
from rules.systems.cybergeneration.views import ViewsMixin

DATA = Path(__file__).with_name("data.yaml")

TRIGGERS = ("on_move", "on_attack", "on_draw")
READY_OPTIONS = ("draw", "change", "steady", "unjam", "ammo")


class CybergenerationRuleset(TurnsMixin, CybergenerationGM, AsksMixin, ChoicesMixin, TimingMixin, CombatMixin,
                             MeleeMixin, OrdnanceMixin, DamageMixin, GrappleMixin, GearMixin, CareMixin, ViewsMixin,
                             Ruleset):
    """Cybergeneration (Interlock) with the seed 004 house rules."""

    name = "cybergeneration"
    description = ("Cybergeneration house rules (seed 004, Interlock family): d10 + stat + skill, "
                   "one move and one action")
    default_cell_m = 1.5
    #: the economy's rows (name, meaning, scaling, range; economy_table.py), `economy()`'s names in order
    economy_table = ECONOMY
    economy_features = feature_names(ECONOMY)

    # defined here, not only in ChoicesMixin, so that `Ruleset.__init_subclass__` puts the open
    # question's answers in front of them (rules/ruleset.py `_asks_first`, rules/choices.py)
    def __init__(self, data_path: Path = DATA) -> None:
        self.data = load_data(data_path)
        self.version = int(self.data.get("version", 1))
        self.table = DamageTable(self.data["dc_table"])
        self.weapons: dict[str, Weapon] = build_weapons(self.data["weapons"], self.table)
        self.armours: dict[str, Armour] = build_armour(self.data["armour"])
        self.items = dict(self.data.get("items") or {})
        self.bestiary = self.data["bestiary"]
        self.bands = [(int(b["max"]), int(b["mod"])) for b in self.data["body_bands"]]
        self.cover_table = {int(k): int(v) for k, v in self.data["cover_bonus"].items()}
        self.ranges = {k: [(float(b["upto"]), int(b["difficulty"])) for b in v]
                       for k, v in self.data["range_classes"].items()}
        self.pb = int(self.data["point_blank_difficulty"])
        self.mod = {k: int(v) for k, v in self.data["modifiers"].items()}
        self.chk = {k: int(v) for k, v in self.data["checks"].items()}
        self.mv = self.data["movement"]
        self.diff = dict(self.data["difficulty"])
        self.mishap_table = {int(k): v for k, v in self.data["criticals"]["mishap"].items()}
        self.stop_all_sp = int(self.data["stop_all_sp"])
        g = self.weapons["genius_gun"]
        blasts = tuple(f"blast:{n}" for n in range(int(g.x("blast_min", 3)), int(g.x("blast_max", 7)) + 1))
        self.supported_actions = {
            "end_turn": (), "move": (),
            "attack": ("", "called:head", "called:gap", "full_auto", "stun", "knockdown", "disarm", "throw",
                       *blasts, "scribble"),
            "suppress": (),
            "grapple": ("", "hold", "squeeze", "break", "escape"),
            "defend": ("dodge",),
            "aim": (),
            "ready": READY_OPTIONS,
            "reload": (),
            "stand": (), "drop_prone": (),
            "delay": ("", "end_of_round", *TRIGGERS),
            "use": ("two_actions",),
            "first_aid": ("", "wake"),
            "pick_up": (),
        }
        self._actions: dict[tuple, Action] = {}
        self._units_cache: dict[tuple, tuple[int, int]] = {}
        self.skill_names = skill_names(self.data)  # what a figure's `skills:` may name

    # -- building -------------------------------------------------------------------
    def templates(self) -> list[str]:
        return sorted(self.bestiary)

    def validate_object(self, item: str) -> bool:
        return item in self.weapons or item in self.items

    def build_combatant(self, spec: Mapping[str, Any], *, id: str, team: str, pos: int, order: int,
                        source: str | None, field: str) -> Combatant:
        st = build_stat_block(spec, self.bestiary, self.weapons, self.armours, self.items, source, field,
                              self.table, tuple(self.ranges), skills=self.skill_names)
        ammo = {w.name: w.magazine for w in st["weapons"].values() if w.magazine}
        res: dict[str, Any] = {
            "stun": 0, "wound": st["damage"], "stun_mod": st["stun_modifier"], "ammo": ammo,
            "drawn": st["drawn"], "jammed": [], "broken": [], "lost": [], "gained": [], "items": list(st["items"]),
            "ammo_ready": [], "dodge": 0, "aim_round": -1, "grapple": [], "hold": None, "held_by": None,
            "trigger": None, "resume": None, "delays": 0, "zone": None, "suppressed_by": [],
            "dying_round": 0, "stable": False, "aid_bonus": 0, "woke_round": -1, "turn_round": -1,
            "recovered_round": -1, "upkeep_round": -1, "inline": {},
        }
        c = Combatant(id=id, name=st["name"], team=team, template=st["template"], pos=pos, stats=st,
                      weapons=st["weapons"], armour=st["armour"], traits=st["types"], res=res, order=order)
        if st["prone"]:
            c.conditions.add("prone")
        apply_start(self, c)
        return c

    def setup(self, state: BattleState, dice: Dice) -> list[Event]:
        """Days of rest before the fight (`rest_days`), starting grapples, and who starts down."""
        check_links(self, state)
        self.check_drop_cells(state)
        evs: list[Event] = []
        for c in state.combatants:
            if c.stats.get("rest_days"):
                evs += self.heal_days(c, c.stats["rest_days"])
        for c in state.combatants:
            if c.down:
                evs.append(event("down", target=c.id, reason="starts the fight " + ("dead" if c.dead else "down")))
        return evs

    # -- small helpers ----------------------------------------------------------------
    def action(self, kind: str, target: str | None = None, cell: int | None = None, weapon: str | None = None,
               option: str | None = None) -> Action:
        key = (kind, target, cell, weapon, option)
        a = self._actions.get(key)
        if a is None:
            a = self._actions[key] = Action(kind, target, cell, weapon, option)
        return a

    def is_type(self, c: Combatant, t: str) -> bool:
        return t in c.stats["types"]

    def is_kid(self, c: Combatant) -> bool:
        return c.stats["kind"] == "kid"

    def remaining(self, c: Combatant) -> int:
        """Wounds left: BODY less the Wounds taken (assumption starting_wounds)."""
        return c.stats["stats"]["body"] - c.res["wound"]

    def stat(self, c: Combatant, name: str) -> int:
        """A stat now: INT, REF and MA halve at 2 Wounds or less; REF loses armour encumbrance."""
        v = c.stats["stats"][name]
        if name in ("int", "ref", "ma") and "impaired" in c.conditions:
            v //= 2
        if name == "ref":
            v -= self.encumbrance(c)
        return max(0, v)

    def encumbrance(self, c: Combatant) -> int:
        return sum(a.ev for a in c.armour)

    def skill(self, c: Combatant, name: str) -> int:
        return int(c.stats["skills"].get(name, 0))

    def body_mod(self, c: Combatant) -> int:
        """seed 004: the body-type modifier to the damage die (assumption body_bands)."""
        b = c.stats["stats"]["body"]
        for mx, m in self.bands:
            if b <= mx:
                return m
        return self.bands[-1][1]

    def in_grapple(self, c: Combatant) -> bool:
        return bool(c.res["grapple"])

    def partners(self, state: BattleState, c: Combatant) -> list[Combatant]:
        ids = set(c.res["grapple"])
        return [o for o in state.combatants if o.id in ids]

    # -- movement -------------------------------------------------------------------
    def units(self, state: BattleState, a: Combatant) -> tuple[int, int]:
        """(walk, run) allowances in half-cell units: MA (MA/2 prone) and 3 x MA (1.5 x MA prone)."""
        ma = self.stat(a, "ma")
        prone = "prone" in a.conditions
        key = (state.grid.cell_m, ma, prone)
        u = self._units_cache.get(key)
        if u is None:
            g = state.grid
            if prone:
                walk = g.budget_units(ma * float(self.mv["crawl_factor"]))
                run = g.budget_units(ma * float(self.mv["crawl_run_factor"]))
            else:
                walk = g.budget_units(float(ma))
                run = g.budget_units(ma * float(self.mv["run_factor"]))
            u = self._units_cache[key] = (walk, run)
        return u

    def move_cap(self, state: BattleState, a: Combatant) -> int:
        """Half-cell units the figure may still move this turn."""
        e = state.economy
        if (e["two"] or e["move"] == "used" or a.down or self.in_grapple(a) or a.res["held_by"] is not None):
            return 0
        walk, run = self.units(state, a)
        if e["ran"] or (e["actions"] == 0 and not e["woke"]):
            cap = run
        else:
            cap = walk
        return max(0, cap - e["move_units"])

    def move_options(self, state: BattleState, a: Combatant) -> dict[int, int]:
        found = self.reach_now(state, a)
        if found is None:
            return {}
        # nobody ends on a standing figure or on a fallen one who may get up (assumption fallen_cells)
        res = dict(found[0])  # every cost in reach is within budget
        for c in found[1]:
            res.pop(c, None)
        return res

    def reach_now(self, state: BattleState, a: Combatant, budget: int | None = None
                  ) -> tuple[dict[int, int], set[int]] | None:
        """(the cells in reach -> cost, shared: do not change it; the cells no move may end on)
        of `move_options`, None where it is empty for want of budget: `move_options` is the
        first without the second, and a caller that needs one cell or the sorted cells reads
        them off without building that dict (`views.move_cost`). `budget`: `move_cap`'s, when
        the caller has it."""
        if budget is None:
            budget = self.move_cap(state, a)
        if budget <= 0:
            return None
        blockers: list[int] = []   # standing enemies
        ends: set[int] = set()      # figures not dead (a dead figure is down: one walk gives both)
        for c in state.combatants:
            if "dead" not in c.conditions:
                ends.add(c.pos)
                if c.team != a.team and DOWN_CONDITIONS.isdisjoint(c.conditions):
                    blockers.append(c.pos)
        if state.settings.get("drops"):
            reach = self.with_drops(state, a, budget, blockers, self.drop_cells(state))
        else:
            reach = state.grid.reachable(a.pos, budget, blockers)
        if state.economy.get("suppress") == "fail" and a is state.actor:
            ends = ends | self.open_to_suppressors(state, a, reach)
        return reach, ends

    def open_to_suppressors(self, state: BattleState, a: Combatant, cells) -> set[int]:
        """seed 004, Suppression: "The suppressed targets must make a COOL + fearless leader roll to
        take any action other than getting into cover" (assumption suppression_check): of `cells`,
        those a pinned figure may not move to, in sight of a figure suppressing it and not behind
        cover against it."""
        g = state.grid
        shooters = [state.by_id[s].pos for s in a.res["suppressed_by"] if not state.by_id[s].down]
        return {c for c in cells if any(g.los(p, c) and g.cover(c, p) == 0 for p in shooters)}

    # -- applying -------------------------------------------------------------------
    def apply(self, state: BattleState, action: Action, dice: Dice) -> list[Event]:
        a = state.actor
        k = action.kind
        if k == "move":
            return self.do_move(state, a, action.cell, dice)
        evs = self.fire_triggers(state, a, action, dice)
        if a.down or state.over or not self.still_possible(state, a, action):
            self.spend_for(state, a, action)
            return evs
        if k in ANOTHER_ACTION and self.in_grapple(a):
            return evs + self.another_action(state, a, action, dice)
        return evs + self.resolve(state, a, action, dice)

    def resolve(self, state: BattleState, a: Combatant, action: Action, dice: Dice) -> list[Event]:
        k = action.kind
        e = state.economy
        A = action
        if k in ("attack", "suppress", "grapple"):
            return self.attack_like(state, a, A, dice)
        if k == "defend":
            ok, evs = self.take_action(state, a, dice, "dodge")
            if not ok:
                return evs
            quick = self.stat(a, "ref") >= self.mod["dodge_ref_threshold"]
            bonus = self.mod["dodge_ref10"] if quick else self.mod["dodge"]
            a.res["dodge"] = bonus
            a.conditions.add("dodging")
            return evs + [event("stance", actor=a.id, stance="dodge", bonus=bonus)]
        if k == "aim":
            e["actions"] = e["max_actions"]
            a.res["aim_round"] = state.round + 1
            a.conditions.add("aiming")
            return [event("stance", actor=a.id, stance="aim", bonus=self.mod["aim"]),
                    event("condition", target=a.id, condition="aiming", on=True)]
        if k == "ready":
            return self.ready(state, a, A, dice)
        if k == "reload":
            return self.reload(state, a, A, dice)
        if k == "stand":
            e["move"] = "used"
            a.conditions.discard("prone")
            evs = [event("condition", target=a.id, condition="prone", on=False)]
            if "knocked" in a.conditions:
                a.conditions.discard("knocked")
                evs.append(event("condition", target=a.id, condition="knocked", on=False))
            return evs
        if k == "drop_prone":
            a.conditions.add("prone")
            return [event("condition", target=a.id, condition="prone", on=True)]
        if k == "delay":
            return self.delay(state, a, A.option or "")
        if k == "use":
            e["two"] = True
            e["max_actions"] = 2
            e["move"] = "used"
            return [event("effect", target=a.id, effect="takes two actions this round, each skill roll at "
                          f"{self.mod['two_actions']}, and no move")]
        if k == "first_aid":
            return self.first_aid(state, a, state.by_id[A.target], A.option or "", dice)
        if k == "pick_up":
            return self.pick_up(state, a, A)
        raise IllegalActionError(f"cybergeneration cannot apply {A}", field="action")  # pragma: no cover

    def do_move(self, state: BattleState, a: Combatant, cell: int, dice: Dice) -> list[Event]:
        """seed 004: MA metres (crawling MA/2); moving further (up to 3 x MA) spends the action."""
        e = state.economy
        cost = self.move_cost(state, a, cell)
        if cost is None:
            raise KeyError(cell)  # not a move option (as `move_options(state, a)[cell]` says)
        walk, run = self.units(state, a)
        frm = a.pos
        g = state.grid
        total = e["move_units"] + cost
        before, after_ok = self.move_trigger_plan(state, a, frm, cell)
        evs: list[Event] = []
        if before:
            evs += self.fire_move_triggers(state, a, before, dice)
            if a.down or state.over:
                e["move"] = "used"
                return evs
        ran = total > walk
        if ran and not e["ran"]:
            e["ran"] = True
            e["actions"] = e["max_actions"]
        e["move"] = "walk"
        e["move_units"] = total
        prone = "prone" in a.conditions
        a.pos = cell
        evs.append(event("move", actor=a.id, **{"from": list(g.xy(frm))}, to=list(g.xy(cell)),
                         metres=round(g.units_to_m(cost), 3), mode="crawl" if prone else ("run" if ran else "walk")))
        if state.settings.get("drops"):
            evs += self.fall_into(state, a, frm, cell, dice)
        evs += self.suppression_line(state, a, frm, cell, cost, dice)
        if after_ok and not a.down and not state.over:
            evs += self.fire_move_triggers(state, a, after_ok, dice)
        return evs

    # -- views ----------------------------------------------------------------------
    def health(self, c: Combatant) -> tuple[float, float]:
        """(Wounds left, at least 0; BODY): starting Wounds equal BODY (assumption starting_wounds)."""
        body = c.stats["stats"]["body"]
        return float(max(0, body - c.res["wound"])), float(body)

    def tracked(self, state: BattleState, c: Combatant) -> dict[str, Any]:
        """Everything the rules track for `c` beyond position and team, as JSON (`tracked.py`)."""
        from rules.systems.cybergeneration.tracked import tracked
        return tracked(self, state, c)

    def attack_odds(self, state: BattleState, actor: Combatant, action: Action) -> dict[str, float] | None:
        from rules.systems.cybergeneration.odds import attack_odds
        return attack_odds(self, state, actor, action)

    def best_expected_damage(self, state: BattleState, actor: Combatant, victims: Iterable[str]
                             ) -> dict[str, float] | None:
        return best_expected_damage(self, state, actor, victims)  # threat.py

    #: a profile holds for one round: a turn started in another may aim or wake (turns.py `start_turn`)
    threat_profile_by_round = True

    def threat_profile(self, state: BattleState, attacker: Combatant):
        return threat_profile(self, state, attacker)  # threat.py

    def start_turn_rolls(self, state: BattleState, actor: Combatant) -> bool:
        return start_turn_rolls(state, actor)  # threat.py

    def attack_odds_many(self, state: BattleState, actor: Combatant, actions: list[Action]
                         ) -> list[dict[str, float] | None]:
        from rules.systems.cybergeneration.odds import attack_odds
        shared: dict = {}
        return [attack_odds(self, state, actor, a, shared) for a in actions]


def heal_days(ruleset: CybergenerationRuleset, c: Combatant, days: int) -> list[Event]:
    """seed 004: the cyber-evolved heal 2 Wounds a day without medical attention (a rules-API call)."""
    return ruleset.heal_days(c, days)


def falling_damage(ruleset: CybergenerationRuleset, state: BattleState, c: Combatant, metres: float,
                   dice: Dice) -> list[Event]:
    """seed 004: falling does DC 3 for 3 m and 1 DC more per further 3 m (a rules-API call)."""
    return ruleset.fall(state, c, metres, dice)


__all__ = ["CybergenerationRuleset", "heal_days", "falling_damage"]
