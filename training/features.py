"""Features extractors for the Dict observation of `SkirmishEnv` (torch; training only).

`cnn`: two convolutions over `grid` (3x3, then 3x3 stride 2) and a linear layer, beside
an MLP over the vectors (`cover`, `economy`, `units`); `mlp`: `grid` flattened instead.
Both are plain layer stacks so `training.export` can write them for `NumpyPolicy`.
"""

from __future__ import annotations

import numpy as np
import torch
from gymnasium import spaces
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn


class SkirmishExtractor(BaseFeaturesExtractor):
    """grid branch + vector branch, concatenated."""

    def __init__(self, observation_space: spaces.Dict, mode: str = "cnn", hidden: int = 128) -> None:
        C, H, W = observation_space["grid"].shape
        vec_dim = int(sum(np.prod(observation_space[k].shape) for k in ("cover", "economy", "units")))
        super().__init__(observation_space, features_dim=2 * hidden)
        self.mode = mode
        if mode == "cnn":
            self.grid_net = nn.Sequential(nn.Conv2d(C, 16, 3, padding=1), nn.ReLU(),
                                          nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.ReLU(), nn.Flatten())
            with torch.no_grad():
                n = self.grid_net(torch.zeros(1, C, H, W)).shape[1]
        elif mode == "mlp":
            self.grid_net = nn.Sequential(nn.Flatten())
            n = C * H * W
        else:
            raise ValueError(f"features mode {mode!r}: expected cnn or mlp")
        self.grid_fc = nn.Sequential(nn.Linear(n, hidden), nn.ReLU())
        self.vec_net = nn.Sequential(nn.Linear(vec_dim, hidden), nn.ReLU())

    def forward(self, obs: dict[str, torch.Tensor]) -> torch.Tensor:
        g = self.grid_fc(self.grid_net(obs["grid"]))
        v = torch.cat([obs["cover"].flatten(1), obs["economy"], obs["units"].flatten(1)], dim=1)
        return torch.cat([g, self.vec_net(v)], dim=1)
