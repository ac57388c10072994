"""The learner's cheaper forms of the same math (issue 30): the spatial extractor's channels-last
convolutions and `SpatialMaskablePolicy.move_scores` (the 1x1 move head as a matrix-vector
product) give the logits, values and gradients of the plain NCHW layers and `move_head`'s
convolution, on observations of a seeded fight; and the `torch_threads` field."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

import torch  # noqa: E402

from envs.skirmish import SkirmishEnv  # noqa: E402
from rules.errors import ScenarioError  # noqa: E402
from training.config import load_config  # noqa: E402
from training.features import MOVE_OFFSET, SpatialMaskablePolicy  # noqa: E402


def _observations(env: SkirmishEnv, n: int, seed: int):
    rng = np.random.default_rng(seed)
    obs, masks = [], []
    o, _ = env.reset(seed=seed)
    while len(obs) < n:
        m = env.action_masks()
        obs.append(o)
        masks.append(m)
        o, _, term, trunc, _ = env.step(int(rng.choice(np.flatnonzero(m))))
        if term or trunc:
            o, _ = env.reset()
    return {k: torch.as_tensor(np.stack([x[k] for x in obs])) for k in obs[0]}, np.stack(masks)


def _long_way(policy: SpatialMaskablePolicy, obs: dict) -> tuple[torch.Tensor, torch.Tensor]:
    """Logits and values through the plain layers: NCHW cells, `move_head` as a convolution."""
    fx = policy.features_extractor
    cells = fx.cells_net(obs["grid"].contiguous())
    g = fx.grid_fc(fx.grid_net(cells))
    v = torch.cat([obs["cover"].flatten(1), obs["economy"], obs["units"].flatten(1)], dim=1)
    features = torch.cat([g, fx.vec_net(v)], dim=1)
    latent_pi, latent_vf = policy.mlp_extractor(features)
    logits = policy.action_net(latent_pi)
    moves = policy.move_head(torch.relu(cells + policy.to_cells(latent_pi)[:, :, None, None])).flatten(1)
    out = torch.cat([logits[:, :MOVE_OFFSET], moves, logits[:, MOVE_OFFSET + moves.shape[1]:]], dim=1)
    out = out + (obs["advice"] * policy.advice_gain[None, :, None]).sum(dim=1)
    return out, policy.value_net(latent_vf)


def test_channels_last_and_matrix_move_head_are_the_plain_layers():
    env = SkirmishEnv(scenario="cortex/duel", opponent="aggressive", map_size=(12, 16), max_enemies=1,
                      max_allies=0, advice="tactical")
    obs, masks = _observations(env, 32, seed=3)
    torch.manual_seed(0)
    policy = SpatialMaskablePolicy(env.observation_space, env.action_space, lambda _: 3e-4, net_arch=[32, 32])
    with torch.no_grad():   # a move head far from its 0.01 start, so the move logits weigh in
        policy.move_head.weight.normal_()
        policy.move_head.bias.fill_(0.3)
    params = [p for p in policy.parameters() if p.requires_grad]

    def grads_of(loss: torch.Tensor) -> list[torch.Tensor]:
        policy.zero_grad()
        loss.backward()
        return [p.grad.clone() for p in params]

    latent = policy.mlp_extractor.forward_actor(policy.extract_features(obs))
    fast = policy.action_logits(latent)
    fast_v = policy.predict_values(obs)
    slow, slow_v = _long_way(policy, obs)
    np.testing.assert_allclose(fast.detach().numpy(), slow.detach().numpy(), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(fast_v.detach().numpy(), slow_v.detach().numpy(), rtol=1e-5, atol=1e-6)
    assert np.ptp(fast[:, MOVE_OFFSET:MOVE_OFFSET + 12 * 16].detach().numpy()) > 0.1

    # the gradients of a PPO-like loss, every parameter
    mask_t = torch.as_tensor(masks)
    acts = torch.as_tensor([int(np.flatnonzero(m)[-1]) for m in masks])

    def loss_of(logits, values):
        logp = torch.log_softmax(torch.where(mask_t, logits, -1e8), dim=1).gather(1, acts[:, None])
        return -(logp.squeeze(1) * torch.linspace(-1, 1, len(acts))).mean() + values.pow(2).mean()

    g_fast = grads_of(loss_of(policy.action_logits(policy.mlp_extractor.forward_actor(policy.extract_features(obs))),
                              policy.predict_values(obs)))
    g_slow = grads_of(loss_of(*_long_way(policy, obs)))
    for a, b in zip(g_fast, g_slow):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-4, atol=1e-4)  # float32 sums in another order: CPU-dependent last bits
    values, logp, _ = policy.evaluate_actions(obs, acts, action_masks=masks)   # SB3's own path runs too
    assert torch.isfinite(logp).all() and values.shape == (len(acts), 1)


def test_torch_threads_field():
    assert load_config({}).torch_threads == 1
    assert load_config({"torch_threads": 2}).torch_threads == 2
    with pytest.raises(ScenarioError, match="torch_threads"):
        load_config({"torch_threads": 0})
