"""An env id's version rises when its encoding changes (issue 31; docs/observations.md, Versions).

Each registered id is pinned to `encoding_fingerprint` (envs/describe.py: the observation's
rows with their names, indices, scalings and ranges, the observation space and the action
layout). A change to the encoding fails here until the id's version is raised (a scenario's
id takes its ruleset's `version`; `tactica/Skirmish-vN` is `GENERIC_ID` in
envs/registration.py) and the pin below is updated; then regenerate docs/observations.md
(`python -m envs.describe > docs/observations.md`)."""

from __future__ import annotations

from envs.describe import encoding_fingerprint
from envs.registration import registered_ids
from envs.skirmish import SkirmishEnv

#: env id (with its version) -> the fingerprint of its encoding at that version
PINS = {
    "tactica/Skirmish-v0": "f1b0b2bfd0d53938",
    "tactica/CortexAmbush-v2": "c8c63f4e6e18bfd7",
    "tactica/CortexDuel-v2": "b0a31b2e40374706",
    "tactica/CortexSaloon-v2": "e0affc1ff3e9ebec",
    "tactica/CortexWarehouse-v2": "f1b0b2bfd0d53938",
    "tactica/CortexHuCsarda-v2": "3851d7d386ee120f",
    "tactica/CortexHuLes-v2": "8e1d68572d2dbe72",
    "tactica/CortexHuMagtar-v2": "2101da55df56762f",
    "tactica/CybergenerationAlleyBrawl-v2": "14995fabbb899005",
    "tactica/CybergenerationMallRaid-v2": "948a35b055b40815",
    "tactica/CybergenerationRooftopStandoff-v2": "cfaa379342c045ac",
    "tactica/MetalfaceFoundry-v2": "f7c97eac2e939690",
    "tactica/MetalfaceRooftop-v2": "03ad072250d7c8b6",
    "tactica/MetalfaceScrapyard-v2": "8de80320894559cb",
}

RAISE = "the encoding changed: raise the env id's version (tactica/<Name>-vN) and update the pin"


def _fingerprints() -> dict[str, str]:
    return {env_id: encoding_fingerprint(SkirmishEnv(**kw)) for env_id, kw in registered_ids().items()}


def test_each_registered_id_keeps_the_encoding_of_its_version():
    got = _fingerprints()
    changed = {i: fp for i, fp in got.items() if i in PINS and PINS[i] != fp}
    assert not changed, f"{RAISE}: {sorted(changed)} now {changed}"
    unpinned = {i: fp for i, fp in got.items() if i not in PINS}
    assert not unpinned, f"ids without a pin (a new id or a raised version): add them to PINS: {unpinned}"
    gone = sorted(set(PINS) - set(got))
    assert not gone, f"pins of ids no longer registered (a raised version?): remove them from PINS: {gone}"


def test_the_fingerprint_sees_a_change_to_the_encoding(monkeypatch):
    import envs.describe as describe
    from rules.features import Feature
    env = SkirmishEnv(scenario="cortex/duel")
    before = encoding_fingerprint(env)
    assert encoding_fingerprint(SkirmishEnv(scenario="cortex/duel")) == before   # stable
    rescaled = tuple(Feature(f.name, f.meaning, "level / 3", f.low, f.high) if f.name == "cover" else f
                     for f in describe.GRID)
    monkeypatch.setattr(describe, "GRID", rescaled)
    assert encoding_fingerprint(env) != before
    monkeypatch.undo()
    worded = tuple(Feature(f.name, f.meaning + " (reworded)", f.scaling, f.low, f.high) for f in describe.GRID)
    monkeypatch.setattr(describe, "GRID", worded)
    assert encoding_fingerprint(env) == before   # a meaning's wording is not the encoding
