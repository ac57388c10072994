"""What the fights'-log tests share (tests/test_fight_log.py, tests/test_log_reuse.py): the players and seeds of
their runs, a result without its log entry, and a count of the fights a run really plays."""

from __future__ import annotations

import evaluation.tournament as T

PLAYERS = ["aggressive", "cautious"]
SEEDS = [1, 2]


def without_log(result: dict) -> dict:
    return {k: v for k, v in result.items() if k != "log"}


def count_plays(monkeypatch) -> list[int]:
    """The plan indices of the fights played from now on (`_play` is what a worker calls for each)."""
    played: list[int] = []
    real = T._play

    def counting(payload, i):
        played.append(i)
        return real(payload, i)

    monkeypatch.setattr(T, "_play", counting)
    return played
