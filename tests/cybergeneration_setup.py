"""What the tests of the `cybergeneration` ruleset (seed 004) share (tests/test_cybergeneration_*.py,
tests/test_move_price.py, test_narrate_numbers.py, test_roll_calls.py): `RS` and its `DATA`,
stat blocks (`fig`, `shooter`, `brawler`), inline scenarios (`scen`, `open_map`), replay steps
(`step`, `attack`, `end`, `move`, `act`), `play` through `rules.replay.run_replay` with forced
dice, and event and state lookups (`evs`, `rolls`, `who`, `wounds`, `legal`, `can`, `econ`, ...).

Every test drives the engine through `rules.replay.run_replay` with an inline scenario
(`initiative: fixed` unless the test is about initiative). Replay steps are strict: each
step's `dice` are exactly the rolls that step makes, in this order (docs/cybergeneration.md):

- a ranged attack: the attack d10 (a natural 1 rolls its second d10 at once; a natural 10
  that would miss rolls it after), then per hit the damage d10 (two on a critical that
  takes two damage dice) and the target's stun save d10;
- a melee attack: the attacker's d10 (+ its second on a 1), the defender's d10 (+ its
  second on a 1 or 10), the attacker's second d10 on a 10 that adds it, then damage and
  the stun save;
- a step that ends a turn also rolls what the next turn starts with (a suppressed figure's
  COOL check, a fallen figure's waking or stabilising roll).

Sources cited in docstrings: "seed 004, <heading>" is /work/shared/seeds/004_*.txt (its
headings as the fan page names them: Your Turn, Facedown, Movement, Actions, Ranged
Combat, Full Automatic, Suppression, Genius Gun, Bows, Shotguns, Throwing, Called Shots,
Grenades, Melee, Adults v Kids, Unconscious Targets, Knockdown, Disarm, Grapple, Holds,
Critical Success and Failure, Damage, Armour, Stun/Shock Saves, Stun Weapons, Wounds,
Dying, First Aid, Falling, Healing); "assumption <key>" is an entry of the `assumptions`
list in rules/systems/cybergeneration/data.yaml.

Geometry: cells are 1.5 m; MA 6 walks 4 cells (6 m) and runs 12 cells (18 m).
"""

from __future__ import annotations

from typing import Any

from rules.actions import Action
from rules.replay import run_replay
from rules.ruleset import get_ruleset
from tests.replay_helpers import act, end, evs, legal, move, open_map, rolls, step, who  # noqa: F401 - re-exported to the topic modules

RS = get_ruleset("cybergeneration")
DATA = RS.data


# ---------------------------------------------------------------------------------------
# helpers

def fig(id: str, at: tuple[int, int], *, ref: int = 6, body: int = 10, ma: int = 6, int_: int = 6, tech: int = 5,
        cool: int = 5, kind: str = "kid", types: tuple[str, ...] = (), skills: dict | None = None,
        weapons: tuple[str, ...] = (), armour: tuple[str, ...] = (), **extra: Any) -> dict:
    """A full stat block (BODY 10 by default, so stun saves on 10 or less pass)."""
    return {"id": id, "at": list(at), "name": id, "kind": kind, "types": list(types),
            "stats": {"int": int_, "ref": ref, "tech": tech, "cool": cool, "ma": ma, "body": body},
            "skills": dict(skills or {}), "weapons": list(weapons), "armour": list(armour), **extra}


def shooter(id: str = "s", at: tuple[int, int] = (0, 1), weapon: str = "light_pistol", **kw: Any) -> dict:
    """REF 6, handgun 4 (light pistol accuracy +1: base 11), SMG 4, rifle 4."""
    kw.setdefault("skills", {"handgun": 4, "smg": 4, "rifle": 4, "streetfighting": 4, "athletics": 4})
    return fig(id, at, weapons=(weapon,), **kw)


def brawler(id: str, at: tuple[int, int], **kw: Any) -> dict:
    """REF 6, streetfighting 4: melee base 10."""
    kw.setdefault("skills", {"streetfighting": 4})
    return fig(id, at, **kw)


def scen(rows: list[str], a: list[dict], b: list[dict], *, initiative: str = "fixed",
         more: list[list[dict]] = (), objects: list[dict] = ()) -> dict:
    teams = [{"name": "a", "combatants": a}, {"name": "b", "combatants": b}]
    teams += [{"name": f"t{i}", "combatants": c} for i, c in enumerate(more)]
    return {"name": "test/cybergeneration", "ruleset": "cybergeneration", "initiative": initiative,
            "map": {"rows": list(rows)}, "teams": teams, "objects": list(objects)}


def attack(actor: str, target: str, weapon: str, dice: list[int] = (), option: str | None = None) -> dict:
    a = {"type": "attack", "target": target, "weapon": weapon}
    if option:
        a["option"] = option
    return step(actor, a, dice)


def play(scenario: dict, steps: list[dict] = (), start_dice: list[int] = (), questions: str = "default"):
    """A replay; its figures' choices (rules/choices.py) take the defaults unless `questions="ask"`."""
    return run_replay({"scenario": scenario, "start_dice": list(start_dice), "steps": list(steps),
                       "questions": questions})


def wounds(b, id: str) -> int:
    return who(b, id).res["wound"]


def can(b, kind: str, **kw: Any) -> bool:
    return Action(kind, **kw) in legal(b)


def can_move(b, x: int, y: int) -> bool:
    return Action("move", cell=b.state.grid.index(x, y)) in legal(b)


def only(items: list) -> Any:
    assert len(items) == 1, items
    return items[0]


def econ(b) -> dict[str, float]:
    return RS.economy(b.state)


# ---------------------------------------------------------------------------------------
# shared by several topic modules

def _standoff(t_body: int = 10, rows: list[str] | None = None, t_at=(4, 1), s_at=(0, 1)):
    """s has its pistol holstered; t carries a heavy pistol, not drawn."""
    return scen(rows or open_map(14), [shooter(at=s_at, drawn="none")],
                [fig("t", t_at, body=t_body, weapons=("heavy_pistol",), drawn="none", skills={"handgun": 4})])


def _melee(a: dict | None = None, d: dict | None = None, more_a: list[dict] = (), rows=None):
    a = a or brawler("a", (0, 1), weapons=("knife",))
    d = d or brawler("d", (1, 1))
    return scen(rows or open_map(8), [a, *more_a], [d])
