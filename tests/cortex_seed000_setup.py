"""What the seed 000 tests of the `cortex` ruleset share (tests/test_cortex_seed000_*.py, and
tests/test_choices.py, test_cortex_asked.py, test_cortex_issue32.py, test_cortex_vehicles.py,
test_roll_calls.py): stat blocks (`fig`, `dummy`, `brawler`), inline scenarios (`scen`,
`open_map`), replay steps (`step`, `atk`, `act`, `end`), `play` through `rules.replay.run_replay`
with forced dice, and event and state lookups (`evs`, `rolls`, `who`, `pos`, `legal`, ...).

tests/test_cortex_rules_*.py cover core combat (attacks, defences, movement, damage); the
seed 000 tests cover the rest of seed 000: Called Shots, burst and autofire (with Trigger
Happy), Cover and Explosions, Getting out of Harm's Way, Improvised Weapons, Tripping, the
Unarmed specialties and grappling, Plot Points, Second Wind, every trait of the seed (through
`ruleset.skill_check` where a trait has no battle rule), Vehicles and Spaceships, and what
`tactica rulesets --json` lists.

Each fight runs through `rules.replay.run_replay` with an inline scenario and
`initiative: fixed` (no initiative rolls). Replays are strict: each step's `dice` list is
exactly the rolls that step makes, so the lists pin down which rolls happen and in which
order (assumption roll_order: attack dice - attribute die, skill die, Plot Point die - then
the defence roll, the damage die, then any Endurance roll). A step that ends a turn also
rolls whatever the next turn starts with (called-shot recovery rolls).

Sources cited in docstrings: "seed 000, <heading>" is /work/shared/seeds/000_*.txt,
"RULES-NOTES" is the cortex section of /work/shared/RULES-NOTES.md and "assumption <key>"
an entry of the `assumptions` list in rules/systems/cortex/data.yaml.

Geometry: cells are 1.5 m (5 ft) unless a scenario says otherwise.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rules.actions import Action
from rules.dice import Dice
from rules.replay import run_replay
from rules.ruleset import get_ruleset
from tests.replay_helpers import act, cell, end, evs, legal, open_map, pos, rolls, sides, step, who  # noqa: F401 - re-exported to the topic modules

REPO = Path(__file__).resolve().parents[1]
REPLAYS = Path(__file__).parent / "replays" / "cortex_seed000"
RS = get_ruleset("cortex")


# ---------------------------------------------------------------------------------------
# helpers

def fig(id: str, at: tuple[int, int], agi: str = "d6", str_: str = "d6", vit: str = "d6",
        ale: str = "d6", int_: str = "d6", wil: str = "d6", skills: dict | None = None,
        weapons: tuple[str, ...] = (), **extra: Any) -> dict:
    """A full custom stat block placed at `at`."""
    return {"id": id, "at": list(at), "name": id,
            "attributes": {"agility": agi, "strength": str_, "vitality": vit, "alertness": ale,
                           "intelligence": int_, "willpower": wil},
            "skills": dict(skills or {}), "weapons": list(weapons), **extra}


def dummy(id: str, at: tuple[int, int], **kw: Any) -> dict:
    """A target that declines innate defence (Easy 3) and has Life Points to spare."""
    kw.setdefault("decline_innate", "always")
    kw.setdefault("life_points", 99)
    return fig(id, at, **kw)


def scen(rows: list[str], a: list[dict], b: list[dict], *, cell_m: float | None = None,
         settings: dict | None = None, objects: list[dict] = (), legend: dict | None = None) -> dict:
    m: dict[str, Any] = {"rows": list(rows)}
    if cell_m is not None:
        m["cell_m"] = cell_m
    if legend:
        m["legend"] = legend
    return {"name": "test/cortex_seed000", "ruleset": "cortex", "initiative": "fixed",
            "map": m, "teams": [{"name": "a", "combatants": a}, {"name": "b", "combatants": b}],
            "settings": dict(settings or {}), "objects": list(objects)}


def atk(actor: str, target: str, weapon: str, option: str | None = None, dice: list[int] = ()) -> dict:
    a = {"type": "attack", "target": target, "weapon": weapon}
    if option:
        a["option"] = option
    return step(actor, a, dice)


def play(scenario: dict, steps: list[dict] = (), questions: str = "default"):
    """A strict replay: every step's dice must be used exactly. The choices the rules give a
    figure take their defaults unless `questions="ask"` (then they are steps)."""
    return run_replay({"scenario": scenario, "start_dice": [], "steps": list(steps), "questions": questions})


def play_loose(scenario: dict, steps: list[dict], forced: list[int], seed: int = 0):
    """Like `play`, but the forced results are not strict: rolls beyond them come from the
    seeded generator, so a rule that rolls the wrong number of dice fails an assertion
    instead of the dice script."""
    from rules.actions import Action as A
    from rules.scenario import load_scenario, new_battle

    spec, _ = load_scenario(scenario)
    dice = Dice(seed)
    battle = new_battle(spec, dice)
    battle.start()
    dice.force(forced)
    for st in steps:
        battle.step(A.from_dict(st["action"], battle.state.grid.width))
    return battle


def attacks_in(b, target: str | None = None) -> list[Action]:
    return [a for a in legal(b) if a.kind == "attack" and (target is None or a.target == target)]


def only(items: list) -> Any:
    assert len(items) == 1, items
    return items[0]


def effects(b, target: str) -> list[str]:
    return [e["effect"] for e in evs(b, "effect", target=target)]


def afflictions(b, id: str) -> list[tuple[str, str]]:
    return [(x["effect"], x["until"]) for x in who(b, id).res["afflictions"]]


def economy(b) -> dict:
    return b.ruleset.economy(b.state)


def max_move_cells(b, y: int = 1) -> int:
    """The farthest cell straight along row y the acting figure may move to now."""
    a = b.state.actor
    x0, _ = b.state.grid.xy(a.pos)
    best = 0
    for x in range(b.state.grid.width):
        if Action("move", cell=cell(b, x, y)) in legal(b):
            best = max(best, abs(x - x0))
    return best


def brawler(id: str, at: tuple[int, int], **kw: Any) -> dict:
    """Strength d6 + Unarmed Combat d6 (both dice d6: easy forced sums)."""
    kw.setdefault("skills", {"unarmed_combat": "d6", "melee_weapons": "d6", "guns": "d6"})
    return fig(id, at, **kw)


# ---------------------------------------------------------------------------------------
# shared by several topic modules

AREAS = {"arm": 4, "leg": 4, "head": 8, "groin": 8, "hand": 12, "kneecap": 12, "heart": 12}


def _ko_scene(weapons: tuple[str, ...] = (), armour: Any = None, **p_kw: Any) -> dict:
    """p (team a) and a target t with an ally u (team b), so a downed t does not end the fight."""
    t = dummy("t", (1, 1), weapons=("club",))
    if armour:
        t["armour"] = armour
    return scen(open_map(), [brawler("p", (0, 1), weapons=weapons, **p_kw)], [t, dummy("u", (11, 2))])


def person(traits=(), agi="d8", str_="d8", vit="d8", ale="d8", int_="d8", wil="d8", skills=None):
    spec = fig("x", (0, 0), agi=agi, str_=str_, vit=vit, ale=ale, int_=int_, wil=wil,
               skills=skills or {"influence": "d8", "pilot": "d6", "athletics": "d6", "knowledge": "d6",
                                 "discipline": "d6", "perception": "d6"},
               traits=list(traits))
    return RS.build_combatant(spec, id="x", team="a", pos=0, order=0, source=None, field="x")


def check(c, attribute, skill, context, faces=None, plot_points=0, difficulty=7):
    """Roll a skill check with every die showing 1 (or given faces); return the result."""
    d = Dice(0)
    if faces is not None:
        d.force(faces, strict=True)
    else:
        d.on_roll = lambda sides, label: 1
    r = RS.skill_check(c, attribute, skill, difficulty, set(context), d, plot_points=plot_points)
    return r


def pool_sides(r) -> list[int]:
    return [s for s, _ in r.event["dice"]]
