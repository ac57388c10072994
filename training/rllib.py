"""PPO with action masking on `SkirmishEnv`, on a Ray cluster, with RLlib (the `dist` extra).

For users whose training outgrows one machine: RLlib spreads the env runners (rollouts)
and the learners over a Ray cluster. Install and run:

```bash
pip install -e ".[rl,dist]"
python -m training.rllib --config training/configs/rllib_cortex.yaml            # a local Ray
python -m training.rllib --config training/configs/rllib_cortex.yaml --address auto   # on a cluster node
```

On a cluster, every node needs Tactica installed (the same version), because env runners
build `MaskedSkirmish` envs from this module. `--address` takes what `ray.init` takes
(`auto` on a node of a running cluster, `ray://head:10001` from outside).

Masking: `MaskedSkirmish` wraps `SkirmishEnv` so the legal-action mask travels inside the
observation, as RLlib's action-masking RLModule expects:
`{"action_mask": Box(0, 1, (n_actions,)), "observations": Box(flat)}`, where
`observations` is the env's Dict observation flattened (`gymnasium.spaces.flatten`).
`ActionMaskingTorchRLModule` (shipped with RLlib, `ray.rllib.examples.rl_modules.classes`)
runs the default PPO networks on `observations` and adds log(mask) to the action logits, so
an illegal action is never sampled. With `strict: true` in the env settings the wrapper
raises on an illegal action instead of ending the episode with a penalty (tests use it to
prove the mask holds).

Versions: `dist` pins `ray[rllib]==2.60.0`, which pins gymnasium 1.2.2 (inside the
project's `gymnasium>=1.2,<2`).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any, Mapping

import gymnasium as gym
import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from rules.errors import ScenarioError, TacticaError

DEFAULT_CONFIG = Path(__file__).with_name("configs") / "rllib_cortex.yaml"


# -- the env -------------------------------------------------------------------------------

class MaskedSkirmish(gym.Env):
    """`SkirmishEnv` with its action mask inside a Dict observation (RLlib action masking)."""

    metadata = {"render_modes": []}

    def __init__(self, config: Mapping[str, Any] | None = None) -> None:
        from envs.skirmish import SkirmishEnv

        cfg = dict(config or {})
        self.strict = bool(cfg.pop("strict", False))
        self.env = SkirmishEnv(**cfg)
        self._inner = self.env.observation_space
        flat = gym.spaces.flatten_space(self._inner)
        n = int(self.env.action_space.n)
        self.observation_space = gym.spaces.Dict({
            "action_mask": gym.spaces.Box(0.0, 1.0, (n,), np.float32),
            "observations": gym.spaces.Box(flat.low.astype(np.float32), flat.high.astype(np.float32),
                                           flat.shape, np.float32),
        })
        self.action_space = self.env.action_space
        self.illegal_actions = 0

    def _obs(self, obs: Mapping[str, np.ndarray], info: Mapping[str, Any]) -> dict[str, np.ndarray]:
        return {"action_mask": np.asarray(info["action_mask"], dtype=np.float32),
                "observations": gym.spaces.flatten(self._inner, obs).astype(np.float32)}

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        obs, info = self.env.reset(seed=seed, options=options)
        return self._obs(obs, info), info

    def step(self, action):
        obs, reward, terminated, truncated, info = self.env.step(action)
        if info.get("illegal_action"):
            self.illegal_actions += 1
            if self.strict:
                raise TacticaError(info.get("illegal_reason", "illegal action"), field="action",
                                   expected="an action the mask allows")
        return self._obs(obs, info), reward, terminated, truncated, info


# -- the config ----------------------------------------------------------------------------

class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class RayCfg(_Strict):
    address: str | None = None       #: None: start a local Ray; "auto" or "ray://head:10001": a cluster
    num_cpus: int | None = Field(default=None, ge=1)   #: CPUs of a local Ray (default: all)


class PPOCfg(_Strict):
    lr: float = Field(default=3e-4, gt=0)
    gamma: float = Field(default=0.99, gt=0, le=1)
    lambda_: float = Field(default=0.95, gt=0, le=1, alias="lambda")
    clip_param: float = Field(default=0.2, gt=0)
    entropy_coeff: float = Field(default=0.01, ge=0)
    vf_loss_coeff: float = Field(default=0.5, ge=0)
    train_batch_size_per_learner: int = Field(default=4000, ge=1)
    minibatch_size: int = Field(default=256, ge=1)
    num_epochs: int = Field(default=4, ge=1)


class ModelCfg(_Strict):
    fcnet_hiddens: list[int] = Field(default_factory=lambda: [256, 256])
    fcnet_activation: str = "relu"
    head_fcnet_hiddens: list[int] = Field(default_factory=lambda: [64])
    vf_share_layers: bool = False


class RunnersCfg(_Strict):
    num_env_runners: int = Field(default=2, ge=0)     #: remote rollout workers (0: sample in the driver)
    num_envs_per_env_runner: int = Field(default=1, ge=1)
    rollout_fragment_length: int | str = "auto"
    num_cpus_per_env_runner: int = Field(default=1, ge=0)


class LearnersCfg(_Strict):
    num_learners: int = Field(default=0, ge=0)        #: 0: learn in the driver; more: remote learners
    num_gpus_per_learner: float = Field(default=0, ge=0)


class RLlibConfig(_Strict):
    """A PPO-with-masking run: the env, Ray, PPO, the network, rollouts, learners, the loop."""

    env: dict[str, Any] = Field(default_factory=lambda: {"scenario": "cortex/duel", "opponent": "aggressive"})
    ray: RayCfg = Field(default_factory=RayCfg)
    ppo: PPOCfg = Field(default_factory=PPOCfg)
    model: ModelCfg = Field(default_factory=ModelCfg)
    env_runners: RunnersCfg = Field(default_factory=RunnersCfg)
    learners: LearnersCfg = Field(default_factory=LearnersCfg)
    iterations: int = Field(default=50, ge=1)
    checkpoint_dir: str | None = "runs/rllib"
    seed: int = 0


def load_config(path: str | Path = DEFAULT_CONFIG, overrides: Mapping[str, Any] | None = None) -> RLlibConfig:
    """Read a YAML config (errors name the file and field); `overrides` update it (nested keys)."""
    from rules.scenario import pydantic_error, read_document

    doc = read_document(path) or {}
    if not isinstance(doc, Mapping):
        raise ScenarioError(f"a {type(doc).__name__}", source=str(path), field="(top level)", expected="a mapping")
    doc = _merge(dict(doc), dict(overrides or {}))
    try:
        return RLlibConfig.model_validate(doc)
    except ValidationError as e:
        raise pydantic_error(e, str(path)) from None


def _merge(a: dict, b: Mapping[str, Any]) -> dict:
    for k, v in b.items():
        a[k] = _merge(dict(a.get(k) or {}), v) if isinstance(v, Mapping) and isinstance(a.get(k), Mapping) else v
    return a


# -- building and training -----------------------------------------------------------------

def build_algo_config(cfg: RLlibConfig):
    """The RLlib `PPOConfig` for a run (new API stack, masked PPO RLModule)."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

    p, r, ln, m = cfg.ppo, cfg.env_runners, cfg.learners, cfg.model
    return (
        PPOConfig()
        .environment(env=MaskedSkirmish, env_config=dict(cfg.env))
        .framework("torch")
        .env_runners(num_env_runners=r.num_env_runners, num_envs_per_env_runner=r.num_envs_per_env_runner,
                     rollout_fragment_length=r.rollout_fragment_length,
                     num_cpus_per_env_runner=r.num_cpus_per_env_runner)
        .learners(num_learners=ln.num_learners, num_gpus_per_learner=ln.num_gpus_per_learner)
        .training(lr=p.lr, gamma=p.gamma, lambda_=p.lambda_, clip_param=p.clip_param,
                  entropy_coeff=p.entropy_coeff, vf_loss_coeff=p.vf_loss_coeff,
                  train_batch_size_per_learner=p.train_batch_size_per_learner,
                  minibatch_size=p.minibatch_size, num_epochs=p.num_epochs)
        .rl_module(rl_module_spec=RLModuleSpec(
            module_class=ActionMaskingTorchRLModule,
            model_config={"fcnet_hiddens": list(m.fcnet_hiddens), "fcnet_activation": m.fcnet_activation,
                          "head_fcnet_hiddens": list(m.head_fcnet_hiddens), "vf_share_layers": m.vf_share_layers}))
        .debugging(seed=cfg.seed)
    )


