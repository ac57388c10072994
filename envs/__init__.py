"""Gymnasium and PettingZoo environments over the rules engine (not yet built: issue 4)."""
