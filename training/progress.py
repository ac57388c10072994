"""Progress of long training work where nobody watches a terminal.

`tactica train` shows a live Rich bar on a terminal. A run in the background (`nohup tactica
train ... > run.log &`, as a 2.5-hour run is meant to go) writes to a file, where a live bar
shows nothing until it stops; there `LogLines` prints a plain line at most every
`LOG_EVERY_S` seconds instead: what is done, the rate, the time so far and an estimate of the
time left.
"""

from __future__ import annotations

import sys
import time
from typing import Callable

#: in a log, a progress line at most this often (seconds)
LOG_EVERY_S = 60.0


def on_terminal() -> bool:
    """Whether stdout is a terminal (a live bar), not a file or a pipe (plain lines)."""
    try:
        return sys.stdout.isatty()
    except (AttributeError, ValueError):   # replaced or closed
        return False


def duration(seconds: float) -> str:
    """`45s`, `4m 10s`, `1h 46m`."""
    s = int(round(max(0.0, seconds)))
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m {s % 60:02d}s"
    return f"{s // 3600}h {s % 3600 // 60:02d}m"


class LogLines:
    """Plain progress lines: `update(done, total)` prints one when `every` seconds have passed
    since the last (and the work is not finished: its end has a line of its own), e.g.
    `train cortex: 12,288/276,480 steps (130 steps/s), 1m 34s so far, about 34m 10s left`."""

    def __init__(self, what: str, unit: str, every: float | None = None, out: Callable[[str], None] | None = None,
                 clock: Callable[[], float] = time.monotonic, start_done: int = 0) -> None:
        self.what, self.unit = what, unit
        self.every = float(LOG_EVERY_S if every is None else every)
        self.out = out or (lambda line: print(line, flush=True))
        self.clock = clock
        self.start = self.last = clock()
        self.start_done = int(start_done)   # work done before this run (a resumed one): not in the rate

    def update(self, done: int, total: int | None, extra: str = "") -> bool:
        """Print a line if one is due; whether it printed."""
        now = self.clock()
        if now - self.last < self.every or (total is not None and done >= total):
            return False
        self.last = now
        self.out(self.line(done, total, now - self.start, extra))
        return True

    def line(self, done: int, total: int | None, seconds: float, extra: str = "") -> str:
        text = f"{self.what}: {done:,}" + (f"/{total:,}" if total else "") + f" {self.unit}"
        fresh = done - self.start_done
        if fresh > 0 and seconds > 0:
            text += f" ({fresh / seconds:,.0f} {self.unit}/s)" if fresh / seconds >= 10 else ""
        text += (", " + extra if extra else "") + f", {duration(seconds)} so far"
        if total and fresh > 0 and done < total:
            text += f", about {duration(seconds * (total - done) / fresh)} left"
        return text