def _metric(result: Mapping[str, Any], *path: str) -> Any:
    cur: Any = result
    for k in path:
        if not isinstance(cur, Mapping) or k not in cur:
            return None
        cur = cur[k]
    return cur


def train(cfg: RLlibConfig, log=print) -> dict[str, Any]:
    """Train for `cfg.iterations`; start (or join) Ray as configured. Returns a summary."""
    try:
        import ray
    except ImportError:
        raise TacticaError("ray[rllib] is not installed", field="ray", expected="pip install 'tactica[dist]'") from None
    started = False
    if not ray.is_initialized():
        kw: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False}
        if cfg.ray.address:
            kw["address"] = cfg.ray.address
        elif cfg.ray.num_cpus:
            kw["num_cpus"] = cfg.ray.num_cpus
        ray.init(**kw)
        started = True
    algo = build_algo_config(cfg).build_algo()
    history = []
    try:
        for it in range(1, cfg.iterations + 1):
            res = algo.train()
            row: dict[str, Any] = {"iteration": it,
                   "env_steps": _metric(res, "env_runners", "num_env_steps_sampled_lifetime"),
                   "episodes": _metric(res, "env_runners", "num_episodes_lifetime"),
                   "return_mean": _metric(res, "env_runners", "episode_return_mean"),
                   "episode_len_mean": _metric(res, "env_runners", "episode_len_mean")}
            row = {k: (float(v) if isinstance(v, (float, np.floating, np.integer)) and k != "iteration" else v)
                   for k, v in row.items()}
            history.append(row)
            log(json.dumps(row))
        checkpoint = None
        if cfg.checkpoint_dir:
            path = Path(cfg.checkpoint_dir).absolute()
            path.mkdir(parents=True, exist_ok=True)
            checkpoint = str(algo.save_to_path(str(path)))
        module = algo.get_module()
        return {"history": history, "checkpoint": checkpoint, "module": module,
                "n_actions": int(module.action_space.n)}
    finally:
        algo.stop()
        if started:
            ray.shutdown()


