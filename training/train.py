"""`train(config)`: MaskablePPO on `SkirmishEnv`, with evaluation, checkpoints and resume.

A run folder (`<out_dir>/<run_name>`) holds `config.yaml` (the resolved config),
`tb/` (TensorBoard logs), `eval.csv` (evaluation win rates), `learning_curve.png`,
`checkpoints/latest.zip` + `checkpoints/latest.json` (written atomically every
`checkpoint_interval` steps, so a killed run loses at most one interval; the JSON keeps the
training envs' generators, so `--resume` continues their episodes: training/env_rngs.py) and
`policy.npz` (the exported actor, refreshed at every checkpoint; also the self-play
opponent). The run ends with an evaluation of its final policy unless one was made at its
last step. Every file gets the permissions `open()` would give it under the umask (0644
under 022), so checkpoints and policies can be read and shared.
"""

from __future__ import annotations

import csv
import io
import json
import time
from dataclasses import asdict
from datetime import datetime
from pathlib import Path
from typing import Any, Callable

import numpy as np
import yaml

from agents.base import Policy
from rules.errors import TacticaError
from rules.atomic import atomic_write, umask_mode
from training.config import TrainConfig
from training.env_rngs import restore_rngs, rng_states
from training.export import export_model, fingerprint_hash, import_actor
from training.progress import LogLines, duration, on_terminal


class SelfPlayOpponent(Policy):
    """The run's latest exported actor as an opponent (reloaded when the file changes)."""

    name = "self"

    def __init__(self, path: str, fallback: str = "aggressive", seed=None) -> None:
        super().__init__(seed)
        self.path = Path(path)
        self._mtime = None
        self._inner: Policy | None = None
        self._fallback_name = fallback

    def act(self, state, actor):
        from agents.base import make_policy
        from agents.learned import NumpyPolicy
        if self.path.exists():
            m = self.path.stat().st_mtime
            if m != self._mtime:
                try:
                    self._inner = NumpyPolicy(self.path, seed=int(self.rng.integers(2**31)), deterministic=False)
                    self._mtime = m
                except TacticaError:
                    self._inner = None
        if self._inner is None:
            self._inner = make_policy(self._fallback_name, int(self.rng.integers(2**31)))
        return self._inner.act(state, actor)


def _resolve_opponents(names: list[str], run_dir: Path) -> list:
    return [SelfPlayOpponent(str(run_dir / "policy.npz")) if n == "self" else n for n in names]


def make_env_fn(cfg: TrainConfig, run_dir: Path, opponents: list[str], held_out: bool = False,
                seed: int = 0) -> Callable:
    def _thunk():
        from envs.skirmish import SkirmishEnv
        gen = dict(cfg.generator)
        gen["held_out"] = held_out
        env = SkirmishEnv(ruleset=cfg.ruleset, scenario=cfg.scenarios, opponent=_resolve_opponents(opponents, run_dir),
                          reward=cfg.reward, map_size=tuple(cfg.map_size), max_enemies=cfg.max_enemies,
                          max_allies=cfg.max_allies, generator=gen,
                          agent_team=cfg.agent_team, advice=cfg.advice, clock=cfg.clock,
                          advice_parts=cfg.advice_parts, turn_order=cfg.turn_order)
        env.reset(seed=seed)
        return env
    return _thunk


def _atomic_write(path: Path, data: bytes) -> None:
    atomic_write(path, data, mode=umask_mode())   # readable as a file `open()` makes, not 0600


def _last_eval_step(csv_path: Path) -> int:
    """The step of the latest row of `eval.csv` (-1: none yet)."""
    try:
        rows = list(csv.DictReader(open(csv_path)))
    except OSError:
        return -1
    return max((int(r["step"]) for r in rows if (r.get("step") or "").isdigit()), default=-1)


def run_dir_for(cfg: TrainConfig) -> Path:
    name = cfg.run_name or f"{cfg.ruleset}__{cfg.features}__s{cfg.seed}__{datetime.now():%Y%m%d-%H%M%S}"
    return Path(cfg.out_dir) / name


def _stage_opponents(cfg: TrainConfig, steps: int) -> list[str]:
    for st in cfg.curriculum:
        if steps < st.until_steps:
            return list(st.opponents)
    return list(cfg.opponents)


