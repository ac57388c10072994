"""What policies, environments and GMs read of a figure: the turn economy, reach, ammunition.

`economy()` gives the acting figure's turn as the named numbers of `economy_features`
(docs/cybergeneration.md, For policies and environments); `reach_m` the longest distance it
can attack at; `ammo_frac` its main gun's magazine; `describe` a GM's one-line summary;
`move_price` what a move costs the turn (policies price many moves with it); `move_touches`
which figures a move changes (policies try moves on copies of those alone).
"""

from __future__ import annotations

from rules.actions import Action
from rules.state import BattleState, Combatant


class ViewsMixin:
    """Read-only views for `CybergenerationRuleset`."""

    def economy(self, state: BattleState) -> dict[str, float]:
        a = state.actor
        e = state.economy
        if a is None or not e:
            return {k: 0.0 for k in self.economy_features}
        g = state.grid
        walk, run = self.units(state, a)
        cap = self.move_cap(state, a)
        trig = a.res["trigger"] or {}
        drawn = self.has_weapon(a, a.res["drawn"])
        return {
            "move_used": float(e["move"] != ""),
            "action_used": float(e["actions"] >= e["max_actions"]),
            "actions_left": float(max(0, e["max_actions"] - e["actions"])),
            "walk_left_m": g.units_to_m(max(0, min(cap, walk - e["move_units"]))),
            "move_left_m": g.units_to_m(cap),
            "can_run": float(cap > 0 and (e["ran"] or e["actions"] == 0)),
            "ran": float(e["ran"]),
            "two_action_mode": float(e["two"]),
            "held_action": float(bool(trig)),
            "held_trigger_move": float(trig.get("on") == "on_move"),
            "held_trigger_attack": float(trig.get("on") == "on_attack"),
            "held_trigger_draw": float(trig.get("on") == "on_draw"),
            "delays_left": float(max(0, int(self.mv["max_delays_per_round"]) - a.res["delays"])),
            "resumed": float(e["resumed"]),
            "steadied": float(e["steady"] is not None),
            "aiming_bonus": float(e["aim"]),
            "dodging": float(a.res["dodge"]),
            "stun_modifier": float(a.res["stun_mod"]),
            "wounds_left": float(self.remaining(a)),
            "impaired": float("impaired" in a.conditions),
            "prone": float("prone" in a.conditions),
            "knocked": float("knocked" in a.conditions),
            "grappling": float(self.in_grapple(a)),
            "holding": float(a.res["hold"] is not None),
            "held": float(a.res["held_by"] is not None),
            "suppressed": float(bool(a.res["suppressed_by"])),
            "suppression_passed": float(e["suppress"] == "pass"),
            "jammed": float(bool(a.res["jammed"])),
            "weapon_drawn": float(drawn is not None),
            "ammo_frac": float(self.ammo_frac(a)),
            "woke": float(e["woke"]),
        }

    def move_cost(self, state: BattleState, a: Combatant, cell: int | None) -> int | None:
        """`move_options(state, a).get(cell)`, without building the dict (`reach_now`)."""
        found = self.reach_now(state, a)
        if found is None or cell in found[1]:
            return None
        return found[0].get(cell)

    def move_price(self, state: BattleState, action: Action) -> tuple[float, bool] | None:
        """(`actions_left`, `turn_over`) after the move, as `do_move` then `economy` give them;
        None where the move could roll or ask (`may_ask`): on a map with drops (a fall), or
        while a held action (a shot at the mover) or a suppression zone (the line's shot) is
        in play.

        Exact: otherwise `do_move` fires nothing, rolls no die and asks nothing; its cost is
        `move_options`', and running spends the action as its own lines below say."""
        a = state.actor
        e = state.economy
        if self.may_ask(state, action):
            return None              # drops, a held action or a suppression zone in play
        cost = self.move_cost(state, a, action.cell)
        if cost is None:
            return None              # `do_move` raises on it: try it
        walk, _ = self.units(state, a)
        ran = e["move_units"] + cost > walk
        actions = e["max_actions"] if ran and not e["ran"] else e["actions"]
        return float(max(0, e["max_actions"] - actions)), bool(e.get("turn_over"))

    def move_touches(self, state: BattleState, action: Action) -> set[str] | None:
        """{the mover} where `do_move` changes only the economy and the mover's cell: no
        question open or being answered, and nothing `may_ask` looks for (drops, a held
        action, a suppression zone; as `move_price`), so no trigger fires, nobody falls and
        no line is crossed, and no die rolls. None otherwise, and for a cell `do_move` would
        refuse (tests/test_offence_query.py tries every such move both ways)."""
        a = state.actor
        if a is None or action.kind != "move" or state.asking is not None or state.pending is not None:
            return None
        if self.may_ask(state, action) or self.move_cost(state, a, action.cell) is None:
            return None
        return {a.id}

    def reach_m(self, c: Combatant) -> float:
        """The longest distance the figure can attack at (drawing a weapon first counts)."""
        if c.down:
            return 0.0
        return max((self._weapon_reach(c, w) for w in self.weapons_of(c) if not w.grapple_only), default=0.0)

    def _weapon_reach(self, c: Combatant, w) -> float:
        """How far `w` attacks from (metres; 0 when unloaded)."""
        if w.kind in ("ranged", "genius"):
            return self.ranges[w.range][-1][0] if self.loaded(c, w) else 0.0
        if w.kind == "grenade":
            return self.throw_range(c, w) if self.loaded(c, w) else 0.0
        return 2.2

    def hand_and_reach(self, c: Combatant) -> tuple[str | None, dict[str, float]]:
        """seed 004: "Draw a weapon from a holster or sheath" (the move), "Changing weapons" (an
        action): only the drawn weapon (or an implant, bare hands) attacks. The drawn weapon's
        name and each weapon's reach (`reach_m`'s numbers, weapon by weapon)."""
        return c.res["drawn"], {w.name: self._weapon_reach(c, w) for w in self.weapons_of(c) if not w.grapple_only}

    def unit_numbers(self, figures: list[Combatant]) -> list[tuple[float, float]]:
        """(`reach_m(c)`, `ammo_frac(c)`) of each figure from one look at its weapons: the same
        loops, fused (tests/test_env_shortcuts.py checks them against the two calls)."""
        out = []
        for c in figures:
            down = c.down
            best = 0.0
            frac = None
            for w in self.weapons_of(c):
                kind = w.kind
                if frac is None and kind in ("ranged", "genius") and w.magazine:   # ammo_frac
                    frac = c.res["ammo"].get(w.name, 0) / max(1, w.magazine)
                if down or w.grapple_only:                                         # reach_m
                    continue
                if kind in ("ranged", "genius"):
                    if self.loaded(c, w):
                        best = max(best, self.ranges[w.range][-1][0])
                elif kind == "grenade":
                    if self.loaded(c, w):
                        best = max(best, self.throw_range(c, w))
                else:
                    best = max(best, 2.2)
            out.append((best, 1.0 if frac is None else frac))
        return out

    def weapon_slots(self, c: Combatant) -> list[str]:
        return [w.name for w in self.weapons_of(c)]

    def ammo_frac(self, c: Combatant) -> float:
        for w in self.weapons_of(c):
            if w.kind in ("ranged", "genius") and w.magazine:
                return c.res["ammo"].get(w.name, 0) / max(1, w.magazine)
        return 1.0

    def describe(self, c: Combatant) -> str:
        hp, mx = self.health(c)
        cond = ",".join(sorted(c.conditions)) or "ok"
        mod = f" stun {c.res['stun_mod']}" if c.res["stun_mod"] else ""
        return f"{c.name} [{c.team}] {hp:g}/{mx:g} Wounds{mod} {cond}"
