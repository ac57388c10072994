"""Fights played in several threads at once are the fights played one after the other (issue
30: "the grid and the rulesets hold no mutable caches ... so the server's global engine lock
can go"). Rulesets are shared instances; cortex's per-call pool memo is per thread, and a
map's tables give the same answers whoever fills them first."""

from __future__ import annotations

import hashlib
import sys
import threading

import pytest

from evaluation.simulate import check_policies, play_fight
from rules.events import dumps
from rules.scenario import load_scenario


def _digest(scenario: str, policy: str, index: int) -> str:
    spec, src = load_scenario(scenario)
    h = hashlib.sha256()
    play_fight(spec, check_policies(spec, {"*": policy}), 11, index, src,
               on_event=lambda e: h.update(dumps(e).encode()))
    return h.hexdigest()


@pytest.mark.parametrize("scenario", ["cortex/warehouse", "cybergeneration/mall_raid"])
def test_fights_in_threads_are_the_fights_played_alone(scenario: str) -> None:
    jobs = [(scenario, "tactical" if k % 2 else "random", k) for k in range(8)]
    alone = [_digest(*j) for j in jobs]
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as the interpreter can
    try:
        got: dict[int, str] = {}
        threads = [threading.Thread(target=lambda i=i, j=j: got.__setitem__(i, _digest(*j)))
                   for i, j in enumerate(jobs)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(old)
    assert [got[i] for i in range(len(jobs))] == alone


def test_each_thread_has_its_own_cortex_pool_memo() -> None:
    """The memo a legal_actions or apply call fills is the calling thread's alone: another
    thread's call clearing or filling its own never touches it."""
    from rules.ruleset import get_ruleset
    rs = get_ruleset("cortex")
    rs._pool_cache[("probe",)] = "main"
    seen: list[dict] = []
    t = threading.Thread(target=lambda: seen.append(dict(rs._pool_cache)) or rs._pool_cache.clear())
    t.start()
    t.join()
    assert seen == [{}]
    assert rs._pool_cache.pop(("probe",)) == "main"
