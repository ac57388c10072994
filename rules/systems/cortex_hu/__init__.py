"""The `cortex_hu` rule system: seed 002 (a Hungarian Cortex combat summary) on Cortex Classic."""

from rules.systems.cortex_hu.ruleset import CortexHuRuleset

__all__ = ["CortexHuRuleset"]
