"""Encounter difficulty: how likely the party is to win a fight, and how bloody it will be.

`assess(spec, ...)` plays many fights of a scenario under real rules with a policy per team
and reports, for the PC team (the team marked `pc: true`, else the first; `--pc` where several are):

- `pc_win_rate` with its Wilson 95% interval (`ci_low`, `ci_high`), `draws`;
- `p_pc_down` / `p_pc_death`: the share of fights in which at least one PC went down at
  some point (a `down` or `dead` event, or down at the end) / died, each with an interval;
- `damage_taken`: expected damage taken per PC, in the ruleset's health units
  (`FightResult.damage_taken`; `per_figure` gives each figure's `max_health` beside it);
- `rounds_histogram` ({rounds: fights}) and its mean, median and 90th percentile;
- `per_figure`: each figure's down and death rates and damage taken;
- `label`, from the thresholds below, and `label_range`, the labels at the pessimistic and
  optimistic ends of the intervals (when they differ, more fights would settle it).

Difficulty labels (`LABELS`): the first row whose both conditions hold, on the point
estimates of the PC win rate and of P(at least one PC dies):

| label   | PC win rate | P(a PC dies) |
|---------|-------------|--------------|
| trivial | >= 0.95     | <= 0.02      |
| easy    | >= 0.85     | <= 0.10      |
| medium  | >= 0.65     | <= 0.25      |
| hard    | >= 0.40     | <= 0.50      |
| deadly  | otherwise   |              |

Fight `i` is seeded from `(seed, i)` (`evaluation.simulate.fight_streams`) and results are
reduced in index order, so a report is identical for any number of workers and on the
local or the Ray backend. With `precision=P` fights are played in batches until the
interval's half-width is at most P (or `max_episodes` is reached); the batch sizes depend
only on the results so far, never on the workers. Stopping on the data this way makes
the interval very slightly optimistic; it is a planning tool, not a trial.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

from agents.base import DEFAULT_POLICY, check_policy
from evaluation.parallel import FightPool
from evaluation.simulate import check_policies, play_fight
from evaluation.stats import wilson
from rules.errors import TacticaError
from rules.ruleset import get_ruleset
from rules.scenario import ScenarioSpec, build_state

DEFAULT_EPISODES = 1000
DEFAULT_MAX_EPISODES = 20_000
PRECISION_BATCH = 200
Z95 = 1.959963984540054

#: (label, minimum PC win rate, maximum P(at least one PC dies)); else "deadly"
LABELS: tuple[tuple[str, float, float], ...] = (
    ("trivial", 0.95, 0.02),
    ("easy", 0.85, 0.10),
    ("medium", 0.65, 0.25),
    ("hard", 0.40, 0.50),
)
LABEL_ORDER = tuple(lab for lab, _, _ in LABELS) + ("deadly",)


@dataclass(frozen=True)
class Fight:
    """What one fight came to, as difficulty needs it (small, so it travels cheaply)."""

    index: int
    winner: str | None
    rounds: int
    went_down: tuple[str, ...]      # figures that went down at any point (dead included)
    dead: tuple[str, ...]
    damage: tuple[tuple[str, float], ...]


def figure_labels(per_figure: Mapping[str, Mapping[str, Any]]) -> dict[str, str]:
    """Each figure of a report's `per_figure` as a GM knows it: its name ("Rico"), with its id where two
    figures share the name ("Goon (goon2)") or a report has none."""
    names = [v.get("name") or k for k, v in per_figure.items()]
    return {k: (n if names.count(n) == 1 else f"{n} ({k})") for (k, _), n in zip(per_figure.items(), names)}


def label_for(win_rate: float, death_rate: float) -> str:
    """The difficulty label for a PC win rate and a P(at least one PC dies)."""
    for label, min_win, max_death in LABELS:
        if win_rate >= min_win and death_rate <= max_death:
            return label
    return "deadly"


def pc_team_of(spec: ScenarioSpec, pc: str | None = None) -> str:
    """The PC team: `pc` if given (checked), else the team marked `pc: true` (an error where several are), else the
    first."""
    teams = [t.name for t in spec.teams]
    if pc is not None:
        if pc not in teams:
            raise TacticaError(f"no team {pc!r} in {spec.name}", field="--pc", expected="one of " + ", ".join(teams))
        return pc
    marked = [t.name for t in spec.teams if t.pc]
    if len(marked) > 1:
        # whose chance to win is reported must not be a guess: the first of them was taken silently before
        raise TacticaError(f"{len(marked)} teams of {spec.name} are marked pc: true ({', '.join(marked)})",
                           field="--pc", expected="--pc naming the team whose chance to win to report")
    return marked[0] if marked else teams[0]


def resolve_policies(spec: ScenarioSpec, policies: Mapping[str, str] | None,
                     default: str = DEFAULT_POLICY) -> dict[str, str]:
    """A policy per team: named ones, `*` for every other team, else `default`."""
    given = dict(policies or {})
    star = given.pop("*", default)
    for name in [star, *given.values()]:
        check_policy(name, "--policy")
    check_policies(spec, given)        # unknown teams are errors
    return {t.name: given.get(t.name, star) for t in spec.teams}


def play_one(payload: tuple, index: int) -> Fight:
    """Fight `index` of a run (a top-level function, so worker processes and Ray can call it)."""
    spec, policies, seed, source = payload
    went: set[str] = set()

    def watch(e: dict) -> None:
        if e["type"] in ("down", "dead"):
            went.add(e["target"])

    r = play_fight(spec, policies, seed, index, source, on_event=watch)
    went.update(r.down)
    return Fight(index=index, winner=r.winner, rounds=r.rounds, went_down=tuple(sorted(went)),
                 dead=tuple(sorted(r.dead)), damage=tuple(sorted(r.damage_taken.items())))


def run_fights(spec: ScenarioSpec, policies: Mapping[str, str], seed: int, indices: Sequence[int],
               pool: FightPool, source: str | None = None,
               on_fights: Callable[[list[Fight]], None] | None = None) -> list[Fight]:
    """Play fights `indices` of the run seeded with `seed`, results in index order.

    `on_fights(new)` is called with each batch of fights as it finishes (see `tally`)."""
    return pool.map(play_one, (spec, dict(policies), int(seed), source), indices, on_results=on_fights)


@dataclass(frozen=True)
class Estimate:
    """The PC win rate so far while fights are being played, with its Wilson 95% interval.

    What a progress display shows: `done` of `total` fights finished (`total` may grow in a
    precision run), `wins` of them won by the PC team. On the Ray backend fights finish out of
    order, so a running estimate may differ from the final one until the last fight is in."""

    done: int
    total: int
    wins: int
    rate: float
    ci_low: float
    ci_high: float

    @classmethod
    def of(cls, wins: int, done: int, total: int) -> "Estimate":
        lo, hi = interval(wins, done) if done else (0.0, 1.0)
        return cls(done=done, total=total, wins=wins, rate=wins / done if done else 0.0, ci_low=lo, ci_high=hi)


def tally(pc_team: str, progress: Callable[[Estimate], None], total: int,
          done: int = 0, wins: int = 0) -> Callable[[list[Fight]], None]:
    """An `on_fights` callback that reports the running `Estimate` after each batch of fights.

    `done` and `wins` count fights of the run already finished (earlier batches of a precision run)."""
    seen = [done, wins]

    def on_fights(new: list[Fight]) -> None:
        seen[0] += len(new)
        seen[1] += sum(1 for f in new if f.winner == pc_team)
        progress(Estimate.of(seen[1], seen[0], total))
    return on_fights


def half_width(successes: int, n: int) -> float:
    lo, hi = interval(successes, n)
    return (hi - lo) / 2


def next_size(successes: int, n: int, precision: float, cap: int, batch: int = PRECISION_BATCH) -> int:
    """How many fights in all to aim for next in a precision run (a multiple of `batch`)."""
    p = min(max(successes / n, 0.02), 0.98) if n else 0.5
    need = math.ceil(Z95 * Z95 * p * (1 - p) / (precision * precision) * 1.05)
    target = max(n + batch, need)
    return min(cap, math.ceil(target / batch) * batch)


def _quantile(sorted_vals: Sequence[float], q: float) -> float:
    if not sorted_vals:
        return 0.0
    k = min(len(sorted_vals) - 1, max(0, math.ceil(q * len(sorted_vals)) - 1))
    return float(sorted_vals[k])


def interval(k: int, n: int) -> tuple[float, float]:
    """The Wilson 95% interval, exactly 0 / 1 at the ends (no rounding dust)."""
    lo, hi = wilson(k, n)
    return (0.0 if k <= 0 else lo), (1.0 if k >= n else hi)


def _rate(k: int, n: int) -> dict[str, float]:
    lo, hi = interval(k, n)
    return {"rate": k / n if n else 0.0, "ci_low": lo, "ci_high": hi}


def summarise(spec: ScenarioSpec, pc_team: str, policies: Mapping[str, str], fights: Sequence[Fight],
              seed: int, source: str | None = None) -> dict[str, Any]:
    """The difficulty report (a JSON-ready dict) of a list of fights."""
    n = len(fights)
    state = build_state(spec, source)
    rs = get_ruleset(spec.ruleset)
    figures = {c.id: c for c in state.combatants}
    pcs = [c.id for c in state.combatants if c.team == pc_team]
    pc_set = set(pcs)
    wins = sum(1 for f in fights if f.winner == pc_team)
    draws = sum(1 for f in fights if f.winner is None)
    any_down = sum(1 for f in fights if pc_set.intersection(f.went_down))
    any_dead = sum(1 for f in fights if pc_set.intersection(f.dead))
    lo, hi = interval(wins, n)
    down_r, dead_r = _rate(any_down, n), _rate(any_dead, n)
    per_figure: dict[str, Any] = {}
    for cid, c in figures.items():
        dmg = sorted(dict(f.damage).get(cid, 0.0) for f in fights)
        per_figure[cid] = {
            "name": c.name, "team": c.team, "pc": c.team == pc_team, "template": c.template,
            "max_health": rs.health(c)[1],
            "p_down": sum(1 for f in fights if cid in f.went_down) / n if n else 0.0,
            "p_dead": sum(1 for f in fights if cid in f.dead) / n if n else 0.0,
            "damage_mean": sum(dmg) / n if n else 0.0,
            "damage_median": _quantile(dmg, 0.5), "damage_p90": _quantile(dmg, 0.9)}
    rounds = sorted(f.rounds for f in fights)
    hist: dict[str, int] = {}
    for r in rounds:
        hist[str(r)] = hist.get(str(r), 0) + 1
    label = label_for(wins / n if n else 0.0, dead_r["rate"])
    pessimistic = label_for(lo, dead_r["ci_high"])
    optimistic = label_for(hi, dead_r["ci_low"])
    return {
        "scenario": spec.name, "ruleset": spec.ruleset, "source": source, "pc_team": pc_team,
        "policies": dict(policies), "episodes": n, "seed": int(seed),
        "pc_wins": wins, "pc_win_rate": wins / n if n else 0.0, "ci_low": lo, "ci_high": hi,
        "half_width": (hi - lo) / 2,
        "draws": draws, "draw_rate": draws / n if n else 0.0,
        "pc_losses": n - wins - draws,
        "p_pc_down": down_r["rate"], "p_pc_down_ci": [down_r["ci_low"], down_r["ci_high"]],
        "p_pc_death": dead_r["rate"], "p_pc_death_ci": [dead_r["ci_low"], dead_r["ci_high"]],
        "damage_taken": {cid: per_figure[cid]["damage_mean"] for cid in pcs},
        "damage_taken_total": sum(per_figure[cid]["damage_mean"] for cid in pcs),
        "rounds_histogram": hist,
        "rounds_mean": sum(rounds) / n if n else 0.0,
        "rounds_median": _quantile(rounds, 0.5), "rounds_p90": _quantile(rounds, 0.9),
        "round_limit": spec.round_limit,
        "per_figure": per_figure,
        "label": label, "label_range": [pessimistic, optimistic],
        "thresholds": [{"label": lab, "min_pc_win_rate": w, "max_p_pc_death": d} for lab, w, d in LABELS],
    }


def check_run_args(episodes: int | None, precision: float | None, max_episodes: int) -> None:
    if episodes is not None and precision is not None:
        raise TacticaError("both --episodes and --precision", field="--episodes/--precision",
                           expected="one of them (a fixed count, or a precision to reach)")
    if episodes is not None and (isinstance(episodes, bool) or not isinstance(episodes, int) or episodes < 1):
        raise TacticaError(f"episodes {episodes!r}", field="--episodes", expected="a whole number >= 1")
    if precision is not None and not (0 < precision < 0.5):
        raise TacticaError(f"precision {precision!r}", field="--precision",
                           expected="a half-width between 0 and 0.5, e.g. 0.03 for +-3 points")
    if isinstance(max_episodes, bool) or not isinstance(max_episodes, int) or max_episodes < 1:
        raise TacticaError(f"max episodes {max_episodes!r}", field="--max-episodes",
                           expected="a whole number >= 1")


def assess(spec: ScenarioSpec, *, pc: str | None = None, policies: Mapping[str, str] | None = None,
           episodes: int | None = None, precision: float | None = None,
           max_episodes: int = DEFAULT_MAX_EPISODES, seed: int = 0, source: str | None = None,
           pool: FightPool | None = None, workers: int = 1, backend: str = "local",
           address: str | None = None,
           progress: Callable[[Estimate], None] | None = None,
           keep_fights: bool = False) -> dict[str, Any]:
    """Play a scenario's fights and report its difficulty for the PC team (see the module doc).

    `progress(estimate)` is called as fights finish, with the PC win rate so far and its
    interval (`Estimate`; its `total` may grow in a precision run).
    With `keep_fights`, the report also holds the `Fight` records under `"_fights"` (for plots).
    """
    check_run_args(episodes, precision, max_episodes)
    pc_team = pc_team_of(spec, pc)
    pols = resolve_policies(spec, policies)
    build_state(spec, source)          # a bad scenario fails here, before any worker starts
    own = pool is None
    pool = pool or FightPool(workers, backend, address)
    try:
        fights: list[Fight] = []
        if precision is None:
            total = episodes if episodes is not None else DEFAULT_EPISODES
            cb = tally(pc_team, progress, total) if progress else None
            fights = run_fights(spec, pols, seed, range(total), pool, source, cb)
            stopped = "episodes played"
        else:
            total = min(max_episodes, PRECISION_BATCH)
            wins = 0
            while True:
                done = len(fights)
                cb = tally(pc_team, progress, total, done, wins) if progress else None
                fights += run_fights(spec, pols, seed, range(done, total), pool, source, cb)
                wins = sum(1 for f in fights if f.winner == pc_team)
                if half_width(wins, len(fights)) <= precision:
                    stopped = "precision reached"
                    break
                if len(fights) >= max_episodes:
                    stopped = "episode cap reached"
                    break
                total = next_size(wins, len(fights), precision, max_episodes)
    finally:
        if own:
            pool.close()
    report = summarise(spec, pc_team, pols, fights, seed, source)
    report["table_npcs"] = table_npcs(spec.ruleset, pc_team, pols, figure_count(spec))
    report["mode"] = "precision" if precision is not None else "episodes"
    report["precision"] = precision
    report["max_episodes"] = max_episodes if precision is not None else None
    report["stopped"] = stopped
    if keep_fights:
        report["_fights"] = fights
    return report


def table_npcs(ruleset: str, pc_team: str, policies: Mapping[str, str], figures: int = 0) -> dict[str, Any] | None:
    """Where the NPC teams were played by another policy than the one the autopilot and the API give an NPC
    team of this ruleset by default (`agents.base.default_policy`: `best` where it decides fast enough): that
    policy, the player it is in a fight of `figures` figures (`best` plays `tactical` in a fight larger than its
    entry's `max_figures`; 0: any size), and those teams, so the report can say its odds are not the table's;
    else None."""
    from agents.base import default_policy
    from agents.best import best_name

    table = default_policy(ruleset)
    player = best_name(ruleset, figures) if table == "best" else table
    teams = sorted(t for t, p in policies.items() if t != pc_team and p not in (table, player))
    if not teams:
        return None
    return {"policy": table, "player": player, "teams": teams}


def figure_count(spec: Any) -> int:
    """Every figure of a scenario's teams."""
    return sum(len(t.combatants) for t in spec.teams)


def public(report: Mapping[str, Any]) -> dict[str, Any]:
    """The report without private entries (for JSON)."""
    return {k: v for k, v in report.items() if not k.startswith("_")}
