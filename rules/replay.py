"""Scripted fights: a scenario plus a list of steps (actor, action, forced dice).

```yaml
scenario: cortex/duel          # a bundled name, a path (relative to this file) or a mapping
seed: 0                        # the generator for rolls a step does not force
start_dice: [3, 5, 2, 6]       # forced dice for set-up and the first round's initiative
steps:
  - actor: mal
    action: {type: move, cell: [3, 9]}
  - actor: mal
    action: {type: attack, target: jubal, weapon: revolver}
    dice: [6, 5, 3, 4]         # every roll of this step, in order; all must be used
  - actor: mal
    action: end_turn
```

When a step gives `dice`, they must cover every roll the step makes (including the next
round's initiative if the step ends a round) and all must be used; a step without `dice`
rolls from the seeded generator. Tests and GMs use these files to state exact cases.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

from rules.actions import Action
from rules.battle import Battle
from rules.choices import ASK
from rules.dice import Dice
from rules.errors import DiceError, IllegalActionError, ScenarioError, TacticaError
from rules.scenario import load_scenario, new_battle, read_document
from rules.state import BattleState

REPLAY_FIELDS = {"scenario", "seed", "start_dice", "steps", "description", "questions"}
STEP_FIELDS = {"actor", "action", "dice", "note"}


def state_summary(state: BattleState) -> dict[str, Any]:
    """The parts of a state a GM or a test checks, as JSON."""
    g = state.grid
    return {
        "round": state.round,
        "over": state.over,
        "winner": state.winner,
        "actor": state.actor.id if state.actor and not state.over else None,
        "combatants": {c.id: {"team": c.team, "pos": list(g.xy(c.pos)),
                              "conditions": sorted(c.conditions),
                              **{k: v for k, v in c.res.items() if isinstance(v, (int, float, str))},
                              **({"ammo": dict(c.res["ammo"])} if "ammo" in c.res else {})}
                       for c in state.combatants},
    }


def _forced(values: Any, src: str, field: str) -> list[int]:
    if not isinstance(values, list):
        raise DiceError(f"{values!r} is not a list", source=src, field=field, expected="a list of die results")
    for i, v in enumerate(values):
        if isinstance(v, bool) or not isinstance(v, int):
            raise DiceError(f"{v!r} is not a die result", source=src, field=f"{field}[{i}]",
                            expected="a whole number")
    return values


def load_replay(path: str | Path | Mapping[str, Any]) -> tuple[dict, str]:
    if isinstance(path, Mapping):
        return dict(path), "<replay>"
    doc = read_document(path)
    src = str(path)
    if not isinstance(doc, Mapping):
        raise ScenarioError(f"the document is a {type(doc).__name__}, not a mapping", source=src,
                            field="(top level)", expected="a mapping with scenario and steps")
    return dict(doc), src


def run_replay(path: str | Path | Mapping[str, Any], base_dir: Path | None = None) -> Battle:
    """Play a scripted fight and return the battle (events and final state)."""
    doc, src = load_replay(path)
    unknown = set(doc) - REPLAY_FIELDS
    if unknown:
        raise ScenarioError(f"unknown field(s) {sorted(unknown)}", source=src, field="(top level)",
                            expected=", ".join(sorted(REPLAY_FIELDS)))
    if "scenario" not in doc:
        raise ScenarioError("missing", source=src, field="scenario", expected="a scenario name, path or mapping")
    scen = doc["scenario"]
    if base_dir is None and not isinstance(path, Mapping):
        base_dir = Path(path).parent
    try:
        if isinstance(scen, str) and base_dir is not None and (base_dir / scen).exists():
            spec, ssrc = load_scenario(base_dir / scen)
        else:
            spec, ssrc = load_scenario(scen)
    except TacticaError as e:
        if isinstance(scen, Mapping):
            if e.source == "<scenario>":
                e.source = None
            raise e.at(src, "scenario")
        raise
    if isinstance(scen, Mapping):
        ssrc = src
    seed = doc.get("seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ScenarioError(f"seed {seed!r}", source=src, field="seed", expected="a whole number")
    dice = Dice(seed)
    try:
        battle = new_battle(spec, dice, ssrc)
    except TacticaError as e:
        raise e.at(src, "scenario") if isinstance(scen, Mapping) else e
    questions = doc.get("questions", "ask")
    if questions not in ("ask", "default"):
        raise ScenarioError(f"questions {questions!r}", source=src, field="questions",
                            expected="ask (every choice the rules give a figure is a step) or default")
    if questions == "ask":
        battle.deciders = {t: ASK for t in battle.state.teams}
    steps = doc.get("steps", [])
    if not isinstance(steps, list):
        raise ScenarioError("steps must be a list", source=src, field="steps", expected="a list of steps")
    if "start_dice" in doc:
        dice.force(_forced(doc["start_dice"], src, "start_dice"), strict=True)
    try:
        battle.start()
    except DiceError as e:
        raise e.at(src, "start_dice")
    _check_used(dice, src, "start_dice")
    for i, st in enumerate(steps):
        f = f"steps[{i}]"
        if not isinstance(st, Mapping):
            raise ScenarioError("a step must be a mapping", source=src, field=f, expected="{actor, action, dice}")
        bad = set(st) - STEP_FIELDS
        if bad:
            raise ScenarioError(f"unknown field(s) {sorted(bad)}", source=src, field=f,
                                expected="actor, action, dice, note")
        s = battle.state
        if s.over:
            raise IllegalActionError("the fight is already over", source=src, field=f, expected="no more steps")
        actor = s.actor
        if st.get("actor") != actor.id:
            raise IllegalActionError(f"it is {actor.id}'s turn, not {st.get('actor')!r}'s", source=src,
                                     field=f"{f}.actor", expected=actor.id)
        try:
            action = Action.from_dict(st.get("action", "end_turn"), s.grid.width, field=f"{f}.action",
                                      height=s.grid.height)
        except TacticaError as e:
            raise e.at(src)
        if "dice" in st:
            dice.force(_forced(st["dice"], src, f"{f}.dice"), strict=True)
        try:
            battle.ruleset.check_legal(s, action)
        except IllegalActionError as e:
            dice.clear_forced()
            legal = ", ".join(_show(a, s) for a in battle.legal_actions()[:12])
            raise IllegalActionError(f"{action} is not legal for {actor.id} now", source=src,
                                     field=f"{f}.action", expected=f"one of: {legal} ...") from None
        snapshot = s.clone()
        try:
            battle.step(action, check=False)
        except DiceError as e:
            battle.state = snapshot
            raise e.at(src, f"{f}.dice")
        _check_used(dice, src, f"{f}.dice")
    return battle


def _show(a: Action, state: BattleState) -> str:
    """An action as a replay author would write it (cells as [x, y])."""
    d = a.to_dict()
    if a.cell is not None:
        d["cell"] = list(state.grid.xy(a.cell))
    return "{" + ", ".join(f"{k}: {v}" for k, v in d.items()) + "}"


def _check_used(dice: Dice, src: str, field: str) -> None:
    left = dice.forced_left
    strict = dice.strict
    dice.clear_forced()
    if strict and left:
        raise DiceError(f"{left} forced result(s) were not used", source=src, field=field,
                        expected="exactly the dice this step rolls")
