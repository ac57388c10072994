"""`tactica train` options (issue #31): `--set key=value` for any config field, an evaluation
at the end of a run shorter than one interval, run files readable under the umask, and
`--resume` continuing the envs' reset draws where they were (tiny runs, a few seconds each)."""

from __future__ import annotations

import csv
import json
import os
import stat
from pathlib import Path

import numpy as np
import pytest
import yaml

pytest.importorskip("sb3_contrib")

from typer.testing import CliRunner  # noqa: E402

from envs.skirmish import SkirmishEnv  # noqa: E402
from rules.errors import TacticaError  # noqa: E402
from tactica.cli import app  # noqa: E402
from training.config import load_config  # noqa: E402
from training.env_rngs import restore_rngs, rng_states, seeded_state  # noqa: E402
from training.overrides import RESUMABLE, apply_sets  # noqa: E402
import training.train as train_mod  # noqa: E402
from training.train import train  # noqa: E402

from tests.training_setup import BASE as DUEL  # noqa: E402

#: the training tests' duel (tests/training_setup.py), shorter: 256 steps, no evaluation
BASE = {**DUEL, "total_steps": 256, "eval_interval": 0, "eval_episodes": 2, "net_arch": [16, 16]}


def cfg(tmp_path: Path, **kw):
    return load_config({**BASE, "out_dir": str(tmp_path), **kw})


# -- --set ------------------------------------------------------------------------------

def test_set_parses_each_value_to_its_fields_type():
    base = load_config({**BASE, "pretrain": {"samples": 100, "epochs": 3}})
    c = apply_sets(base, ["ppo.learning_rate=1e-4", "pretrain.samples=2000", "advice_only=true", "run_name=2024",
                          "opponents=[tactical, aggressive]", "reward.draw=-1", "pretrain={epochs: 2}",
                          "time_limit_minutes=5", "side=random", "curriculum=[{until_steps: 64, opponents: [random]}]"],
                   {"total_steps": 999})
    assert c.ppo.learning_rate == 1e-4 and isinstance(c.ppo.learning_rate, float)
    assert c.pretrain.samples == 2000 and c.pretrain.epochs == 2      # a section given as a mapping updates it
    assert c.advice_only is True and c.run_name == "2024" and c.side == "random"
    assert c.opponents == ["tactical", "aggressive"] and c.reward["draw"] == -1
    assert c.time_limit_minutes == 5.0 and isinstance(c.time_limit_minutes, float)
    assert c.curriculum[0].until_steps == 64 and c.curriculum[0].opponents == ["random"]
    assert c.total_steps == 999 and c.ppo.n_steps == 128          # the shorthands; the rest as in the file
    assert apply_sets(base, ["run_name=", "advice=null"]).run_name is None


@pytest.mark.parametrize("item,pattern", [
    ("ppo.learnin_rate=1", r"--set: ppo\.learnin_rate: unknown ppo field .*did you mean 'learning_rate'"),
    ("totl_steps=5", r"--set: totl_steps: unknown config field .*did you mean 'total_steps'.*one of ruleset"),
    ("ppo.learning_rate=fast", r"--set: ppo\.learning_rate: 'fast' \(expected a number\)"),
    ("advice_only=maybe", r"--set: advice_only: 'maybe' \(expected true or false\)"),
    ("features=rnn", r"--set: features: 'rnn' \(expected cnn, mlp or spatial\)"),
    ("pretrain.holdout=2", r"--set: pretrain\.holdout: 2.* \(expected a number from 0\.0 to 0\.9\)"),
    ("reward.dmg=1", r"--set: reward\.dmg: unknown reward entry 'dmg'.*damage_dealt"),
    ("ppo.x.y=1", r"--set: ppo\.x\.y: .*names no field"),
    ("total_steps=[1", r"--set: total_steps: '\[1' is not a YAML value"),
    ("total_steps", r"--set: total_steps: 'total_steps' \(expected key=value"),
    ("pretrain={sample: 3}", r"--set: pretrain\.sample: unknown pretrain field .*did you mean 'samples'"),
])
def test_set_errors_name_set_the_key_and_what_was_expected(item, pattern):
    with pytest.raises(TacticaError, match=pattern) as e:
        apply_sets(load_config(BASE), [item])
    assert "\n" not in str(e.value)


