"""The same seed gives the same observations, masks, rewards and infos as before the speed
work (issue 30), for every registered env id and the variants training uses.

tests/golden/env_digests/digests.txt holds the digest of each seeded episode, recorded with
the code of commit 031c02a (tests/env_digests.py says what an episode hashes). A faster
observation that moves one float, one mask bit or one info value changes a digest. The
default run checks a few configs; `-m slow` all of them.

A deliberate change of the encoding (a new env version) rewrites the digests with
`python tests/env_digests.py --write` in the same commit, and says why.
"""

from __future__ import annotations

import numpy as np
import pytest

import env_digests as ed  # tests/env_digests.py

#: configs of the default run: a bundled map, generated maps, advice, clock, an illegal
#: action and the AEC env
QUICK = ("tactica/CortexWarehouse-v2/random", "tactica/MetalfaceScrapyard-v2/tactical", "generated/cortex_hu",
         "advice/cortex/warehouse", "clock/cybergeneration/mall_raid", "illegal/cortex/duel",
         "padded/metalface/foundry", "aec/cortex/warehouse")


def _check(names) -> None:
    bad = list(ed.mismatches(lambda n: n in names))
    assert not bad, f"{len(bad)} episodes differ from the recorded ones:\n" + "\n".join(bad[:10])


def test_the_quick_configs_are_recorded_and_the_same() -> None:
    want = {name for name, _ in ed.recorded()}
    assert set(QUICK) <= want
    assert set(ed.configs()) == want
    _check(set(QUICK))


@pytest.mark.slow
def test_every_config_gives_the_recorded_episodes() -> None:
    _check(set(ed.configs()))


def test_a_changed_observation_is_found(monkeypatch: pytest.MonkeyPatch) -> None:
    """The check can fail: one float of one observation moved gives another digest."""
    from envs.skirmish import SkirmishEnv
    kw, _ = ed.configs()["tactica/CortexDuel-v2/random"]
    want = ed.recorded()[("tactica/CortexDuel-v2/random", 0)]
    assert ed.episode_single(kw, 0, illegal=False) == want
    step = SkirmishEnv.step

    def nudged(self, action):
        obs, r, term, trunc, info = step(self, action)
        if info["round"] == 2:
            obs["units"][0, 4] = np.nextafter(obs["units"][0, 4], np.float32(2), dtype=np.float32)
        return obs, r, term, trunc, info

    monkeypatch.setattr(SkirmishEnv, "step", nudged)
    assert ed.episode_single(kw, 0, illegal=False)[0] != want[0]