def greedy_actions(module: Any, observations: list[Mapping[str, np.ndarray]]) -> list[int]:
    """The trained module's most likely action for each (masked) observation."""
    import torch
    from ray.rllib.core.columns import Columns

    batch = {Columns.OBS: {"action_mask": torch.as_tensor(np.stack([o["action_mask"] for o in observations])),
                           "observations": torch.as_tensor(np.stack([o["observations"] for o in observations]))}}
    with torch.no_grad():
        out = module.forward_inference(batch)
    return [int(a) for a in torch.argmax(out[Columns.ACTION_DIST_INPUTS], dim=-1)]


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description="PPO with action masking on SkirmishEnv with RLlib (Ray).")
    ap.add_argument("--config", default=str(DEFAULT_CONFIG), help="YAML config (training/configs/rllib_*.yaml)")
    ap.add_argument("--address", default=None, help="Ray cluster address (default: the config's, else a local Ray)")
    ap.add_argument("--iterations", type=int, default=None, help="Training iterations (default: the config's)")
    args = ap.parse_args(argv)
    over: dict[str, Any] = {}
    if args.address:
        over["ray"] = {"address": args.address}
    if args.iterations:
        over["iterations"] = args.iterations
    try:
        cfg = load_config(args.config, over)
        out = train(cfg)
    except TacticaError as e:
        raise SystemExit(f"error: {e.line()}") from None
    print(json.dumps({"checkpoint": out["checkpoint"], "last": out["history"][-1]}))


if __name__ == "__main__":  # pragma: no cover
    main()
