"""How far a rollout policy iteration refit moves the network (issue 31), and refits of other strengths.

A round of rollout policy iteration (training/expert.py) labels decisions with rollouts and then
refits the network on the kept ones, together with the anchor. This script does the refit alone,
offline, from a finished run's files, so that the fit's strength can be varied on the very same labels:

- the start network (`--start`: the file the run began from, its `init_from`);
- the run folder (`--run`): `expert-anchor.npz` (the soft anchor: the start network's own
  distribution on its 3,000 recorded decisions) and `expert-demos.npz` (every round's kept decisions;
  `--rows N` keeps the first N, round 1's);
- the run's config (`--config`): the architecture and the fit's batch size, temperature and weights.

For each `--fit EPOCHS:LR` it refits a fresh copy of the start network and reports, on the kept
decisions whose best rollout value beats the start network's pick by more than `--gap`:
how often the refit's most likely action is now the rollouts' best, and the median probability of
that action before and after; and on the anchor's decisions, how often the refit still picks what the
start network picked (1.0 = the anchor holds). `--out DIR` writes each refit as `DIR/E-LR.npz`, to
evaluate with `tactica evaluate --policies DIR/E-LR.npz,...`. `--holdout 0.3` leaves 30% of the kept decisions'
fights out of the fit and reports the same counts on them (`held`): does what the refit learns carry to the
decisions of fights it never saw?

    python experiments/refit_strength.py --config training/configs/cortex_hu.yaml \
        --start training/init/cortex_hu-advice-parts.npz --run RUN_DIR --rows 250 \
        --fit 2:1e-4 --fit 8:3e-4 --out /tmp/refits
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from training.config import load_config  # noqa: E402


def build_model(cfg, start: str):
    """A MaskablePPO of the config's architecture with the actor of `start` (as `init_from` gives it)."""
    import tempfile

    import torch
    from stable_baselines3.common.vec_env import DummyVecEnv

    from training.export import fingerprint_hash, import_actor
    from training.train import make_env_fn, new_model

    torch.manual_seed(cfg.seed)
    fn = make_env_fn(cfg, Path(tempfile.mkdtemp(prefix="refit-strength-")), ["random"])
    layout_fp = fn().fingerprint()
    model = new_model(cfg, DummyVecEnv([fn]))
    import_actor(model, start, fingerprint_hash(layout_fp))
    return model, layout_fp


def heavier(anchor, copies: int):
    """The anchor's decisions `copies` times over (`--anchor-copies`), as one set of demonstrations."""
    from training.pretrain import merge

    if copies < 1:
        raise SystemExit(f"--anchor-copies: {copies} (expected 1 or more)")
    heavy = anchor
    for _ in range(copies - 1):
        heavy = merge(heavy, anchor)
    return heavy


