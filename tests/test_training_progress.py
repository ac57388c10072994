"""`tactica train`'s progress where stdout is a log, not a terminal (a run in the background):
plain lines now and then, with what is done, the rate and the time left (training/progress.py)."""

from __future__ import annotations

import pytest

from training import progress
from training.progress import LogLines, duration


def test_a_line_at_most_every_interval_with_the_rate_and_the_time_left():
    now = [100.0]
    out: list[str] = []
    log = LogLines("train cortex", "steps", every=60.0, out=out.append, clock=lambda: now[0])
    now[0] = 130.0
    assert not log.update(3_000, 12_000) and out == []          # 30 s: not due
    now[0] = 160.0
    assert log.update(6_000, 12_000)
    assert out[-1] == "train cortex: 6,000/12,000 steps (100 steps/s), 1m 00s so far, about 1m 00s left"
    now[0] = 190.0
    assert not log.update(9_000, 12_000)                         # 30 s after the last line
    now[0] = 400.0
    assert not log.update(12_000, 12_000)                        # the end has a line of its own
    # a resumed run: the steps before it are not in the rate, nor in the time left
    now[0] = 0.0
    resumed = LogLines("train cortex", "steps", every=1.0, out=out.append, clock=lambda: now[0], start_done=10_000)
    now[0] = 10.0
    resumed.update(11_000, 12_000, "last evaluation won 55%")
    assert out[-1] == ("train cortex: 11,000/12,000 steps (100 steps/s), last evaluation won 55%, 10s so far, "
                       "about 10s left")
    assert [duration(s) for s in (5, 250, 6_400)] == ["5s", "4m 10s", "1h 46m"]


def test_a_run_writing_to_a_log_prints_plain_progress_lines(tmp_path, monkeypatch, capsys):
    """A tiny run with progress on and stdout captured (not a terminal): PPO's steps and the
    rollout labelling's decisions show as plain lines, no bar."""
    pytest.importorskip("sb3_contrib")
    from tests.training_setup import cfg
    from training.train import train

    monkeypatch.setattr(progress, "LOG_EVERY_S", 0.0)
    c = cfg(tmp_path, total_steps=256, eval_interval=0, run_name="logged",
            expert={"iterations": 1, "states": 40, "top_k": 2, "rollouts": 2, "workers": 1, "eval_episodes": 0,
                    "mirror": False})
    train(c, progress=True)
    out = capsys.readouterr().out
    assert "train cortex: 64/256 steps" in out and "so far" in out
    assert "train cortex: 256 steps," in out               # the end of the PPO part
    assert "expert round 1/1 labelling: 20/40 decisions" in out
    assert "━" not in out                                   # no Rich bar in a log
