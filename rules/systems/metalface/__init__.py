"""The `metalface` rule system: seed 003 (METALFACE: RPG combat chapter, 1999)."""

from rules.systems.metalface.ruleset import MetalfaceRuleset

__all__ = ["MetalfaceRuleset"]