def movement(probs0: np.ndarray, probs1: np.ndarray, demos, gap: float) -> dict:
    """How the refit moved the network on the kept decisions (`probs0`: before, `probs1`: after).

    A departure: a decision whose label (`actions`: the best candidate on the rollouts, the
    network's pick where none beats it by more than the run's `z` standard errors) is not the
    start network's pick, by more than `gap` in rollout value."""
    v = np.where(demos.masks & np.isfinite(demos.values), demos.values, -np.inf)
    best = demos.actions
    pick0 = probs0.argmax(axis=1)
    rows = np.arange(len(best))
    g = v[rows, best] - np.where(np.isfinite(v[rows, pick0]), v[rows, pick0], np.nan)
    sel = (best != pick0) & (g > gap)
    ties = (v == v.max(axis=1, keepdims=True)).sum(axis=1) > 1
    return {"kept": int(len(best)), "departures": int(sel.sum()), "tied_rows": int(ties.sum()),
            "learnt": float((probs1[sel].argmax(axis=1) == best[sel]).mean()) if sel.any() else float("nan"),
            "p_best_before": float(np.median(probs0[sel, best[sel]])) if sel.any() else float("nan"),
            "p_best_after": float(np.median(probs1[sel, best[sel]])) if sel.any() else float("nan"),
            "still_pick": float((probs1.argmax(axis=1) == pick0).mean())}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--config", required=True)
    ap.add_argument("--start", required=True)
    ap.add_argument("--run", required=True)
    ap.add_argument("--rows", type=int, default=0, help="the first N kept decisions (0: all)")
    ap.add_argument("--fit", action="append", default=[], help="EPOCHS:LR (repeatable)")
    ap.add_argument("--gap", type=float, default=0.0)
    ap.add_argument("--value-weight", type=float, default=None,
                    help="the soft targets' weight in the fit (default: the config's expert.value_weight)")
    ap.add_argument("--labels", choices=("rollouts", "hard", "pick"), default="rollouts",
                    help="`hard`: the rollouts' winners without their soft targets (the anchor keeps its own); "
                         "`pick`: a control, every kept decision labelled with the start network's own pick "
                         "(no soft targets), so the refit has the round's states but none of its verdicts")
    ap.add_argument("--anchor-copies", type=int, default=1,
                    help="fit the anchor's decisions this many times over (a heavier anchor; 1: as the recipe)")
    ap.add_argument("--temperature", type=float, default=None,
                    help="the soft targets' temperature (default: the config's expert.temperature)")
    ap.add_argument("--holdout", type=float, default=0.0,
                    help="leave this share of the kept decisions' fights out of the fit and report the same "
                         "movement on them (`held`): does what the refit learns carry to other fights' decisions?")
    ap.add_argument("--out", default="")
    ap.add_argument("--json", default="")
    a = ap.parse_args(argv)
    if not 0 <= a.holdout < 1:
        raise SystemExit(f"--holdout: {a.holdout} (expected a share of the fights, at least 0 and below 1)")

    import torch

    from training.expert import soft_rows
    from training.export import export_model
    from training.pretrain import Demos, fit, merge, probabilities

    cfg = load_config(a.config)
    ex = cfg.expert
    run = Path(a.run)
    anchor = Demos.load(run / "expert-anchor.npz")
    demos = Demos.load(run / "expert-demos.npz")
    if a.rows:
        demos = demos.subset(np.arange(min(a.rows, len(demos))))
    held = None
    if a.holdout:
        demos, held = demos.split(a.holdout, seed=cfg.seed)   # whole fights: no held-out decision has a twin in the fit
    fits = [(int(e), float(lr)) for e, lr in (f.split(":") for f in (a.fit or [f"{ex.epochs}:{ex.learning_rate}"]))]
    vw = ex.value_weight if a.value_weight is None else a.value_weight
    temp = ex.temperature if a.temperature is None else a.temperature
    torch.set_num_threads(cfg.torch_threads)
    out = []
    for epochs, lr in fits:
        model, layout_fp = build_model(cfg, a.start)
        p0, a0 = probabilities(model, demos), probabilities(model, anchor)
        h0 = probabilities(model, held) if held is not None else None
        kept = demos
        if a.labels != "rollouts":
            kept = dataclasses.replace(demos, values=np.full_like(demos.values, np.nan))
        if a.labels == "pick":
            kept = dataclasses.replace(kept, actions=p0.argmax(axis=1).astype(demos.actions.dtype))
        heavy = heavier(anchor, a.anchor_copies)
        fit_set = merge(heavy, kept)
        # as the rounds flag them (`--labels hard` or `pick` leave the kept decisions no soft targets)
        soft_only = soft_rows(ex, len(heavy), len(demos), kept_soft=a.labels == "rollouts")
        stats = fit(model, fit_set, epochs=epochs, batch_size=ex.batch_size, learning_rate=lr, vf_coef=cfg.ppo.vf_coef,
                    seed=cfg.seed * 1000, value_weight=vw, value_temperature=temp,
                    overrule_weight=ex.overrule_weight, soft_only=soft_only)
        p1, a1 = probabilities(model, demos), probabilities(model, anchor)
        row = {"epochs": epochs, "lr": lr, "value_weight": vw, "temperature": temp, "labels": a.labels,
               "anchor_copies": a.anchor_copies,
               **movement(p0, p1, demos, a.gap),
               "anchor_still_pick": float((a1.argmax(axis=1) == a0.argmax(axis=1)).mean()),
               "fit_accuracy": stats[-1]["accuracy"]}
        if held is not None:
            row["held"] = movement(h0, probabilities(model, held), held, a.gap)
        if a.out:
            Path(a.out).mkdir(parents=True, exist_ok=True)
            copies = f"-anchor{a.anchor_copies}" if a.anchor_copies != 1 else ""
            warm = f"-t{temp:g}" if temp != ex.temperature else ""
            path = Path(a.out) / f"{epochs}-{lr:g}-v{vw:g}{warm}{'' if a.labels == 'rollouts' else '-' + a.labels}{copies}.npz"
            export_model(model, path, layout_fp, f"tactica/Skirmish-v0?ruleset={cfg.ruleset}",
                         {"refit": {"start": a.start, "run": str(run), "rows": len(demos), "epochs": epochs, "lr": lr}})
            row["file"] = str(path)
        out.append(row)
        print(json.dumps(row), flush=True)
    if a.json:
        Path(a.json).write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
