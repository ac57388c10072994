"""Export a MaskablePPO actor to a pickle-free `.npz` that `agents.learned.NumpyPolicy` runs.

The file holds the weights as arrays and one JSON string `__meta__`: ruleset and version,
env id, the observation/action layout fingerprint (and its hash), and the architecture as
a list of layer specs (`conv2d`, `linear`, `relu`, `tanh`, `flatten`).
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
from torch import nn

FORMAT = "tactica-policy"
FORMAT_VERSION = 1


def fingerprint_hash(fp: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(fp, sort_keys=True).encode()).hexdigest()[:16]


def _stack(seq: nn.Module, prefix: str, arrays: dict[str, np.ndarray]) -> list[dict[str, Any]]:
    layers = []
    mods = list(seq) if isinstance(seq, nn.Sequential) else [seq]
    for i, m in enumerate(mods):
        name = f"{prefix}.{i}"
        if isinstance(m, nn.Conv2d):
            arrays[name + ".w"] = m.weight.detach().cpu().numpy().astype(np.float32)
            arrays[name + ".b"] = m.bias.detach().cpu().numpy().astype(np.float32)
            layers.append({"op": "conv2d", "name": name, "stride": list(m.stride), "padding": list(m.padding)})
        elif isinstance(m, nn.Linear):
            arrays[name + ".w"] = m.weight.detach().cpu().numpy().astype(np.float32)
            arrays[name + ".b"] = m.bias.detach().cpu().numpy().astype(np.float32)
            layers.append({"op": "linear", "name": name})
        elif isinstance(m, nn.ReLU):
            layers.append({"op": "relu"})
        elif isinstance(m, nn.Tanh):
            layers.append({"op": "tanh"})
        elif isinstance(m, nn.Flatten):
            layers.append({"op": "flatten"})
        elif isinstance(m, nn.Sequential):
            layers += _stack(m, name, arrays)
        else:
            raise TypeError(f"cannot export layer {type(m).__name__}")
    return layers


def export_model(model, path: str | Path, layout_fp: dict[str, Any], env_id: str, extra: dict | None = None) -> Path:
    """Write the actor of a MaskablePPO model (with `SkirmishExtractor`) to `path` atomically."""
    pol = model.policy
    fx = pol.pi_features_extractor if hasattr(pol, "pi_features_extractor") else pol.features_extractor
    arrays: dict[str, np.ndarray] = {}
    arch = {
        "grid": _stack(fx.grid_net, "grid", arrays) + _stack(fx.grid_fc, "grid_fc", arrays),
        "vec": _stack(fx.vec_net, "vec", arrays),
        "trunk": _stack(pol.mlp_extractor.policy_net, "pi", arrays) + _stack(pol.action_net, "action", arrays),
    }
    meta = {"format": FORMAT, "format_version": FORMAT_VERSION, "ruleset": layout_fp["ruleset"],
            "ruleset_version": layout_fp["version"], "env_id": env_id, "fingerprint": layout_fp,
            "fingerprint_hash": fingerprint_hash(layout_fp), "architecture": arch, **(extra or {})}
    arrays["__meta__"] = np.array(json.dumps(meta, sort_keys=True))
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".npz.tmp")
    os.close(fd)
    with open(tmp, "wb") as f:
        np.savez(f, **arrays)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    return path
