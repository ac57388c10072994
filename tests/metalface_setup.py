"""What the tests of the `metalface` ruleset (seed 003) share (tests/test_metalface_*.py,
tests/test_narrate_numbers.py, test_reasons.py, test_roll_calls.py): `RS`, its data file
(`DATA`, `ASSUMPTIONS`), the bundled metalface scenarios (`MY_SCENARIOS`), stat blocks (`fig`,
`shooter`, `dummy`), inline scenarios (`scen`, `open_map`), replay steps (`step`, `attack`,
`end`, `move`, `act`), `play` through `rules.replay.run_replay` with forced dice, and event and
state lookups (`evs`, `rolls`, `mods`, `n_dice`, `who`, `pos`, `legal`, `can`, `econ`, ...).

Every rule test drives the engine through `rules.replay.run_replay` with an inline scenario
(`initiative: fixed` unless the test is about turn order). Replay steps are strict: a
step's `dice` must be exactly the rolls it makes, so the dice lists pin down which rolls
happen. A roll is as many d6 as the value used (the highest is kept): a PER 3 targeting
roll takes three dice, a STR 2 body attack two.

Sources cited in docstrings: "seed 003, <heading>" is /work/shared/seeds/003_*.txt (its
headings: Combat, Combat Actions, Move, Ready Weapons, Body Attacks, Ranged Weapon
Attacks, Targeting, Targeting Roll, Targeting Modifiers, Damage, Status Levels and
Effects, Repairing / Healing), "RULES-NOTES metalface" is the metalface section of
RULES-NOTES.md, and "assumption <key>" is an entry of the `assumptions` list in
rules/systems/metalface/data.yaml.

Geometry: 1 m squares; an orthogonal step is 1 m and a diagonal 1.5 m (rules/grid.py);
figures without a `facing` face the nearest enemy when the fight starts.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from rules.actions import Action
from rules.replay import run_replay
from rules.ruleset import get_ruleset
from rules.scenario import bundled_scenarios
from tests.replay_helpers import act, end, evs, legal, move, open_map, pos, step, who  # noqa: F401 - re-exported to the topic modules

RS = get_ruleset("metalface")
DATA = yaml.safe_load((Path(__file__).resolve().parents[1] / "rules/systems/metalface/data.yaml")
                      .read_text(encoding="utf-8"))
ASSUMPTIONS = {a["key"]: a for a in DATA["assumptions"]}
MY_SCENARIOS = [s for s in bundled_scenarios() if s.startswith("metalface/")]


# ---------------------------------------------------------------------------------------
# helpers

def fig(id: str, at: tuple[int, int], kind: str = "human", str_: int = 3, agl: int = 3, end: int = 2,  # noqa: F811 - the END stat
        per: int = 3, int_: int = 2, wil: int = 2, skills: dict | None = None, weapons: tuple = (),
        **extra: Any) -> dict:
    """A full stat block (Status 10 + 5 x END = 20 at END 2)."""
    return {"id": id, "at": list(at), "name": id, "kind": kind,
            "values": {"str": str_, "agl": agl, "end": end, "per": per, "int": int_, "wil": wil},
            "skills": dict(skills or {}), "weapons": list(weapons), **extra}


def shooter(id: str = "s", at: tuple[int, int] = (0, 1), **kw: Any) -> dict:
    """PER 3, firearms 1, a pistol (damage 7, 12 rounds, 3 clips)."""
    kw.setdefault("skills", {"firearms": 1})
    kw.setdefault("weapons", ("pistol",))
    return fig(id, at, **kw)


def dummy(id: str = "t", at: tuple[int, int] = (5, 1), **kw: Any) -> dict:
    """END 2, no armour, Status 20 unless given."""
    return fig(id, at, **kw)


def scen(rows: list[str], a: list[dict], b: list[dict], *, initiative: str = "fixed", cell_m: float | None = None,
         round_limit: int = 20) -> dict:
    m: dict[str, Any] = {"rows": list(rows)}
    if cell_m is not None:
        m["cell_m"] = cell_m
    return {"name": "test/metalface", "ruleset": "metalface", "initiative": initiative,
            "round_limit": round_limit, "map": m,
            "teams": [{"name": "a", "combatants": a}, {"name": "b", "combatants": b}]}


def attack(actor: str, target: str, weapon: str, dice: list[int] = ()) -> dict:
    return step(actor, {"type": "attack", "target": target, "weapon": weapon}, dice)


def play(scenario: dict, steps: list[dict] = (), start_dice: list[int] = (), questions: str = "default"):
    """A strict replay: start_dice and every step's dice must be used exactly. The choices
    the rules give a figure take their defaults unless `questions="ask"` (then each answer
    is a step of the figure asked, with the dice rolled after the question)."""
    return run_replay({"scenario": scenario, "start_dice": list(start_dice), "steps": list(steps),
                       "questions": questions})


def rolls(b, purpose: str, actor: str | None = None) -> list[dict]:
    return [e for e in b.events if e["type"] == "roll" and e["purpose"] == purpose
            and (actor is None or e["actor"] == actor)]


def mods(r: dict) -> dict[str, int]:
    """A roll event's modifiers by source (common.md: a list of {source, value})."""
    return {m["source"]: m["value"] for m in r["modifiers"]}


def n_dice(r: dict) -> int:
    return len(r["dice"])


def can(b, kind: str, **kw: Any) -> bool:
    cell = kw.pop("cell", None)
    if cell is not None:
        kw["cell"] = b.state.grid.index(*cell)
    return Action(kind, **kw) in legal(b)


def can_attack(b, target: str, weapon: str) -> bool:
    return can(b, "attack", target=target, weapon=weapon)


def econ(b) -> dict[str, float]:
    return RS.economy(b.state)


def only(items: list) -> Any:
    assert len(items) == 1, items
    return items[0]