def test_set_on_resume_changes_only_the_resumable_fields():
    c = apply_sets(load_config(BASE), ["total_steps=4096", "eval_interval=512"], resume=True)
    assert c.total_steps == 4096 and c.eval_interval == 512
    for item in ("ppo.learning_rate=1e-4", "seed=3", "n_envs=4", "opponents=[random]"):
        with pytest.raises(TacticaError, match=r"--set: .*fixed by the run's checkpoint.*only total_steps"):
            apply_sets(load_config(BASE), [item], resume=True)
    assert "total_steps" in RESUMABLE and "ppo" not in RESUMABLE


def test_cli_set_is_saved_in_the_run_config_and_resume_goes_on_with_it(tmp_path):
    """`--set` values land in the run's config.yaml; `--resume` reads them from there (not
    from the config file), takes a resumable `--set`, and refuses another before touching the run."""
    path = tmp_path / "tiny.yaml"
    path.write_text(yaml.safe_dump({**BASE, "out_dir": str(tmp_path / "runs"), "run_name": "r"}))
    runner = CliRunner()
    r = runner.invoke(app, ["train", str(path), "--set", "ppo.learning_rate=1e-4", "--set", "reward.draw=-0.5",
                            "--set", "net_arch=[8, 8]"])
    assert r.exit_code == 0, r.output
    run = tmp_path / "runs" / "r"
    saved = yaml.safe_load((run / "config.yaml").read_text())
    assert saved["ppo"]["learning_rate"] == 1e-4 and saved["reward"]["draw"] == -0.5 and saved["net_arch"] == [8, 8]
    r = runner.invoke(app, ["train", str(path), "--resume", "--set", "ppo.learning_rate=3e-4"])
    assert r.exit_code == 2 and "--set: ppo.learning_rate: ppo.learning_rate is fixed" in r.output
    r = runner.invoke(app, ["train", str(path), "--resume", "--set", "total_steps=512"])
    assert r.exit_code == 0, r.output
    assert "differs in reward, ppo.learning_rate, net_arch (not used)" in " ".join(r.output.split())
    saved = yaml.safe_load((run / "config.yaml").read_text())
    assert saved["total_steps"] == 512 and saved["ppo"]["learning_rate"] == 1e-4 and saved["net_arch"] == [8, 8]
    assert json.loads((run / "checkpoints" / "latest.json").read_text())["step"] >= 512


# -- the last evaluation and the files' modes ------------------------------------------

@pytest.fixture(scope="module")
def short_run(tmp_path_factory) -> Path:
    """A run of 256 steps with evaluations every 10,000, under umask 027."""
    old = os.umask(0o027)
    try:
        return train(cfg(tmp_path_factory.mktemp("short"), run_name="s", eval_interval=10_000), progress=False)
    finally:
        os.umask(old)


def test_a_run_shorter_than_one_interval_still_evaluates_its_final_policy(short_run):
    rows = list(csv.DictReader(open(short_run / "eval.csv")))
    final = json.loads((short_run / "checkpoints" / "latest.json").read_text())["step"]
    assert [(int(r["step"]), r["opponent"], int(r["episodes"])) for r in rows] == [(final, "aggressive", 2)]
    assert 0.0 <= float(rows[0]["win_rate"]) <= 1.0
    pytest.importorskip("matplotlib")
    assert (short_run / "learning_curve.png").exists()


def test_no_second_evaluation_when_the_last_one_is_at_the_final_step(tmp_path):
    d = train(cfg(tmp_path, run_name="e", eval_interval=256), progress=False)
    assert [r["step"] for r in csv.DictReader(open(d / "eval.csv"))] == ["256"]
    d = train(cfg(tmp_path, run_name="n", eval_interval=0), progress=False)
    assert (d / "eval.csv").read_text() == "step,opponent,win_rate,episodes\n"   # eval_interval 0: none


def test_run_files_get_the_umasks_permissions_not_0600(short_run):
    """Under umask 027 every file of the run is 0640, as `open()` would make it (0644 under 022)."""
    files = [p for p in short_run.rglob("*") if p.is_file()]
    for name in ("checkpoints/latest.zip", "checkpoints/latest.json", "config.yaml", "policy.npz", "eval.csv"):
        assert short_run / name in files
    modes = {str(p.relative_to(short_run)): stat.S_IMODE(p.stat().st_mode) for p in files}
    assert modes == {k: 0o640 for k in modes}, modes


# -- --resume continues the envs' draws --------------------------------------------------

