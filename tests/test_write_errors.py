"""A file a command cannot write (issue #34) is one line naming the file and what failed, exit
status 2, and nothing of it is left: no partial file, no temporary file (rules/atomic.py).

A full disk is /dev/full (every write: ENOSPC). A read-only folder is a folder without write
permission; as root the command runs without CAP_DAC_OVERRIDE, which is what makes root
honour permissions (skipped where that cannot be done).
"""

from __future__ import annotations

import ctypes
import errno
import os
import subprocess
import sys
from pathlib import Path

import pytest

from rules.atomic import atomic_open, atomic_write
from rules.errors import WriteError

ROOT = Path(__file__).resolve().parents[1]
FULL = Path("/dev/full")
needs_full = pytest.mark.skipif(not FULL.is_char_device(), reason="no /dev/full")


def _drop_dac() -> None:
    """In the child, before exec: as root, drop the capabilities that override file permissions."""
    if os.geteuid() == 0:
        libc = ctypes.CDLL(None, use_errno=True)
        for cap in (1, 2):   # CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH
            if libc.prctl(24, cap, 0, 0, 0) != 0:   # PR_CAPBSET_DROP
                raise OSError(ctypes.get_errno(), "prctl")


def tactica(*args: str, readonly: bool = False, stdout=subprocess.PIPE, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tactica", *args], cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
                          input=stdin, stdout=stdout, stderr=subprocess.PIPE, text=True, timeout=120,
                          preexec_fn=_drop_dac if readonly else None)


def one_error_line(r: subprocess.CompletedProcess, path: str, what: str) -> str:
    assert r.returncode == 2, (r.returncode, r.stderr[-2000:])
    assert "Traceback" not in r.stderr
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    # difficulty and tune report their progress on stderr before it (#35): the error is the
    # one line that says so, and the last
    errors = [ln for ln in lines if ln.startswith("error:")]
    assert len(errors) == 1 and lines[-1] == errors[0] and errors[0].startswith(f"error: {path}: "), r.stderr
    assert what in errors[0], errors[0]
    return errors[0]


@pytest.fixture
def readonly(tmp_path) -> Path:
    d = tmp_path / "ro"
    d.mkdir()
    d.chmod(0o555)
    probe = subprocess.run([sys.executable, "-c", f"open({str(d / 'probe')!r}, 'w')"], capture_output=True,
                           preexec_fn=_drop_dac)
    if probe.returncode == 0:
        d.chmod(0o755)
        pytest.skip("this user can write into a folder without write permission")
    yield d
    d.chmod(0o755)


@needs_full
def test_simulate_log_on_a_full_disk():
    line = one_error_line(tactica("simulate", "cortex/duel", "-n", "2", "--log", str(FULL)), str(FULL),
                          "cannot write: No space left on device")
    assert "--log" in line


@needs_full
def test_autopilot_save_on_a_full_disk():
    before = set(os.listdir("/dev"))
    r = tactica("autopilot", "cortex/duel", "--save", str(FULL), stdin="quit\n")
    one_error_line(r, str(FULL), "No space left on device")
    assert set(os.listdir("/dev")) - before == set()   # no temporary file next to the device
    assert FULL.is_char_device()                       # and the device was not replaced


@needs_full
def test_tune_out_and_standard_output_on_a_full_disk():
    r = tactica("tune", "cortex/duel", "--target-win", "0.5", "-n", "2", "--check-episodes", "2", "--refine", "0",
                "-o", str(FULL))
    one_error_line(r, str(FULL), "No space left on device")
    with open(FULL, "w") as full:
        r = tactica("rulesets", "--json", stdout=full)
    one_error_line(r, "standard output", "cannot write: No space left on device")


def test_writes_into_a_read_only_folder(readonly):
    for args, name in ((["simulate", "cortex/duel", "-n", "2", "--log"], "log.jsonl"),
                       (["difficulty", "cortex/duel", "-n", "2", "--plot"], "plot.png")):
        target = str(readonly / name)
        one_error_line(tactica(*args, target, readonly=True), target, "Permission denied")
    target = str(readonly / "s.json")
    one_error_line(tactica("autopilot", "cortex/duel", "--save", target, stdin="quit\n", readonly=True), target,
                   "Permission denied")
    assert list(readonly.iterdir()) == []


def test_a_failed_write_keeps_the_old_file_and_leaves_no_temporary(tmp_path, monkeypatch):
    target = tmp_path / "log.jsonl"
    target.write_text("the old log\n")

    def full(fd):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(WriteError) as e:
        with atomic_open(target) as fh:
            fh.write("a new log\n" * 1000)
    assert e.value.line() == (f"{target}: (file): cannot write: No space left on device "
                              "(expected free space on its disk, or a file on another disk)")
    assert e.value.errno == errno.ENOSPC
    assert target.read_text() == "the old log\n" and sorted(p.name for p in tmp_path.iterdir()) == ["log.jsonl"]
    with pytest.raises(ZeroDivisionError):              # a failure of the writer's own: nothing written
        with atomic_open(tmp_path / "new.jsonl") as fh:
            fh.write("half")
            1 / 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["log.jsonl"]


def test_atomic_write_errors_name_the_file(tmp_path):
    for target, words in ((tmp_path / "missing" / "f.json", "No such file or directory"),
                          (tmp_path, "is a folder")):
        with pytest.raises(WriteError) as e:
            atomic_write(target, "x")
        assert e.value.line().startswith(f"{target}: (file): ") and words in e.value.line()
    if FULL.is_char_device():
        with pytest.raises(WriteError, match="No space left on device"):
            atomic_write(FULL, "x" * 10_000)
    atomic_write(os.devnull, "nothing kept")           # a device is written directly
    assert Path(os.devnull).is_char_device()
