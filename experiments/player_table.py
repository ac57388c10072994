"""Issue 31's table: every player of a ruleset against one reference on the same paired fights.

Reads the JSON that `tactica evaluate --against REF --json` prints (several files may be
given: the cheap players in one call, a learned or search player in another, as long as they
were played on the same maps and seeds) and writes one Markdown table: per player, the
pooled win, loss and draw counts against the reference, the win rate with its Wilson 95%
interval, each dice seed's rate and their standard deviation (and its ratio to the binomial
sd one seed's rate would have if its fights were independent), and its difference from the
top row's rate on the same fights, with a 95% interval from the paired per-(map, seed)
differences (the rows share maps and dice, so this is tighter than the two intervals).

`--maps N` keeps the first N held-out maps only (`generated/<ruleset>/1000000` on), for a
player too slow for all 400: the other players' rows are then recounted on the same maps,
so the rows stay paired. `--seeds 1,2` likewise keeps those dice seeds only, for a player
played on fewer seeds than the others. Every row is recounted from the per-map, per-seed
entries, so a file that holds more than one ruleset's or seed set's fights is refused with a
message.

    python experiments/player_table.py runs/table/metalface-cheap.json --ruleset metalface
    python experiments/player_table.py a.json b.json --ruleset cortex --maps 100 --json out.json
    python experiments/player_table.py a.json slow.json --ruleset metalface --maps 100 --seeds 1,2
    python experiments/player_table.py runs/tables/cortex-planner.jsonl --ruleset cortex

A `.jsonl` file is read as a fights' log (`tactica evaluate --fights-log`; `.jsonl.gz` as the logs kept in
experiments/results), also of a run still going: only the maps on which every player has finished all its fights (on every seed, or on
`--seeds`) are counted.
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from evaluation.stats import wilson  # noqa: E402

FIRST_MAP = 1_000_000


def map_index(scenario: str, ruleset: str) -> int | None:
    """The held-out map's index (0 for seed 1,000,000), None for the pooled 'all' row."""
    prefix = f"generated/{ruleset}/"
    if not scenario.startswith(prefix):
        return None
    return int(scenario[len(prefix):]) - FIRST_MAP


def rows(paths: list[Path], ruleset: str, maps: int | None,
         keep_seeds: list[int] | None = None, vs: str | None = None) -> tuple[list[dict], str, list[int], int]:
    """One row per player (reference excluded), recounted over the kept maps and seeds
    (`keep_seeds`: only these dice seeds, which every file must hold; default: every file's,
    which must then be the same). Rows go by win rate; each has its paired difference from the
    first, or, with `vs`, from that player's row, which then comes first."""
    ref = None
    seeds: list[int] | None = list(keep_seeds) if keep_seeds else None
    acc: dict[str, dict] = {}
    all_maps: set[int] = set()
    for path in paths:
        if path.suffix == ".jsonl" or path.name.endswith(".jsonl.gz"):
            data = from_log(path, ruleset, keep_seeds)
        else:
            try:
                data = json.loads(path.read_text())
            except (OSError, json.JSONDecodeError) as e:
                sys.exit(f"{path}: cannot read the evaluate JSON ({e})")
        if not data.get("against"):
            sys.exit(f"{path}: field 'against' is empty; expected the output of `tactica evaluate --against REF --json`")
        if ref is not None and data["against"] != ref:
            sys.exit(f"{path}: field 'against' is {data['against']!r}, the other files' is {ref!r}")
        if keep_seeds:
            if missing := [x for x in keep_seeds if x not in data["seeds"]]:
                sys.exit(f"{path}: field 'seeds' is {data['seeds']}; --seeds asks for {missing} too")
        elif seeds is not None and data["seeds"] != seeds:
            sys.exit(f"{path}: field 'seeds' is {data['seeds']}, the other files' is {seeds}; "
                     "give --seeds to compare the seeds they share")
        if not isinstance(data.get("pairs"), list):
            sys.exit(f"{path}: no field 'pairs'; expected the output of `tactica evaluate --against REF --json` "
                     "(or its fights' log, .jsonl), not a player table's own JSON")
        ref, seeds = data["against"], seeds or data["seeds"]
        for p in data["pairs"]:
            idx = map_index(p["scenario"], ruleset)
            if idx is None:
                if p["scenario"] != "all":
                    sys.exit(f"{path}: scenario {p['scenario']!r} is not a held-out {ruleset} map")
                continue
            if maps is not None and idx >= maps:
                continue
            all_maps.add(idx)
            a, sign = (p["a"], 1) if p["b"] == ref else (p["b"], -1)
            if a == ref:
                continue
            row = acc.setdefault(a, {"player": a, "n": 0, "wins": 0, "losses": 0, "draws": 0,
                                     "maps": set(), "seed": {s: [0, 0, 0] for s in seeds}, "units": {}})
            if idx in row["maps"]:
                sys.exit(f"{path}: {a} on {p['scenario']} appears twice; give each player once")
            row["maps"].add(idx)
            for s in p["per_seed"]:
                if s["seed"] not in row["seed"]:
                    continue
                w = s["a_wins"] if sign == 1 else s["n"] - s["a_wins"] - s["draws"]
                row["n"] += s["n"]
                row["wins"] += w
                row["losses"] += s["n"] - w - s["draws"]
                row["draws"] += s["draws"]
                cell = row["seed"][s["seed"]]
                cell[0] += s["n"]
                cell[1] += w
                cell[2] += s["draws"]
                row["units"][(idx, s["seed"])] = w
    if not acc:
        sys.exit("no player has a map with all its fights: nothing to count (a log's run may not have finished "
                 "a map on every seed yet; --seeds counts the seeds it has)")
    out = []
    n_maps = len(all_maps)
    for row in acc.values():
        if row["maps"] != all_maps:
            sys.exit(f"{row['player']} has {len(row['maps'])} maps, the others {n_maps}: the rows would not be paired")
        lo, hi = wilson(row["wins"], row["n"])
        rates = [c[1] / c[0] for c in row["seed"].values() if c[0]]
        mean = sum(rates) / len(rates)
        sd = math.sqrt(sum((r - mean) ** 2 for r in rates) / (len(rates) - 1)) if len(rates) > 1 else 0.0
        out.append({"player": row["player"], "n": row["n"], "wins": row["wins"], "losses": row["losses"],
                    "draws": row["draws"], "win_rate": row["wins"] / row["n"], "ci_low": lo, "ci_high": hi,
                    "per_seed": rates, "sd": sd, "binomial_sd": binomial_sd(row), "units": row["units"]})
    out.sort(key=lambda r: -r["win_rate"])
    if vs is not None:
        first = [r for r in out if r["player"] == vs]
        if not first:
            sys.exit(f"--vs {vs!r}: no such player; expected one of {', '.join(r['player'] for r in out)}")
        out = first + [r for r in out if r is not first[0]]
    for r in out:
        r["diff"], r["diff_low"], r["diff_high"] = paired_difference(r["units"], out[0]["units"], r["n"])
    for r in out:
        del r["units"]
    return out, ref or "", seeds or [], n_maps


