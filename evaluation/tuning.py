"""Encounter tuning: turn declared knobs until the PC win probability hits a target.

A scenario declares what a GM is willing to change in its `tuning` block; every knob moves
in whole steps between `min` and `max`, and its value as written is its baseline:

```yaml
tuning:
  knobs:
    # how many figures of a template a team fields (added ones copy the last such figure and
    # stand at the listed `cells`, else at the free cells nearest the team)
    - {kind: count, team: syndicate, template: mercenary, min: 0, max: 3}
    # die steps up or down from the stat block as written (a figure, or every figure of a
    # team); `attribute` is one name or a list stepped together (attributes or skills)
    - {kind: trait_step, figure: heavy, attribute: [agility, strength], min: -2, max: 2}
    - {kind: trait_step, team: syndicate, attribute: vitality, min: -1, max: 1}
    # which weapons a figure carries: choices from weakest to strongest; one of them must be
    # what the figure carries as written
    - {kind: weapon, figure: gunman1, choices: [pistol, [rifle], [shotgun]]}
    # start the team N cells farther from (N < 0: nearer) the other teams
    - {kind: distance, team: syndicate, min: -3, max: 3}
    # how many of the listed cells hold cover of `terrain` (in the order listed; the rest
    # become `floor`)
    - {kind: cover, cells: [[6, 4], [13, 4]], terrain: m, floor: ".", min: 0, max: 2}
```

Every knob may carry a `name`. Without a `tuning` block, `default_knobs` derives knobs that
suit most encounters: the count of the most common NPC template, and a team-wide step of
each of the NPC team's attack and toughness traits (one knob each).
Counts, distances, weapons and cover need nothing from the ruleset; a trait step writes a
stat-block override under the group that holds the trait (`attributes:`, `values:`,
`stats:` or `skills:`, see `TRAIT_GROUPS`), one die step (Cortex family) or one point
(whole-number traits) at a time; a ruleset that ignores the override is an error. Derived
step knobs use `DEFAULT_STEP_TRAITS` (cortex and cortex_hu: agility, strength, vitality;
metalface: per, str, end; cybergeneration: ref, body).

The search (`tune`) uses common random numbers: every candidate encounter is played on the
same fight seeds `(seed, 0..n-1)`, so two candidates differ by what changed, not by luck.
From the scenario as written it moves one knob one step at a time to the neighbour whose
win rate is nearest the target, until that is within half the tolerance or no neighbour
is nearer. Counts and trait steps are stepped only toward the target (another foe or a foe's
trait up makes the fight harder for the PCs, a PC's easier: `knob_sign`, an assumption);
weapons, distances and cover, whose effect depends on the map, are tried both ways
(`directed=False` tries every knob both ways). The result is then measured afresh on other seeds (`check_seed`, default
`seed + 1`), and that fresh measurement, with its interval, is what the report stands on.
When the fresh measurement misses the tolerance, the search goes on from there for up to
`refine` more rounds, each on new seeds and twice the fights per candidate (round r
searches on `seed + 2r` and checks on `check_seed + 2r`).

The search of a round is `evaluation.tune_search.search_round`: it never leaves a setting
inside the band (target +- tolerance) for one outside it, and it reports every candidate
it plays, every step, stop and fresh check, with the reason, as a `Note` (`on_note`).
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import yaml

from evaluation.difficulty import (Estimate, assess, figure_count, interval, label_for, pc_team_of, resolve_policies,
                                   run_fights, table_npcs, tally)
from evaluation.parallel import FightPool
from evaluation.tune_search import Note, check_note, in_band, search_round
from rules.errors import TacticaError
from rules.scenario import build_state, parse_scenario, resolve_scenario
from evaluation.knobs import (  # noqa: F401 - the knobs' API, importable from here as before
    DEFAULT_STEP_TRAITS, TRAIT_GROUPS, Cell, CountKnob, CoverKnob, DistanceKnob, StepKnob, TuningSpec, WeaponKnob,
    apply_knobs, baseline, check_knobs, default_knobs, has_trait, knob_label, knob_range, knob_sign, parse_knobs,
    step_trait, values_dict)


def tune(scenario: str | Path | Mapping[str, Any], target_win: float, *, tolerance: float = 0.05,
         pc: str | None = None, policies: Mapping[str, str] | None = None, episodes: int = 400,
         check_episodes: int = 1000, seed: int = 0, check_seed: int | None = None, max_steps: int = 30,
         refine: int = 2,
         workers: int = 1, backend: str = "local", address: str | None = None, directed: bool = True,
         progress: Callable[[str, Estimate], None] | None = None,
         on_note: Callable[[Note], None] | None = None) -> dict[str, Any]:
    """Search the scenario's knobs for the target PC win rate (see the module doc).

    `progress(stage, estimate)` is called as fights finish (the stage names the round and the
    candidate or fresh check; `Estimate` holds the PC win rate so far and its interval);
    `on_note(note)` with every candidate tried, step taken, stop and fresh check, and why
    (`evaluation.tune_search.Note`).

    Returns a JSON-ready result; `result["document"]` is the tuned scenario document."""
    if not 0 < target_win < 1:
        raise TacticaError(f"target win {target_win!r}", field="--target-win", expected="a probability between 0 and 1")
    if not 0 < tolerance < 0.5:
        raise TacticaError(f"tolerance {tolerance!r}", field="--tolerance", expected="a number between 0 and 0.5")
    for val, fld, low in ((episodes, "--episodes", 1), (check_episodes, "--check-episodes", 1),
                          (max_steps, "--max-steps", 1), (refine, "--refine", 0)):
        if isinstance(val, bool) or not isinstance(val, int) or val < low:
            raise TacticaError(f"{val!r}", field=fld, expected=f"a whole number >= {low}")
    if isinstance(scenario, Mapping):
        doc, source = dict(scenario), "<scenario>"
    else:
        doc, source = resolve_scenario(scenario)
    spec = parse_scenario(doc, source)
    build_state(spec, source)
    pc_team = pc_team_of(spec, pc)
    pols = resolve_policies(spec, policies)
    knobs = parse_knobs(doc, spec, source, pc)
    declared = bool(spec.tuning)
    bases = [baseline(doc, k, spec, source) for k in knobs]
    ranges = [knob_range(k) for k in knobs]
    signs = [knob_sign(k, spec, pc_team, source) for k in knobs]
    check_seed = seed + 1 if check_seed is None else check_seed
    cols = ("values", "win_rate", "ci_low", "ci_high")
    path: list[dict[str, Any]] = []
    checks: list[dict[str, Any]] = []
    evaluated = 0

    say = on_note or (lambda note: None)

    with FightPool(workers, backend, address) as pool:
        cur = tuple(bases)
        for rnd in range(refine + 1):
            n, s_seed, c_seed = episodes * 2 ** rnd, seed + 2 * rnd, check_seed + 2 * rnd
            cache: dict[tuple[int, ...], dict[str, Any]] = {}

            def evaluate(values: tuple[int, ...], label: str) -> dict[str, Any]:
                if values in cache:
                    return cache[values]
                d = apply_knobs(doc, knobs, values, bases, source)
                sp = parse_scenario(d, source)
                build_state(sp, source)
                stage = f"round {rnd + 1}, candidate {len(cache) + 1}: {label}"
                cb = tally(pc_team, lambda est: progress(stage, est), n) if progress else None
                fights = run_fights(sp, pols, s_seed, range(n), pool, source, cb)   # common random numbers
                wins = sum(1 for f in fights if f.winner == pc_team)
                lo, hi = interval(wins, n)
                cache[values] = {"values": values_dict(knobs, values), "win_rate": wins / n,
                                 "ci_low": lo, "ci_high": hi, "episodes": n, "document": d}
                return cache[values]

            def change(i: int, old: int, new: int) -> str:
                k = knobs[i]
                lab = knob_label(k)
                return f"{lab}: {values_dict([k], [old])[lab]} -> {values_dict([k], [new])[lab]}"

            start = "start" if rnd else "as written"
            found = search_round(evaluate, cur, ranges, change, target_win, tolerance, max_steps,
                                 rnd=rnd + 1, start_label=start, note=say, signs=signs if directed else None)
            cur, res = found.values, found.result
            head = {"round": rnd + 1, "seed": s_seed, "episodes": n}
            path.append({**head, "step": 0, "change": start, **{k: found.start[k] for k in cols}})
            for step, text, r in found.moves:
                path.append({**head, "step": step, "change": text, **{kk: r[kk] for kk in cols}})
            evaluated += len(cache)
            tuned_doc = res["document"]
            bracket = nearest_across(cache, cur, res["win_rate"], target_win, change)
            cb = (lambda est: progress(f"round {rnd + 1}, fresh check", est)) if progress else None
            check = assess(parse_scenario(tuned_doc, source), pc=pc_team, policies=pols,
                           episodes=check_episodes, seed=c_seed, source=source, pool=pool, progress=cb)
            checks.append({"round": rnd + 1, "seed": c_seed, "episodes": check["episodes"],
                           "wins": check["pc_wins"], "deaths": round(check["p_pc_death"] * check["episodes"]),
                           "values": values_dict(knobs, cur),
                           "pc_win_rate": check["pc_win_rate"], "ci_low": check["ci_low"],
                           "ci_high": check["ci_high"], "label": check["label"], "p_pc_death": check["p_pc_death"]})
            pooled = pooled_check(checks)
            done = in_band(pooled["pc_win_rate"], target_win, tolerance)
            say(check_note(checks[-1], pooled, target_win, tolerance, more=None if done or rnd == refine else
                           (seed + 2 * (rnd + 1), episodes * 2 ** (rnd + 1))))
            if done:
                break
    check = pooled_check(checks)
    return {
        "scenario": spec.name, "source": source, "pc_team": pc_team, "policies": pols,
        "table_npcs": table_npcs(spec.ruleset, pc_team, pols, figure_count(spec)),
        "target_win": target_win, "tolerance": tolerance,
        "search_episodes": episodes, "seed": seed,
        "knobs_declared": declared,
        "knobs": [{"label": knob_label(k), **k.model_dump(exclude_none=True),
                   "as_written": values_dict([k], [b])[knob_label(k)]} for k, b in zip(knobs, bases)],
        "values": values_dict(knobs, cur), "changed": cur != tuple(bases),
        "path": path, "candidates_evaluated": evaluated, "checks": checks, "check": check,
        "pc_win_rate": check["pc_win_rate"], "ci_low": check["ci_low"], "ci_high": check["ci_high"],
        "within_tolerance": in_band(check["pc_win_rate"], target_win, tolerance),
        "across": bracket,
        "document": tuned_doc,
    }


def nearest_across(measured: Mapping[tuple[int, ...], Mapping[str, Any]], cur: tuple[int, ...], rate: float,
                   target: float, change: Callable[[int, int, int], str]) -> dict[str, Any] | None:
    """The one-step neighbour of the final settings `cur` (measured on the last round's dice) whose
    PC win rate lies on the other side of the target, the nearest to it: the target lies between
    the two, and that knob's step is too coarse to land on it. None when no neighbour crosses."""
    best = None
    for values, r in measured.items():
        diff = [i for i, (a, b) in enumerate(zip(values, cur)) if a != b]
        if len(diff) != 1 or abs(values[diff[0]] - cur[diff[0]]) != 1:
            continue
        w = r["win_rate"]
        if (w - target) * (rate - target) >= 0:
            continue
        if best is None or abs(w - target) < abs(best["win_rate"] - target):
            i = diff[0]
            best = {"change": change(i, cur[i], values[i]), "win_rate": w, "at": rate,
                    "episodes": r["episodes"]}
    return best


def pooled_check(checks: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The fresh measurement of the final settings: every fresh check of them pooled.

    Fresh checks are on distinct seeds, so when a round ends on the settings the previous
    round ended on, its fights and the earlier ones measure the same encounter together
    (rather than keeping whichever check happened to land in tolerance)."""
    last = checks[-1]
    same = [c for c in checks if c["values"] == last["values"]]
    wins, n = sum(c["wins"] for c in same), sum(c["episodes"] for c in same)
    deaths = sum(c["deaths"] for c in same)
    lo, hi = interval(wins, n)
    return {"rounds": [c["round"] for c in same], "seeds": [c["seed"] for c in same], "episodes": n,
            "wins": wins, "pc_win_rate": wins / n, "ci_low": lo, "ci_high": hi,
            "p_pc_death": deaths / n, "label": label_for(wins / n, deaths / n), "values": last["values"]}


def write_tuned(result: Mapping[str, Any], out: str | Path) -> Path:
    """Write the tuned scenario (YAML, or JSON for a .json name) with a note of how it was measured."""
    from rules.atomic import atomic_write

    out = Path(out)
    doc = result["document"]
    if out.suffix.lower() == ".json":
        import json
        atomic_write(out, json.dumps(doc, indent=2) + "\n", mode=0o644)
        return out
    c = result["check"]
    head = (f"# Tuned by `tactica tune` from {result['source']}: target PC win {result['target_win']:.0%} "
            f"+- {result['tolerance']:.0%}.\n# Measured afresh: {c['pc_win_rate']:.1%} "
            f"[{c['ci_low']:.1%}, {c['ci_high']:.1%}] over {c['episodes']} fights "
            f"(seeds {', '.join(map(str, c['seeds']))}), "
            f"policies {result['policies']}.\n")
    atomic_write(out, head + dump_yaml(doc), mode=0o644)   # whole or not at all (a full disk: one line)
    return out


def _scalar(x: Any) -> bool:
    return not isinstance(x, (dict, list))


def _simple(x: Any) -> bool:
    """A scalar, a list without mappings, or a mapping of scalars: fits on one line."""
    if isinstance(x, list):
        return all(_scalar(y) or (isinstance(y, list) and all(map(_scalar, y))) for y in x)
    if isinstance(x, dict):
        return all(map(_scalar, x.values()))
    return True


class _Flow(dict):
    flow = True


class _FlowList(list):
    flow = True


class _Row(str):
    pass


class _Dumper(yaml.SafeDumper):
    """Scenario files the way people write them: a figure per line, a map row per line."""


_Dumper.add_representer(_Row, lambda d, v: d.represent_scalar("tag:yaml.org,2002:str", str(v), style='"'))

_Dumper.add_representer(_Flow, lambda d, v: d.represent_mapping("tag:yaml.org,2002:map", v.items(), flow_style=True))
_Dumper.add_representer(_FlowList, lambda d, v: d.represent_sequence("tag:yaml.org,2002:seq", v, flow_style=True))


def dump_yaml(doc: Mapping[str, Any]) -> str:
    """A scenario document as YAML: leaf mappings (figures, knobs) and short lists inline."""
    def walk(v: Any, key: str | None, top: bool) -> Any:
        if isinstance(v, Mapping):
            inner = {k: walk(x, k, False) for k, x in v.items()}
            flat = not top and "rows" not in v and all(_simple(x) for x in v.values())
            return _Flow(inner) if flat else dict(inner)
        if isinstance(v, list):
            if key == "rows":
                return [_Row(x) if isinstance(x, str) else x for x in v]
            items = [walk(x, None, False) for x in v]
            return _FlowList(items) if key != "rows" and _simple(list(v)) and v else items
        return v
    return yaml.dump(walk(dict(doc), None, True), Dumper=_Dumper, sort_keys=False, width=120,
                     default_flow_style=False, allow_unicode=True)


def default_out(scenario: str | Path) -> Path:
    """`<name>.tuned.yaml` in the working folder."""
    return Path(Path(str(scenario)).stem + ".tuned.yaml")
