"""Export a MaskablePPO actor to a pickle-free `.npz` that `agents.learned.NumpyPolicy` runs.

The file holds the weights as arrays and one JSON string `__meta__`: ruleset and version,
env id, the observation/action layout fingerprint (and its hash), and the architecture as
lists of layer specs (`conv2d`, `linear`, `relu`, `tanh`, `flatten`):

- `cnn` / `mlp` features: `grid` (grid -> features), `vec` (the concatenated vectors ->
  features) and `trunk` (both features concatenated -> policy MLP -> action logits).
- `spatial` features (`SpatialMaskablePolicy`): `cells` (grid -> per-cell features
  (N, K, H, W)), `grid` (cells -> features), `vec`, `pi` (policy MLP -> latent), `action`
  (latent -> logits of every action) and `spatial` = {`to_cells`: layers (latent -> K),
  `move_head`: layers (a 1x1 conv2d, K -> 1), `move_offset`, `height`, `width`}: the logits
  [move_offset : move_offset + H*W] are replaced by
  `move_head(relu(cells + to_cells(latent)[:, :, None, None]))` flattened; with advice
  (a fingerprint with `advice`), `advice` = {`gain`: the array name}: the logits then get
  `sum_r gain[r] * advice[r]` over the observation's advice rows, and with `only` true
  -1e8 where advice row 1 is 0 (the actions the advisor did not rank); with `parts` true (a
  fingerprint with `advice_parts`) the gain has one weight more per `advice_parts` row, and
  the rows it weighs are `advice`'s followed by `advice_parts`'.
"""

from __future__ import annotations

import hashlib
import io
import json
from pathlib import Path
from typing import Any

import numpy as np
from torch import nn

from rules.atomic import atomic_write, umask_mode

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
            spec = {"op": "conv2d", "name": name, "stride": list(m.stride), "padding": list(m.padding)}
            if tuple(m.dilation) != (1, 1):
                spec["dilation"] = list(m.dilation)
            layers.append(spec)
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
    """Write the actor of a MaskablePPO model (with `SkirmishExtractor`, and `SpatialMaskablePolicy`
    for `spatial` features) to `path` atomically."""
    pol = model.policy
    fx = pol.pi_features_extractor if hasattr(pol, "pi_features_extractor") else pol.features_extractor
    arrays: dict[str, np.ndarray] = {}
    arch: dict[str, Any] = {
        "grid": _stack(fx.grid_net, "grid", arrays) + _stack(fx.grid_fc, "grid_fc", arrays),
        "vec": _stack(fx.vec_net, "vec", arrays),
    }
    pi = _stack(pol.mlp_extractor.policy_net, "pi", arrays)
    action = _stack(pol.action_net, "action", arrays)
    if getattr(fx, "cells_net", None) is not None:
        from training.features import MOVE_OFFSET
        arch["cells"] = _stack(fx.cells_net, "cells", arrays)
        arch["pi"], arch["action"] = pi, action
        arch["spatial"] = {"to_cells": _stack(pol.to_cells, "to_cells", arrays),
                           "move_head": _stack(pol.move_head, "move_head", arrays),
                           "move_offset": MOVE_OFFSET, "height": pol.grid_h, "width": pol.grid_w}
        if getattr(pol, "advice_gain", None) is not None:
            arrays["advice.gain"] = pol.advice_gain.detach().cpu().numpy().astype(np.float32)
            arch["advice"] = {"gain": "advice.gain", "only": bool(getattr(pol, "advice_only", False))}
            if "advice_parts" in pol.observation_space.spaces:
                arch["advice"]["parts"] = True
    else:
        arch["trunk"] = pi + action
    meta = {"format": FORMAT, "format_version": FORMAT_VERSION, "ruleset": layout_fp["ruleset"],
            "ruleset_version": layout_fp["version"], "env_id": env_id, "fingerprint": layout_fp,
            "fingerprint_hash": fingerprint_hash(layout_fp), "architecture": arch, **(extra or {})}
    arrays["__meta__"] = np.array(json.dumps(meta, sort_keys=True))
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    # whole or not at all; a policy file is for sharing (a full disk: one line naming it)
    atomic_write(path, buf.getvalue(), mode=umask_mode(), field="--out")
    return path


