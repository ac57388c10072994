"""What `cortex_hu` tracks for a figure, as data (issue #32, common.md #3), and what a
scenario may start a figure with (the names the shared Cortex builder asks for).

`tracked(state, c)` is the ruleset's part of a replay's final state
(`combatants[id].rules`): Life Points and their thresholds, weapons carried, held, lost and
their ammunition, every condition with how long it lasts, aim, prepared defences and
reactions, grapple partners, Plot Points, and the acting figure's turn economy. Seed 002 has
no jams, breakage or held actions, so there are none to show.
"""

from __future__ import annotations

from typing import Any

from rules.state import BattleState, Combatant

#: how long each condition lasts, in words (assumptions named in data.yaml)
UNTIL = {
    "prone": "it stands up (an action)",
    "aiming": "it moves or takes a non-free action (assumption aim)",
    "surprised": "its first turn starts (assumption surprise)",
    "feinted": "the next attack on it, or its next turn starts (assumption feint)",
    "knocked_out": "it has missed turns_left more turns (assumption knockout_timing)",
    "leg_useless": "surgery: the whole fight (assumption surgery)",
    "arm_useless": "surgery: the whole fight (assumption surgery)",
    "grappled": "it escapes, its holder lets go, moves away or goes down",
    "grappling": "it lets go, moves away, or either figure goes down",
    "unconscious": "the end of the fight (assumption unconscious)",
    "dying": "death at twice Life Points in Wounds (assumption dying)",
    "dead": "-",
}


class TrackedHu:
    """`tracked`, `condition_names` and `start_keys` for `CortexHuRuleset`."""

    def condition_names(self) -> dict[str, dict[str, Any]]:
        """The conditions a scenario may start a cortex_hu figure with -> the options an entry
        may give (`{"rounds": int}`: `aiming` sets its rounds of aim, `knocked_out` its turns
        out; {} for none), in the shape of cortex_common's `StartSchema.conditions`.

        `grappled`, `grappling` and `feinted` name another figure, so they start from the
        `state:` keys `grappled_by`, `grappling` and `feinted_by` instead (`start_keys`)."""
        out: dict[str, dict[str, Any]] = {k: {} for k in UNTIL if k not in ("grappled", "grappling", "feinted")}
        out["aiming"] = {"rounds": int}
        out["knocked_out"] = {"rounds": int}
        return out

    def start_keys(self) -> dict[str, dict[str, Any]]:
        """The `state:` keys a scenario may set on a cortex_hu figure -> {"kind", "max"}.

        Kinds: count (a whole number >= 0, at most `max` when given), bool, figure (an id of
        the scenario), weapon (one the figure carries), weapons (a list of them), ammo
        ({weapon: count} up to its magazine), defences (a list of {mode: parry or dodge,
        steps: a whole number})."""
        return {
            "stun": {"kind": "count", "max": None}, "wound": {"kind": "count", "max": None},
            "pp": {"kind": "count", "max": None},
            "aim": {"kind": "count", "max": int(self.aim_rules["max_rounds"])},
            "ko_turns": {"kind": "count", "max": int(self.called["knockout_die"])},
            "debt": {"kind": "count", "max": self.reaction_limit},
            "last_actions": {"kind": "count", "max": self.max_actions},
            "grip": {"kind": "count", "max": None},
            "surprised": {"kind": "bool", "max": None}, "full_defence": {"kind": "bool", "max": None},
            "all_out": {"kind": "bool", "max": None}, "ran": {"kind": "bool", "max": None},
            "carried_defence": {"kind": "bool", "max": None},
            "grappling": {"kind": "figure", "max": None}, "grappled_by": {"kind": "figure", "max": None},
            "feinted_by": {"kind": "figure", "max": None},
            "held": {"kind": "weapon", "max": None}, "lost": {"kind": "weapons", "max": None},
            "ammo": {"kind": "ammo", "max": None}, "prepared": {"kind": "defences", "max": None},
        }

    def tracked(self, state: BattleState, c: Combatant) -> dict[str, Any]:
        """Everything the rules track for c beyond position and team, as JSON-able data."""
        r = c.res
        L = c.stats["life"]
        held = self.held_weapon(c)
        conds: dict[str, dict[str, Any]] = {}
        for name in sorted(c.conditions):
            info: dict[str, Any] = {"until": UNTIL.get(name, "-")}
            if name == "knocked_out":
                info["turns_left"] = r["ko_turns"]
            elif name == "aiming":
                info["rounds"] = r["aim"]
            elif name == "feinted":
                info["by"] = r["feinted_by"]
            conds[name] = info
        out: dict[str, Any] = {
            "life": {"life_points": L, "stun": r["stun"], "wound": r["wound"],
                     "left": max(0, L - r["stun"] - r["wound"]),
                     "thresholds": {"endurance_roll_at_stun_plus_wound": L, "wounded_minus_2_at_wound": (L + 1) // 2,
                                    "dying_at_wound": L, "dead_at_wound": 2 * L}},
            "weapons": {"carried": [w.name for w in self.weapons_of(c)], "held": held.name if held else None,
                        "lost": list(r["lost"]), "ammo": dict(r["ammo"])},
            "conditions": conds,
            "aim": {"rounds": r["aim"], "steps": r["aim"] * int(self.aim_rules["steps_per_round"]),
                    "max_rounds": int(self.aim_rules["max_rounds"])},
            "defences": {"prepared": [{"mode": p["mode"], "steps": p["steps"]} for p in r["prepared"]],
                         "full_defence": r["full_defence"], "all_out_attack": r["all_out"],
                         "reactions_since_turn": r["debt"], "reaction_limit": self.reaction_limit,
                         "actions_last_turn": r["last_actions"],
                         "run_penalty": int(self.mv["run_penalty_steps"]) if r["ran"] else 0,
                         "defence_brought_over": r["carried_defence"]},
            "grapple": {"holding": r["grappling"], "held_by": r["grappled_by"],
                        "grip": r["grip"] if r["grappled_by"] is not None else None},
            "plot_points": r["pp"],
            "surprised": r["surprised"],
            "feinted_by": r["feinted_by"],
        }
        if state.actor is c and state.economy and not state.over:
            out["turn"] = self.turn_view(state, c)
        return out

    def turn_view(self, state: BattleState, a: Combatant) -> dict[str, Any]:
        """The acting figure's turn economy: the ladder, movement, shots, stances."""
        e = state.economy
        return {"actions_used": e["actions"], "carried_over": e.get("debt", 0),
                "next_action_steps": self.turn_steps(state, a), "max_actions": self.max_actions,
                "metres_moved": round(state.grid.units_to_m(e["move_units"]), 3), "movement": e["mode"],
                "ran": e["ran"], "run_penalty": e["run_penalty"], "shots": dict(e["shots"]),
                "aimed": e["aimed"], "full_defence": e["full_defence"], "all_out_attack": e["all_out"]}


__all__ = ["TrackedHu", "UNTIL"]
