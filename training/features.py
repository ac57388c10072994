"""Features extractors and the spatial policy for the Dict observation of `SkirmishEnv`
(torch; training only).

`cnn`: two convolutions over `grid` (3x3, then 3x3 stride 2) and a linear layer, beside
an MLP over the vectors (`cover`, `economy`, `units`); `mlp`: `grid` flattened instead.

`spatial`: two 3x3 convolutions at full resolution give per-cell features `cells`
(N, 32, H, W); the global feature vector is a strided convolution over `cells` and a linear
layer, beside the same vector MLP. `SpatialMaskablePolicy` then scores the move actions
(one per map cell) with a fully convolutional head over `cells` conditioned on the policy
latent, instead of a linear layer over the flattened features:
`move logits = move_head(relu(cells + to_cells(latent_pi)))`, so "move next to this
feature" is the same weights wherever the feature is on the map. With an `advice`
observation (envs/advice.py) the logits of every action also get `gain . advice[:, a]`,
two learnt weights on the advisor's pick and scores: a residual policy over the advisor;
with `advice_only` it chooses among the actions the advisor ranked (its candidates) only.
With `advice_parts` too (hit odds, expected damage, exposure per ranked action) the parts'
rows follow the advice's in `gain . advice[:, a]`, each with its own weight starting at 0
(the policy starts as it would without them and learns how much each part counts).

All are plain layer stacks so `training.export` can write them for `NumpyPolicy`.
"""

from __future__ import annotations

from functools import partial

import numpy as np
import torch
from gymnasium import spaces
from sb3_contrib.common.maskable.policies import MaskableMultiInputActorCriticPolicy
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn

from training.config import FEATURE_MODES
#: the keys of the vector branch, in the order they are concatenated (`to_act` only where the env
#: has `turn_order`; agents/learned.py reads them in this order)
VEC_KEYS = ("cover", "economy", "units", "to_act")
#: first action index of the move block (index 0 ends the turn; see envs.encoding)
MOVE_OFFSET = 1
#: the default starting weights of the `advice` rows (pick, relative score) in the logits: the
#: advisor's pick starts about e^7 times as likely as an action it did not rank
ADVICE_GAIN_INIT = (5.0, 2.0)
#: what `advice_only` adds to the logit of an action the advisor did not rank (as a masked one)
UNRANKED = -1e8


class SkirmishExtractor(BaseFeaturesExtractor):
    """grid branch + vector branch, concatenated (features_dim = 2 * hidden).

    In `spatial` mode the per-cell features of the last forward pass stay on the module as
    `last_cells` (N, cells_channels, H, W) for `SpatialMaskablePolicy`'s move head.
    """

    def __init__(self, observation_space: spaces.Dict, mode: str = "cnn", hidden: int = 128,
                 cells_channels: int = 32) -> None:
        C, H, W = observation_space["grid"].shape
        vec_dim = int(sum(np.prod(observation_space[k].shape) for k in VEC_KEYS if k in observation_space.spaces))
        super().__init__(observation_space, features_dim=2 * hidden)
        self.mode = mode
        self.cells_net: nn.Sequential | None = None
        self.cells_channels = 0
        self.last_cells: torch.Tensor | None = None
        self.last_advice: torch.Tensor | None = None
        if mode == "cnn":
            self.grid_net = nn.Sequential(nn.Conv2d(C, 16, 3, padding=1), nn.ReLU(),
                                          nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.ReLU(), nn.Flatten())
            with torch.no_grad():
                n = self.grid_net(torch.zeros(1, C, H, W)).shape[1]
        elif mode == "mlp":
            self.grid_net = nn.Sequential(nn.Flatten())
            n = C * H * W
        elif mode == "spatial":
            k = self.cells_channels = int(cells_channels)
            # dilated 3x3 convolutions (1, 1, 2, 4, 2): each cell sees a 21x21 neighbourhood
            # (distances to enemies and cover across most of a map), at full resolution
            self.cells_net = nn.Sequential(nn.Conv2d(C, k, 3, padding=1), nn.ReLU(),
                                           nn.Conv2d(k, k, 3, padding=1), nn.ReLU(),
                                           nn.Conv2d(k, k, 3, padding=2, dilation=2), nn.ReLU(),
                                           nn.Conv2d(k, k, 3, padding=4, dilation=4), nn.ReLU(),
                                           nn.Conv2d(k, k, 3, padding=2, dilation=2), nn.ReLU())
            self.grid_net = nn.Sequential(nn.Conv2d(k, 32, 3, stride=2, padding=1), nn.ReLU(), nn.Flatten())
            with torch.no_grad():
                n = self.grid_net(torch.zeros(1, k, H, W)).shape[1]
        else:
            raise ValueError(f"features mode {mode!r}: expected {', '.join(FEATURE_MODES)}")
        self.grid_fc = nn.Sequential(nn.Linear(n, hidden), nn.ReLU())
        self.vec_net = nn.Sequential(nn.Linear(vec_dim, hidden), nn.ReLU())

    def forward(self, obs: dict[str, torch.Tensor]) -> torch.Tensor:
        adv = obs.get("advice")
        if adv is not None and "advice_parts" in obs:   # the parts' rows after the advice's
            adv = torch.cat([adv, obs["advice_parts"]], dim=1)
        self.last_advice = adv
        x = obs["grid"]
        if self.cells_net is not None:
            # channels-last (NHWC) through the full-resolution convolutions: the same convolutions,
            # ~1.3x cheaper in oneDNN on CPU than NCHW, forward and backward (issue 30)
            x = self.last_cells = self.cells_net(x.contiguous(memory_format=torch.channels_last))
        g = self.grid_fc(self.grid_net(x))
        v = torch.cat([obs[k].flatten(1) for k in VEC_KEYS if k in obs], dim=1)
        return torch.cat([g, self.vec_net(v)], dim=1)


