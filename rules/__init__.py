"""The pure rules engine: dice, grid, state, actions, events, rulesets and scenarios.

Imports no gymnasium, torch or stable-baselines3: a GM tool or a test can use it alone.
"""

from rules.actions import Action
from rules.battle import Battle
from rules.dice import Dice, Step
from rules.errors import TacticaError
from rules.ruleset import Ruleset, available_rulesets, get_ruleset

__all__ = ["Action", "Battle", "Dice", "Step", "TacticaError", "Ruleset", "available_rulesets",
           "get_ruleset"]
