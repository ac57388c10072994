"""What the cortex ruleset reports about a fight without changing it: the acting figure's
turn economy (the observation's economy block), attack odds, the threat profile, reach,
weapon slots and ammunition. A mixin of `CortexRuleset` (first among its bases, so these
are the methods that answer, as when they were written in the class)."""

from __future__ import annotations

from rules.actions import Action
from rules.grid import FEET
from rules.state import BattleState, Combatant

def _max_cost_off(reach: dict[int, int], occ: set[int]) -> int:
    """`max((v for c, v in reach.items() if c not in occ), default=0)`: the largest cost is
    the whole reach's (one C-level `max`) unless every cell at that cost is taken; only
    then are the free cells looked at one by one."""
    if not reach:
        return 0
    top = max(reach.values())
    if all(reach.get(c) != top for c in occ):
        return top
    return max((v for c, v in reach.items() if c not in occ), default=0)


class ReadoutsMixin:
    """Economy, odds, threat profile, reach, weapon slots and ammunition (see the module)."""

    def economy(self, state: BattleState) -> dict[str, float]:
        a = state.actor
        e = state.economy
        g = state.grid
        if a is None or not e:
            return {k: 0.0 for k in self.economy_features}
        walk, *_ = self.units(state, a)
        st = a.res["stance"]
        found = self._reach_now(state, a)  # `move_options`' costs, without building its dict
        move_left = 0 if found is None else _max_cost_off(found[0], found[1])
        best_shots = 0.0
        ammo_frac = 1.0
        ranged = [w for w in self.weapons_of(a) if w.ranged and w.magazine]
        if ranged:
            w = ranged[0]
            best_shots = float(max(0, w.rof - e["shots"].get(w.name, 0)))
            ammo_frac = a.res["ammo"].get(w.name, 0) / max(1, w.magazine)
        return {
            "actions_used": float(e["actions"]),
            "next_action_steps": -float(e["actions"]),
            "actions_left": float(max(0, self.max_actions - e["actions"])),
            "move_used_m": g.units_to_m(e["move_units"]),
            "walk_left_m": g.units_to_m(max(0, walk - e["move_units"])),
            "move_left_m": g.units_to_m(move_left),
            "can_run": float(e["actions"] == 0 and not e["stood"]),
            "ran": float(e["ran"]),
            "stance_block": float(bool(st and st["mode"] == "block")),
            "stance_dodge": float(bool(st and st["mode"] == "dodge")),
            "all_out_defence": float(bool(st and st.get("all_out"))),
            "prone": float("prone" in a.conditions),
            "rise_penalty": float(e["rise_penalty"]),
            "no_move": float(e["no_move"]),
            "shots_left": best_shots,
            "ammo_frac": float(ammo_frac),
            "plot_points": float(a.res["pp"]),
            "pp_bonus_pending": float(e["pp_bonus"]),
            "second_winds_left": float(max(0, a.stats["second_winds"] - a.res["second_winds_used"])),
            "grappled": float(a.res["grappled_by"] is not None),
            "grappling": float(a.res["grappling"] is not None),
            "arms_usable": float(self.arms_usable(a)),
            "reaction_debt": float(a.res["reaction_debt"]),
            "impaired": float("impaired" in a.conditions),
        }

    def attack_odds(self, state: BattleState, actor: Combatant, action: Action) -> dict[str, float] | None:
        from rules.systems.cortex.odds import attack_odds
        self._pool_cache.clear()
        return attack_odds(self, state, actor, action)

    def attack_odds_many(self, state: BattleState, actor: Combatant, actions: list[Action]
                         ) -> list[dict[str, float] | None]:
        from rules.systems.cortex.odds import attack_odds_many
        self._pool_cache.clear()  # one state and attacker: the pools found for one action hold for the next
        return attack_odds_many(self, state, actor, actions)

    def start_turn_rolls(self, state: BattleState, actor: Combatant) -> bool:
        from rules.systems.cortex.threat import start_turn_rolls
        return start_turn_rolls(self, state, actor)

    def threat_profile(self, state: BattleState, attacker: Combatant):
        from rules.systems.cortex.threat import threat_profile
        return threat_profile(self, state, attacker)

    def reach_m(self, c: Combatant) -> float:
        best = 0.0
        for w in self.usable_weapons(c):
            if w.kind == "explosive":
                r = w.range_ft * self.bands[-1]["upto"] * FEET
            elif w.ranged:
                if w.magazine and c.res["ammo"].get(w.name, 0) <= 0:
                    continue
                r = w.range_ft * self.bands[-1]["upto"] * FEET
            else:
                r = 1.5 * 1.5  # next cell, diagonals included
            best = max(best, r)
        return best
