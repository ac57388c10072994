"""Gymnasium and PettingZoo environments over the rules engine.

Importing `envs` registers the `tactica/...` ids when gymnasium is installed (the `rl`
extra): `gym.make("tactica/CortexWarehouse-v2")`, or `gym.make("envs:tactica/Skirmish-v0",
scenario=...)` without importing first. `envs.generators` needs no gymnasium.
"""

try:  # gymnasium is optional for the core install (generators are used by evaluation)
    import gymnasium as _gym  # noqa: F401
except ImportError:  # pragma: no cover - exercised only without the rl extra
    pass
else:
    from envs.registration import register_all as _register_all

    _register_all()
