"""`tactica evaluate --reuse-log OLD`: the fights another run's log holds that this run plays too, taken
instead of played again.

A fight's result depends only on the scenario, the policy playing each side, the run's seed, the
fight's index for its dice and the dice streams (evaluation/tournament.py `_play`): not on the other
pairs of the run, the number of scenarios or the order they are played in. With the per-scenario
seeding (`--fight-seeds scenario`, the default) the s-th scenario's fights are seeded from (seed,
s x fights a side + k), so the first 100 maps of a 400-map run are the fights a 100-map run played.
The usual way to study a player (docs/results.md) is a first look on 100 maps, then all 400: with
`--reuse-log` the 400-map run takes the 100-map run's fights (a quarter of its work) from its log.
A later call that adds a player to a table takes the other players' fights from the first call's log.

A fight of the old log is taken where this run has a fight with the same scenario (by name, and the
same maps, figures and settings: the old header's digest is checked against this run's scenarios),
the same policy on each side (a policy file by the same content), the same seed, dice index and dice
streams. The old log must come from the same code, as a resumed log must (the header cannot tell):
a run on other code plays other fights. Whatever the old log holds that this run does not play is
left out; a file holding several runs' logs one after the other gives each run's fights. Anything
that makes a fight of it unsure (a header of another format, other dice streams, a policy file that
changed, maps that differ) is an error naming the file and the field.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any, Sequence

from evaluation.fight_log import VERSION, _digest, fight_row
from rules.errors import TacticaError


def _error(path: Path, what: str, field: str, expected: str) -> TacticaError:
    return TacticaError(what, source=str(path), field=field, expected=expected)


def _read(path: Path) -> list[Any]:
    """The log's lines, parsed (a last line cut short dropped, as a resumed run drops it); a `.gz` file
    is read through gzip."""
    try:
        raw = path.read_bytes()
        if path.suffix == ".gz":  # a log kept with the results (experiments/results/table-*.jsonl.gz)
            raw = gzip.decompress(raw)
    except (OSError, EOFError) as e:
        raise _error(path, f"cannot read it: {getattr(e, 'strerror', None) or e}", "--reuse-log",
                     "the fights' log of an earlier `tactica evaluate --fights-log` run") from None
    lines = raw.split(b"\n")
    lines.pop()   # b"" after a final newline; else a line whose write did not finish
    rows = []
    for n, line in enumerate(lines, start=1):
        try:
            rows.append(json.loads(line))
        except (ValueError, UnicodeDecodeError):
            raise _error(path, f"line {n} is not JSON", "--reuse-log",
                         "the fights' log of an earlier `tactica evaluate --fights-log` run") from None
    if not rows or not isinstance(rows[0], dict) or rows[0].get("tactica_fight_log") != VERSION:
        raise _error(path, "the first line is not a fight log's header", "tactica_fight_log",
                     f"the log of `tactica evaluate --fights-log`, version {VERSION}")
    return rows


def _identity(name: str, f: Any) -> tuple:
    """What decides a fight: the scenario, the first and the second side's policy, the seed and the
    fight's dice index (`_play`)."""
    first, other = (f.b, f.a) if f.swapped else (f.a, f.b)
    return name, first, other, f.seed, f.k if f.dice is None else f.dice


def reused_fights(path: str | Path, header: dict[str, Any], scenarios: Sequence[tuple[Any, str]],
                  fights: Sequence[Any]) -> dict[int, str | None]:
    """{this run's plan index: winner} of the fights the log at `path` holds that this run (its
    `header`, `scenarios` and planned `fights`) plays too. A file that holds several runs' logs one
    after the other (each from its header line on, as `cat a.jsonl b.jsonl` writes them) gives the
    fights of each."""
    path = Path(path)
    rows = _read(path)
    starts = [n for n, r in enumerate(rows) if isinstance(r, dict) and "tactica_fight_log" in r] + [len(rows)]
    out: dict[int, str | None] = {}
    for a, b in zip(starts, starts[1:]):
        out.update(_one_run(path, rows[a:b], a, header, scenarios, fights))
    return out


def _one_run(path: Path, rows: list[Any], first: int, header: dict[str, Any], scenarios: Sequence[tuple[Any, str]],
             fights: Sequence[Any]) -> dict[int, str | None]:
    """`reused_fights` of one run's log: `rows` from its header line on, `first` the header's index
    among the file's lines."""
    from evaluation.tournament import plan_fights

    head = rows[0]
    if first and head.get("tactica_fight_log") != VERSION:
        raise _error(path, f"line {first + 1} is not a fight log's header", "tactica_fight_log",
                     f"the log of `tactica evaluate --fights-log`, version {VERSION}")
    for key in ("dice_streams", "fight_seeds"):
        if head.get(key) != header[key]:
            raise _error(path, f"its fights were played with {key} {head.get(key)!r}", key,
                         f"{header[key]!r}, as this run plays them")
    old_names = head.get("scenarios")
    old_pols = head.get("policies")
    if (not isinstance(old_names, list) or not all(isinstance(x, str) for x in old_names)
            or not isinstance(old_pols, list) or not all(isinstance(x, str) for x in old_pols)
            or not isinstance(head.get("episodes"), int) or not isinstance(head.get("seeds"), list)):
        raise _error(path, "the header lacks the run's scenarios, policies, episodes or seeds", "tactica_fight_log",
                     "the header `tactica evaluate --fights-log` writes")
    # the same policy files: a network retrained under the same path plays other fights
    files_old, files_new = head.get("policy_files") or {}, header.get("policy_files") or {}
    for p in set(old_pols) & set(header["policies"]):
        if files_old.get(p) != files_new.get(p):
            raise _error(path, f"policy file {p} has changed since its fights were played", "policy_files",
                         "the same file (or a new run without --reuse-log)")
    # the same maps, figures and settings under each name: the old digest, from this run's specs
    by_name = {spec.name: (spec, src) for spec, src in scenarios}
    missing = [n for n in old_names if n not in by_name]
    if missing:
        raise _error(path, f"it played {missing[0]}, which this run does not", "scenarios",
                     "a log of scenarios this run plays too (its maps are checked against this run's)")
    if _digest("\n\0".join(repr(by_name[n][0]) for n in old_names)) != head.get("scenario_specs"):
        raise _error(path, "its scenarios hold other maps, figures or settings than this run's of the same names",
                     "scenario_specs", "a log of the same scenarios")
    try:
        old_fights = plan_fights(len(old_names), old_pols, head["episodes"], head["seeds"], head.get("against"),
                                 head["fight_seeds"])
    except (TacticaError, TypeError, ValueError):
        raise _error(path, "its header does not give a plan of fights", "tactica_fight_log",
                     "the header `tactica evaluate --fights-log` writes") from None
    index = {_identity(scenarios[f.scenario][0].name, f): i for i, f in enumerate(fights)}
    out: dict[int, str | None] = {}
    for n, row in enumerate(rows[1:], start=first + 2):
        i = row.get("i") if isinstance(row, dict) else None
        if not isinstance(i, int) or not 0 <= i < len(old_fights) or row != fight_row(i, old_fights[i],
                                                                                       row.get("winner")):
            raise _error(path, f"line {n} is not a fight of its run", "--reuse-log",
                         "the lines `tactica evaluate --fights-log` writes")
        winner = row["winner"]
        if winner is not None and not isinstance(winner, str):
            raise _error(path, f"line {n}: winner {winner!r}", "winner", "a team name or null")
        j = index.get(_identity(old_names[old_fights[i].scenario], old_fights[i]))
        if j is not None:
            out[j] = winner
    return out


__all__ = ["reused_fights"]
