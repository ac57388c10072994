"""The `metalface` ruleset: seed 003, the combat chapter of METALFACE: RPG (1999).

Rules and where they come from (seed 003 headings; the dice from RULES-NOTES.md):
- the roll: d6 keep-the-highest + skill levels against a Difficulty or an opposed roll
  (`model.py`);
- Combat Rounds and turn order: highest AGL first, the first figure chooses to act first
  or later (`delay`); two half turns per turn (Combat Actions table) - this module;
- Move (walk AGL m half turn, run 2 x AGL m full turn, turning 1 m per 90 degrees,
  posture steps 1 m), Ready Weapons, Activate Device - this module (what is legal when:
  `listing.py`);
- Body Attacks, Ranged Weapon Attacks, Targeting, Damage, Status Levels - `combat.py`;
- Repairing / Healing - `repair.py`.

Action kinds used (rules/actions.py): move, attack, reload (load/reload a clip or
projectile weapon: Ready Weapon; charge a beam weapon: Activate Device), ready (unjam,
unpack/install: Ready Weapon), turn (left/right/about or a compass facing), posture
(stand/kneel/sit/lie), heal (an ally next to the figure: full turn; afterwards only instant
actions, as after a run), use (shield: Activate Device; heal_self: treat oneself, full turn),
delay (the turn-order choice), end_turn.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

from rules.actions import Action
from rules.dice import Dice
from rules.events import Event, event
from rules.features import feature_names
from rules.systems.metalface.economy_table import ECONOMY
from rules.ruleset import Ruleset
from rules.state import BattleState, Combatant
from rules.systems.metalface.choices import ChoicesMixin
from rules.systems.metalface.combat import CombatMixin, roll_call, roll_event
from rules.systems.metalface.geometry import NAMES, VECTORS, WORDS, turn_steps
from rules.systems.metalface.listing import ListingMixin
from rules.systems.metalface.moving import move_path
from rules.systems.metalface.odds import OddsMixin
from rules.systems.metalface.paths import walked_m
from rules.systems.metalface.model import Weapon, build_stat_block, build_weapons, load_data, roll_value
from rules.systems.metalface.repair import RepairMixin
from rules.systems.metalface.start import apply_start
from rules.systems.metalface.tracked import TrackedMixin
from rules.systems.metalface.tracks import MetalfaceGM, face_nearest_foe
from rules.systems.metalface.views import MovePriceMixin, UnitNumbersMixin

DATA = Path(__file__).with_name("data.yaml")
EPS = 1e-6
TURN_OPTIONS = ("left", "right", "about") + NAMES
MOVED_CODE = {"stationary": 0.0, "walking": 1.0, "running": 2.0, "flying": 3.0}
LEVEL_CODE = {"perfect": 0.0, "weakening": 1.0, "suffering": 2.0, "critical": 3.0, "non_responsive": 4.0}
SHIELD_CODE = {"off": 0.0, "pending": 0.5, "on": 1.0}


class MetalfaceRuleset(ListingMixin, MetalfaceGM, OddsMixin, MovePriceMixin, UnitNumbersMixin, ChoicesMixin,
                       CombatMixin, RepairMixin, TrackedMixin, Ruleset):
    """METALFACE: RPG combat (seed 003) with the d6 keep-the-highest roll."""

    name = "metalface"
    description = ("METALFACE: RPG combat chapter (seed 003): d6 keep-the-highest, two half turns, "
                   "facing and posture, charged/clip/projectile weapons, Status levels, repairs")
    default_cell_m = 1.0
    #: the economy's rows (name, meaning, scaling, range; economy_table.py), `economy()`'s names in order
    economy_table = ECONOMY
    economy_features = feature_names(ECONOMY)

    def __init__(self, data_path: Path = DATA) -> None:
        d = self.data = load_data(data_path)
        self.version = int(d.get("version", 1))
        self.weapons = build_weapons(d["weapons"])
        self.bestiary = d["bestiary"]
        self.diff = {k: int(v) for k, v in d["difficulty"].items()}
        self.target_difficulty = self.diff[d["targeting_difficulty"]]
        self.body_values = frozenset(d["body_values"])
        self.levels = list(d["status_levels"])
        mods: dict[str, tuple[int, int]] = {lv["name"]: (int(lv["body"]), int(lv["mind"])) for lv in self.levels}
        mods["non_responsive"] = mods[self.levels[-1]["name"]]
        self.level_mods = mods
        self.recover_at = float(d["recover_at"])
        self.ranged_min_damage = int(d["ranged_min_damage"])
        self.min_fire_m = float(d["min_fire_m"])
        self.bands = list(d["range_bands"])
        self.out_of_range_mod = int(d["out_of_range_mod"])
        self.movement_mods = {k: int(v) for k, v in d["movement_mods"].items()}
        if tuple(d["facings"]) != NAMES:
            raise ValueError("data.yaml facings must be the 8 compass directions from north, clockwise")
        self.turn_m_per_45 = float(d["turn_m_per_90"]) / 2
        self.postures = tuple(d["postures"])
        self.posture_m = float(d["posture_m_per_step"])
        self.quick_biotech = int(d["quick_install_biotech"])
        rep = d["repair"]
        self.repair_rates = {"tekker": 60 * int(rep["tekker_per_level_per_minute"]),
                             "kit": 60 * int(rep["kit_per_level_per_minute"]),
                             "no_kit": 12 * int(rep["no_kit_per_level_per_5_minutes"])}
        self.turn_seconds = int(d["turn_seconds"])
        self.items = dict(d["items"])
        self.cover_table = {0: "none", 1: "partial: one die fewer", 2: "partial: one die fewer",
                            3: "partial: one die fewer", 4: "full: cannot be fired at"}
        self.supported_actions = {
            "end_turn": (), "move": (), "attack": (), "reload": (), "ready": (),
            "turn": TURN_OPTIONS, "posture": self.postures, "heal": (),
            "use": ("shield", "heal_self"), "delay": (),
        }
        self._actions: dict[tuple, Action] = {}
        # (facing, option, new facing, metres) for every turn option that changes the facing
        self._turns = tuple(tuple((o, nf, turn_steps(f, nf) * self.turn_m_per_45, Action("turn", option=o))
                                  for o in TURN_OPTIONS for nf in (self.turn_facing(f, o),) if nf != f)
                            for f in range(8))
        # per facing, the actions of `_turns` (all of them: what a figure with `_turn_most` metres left may turn)
        self._turn_actions = tuple(tuple(t[3] for t in ts) for ts in self._turns)
        self._turn_most = max(t[2] for ts in self._turns for t in ts)
        # posture -> (metres, action) of each step to another posture, in `postures` order
        self._posture_steps = {p: tuple((abs(i - pi) * self.posture_m, self.action("posture", option=q))
                                        for i, q in enumerate(self.postures) if i != pi)
                               for pi, p in enumerate(self.postures)}

    # -- building -------------------------------------------------------------------
    def templates(self) -> list[str]:
        return sorted(self.bestiary)

    def validate_object(self, item: str) -> bool:
        return item in self.weapons or item in self.items

    def build_combatant(self, spec: Mapping[str, Any], *, id: str, team: str, pos: int, order: int,
                        source: str | None, field: str) -> Combatant:
        st = build_stat_block(spec, self.data, self.weapons, source, field)
        ws: dict[str, Weapon] = st["weapons"]
        ammo = {n: (0 if n in st["empty"] else w.capacity) for n, w in ws.items() if w.ranged}
        spare = {n: w.spare for n, w in ws.items() if w.ranged}
        packed = {n for n, w in ws.items() if w.ranged and (w.packed or n in st["packed"])}
        defs = st["item_defs"]
        uses = {it: int(defs[it].get("uses", 0)) for it in st["items"] if defs[it]["kind"] == "device"}
        facing = st["facing"]
        res = {"damage": st["damage"], "ammo": ammo, "spare": spare, "jammed": set(st["jammed"]),
               "packed": packed, "charging": set(), "facing": NAMES.index(facing) if facing else 0,
               "auto_facing": facing is None, "posture": st["posture"], "moved": "stationary", "chooser": 0,
               "shield": "off", "uses": uses, "repair_acc": 0, "level": "perfect"}
        c = Combatant(id=id, name=st["name"], team=team, template=st["template"], pos=pos, stats=st,
                      weapons=ws, armour=st["armour_name"], res=res, order=order)
        if st["posture"] == "lie":
            c.conditions.add("prone")
        apply_start(self, c, spec, source, field)
        self.sync_level(c)
        return c

    def setup(self, state: BattleState, dice: Dice) -> list[Event]:
        """Figures without a `facing` face the nearest enemy (assumption facings)."""
        for c in state.combatants:
            face_nearest_foe(state, c)
        return []

    # -- values ---------------------------------------------------------------------
    def val(self, c: Combatant, v: str) -> int:
        """A value with the status-level modifier (assumption modified_values)."""
        body, mind = self.level_mods[c.res["level"]]
        return c.stats["values"][v] + (body if v in self.body_values else mind)

    def walk_m(self, c: Combatant) -> float:
        """seed 003, Combat Actions: walk AGL metres (at least 1 m)."""
        return float(max(1, self.val(c, "agl")))

    def turn_cost(self, f1: int, f2: int) -> float:
        return turn_steps(f1, f2) * self.turn_m_per_45

    def health(self, c: Combatant) -> tuple[float, float]:
        mx = c.stats["status"]
        return float(max(0, mx - c.res["damage"])), float(mx)

    def action(self, kind: str, target: str | None = None, cell: int | None = None, weapon: str | None = None,
               option: str | None = None) -> Action:
        key = (kind, target, cell, weapon, option)
        a = self._actions.get(key)
        if a is None:
            a = self._actions[key] = Action(kind, target, cell, weapon, option)
        return a

    # -- the half-turn economy ---------------------------------------------------------
    def move_halves(self, c: Combatant, metres: float) -> int:
        """Halves taken by `metres` of movement: 0, 1 (walk) or 2 (run)."""
        if metres <= EPS:
            return 0
        return 1 if metres <= self.walk_m(c) + EPS else 2

    def halves_used(self, c: Combatant, e: Mapping[str, Any], extra_move: float = 0.0) -> int:
        return int(e["halves"]) + self.move_halves(c, e["move_m"] + extra_move)

    def can_spend_half(self, c: Combatant, e: Mapping[str, Any], extra_move: float = 0.0) -> bool:
        return self.halves_used(c, e, extra_move) + 1 <= 2

    def move_allowance(self, c: Combatant, e: Mapping[str, Any]) -> float:
        """Metres of movement the turn allows in all: 2 x AGL with no other half spent, AGL with one."""
        h = int(e["halves"])
        return 0.0 if h >= 2 else self.walk_m(c) * (2 - h)

    def move_left(self, c: Combatant, e: Mapping[str, Any]) -> float:
        return max(0.0, self.move_allowance(c, e) - e["move_m"])

    def moved_status(self, c: Combatant, metres: float, flew: bool) -> str:
        """assumption movement_status."""
        if flew:
            return "flying"
        if metres <= EPS:
            return "stationary"
        return "walking" if metres <= self.walk_m(c) + EPS else "running"

    def _spend_move(self, state: BattleState, a: Combatant, metres: float) -> None:
        e = state.economy
        e["move_m"] = round(e["move_m"] + metres, 6)
        e["acted"] = True
        a.res["moved"] = self.moved_status(a, e["move_m"], e["flew"])

    # -- turn structure -------------------------------------------------------------
    def roll_initiative(self, state: BattleState, dice: Dice) -> tuple[list[str], list[Event]]:
        """assumptions initiative / turn_order_choice."""
        evs: list[Event] = []
        if state.settings.get("initiative") == "fixed":
            order = [c.id for c in state.combatants]
            mode = "fixed"
        else:
            up = [c for c in state.combatants if not c.down]
            agl = {c.id: self.val(c, "agl") for c in up}
            tie: dict[str, int] = {}
            for v in sorted(set(agl.values()), reverse=True):
                group = [c for c in up if agl[c.id] == v]
                if len(group) < 2:
                    continue
                for c in group:
                    faces, kept, total = roll_value(dice, v, 0, "initiative tie",
                                                    roll_call(c.id, "initiative tie", "initiative", f"AGL {v}", v, [],
                                                              self.level_dice(c, "agl"), "initiative tie"))
                    tie[c.id] = total
                    evs.append(roll_event(c.id, "initiative tie", "initiative", f"AGL {v}", v, faces, kept, total,
                                          [], self.level_dice(c, "agl")))
            up.sort(key=lambda c: (-agl[c.id], -tie.get(c.id, 0), c.order))
            order = [c.id for c in up] + [c.id for c in state.combatants if c.down]
            mode = "agility"
        chooser = next((i for i in order if not state.by_id[i].down), None)
        if chooser is not None:
            state.by_id[chooser].res["chooser"] = state.round
        evs.append(event("initiative", round=state.round, order=list(order), mode=mode, chooser=chooser))
        return order, evs

    def _fresh(self, state: BattleState) -> None:
        state.economy = {"halves": 0, "move_m": 0.0, "flew": False, "activated": False, "acted": False,
                         "turn_over": False}

    def start_turn_touches(self, state: BattleState, actor: Combatant) -> set[str]:
        """start_turn: movement status, charged weapons, shield: the actor's own."""
        return {actor.id}

    def start_turn(self, state: BattleState, actor: Combatant, dice: Dice) -> tuple[bool, list[Event]]:
        """A fresh turn: movement status resets; activations of the last turn take effect. A turn
        taken up again after choosing to act later (assumption turn_order_choice; the figure is then
        in the round's order twice) is the same turn: the economy is fresh, but charging and the
        shield changed when it first started (assumption shield_device: up until the start of the
        turn after the next)."""
        self._fresh(state)
        r = actor.res
        r["moved"] = "stationary"
        evs: list[Event] = []
        if actor.id in state.order[:max(0, state.turn_index)]:   # its turn again: it chose to act later
            return not actor.down, evs
        if r["charging"]:
            for n, w in actor.weapons.items():
                if n in r["charging"]:
                    r["ammo"][n] = w.capacity
                    evs.append(event("effect", target=actor.id, effect=f"the {n} is charged ({w.capacity} shots)",
                                     weapon=n, charged=True, ammo=w.capacity))
            r["charging"] = set()
        if r["shield"] == "on":
            r["shield"] = "off"
            evs.append(event("effect", target=actor.id, effect="the shield runs out"))
        elif r["shield"] == "pending":
            r["shield"] = "on"
            evs.append(event("effect", target=actor.id, effect="the shield is up (partial cover against fire)"))
        return not actor.down, evs

    # -- applying -------------------------------------------------------------------
    def apply(self, state: BattleState, action: Action, dice: Dice) -> list[Event]:
        a = state.actor
        k = action.kind
        e = state.economy
        if k == "move":
            return self._move(state, a, action.cell)
        if k == "attack":
            return self.attack(state, a, state.by_id[action.target], a.weapons[action.weapon], dice)
        if k == "reload":
            return self._reload(state, a, a.weapons[action.weapon])
        if k == "ready":
            return self._ready(state, a, a.weapons[action.weapon])
        if k == "turn":
            nf = self.turn_facing(a.res["facing"], action.option)
            return self.turn_to(state, a, nf, self.turn_cost(a.res["facing"], nf))
        if k == "posture":
            return self._posture(state, a, action.option)
        if k == "heal":
            return self._treat(state, a, state.by_id[action.target])
        if k == "use" and action.option == "heal_self":
            return self._treat(state, a, a)
        if k == "use" and action.option == "shield":
            e["activated"] = True
            e["acted"] = True
            dev = self.shield_device(a)
            a.res["uses"][dev] -= 1
            a.res["shield"] = "pending"
            return [event("effect", target=a.id, effect=f"activates the {dev} (up from its next turn)",
                          device=dev, uses_left=a.res["uses"][dev])]
        if k == "delay":
            j = self._next_up(state)
            nxt = state.order[j]
            state.order.insert(j + 1, a.id)
            e["acted"] = True
            e["turn_over"] = True
            return [event("effect", target=a.id, effect=f"chooses to act later, after {nxt}", after=nxt)]
        raise ValueError(f"unsupported action {action}")  # pragma: no cover - check_legal stops it

    def _move(self, state: BattleState, a: Combatant, cell: int) -> list[Event]:
        """seed 003, Move: along a cheapest path, every turn on it paid (assumption path_turns);
        the figure ends facing its last step."""
        e = state.economy
        g = state.grid
        path, m, b, evs = move_path(self, state, a, cell)
        frm = a.pos
        a.res["facing"] = b
        a.pos = cell
        if a.stats["flies"]:
            e["flew"] = True
        self._spend_move(state, a, m)
        mode = "hover" if a.stats["flies"] else ("run" if e["move_m"] > self.walk_m(a) + EPS else "walk")
        return evs + [event("move", actor=a.id, **{"from": list(g.xy(frm))}, to=list(g.xy(cell)), metres=round(m, 3),
                            mode=mode, facing=NAMES[b], moved=a.res["moved"], move_m=e["move_m"],
                            path=[list(g.xy(p)) for p in path], turn_m=round(m - walked_m(g, path), 3))]

    def turn_to(self, state: BattleState, a: Combatant, facing: int, metres: float, why: str = "") -> list[Event]:
        """seed 003, Move: turning counts as 1 m of movement per 90 degrees."""
        a.res["facing"] = facing
        self._spend_move(state, a, metres)
        return [event("effect", target=a.id, effect=f"turns {WORDS[facing]}{' ' + why if why else ''}",
                      facing=NAMES[facing], metres=metres, moved=a.res["moved"])]

    def _posture(self, state: BattleState, a: Combatant, posture: str) -> list[Event]:
        """seed 003, Move: each step between standing, kneeling, sitting and lying is 1 m."""
        steps = abs(self.postures.index(posture) - self.postures.index(a.res["posture"]))
        m = steps * self.posture_m
        a.res["posture"] = posture
        self._spend_move(state, a, m)
        evs = [event("stance", actor=a.id, stance=posture, metres=m, moved=a.res["moved"])]
        if posture == "lie" and "prone" not in a.conditions:
            a.conditions.add("prone")
            evs.append(event("condition", target=a.id, condition="prone", on=True))
        elif posture != "lie" and "prone" in a.conditions:
            a.conditions.discard("prone")
            evs.append(event("condition", target=a.id, condition="prone", on=False))
        return evs

    def _reload(self, state: BattleState, a: Combatant, w: Weapon) -> list[Event]:
        """Ready Weapon for clip and projectile weapons (a half turn); Activate Device for a
        beam weapon (instant, one power cell, charged at the start of the next turn)."""
        e = state.economy
        r = a.res
        e["acted"] = True
        if w.kind == "beam":
            r["spare"][w.name] -= 1
            e["activated"] = True
            r["charging"].add(w.name)
            return [event("reload", actor=a.id, weapon=w.name, charging=True, cells_left=r["spare"][w.name])]
        e["halves"] += 1
        if w.kind == "clip":
            r["spare"][w.name] -= 1
            r["ammo"][w.name] = w.capacity
            return [event("reload", actor=a.id, weapon=w.name, ammo=w.capacity, clips_left=r["spare"][w.name])]
        n = min(w.capacity - r["ammo"][w.name], r["spare"][w.name])
        r["spare"][w.name] -= n
        r["ammo"][w.name] += n
        return [event("reload", actor=a.id, weapon=w.name, ammo=r["ammo"][w.name], rounds_left=r["spare"][w.name])]

    def _ready(self, state: BattleState, a: Combatant, w: Weapon) -> list[Event]:
        e = state.economy
        r = a.res
        e["acted"] = True
        if w.name in r["jammed"]:
            e["halves"] += 1
            r["jammed"].discard(w.name)
            return [event("effect", target=a.id, effect=f"unjams the {w.name}", weapon=w.name)]
        quick = self.quick_installer(a)
        if not quick:
            e["halves"] += 1
        r["packed"].discard(w.name)
        return [event("effect", target=a.id, effect=f"unpacks the {w.name}{' quickly (biotech)' if quick else ''}",
                      weapon=w.name, quick=quick)]

    def _treat(self, state: BattleState, a: Combatant, patient: Combatant) -> list[Event]:
        """seed 003, Combat Actions: "Heal/Repair | Use skill and/or kit | Full Turn". Both halves
        are spent; as after a run (also a Full Turn) the figure may still take what needs no half
        turn - "Activate Device | ... | Instant", once a turn, and a quick install - and its turn
        ends at once when nothing of that is left (assumption full_turn_instant)."""
        e = state.economy
        e["halves"] = 2
        e["acted"] = True
        how, evs = self.choose_method(state, a, patient)
        evs += self.restore(a, patient, self.turn_seconds, how)[1]
        # the listing with both halves spent: end_turn and the instant actions only
        e["turn_over"] = len(self.legal_actions(state)) <= 1
        return evs

    # -- views ----------------------------------------------------------------------
    def main_ranged(self, c: Combatant) -> Weapon | None:
        return next((w for w in c.weapons.values() if w.ranged), None)

    def economy(self, state: BattleState) -> dict[str, float]:
        a = state.actor
        e = state.economy
        if a is None or not e:
            return {k: 0.0 for k in self.economy_features}
        walk = self.walk_m(a)
        used = self.halves_used(a, e)
        f = a.res["facing"]
        w = self.main_ranged(a)
        r = a.res
        mx = a.stats["status"]
        best_rate = max((self.repair_per_turn(a, t) for t in state.combatants
                         if t.team == a.team and t.res["damage"] > 0), default=0.0)
        return {
            "half_turns_used": float(used),
            "half_turns_left": float(max(0, 2 - used)),
            "actions_left": float(max(0, 2 - used)),
            "move_m_used": float(e["move_m"]),
            "move_m_left": float(self.move_left(a, e)),
            "walk_m": walk,
            "run_m": 2 * walk,
            "can_run": float(e["halves"] == 0 and r["posture"] == "stand"),
            "ran": float(self.move_halves(a, e["move_m"]) == 2),
            "facing": float(f),
            "facing_x": VECTORS[f][0],
            "facing_y": VECTORS[f][1],
            "posture": float(self.postures.index(r["posture"])),
            "standing": float(r["posture"] == "stand"),
            "moved_this_round": MOVED_CODE[r["moved"]],
            "flying": float(bool(a.stats["flies"])),
            "device_used": float(e["activated"]),
            "can_delay": float(self.can_delay(state, a)),
            "charges": float(r["ammo"].get(w.name, 0)) if w else 0.0,
            "ammo_frac": self.ammo_frac(a),
            "spare": float(r["spare"].get(w.name, 0)) if w else 0.0,
            "jammed": float(bool(w and w.name in r["jammed"])),
            "packed": float(bool(w and w.name in r["packed"])),
            "charging": float(bool(w and w.name in r["charging"])),
            "shield": SHIELD_CODE[r["shield"]],
            "status_level": LEVEL_CODE[r["level"]],
            "status_frac": max(0, mx - r["damage"]) / mx,
            "heal_rate_turn": float(best_rate),
        }

    def reach_m(self, c: Combatant) -> float:
        """Longest attack reach now: a ready ranged weapon reaches long range (PER x 200 m);
        a body attack its reach plus half a metre (the diagonal squares)."""
        best = 0.0
        for w in c.weapons.values():
            if w.ranged:
                if self.weapon_ready(c, w):
                    best = max(best, max(1, self.val(c, "per")) * float(self.bands[-1]["per_x"]))
            else:
                best = max(best, w.reach_m + 0.5)
        return best

    def weapon_slots(self, c: Combatant) -> list[str]:
        return list(c.weapons)

    def ammo_frac(self, c: Combatant) -> float:
        w = self.main_ranged(c)
        if w is None or w.capacity <= 0:
            return 1.0
        return c.res["ammo"].get(w.name, 0) / w.capacity

    def describe(self, c: Combatant) -> str:
        hp, mx = self.health(c)
        cond = ",".join(sorted(c.conditions)) or "ok"
        return (f"{c.name} [{c.team}] {c.stats['kind']} Status {hp:g}/{mx:g} {c.res['level']} "
                f"facing {NAMES[c.res['facing']].upper()} {c.res['posture']} {cond}")


__all__ = ["MetalfaceRuleset"]