def test_restored_generator_draws_what_the_seeded_reset_would():
    from stable_baselines3.common.vec_env import DummyVecEnv

    def env():
        return SkirmishEnv(scenario="cortex/duel", opponent="aggressive", map_size=(12, 16), max_enemies=1,
                           max_allies=0)
    ref = env().reset(seed=7)[0]
    venv = DummyVecEnv([env, env])
    states = rng_states(venv, pending_seeds=[7, 8])
    assert states[0] == seeded_state(7)
    restore_rngs(venv, json.loads(json.dumps(states)), "latest.json")   # through the checkpoint's JSON
    obs, _ = venv.envs[0].reset()
    for k in ref:
        np.testing.assert_array_equal(obs[k], ref[k])
    with pytest.raises(TacticaError, match="latest.json: n_envs: the checkpoint has 1 env generators for 2"):
        restore_rngs(venv, states[:1], "latest.json")
    with pytest.raises(TacticaError, match="latest.json: env_rng: env 0's generator state is damaged"):
        restore_rngs(venv, [{"bit_generator": "seed"}, states[1]], "latest.json")


def _record_resets(monkeypatch) -> dict:
    """Per training env (tagged by its creation seed), the generator state after each unseeded
    reset: one entry per episode drawn from the env's own stream."""
    log: dict = {}
    make, reset = train_mod.make_env_fn, SkirmishEnv.reset

    def make_env_fn(cfg, run_dir, opponents, held_out=False, seed=0):
        thunk = make(cfg, run_dir, opponents, held_out=held_out, seed=seed)

        def tagged():
            env = thunk()
            env._test_tag = seed if seed >= 1000 and not held_out else None
            return env
        return tagged

    def logged_reset(self, *, seed=None, options=None):
        out = reset(self, seed=seed, options=options)
        if seed is None and getattr(self, "_test_tag", None) is not None:
            st = self.np_random.bit_generator.state["state"]
            log.setdefault(self._test_tag, []).append((st["state"], st["inc"]))
        return out
    monkeypatch.setattr(train_mod, "make_env_fn", make_env_fn)
    monkeypatch.setattr(SkirmishEnv, "reset", logged_reset)
    return log


def test_resume_continues_each_envs_draws_where_the_uninterrupted_run_would(tmp_path, monkeypatch):
    """A run stopped at its step-256 checkpoint and resumed to 512: each env's resets after the
    resume draw exactly what the uninterrupted run's next resets drew (the episode in play at
    the checkpoint is dropped), and none repeats a draw of before the checkpoint."""
    log = _record_resets(monkeypatch)
    whole = cfg(tmp_path, run_name="whole", seed=1, total_steps=512)
    train(whole, progress=False)
    uninterrupted = {k: list(v) for k, v in log.items()}
    log.clear()
    part = cfg(tmp_path, run_name="part", seed=1, total_steps=256)
    train(part, progress=False)
    before = {k: list(v) for k, v in log.items()}
    log.clear()
    train(load_config({**part.to_dict(), "total_steps": 512}), resume=True, progress=False)
    after = {k: list(v) for k, v in log.items()}
    assert sorted(uninterrupted) == sorted(before) == sorted(after) == [1000, 1001]
    for k in (1000, 1001):
        n = len(before[k])
        assert uninterrupted[k][:n] == before[k]          # the same run up to the checkpoint
        common = min(len(after[k]), len(uninterrupted[k]) - n)
        assert common >= 1, (k, len(after[k]), len(uninterrupted[k]), n)
        assert after[k][:common] == uninterrupted[k][n:n + common]
        assert not set(after[k]) & set(before[k])          # no episode of the run's start again


def test_resume_refuses_another_env_count_and_reseeds_a_checkpoint_without_generators(tmp_path):
    c = cfg(tmp_path, run_name="old")
    d = train(c, progress=False)
    with pytest.raises(TacticaError, match=r"n_envs: the checkpoint was trained with 2 envs"):
        train(load_config({**c.to_dict(), "n_envs": 1, "total_steps": 512}), resume=True, progress=False)
    meta_path = d / "checkpoints" / "latest.json"
    meta = json.loads(meta_path.read_text())
    assert len(meta.pop("env_rng")) == 2
    meta_path.write_text(json.dumps(meta))    # a checkpoint written before the generators were kept
    train(load_config({**c.to_dict(), "total_steps": 512}), resume=True, progress=False)
    assert json.loads(meta_path.read_text())["step"] >= 512
