"""MaskablePPO training, configs and policy export (not yet built: issue 8)."""
