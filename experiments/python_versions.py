"""Does a newer CPython run Tactica faster? (issue 30)

The machine has CPython 3.12 and 3.13 beside the 3.11 the project runs on (pyenv). This
makes a scratch virtual environment per interpreter with the core's dependencies (numpy,
numba, pydantic, pyyaml, typer, rich, threadpoolctl, gymnasium: from the package registry),
then runs `benchmarks/ab.py`'s workloads on this checkout with each interpreter in turn,
`--rounds` times alternated, and prints the CPU-second ratio of each interpreter to the
first one and each workload's checksum (the same fights under every interpreter: the dice
and the decisions do not depend on it).

    python experiments/python_versions.py --rounds 2 --what tactical,env-random,planner,engine

`--python` names the interpreters (the first is the reference; default: this one, and
pyenv's 3.13 and 3.12 where they exist). Result: docs/benchmarks.md, "Issue 30, a thirteenth look".
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEPS = ["numpy", "numba", "pydantic", "pyyaml", "typer", "rich", "threadpoolctl", "gymnasium"]
PYENV = Path.home() / ".pyenv" / "versions"


def _ab():
    spec = importlib.util.spec_from_file_location("ab", ROOT / "benchmarks" / "ab.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def venv_python(exe: str, scratch: Path) -> str:
    """The python of a scratch venv made with interpreter `exe`, the core's dependencies installed
    (the reference interpreter, this one, is used as it is)."""
    if Path(exe).resolve() == Path(sys.executable).resolve():
        return exe
    ver = subprocess.run([exe, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                         capture_output=True, text=True, check=True).stdout.strip()
    env = scratch / f"venv{ver}"
    py = env / "bin" / "python"
    if not py.exists():
        subprocess.run([exe, "-m", "venv", str(env)], check=True)
        subprocess.run([str(py), "-m", "pip", "install", "-q", *DEPS], check=True)
    return str(py)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--what", default="tactical,env-random,planner,engine", help="ab.py workloads")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--python", default="", help="comma-separated interpreters, the first the reference")
    ap.add_argument("--scratch", default="/tmp/tactica-pythons", help="where the venvs are made")
    args = ap.parse_args(argv)
    exes = [e for e in args.python.split(",") if e] or [sys.executable] + [
        str(p) for p in (PYENV / "3.13.0" / "bin" / "python", PYENV / "3.12.1" / "bin" / "python") if p.exists()]
    scratch = Path(args.scratch)
    scratch.mkdir(parents=True, exist_ok=True)
    pythons = [venv_python(e, scratch) for e in exes]
    ab = _ab()
    whats = [w for w in args.what.split(",") if w]
    cpu: dict[tuple[str, str], float] = {}
    checks: dict[tuple[str, str], set] = {}
    for rnd in range(args.rounds):
        for py in pythons:
            ab.sys.executable = py   # ab.py runs each workload with sys.executable
            for what in whats:
                r = ab.run_workload(ROOT, what, 1.0)
                cpu[(what, py)] = cpu.get((what, py), 0.0) + r["cpu"]
                checks.setdefault((what, py), set()).add(r.get("check"))
                print(f"round {rnd + 1} {what:<11} {py:<45} {r['cpu']:7.2f} CPU s  check {r.get('check')}",
                      flush=True)
    ref = pythons[0]
    for what in whats:
        for py in pythons[1:]:
            same = checks[(what, py)] == checks[(what, ref)]
            print(f"{what:<11} {py}: x{cpu[(what, ref)] / cpu[(what, py)]:.3f} of {ref} "
                  f"(the same play: {same})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
