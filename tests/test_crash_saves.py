"""Crash injection (issue #34): an autopilot that saves after every step, killed with SIGKILL
at random moments, always leaves a save that loads, and the next save leaves no temporary
file behind (rules/atomic.py: `.NAME.tmp-PID-RANDOM`, stale ones of dead writers removed).

The default run kills the writer TACTICA_CRASH_KILLS times (default 5, about 5 s); the slow
run 40 times. Kill moments come from a seeded generator; where in a save each kill lands is
up to the machine, so the test also counts the kills that caught a temporary file (shown
with -s), and a unit test leaves a dead writer's temporary file on purpose.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from rules.atomic import atomic_write, remove_stale_temps, stale_temps, temp_prefix
from tactica.table import Session, read_save

ROOT = Path(__file__).resolve().parents[1]
KILLS = int(os.environ.get("TACTICA_CRASH_KILLS", "5"))

#: plays the warehouse with random policies on both sides (cheap: the time goes to saving),
#: saving after every action and, once the fight is over, again and again (each save is a
#: whole atomic write of ~0.5-1 MB, on a disk made slow to sync so that more kills land while
#: a temporary file exists)
DRIVER = """
import os, sys, time
from pathlib import Path
from tactica.table import Session
_fsync = os.fsync
os.fsync = lambda fd: (time.sleep(0.03), _fsync(fd))[1]   # a slow disk: more kills land mid-write
F = Path(sys.argv[1])
if F.exists():
    s = Session.resume(F, npc=["crew=random", "syndicate=random"])
else:
    s = Session.new("cortex/warehouse", npc=["crew=random", "syndicate=random"], seed=int(sys.argv[2]), save_path=F)
    s.begin()
print("ready", flush=True)
while True:
    if not s.state.over:
        s.resolve(s.plan().action)
    s.save()
"""


def _temps(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if ".tmp" in p.name)


def _kill_loop(folder: Path, kills: int, seed: int) -> dict[str, int]:
    """Start the driver, kill it at a random moment after its first save, check the save,
    resume and save it once; `kills` times. Returns counts for the report."""
    rng = np.random.default_rng(seed)
    save = folder / "fight.json"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    caught = 0
    actions = []
    for k in range(kills):
        proc = subprocess.Popen([sys.executable, "-c", DRIVER, str(save), str(seed)], cwd=folder, env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            line = proc.stdout.readline()
            assert line.strip() == "ready", f"kill {k}: the driver did not start: {line!r} {proc.stderr.read()}"
            time.sleep(float(rng.uniform(0.02, 0.5)))
            assert proc.poll() is None, f"kill {k}: the driver stopped by itself: {proc.stderr.read()}"
            os.kill(proc.pid, signal.SIGKILL)
        finally:
            proc.kill()
            proc.wait()   # reaped: a zombie would still count as a live writer
            proc.stdout.close()
            proc.stderr.close()
        assert proc.returncode == -signal.SIGKILL
        left = _temps(folder)
        caught += bool(left)
        assert all(n.startswith(temp_prefix(save)) for n in left), f"kill {k}: unexpected files {left}"
        # the save loads (read_save: whole JSON of the right format; resume: every field checked)
        d = read_save(save)
        s = Session.resume(save)
        assert s.state.round >= 1 and len(s.history) == len(d["session"]["history"])
        actions.append(len(s.history))
        s.save()
        assert _temps(folder) == [], f"kill {k}: temporary files left after the next save: {_temps(folder)}"
        assert sorted(p.name for p in folder.iterdir()) == ["fight.json"]
    return {"kills": kills, "caught_mid_save": caught, "max_history": max(actions)}


def test_kill_9_during_saves_leaves_a_loadable_save_and_no_temporary_file(tmp_path):
    counts = _kill_loop(tmp_path, KILLS, seed=34)
    print(f"\ncrash injection: {counts}")
    assert counts["max_history"] > 0   # the driver got as far as resolving actions


@pytest.mark.slow
def test_kill_9_during_saves_many_times(tmp_path):
    counts = _kill_loop(tmp_path, 40, seed=3434)
    print(f"\ncrash injection: {counts}")
    assert counts["caught_mid_save"] > 0   # 40 kills during back-to-back saves catch some mid-write


def _dead_pid() -> int:
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    return p.pid


def test_the_next_save_removes_temporary_files_of_dead_writers_only(tmp_path):
    target = tmp_path / "s.json"
    atomic_write(target, "old")
    dead = tmp_path / f"{temp_prefix(target)}{_dead_pid()}-abc123"
    live = tmp_path / f"{temp_prefix(target)}{os.getppid()}-def456"    # our parent runs
    mine = tmp_path / f"{temp_prefix(target)}{os.getpid()}-ghi789"     # maybe another thread's
    other = tmp_path / f".{target.name}x.tmp-{_dead_pid()}-jkl"         # another file's
    for p in (dead, live, mine, other):
        p.write_text("half a save")
    assert stale_temps(target) == [dead]
    atomic_write(target, "new")
    assert target.read_text() == "new"
    assert not dead.exists() and live.exists() and mine.exists() and other.exists()
    assert remove_stale_temps(target) == 0


def test_loading_a_save_ignores_a_dead_writers_temporary_file(tmp_path):
    """A kill mid-write leaves the old save whole beside the temporary file; resuming reads the
    old save and its first save removes the temporary file."""
    save = tmp_path / "fight.json"
    s = Session.new("cortex/duel", seed=2, save_path=save)
    s.begin()
    s.resolve(s.plan().action)
    before = save.read_text()
    stray = tmp_path / f"{temp_prefix(save)}{_dead_pid()}-xyz"
    stray.write_text(before[: len(before) // 2])   # half of a save: what a kill leaves
    r = Session.resume(save)
    assert len(r.history) == 1
    r.resolve(r.plan().action)
    assert not stray.exists() and _temps(tmp_path) == []
    assert len(read_save(save)["session"]["history"]) == 2
