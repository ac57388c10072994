"""Can mypyc, which compiles annotated Python with C types, take today's engine and `tactical`? (issue 30)

Cython's generic object code made `tactical` fights 3-8% cheaper (experiments/cython_trial.py); a compiler
pays where it knows types. mypyc does, from the annotations already in the code, and turns slotted
dataclasses into native classes. This script copies the checkout to a scratch folder and takes the steps
a compile needs without changing what the code does:

1. every line mypy reports an error on gets `# type: ignore` (mypyc refuses modules with type errors; an
   ignored line is compiled with run-time checks);
2. every class but the plain records (`Combatant`, `BattleState`, `Action`, `Choice`, `TurnMemory`,
   `Ctx`, `Grid`) is marked `native_class=False`: the rulesets and policies are mixins (multiple
   inheritance, which native classes allow only with traits) and are patched after definition
   (`Ruleset`'s asking wrappers, `Policy.__init_subclass__`'s `act`);
3. `restore`'s loops over `__slots__` name the fields (a native class has no `__slots__`);

then runs `mypyc` on the modules a cortex `tactical` fight uses and prints the first errors it stops on.

    python experiments/mypyc_trial.py            # needs mypy (pip install mypy; mypyc comes with it) and gcc

Result (2026-12-06, mypy 2.4.1): 342 type errors on 325 lines of the 50 modules; after steps 1-3 mypyc
still stops, with internal errors (AssertionError in `add_var_to_env_class`) on every closure (a `lambda`
or nested function reading a local) inside a method of a non-native class, e.g. `agents/tactical.py`
`guard_choices`' `key=lambda e: -ctx.danger[e.id]`, `rules/systems/cortex/asked.py` `dodge_cover`'s
`min(best, key=lambda k: best[k])`. The code would have to be restructured (traits instead of mixins, no
patching of classes, no closures in methods) before mypyc can measure anything: the same rewrite as the
typed records of docs/benchmarks.md. docs/benchmarks.md, "Issue 30, a twelfth look".
"""

from __future__ import annotations

import argparse
import collections
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: the modules a cortex `tactical` against `tactical` fight spends its time in
MODULES = ("rules/state.py rules/grid.py rules/geometry.py rules/battle.py rules/actions.py rules/dice.py "
           "rules/events.py rules/ruleset.py rules/choices.py rules/atomic.py rules/calls.py rules/systems/cortex "
           "rules/systems/cortex_common agents/tactical.py agents/tactical_moves.py agents/tactical_types.py "
           "agents/assess.py agents/positions.py agents/threat_memo.py agents/refine.py agents/reasons.py "
           "agents/base.py").split()
NATIVE = {"Combatant", "BattleState", "Action", "Choice", "TurnMemory", "Ctx", "Grid"}
_ERROR = re.compile(r"^(.+?\.py):(\d+): error:")


def _files(mods: list[str]) -> list[str]:
    out: list[str] = []
    for m in mods:
        out += [m] if m.endswith(".py") else sorted(glob.glob(m + "/*.py"))
    return out


def _tool(name: str) -> str:
    exe = Path(sys.executable).with_name(name)
    return str(exe) if exe.exists() else name


def ignore_type_errors(mods: list[str]) -> int:
    """Step 1: `# type: ignore` on each line mypy reports (before a comment already there); the count."""
    total = 0
    for _ in range(4):
        out = subprocess.run([_tool("mypy"), "--ignore-missing-imports", "--follow-imports=silent", *mods],
                             capture_output=True, text=True).stdout
        hits: dict[str, set[int]] = collections.defaultdict(set)
        for line in out.splitlines():
            m = _ERROR.match(line)
            if m:
                hits[m.group(1)].add(int(m.group(2)))
        if not hits:
            break
        for f, lines in hits.items():
            src = Path(f).read_text().split("\n")
            for n in lines:
                s = src[n - 1].replace("  # type: ignore", "")
                i = s.find("  #")
                src[n - 1] = s + "  # type: ignore" if i < 0 else s[:i] + "  # type: ignore" + s[i:]
                total += 1
            Path(f).write_text("\n".join(src))
    return total


def mark_non_native(mods: list[str]) -> int:
    """Steps 2 and 3; the classes marked."""
    marked = 0
    for f in _files(mods):
        src = Path(f).read_text().split("\n")
        out: list[str] = []
        for s in src:
            m = re.match(r"^class (\w+)", s)
            if m and m.group(1) not in NATIVE:
                out.append("@_mypyc_attr(native_class=False)")
                marked += 1
            out.append(s)
        if len(out) != len(src):
            at = next((i + 1 for i, s in enumerate(out) if s.startswith("from __future__")), 0)
            out.insert(at, "from mypy_extensions import mypyc_attr as _mypyc_attr")
        text = "\n".join(out)
        for cls in ("Combatant", "BattleState"):
            text = text.replace(f"for f in {cls}.__slots__:", f"for f in {cls}.__dataclass_fields__:")
        Path(f).write_text(text)
    return marked


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--keep", action="store_true", help="keep the scratch copy and print its path")
    args = ap.parse_args()
    if shutil.which(_tool("mypyc")) is None and not Path(_tool("mypyc")).exists():
        sys.exit("mypyc not found: pip install mypy")
    tmp = Path(tempfile.mkdtemp(prefix="tactica-mypyc-"))
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT, check=True,
                           capture_output=True, text=True).stdout.split()
    for f in files:
        if (ROOT / f).is_file():
            (tmp / f).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / f, tmp / f)
    os.chdir(tmp)
    print(f"{ignore_type_errors(MODULES)} lines given `# type: ignore`; "
          f"{mark_non_native(MODULES)} classes marked non-native")
    for _ in range(4):  # mypyc checks a little more than mypy: ignore those lines too, then compile again
        run = subprocess.run([_tool("mypyc"), "--ignore-missing-imports", "--follow-imports=silent", *MODULES],
                             capture_output=True, text=True)
        errors = [ln for ln in (run.stdout + run.stderr).splitlines() if re.match(r"^\S+\.py:\d+: ", ln)]
        typed = [ln for ln in errors if "incompatible with definition" in ln or "Cannot determine type" in ln]
        if run.returncode == 0 or not typed:
            break
        for ln in typed:
            f, n = ln.split(":")[:2]
            src = Path(f).read_text().split("\n")
            src[int(n) - 1] += "  # type: ignore"
            Path(f).write_text("\n".join(src))
    print("compiled" if run.returncode == 0 else f"mypyc stopped (exit {run.returncode}):")
    for ln in errors[:12]:
        print("  " + ln)
    if args.keep:
        print(tmp)
    else:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
