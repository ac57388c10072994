"""Gymnasium ids in the `tactica` namespace: one loop over the rulesets and bundled scenarios."""

from __future__ import annotations

from rules.ruleset import get_ruleset
from rules.scenario import bundled_scenarios, load_scenario

GENERIC_ID = "tactica/Skirmish-v0"


def scenario_env_id(scenario: str, version: int) -> str:
    """`cortex/warehouse` -> `tactica/CortexWarehouse-v1` (v = the ruleset's version)."""
    name = "".join(part.capitalize() for chunk in scenario.split("/") for part in chunk.split("_"))
    return f"tactica/{name}-v{version}"


def registered_ids() -> dict[str, dict]:
    """Every id Tactica registers, with its kwargs."""
    ids: dict[str, dict] = {GENERIC_ID: {}}
    for name in bundled_scenarios():
        spec, _ = load_scenario(name)
        ids[scenario_env_id(name, get_ruleset(spec.ruleset).version)] = {"scenario": name}
    return ids


def register_all() -> None:
    import gymnasium as gym

    for env_id, kwargs in registered_ids().items():
        if env_id not in gym.registry:
            gym.register(id=env_id, entry_point="envs.skirmish:SkirmishEnv", kwargs=kwargs)
