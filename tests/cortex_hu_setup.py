"""What the tests of the `cortex_hu` ruleset (seed 002) share (tests/test_cortex_hu_*.py,
tests/test_roll_calls.py): `RS`, stat blocks (`fig`, `dummy`, `fencer`), inline scenarios
(`scen`, `open_map`), replay steps (`step`, `attack`, `end`, `move`, `act`), `play` through
`rules.replay.run_replay` with forced dice, and event and state lookups (`evs`, `rolls`,
`sides`, `who`, `pos`, `legal`, `econ`).

Every rule test drives the engine through `rules.replay.run_replay` with an inline scenario
(`initiative: fixed` unless the test is about initiative). Replays are strict: each step's
`dice` are exactly the rolls that step makes, in the data.yaml `roll_order` (attack dice -
attribute die, then skill die - then the defence roll, the damage die, any Endurance roll,
then a called shot's Vitality + Willpower roll and its d6), and all must be used.

Sources cited: "seed 002, <rule>" is /work/shared/seeds/002_b3cd129274de58b9.txt (English
in RULES-NOTES.md, "cortex_hu"); "assumption <key>" is an entry of the `assumptions` list
of rules/systems/cortex_hu/data.yaml (or of the shared rules/systems/cortex_common/base.yaml).

Geometry: cells are 1.5 m unless a test sets `cell_m`, so walking 4.5 m is 3 cells and
jogging 9 m is 6 cells.
"""

from __future__ import annotations

from typing import Any

from rules.actions import Action
from rules.replay import run_replay
from rules.ruleset import get_ruleset
from tests.replay_helpers import act, end, evs, move, open_map, pos, rolls, step, who  # noqa: F401 - re-exported to the topic modules

RS = get_ruleset("cortex_hu")


# ---------------------------------------------------------------------------------------
# helpers

def fig(id: str, at: tuple[int, int], agi: str = "d6", str_: str = "d6", vit: str = "d6", ale: str = "d6",
        int_: str = "d6", wil: str = "d6", skills: dict | None = None, weapons: tuple[str, ...] = (),
        **extra: Any) -> dict:
    """A full stat block placed at `at`."""
    return {"id": id, "at": list(at), "name": id,
            "attributes": {"agility": agi, "strength": str_, "vitality": vit, "alertness": ale,
                           "intelligence": int_, "willpower": wil},
            "skills": dict(skills or {}), "weapons": list(weapons), **extra}


def dummy(id: str, at: tuple[int, int], **kw: Any) -> dict:
    """A target that takes Easy (3) instead of rolling innate defence, never reacts and has
    Life Points to spare."""
    kw.setdefault("decline_innate", "always")
    kw.setdefault("life_points", 99)
    kw.setdefault("reactions", "never")
    return fig(id, at, **kw)


def scen(rows: list[str], a: list[dict], b: list[dict], *, initiative: str = "fixed", cell_m: float | None = None,
         settings: dict | None = None, round_limit: int = 20) -> dict:
    m: dict[str, Any] = {"rows": list(rows)}
    if cell_m is not None:
        m["cell_m"] = cell_m
    return {"name": "test/cortex_hu", "ruleset": "cortex_hu", "initiative": initiative, "round_limit": round_limit,
            "map": m, "settings": dict(settings or {}),
            "teams": [{"name": "a", "combatants": a}, {"name": "b", "combatants": b}]}


def attack(actor: str, target: str, weapon: str, dice: list[int] = (), option: str | None = None) -> dict:
    act = {"type": "attack", "target": target, "weapon": weapon}  # noqa: F811 - a local name
    if option:
        act["option"] = option
    return step(actor, act, dice)


def play(scenario: dict | str, steps: list[dict] = (), start_dice: list[int] = (), questions: str = "default"):
    """A strict replay: start_dice and every step's dice must be used exactly. The choices
    seed 002 gives a figure take their defaults unless `questions="ask"` (then each answer
    is a step of the figure asked: `choose`)."""
    return run_replay({"scenario": scenario, "start_dice": list(start_dice), "steps": list(steps),
                       "questions": questions})


def sides(e: dict) -> list[int]:
    return [s for s, _ in e["dice"]]


def legal(b) -> list[Action]:
    return b.ruleset.legal_actions(b.state)


def econ(b) -> dict[str, float]:
    return b.ruleset.economy(b.state)


def fencer(id: str = "f", at: tuple[int, int] = (0, 1), **kw: Any) -> dict:
    """Agility d6, Melee Weapons/Swords d8 with a sabre (d4 W); as a target it takes Easy (3)
    and never reacts unless told otherwise."""
    kw.setdefault("skills", {"melee_weapons": "d6", "melee_weapons/swords": "d8"})
    kw.setdefault("decline_innate", "always")
    kw.setdefault("reactions", "never")
    kw.setdefault("life_points", 30)
    return fig(id, at, weapons=("sabre",), **kw)