def from_log(path: Path, ruleset: str, keep_seeds: list[int] | None = None) -> dict:
    """A fights' log (`tactica evaluate --fights-log`, of a finished run or one still going) as the
    evaluate JSON `rows` reads, with only the maps on which every player has all its fights on every
    seed (of `keep_seeds`, where given), so the rows stay paired. (`tactica evaluate` plays the fights in a fixed shuffle, so the
    maps a run has finished so far are a fair sample of all of them.)"""
    from envs.generators import heldout_scenarios

    try:
        raw = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
        lines = raw.decode("utf-8").splitlines()
        head = json.loads(lines[0]) if lines else {}
    except (OSError, EOFError, UnicodeDecodeError, json.JSONDecodeError) as e:
        sys.exit(f"{path}: cannot read the fights' log ({e})")
    if not isinstance(head, dict) or "tactica_fight_log" not in head:
        sys.exit(f"{path}: the first line is not a fights' log header; expected a `tactica evaluate --fights-log` file")
    ref, names, seeds, episodes = head.get("against"), head["scenarios"], head["seeds"], head["episodes"]
    if not ref:
        sys.exit(f"{path}: field 'against' is empty; expected a log of `tactica evaluate --against REF`")
    index = [map_index(n, ruleset) for n in names]
    if None in index:
        sys.exit(f"{path}: scenario {names[index.index(None)]!r} is not a held-out {ruleset} map")
    first = [d["teams"][0]["name"] for d in heldout_scenarios(ruleset, max(index) + 1)]
    counts: dict[tuple, list[int]] = {}
    for n, line in enumerate(lines[1:], start=2):
        try:
            r = json.loads(line)
        except json.JSONDecodeError:
            if n == len(lines):
                continue   # a last line cut short: a run still writing, or stopped mid-write
            sys.exit(f"{path}: line {n} is not JSON")
        c = counts.setdefault((r["a"], r["b"], r["scenario"], r["seed"]), [0, 0, 0])
        c[0] += 1
        if r["winner"] is None:
            c[2] += 1
        elif (r["winner"] == first[index[r["scenario"]]]) != r["swapped"]:
            c[1] += 1
    pairs = [(p, ref) for p in head["policies"] if p != ref]
    done = [si for si in range(len(names))
            if all(counts.get((a, b, si, k), [0])[0] == episodes for a, b in pairs for k in keep_seeds or seeds)]
    if len(done) < len(names):
        print(f"{path}: {len(done)} of {len(names)} maps have every player's fights; the table counts those",
              file=sys.stderr)
    return {"against": ref, "seeds": seeds,
            "pairs": [{"a": a, "b": b, "scenario": names[si],
                       "per_seed": [{"seed": k, "n": counts[(a, b, si, k)][0], "a_wins": counts[(a, b, si, k)][1],
                                     "draws": counts[(a, b, si, k)][2]} for k in keep_seeds or seeds]}
                      for a, b in pairs for si in done]}


