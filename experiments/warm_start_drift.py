"""How far a run's warm-start fit moves a network from itself (issue 31).

A rollout-policy-iteration config that starts from a shipped network (`init_from`) records
the network's own decisions (`pretrain.teacher`: the same file) and fits them once before the
first round. This runs that warm start alone (no expert rounds, no PPO) in a temporary folder
and reports `training.pretrain.judge` on the recorded decisions before and after the fit: the
share of its own picks the network keeps, and of its departures from the env's advisor.

    python experiments/warm_start_drift.py training/configs/experiments/cybergeneration-expert-network.yaml
    python experiments/warm_start_drift.py CONFIG --set pretrain.epochs=0
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("config")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="a config override, as `tactica train --set`")
    a = ap.parse_args(argv)

    import training.pretrain as pretrain
    from training.config import load_config
    from training.overrides import apply_sets
    from training.train import train

    cfg = load_config(a.config)
    if a.set:
        cfg = apply_sets(cfg, a.set)
    found: dict[str, dict] = {}
    real_fit = pretrain.fit

    def fit(model, demos, *args, **kw):
        found.setdefault("before", pretrain.judge(model, demos))
        out = real_fit(model, demos, *args, **kw)
        found["after"] = pretrain.judge(model, demos)
        return out

    pretrain.fit = fit
    with tempfile.TemporaryDirectory() as tmp:
        run = dataclasses.replace(cfg, expert=dataclasses.replace(cfg.expert, iterations=0), total_steps=0,
                                  eval_interval=0, out_dir=tmp, run_name="warm-start")
        train(run, progress=False)
    print(json.dumps({"config": a.config, "overrides": a.set, **found}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
