"""Runs hostile command lines, each in its own forked process with bounds (issue #34).

`python tests/hostile_runner.py CASES.json RESULTS.json`: CASES is a list of
`{"id", "argv", "stdin"}`; the runner imports the command line once, then forks one child a
case. The child's address space is capped (`RLIMIT_AS`: what the runner has plus
`HEADROOM_MB`) and it is killed by `SIGALRM` after `KILL_S` seconds, so a runaway case fails
its test instead of taking the machine. Each result holds the exit status (or the signal),
stdout, stderr, wall seconds and the child's peak resident memory beyond what it held
when it started.
"""

from __future__ import annotations

import json
import os
import resource
import signal
import sys
import tempfile
import time

HEADROOM_MB = 1024
KILL_S = 20


def _rss_mb() -> float:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2 ** 20


def _vm_bytes() -> int:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")


def _preload() -> None:
    """What the commands import on first use, so each child starts warm."""
    import agents.base  # noqa: F401
    import agents.learned  # noqa: F401
    import agents.tactical  # noqa: F401
    import evaluation.difficulty  # noqa: F401
    import evaluation.simulate  # noqa: F401
    import evaluation.tuning  # noqa: F401
    import tactica.cli  # noqa: F401
    import tactica.table.session  # noqa: F401
    import tactica.table.terminal  # noqa: F401
    import tactica.web.replay  # noqa: F401


def _child(case: dict, work: str, vm: int, in_p: str, out_p: str, err_p: str) -> int:
    with open(err_p + ".rss", "w") as fh:   # resident at the start: the growth is measured from here
        fh.write(str(_rss_mb()))
    limit = vm + HEADROOM_MB * 2 ** 20
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    signal.alarm(KILL_S)
    for fd, path, mode in ((0, in_p, os.O_RDONLY), (1, out_p, os.O_WRONLY | os.O_CREAT | os.O_TRUNC),
                           (2, err_p, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)):
        f = os.open(path, mode, 0o644)
        os.dup2(f, fd)
        os.close(f)
    os.chdir(case.get("cwd") or work)
    sys.argv = ["tactica", *case["argv"]]
    from tactica.cli import main
    code = 0
    try:
        main()
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    except BaseException:  # a traceback: printed, and status 1 as Python gives
        import traceback
        traceback.print_exc()
        code = 1
    sys.stdout.flush()
    sys.stderr.flush()
    return code


def run_case(case: dict, work: str) -> dict:
    out_p = os.path.join(work, f"{case['id']}.out")
    err_p = os.path.join(work, f"{case['id']}.err")
    in_p = os.path.join(work, f"{case['id']}.in")
    with open(in_p, "w") as fh:
        fh.write(case.get("stdin") or "")
    vm = _vm_bytes()
    t0 = time.monotonic()
    pid = os.fork()
    if pid == 0:  # the child: bounded, its own files, the console script's main()
        code = 1
        try:
            code = _child(case, work, vm, in_p, out_p, err_p)
        finally:
            os._exit(code)
    _, status, usage = os.wait4(pid, 0)
    wall = time.monotonic() - t0
    try:
        with open(err_p + ".rss") as fh:
            start_rss = float(fh.read())
    except (OSError, ValueError):
        start_rss = 0.0   # the child died before it wrote it: count all it held
    res = {"id": case["id"], "wall_s": round(wall, 3),
           "peak_extra_mb": round(max(0.0, usage.ru_maxrss / 1024 - start_rss), 1)}
    if os.WIFSIGNALED(status):
        res["signal"] = os.WTERMSIG(status)
        res["code"] = None
    else:
        res["code"] = os.WEXITSTATUS(status)
    for k, p in (("stdout", out_p), ("stderr", err_p)):
        with open(p, encoding="utf-8", errors="replace") as fh:
            res[k] = fh.read(20_000)
    return res


def main() -> None:
    cases = json.load(open(sys.argv[1]))
    _preload()
    with tempfile.TemporaryDirectory() as work:
        results = [run_case(c, work) for c in cases]
    json.dump(results, open(sys.argv[2], "w"), indent=1)


if __name__ == "__main__":
    main()