def binomial_sd(row: dict) -> float:
    """The standard deviation one seed's rate would have if its fights were independent draws
    at the pooled rate: the yardstick for the per-seed spread."""
    p = row["wins"] / row["n"]
    n_seed = row["n"] / len(row["seed"])
    return math.sqrt(p * (1 - p) / n_seed)


def paired_difference(a: dict, b: dict, n: int) -> tuple[float, float, float]:
    """A's win rate less B's, on the same fights, with a 95% normal interval from the spread
    of the per-(map, seed) differences (each unit is one map's fights with one dice seed)."""
    keys = sorted(a)
    d = [a[k] - b[k] for k in keys]
    m = len(d)
    mean = sum(d) / m
    var = sum((x - mean) ** 2 for x in d) / (m - 1) if m > 1 else 0.0
    per_fight = m / n                        # units are `n / m` fights each: rates are per fight
    half = 1.959963984540054 * math.sqrt(var / m) * per_fight
    return mean * per_fight, mean * per_fight - half, mean * per_fight + half


def markdown(table: list[dict], ref: str, seeds: list[int]) -> str:
    lines = [f"| player | fights | won | lost | drawn | win rate vs {ref} | Wilson 95% | per seed ({', '.join(map(str, seeds))}) | sd (points) | sd / binomial "
             f"| vs `{table[0]['player']}`, same fights (95%) |",
             "|---|---:|---:|---:|---:|---:|---|---|---:|---:|---|"]
    for r in table:
        per = " / ".join(f"{x:.1%}" for x in r["per_seed"])
        lines.append(f"| `{r['player']}` | {r['n']:,} | {r['wins']} | {r['losses']} | {r['draws']} | "
                     f"**{r['win_rate']:.1%}** | {r['ci_low']:.1%}-{r['ci_high']:.1%} | {per} | {100 * r['sd']:.1f} | "
                     + (f"{r['sd'] / r['binomial_sd']:.1f} | " if r["binomial_sd"] else "- | ")
                     + (f"{100 * r['diff']:+.1f} ({100 * r['diff_low']:+.1f} to {100 * r['diff_high']:+.1f})"
                        if r is not table[0] else "") + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="+", type=Path,
                    help="`tactica evaluate --against REF --json` outputs, or its --fights-log files (.jsonl, .jsonl.gz)")
    ap.add_argument("--ruleset", required=True)
    ap.add_argument("--maps", type=int, default=None, help="keep the first N held-out maps only")
    ap.add_argument("--seeds", default=None, metavar="S,S,...",
                    help="keep these dice seeds only (every file must hold them): for a player played on fewer seeds")
    ap.add_argument("--json", type=Path, default=None, help="also write the rows as JSON here")
    ap.add_argument("--vs", default=None, metavar="POLICY",
                    help="the row the differences are taken from, shown first (default: the top row)")
    ap.add_argument("--name", action="append", default=[], metavar="POLICY=LABEL",
                    help="show a player under a shorter name (a path, say); repeatable")
    args = ap.parse_args(argv)
    try:
        keep = [int(x) for x in args.seeds.split(",")] if args.seeds else None
    except ValueError:
        sys.exit(f"--seeds {args.seeds!r}: expected whole numbers separated by commas, e.g. 1,2")
    names = {}
    for item in args.name:
        policy, sep, label = item.rpartition("=")
        if not sep or not policy:
            sys.exit(f"--name {item!r}: expected POLICY=LABEL")
        names[policy] = label
    vs = {v: k for k, v in names.items()}.get(args.vs, args.vs)   # a label or the policy itself
    table, ref, seeds, n_maps = rows(args.files, args.ruleset, args.maps, keep, vs)
    for r in table:
        r["player"] = names.get(r["player"], r["player"])
    print(f"{args.ruleset}: {n_maps} held-out maps x {len(seeds)} seeds x 2 sides, against {ref}\n")
    print(markdown(table, ref, seeds))
    if args.json:
        args.json.write_text(json.dumps({"ruleset": args.ruleset, "against": ref, "seeds": seeds,
                                         "maps": n_maps, "rows": table}, indent=1))


if __name__ == "__main__":
    main()
