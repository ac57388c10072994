"""`attack_odds_many` for metalface (issue 30): a ranged attack's odds from the numbers of
`ranged_plan`, without the lists of modifiers it builds for the event log.

`tactical` prices thousands of shots a fight (its own and the enemies' threats); each
`attack_odds` built a plan dict with its modifier and dice lists only to read five numbers
off it. Exact: the same calls (`face_plan`, `moved_status`, `band`, `partial_cover`,
`damage_vs`) on the same unchanged state, the modifiers added in the plan's order (all
whole numbers), the same `p_at_least` and damage arithmetic. Body attacks and other
actions keep `attack_odds`. tests/test_metalface_targeted.py compares with `attack_odds`.
"""

from __future__ import annotations

from typing import Iterable

from rules.actions import Action
from rules.state import BattleState, Combatant
from rules.systems.metalface.model import p_at_least
from rules.systems.metalface.threat import best_expected_damage, threat_profile


class OddsMixin:
    """`attack_odds_many` and the threat query for `MetalfaceRuleset`."""

    def best_expected_damage(self, state: BattleState, actor: Combatant, victims: Iterable[str]
                             ) -> dict[str, float] | None:
        return best_expected_damage(self, state, actor, victims)  # threat.py

    def threat_profile(self, state: BattleState, attacker: Combatant):
        return threat_profile(self, state, attacker)  # threat.py

    def start_turn_rolls(self, state: BattleState, actor: Combatant) -> bool:
        """start_turn rolls nothing (movement status, charged weapons, the shield)."""
        return False

    def attack_odds_many(self, state: BattleState, actor: Combatant, actions: list[Action]
                         ) -> list[dict[str, float] | None]:
        """`attack_odds` of each action, in order."""
        out: list[dict[str, float] | None] = []
        g = state.grid
        e = state.economy
        per = None
        for ac in actions:
            w = actor.weapons.get(ac.weapon or "")
            t = state.by_id.get(ac.target) if ac.target is not None else None
            if ac.kind != "attack" or t is None or w is None or not w.ranged:
                out.append(self.attack_odds(state, actor, ac))
                continue
            if per is None:
                per = self.val(actor, "per")
                skills = actor.stats["skills"]
                mm = self.movement_mods
            turn_m, _ = self.face_plan(g, actor, t.pos)
            amove = self.moved_status(actor, e["move_m"] + turn_m, e["flew"])
            _, bmod = self.band(g.distance_m(actor.pos, t.pos), max(1, per))
            fewer = 1 if self.partial_cover(state, t, actor) else 0
            # ranged_plan's "mod": skill, range, attacker's and target's movement, in that order
            mod = int(skills.get(w.skill, 0)) + bmod + int(mm[amove]) + int(mm[t.res["moved"]])
            p = p_at_least(per - fewer, mod, self.target_difficulty)
            dmg = float(min(self.damage_vs(t, int(w.damage), self.ranged_min_damage),
                            max(0, t.stats["status"] - t.res["damage"])))
            out.append({"p_hit": p, "exp_damage": p * dmg, "damage_if_hit": dmg})
        return out


__all__ = ["OddsMixin"]
