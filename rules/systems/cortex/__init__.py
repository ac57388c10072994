"""The `cortex` rule system: seed 000 (Serenity house rules) on Cortex Classic."""

from rules.systems.cortex.ruleset import CortexRuleset

__all__ = ["CortexRuleset"]
