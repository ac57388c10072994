"""Where a teacher's demonstrations overrule the env's advisor, by kind of action.

    python experiments/demo_overrules.py runs/cortex_hu-clone-planner-bold

Reads the run folder's `demos.npz` (written by every run with `pretrain:`) and its
`config.yaml` (for the action layout), and counts the decisions where the teacher chose
another action than the advisor's pick (`training.pretrain.overrules`), grouped as
"advisor's kind -> teacher's kind" (moves as `move`, the enemy and ally slot left out).
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def kind(layout, index: int) -> str:
    words = layout.describe(int(index))
    if words.startswith("move to"):
        return "move"
    return re.sub(r" -> (enemy|ally) slot \d+$", "", words)


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("run", help="a run folder with demos.npz and config.yaml")
    ap.add_argument("--top", type=int, default=12)
    args = ap.parse_args(argv)
    from rules.errors import TacticaError
    from training.config import load_config
    from training.pretrain import Demos, overrules
    from training.train import make_env_fn

    run = Path(args.run)
    try:
        cfg = load_config(run / "config.yaml")
        demos = Demos.load(run / "demos.npz")
    except (TacticaError, OSError, ValueError, KeyError) as e:
        raise SystemExit(f"{run}: {e}") from None
    layout = make_env_fn(cfg, run, ["random"])().layout
    over = overrules(demos)
    adv = demos.obs["advice"][:, 0, :].argmax(axis=1) if "advice" in demos.obs else None
    groups = Counter((kind(layout, adv[i]), kind(layout, demos.actions[i])) for i in over.nonzero()[0]) \
        if adv is not None else Counter()
    print(f"{run}: {len(demos)} decisions, {int(over.sum())} overrule the advisor ({over.mean():.1%})")
    for (a, b), n in groups.most_common(args.top):
        print(f"  {n:5d}  {a} -> {b}")
    return {"decisions": len(demos), "overrules": int(over.sum()),
            "groups": {f"{a} -> {b}": n for (a, b), n in groups.items()}}


if __name__ == "__main__":
    main()
