"""What the core-combat tests of the `cortex` ruleset (seed 000 on Cortex Classic) share
(tests/test_cortex_rules_*.py, tests/test_narrate_numbers.py, test_reasons.py): the replay
folders, stat blocks (`fig`, `dummy`, `gunslinger`), inline scenarios (`scen`, `open_map`),
replay steps (`step`, `attack`, `end`, `move`, `defend`, `simple`), `play` through
`rules.replay.run_replay` with forced dice, and event and state lookups (`evs`, `rolls`,
`who`, `pos`, `legal`, `can_attack`, `can_move`, ...).

Every test drives the engine through `rules.replay.run_replay` with an inline scenario
(`initiative: fixed` unless the test is about initiative), so each step's `dice` list is
exactly the rolls that step makes, in the data.yaml `roll_order`: attack dice (attribute
die, then skill die), the defence roll, the damage die, then any Endurance roll. Replay
steps are strict: a step that rolls more dice than given, or fewer, is a `DiceError`, so
the dice lists themselves pin down which rolls happen.

Sources cited in docstrings: "seed 000, <heading>" is /work/shared/seeds/000_*.txt,
"RULES-NOTES cortex" is the cortex section of RULES-NOTES.md, and "assumption <key>" is
an entry of the `assumptions` list in rules/systems/cortex/data.yaml.

Geometry used throughout: cells are 1.5 m (about 5 ft), so walking 15 ft is 3 cells,
hustling 30 ft is 6 cells and running 45 ft is 9 cells; a diagonal step costs 1.5 cells.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rules.actions import Action
from rules.replay import run_replay
from tests.replay_helpers import cell, end, evs, legal, move, open_map, pos, rolls, sides, step, who  # noqa: F401 - re-exported to the topic modules

REPLAYS = Path(__file__).parent / "replays"
CORTEX_REPLAYS = REPLAYS / "cortex"


# ---------------------------------------------------------------------------------------
# helpers: stat blocks, scenarios, steps, event lookups

def fig(id: str, at: tuple[int, int], agi: str = "d6", str_: str = "d6", vit: str = "d6",
        ale: str = "d6", int_: str = "d6", wil: str = "d6", skills: dict | None = None,
        weapons: tuple[str, ...] = (), **extra: Any) -> dict:
    """A full custom stat block placed at `at`."""
    return {"id": id, "at": list(at), "name": id,
            "attributes": {"agility": agi, "strength": str_, "vitality": vit, "alertness": ale,
                           "intelligence": int_, "willpower": wil},
            "skills": dict(skills or {}), "weapons": list(weapons), **extra}


def dummy(id: str, at: tuple[int, int], **kw: Any) -> dict:
    """A target that always declines innate defence (Easy 3) and has Life Points to spare."""
    kw.setdefault("decline_innate", "always")
    kw.setdefault("life_points", 99)
    return fig(id, at, **kw)


def gunslinger(id: str, at: tuple[int, int], **kw: Any) -> dict:
    """The bestiary gunslinger: Agility d10, Guns/Pistols d10, a revolver (d8 W, 75 ft)."""
    return {"id": id, "at": list(at), "template": "gunslinger", **kw}


def scen(rows: list[str], a: list[dict], b: list[dict], *, initiative: str = "fixed",
         round_limit: int = 20, more_teams: list[list[dict]] = ()) -> dict:
    teams = [{"name": "a", "combatants": a}, {"name": "b", "combatants": b}]
    teams += [{"name": f"t{i}", "combatants": c} for i, c in enumerate(more_teams)]
    return {"name": "test/cortex_rules", "ruleset": "cortex", "initiative": initiative,
            "round_limit": round_limit, "map": {"rows": list(rows)}, "teams": teams}


def attack(actor: str, target: str, weapon: str, dice: list[int] = ()) -> dict:
    return step(actor, {"type": "attack", "target": target, "weapon": weapon}, dice)


def defend(actor: str, option: str) -> dict:
    return step(actor, {"type": "defend", "option": option})


def simple(actor: str, kind: str, **kw: Any) -> dict:
    return step(actor, {"type": kind, **kw})


def play(scenario: dict, steps: list[dict] = (), start_dice: list[int] = (), questions: str = "default"):
    """Run a strict replay: start_dice and every step's dice must be used exactly."""
    return run_replay({"scenario": scenario, "start_dice": list(start_dice), "steps": list(steps),
                       "questions": questions})


def can_attack(b, target: str, weapon: str) -> bool:
    return Action("attack", target=target, weapon=weapon) in legal(b)


def can_move(b, x: int, y: int) -> bool:
    return Action("move", cell=cell(b, x, y)) in legal(b)


def only(items: list) -> Any:
    assert len(items) == 1, items
    return items[0]
