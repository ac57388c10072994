"""Digests of seeded fights, to show that a change to the engine or the scripted policies
leaves every fight as it was, event for event (issue 30: "The same seed gives the same
fights as before, event for event ... against the commit before this work").

Fight k of a ruleset is fixed by k alone: its scenario (the ruleset's bundled scenarios in
turn, then generated training maps), the policy of each team (drawn from the scripted
policies) and the seed of `evaluation.simulate.play_fight`. Its digest is the SHA-256 of
its event log (`rules.events.dumps`, one line an event), cut to 16 hex digits.

    python tests/fight_digests.py --write            # record 2,000 fights per ruleset
    python tests/fight_digests.py --check -n 100     # compare the first 100 of each

The recorded digests live in tests/golden/fight_digests/<ruleset>.txt, one line a fight:
`k digest scenario policies`. They were written at commit 031c02a, before the speed work
of issue 30, and re-recorded after the rules changes of issue 32 (the reason is in each
file's header: `--write --note TEXT`). A speed change must keep them; a rules change
re-records them in the same commit and says why.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path
from typing import Iterator

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from evaluation.simulate import check_policies, play_fight  # noqa: E402
from rules.events import dumps  # noqa: E402
from rules.scenario import bundled_scenarios, load_scenario  # noqa: E402

RULESETS = ("cortex", "cortex_hu", "metalface", "cybergeneration")
POLICIES = ("random", "aggressive", "cautious", "tactical", "bold")
DIGEST_DIR = Path(__file__).resolve().parent / "golden" / "fight_digests"
SEED = 30


def fight_plan(ruleset: str, k: int) -> tuple[str | dict, dict[str, str]]:
    """(scenario name or generated mapping, team -> policy) of fight k of a ruleset."""
    from envs.generators import generate_scenario
    bundled = [s for s in bundled_scenarios() if s.split("/")[0] == ruleset]
    if k % 2 == 0:
        scen: str | dict = bundled[(k // 2) % len(bundled)]
    else:
        scen = generate_scenario(ruleset, 1000 + k // 2)
    spec, _ = load_scenario(scen)
    teams = [t.name for t in spec.teams]
    # every ordered pair of policies in turn (25 pairs), on bundled and generated maps
    m = (k // 2 + 3 * (k % 2)) % (len(POLICIES) ** 2)
    first, second = m % len(POLICIES), m // len(POLICIES)
    pols = {t: POLICIES[(first + i * second) % len(POLICIES)] if i else POLICIES[first]
            for i, t in enumerate(teams)}
    return scen, pols


def digest(ruleset: str, k: int) -> tuple[str, str, str]:
    """(digest, scenario name, policies) of fight k."""
    scen, pols = fight_plan(ruleset, k)
    spec, src = load_scenario(scen)
    h = hashlib.sha256()
    play_fight(spec, check_policies(spec, pols), SEED, k, src,
               on_event=lambda e: h.update(dumps(e).encode() + b"\n"))
    return h.hexdigest()[:16], spec.name, ",".join(f"{t}={p}" for t, p in pols.items())


def recorded(ruleset: str) -> list[tuple[int, str]]:
    """(k, digest) pairs recorded for a ruleset."""
    out = []
    for line in (DIGEST_DIR / f"{ruleset}.txt").read_text().splitlines():
        if line and not line.startswith("#"):
            k, d = line.split()[:2]
            out.append((int(k), d))
    return out


def mismatches(ruleset: str, n: int) -> Iterator[str]:
    """A line for each of the first n recorded fights whose digest differs now."""
    for k, want in recorded(ruleset)[:n]:
        got, name, pols = digest(ruleset, k)
        if got != want:
            yield f"{ruleset} fight {k} ({name}, {pols}): {got} != recorded {want}"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--write", action="store_true", help="record digests (overwrites)")
    p.add_argument("--check", action="store_true", help="compare with the recorded digests (the default)")
    p.add_argument("-n", type=int, default=2000, help="fights per ruleset")
    p.add_argument("--ruleset", action="append", choices=RULESETS, help="default: all four")
    p.add_argument("--note", default="", help="with --write: why they are re-recorded (a header line after the earlier ones)")
    args = p.parse_args(argv)
    rulesets = args.ruleset or list(RULESETS)
    bad = 0
    for rs in rulesets:
        if args.write:
            DIGEST_DIR.mkdir(parents=True, exist_ok=True)
            lines = [f"# fight digests of {rs} (tests/fight_digests.py), seed {SEED}"]
            old = DIGEST_DIR / f"{rs}.txt"
            if old.exists():   # the earlier re-recordings' reasons stay, the newest last
                lines += [x for x in old.read_text().splitlines()[1:] if x.startswith("# ")]
            if args.note:
                lines.append(f"# {args.note}")
            for k in range(args.n):
                d, name, pols = digest(rs, k)
                lines.append(f"{k} {d} {name} {pols}")
            (DIGEST_DIR / f"{rs}.txt").write_text("\n".join(lines) + "\n")
            print(f"{rs}: {args.n} digests written", flush=True)
        else:  # --check, the default
            for line in mismatches(rs, args.n):
                bad += 1
                print(line, flush=True)
            print(f"{rs}: checked {min(args.n, len(recorded(rs)))}", flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