def evaluate_win_rate(model, cfg: TrainConfig, run_dir: Path, opponent: str, episodes: int, seed: int) -> float:
    """Win rate with masks (sb3-contrib's maskable evaluate_policy) on held-out maps."""
    from sb3_contrib.common.maskable.evaluation import evaluate_policy
    from stable_baselines3.common.vec_env import DummyVecEnv

    venv = DummyVecEnv([make_env_fn(cfg, run_dir, [opponent], held_out=True, seed=seed)])
    wins = []

    def cb(locals_: dict, globals_: dict) -> None:
        if locals_["done"]:
            info = locals_["info"]
            # the info of the finished episode names its team (the env has already been reset)
            wins.append(1.0 if info.get("winner") == info.get("agent_team") else 0.0)

    evaluate_policy(model, venv, n_eval_episodes=episodes, deterministic=True, callback=cb, warn=False)
    venv.close()
    return float(np.mean(wins)) if wins else 0.0


def _plot(run_dir: Path) -> None:
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:  # the plot is optional (report extra)
        return
    rows = list(csv.DictReader(open(run_dir / "eval.csv")))
    if not rows:
        return
    fig, ax = plt.subplots(figsize=(6, 3.5))
    for opp in sorted({r["opponent"] for r in rows}):
        pts = [(int(r["step"]), float(r["win_rate"])) for r in rows if r["opponent"] == opp]
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=f"vs {opp}")
    ax.set_xlabel("environment steps")
    ax.set_ylabel("win rate (held-out maps)")
    ax.set_ylim(0, 1)
    ax.axhline(0.5, color="grey", lw=0.5)
    ax.legend()
    fig.tight_layout()
    fig.savefig(run_dir / "learning_curve.png", dpi=100)
    plt.close(fig)


def new_model(cfg: TrainConfig, venv, tensorboard_log: str | None = None):
    """A fresh MaskablePPO of the config's architecture and PPO settings on `venv` (its actor
    untrained: `import_actor` puts a start file's in)."""
    from sb3_contrib import MaskablePPO

    from training.features import SkirmishExtractor, SpatialMaskablePolicy

    p = cfg.ppo
    # `spatial`: the move actions get a convolutional head over the per-cell features
    policy = SpatialMaskablePolicy if cfg.features == "spatial" else "MultiInputPolicy"
    return MaskablePPO(
        policy, venv, learning_rate=p.learning_rate, n_steps=p.n_steps, batch_size=p.batch_size,
        n_epochs=p.n_epochs, gamma=p.gamma, gae_lambda=p.gae_lambda, clip_range=p.clip_range,
        ent_coef=p.ent_coef, vf_coef=p.vf_coef, max_grad_norm=p.max_grad_norm, seed=cfg.seed, device="cpu",
        tensorboard_log=tensorboard_log,
        policy_kwargs={"features_extractor_class": SkirmishExtractor,
                       "features_extractor_kwargs": {"mode": cfg.features},
                       "net_arch": {"pi": list(cfg.net_arch), "vf": list(cfg.net_arch)},
                       **({"advice_gain": list(cfg.advice_gain), "advice_only": cfg.advice_only}
                          if cfg.advice else {})})


