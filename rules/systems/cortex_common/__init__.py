"""What every Cortex-family ruleset shares (`cortex`: seed 000, `cortex_hu`: seed 002).

The die-step ladder is `rules.dice.Step`. This package holds the rest of the common Cortex
base (RULES-NOTES, "cortex" base mechanics): the Difficulty ladder and the shared
assumptions (`base.yaml`), weapons, armour, stat blocks and dice pools (`model.py`), Life
Points, damage types with the Basic split, armour, unconsciousness and dying, the
Endurance roll, innate defence and the initiative order (`mechanics.py`), and the exact
odds of dice pools (`odds.py`). Each ruleset adds only what its seed changes.
"""
