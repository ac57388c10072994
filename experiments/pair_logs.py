"""Two players on the same fights, fight by fight, from their fights' logs (also of a run still going).

`experiments/player_table.py` counts only the maps on which every player has finished every fight;
a run still going plays its fights spread over the maps, so most maps are incomplete. This pairs
the fights both logs hold, by (map, side, fight, dice seed): each fight scores 1 for a win, 1/2 for
a draw, 0 for a loss, from the named player's side; the difference's 95% interval is clustered by
(map, seed), whose two sides share a map and dice.

    python experiments/pair_logs.py runs/steady/hu-steady-400.jsonl planner-net-bold-steady \\
        experiments/results/table-cortex_hu-sel100.jsonl.gz sel100
"""

from __future__ import annotations

import argparse
import collections
import gzip
import json
import math
from pathlib import Path


def scores(path: str | Path, player: str) -> dict[tuple, float]:
    """(scenario, swapped, k, seed) -> the player's score in each fight of the log it played."""
    opener = gzip.open if str(path).endswith(".gz") else open
    out = {}
    with opener(path, "rt") as f:
        f.readline()   # the run's header
        for line in f:
            r = json.loads(line)
            if r["a"] != player:
                continue
            w = r["winner"]
            mine = "blue" if r["swapped"] else "red"
            out[(r["scenario"], r["swapped"], r["k"], r["seed"])] = 0.5 if w not in ("red", "blue") else float(w == mine)
    return out


def paired(a: dict[tuple, float], b: dict[tuple, float]) -> dict[str, float]:
    """Rates of both on the fights both played, and a - b with a 95% interval clustered by (map, seed)."""
    keys = sorted(set(a) & set(b))
    if not keys:
        raise SystemExit("the two logs share no fight")
    clusters: dict[tuple, list[float]] = collections.defaultdict(list)
    for k in keys:
        clusters[(k[0], k[3])].append(a[k] - b[k])
    n, m = len(keys), len(clusters)
    mean = sum(sum(v) for v in clusters.values()) / n
    var = sum((sum(v) - mean * len(v)) ** 2 for v in clusters.values()) / max(1, m - 1) * m / n ** 2
    se = math.sqrt(var)
    wins = lambda s: sum(s[k] == 1.0 for k in keys) / n  # noqa: E731
    return {"fights": n, "clusters": m, "a": sum(a[k] for k in keys) / n, "b": sum(b[k] for k in keys) / n,
            "a_wins": wins(a), "b_wins": wins(b), "diff": mean, "low": mean - 1.96 * se, "high": mean + 1.96 * se}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("log_a")
    ap.add_argument("player_a")
    ap.add_argument("log_b")
    ap.add_argument("player_b")
    args = ap.parse_args(argv)
    r = paired(scores(args.log_a, args.player_a), scores(args.log_b, args.player_b))
    print(f"{r['fights']} fights both played ({r['clusters']} map-seed pairs): {args.player_a} {r['a']:.1%} "
          f"(won {r['a_wins']:.1%}), {args.player_b} {r['b']:.1%} (won {r['b_wins']:.1%}), draws half; "
          f"difference {100 * r['diff']:+.1f} points (95% {100 * r['low']:+.1f} to {100 * r['high']:+.1f})")


if __name__ == "__main__":
    main()
