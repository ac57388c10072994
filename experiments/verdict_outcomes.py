"""Do the rollout policy iteration's verdicts win fights? (issue 31)

A round of rollout policy iteration (training/expert.py) overrules the network where one of its
other candidates beats its pick on paired rollouts a round or two long, scored by the planner's
estimate of the position. Networks that learn those overrules play worse (docs/results.md, "Does the
refit listen to the rollouts?"). This script asks whether the verdicts are right about what matters:
at each overrule it plays the pick and the label to the end of the fight, `--rollouts` times each
on paired dice (`TurnDice`, seeds the labelling never uses), with the network playing its side, and
scores each fight +1 won, 0 drawn, -1 lost.

It labels the same decisions as the round: the jobs are `training.expert.label`'s, chunk by chunk
(`--chunks A:B`, so two processes can share a round), played in this process with
`training.expert.rollout_values` wrapped to look at every verdict as it is made; the labelling itself
is unchanged.

    python experiments/verdict_outcomes.py training/configs/cybergeneration.yaml --chunks 0:18 --json a.json
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from training import expert  # noqa: E402
from training.config import load_config  # noqa: E402


def to_the_end(env, net, cands: list[int], n: int, seed: tuple[int, ...], cap: int = 5000) -> np.ndarray:
    """(candidates, n) outcomes for the agent's side, +1 won, 0 drawn, -1 lost, of fights played to
    the end from the env's current decision after each candidate, on paired dice; the env is left
    as it was."""
    snap = env.clone_state()
    team = env.agent_team
    out = np.zeros((len(cands), n))
    for j in range(n):
        for i, c in enumerate(cands):
            _, info = expert.play_out(env, net, snap, c, (*seed, j), None, cap)  # the labelling's rollout, to the end
            w = info.get("winner")
            out[i, j] = 1.0 if w == team else (0.0 if w is None else -1.0)
    env.restore_state(snap)
    return out


def summary(records: list[dict]) -> dict:
    """Over the overrules: the mean full-fight edge of the label over the pick (outcome points, -2..2),
    its 95% interval, and how many overrules came out each way."""
    d = np.array([r["edge"] for r in records])
    if len(d) == 0:
        return {"overrules": 0}
    se = float(d.std(ddof=1) / np.sqrt(len(d))) if len(d) > 1 else float("nan")
    gaps = np.array([r["gap"] for r in records])
    corr = float(np.corrcoef(gaps, d)[0, 1]) if len(d) > 2 and d.std() > 0 and gaps.std() > 0 else float("nan")
    return {"overrules": len(d), "edge": float(d.mean()), "lo": float(d.mean() - 1.96 * se), "hi": float(d.mean() + 1.96 * se),
            "better": int((d > 0).sum()), "worse": int((d < 0).sum()), "level": int((d == 0).sum()),
            "corr_gap_edge": corr}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("config", help="the round's training config")
    ap.add_argument("--student", default="", help="the network (.npz; default: the config's init_from)")
    ap.add_argument("--round", type=int, default=1, help="the round whose jobs to play (their seeds)")
    ap.add_argument("--chunks", default="0:10", help="A:B, the round's jobs A to B-1")
    ap.add_argument("--rollouts", type=int, default=16, help="fights to the end per candidate and overrule")
    ap.add_argument("--json", default="", help="write the records and the summary here")
    args = ap.parse_args(argv)
    cfg = load_config(args.config)
    ex = dataclasses.asdict(cfg.expert)
    student = args.student or cfg.init_from
    a, b = (int(x) for x in args.chunks.split(":"))
    records: list[dict] = []
    original = expert.rollout_values

    def watched(env, net, cands, rollouts, seed, horizon, position_weight=1.0, reward_weight=0.0):
        sv = original(env, net, cands, rollouts, seed, horizon, position_weight, reward_weight)
        if sv is not None and len(seed) == 2:  # the first test (a confirmation's seed has three parts)
            differs, li, values = expert.judge(sv, ex["z"])
            if differs and li != 0:
                out = to_the_end(env, net, [cands[0], cands[li]], args.rollouts, (*seed, 0x0E17D))
                records.append({"seed": [int(x) for x in seed], "pick": int(cands[0]), "label": int(cands[li]),
                                "gap": float(values[li] - values[0]), "pick_score": float(out[0].mean()),
                                "label_score": float(out[1].mean()), "edge": float((out[1] - out[0]).mean()),
                                "edge_se": float((out[1] - out[0]).std(ddof=1) / np.sqrt(args.rollouts))})
                print(f"overrule {len(records)}: one-round gap {records[-1]['gap']:+.3f}, to the end "
                      f"{records[-1]['edge']:+.3f} (pick {records[-1]['pick_score']:+.2f}, label {records[-1]['label_score']:+.2f})",
                      flush=True)
        return sv

    expert.rollout_values = watched
    t0 = time.time()
    counts: dict[str, int] = {}
    try:
        for i in range(a, b):
            seed = int(np.random.SeedSequence([cfg.seed, 0xE1, args.round, i]).generate_state(1)[0])
            part = expert.label_chunk((cfg.to_dict(), str(student), expert.CHUNK, seed, ex))
            for k, v in part["counts"].items():
                counts[k] = counts.get(k, 0) + v
    finally:
        expert.rollout_values = original
    out = {"config": args.config, "chunks": [a, b], "rollouts": args.rollouts, "counts": counts,
           "seconds": round(time.time() - t0, 1), "summary": summary(records), "records": records}
    print(json.dumps(out["summary"]), json.dumps(counts))
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    sys.exit(main())
