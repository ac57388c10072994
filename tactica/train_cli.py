"""`tactica train` and `tactica export-policy` (torch is imported only when they run)."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from rules.errors import TacticaError
from tactica.textsafe import safe


def register(app: typer.Typer, friendly, out) -> None:
    @app.command()
    @friendly
    def train(
        config: Path = typer.Argument(..., help="A training config (training/configs/<ruleset>.yaml)."),
        resume: bool = typer.Option(False, "--resume", help=(
            "Continue the run from its latest checkpoint, with the run's saved config.yaml (CONFIG and "
            "--run-name/--out-dir name the run); its envs go on drawing where they were.")),
        sets: Optional[list[str]] = typer.Option(None, "--set", metavar="KEY=VALUE", help=(
            "Override any config field, repeatable: --set ppo.learning_rate=1e-4 --set pretrain.samples=2000 "
            "--set reward.draw=-1. The value is YAML (a list in brackets), checked as in a config file. On --resume "
            "only total_steps, time_limit_minutes, eval_*, checkpoint_interval, vec_env, torch_threads.")),
        total_steps: Optional[int] = typer.Option(None, "--total-steps", help="Override total_steps (--set total_steps=N)."),
        run_name: Optional[str] = typer.Option(None, "--run-name", help="Override run_name (--set run_name=NAME)."),
        out_dir: Optional[str] = typer.Option(None, "--out-dir", help="Override out_dir (--set out_dir=DIR)."),
    ) -> None:
        """Train MaskablePPO on SkirmishEnv; checkpoints, TensorBoard logs, eval CSV and curve in the run folder."""
        from training.config import load_config
        from training.overrides import apply_sets, differing, parse_set
        try:
            from training.train import run_dir_for, train as run_train
        except ImportError as e:
            raise TacticaError(f"training needs the rl extra ({e.name} is missing)", field="install",
                               expected='pip install -e ".[rl]"') from None
        direct = {k: v for k, v in (("total_steps", total_steps), ("run_name", run_name), ("out_dir", out_dir))
                  if v is not None}
        cfg = apply_sets(load_config(config), sets or [], direct)
        saved = run_dir_for(cfg) / "config.yaml"
        if resume and cfg.run_name and saved.exists():
            # the run goes on with its own config (its --set values included); only RESUMABLE fields change
            base = load_config(saved)
            where = {"run_name": cfg.run_name, "out_dir": cfg.out_dir}   # the folder may have moved
            resumed = apply_sets(base, sets or [], {**where, **direct}, resume=True)
            given = {*where, *direct, *(parse_set(i)[0] for i in sets or [])}
            ignored = [k for k in differing(load_config(config), base) if k not in given]
            if ignored:
                out.print(f"resuming with {safe(saved)}; {safe(config)} differs in {', '.join(ignored)} "
                          "(not used)", highlight=False)
            cfg = resumed
        elif resume:
            apply_sets(cfg, sets or [], direct, resume=True)   # the same refusals, before train() looks
        d = run_train(cfg, resume=resume, progress=True)
        out.print(f"run folder: {safe(d)}  (policy: {safe(d / 'policy.npz')})", highlight=False)

    @app.command("export-policy")
    @friendly
    def export_policy(
        run: Path = typer.Argument(..., help="A run folder (or its checkpoints/latest.zip)."),
        out_file: Path = typer.Option(..., "--out", help="The .npz to write."),
    ) -> None:
        """Export a run's actor as a pickle-free .npz that NumpyPolicy runs without torch."""
        import json

        from training.config import load_config
        from training.export import export_model
        try:
            from sb3_contrib import MaskablePPO
        except ImportError:
            raise TacticaError("exporting needs the rl extra", field="install", expected='pip install -e ".[rl]"') from None
        run_dir = run.parent.parent if run.suffix == ".zip" else run
        ckpt = run if run.suffix == ".zip" else run / "checkpoints" / "latest.zip"
        if not ckpt.exists():
            raise TacticaError("no checkpoint", source=str(ckpt), field="RUN", expected="a run folder of `tactica train`")
        cfg = load_config(run_dir / "config.yaml")
        from training.train import make_env_fn
        env = make_env_fn(cfg, run_dir, ["random"])()
        try:
            model = MaskablePPO.load(str(ckpt), device="cpu")
        except Exception as e:
            raise TacticaError(f"cannot load checkpoint: {e.__class__.__name__}", source=str(ckpt), field="(file)",
                               expected="a checkpoint written by `tactica train`") from None
        meta_path = ckpt.with_suffix(".json")
        steps = json.loads(meta_path.read_text()).get("step") if meta_path.exists() else None
        p = export_model(model, out_file, env.fingerprint(), f"tactica/Skirmish-v0?ruleset={cfg.ruleset}",
                         {"steps": steps, "config": cfg.to_dict()})
        out.print(f"wrote {safe(p)}", highlight=False)
