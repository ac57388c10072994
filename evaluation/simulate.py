"""Play whole fights between team policies, seeded per fight, and summarise them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, TextIO

import numpy as np

from agents.base import DEFAULT_POLICY, make_policy
from rules.dice import Dice, StreamDice, stream_keys
from rules.errors import TacticaError
from rules.events import dumps
from rules.scenario import ScenarioSpec, new_battle
from evaluation.stats import wilson


@dataclass
class FightResult:
    """What one fight came to."""

    index: int
    winner: str | None
    rounds: int
    actions: int
    reason: str
    down: list[str] = field(default_factory=list)
    dead: list[str] = field(default_factory=list)
    damage_taken: dict[str, float] = field(default_factory=dict)


def fight_streams(seed: int, index: int, n_teams: int) -> tuple[np.random.SeedSequence, list[np.random.SeedSequence]]:
    """Independent seed streams for fight `index`: one for the dice, one per team's policy.

    Seeded from (seed, index) alone, so results do not depend on how fights are split
    between workers."""
    ss = np.random.SeedSequence([int(seed), int(index)])
    kids = ss.spawn(1 + n_teams)
    return kids[0], kids[1:]


def check_policies(spec: ScenarioSpec, policies: Mapping[str, str]) -> dict[str, str]:
    """Every team gets a policy (default for unnamed teams); unknown teams are errors."""
    teams = [t.name for t in spec.teams]
    for t in policies:
        if t != "*" and t not in teams:
            raise TacticaError(f"no team {t!r} in {spec.name}", field="--policy",
                               expected="TEAM=POLICY with TEAM one of " + ", ".join(teams))
    out = {t: policies.get(t, policies.get("*", DEFAULT_POLICY)) for t in teams}
    for name in sorted({p for p in out.values() if p.endswith(".npz")}):
        from agents.learned import NumpyPolicy  # before any fight: another ruleset's, or a smaller map's
        NumpyPolicy(name).check_fits(spec.ruleset, len(spec.map.rows), max(len(r) for r in spec.map.rows),
                                     field="--policy")
    return out


def play_fight(spec: ScenarioSpec, policies: Mapping[str, str], seed: int, index: int,
               source: str | None = None, on_event: Callable[[dict], None] | None = None,
               record: bool = False, dice_streams: str = "shared") -> FightResult:
    """Play fight `index` of a run seeded with `seed` to its end.

    `dice_streams`: `shared`, one dice stream for the fight; `seat`, one per team; `figure`,
    one per figure (`rules.dice.StreamDice`), all from the fight's dice seed."""
    teams = [t.name for t in spec.teams]
    dice_ss, pol_ss = fight_streams(seed, index, len(teams))
    dice = Dice(np.random.default_rng(dice_ss)) if dice_streams == "shared" else StreamDice(dice_ss)
    battle = new_battle(spec, dice, source, record=record, on_event=on_event)
    if dice_streams != "shared":
        figures = [[c.id for c in battle.state.combatants if c.team == t] for t in teams]
        dice.bind(stream_keys(figures, dice_streams))
    pols = {t: make_policy(policies[t], pol_ss[i]) for i, t in enumerate(teams)}
    rs = battle.ruleset
    start_health = {c.id: rs.health(c)[0] for c in battle.state.combatants}
    battle.run(pols)
    s = battle.state
    return FightResult(index=index, winner=s.winner, rounds=s.round, actions=battle.actions_resolved,
                       reason=s.end_reason,
                       down=[c.id for c in s.combatants if c.down],
                       dead=[c.id for c in s.combatants if c.dead],
                       damage_taken={c.id: start_health[c.id] - rs.health(c)[0] for c in s.combatants})


def summarise(spec: ScenarioSpec, results: list[FightResult], seed: int, source: str | None = None
              ) -> dict[str, Any]:
    n = len(results)
    teams: dict[str, Any] = {}
    for t in spec.teams:
        wins = sum(1 for r in results if r.winner == t.name)
        lo, hi = wilson(wins, n)
        teams[t.name] = {"wins": wins, "win_rate": wins / n if n else 0.0, "ci_low": lo, "ci_high": hi}
    draws = sum(1 for r in results if r.winner is None)
    return {"scenario": spec.name, "ruleset": spec.ruleset, "episodes": n, "seed": seed, "teams": teams,
            "draws": draws, "mean_rounds": (sum(r.rounds for r in results) / n) if n else 0.0}


def simulate(spec: ScenarioSpec, policies: Mapping[str, str], episodes: int, seed: int,
             source: str | None = None, log: TextIO | None = None,
             progress: Callable[[int], None] | None = None) -> tuple[dict[str, Any], list[FightResult]]:
    """Play `episodes` fights in this process; optionally write every event as JSON lines."""
    pols = check_policies(spec, policies)
    results = []
    for i in range(episodes):
        sink = None
        if log is not None:
            def sink(e: dict, _i: int = i) -> None:
                log.write(dumps({"fight": _i, **e}) + "\n")
        results.append(play_fight(spec, pols, seed, i, source, on_event=sink))
        if progress is not None:
            progress(i + 1)
    return summarise(spec, results, seed, source), results