def train(cfg: TrainConfig, resume: bool = False, progress: bool = True,
          on_eval: Callable[[int, str, float], None] | None = None) -> Path:
    """Train (or resume) a run; return its folder."""
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecMonitor

    run_dir = run_dir_for(cfg)
    ckpt_dir = run_dir / "checkpoints"
    latest = ckpt_dir / "latest.zip"
    latest_meta = ckpt_dir / "latest.json"
    if resume and not latest.exists():
        raise TacticaError("no checkpoint to resume", source=str(latest), field="--resume",
                           expected="a run folder with checkpoints/latest.zip")
    if not resume and latest.exists():
        raise TacticaError("the run folder already has checkpoints", source=str(run_dir), field="run_name",
                           expected="a new run name, or --resume")
    ckpt_dir.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(cfg.seed)
    torch.set_num_threads(1)

    opponents = _stage_opponents(cfg, 0)
    fns = [make_env_fn(cfg, run_dir, opponents, seed=cfg.seed * 1000 + i) for i in range(cfg.n_envs)]
    venv = SubprocVecEnv(fns, start_method="spawn") if cfg.vec_env == "subproc" and cfg.n_envs > 1 else DummyVecEnv(fns)
    venv = VecMonitor(venv)
    probe = make_env_fn(cfg, run_dir, ["random"])()
    layout_fp = probe.fingerprint()
    env_id = f"tactica/Skirmish-v0?ruleset={cfg.ruleset}"
    fp_hash = fingerprint_hash(layout_fp)
    if resume:
        try:
            meta = json.loads(latest_meta.read_text())
        except (OSError, ValueError):
            raise TacticaError("checkpoint metadata is missing or damaged", source=str(latest_meta), field="(file)",
                               expected="the JSON written beside latest.zip") from None
        if meta.get("fingerprint_hash") != fp_hash or meta.get("ruleset") != cfg.ruleset:
            raise TacticaError("the checkpoint was made for another ruleset or layout", source=str(latest),
                               field="fingerprint", expected=f"{cfg.ruleset} with this config's map size and slots")
        try:
            # loaded without the envs: `load(env=...)` would seed them from the config seed again
            model = MaskablePPO.load(str(latest), device="cpu", tensorboard_log=str(run_dir / "tb"))
        except Exception as e:  # zip/pickle errors from a damaged file
            raise TacticaError(f"cannot load checkpoint: {e.__class__.__name__}", source=str(latest),
                               field="(file)", expected="a checkpoint written by `tactica train`") from None
        if model.n_envs != cfg.n_envs:
            raise TacticaError(f"the checkpoint was trained with {model.n_envs} envs", source=str(latest),
                               field="n_envs", expected=f"the checkpoint's n_envs ({model.n_envs})")
        # the learner's own generators (action sampling, minibatch order) go on from a seed of
        # (seed, step), not from the run's start again; the envs get their saved generators
        model.set_random_seed(int(np.random.SeedSequence([cfg.seed, model.num_timesteps]).generate_state(1)[0]))
        try:
            model.set_env(venv)
        except (ValueError, AssertionError) as e:
            raise TacticaError(f"the checkpoint does not fit this config's envs ({e})", source=str(latest),
                               field="fingerprint", expected="the run's map size, slots and advice") from None
        if "env_rng" in meta:
            restore_rngs(venv, meta["env_rng"], str(latest_meta))
        else:   # a checkpoint from before env_rng: new seeds at least, not the run's first episodes again
            venv.seed(int(np.random.SeedSequence([cfg.seed, model.num_timesteps, 1]).generate_state(1)[0]))
        mode = getattr(model.policy.features_extractor, "mode", None)
        if mode != cfg.features:
            raise TacticaError(f"the checkpoint has {mode} features", source=str(latest), field="features",
                               expected=f"the checkpoint's features ({mode}), or a new run for {cfg.features}")
    else:
        model = new_model(cfg, venv, tensorboard_log=str(run_dir / "tb"))
        if cfg.init_from:
            try:
                import_actor(model, cfg.init_from, fp_hash)
            except TacticaError:
                venv.close()
                raise
    #: wall-clock seconds spent learning before this session (from the checkpoint on --resume)
    clock = {"before": float(meta.get("elapsed_s", 0.0)) if resume else 0.0, "start": time.perf_counter()}

    def elapsed() -> float:
        return clock["before"] + time.perf_counter() - clock["start"]

    # written once the checkpoint (on --resume) has been checked: a refused resume leaves the run as it was
    _atomic_write(run_dir / "config.yaml", yaml.safe_dump(cfg.to_dict(), sort_keys=False).encode())
    csv_path = run_dir / "eval.csv"
    if not csv_path.exists():
        csv_path.write_text("step,opponent,win_rate,episodes\n")
    last_eval = {"step": _last_eval_step(csv_path)}

    #: rounds of rollout policy iteration done (training/expert.py), kept in every checkpoint
    expert_done = {"rounds": int(meta.get("expert_iteration", 0)) if resume else 0}

    def checkpoint(step: int) -> None:
        buf = io.BytesIO()
        model.save(buf)
        _atomic_write(latest, buf.getvalue())
        # a fresh run's envs take the model's seeds (seed + i) at learning's first reset
        pending = None if resume or model._last_obs is not None else [cfg.seed + i for i in range(cfg.n_envs)]
        _atomic_write(latest_meta, json.dumps({"step": step, "ruleset": cfg.ruleset, "fingerprint_hash": fp_hash,
                                               "elapsed_s": round(elapsed(), 2),
                                               "expert_iteration": expert_done["rounds"],
                                               "env_rng": rng_states(venv, pending)}).encode())
        export_model(model, run_dir / "policy.npz", layout_fp, env_id, {"steps": step, "config": cfg.to_dict()})

    def evaluate(step: int) -> dict[str, float]:
        """Evaluate against each of `eval_opponents`: a row of eval.csv each; their win rates."""
        rates = {}
        for opp in cfg.eval_opponents:
            wr = evaluate_win_rate(model, cfg, run_dir, opp, cfg.eval_episodes, seed=cfg.seed + step)
            with open(csv_path, "a") as f:
                f.write(f"{step},{opp},{wr:.4f},{cfg.eval_episodes}\n")
            rates[opp] = wr
            if on_eval:
                on_eval(step, opp, wr)
        last_eval["step"] = step
        return rates

    class Loop(BaseCallback):
        def __init__(self) -> None:
            super().__init__()
            self.next_ckpt = ((model.num_timesteps // cfg.checkpoint_interval) + 1) * cfg.checkpoint_interval \
                if cfg.checkpoint_interval else None
            self.next_eval = ((model.num_timesteps // cfg.eval_interval) + 1) * cfg.eval_interval \
                if cfg.eval_interval else None
            self.stage = opponents
            self.t0 = time.perf_counter()
            self.s0 = model.num_timesteps
            self.last_wr = float("nan")
            self.prog = None
            self.task = None
            self.log = None   # plain progress lines where stdout is a log, not a terminal

        def _on_rollout_start(self) -> None:
            torch.set_num_threads(1)   # the env processes have the cores while the rollouts are collected

        def _on_rollout_end(self) -> None:
            torch.set_num_threads(cfg.torch_threads)   # the update phase: the env processes wait

        def _on_training_start(self) -> None:
            if progress and not on_terminal():
                self.log = LogLines(f"train {cfg.ruleset}", "steps", start_done=model.num_timesteps)
            elif progress:
                from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
                self.prog = Progress(TextColumn("[bold]train[/] {task.description}"), BarColumn(),
                                     MofNCompleteColumn(), TextColumn("{task.fields[sps]:.0f} steps/s"),
                                     TextColumn("win {task.fields[wr]}"), TimeRemainingColumn())
                self.prog.start()
                self.task = self.prog.add_task(cfg.ruleset, total=cfg.total_steps, completed=model.num_timesteps,
                                               sps=0.0, wr="-")

        def _on_step(self) -> bool:
            n = self.num_timesteps
            if cfg.time_limit_minutes and elapsed() > 60.0 * cfg.time_limit_minutes:
                if self.prog is not None:
                    self.prog.console.print(f"time limit of {cfg.time_limit_minutes:g} min reached at step {n}")
                elif self.log is not None:
                    print(f"time limit of {cfg.time_limit_minutes:g} min reached at step {n}", flush=True)
                return False
            st = _stage_opponents(cfg, n)
            if st != self.stage:
                self.training_env.env_method("set_opponents", _resolve_opponents(st, run_dir))
                self.stage = st
            if self.next_ckpt is not None and n >= self.next_ckpt:
                checkpoint(n)
                self.next_ckpt += cfg.checkpoint_interval
            if self.next_eval is not None and n >= self.next_eval:
                for opp, wr in evaluate(n).items():
                    self.logger.record(f"eval/win_rate_vs_{opp}", wr)
                    self.last_wr = wr
                _plot(run_dir)
                self.next_eval += cfg.eval_interval
            if self.prog is not None and n % 64 == 0:
                sps = (n - self.s0) / max(1e-9, time.perf_counter() - self.t0)
                self.prog.update(self.task, completed=n, sps=sps,
                                 wr="-" if self.last_wr != self.last_wr else f"{self.last_wr:.0%}")
            elif self.log is not None and n % 64 == 0:
                self.log.update(n, cfg.total_steps,
                                "" if self.last_wr != self.last_wr else f"last evaluation won {self.last_wr:.0%}")
            return True

        def _on_training_end(self) -> None:
            if self.prog is not None:
                self.prog.stop()
            elif self.log is not None:
                print(f"train {cfg.ruleset}: {self.num_timesteps:,} steps, "
                      f"{duration(time.perf_counter() - self.t0)} this run", flush=True)

    if not resume and (cfg.pretrain.samples > 0 or cfg.pretrain.demos):
        torch.set_num_threads(cfg.torch_threads)
        _pretrain(model, cfg, run_dir, progress, layout_fp, env_id)
        torch.set_num_threads(1)
        checkpoint(0)
        if cfg.eval_interval:
            evaluate(0)
        _plot(run_dir)

    if model.num_timesteps == 0 and expert_done["rounds"] < cfg.expert.iterations:
        from training.expert import run_rounds

        def save(k: int) -> None:
            expert_done["rounds"] = k
            checkpoint(0)

        run_rounds(model, cfg, run_dir, expert_done["rounds"], save,
                   lambda path: export_model(model, path, layout_fp, env_id), progress)

    remaining = cfg.total_steps - model.num_timesteps
    try:
        if remaining > 0:
            model.learn(total_timesteps=remaining, callback=Loop(), reset_num_timesteps=not resume,
                        tb_log_name="ppo")
        checkpoint(model.num_timesteps)
        # the final policy is evaluated even when the run was shorter than one interval
        if cfg.eval_interval and cfg.eval_opponents and last_eval["step"] < model.num_timesteps:
            rates = evaluate(model.num_timesteps)
            if remaining > 0:   # learning ran: its logger writes to the run's TensorBoard folder
                for opp, wr in rates.items():
                    model.logger.record(f"eval/win_rate_vs_{opp}", wr)
                model.logger.dump(model.num_timesteps)
        _plot(run_dir)
    finally:
        venv.close()
    return run_dir


def _pretrain(model, cfg: TrainConfig, run_dir: Path, progress: bool, layout_fp: dict[str, Any],
              env_id: str) -> dict[str, Any]:
    """The behaviour-cloning warm start (and its DAgger rounds); its figures go to pretrain.json
    in the run folder."""
    from training.pretrain import collect, fit, merge, mirrored

    pc = cfg.pretrain
    say = print if progress else (lambda *a, **k: None)
    t0 = time.perf_counter()
    if pc.demos:
        demos = _load_demos(Path(pc.demos), model)
        say(f"pretrain: {len(demos)} decisions from {pc.demos}", flush=True)
    else:
        say(f"pretrain: collecting {pc.samples} {pc.teacher} decisions ({pc.workers} workers) ...", flush=True)
        demos = collect(cfg, pc.samples, pc.teacher, workers=pc.workers, seed=cfg.seed)
    t1 = time.perf_counter()
    demos.save(run_dir / "demos.npz")
    say(f"pretrain: {len(demos)} decisions from {demos.episodes} fights ({demos.wins} won by the teacher, "
        f"{demos.skipped} not expressible) in {t1 - t0:.0f} s", flush=True)
    train_d, held = demos.split(pc.holdout, seed=cfg.seed) if pc.holdout > 0 else (demos, None)
    layout = make_env_fn(cfg, run_dir, ["random"])().layout if pc.mirror else None

    def fit_set(d):
        return mirrored(d, layout) if pc.mirror else d

    def on_epoch(e, loss, acc):
        say(f"pretrain: epoch {e}: loss {loss:.3f}, agrees with {pc.teacher} on {acc:.1%}", flush=True)

    def report(st):
        if held is not None and st and "held_out_accuracy" in st[-1]:
            r = st[-1]
            line = (f"pretrain: on {len(held)} held-out decisions the clone agrees with {pc.teacher} on "
                    f"{r['held_out_accuracy']:.1%}")
            if "held_out_advisor_accuracy" in r:
                line += (f" (following the advisor: {r['held_out_advisor_accuracy']:.1%}); of its "
                         f"{r['held_out_departures']} departures from the advisor {r['held_out_departures_right']:.0%} "
                         f"are {pc.teacher}'s")
            say(line, flush=True)

    stats = fit(model, fit_set(train_d), epochs=pc.epochs, batch_size=pc.batch_size, learning_rate=pc.learning_rate,
                vf_coef=cfg.ppo.vf_coef, seed=cfg.seed, overrule_weight=pc.overrule_weight, held_out=held,
                value_weight=pc.value_weight, value_temperature=pc.value_temperature, on_epoch=on_epoch)
    report(stats)
    if stats and stats[-1].get("unreachable"):
        say(f"pretrain: {stats[-1]['unreachable']} of {pc.teacher}'s decisions are outside what the policy can "
            "choose (not ranked by the advisor): left out", flush=True)
    if stats and "overrules" in stats[-1]:
        say(f"pretrain: {pc.teacher} overruled the advisor on {stats[-1]['overrules']} decisions; the clone "
            f"agrees with {stats[-1]['overrule_accuracy']:.1%} of those", flush=True)
    info = {"teacher": pc.teacher, "samples": len(demos), "episodes": demos.episodes, "teacher_wins": demos.wins,
            "skipped": demos.skipped, "collect_s": round(t1 - t0, 1),
            "fit_s": round(time.perf_counter() - t1, 1), "held_out": len(held) if held is not None else 0,
            "mirror": pc.mirror, "demos_from": pc.demos or None, "epochs": stats, "dagger": []}
    for k in range(pc.dagger_rounds):
        t0 = time.perf_counter()
        student = export_model(model, run_dir / "dagger-student.npz", layout_fp, env_id)
        n = pc.dagger_samples or pc.samples or len(demos)   # refitting saved demos: as many again
        say(f"pretrain: DAgger round {k + 1}: the clone plays {n} decisions, {pc.teacher} labels them ...",
            flush=True)
        more = collect(cfg, n, pc.teacher, workers=pc.workers, seed=cfg.seed + 1 + k, learner=student,
                       teacher_share=pc.dagger_teacher_share)
        t1 = time.perf_counter()
        say(f"pretrain: DAgger round {k + 1}: the clone won {more.wins} of {more.episodes} fights; "
            f"refitting on {len(demos) + len(more)} decisions", flush=True)
        demos = merge(demos, more)
        train_d = merge(train_d, more)
        st = fit(model, fit_set(train_d), epochs=pc.dagger_epochs or pc.epochs, batch_size=pc.batch_size,
                 learning_rate=pc.learning_rate, vf_coef=cfg.ppo.vf_coef, seed=cfg.seed + 1 + k,
                 overrule_weight=pc.overrule_weight, held_out=held, value_weight=pc.value_weight,
                 value_temperature=pc.value_temperature, on_epoch=on_epoch)
        report(st)
        info["dagger"].append({"round": k + 1, "samples": len(more), "episodes": more.episodes,
                               "student_wins": more.wins, "collect_s": round(t1 - t0, 1),
                               "fit_s": round(time.perf_counter() - t1, 1), "epochs": st})
        student.unlink(missing_ok=True)
    _atomic_write(run_dir / "pretrain.json", (json.dumps(info, indent=2) + "\n").encode())
    return info


def _load_demos(path: Path, model):
    """Saved demonstrations (`pretrain.demos`), checked against this run's observation and
    action spaces."""
    import zipfile

    from training.pretrain import Demos

    try:
        demos = Demos.load(path)
    except (OSError, ValueError, KeyError, zipfile.BadZipFile) as e:
        raise TacticaError(f"cannot read the demonstrations ({e.__class__.__name__})", source=str(path),
                           field="pretrain.demos", expected="a demos.npz written by `tactica train`") from None
    spaces = model.observation_space.spaces
    got = {k: tuple(v.shape[1:]) for k, v in demos.obs.items()}
    want = {k: tuple(sp.shape) for k, sp in spaces.items() if k != "action_mask"}
    n_act = int(model.action_space.n)
    if got != want or demos.masks.shape[1:] != (n_act,):
        raise TacticaError(f"the demonstrations have observations {got} and {demos.masks.shape[1]} actions",
                           source=str(path), field="pretrain.demos",
                           expected=f"demonstrations of this config's ruleset, map size, slots and advice: "
                                    f"{want} and {n_act} actions")
    return demos


def config_dict(cfg: TrainConfig) -> dict[str, Any]:
    return asdict(cfg)
