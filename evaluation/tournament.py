"""Round-robin matches between team policies, played on the rules engine in worker processes.

For every unordered pair of policies (a, b) and every scenario, `episodes` fights are
played: the first half with a on the scenario's first team and b on every other team, the
second half with the sides swapped. Fight k of a side on the s-th scenario is
`play_fight(spec, ..., seed, s * per_side + k)` (`per_side`: the first side's fights), seeded
from (seed, that index) alone, so results never depend on the number of workers or the
order in which fights finish (`evaluation.parallel.FightPool` gathers them in order); the
swapped fight k is played with the same dice stream (common random numbers), which makes
the comparison of a and b fairer on few fights.

Every scenario has its own dice (`fight_seeds="scenario"`, the default since 2026-12-03).
Before, fight k of every scenario was seeded from (seed, k) (`fight_seeds="index"`, kept to
reproduce older measurements): on 400 maps with one fight a side, all 800 fights of a seed
rolled the same dice, so the maps' outcomes moved together with the seed (the first rolls,
initiative among them, were the same on every map) and the per-seed spread was wider than
the fights' number implies (docs/results.md, "Every player on the same fights"). A run on
one scenario is the same in both modes.

Several seeds (`seed` a list) play the whole plan once per seed: each pair's rates are pooled
over every seed (the Wilson interval of the pooled count), and `per_seed` and `spread` (the
lowest and highest per-seed rate and their standard deviation) say how much one seed alone
would have moved the result (issue 31: one 800-fight sample moves three points with the dice
seed alone).

A pair's result counts the fights won by a's side; draws (round limit, or nobody left)
are neither side's win. Wilson 95% intervals come from `evaluation.stats.wilson`; Elo
ratings with bootstrap intervals over all fights from `evaluation.elo` (`elo` in the result).
"""

from __future__ import annotations

import random
from dataclasses import asdict, dataclass, field
from itertools import combinations
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

from evaluation.elo import elo_ratings
from evaluation.fight_log import FightLog, run_header
from evaluation.parallel import FightPool
from evaluation.simulate import play_fight
from evaluation.stats import wilson
from rules.dice import stream_keys
from rules.errors import TacticaError
from rules.scenario import ScenarioSpec, load_scenario


@dataclass(frozen=True)
class Fight:
    """One fight of a round robin."""

    a: str
    b: str
    scenario: int          # index into the scenario list
    swapped: bool          # False: a plays the first team; True: b does
    k: int                 # the fight's index within its side
    seed: int = 0          # the run's seed this fight belongs to
    dice: int | None = None  # the fight's index for its seeds, (seed, dice); None: k


#: how fights are seeded: `scenario`, each scenario its own dice; `index`, fight k of every
#: scenario on the same dice (before 2026-12-03)
FIGHT_SEEDS = ("scenario", "index")


@dataclass
class PairResult:
    """a's record against b (on one scenario, or on all of them)."""

    a: str
    b: str
    scenario: str
    n: int = 0
    a_wins: int = 0
    b_wins: int = 0
    draws: int = 0
    a_win_rate: float = 0.0
    ci_low: float = 0.0
    ci_high: float = 1.0
    a_wins_first: int = 0   # a's wins on the scenario's first team ...
    a_wins_second: int = 0  # ... and on the other side
    #: per seed, in the order given: {seed, n, a_wins, draws, a_win_rate}
    per_seed: list = field(default_factory=list)
    #: the per-seed a_win_rates' lowest, highest and standard deviation (0 for one seed)
    spread: dict = field(default_factory=dict)

    def finish(self) -> "PairResult":
        self.a_win_rate = self.a_wins / self.n if self.n else 0.0
        self.ci_low, self.ci_high = wilson(self.a_wins, self.n)
        rates = [r["a_win_rate"] for r in self.per_seed]
        if rates:
            mean = sum(rates) / len(rates)
            sd = (sum((x - mean) ** 2 for x in rates) / (len(rates) - 1)) ** 0.5 if len(rates) > 1 else 0.0
            self.spread = {"min": min(rates), "max": max(rates), "sd": sd}
        return self

    def count(self, seed: int, won: bool | None) -> None:
        """Add one fight of `seed`: won True (a's side), False (b's side) or None (a draw)."""
        self.n += 1
        if not self.per_seed or self.per_seed[-1]["seed"] != seed:
            row = next((r for r in self.per_seed if r["seed"] == seed), None)
            if row is None:
                row = {"seed": seed, "n": 0, "a_wins": 0, "draws": 0, "a_win_rate": 0.0}
                self.per_seed.append(row)
        else:
            row = self.per_seed[-1]
        row["n"] += 1
        if won is None:
            self.draws += 1
            row["draws"] += 1
        elif won:
            self.a_wins += 1
            row["a_wins"] += 1
        else:
            self.b_wins += 1
        row["a_win_rate"] = row["a_wins"] / row["n"]

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def team_policies(spec: ScenarioSpec, first: str, others: str) -> dict[str, str]:
    """The first team plays `first`; every other team plays `others`."""
    return {t.name: (first if i == 0 else others) for i, t in enumerate(spec.teams)}


