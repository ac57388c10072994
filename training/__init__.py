"""MaskablePPO training, rollout policy iteration, configs and policy export (README, training/)."""
