"""Which golden event logs changed in content between two commits, not only in format.

Issue 32 added fields to events (every event's `round`/`step` stamp, the roll events'
`check`/`modifiers` (metalface: `dice_modifiers`), metalface moves' `path`/`turn_m`, `choice` events where a figure's
choice took effect). This prints, per golden log, the first line whose content differs
once those are set aside, so a note can say which logs changed because a rule did.

    python experiments/golden_changes.py 71580f7
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

NEW_FIELDS = {"step", "check", "modifiers", "dice_modifiers", "path", "turn_m"}
GOLDEN = Path(__file__).resolve().parents[1] / "tests" / "golden"


def content(line: str, old_keys: set[str] | None = None) -> dict:
    e = json.loads(line)
    drop = NEW_FIELDS | ({"round"} if old_keys is not None and "round" not in old_keys else set())
    return {k: v for k, v in e.items() if k not in drop}


def main(base: str) -> None:
    for path in sorted(GOLDEN.glob("*.jsonl")):
        rel = path.relative_to(GOLDEN.parents[1]).as_posix()
        try:
            old = subprocess.run(["git", "show", f"{base}:{rel}"], capture_output=True, text=True,
                                 check=True).stdout.splitlines()
        except subprocess.CalledProcessError:
            print(f"{path.name}: new")
            continue
        new = [ln for ln in path.read_text().splitlines() if json.loads(ln)["type"] != "choice"]
        first = None
        for i, (a, b) in enumerate(zip(old, new)):
            ka = set(json.loads(a))
            if content(a) != content(b, ka):
                first = i
                break
        if first is None and len(old) != len(new):
            first = min(len(old), len(new))
        if first is None:
            print(f"{path.name}: same content ({len(old)} events; only the new fields differ)")
        else:
            print(f"{path.name}: content differs from event {first + 1} of {len(old)} "
                  f"(old: {old[first][:100] if first < len(old) else '-'})")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "71580f7")
