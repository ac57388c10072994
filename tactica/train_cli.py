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
        resume: bool = typer.Option(False, "--resume", help="Continue the run from its latest checkpoint."),
        total_steps: Optional[int] = typer.Option(None, "--total-steps", help="Override total_steps."),
        run_name: Optional[str] = typer.Option(None, "--run-name", help="Override run_name."),
        out_dir: Optional[str] = typer.Option(None, "--out-dir", help="Override out_dir."),
    ) -> None:
        """Train MaskablePPO on SkirmishEnv; checkpoints, TensorBoard logs, eval CSV and curve in the run folder."""
        from training.config import load_config
        try:
            from training.train import train as run_train
        except ImportError as e:
            raise TacticaError(f"training needs the rl extra ({e.name} is missing)", field="install",
                               expected='pip install -e ".[rl]"') from None
        cfg = load_config(config)
        if total_steps is not None:
            cfg.total_steps = total_steps
        if run_name is not None:
            cfg.run_name = run_name
        if out_dir is not None:
            cfg.out_dir = out_dir
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