class SpatialMaskablePolicy(MaskableMultiInputActorCriticPolicy):
    """MaskablePPO policy whose move logits come from a 1x1 convolution over the cells.

    Needs `SkirmishExtractor` in `spatial` mode (the default features extractor here).
    `action_net` still scores every action; its move block [1 : 1 + H*W] is replaced by
    `move_head(relu(cells + to_cells(latent_pi)[:, :, None, None]))` flattened (index
    1 + y * W + x, the action layout's). The cells are those of the actor's features
    extractor's last forward pass: sb3-contrib's `forward`, `evaluate_actions` and
    `get_distribution` all run it on the same observations just before
    `_get_action_dist_from_latent`.
    """

    def __init__(self, observation_space, action_space, lr_schedule, *args,
                 advice_gain: tuple[float, float] = ADVICE_GAIN_INIT, advice_only: bool = False,
                 **kwargs) -> None:
        self.advice_gain_init = tuple(float(g) for g in advice_gain)
        self.advice_only = bool(advice_only)
        kwargs.setdefault("features_extractor_class", SkirmishExtractor)
        fx_kwargs = dict(kwargs.get("features_extractor_kwargs") or {})
        fx_kwargs.setdefault("mode", "spatial")
        kwargs["features_extractor_kwargs"] = fx_kwargs
        _, self.grid_h, self.grid_w = observation_space["grid"].shape
        if action_space.n < MOVE_OFFSET + self.grid_h * self.grid_w:
            raise ValueError(f"action space of {action_space.n} has no move block of {self.grid_h}x{self.grid_w}")
        super().__init__(observation_space, action_space, lr_schedule, *args, **kwargs)

    def _build(self, lr_schedule) -> None:
        super()._build(lr_schedule)
        k = getattr(self.pi_features_extractor, "cells_channels", 0)
        if not k:
            raise ValueError("SpatialMaskablePolicy needs a features extractor in `spatial` mode "
                             "(SkirmishExtractor(mode='spatial'))")
        self.to_cells = nn.Linear(self.mlp_extractor.latent_dim_pi, k)
        self.move_head = nn.Conv2d(k, 1, 1)
        self.advice_gain: nn.Parameter | None = None
        if "advice" in self.observation_space.spaces:
            # the advisor's rows (pick, relative score) enter the logits with learnt weights, from a
            # start where the advisor's pick is already the most likely action (docs/results.md)
            # (the parts of its scores, where observed, from 0: no pull until learnt)
            parts = self.observation_space["advice_parts"].shape[0] if "advice_parts" in self.observation_space.spaces else 0
            self.advice_gain = nn.Parameter(torch.tensor(self.advice_gain_init + (0.0,) * parts, dtype=torch.float32))
        if self.ortho_init:  # as SB3 does: hidden layers sqrt(2), the action output 0.01
            self.to_cells.apply(partial(self.init_weights, gain=np.sqrt(2)))
            self.move_head.apply(partial(self.init_weights, gain=0.01))
        # the optimizer SB3 made in _build misses the new modules: make it again, the same way
        self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs)

    def action_logits(self, latent_pi: torch.Tensor) -> torch.Tensor:
        """Raw (unmasked) logits of every action, from the actor latent of the last forward."""
        cells = self.pi_features_extractor.last_cells
        if cells is None or cells.shape[0] != latent_pi.shape[0]:
            raise RuntimeError("no cells from the features extractor for this batch: run extract_features first")
        self.pi_features_extractor.last_cells = None  # consumed: a stale batch can never be reused
        logits = self.action_net(latent_pi)
        h = torch.relu(cells + self.to_cells(latent_pi)[:, :, None, None])
        moves = self.move_scores(h)
        out = torch.cat([logits[:, :MOVE_OFFSET], moves, logits[:, MOVE_OFFSET + moves.shape[1]:]], dim=1)
        if self.advice_gain is not None:
            adv = self.pi_features_extractor.last_advice
            if adv is None or adv.shape[0] != out.shape[0]:
                raise RuntimeError("no advice from the features extractor for this batch")
            self.pi_features_extractor.last_advice = None
            out = out + (adv * self.advice_gain[None, :, None]).sum(dim=1)
            if self.advice_only:   # only the actions the advisor ranked (row 1 > 0) can be chosen
                out = out + torch.where(adv[:, 1] > 0, 0.0, UNRANKED)
        return out

    def move_scores(self, h: torch.Tensor) -> torch.Tensor:
        """`move_head(h).flatten(1)` (N, H*W): the 1x1 convolution as one matrix-vector product per
        sample, about 3x cheaper forward and backward than oneDNN's 1x1 convolution with a single
        output channel (the same sums, in another order: the floats may differ in the last bits)."""
        k = h.shape[1]
        return torch.matmul(h.flatten(2).transpose(1, 2), self.move_head.weight.view(k)) + self.move_head.bias

    def _get_action_dist_from_latent(self, latent_pi: torch.Tensor):
        return self.action_dist.proba_distribution(action_logits=self.action_logits(latent_pi))
