"""Cortex data for `cortex`: the common Cortex model (rules/systems/cortex_common/model.py).

Weapons, armour, stat blocks and dice pools are shared by every Cortex-family ruleset;
this module keeps the names `cortex` code and tests import from here.
"""

from rules.dice import Step
from rules.systems.cortex_common.model import (ATTRIBUTES, D2, STAT_FIELDS, Armour, Weapon, build_armour,
                                               build_stat_block, build_weapons, describe_pool, load_data,
                                               make_pool, parse_step, plot_point_die, roll_pool, skill_die)

__all__ = ["ATTRIBUTES", "Weapon", "Armour", "load_data", "parse_step", "build_weapons", "build_armour",
           "build_stat_block", "skill_die", "describe_pool", "make_pool", "roll_pool", "plot_point_die",
           "STAT_FIELDS", "D2", "brawling"]


def brawling(stats: dict) -> tuple[str, Step]:
    """seed 000, Improvised Weapons: "Unarmed Combat/Brawling": the specialty's die, or the general
    skill's where it is better, as any specialty roll (`skill_die`); (skill name, die)."""
    die = skill_die(stats, "unarmed_combat", "brawling")
    return ("unarmed_combat/brawling" if stats["skills"].get("unarmed_combat/brawling") == die
            else "unarmed_combat", die)