def pairings(policies: Sequence[str], against: str | None = None) -> list[tuple[str, str]]:
    """The pairs that play: every pair of `policies`, or with `against` each other policy
    against that one (the other as `a`, so `a_win_rate` is its rate against the reference)."""
    if against is None:
        return list(combinations(policies, 2))
    return [(p, against) for p in policies if p != against]


def plan_fights(n_scenarios: int, policies: Sequence[str], episodes: int, seeds: Sequence[int] = (0,),
                against: str | None = None, fight_seeds: str = "scenario") -> list[Fight]:
    """Every fight of a round robin, in a fixed order: seeds x pairs x scenarios x sides x fights.
    A fight's seeds come from (seed, dice): dice = scenario x (the first side's fights) + k
    (`fight_seeds="scenario"`), or k alone (`"index"`)."""
    if fight_seeds not in FIGHT_SEEDS:
        raise TacticaError(f"fight seeds {fight_seeds!r}", field="--fight-seeds", expected=" or ".join(FIGHT_SEEDS))
    per_side = (episodes + 1) // 2
    halves = ((False, per_side), (True, episodes // 2))
    stride = per_side if fight_seeds == "scenario" else 0
    return [Fight(a, b, si, swapped, k, seed, si * stride + k)
            for seed in seeds
            for a, b in pairings(policies, against)
            for si in range(n_scenarios)
            for swapped, n in halves
            for k in range(n)]


def spread(indices: Sequence[int]) -> list[int]:
    """The fights in the order they are played: a fixed shuffle of the plan. Each fight is seeded from
    its place in the plan alone, so the order changes no result; shuffled, a slow player's fights
    (a search player beside cheap ones: 2 CPU s a fight against 0.05) are spread over the run, so
    the progress bar's time left holds from the start and no worker is left alone with a block of
    them at the end."""
    order = list(indices)
    random.Random(0).shuffle(order)
    return order


def _play_indexed(payload: tuple, i: int) -> tuple[int, str | None]:
    """Worker: (i, the winning team) of fight i (the fights are played in `spread` order)."""
    return i, _play(payload, i)


def _play(payload: tuple, i: int) -> str | None:
    """Worker: play fight i of the plan; returns the winning team (None for a draw)."""
    scenarios, fights, streams = payload
    f = fights[i]
    spec, src = scenarios[f.scenario]
    first, other = (f.b, f.a) if f.swapped else (f.a, f.b)
    index = f.k if f.dice is None else f.dice
    return play_fight(spec, team_policies(spec, first, other), f.seed, index, src, dice_streams=streams).winner


def round_robin(scenarios: Sequence[tuple[ScenarioSpec, str]], policies: Sequence[str], episodes: int,
                seed: int | Sequence[int], workers: int = 1, progress: Callable[[int, int], None] | None = None,
                backend: str = "local", address: str | None = None, dice_streams: str = "shared",
                against: str | None = None, fight_seeds: str = "scenario",
                log: str | Path | None = None, reuse: Sequence[str | Path] = ()) -> dict[str, Any]:
    """Play every pair of `policies` on every scenario; per-scenario and overall results.

    With `against` (one of `policies`, or added to them), only the pairs of each other policy
    with that one play: a table of players against one reference on the same fights.

    `scenarios` are (spec, source) pairs; `episodes` fights per pair per scenario, split
    half and half between the sides (the first side gets the odd one), for each seed of
    `seed` (one seed or several); `progress` is called with (fights done, fights in all);
    `dice_streams` (`shared`, `seat`, `figure`) is passed to `evaluation.simulate.play_fight`;
    `fight_seeds` (`scenario`, `index`) says how fights are seeded (`plan_fights`); `log`, a file
    each fight's result is written to as it ends: the fights it already holds are not played again
    (evaluation/fight_log.py), and the result is the same as an uninterrupted run's (`progress` then
    counts the fights left to play). `reuse`: other runs' logs whose fights this run plays too are
    taken from them and written to `log` (evaluation/log_reuse.py)."""
    from agents.base import check_policy

    policies = list(dict.fromkeys([*policies, *([against] if against is not None else [])]))
    for p in policies:
        check_policy(p, "--policies")
    if against is not None:
        check_policy(against, "--against")
    if len(policies) < 2:
        raise TacticaError(f"{len(policies)} policy given", field="--policies",
                           expected="at least two policies, comma-separated")
    if not scenarios:
        raise TacticaError("no scenario to play", field="--scenarios", expected="at least one scenario")
    if episodes < 1:
        raise TacticaError(f"episodes {episodes}", field="--episodes", expected="a whole number >= 1")
    seeds = [int(seed)] if isinstance(seed, int) else list(dict.fromkeys(int(x) for x in seed))
    if not seeds:
        raise TacticaError("no seed given", field="--seed", expected="one or more seeds")
    stream_keys([], dice_streams)  # an unknown mode fails here, before any fight
    fights = plan_fights(len(scenarios), policies, episodes, seeds, against, fight_seeds)
    payload = (list(scenarios), fights, dice_streams)
    book = None if log is None else FightLog(log, run_header(scenarios, policies, episodes, seeds, dice_streams,
                                                               against, fight_seeds, len(fights)), fights)
    done = {} if book is None else book.load()
    n_read = len(done)
    if reuse and book is None:
        raise TacticaError("--reuse-log without --fights-log", field="--reuse-log",
                           expected="--fights-log too: the fights taken are written to it")
    n_reused = 0
    for old in reuse:
        from evaluation.log_reuse import reused_fights

        got = sorted((i, w) for i, w in reused_fights(old, book.header, scenarios, fights).items() if i not in done)
        book.append(got)
        done.update(got)
        n_reused += len(got)
    todo = spread([i for i in range(len(fights)) if i not in done])
    if todo:   # progress counts this run's fights, so a resumed run's time left is its own
        with FightPool(workers, backend, address) as pool:
            done.update(pool.map(_play_indexed, payload, todo, on_results=book.append if book else None,
                                 progress=(lambda k: progress(k, len(todo))) if progress else None))
    winners = [done[i] for i in range(len(fights))]
    out = summarise(scenarios, policies, fights, winners, episodes, seeds, against)
    out["dice_streams"] = dice_streams
    out["against"] = against
    out["fight_seeds"] = fight_seeds
    if log is not None:
        out["log"] = {"path": str(log), "read": n_read, "reused": n_reused, "played": len(fights) - n_read - n_reused}
    return out


def summarise(scenarios: Sequence[tuple[ScenarioSpec, str]], policies: Sequence[str], fights: list[Fight],
              winners: list[str | None], episodes: int, seeds: int | Sequence[int],
              against: str | None = None) -> dict[str, Any]:
    """Per-scenario and overall records of every pair, in a fixed order (pooled over the seeds,
    with each seed's own record in `per_seed`)."""
    seeds = [seeds] if isinstance(seeds, int) else list(seeds)
    per: dict[tuple[str, str, int], PairResult] = {}
    overall: dict[tuple[str, str], PairResult] = {}
    for f, winner in zip(fights, winners):
        spec = scenarios[f.scenario][0]
        won = None if winner is None else (winner == spec.teams[0].name) != f.swapped
        for pr in (per.setdefault((f.a, f.b, f.scenario), PairResult(f.a, f.b, spec.name)),
                   overall.setdefault((f.a, f.b), PairResult(f.a, f.b, "all"))):
            pr.count(f.seed, won)
            if won:
                if f.swapped:
                    pr.a_wins_second += 1
                else:
                    pr.a_wins_first += 1
    games = []
    for f, winner in zip(fights, winners):
        first = scenarios[f.scenario][0].teams[0].name
        games.append((f.a, f.b, 0.5 if winner is None else float((winner == first) != f.swapped)))
    pairs: list[dict[str, Any]] = []
    for a, b in pairings(policies, against):
        for si in range(len(scenarios)):
            pairs.append(per[(a, b, si)].finish().to_dict())
        pairs.append(overall[(a, b)].finish().to_dict())
    return {"policies": list(policies), "scenarios": [s.name for s, _ in scenarios], "episodes": episodes,
            "seed": seeds[0], "seeds": seeds, "pairs": pairs, "elo": elo_ratings(policies, games, seed=seeds[0])}


def load_scenarios(names: Iterable[str | Mapping[str, Any]]) -> list[tuple[ScenarioSpec, str]]:
    """Bundled names, files or scenario mappings -> (spec, source) pairs."""
    return [load_scenario(n) for n in names]
