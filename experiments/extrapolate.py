"""Weight extrapolation along a refit (issue 31): from a start network A and a network B refitted from
it, write A + t (B - A) for each `--t` (t = 1 is B; t = 2 goes as far again past B; t = 0.5 is halfway).

A rollout policy iteration round (training/expert.py) moves the shipped networks only a little from
their start, and that little is where their gain over the start comes from (docs/results.md, "Does the
refit listen to the rollouts?"). If the direction of the move is what helps, going further along it
may help more; if the move is noise that happens to help, it will not. The networks must have the
same architecture (every array the same shape); the metadata (layout, architecture) is B's.

    python experiments/extrapolate.py --start training/init/cybergeneration-advice-parts.npz \\
        --refit tactica/policies/cybergeneration.npz --t 2 --t 3 --out /tmp/extrapolated
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np


def extrapolate(start: dict[str, np.ndarray], refit: dict[str, np.ndarray], t: float) -> dict[str, np.ndarray]:
    """A + t (B - A) for every float array (worked in float64, so t = 0 and t = 1 give A and B
    bit for bit); the others (metadata) as B has them."""
    if set(start) != set(refit):
        raise SystemExit(f"the networks hold different arrays: {sorted(set(start) ^ set(refit))}")
    out = {}
    for k, b in refit.items():
        a = start[k]
        if b.dtype.kind == "f":
            if a.shape != b.shape:
                raise SystemExit(f"{k}: shapes {a.shape} and {b.shape} differ (not the same architecture)")
            a64, b64 = a.astype(np.float64), b.astype(np.float64)
            out[k] = (a64 + t * (b64 - a64)).astype(b.dtype)  # in float64: t = 1 gives B exactly
        else:
            out[k] = b
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--start", required=True, help="the network the refit began from (.npz)")
    ap.add_argument("--refit", required=True, help="the refitted network (.npz)")
    ap.add_argument("--t", type=float, action="append", required=True, help="how far along B - A (repeatable)")
    ap.add_argument("--out", required=True, help="folder for the written networks (t-<T>.npz)")
    args = ap.parse_args(argv)
    with np.load(args.start) as fa, np.load(args.refit) as fb:
        start = {k: fa[k] for k in fa.files}
        refit = {k: fb[k] for k in fb.files}
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for t in args.t:
        path = out / f"t-{t:g}.npz"
        np.savez(path, **extrapolate(start, refit, t))
        print(path)


if __name__ == "__main__":
    sys.exit(main())
