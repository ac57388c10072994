"""Generated maps with more figures a side than the networks were trained on, as scenario files.

    python experiments/big_fight_maps.py --ruleset cortex --team-size 5 --maps 80 --out runs/big
    tactica evaluate --policies ppo --against tactical --scenarios $(ls runs/big/cortex-t5-*.yaml | paste -sd,) \
        --episodes 1 --seed 1 --json

Each map is `envs.generators.generate_scenario(RULESET, 2,000,000 + i, team_size=N, width=20, height=14)`
(mirrored: the same templates on both sides, reflected starts), written as `RULESET-tN-i.yaml`. Used for
docs/benchmarks.md ("Fights larger than the table's"): does the network alone keep up with `tactical` when a side
has more figures than its slots (4 enemies, 3 allies)?
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from envs.generators import generate_scenario  # noqa: E402


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ruleset", default="cortex")
    ap.add_argument("--team-size", type=int, required=True, help="figures a side")
    ap.add_argument("--maps", type=int, default=80)
    ap.add_argument("--size", default="20x14", help="WxH")
    ap.add_argument("--out", default="runs/big")
    a = ap.parse_args(argv)
    w, _, h = a.size.partition("x")
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    for i in range(a.maps):
        doc = generate_scenario(a.ruleset, 2_000_000 + i, team_size=a.team_size, width=int(w), height=int(h))
        doc["name"] = f"{a.ruleset}-t{a.team_size}-{i}"
        (out / f"{doc['name']}.yaml").write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    print(f"{a.maps} maps in {out}")


if __name__ == "__main__":
    main()
