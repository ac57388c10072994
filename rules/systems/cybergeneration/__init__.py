"""The `cybergeneration` rule system: seed 004 (Cybergeneration house rules, Interlock family)."""

from rules.systems.cybergeneration.ruleset import CybergenerationRuleset, falling_damage, heal_days

__all__ = ["CybergenerationRuleset", "falling_damage", "heal_days"]
