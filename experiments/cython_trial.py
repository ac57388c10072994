"""Would compiling today's Python with Cython speed up the engine and `tactical`? (issue 30)

Copies the checkout (tracked and untracked files git does not ignore) to a scratch folder,
compiles the listed modules there with Cython in pure-Python mode (no code changed: annotations
not used as C types, `annotation_typing=False`, since `x: set[str] = frozenset()` would then be
refused), and alternates `tactical` against `tactical` fights on cortex/warehouse in the plain
and the compiled copy, each in a fresh process, reporting CPU seconds a fight and the actions
played (the same fights in both: a check that the compiled code plays the same game).

    python experiments/cython_trial.py --rounds 2 --fights 20

Needs Cython and a C compiler (gcc and the Python headers are on this machine); the compile of
the default modules takes about 6 CPU minutes. Result: docs/benchmarks.md, "Issue 30, an
eleventh look".
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MODULES = "agents/*.py,rules/*.py,rules/systems/cortex/*.py,rules/systems/cortex_common/*.py"

_BUILD = """
import glob, sys
from setuptools import setup
from Cython.Build import cythonize
files = sorted({f for p in sys.argv[1].split(",") for f in glob.glob(p) if not f.endswith("__init__.py")})
setup(ext_modules=cythonize(files, language_level=3, nthreads=2, quiet=True,
                            compiler_directives={"binding": True, "annotation_typing": False}),
      script_args=["build_ext", "--inplace", "-j", "2"])
print(len(files))
"""

_FIGHTS = """
import json, sys, time
sys.path.insert(0, sys.argv[1])
from evaluation.simulate import check_policies, play_fight
from rules.scenario import load_scenario
import rules.state
spec, src = load_scenario("cortex/warehouse")
pols = check_policies(spec, {"*": "tactical"})
play_fight(spec, pols, 1, 999, src)
n = int(sys.argv[2]); acts = 0
t = time.process_time()
for i in range(n):
    acts += play_fight(spec, pols, 1, i, src).actions
print(json.dumps({"cpu": time.process_time() - t, "actions": acts,
                  "compiled": rules.state.__file__.endswith(".so")}))
"""


def _copy(dest: Path) -> None:
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT, check=True,
                           capture_output=True, text=True).stdout.split()
    for f in files:
        src = ROOT / f
        if src.is_file():
            (dest / f).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / f)


def _fights(root: Path, n: int) -> dict:
    out = subprocess.run([sys.executable, "-c", _FIGHTS, str(root), str(n)], cwd=root, check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--modules", default=MODULES, help="comma-separated globs of the modules to compile")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--fights", type=int, default=20)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="tactica-cython-") as tmp:
        plain, compiled = Path(tmp) / "plain", Path(tmp) / "compiled"
        _copy(plain)
        _copy(compiled)
        built = subprocess.run([sys.executable, "-c", _BUILD, args.modules], cwd=compiled, capture_output=True,
                               text=True)
        if built.returncode != 0:
            sys.exit(f"the Cython build failed:\n{built.stderr[-2000:]}")
        print(f"compiled {built.stdout.strip().splitlines()[-1]} modules", flush=True)
        cpu = {"plain": 0.0, "compiled": 0.0}
        for r in range(args.rounds):
            for name, root in (("plain", plain), ("compiled", compiled)) if r % 2 == 0 else \
                    (("compiled", compiled), ("plain", plain)):
                got = _fights(root, args.fights)
                assert got["compiled"] == (name == "compiled"), got
                cpu[name] += got["cpu"]
                print(f"round {r + 1} {name:8s} {args.fights / got['cpu']:.2f} fights/CPU s, "
                      f"{got['actions']} actions", flush=True)
        print(f"compiled / plain speed: x{cpu['plain'] / cpu['compiled']:.3f}")


if __name__ == "__main__":
    main()