def _unstack(seq: nn.Module, prefix: str, arrays, used: set[str]) -> None:
    """Set the weights of `seq` from `arrays`, named as `_stack` names them."""
    import torch
    mods = list(seq) if isinstance(seq, nn.Sequential) else [seq]
    for i, m in enumerate(mods):
        name = f"{prefix}.{i}"
        if isinstance(m, (nn.Conv2d, nn.Linear)):
            for part, p in (("w", m.weight), ("b", m.bias)):
                key = f"{name}.{part}"
                if key not in arrays.files or tuple(arrays[key].shape) != tuple(p.shape):
                    got = "missing" if key not in arrays.files else f"shape {tuple(arrays[key].shape)}"
                    raise ValueError(f"{key}: {got}, the network has {tuple(p.shape)}")
                with torch.no_grad():
                    p.copy_(torch.as_tensor(arrays[key]))
                used.add(key)
        elif isinstance(m, nn.Sequential):
            _unstack(m, name, arrays, used)


def import_actor(model, path: str | Path, fp_hash: str, field: str = "init_from") -> None:
    """Start `model` (a fresh MaskablePPO built as `export_model` expects) from the actor of an
    exported policy `.npz`: every weight `export_model` writes is set from the file, so the model
    then plays as the file does; the value head keeps its fresh weights (the file has none).
    The file must have this run's observation and action layout (`fp_hash`) and architecture;
    otherwise a `TacticaError` names the file, `field` and what was expected."""
    from rules.errors import TacticaError

    path = Path(path)
    try:
        arrays = np.load(path, allow_pickle=False)
        meta = json.loads(str(arrays["__meta__"]))
    except (OSError, ValueError, KeyError) as e:
        raise TacticaError(f"cannot read the policy file ({e.__class__.__name__})", source=str(path), field=field,
                           expected="a policy .npz exported by `tactica train`") from None
    if meta.get("format") != FORMAT:
        raise TacticaError("not a Tactica policy file", source=str(path), field=field,
                           expected=f"a {FORMAT} .npz")
    if meta.get("fingerprint_hash") != fp_hash:
        raise TacticaError("the policy was trained for another ruleset or observation layout", source=str(path),
                           field=field, expected="a policy of this config's ruleset, map size, slots and advice")
    pol = model.policy
    fx = pol.pi_features_extractor if hasattr(pol, "pi_features_extractor") else pol.features_extractor
    parts = [(fx.grid_net, "grid"), (fx.grid_fc, "grid_fc"), (fx.vec_net, "vec"),
             (pol.mlp_extractor.policy_net, "pi"), (pol.action_net, "action")]
    if getattr(fx, "cells_net", None) is not None:
        parts += [(fx.cells_net, "cells"), (pol.to_cells, "to_cells"), (pol.move_head, "move_head")]
    used: set[str] = set()
    try:
        for seq, prefix in parts:
            _unstack(seq, prefix, arrays, used)
        gain = getattr(pol, "advice_gain", None)
        if gain is not None or "advice.gain" in arrays.files:
            if gain is None or "advice.gain" not in arrays.files or tuple(arrays["advice.gain"].shape) != tuple(gain.shape):
                raise ValueError("advice.gain: the file and the network differ in their advice rows")
            import torch
            with torch.no_grad():
                gain.copy_(torch.as_tensor(arrays["advice.gain"]))
            used.add("advice.gain")
            only = bool(meta.get("architecture", {}).get("advice", {}).get("only", False))
            if only != bool(getattr(pol, "advice_only", False)):
                raise ValueError(f"advice_only: the file has {only}")
    except ValueError as e:
        raise TacticaError(f"the policy's architecture differs ({e})", source=str(path), field=field,
                           expected="a policy with this config's features, net_arch and advice settings") from None
    left = set(arrays.files) - used - {"__meta__"}
    if left:
        raise TacticaError(f"the policy has weights this network lacks: {', '.join(sorted(left)[:4])}",
                           source=str(path), field=field,
                           expected="a policy with this config's features, net_arch and advice settings")
