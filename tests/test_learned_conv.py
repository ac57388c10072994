"""The numpy convolution that runs exported networks (`agents.learned._conv2d`).

It builds its columns with a zeroed, filled padding and one strided view. The long way it
replaced (`np.pad` and `sliding_window_view`, kept here) must give the same numbers bit for
bit, so no shipped network's decision moves; torch's `conv2d` is the meaning of the layer.
"""

from __future__ import annotations

import numpy as np
import pytest

from agents.learned import NumpyPolicy, _conv2d, shipped_policy_path

#: (in channels, out channels, kernel, stride, padding, dilation): the layers the shipped
#: networks use (3x3 "same" at dilations 1, 2, 4; a strided 3x3; a 1x1) and a few others
LAYERS = [
    (16, 32, (3, 3), (1, 1), (1, 1), (1, 1)),
    (32, 32, (3, 3), (1, 1), (2, 2), (2, 2)),
    (32, 32, (3, 3), (1, 1), (4, 4), (4, 4)),
    (32, 32, (3, 3), (2, 2), (1, 1), (1, 1)),
    (32, 1, (1, 1), (1, 1), (0, 0), (1, 1)),
    (5, 7, (2, 3), (2, 1), (0, 2), (1, 2)),
    (3, 4, (3, 1), (1, 2), (1, 0), (3, 1)),
]


def long_way(x, w, b, stride, pad, dilation=(1, 1)):
    """The convolution as it was written before (np.pad, sliding_window_view, a transposed copy)."""
    if pad[0] or pad[1]:
        x = np.pad(x, ((0, 0), (0, 0), (pad[0], pad[0]), (pad[1], pad[1])))
    o, c, kh, kw = w.shape
    eh, ew = (kh - 1) * dilation[0] + 1, (kw - 1) * dilation[1] + 1
    win = np.lib.stride_tricks.sliding_window_view(x, (eh, ew), axis=(2, 3))
    win = win[:, :, ::stride[0], ::stride[1], ::dilation[0], ::dilation[1]]
    n, _, ho, wo = win.shape[:4]
    cols = np.ascontiguousarray(win.transpose(0, 1, 4, 5, 2, 3)).reshape(n, c * kh * kw, ho * wo)
    return np.matmul(w.reshape(o, -1), cols).reshape(n, o, ho, wo) + b[None, :, None, None]


def _case(rng, layer, n=2, h=16, wd=22):
    ci, co, k, stride, pad, dil = layer
    x = rng.standard_normal((n, ci, h, wd)).astype(np.float32)
    w = (rng.standard_normal((co, ci) + k) * 0.2).astype(np.float32)
    b = rng.standard_normal(co).astype(np.float32)
    return x, w, b, stride, pad, dil


@pytest.mark.parametrize("layer", LAYERS)
@pytest.mark.parametrize("n", [1, 3])
def test_same_numbers_as_the_long_way(layer, n):
    x, w, b, stride, pad, dil = _case(np.random.default_rng(7), layer, n=n)
    new, old = _conv2d(x, w, b, stride, pad, dil), long_way(x, w, b, stride, pad, dil)
    assert new.shape == old.shape and new.dtype == old.dtype
    assert np.array_equal(new, old)


@pytest.mark.parametrize("layer", LAYERS)
def test_means_what_torch_means(layer):
    torch = pytest.importorskip("torch")
    x, w, b, stride, pad, dil = _case(np.random.default_rng(3), layer)
    ref = torch.nn.functional.conv2d(torch.from_numpy(x), torch.from_numpy(w), torch.from_numpy(b),
                                     stride=stride, padding=pad, dilation=dil).numpy()
    got = _conv2d(x, w, b, stride, pad, dil)
    assert got.shape == ref.shape
    np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-4)


def test_input_is_left_alone_and_a_wrong_padding_shows():
    """The padded copy is the function's own (x unchanged); a padding written one cell off
    (the check that this test can fail) gives other numbers."""
    x, w, b, stride, pad, dil = _case(np.random.default_rng(1), LAYERS[0])
    before = x.copy()
    out = _conv2d(x, w, b, stride, pad, dil)
    assert np.array_equal(x, before)
    shifted = np.zeros((x.shape[0], x.shape[1], x.shape[2] + 2, x.shape[3] + 2), np.float32)
    shifted[:, :, :-2, :-2] = x   # x at the corner, not in the middle
    assert not np.allclose(out, _conv2d(shifted, w, b, stride, (0, 0), dil), atol=1e-3)


def test_a_shipped_network_gives_the_same_probabilities():
    """cortex's shipped network on observations of its own training env (seeded random play):
    the forward pass with the long way's convolution gives the same probabilities, bit for bit."""
    import agents.learned as L
    from envs.skirmish import SkirmishEnv

    pol = NumpyPolicy(shipped_policy_path("cortex"))
    fp = pol.meta["fingerprint"]
    env = SkirmishEnv.for_policy(pol)
    rng = np.random.default_rng(0)
    obs, _ = env.reset(seed=4)
    batch, masks = [], []
    for _ in range(12):
        mask = env.action_masks()
        batch.append(obs)
        masks.append(mask)
        obs, _, term, trunc, _ = env.step(int(rng.choice(np.flatnonzero(mask))))
        if term or trunc:
            obs, _ = env.reset(seed=5)
    stacked = {k: np.stack([o[k] for o in batch]) for k in batch[0]}
    mask = np.stack(masks)
    fast = pol.action_probs(stacked, mask)
    orig = L._conv2d
    L._conv2d = long_way
    try:
        slow = pol.action_probs(stacked, mask)
    finally:
        L._conv2d = orig
    assert fast.shape == (12, fp["n_actions"])
    assert np.array_equal(fast, slow)
