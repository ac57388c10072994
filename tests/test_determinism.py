"""Determinism (ARCHITECTURE.md, Conventions: "the same seed gives the same event log, byte
for byte, in any process"; README: "Every fight i of a run is seeded from (seed, i)").

- the same seed gives a byte-identical `tactica simulate --log` in two separate processes,
  even with different string-hash seeds (PYTHONHASHSEED), so no set or dict order leaks in
  (one bundled scenario per ruleset);
- a different seed gives a different log;
- fight i gives the same events whether it is played alone in a fresh process or after
  other fights in the same process (no cache or generator state carries over), for every
  bundled scenario, random and aggressive policies.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from agents.base import DEFAULT_POLICY
from evaluation.simulate import check_policies, play_fight
from rules.events import dumps
from rules.scenario import bundled_scenarios, load_scenario

REPO = Path(__file__).resolve().parents[1]
SCENARIOS = bundled_scenarios()
# the first bundled scenario of each ruleset (two processes each: keep the count small)
ONE_PER_RULESET = sorted({s.split("/")[0]: s for s in reversed(SCENARIOS)}.values())


def _env(hash_seed: str) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONHASHSEED"] = hash_seed
    env["COLUMNS"] = "200"
    return env


def _simulate_log(tmp: Path, name: str, scenario: str, seed: int, n: int, policies: list[str],
                  hash_seed: str = "0") -> bytes:
    log = tmp / name
    cmd = [sys.executable, "-m", "tactica", "simulate", scenario, "-n", str(n), "--seed", str(seed),
           "--log", str(log), "--json"]
    for p in policies:
        cmd += ["--policy", p]
    r = subprocess.run(cmd, cwd=REPO, env=_env(hash_seed), capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    data = log.read_bytes()
    assert data, "empty log"
    return data


def _random_for_all(scenario: str) -> list[str]:
    spec, _ = load_scenario(scenario)
    return [f"{t.name}=random" for t in spec.teams]


@pytest.mark.parametrize("scenario", ONE_PER_RULESET)
def test_same_seed_same_log_bytes_in_two_processes(scenario: str, tmp_path: Path) -> None:
    pols = _random_for_all(scenario)[:1]  # one team random, the others the default policy
    a = _simulate_log(tmp_path, "a.jsonl", scenario, 7, 4, pols, hash_seed="1")
    b = _simulate_log(tmp_path, "b.jsonl", scenario, 7, 4, pols, hash_seed="2")
    assert a == b
    lines = a.decode().splitlines()
    fights = {json.loads(line)["fight"] for line in lines}
    assert fights == {0, 1, 2, 3}
    assert sum(1 for line in lines if json.loads(line)["type"] == "battle_end") == 4


def test_different_seed_gives_a_different_log(tmp_path: Path) -> None:
    a = _simulate_log(tmp_path, "a.jsonl", "cortex/duel", 7, 3, [])
    b = _simulate_log(tmp_path, "b.jsonl", "cortex/duel", 8, 3, [])
    assert a != b


def _events_in_process(scenario: str, policies: dict[str, str], seed: int, index: int) -> list[str]:
    spec, src = load_scenario(scenario)
    pols = check_policies(spec, policies)
    out: list[str] = []
    play_fight(spec, pols, seed, index, src, on_event=lambda e: out.append(dumps(e)))
    return out


_ALONE = """
import sys
from agents.base import DEFAULT_POLICY
from evaluation.simulate import check_policies, play_fight
from rules.events import dumps
from rules.scenario import load_scenario
scenario, seed, index = sys.argv[1:4]
spec, src = load_scenario(scenario)
for policy in sys.argv[4:]:
    pols = check_policies(spec, {t.name: policy for t in spec.teams})
    print("== " + policy)
    play_fight(spec, pols, int(seed), int(index), src, on_event=lambda e: print(dumps(e)))
"""


def _events_alone(scenario: str, policies: list[str], seed: int, index: int) -> dict[str, list[str]]:
    """Fight `index` under each policy (for every team), in a fresh process: the first one
    is played first and alone (empty caches), the next after it."""
    cmd = [sys.executable, "-c", _ALONE, scenario, str(seed), str(index), *policies]
    r = subprocess.run(cmd, cwd=REPO, env=_env("3"), capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    out: dict[str, list[str]] = {}
    for line in r.stdout.splitlines():
        if line.startswith("== "):
            cur = out.setdefault(line[3:], [])
        else:
            cur.append(line)
    return out


def _first_difference(a: list[str], b: list[str]) -> int:
    return next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_fight_i_does_not_depend_on_earlier_fights(scenario: str) -> None:
    seed, index = 31, 5
    alone = _events_alone(scenario, ["random", "aggressive"], seed, index)
    spec, _ = load_scenario(scenario)
    # in this process: a fight of another scenario first, then fights 0-4, then fight 5,
    # with the policies in the other order than in the fresh process
    other = SCENARIOS[(SCENARIOS.index(scenario) + 1) % len(SCENARIOS)]
    other_spec, _ = load_scenario(other)
    _events_in_process(other, {t.name: "random" for t in other_spec.teams}, seed + 1, 0)
    for policy in ("aggressive", "random"):
        pols = {t.name: policy for t in spec.teams}
        for i in range(index):
            _events_in_process(scenario, pols, seed, i)
        after = _events_in_process(scenario, pols, seed, index)
        assert len(alone[policy]) > 3
        if after != alone[policy]:
            k = _first_difference(alone[policy], after)
            pytest.fail(f"{policy} fight {index} differs after fights 0-{index - 1} at event {k}:\n"
                        f"  alone: {alone[policy][k] if k < len(alone[policy]) else '<end>'}\n"
                        f"  after: {after[k] if k < len(after) else '<end>'}")
        # and again, now that every cache is warm
        assert _events_in_process(scenario, pols, seed, index) == alone[policy]


def test_simulate_log_holds_the_same_fights_as_play_fight(tmp_path: Path) -> None:
    """`tactica simulate --log` fight i is exactly `play_fight(..., i)` with the fight number added."""
    log = _simulate_log(tmp_path, "a.jsonl", "cortex/duel", 4, 3, []).decode().splitlines()
    spec, _ = load_scenario("cortex/duel")
    pols = {t.name: DEFAULT_POLICY for t in spec.teams}   # what simulate plays when no policy is named
    for i in range(3):
        mine = [json.loads(x) for x in _events_in_process("cortex/duel", pols, 4, i)]
        theirs = [json.loads(x) for x in log if json.loads(x)["fight"] == i]
        for e in theirs:
            del e["fight"]
        assert theirs == mine


@pytest.mark.parametrize("scenario", bundled_scenarios())
def test_recorded_events_equal_the_events_as_they_happened(scenario: str) -> None:
    """An event is a record of a moment: the fight's event list at the end must read as the
    events did when emitted (metalface's initiative event once shared its `order` list
    with the live turn order, so a later delay rewrote logged initiative rolls)."""
    import numpy as np

    from agents.base import make_policy
    from rules.dice import Dice
    from rules.scenario import new_battle

    spec, src = load_scenario(scenario)
    for k in range(3):
        live: list[str] = []
        b = new_battle(spec, Dice(np.random.default_rng(k)), src, record=True, on_event=lambda e: live.append(dumps(e)))
        pols = {t.name: make_policy("random" if k == 0 else "tactical", k) for t in spec.teams}
        b.start()
        while not b.state.over:
            b.step(pols[b.state.actor.team].act(b.state, b.state.actor))
        assert [dumps(e) for e in b.events] == live
