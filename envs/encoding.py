"""Observation features and the flat action layout, derived from a ruleset's declarations.

Nothing here knows a rule: it reads `Ruleset.supported_actions`, `economy_features`,
`weapon_slots`, `reach_m`, `ammo_frac`, `health`, the map and the state, and turns them
into arrays (and back, for actions). One `Layout` serves a ruleset at a padded map size
and a number of unit slots, so one policy can play many maps.

Action layout (one flat `Discrete`), in order:

| block | size | meaning |
|---|---|---|
| end turn | 1 | end the acting figure's turn |
| move | H x W | move to cell (x, y) of the padded map: index 1 + y * W + x |
| enemy options | E x T_e | option t (kind, weapon slot, option) against enemy slot e |
| self options | T_s | options on oneself (defend, reload a weapon slot, prone, stand, use ..., pick up from the own or a next cell) |
| ally options | A x T_a | options towards ally slot a (first aid ...) |
| answers | N_ans | answers to a choice the rules give the acting figure (`Ruleset.answers`; rules/choices.py), only for rulesets that ask |

Observation (`spaces.Dict`):

Every channel, feature and economy field, with its meaning, scaling and range:
docs/observations.md (rendered from envs/features.py and each ruleset's `economy_table` by
`python -m envs.describe`).

- `grid` (C x H x W, 0..1): the channels of `GRID_CHANNELS`.
- `cover` (E x 2, 0..1): per enemy slot, the cover the enemy has against the acting
  figure and the cover the acting figure has against it (level / 4).
- `economy` (ECON_LEN): the ruleset's named action-economy numbers, padded with zeros;
  with the optional clock (`clock`), its last slot (`CLOCK_SLOT`) holds the rounds left
  before the round limit as a share of the limit (1 in the first round, 1/limit in the last).
- `units` (1 + A + E slots x `UNIT_FEATURES`): slot 0 is the acting figure, then allies,
  then enemies, in scenario order.
- `advice` (2 x n_actions, 0..1; only in an env made with `advice`): a scripted advisor's
  view of the same decision (envs/advice.py): row 0 marks its pick, row 1 its score of each
  action it ranked relative to its best.
- `advice_parts` (3 x n_actions, 0..1; only in an env made with `advice` and
  `advice_parts=True`): the parts of the advisor's score of each action it ranked
  (`ADVICE_PARTS`: hit odds, expected damage / target's health, exposure at the end cell).
- `to_act` (1 + A + E slots, 0..1; only in an env made with `turn_order=True`): per unit slot,
  1 while that figure comes after the acting one in the round's initiative order, or owns the
  turn while the acting one answers a question (it acts before the round ends if it stands then), so an enemy that will shoot before the actor's next turn
  is told from one that has shot already (`Layout.to_act`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable

import numpy as np

# the names of the grid channels, the unit features and the condition flags among them, in
# order: envs/features.py's tables, where each row says its meaning, scaling and range
from envs.features import CONDITION_FEATURES, GRID_CHANNELS, UNIT_FEATURES
from envs.observation import MapTables, map_tables, move_positions, unit_rows, write_grid
from rules.actions import END_TURN, KINDS, WEAPON_KINDS, Action, target_of
from rules.ruleset import Ruleset
from rules.state import BattleState, Combatant

#: economy slots (the ruleset's `economy_features`, zeros after them, the clock's last)
ECON_LEN = 32
#: the `economy` box's bounds: a ruleset's numbers are clipped to them
ECON_LOW, ECON_HIGH = -100.0, 100.0
#: condition name -> its column in a unit row
_CONDITION_COLUMN = {name: UNIT_FEATURES.index(name) for name in CONDITION_FEATURES}
#: the economy slot of the optional clock (rounds left / round limit); no ruleset may use it
CLOCK_SLOT = ECON_LEN - 1
#: rows of the optional `advice` observation (envs.advice): the advisor's pick, its scores
ADVICE_ROWS = 2
#: rows of the optional `advice_parts` observation (envs.advice): the parts of the advisor's scores
ADVICE_PARTS = ("hit", "damage", "exposure")
PARTS_ROWS = len(ADVICE_PARTS)
WEAPON_SLOTS = 4
#: the fingerprint's word for the optional `to_act` observation (`Layout.to_act`)
TO_ACT = ("to_act[slot] = 1 while the figure comes after the deciding one in this round's initiative order "
          "or owns the turn while another answers a question")
RING = ((0, 0), (0, -1), (1, -1), (1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1))

ENEMY_KINDS = tuple(k for k in KINDS if target_of(k) == "enemy")
ALLY_KINDS = tuple(k for k in KINDS if target_of(k) == "ally")
NON_SELF = ("end_turn",) + tuple(k for k in KINDS if target_of(k) != "self")


def _opt(o: str | None) -> str:
    return o or ""


@dataclass
class Layout:
    """The action layout and observation shapes for one ruleset, map size and slot counts."""

    ruleset: Ruleset
    height: int
    width: int
    n_enemy: int
    n_ally: int
    #: False: no answer block (a policy trained before its ruleset asked questions plays on;
    #: the figures' choices then take the policy's default answers, agents/base.py)
    with_answers: bool = True
    enemy_templates: list[tuple[str, int, str]] = field(default_factory=list)
    self_templates: list[tuple[str, int, str]] = field(default_factory=list)
    ally_templates: list[tuple[str, str]] = field(default_factory=list)

    def __post_init__(self) -> None:
        sa = self.ruleset.supported_actions
        for kind in ENEMY_KINDS:
            if kind not in sa:
                continue
            opts = sa[kind] or ("",)
            slots = range(WEAPON_SLOTS) if kind in WEAPON_KINDS else (-1,)
            for ws in slots:
                for o in opts:
                    self.enemy_templates.append((kind, ws, o))
        for kind, opts in sa.items():
            if kind in NON_SELF:
                continue
            opts = opts or ("",)
            slots = range(WEAPON_SLOTS) if kind in WEAPON_KINDS else (-1,)
            for ws in slots:
                for o in opts:
                    self.self_templates.append((kind, ws, o))
        if "pick_up" in sa:
            for k in range(len(RING)):
                self.self_templates.append(("pick_up", k, ""))
        for kind in ALLY_KINDS:
            if kind in sa:
                for o in sa[kind] or ("",):
                    self.ally_templates.append((kind, o))
        self.n_move = self.height * self.width
        self.off_enemy = 1 + self.n_move
        self.off_self = self.off_enemy + self.n_enemy * len(self.enemy_templates)
        self.off_ally = self.off_self + len(self.self_templates)
        self.off_answer = self.off_ally + self.n_ally * len(self.ally_templates)
        self.answer_templates = tuple(self.ruleset.answers) if self.with_answers else ()
        self._answer_index = {o: i for i, o in enumerate(self.answer_templates)}
        self.n_actions = self.off_answer + len(self.answer_templates)
        self._enemy_index = {t: i for i, t in enumerate(self.enemy_templates)}
        self._self_index = {t: i for i, t in enumerate(self.self_templates)}
        self._ally_index = {t: i for i, t in enumerate(self.ally_templates)}
        self.n_units = 1 + self.n_ally + self.n_enemy
        self.diag = max(1.0, float(np.hypot(self.width, self.height)))
        self.econ_names = tuple(self.ruleset.economy_features)[:CLOCK_SLOT]
        self._econ_pad = [0.0] * (ECON_LEN - len(self.econ_names))
        if len(self.ruleset.economy_features) > CLOCK_SLOT:
            raise ValueError(f"{self.ruleset.name} declares {len(self.ruleset.economy_features)} economy "
                             f"features; the observation has room for {CLOCK_SLOT} (the last slot is the clock's)")

    # -- identity -------------------------------------------------------------------
    def fingerprint(self, advice: str | None = None, clock: bool = False, parts: bool = False,
                    to_act: bool = False) -> dict[str, Any]:
        """What a trained policy must match: ruleset, version, shapes and the action layout
        (and the advisor behind the `advice` observation, the clock, the `advice_parts`
        rows and the `to_act` flags, when there are)."""
        fp = {"ruleset": self.ruleset.name, "version": self.ruleset.version, "height": self.height,
                "width": self.width, "n_enemy": self.n_enemy, "n_ally": self.n_ally,
                "n_actions": self.n_actions, "grid_channels": list(GRID_CHANNELS),
                "unit_features": list(UNIT_FEATURES), "economy": list(self.econ_names),
                "enemy_templates": [list(t) for t in self.enemy_templates],
                "self_templates": [list(t) for t in self.self_templates],
                "ally_templates": [list(t) for t in self.ally_templates]}
        if self.answer_templates:
            fp["answers"] = list(self.answer_templates)
        if advice is not None:
            fp["advice"] = advice
        if clock:
            fp["clock"] = f"economy[{CLOCK_SLOT}] = rounds left / round limit"
        if parts:
            fp["advice_parts"] = list(ADVICE_PARTS)
        if to_act:
            fp["to_act"] = TO_ACT
        return fp

    def to_act(self, state: BattleState, actor: Combatant | None, team: str,
               slots: tuple[list[Combatant], list[Combatant]] | None = None) -> np.ndarray:
        """The `to_act` row (n_units,) for `team`'s view with `actor` in slot 0 (None: a neutral
        view, as `observe`'s): 1.0 at each unit slot whose figure comes after the acting figure in
        this round's initiative order (`state.order[turn_index + 1:]`), and the figure whose turn
        it is while another answers a question: it takes a turn (or goes on with it) before
        this round ends if it stands then (a figure down now that keeps its place in the order
        may come to at its turn, as cortex_hu's knocked-out ones; the `down` unit feature says
        which are down). Slot 0 (`actor`) likewise: 0.0 for the figure deciding now, unless the
        order lists it again later this round; the PettingZoo envs put each agent's own figure
        there, acting or waiting. 0.0 for a figure that has had its turn or has no place in the
        order, and an empty slot. `slots`: `self.slots(state, team)`, where the caller has them."""
        row = np.zeros(self.n_units, dtype=np.float32)
        i = state.turn_index
        later = set(state.order[i + 1:]) if i >= 0 else set(state.order)
        owner = state.turn_owner
        if owner is not None and owner is not actor:   # mid-turn while another answers a question
            later.add(owner.id)
        if not later:
            return row
        if actor is not None and actor.id in later:   # a waiting agent's own figure (PettingZoo views)
            row[0] = 1.0
        allies, enemies = slots if slots is not None else self.slots(state, team)
        others = [c for c in allies if c is not actor][:self.n_ally]
        for k, c in enumerate(others, 1):
            if c.id in later:
                row[k] = 1.0
        base = 1 + self.n_ally
        for k, c in enumerate(enemies[:self.n_enemy]):
            if c.id in later:
                row[base + k] = 1.0
        return row

    def set_clock(self, obs: dict[str, np.ndarray], state: BattleState) -> None:
        """Write the clock into `obs["economy"]`: the rounds left before the round limit, this
        one included, as a share of the limit (so the policy sees a draw by the limit coming)."""
        limit = max(1, int(state.round_limit))
        obs["economy"][CLOCK_SLOT] = max(0.0, min(1.0, (limit - int(state.round) + 1) / limit))

    # -- slots ----------------------------------------------------------------------
    def slots(self, state: BattleState, team: str) -> tuple[list[Combatant], list[Combatant]]:
        """(ally slots, enemy slots) for a team, in scenario order (fixed for a fight).

        A side with more figures than the layout has slots for (a bundled scenario with
        five guards against a policy trained on up to four) has its figures that are out of
        the fight moved behind the standing ones, so a standing figure takes the slot a
        downed one leaves and every standing enemy can still be attacked (in scenario
        order it never got a slot: the policy could not finish the fight). Sides that fit
        keep scenario order throughout."""
        allies = [c for c in state.combatants if c.team == team]
        enemies = [c for c in state.combatants if c.team != team]
        if len(allies) > self.n_ally + 1:     # the acting figure is one of them, without a slot
            allies.sort(key=lambda c: c.down)  # stable: scenario order among the standing
        if len(enemies) > self.n_enemy:
            enemies.sort(key=lambda c: c.down)
        return allies, enemies

    # -- actions --------------------------------------------------------------------
    def describe(self, index: int) -> str:
        """An action index in words."""
        if index == 0:
            return "end turn"
        if index < self.off_enemy:
            y, x = divmod(index - 1, self.width)
            return f"move to ({x}, {y})"
        if index < self.off_self:
            e, t = divmod(index - self.off_enemy, len(self.enemy_templates))
            kind, ws, o = self.enemy_templates[t]
            return f"{kind}{f' with weapon slot {ws}' if ws >= 0 else ''}{f' [{o}]' if o else ''} -> enemy slot {e}"
        if index < self.off_ally:
            kind, ws, o = self.self_templates[index - self.off_self]
            if kind == "pick_up":
                return f"pick up from {'own cell' if ws == 0 else f'next cell {RING[ws]}'}"
            return f"{kind}{f' weapon slot {ws}' if ws >= 0 else ''}{f' [{o}]' if o else ''}"
        if index < self.off_answer:
            a, t = divmod(index - self.off_ally, len(self.ally_templates))
            kind, o = self.ally_templates[t]
            return f"{kind}{f' [{o}]' if o else ''} -> ally slot {a}"
        if index < self.n_actions:
            return f"answer {self.answer_templates[index - self.off_answer]}"
        return f"invalid action {index}"

    def encode(self, state: BattleState, actor: Combatant, action: Action) -> int | None:
        """The index of a concrete action, or None when the layout cannot express it."""
        k = action.kind
        if k == "end_turn":
            return 0
        if k == "choose":
            i = self._answer_index.get(action.option)
            return None if i is None else self.off_answer + i
        g = state.grid
        if k == "move":
            x, y = g.xy(action.cell)
            if x >= self.width or y >= self.height:
                return None
            return 1 + y * self.width + x
        allies, enemies = self.slots(state, actor.team)
        if k in ENEMY_KINDS:
            e = next((i for i, c in enumerate(enemies) if c.id == action.target), None)
            if e is None or e >= self.n_enemy:
                return None
            ws = -1
            if k in WEAPON_KINDS:
                names = self.ruleset.weapon_slots(actor)
                if action.weapon not in names:
                    return None
                ws = names.index(action.weapon)
                if ws >= WEAPON_SLOTS:
                    return None
            t = self._enemy_index.get((k, ws, _opt(action.option)))
            return None if t is None else self.off_enemy + e * len(self.enemy_templates) + t
        if k in ALLY_KINDS:
            others = [c for c in allies if c.id != actor.id]
            a = next((i for i, c in enumerate(others) if c.id == action.target), None)
            t = self._ally_index.get((k, _opt(action.option)))
            if a is None or t is None or a >= self.n_ally:
                return None
            return self.off_ally + a * len(self.ally_templates) + t
        if k == "pick_up":
            ax, ay = g.xy(actor.pos)
            cx, cy = g.xy(action.cell)
            try:
                ring = RING.index((cx - ax, cy - ay))
            except ValueError:
                return None
            return self.off_self + self._self_index[("pick_up", ring, "")]
        ws = -1
        if k in WEAPON_KINDS:
            names = self.ruleset.weapon_slots(actor)
            if action.weapon not in names or names.index(action.weapon) >= WEAPON_SLOTS:
                return None
            ws = names.index(action.weapon)
        t = self._self_index.get((k, ws, _opt(action.option)))
        return None if t is None else self.off_self + t

    def legal_map(self, state: BattleState, actor: Combatant, legal: list[Action]) -> dict[int, Action]:
        """index -> the legal action it stands for (the first, when several share an index)."""
        g = state.grid
        pos = self.tables(state).pos_list
        allies, enemies = self.slots(state, actor.team)
        eslot = {c.id: i for i, c in enumerate(enemies) if i < self.n_enemy}
        aslot = {c.id: i for i, c in enumerate(c for c in allies if c is not actor) if i < self.n_ally}
        wslot = {n: i for i, n in enumerate(self.ruleset.weapon_slots(actor)) if i < WEAPON_SLOTS}
        ne = len(self.enemy_templates)
        na = len(self.ally_templates)
        eidx, sidx, aidx = self._enemy_index, self._self_index, self._ally_index
        off_enemy, off_self, off_ally = self.off_enemy, self.off_self, self.off_ally
        ax, ay = g.xy(actor.pos)
        out: dict[int, Action] = {}
        for a in legal:
            k = a.kind
            i = None
            if k == "move":
                p = pos[a.cell]
                if p >= 0:
                    i = p + 1
            elif k == "end_turn":
                i = 0
            elif k == "choose":
                t = self._answer_index.get(a.option)
                if t is not None:
                    i = self.off_answer + t
            elif k in ENEMY_KINDS:
                e = eslot.get(a.target)
                if e is not None:
                    ws = wslot.get(a.weapon, -2) if k in WEAPON_KINDS else -1
                    t = eidx.get((k, ws, a.option or ""))
                    if t is not None:
                        i = off_enemy + e * ne + t
            elif k in ALLY_KINDS:
                s_ = aslot.get(a.target)
                t = aidx.get((k, a.option or ""))
                if s_ is not None and t is not None:
                    i = off_ally + s_ * na + t
            elif k == "pick_up":
                cx, cy = g.xy(a.cell)
                d = (cx - ax, cy - ay)
                if d in RING:
                    i = off_self + sidx[("pick_up", RING.index(d), "")]
            else:
                ws = wslot.get(a.weapon, -2) if k in WEAPON_KINDS else -1
                t = sidx.get((k, ws, a.option or ""))
                if t is not None:
                    i = off_self + t
            if i is not None and i not in out:
                out[i] = a
        if not out:
            out[0] = END_TURN
        return out

    def mask(self, legal_map: dict[int, Action]) -> np.ndarray:
        """The int8 mask of a legal map: 1 at each index that stands for a legal action."""
        m = np.zeros(self.n_actions, dtype=np.int8)
        m[np.fromiter(legal_map, dtype=np.intp, count=len(legal_map))] = 1
        return m

    def move_block(self, mask: np.ndarray) -> np.ndarray:
        """The move block of a mask (H x W, flat): the padded cells the actor can move to."""
        return mask[1:self.off_enemy]

    # -- observations ---------------------------------------------------------------
    def spaces(self, advice: bool = False, parts: bool = False, to_act: bool = False):
        from gymnasium import spaces
        d = {
            "grid": spaces.Box(0.0, 1.0, (len(GRID_CHANNELS), self.height, self.width), np.float32),
            "cover": spaces.Box(0.0, 1.0, (self.n_enemy, 2), np.float32),
            "economy": spaces.Box(ECON_LOW, ECON_HIGH, (ECON_LEN,), np.float32),
            "units": spaces.Box(-1.0, 1.0, (self.n_units, len(UNIT_FEATURES)), np.float32),
        }
        if advice:   # envs.advice: a scripted advisor's ranking over the action layout
            d["advice"] = spaces.Box(0.0, 1.0, (ADVICE_ROWS, self.n_actions), np.float32)
            if parts:    # the parts of the advisor's scores
                d["advice_parts"] = spaces.Box(0.0, 1.0, (PARTS_ROWS, self.n_actions), np.float32)
        if to_act:   # per unit slot: yet to take its turn this round
            d["to_act"] = spaces.Box(0.0, 1.0, (self.n_units,), np.float32)
        return spaces.Dict(d)

    def tables(self, state: BattleState) -> MapTables:
        """The per-map tables of the state's map at this layout's size (envs.observation)."""
        return map_tables(state.grid, self.height, self.width)

    def observe(self, state: BattleState, actor: Combatant | None, team: str,
                reachable: Iterable[int] | None = None, moves: np.ndarray | None = None,
                health: dict[str, tuple[float, float]] | None = None, to_act: bool = False
                ) -> dict[str, np.ndarray]:
        """The observation of `team` with `actor` acting (actor None: a neutral view).

        `reachable`: the map cells the actor can move to; or `moves`, the move block of the
        decision's mask (`move_block`), which says the same without a conversion. `health`:
        figure id -> `Ruleset.health` on this state, when the caller has it already. `to_act`:
        add the `to_act` flags (an env with `turn_order`)."""
        rs = self.ruleset
        tb = self.tables(state)
        if moves is None and actor is not None and reachable:
            moves = np.zeros(self.n_move, dtype=np.int8)
            moves[move_positions(tb, reachable)] = 1
        grid = tb.blank.copy()
        allies, enemies = self.slots(state, team)
        if health is None:
            health = {c.id: rs.health(c) for c in state.combatants}
        write_grid(grid, tb, state, actor, team, enemies, health, moves)
        units, cover = unit_rows(self, state, actor, team, allies, enemies, health, _CONDITION_COLUMN)
        if actor is not None and state.actor is actor:
            ev = rs.economy(state)
            vals = [ev.get(name, 0.0) for name in self.econ_names]
            if all(ECON_LOW <= v <= ECON_HIGH for v in vals):   # nothing to clip (NaN fails the test)
                econ = np.array(vals + self._econ_pad, dtype=np.float32)
            else:
                econ = np.zeros(ECON_LEN, dtype=np.float32)
                econ[:len(vals)] = vals
                np.clip(econ, ECON_LOW, ECON_HIGH, out=econ)
        else:
            econ = np.zeros(ECON_LEN, dtype=np.float32)
        obs = {"grid": grid, "cover": cover, "economy": econ, "units": units}
        if to_act:   # `turn_order`: the flags, from the same slots
            obs["to_act"] = self.to_act(state, actor, team, (allies, enemies))
        return obs


_LAYOUTS: dict[tuple, Layout] = {}


def layout_for(ruleset: Ruleset, height: int, width: int, n_enemy: int, n_ally: int,
               answers: bool = True) -> Layout:
    key = (ruleset.name, ruleset.version, height, width, n_enemy, n_ally, answers)
    lay = _LAYOUTS.get(key)
    if lay is None:
        lay = _LAYOUTS[key] = Layout(ruleset, height, width, n_enemy, n_ally, with_answers=answers)
    return lay
