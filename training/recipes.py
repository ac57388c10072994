"""Which training configs make each shipped network (tactica/policies/<ruleset>.npz).

A recipe is one stage or several. The last stage is always `training/configs/<ruleset>.yaml`
and its run's `policy.npz` is what ships. An earlier stage's network is kept in the repository
as a fixed start file (`training/init/`), which the next stage's config names as `init_from`,
so each stage can be rerun, tested and benchmarked on its own:

    tactica train training/configs/stages/cortex-advice-parts.yaml   # stage 1: PPO (34 min)
    tactica train training/configs/cortex.yaml                       # stage 2: from stage 1's file

Loading this module imports no torch or gymnasium.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CONFIGS = REPO / "training" / "configs"


@dataclass(frozen=True)
class Stage:
    """One training run of a recipe: its config and the network it gives (repository paths)."""

    config: Path
    network: Path


#: the stages before the last, per ruleset: (config, the start file its network is kept as)
EARLIER: dict[str, list[tuple[str, str]]] = {
    "cortex": [("training/configs/stages/cortex-advice-parts.yaml", "training/init/cortex-advice-parts.npz")],
    "cortex_hu": [("training/configs/stages/cortex_hu-advice-parts.yaml", "training/init/cortex_hu-advice-parts.npz")],
    "cybergeneration": [("training/configs/stages/cybergeneration-advice-parts.yaml",
                         "training/init/cybergeneration-advice-parts.npz")],
}


def recipe(ruleset: str) -> list[Stage]:
    """The stages that make `tactica/policies/<ruleset>.npz`, first to last."""
    stages = [Stage(REPO / c, REPO / n) for c, n in EARLIER.get(ruleset, [])]
    return stages + [Stage(CONFIGS / f"{ruleset}.yaml", REPO / "tactica" / "policies" / f"{ruleset}.npz")]


def ppo_config(ruleset: str) -> Path:
    """The config of the recipe's PPO stage (the stage with PPO steps): what a benchmark of
    PPO training on this ruleset starts from."""
    from training.config import load_config

    for stage in recipe(ruleset):
        if load_config(stage.config).total_steps > 0:
            return stage.config
    raise ValueError(f"{ruleset}: no stage of its recipe trains with PPO (total_steps 0 in every config)")
