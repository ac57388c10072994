"""docs/observations.md says what the encoder writes (issue 31: "every grid channel, unit feature
and economy field, with its meaning, scaling and range; numbers in it match the code").

The page is rendered from the encoder's own tables (envs/describe.py) and must equal the
committed file; the ranges it states hold on every observation of seeded random-masked fights
of each ruleset's default env (benchmarks/bench_env.py DEFAULT_SCENARIOS); its names and
indices are the envs' own (`grid_channels`, `economy_names`, the layout's fingerprint)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from envs.describe import REGENERATE, Row, describe_encoding, render_markdown
from envs.encoding import CLOCK_SLOT, ECON_LEN, GRID_CHANNELS, UNIT_FEATURES
from envs.skirmish import SkirmishEnv
from rules.ruleset import available_rulesets, get_ruleset

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "observations.md"


def _default_scenarios() -> dict[str, str]:
    spec = importlib.util.spec_from_file_location("bench_env", ROOT / "benchmarks" / "bench_env.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return dict(mod.DEFAULT_SCENARIOS)


DEFAULT_SCENARIOS = _default_scenarios()


def _block(rows: list[Row], block: str) -> list[Row]:
    return [r for r in rows if r.block == block]


def test_the_committed_page_is_the_rendered_one():
    assert DOC.read_text(encoding="utf-8") == render_markdown(), (
        f"docs/observations.md differs from the code's description; regenerate it: {REGENERATE}")


def test_every_bundled_ruleset_describes_each_economy_field_in_order():
    for name in available_rulesets():
        rs = get_ruleset(name)
        assert tuple(f.name for f in rs.economy_table) == tuple(rs.economy_features), name
        assert all(f.meaning and f.scaling for f in rs.economy_table), name
        assert len(rs.economy_features) <= CLOCK_SLOT, name


@pytest.mark.parametrize("ruleset", sorted(DEFAULT_SCENARIOS))
def test_documented_names_and_indices_are_the_envs(ruleset):
    env = SkirmishEnv(scenario=DEFAULT_SCENARIOS[ruleset], opponent="random")
    rows = describe_encoding(ruleset)
    grid, units, econ = _block(rows, "grid"), _block(rows, "units"), _block(rows, "economy")
    assert [r.index for r in grid] == list(range(len(GRID_CHANNELS)))
    assert tuple(r.name for r in grid) == env.grid_channels == GRID_CHANNELS
    assert tuple(r.name for r in units) == UNIT_FEATURES
    named = [r for r in econ if r.name != "clock"]
    assert [r.index for r in named] == list(range(len(named)))
    assert tuple(r.name for r in named) == env.economy_names
    assert [r.index for r in econ if r.name == "clock"] == [CLOCK_SLOT]
    fp = env.fingerprint()
    assert fp["grid_channels"] == list(env.grid_channels) and fp["unit_features"] == list(UNIT_FEATURES)
    sp = env.observation_space
    assert sp["grid"].shape[0] == len(grid) and sp["units"].shape[1] == len(units)
    assert sp["economy"].shape == (ECON_LEN,) and sp["cover"].shape[1] == len(_block(rows, "cover"))
    text = DOC.read_text(encoding="utf-8")
    for r in named:   # every field of the ruleset is on the page, under its index
        assert f"| {r.index} | `{r.name}` |" in text


def _check(values: np.ndarray, row: Row, where: str) -> None:
    """The values of one row lie in its documented range (and a flag is 0 or 1)."""
    v = values.astype(np.float64).ravel()
    assert np.isfinite(v).all(), f"{where} {row.name}: not finite"
    if row.low is not None:
        assert v.min() >= row.low, f"{where} {row.name}: {v.min()} < documented low {row.low}"
    if row.high is not None:
        assert v.max() <= row.high, f"{where} {row.name}: {v.max()} > documented high {row.high}"
    if row.scaling == "0/1 flag":
        assert np.isin(v, (0.0, 1.0)).all(), f"{where} {row.name}: a flag took {sorted(set(v) - {0.0, 1.0})}"


def _check_obs(obs: dict[str, np.ndarray], rows: list[Row], where: str) -> None:
    for r in _block(rows, "grid"):
        _check(obs["grid"][r.index], r, f"{where} grid")
    for r in _block(rows, "units"):
        _check(obs["units"][:, r.index], r, f"{where} units")
    for r in _block(rows, "cover"):
        _check(obs["cover"][:, r.index], r, f"{where} cover")
    for r in _block(rows, "economy"):
        _check(obs["economy"][r.index:r.index + 1], r, f"{where} economy")
    if "advice" in obs:
        for r in _block(rows, "advice"):
            _check(obs["advice"][r.index], r, f"{where} advice")
    if "advice_parts" in obs:
        parts = _block(rows, "advice_parts")
        assert [r.index for r in parts] == list(range(obs["advice_parts"].shape[0])), f"{where}: undocumented parts"
        for r in parts:
            _check(obs["advice_parts"][r.index], r, f"{where} advice_parts")


def _play(env: SkirmishEnv, seed: int, episodes: int, max_steps: int = 150) -> int:
    """Seeded random-masked episodes, checking every observation against the page's ranges and
    every live economy against the ruleset's names; the number of observations checked."""
    rows = describe_encoding(env.rs, env.advice_parts)
    rng = np.random.default_rng(seed)
    seen = 0
    for ep in range(episodes):
        obs, _ = env.reset(seed=seed + ep)
        for _ in range(max_steps):
            _check_obs(obs, rows, f"{env.spec0.name} seed {seed + ep}")
            seen += 1
            s = env.battle.state
            if not s.over and s.actor is not None:
                assert set(env.rs.economy(s)) == set(env.rs.economy_features)
            obs, _, term, trunc, _ = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
            if term or trunc:
                _check_obs(obs, rows, f"{env.spec0.name} seed {seed + ep} (last)")
                break
    return seen


@pytest.mark.parametrize("ruleset", sorted(DEFAULT_SCENARIOS))
def test_observed_values_lie_in_the_documented_ranges(ruleset):
    env = SkirmishEnv(scenario=DEFAULT_SCENARIOS[ruleset], opponent="random", clock=True)
    assert _play(env, 31, episodes=4) > 100


def test_advice_rows_lie_in_the_documented_ranges():
    env = SkirmishEnv(scenario=DEFAULT_SCENARIOS["metalface"], opponent="random", advice="tactical")
    assert _play(env, 7, episodes=1, max_steps=25) > 10


@pytest.mark.parametrize("ruleset", ["metalface", "cybergeneration"])
def test_advice_parts_lie_in_the_documented_ranges(ruleset):
    """`advice_parts` (hit odds, damage, exposure): every row documented, in its range, on seeded
    fights where the parts are not all zero (the advisor ranked attacks and exposed cells)."""
    env = SkirmishEnv(scenario=DEFAULT_SCENARIOS[ruleset], opponent="tactical", advice="bold", advice_parts=True)
    seen = {"n": 0, "max": np.zeros(3)}
    step = env.step

    def spy(a):
        out = step(a)
        seen["max"] = np.maximum(seen["max"], out[0]["advice_parts"].max(axis=1))
        return out
    env.step = spy
    assert _play(env, 11, episodes=2, max_steps=40) > 20
    assert (seen["max"] > 0).all(), seen   # hit, damage and exposure each seen above 0
