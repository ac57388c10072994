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
  - actor: mal                 # a step the rules must refuse: recorded, and the fight goes on
    action: {type: attack, target: jubal, weapon: revolver}
    expect: refused
    reason: no legal attack    # optional: words the refusal message must contain (any case)
  - actor: mal
    action: end_turn
```

When a step gives `dice`, they must cover every roll the step makes (including the next
round's initiative if the step ends a round) and all must be used; a step without `dice`
rolls from the seeded generator. A step with `expect: refused` must be one the rules
refuse: it rolls nothing, so it may give no dice (an error names the step), changes
nothing, and is recorded as a `refused` event (actor, the action as written, the reason,
its round and step); a step that expects refusal but is legal is an error. A refused step
counts as a decision.

A step may instead be a GM override (rules/overrides.py), played in order:

```yaml
  - override: {kind: track, figure: jubal, track: wound, value: 12}
  - override: {kind: remove, figure: mal}
    dice: [4, 2]               # what the turns it moves on roll, if any (all must be used)
```

An override is not a decision: its events carry the `step` of the decision before it, and
the action steps' events carry their decision's number (`steps[i]` is step i + 1 when no
override comes before it; each override before it lowers that by one). A bad override stops
the replay with an error naming `steps[i].override.<field>`.

`play_replay` plays as far as the file allows and returns the battle with the error, if
any (the `--json` output of `tactica replay` shows the events and state so far);
`run_replay` raises the error instead. Every error names the replay file, the step's
field and what was expected, with the legal actions as a replay author writes them
(cells as [x, y], targets by id, weapons and options by name). Tests and GMs use these
files to state exact cases.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from rules.actions import Action
from rules.battle import Battle
from rules.choices import ASK
from rules.dice import Dice
from rules.errors import DiceError, IllegalActionError, ScenarioError, TacticaError
from rules.events import event
from rules.final_state import state_summary  # also `rules.replay.state_summary` (tactica/server.py, tests)
from rules.overrides import apply_override
from rules.limits import MAX_SAVE_BYTES
from rules.scenario import load_scenario, new_battle, read_document
from rules.state import BattleState

REPLAY_FIELDS = {"scenario", "seed", "start_dice", "steps", "description", "questions"}
STEP_FIELDS = ("actor", "action", "dice", "expect", "reason", "note")
#: the fields of a GM override step (`override`: a spec of rules/overrides.py)
OVERRIDE_STEP_FIELDS = ("override", "dice", "note")
#: what a step may `expect` (a step without `expect` must be legal)
EXPECTATIONS = ("refused",)
#: legal actions listed in an error, at most (cell actions are grouped and count once)
SHOW_LEGAL = 16
SHOW_CELLS = 8


# -- a replay's outcome ---------------------------------------------------------------------------
@dataclass
class ReplayResult:
    """What a replay played: the battle as far as it got, and the error that stopped it."""

    battle: Battle | None            # None when not even the fight could be set up
    source: str
    error: TacticaError | None = None

    @property
    def events(self) -> list[dict[str, Any]]:
        return self.battle.events if self.battle is not None else []

    def to_json(self) -> dict[str, Any]:
        """`tactica replay --json`: events, final state (so far) and the error, if any."""
        d: dict[str, Any] = {"events": self.events,
                             "final_state": state_summary(self.battle.state, self.battle.ruleset)
                             if self.battle is not None else None}
        if self.error is not None:
            d["error"] = error_json(self.error)
        return d


def error_json(e: TacticaError) -> dict[str, Any]:
    """An error as JSON: the message, the file, the field, what was expected, the whole line."""
    return {"message": e.detail, "file": e.source, "field": e.field, "expected": e.expected,
            "line": e.line()}


# -- reading and playing ----------------------------------------------------------------------------
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
    doc = read_document(path, MAX_SAVE_BYTES)  # a replay is written by Tactica, as a save
    src = str(path)
    if not isinstance(doc, Mapping):
        raise ScenarioError(f"the document is a {type(doc).__name__}, not a mapping", source=src,
                            field="(top level)", expected="a mapping with scenario and steps")
    return dict(doc), src


def run_replay(path: str | Path | Mapping[str, Any], base_dir: Path | None = None) -> Battle:
    """Play a scripted fight and return the battle (events and final state); raise the first
    error (a `TacticaError` naming the file, the field and what was expected)."""
    r = play_replay(path, base_dir)
    if r.error is not None:
        raise r.error
    assert r.battle is not None
    return r.battle


def play_replay(path: str | Path | Mapping[str, Any], base_dir: Path | None = None) -> ReplayResult:
    """Play a scripted fight as far as it goes; the result holds the battle so far and the
    error that stopped it (None when every step was played as the file expects)."""
    try:
        doc, src = load_replay(path)
    except TacticaError as e:
        return ReplayResult(None, e.source or str(path), e)
    if base_dir is None and not isinstance(path, Mapping):
        base_dir = Path(path).parent
    try:
        battle, steps = _set_up(doc, src, base_dir)
    except TacticaError as e:
        return ReplayResult(None, src, e)
    result = ReplayResult(battle, src)
    try:
        if "start_dice" in doc:
            battle.dice.force(_forced(doc["start_dice"], src, "start_dice"), strict=True)
        rolled = len(battle.dice.record)
        try:
            battle.start()
        except DiceError as e:
            raise _ran_out(e, battle.dice, rolled, src, "start_dice")
        _check_used(battle.dice, src, "start_dice", rolled, doc.get("start_dice", []))
        for i, st in enumerate(steps):
            _play_step(battle, src, i, st)
    except TacticaError as e:
        result.error = e.at(src)
    return result


def _set_up(doc: dict, src: str, base_dir: Path | None) -> tuple[Battle, list]:
    """The battle of a replay document (not started) and its steps."""
    unknown = set(doc) - REPLAY_FIELDS
    if unknown:
        raise ScenarioError(f"unknown field(s) {sorted(unknown)}", source=src, field="(top level)",
                            expected=", ".join(sorted(REPLAY_FIELDS)))
    if "scenario" not in doc:
        raise ScenarioError("missing", source=src, field="scenario", expected="a scenario name, path or mapping")
    scen = doc["scenario"]
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
    try:
        battle = new_battle(spec, Dice(seed), ssrc)
    except TacticaError as e:
        raise e.at(src, "scenario") if isinstance(scen, Mapping) else e
    questions = doc.get("questions", "ask")
    teams = battle.state.teams
    if isinstance(questions, Mapping):
        bad = sorted(set(map(str, questions)) - set(teams))
        if bad or any(v not in ("ask", "default") for v in questions.values()):
            raise ScenarioError(f"questions {dict(questions)!r}", source=src, field="questions",
                                expected="a mapping of teams (" + ", ".join(teams) + ") to ask or default")
        battle.deciders = {t: ASK for t, v in questions.items() if v == "ask"}
    elif questions in ("ask", "default"):
        if questions == "ask":
            battle.deciders = {t: ASK for t in teams}
    else:
        raise ScenarioError(f"questions {questions!r}", source=src, field="questions",
                            expected="ask (every choice the rules give a figure is a step), default, "
                                     "or a mapping of teams to ask or default")
    steps = doc.get("steps", [])
    if not isinstance(steps, list):
        raise ScenarioError("steps must be a list", source=src, field="steps", expected="a list of steps")
    return battle, steps


def _play_step(battle: Battle, src: str, i: int, st: Any) -> None:
    """Play `steps[i]`: check it, then apply it, or record the refusal it expects."""
    f = f"steps[{i}]"
    if isinstance(st, Mapping) and "override" in st:
        return _play_override(battle, src, f, st)
    expect, words = _read_step(st, src, f)
    s = battle.state
    if s.over:
        who = f"{s.winner} won" if s.winner else f"a draw: {s.end_reason}"
        raise IllegalActionError(f"the fight is already over (round {s.round}, {who}); "
                                 f"nothing can act at {f}", source=src, field=f,
                                 expected=f"no steps from {f} on")
    actor = s.actor
    who = st.get("actor")
    if not isinstance(who, str) or who not in s.by_id:
        raise IllegalActionError(f"there is no figure {who!r}", source=src, field=f"{f}.actor",
                                 expected=f"{actor.id}, whose turn it is (figures: "
                                 + ", ".join(c.id for c in s.combatants) + ")")
    raw = st.get("action", "end_turn")
    try:
        action = Action.from_dict(raw, s.grid.width, field=f"{f}.action", height=s.grid.height)
    except TacticaError as e:
        raise e.at(src)
    if who != actor.id:
        reason = f"it is {actor.id}'s turn, not {who}'s"
        if expect == "refused":
            return _refused(battle, src, f, who, raw, reason, words)
        raise IllegalActionError(reason, source=src, field=f"{f}.actor", expected=actor.id)
    try:
        battle.ruleset.check_legal(s, action)
    except IllegalActionError as e:
        return _refuse_or_fail(battle, src, f, raw, action, e, expect, words)
    dice = battle.dice
    given = _forced(st["dice"], src, f"{f}.dice") if "dice" in st else []
    if "dice" in st:
        dice.force(given, strict=True)
    elif expect == "refused":
        dice.force([], strict=True)   # a refused step rolls nothing: a roll means it was allowed
    rolled = len(dice.record)
    snapshot = (s.clone(), len(battle.events), battle.actions_resolved, battle._decisions)
    try:
        battle.step(action, check=False)
    except DiceError as e:
        _restore(battle, snapshot)
        dice.clear_forced()
        if expect == "refused":
            raise IllegalActionError(f"{_show(action, s)} was expected to be refused, but the rules "
                                     f"allow it (it rolled dice)", source=src, field=f"{f}.expect",
                                     expected="a step the rules refuse, or no `expect: refused`") from None
        raise _ran_out(e, dice, rolled, src, f"{f}.dice")
    except IllegalActionError as e:   # the rules refused it while resolving it
        _restore(battle, snapshot)
        dice.clear_forced()
        return _refuse_or_fail(battle, src, f, raw, action, e, expect, words)
    except TacticaError as e:           # any other bad input met while resolving: name the step
        _restore(battle, snapshot)
        dice.clear_forced()
        raise e.at(src, f)
    if expect == "refused":
        _restore(battle, snapshot)
        dice.clear_forced()
        raise IllegalActionError(f"{_show(action, s)} was expected to be refused, but it is legal for "
                                 f"{actor.id} now", source=src, field=f"{f}.expect",
                                 expected="a step the rules refuse, or no `expect: refused`")
    _check_used(dice, src, f"{f}.dice", rolled, given)


def _play_override(battle: Battle, src: str, f: str, st: Mapping[str, Any]) -> None:
    """A GM override step (`{override: {kind: ...}, dice: [...]}`, rules/overrides.py): applied
    in order; its `dice` are those the turns it moves on roll (usually none)."""
    bad = set(st) - set(OVERRIDE_STEP_FIELDS)
    if bad:
        raise ScenarioError(f"unknown field(s) {sorted(bad)} beside an override", source=src, field=f,
                            expected=", ".join(OVERRIDE_STEP_FIELDS))
    dice = battle.dice
    given = _forced(st["dice"], src, f"{f}.dice") if "dice" in st else []
    if "dice" in st:
        dice.force(given, strict=True)
    rolled = len(dice.record)
    try:
        apply_override(battle, st["override"])
    except DiceError as e:
        raise _ran_out(e, dice, rolled, src, f"{f}.dice")
    except TacticaError as e:
        dice.clear_forced()
        raise e.at(src, f"{f}.override")
    _check_used(dice, src, f"{f}.dice", rolled, given)


def _read_step(st: Any, src: str, f: str) -> tuple[str | None, str | None]:
    """Check a step's fields; return its `expect` and refusal `reason` words."""
    if not isinstance(st, Mapping):
        raise ScenarioError("a step must be a mapping", source=src, field=f, expected="{actor, action, dice}")
    bad = set(st) - set(STEP_FIELDS)
    if bad:
        raise ScenarioError(f"unknown field(s) {sorted(bad)}", source=src, field=f,
                            expected=", ".join(STEP_FIELDS))
    expect = st.get("expect")
    if expect is not None and expect not in EXPECTATIONS:
        raise ScenarioError(f"expect {expect!r}", source=src, field=f"{f}.expect",
                            expected=" or ".join(EXPECTATIONS) + " (or no expect: the step must be legal)")
    words = st.get("reason")
    if "reason" in st:
        if expect != "refused":
            raise ScenarioError("a reason without expect: refused", source=src, field=f"{f}.reason",
                                expected="`expect: refused` beside the reason")
        if not isinstance(words, str) or not words.strip():
            raise ScenarioError(f"reason {words!r}", source=src, field=f"{f}.reason",
                                expected="words of the refusal message, as text")
    if expect == "refused" and st.get("dice"):
        raise DiceError("a step that expects refusal rolls no dice", source=src, field=f"{f}.dice",
                        expected="no dice on a refused step (leave dice out)")
    return expect, words


def _refuse_or_fail(battle: Battle, src: str, f: str, raw: Any, action: Action, e: IllegalActionError,
                    expect: str | None, words: str | None) -> None:
    """The rules refused `action` with `e`: record it when the step expects it, else fail."""
    s = battle.state
    legal = battle.legal_actions()
    reason = _reason(e, s, legal, action)
    if expect == "refused":
        return _refused(battle, src, f, s.actor.id, raw, reason, words)
    raise IllegalActionError(f"{_show(action, s)} is refused: {reason}",
                             source=src, field=f"{f}.action",
                             expected="one of: " + legal_in_words(s, legal, action))


def _refused(battle: Battle, src: str, f: str, who: str, raw: Any, reason: str, words: str | None) -> None:
    """Record a refusal the step expects (checking its reason's words) as a `refused` event."""
    if words is not None and words.strip().lower() not in reason.lower():
        raise IllegalActionError(f"refused, but the refusal does not say {words!r}: {reason}",
                                 source=src, field=f"{f}.reason", expected="words of the refusal message")
    battle.actions_resolved += 1   # a refused step counts as a decision: steps[i] is step i + 1
    raw = json.loads(json.dumps(raw, default=str))
    battle._emit([event("refused", actor=who, action=raw, reason=reason,
                        round=battle.state.round, step=battle.actions_resolved)])


def _restore(battle: Battle, snapshot: tuple) -> None:
    """Undo a step that failed half-way: the state, its events and the decision counts."""
    battle.state, n_events, battle.actions_resolved, battle._decisions = snapshot
    del battle.events[n_events:]


# -- saying it in the author's words ------------------------------------------------------------------
def _show(a: Action, state: BattleState) -> str:
    """An action as a replay author writes it (cells as [x, y]; `aim` for an action without fields)."""
    d = a.to_dict()
    if len(d) == 1:
        return a.kind
    if a.cell is not None:
        d["cell"] = list(state.grid.xy(a.cell))
    return "{" + ", ".join(f"{k}: {v}" for k, v in d.items()) + "}"


def _reason(e: IllegalActionError, state: BattleState, legal: list[Action], action: Action) -> str:
    """Why the rules refuse `action`: the ruleset's own words, or what differs from every legal
    action (no such figure, no such weapon, no such kind now, a cell out of reach ...)."""
    if e.detail and not e.detail.startswith(str(action)):  # not the generic "... is not legal"
        return e.detail
    return why_illegal(state, legal, action)


def why_illegal(state: BattleState, legal: list[Action], action: Action) -> str:
    """What keeps `action` out of the legal actions, in the author's terms."""
    me = state.actor
    k = action.kind
    if action.target is not None and action.target not in state.by_id:
        return f"there is no figure {action.target!r}"
    same = [a for a in legal if a.kind == k]
    if not same:
        return f"{me.id} can make no {k} action now"
    if action.target is not None:
        same = [a for a in same if a.target == action.target]
        if not same:
            return f"{me.id} can make no {k} action at {action.target} now"
    if action.weapon is not None:
        if action.weapon not in me.weapons:
            return (f"{me.id} has no weapon {action.weapon!r}"
                    + (f" (weapons: {', '.join(me.weapons)})" if me.weapons else ""))
        with_w = [a for a in same if a.weapon == action.weapon]
        if not with_w:
            return f"{me.id} cannot {k} with {action.weapon} now"
        same = with_w
    if action.cell is not None:
        with_c = [a for a in same if a.cell == action.cell]
        if not with_c:
            return f"no {k} to {list(state.grid.xy(action.cell))} is legal for {me.id} now"
        same = with_c
    opts = sorted({a.option for a in same if a.option is not None})
    if action.option is not None and action.option not in opts:
        return f"option {action.option!r} is not open" + (f" (open: {', '.join(opts)})" if opts else "")
    if action.option is None and opts and all(a.option is not None for a in same):
        return f"an option is needed: {', '.join(opts)}"
    return "the rules do not allow it now"


def legal_in_words(state: BattleState, legal: list[Action], wanted: Action | None = None) -> str:
    """The legal actions as a replay author writes them, grouped: the options of one action
    (`{type: defend, option: block | dodge}`) and the cells of one kind (the nearest to the
    wanted cell first); those most like `wanted` come first."""
    g = state.grid
    groups: dict[tuple, list] = {}
    for a in legal:
        key = (a.kind, a.target, a.weapon, a.cell is not None)
        groups.setdefault(key, []).append(a)

    def likeness(key: tuple) -> tuple:
        if wanted is None:
            return (0,)
        return (key[0] != wanted.kind, key[1] != wanted.target, key[2] != wanted.weapon)

    parts = []
    for key in sorted(groups, key=likeness):
        kind, target, weapon, on_cells = key
        acts = groups[key]
        head = {"type": kind, **{k: v for k, v in (("target", target), ("weapon", weapon)) if v is not None}}
        if on_cells:
            cells = list(dict.fromkeys(a.cell for a in acts))
            note = f"{len(cells)} cells"
            if wanted is not None and wanted.cell is not None:
                wx, wy = g.xy(wanted.cell)
                cells.sort(key=lambda c: (max(abs(g.xy(c)[0] - wx), abs(g.xy(c)[1] - wy)), c))
                note += f", the nearest to {[wx, wy]} first"
            shown = " | ".join(str(list(g.xy(c))) for c in cells[:SHOW_CELLS])
            head["cell"] = shown + (f" | ... ({note})" if len(cells) > SHOW_CELLS else "")
        opts = list(dict.fromkeys(a.option for a in acts))
        if opts != [None]:
            head["option"] = " | ".join("(no option)" if o is None else o for o in opts)
        if len(head) == 1:
            parts.append(kind)
        else:
            parts.append("{" + ", ".join(f"{k}: {v}" for k, v in head.items()) + "}")
    if len(parts) > SHOW_LEGAL:
        parts = parts[:SHOW_LEGAL] + [f"... {len(parts) - SHOW_LEGAL} more"]
    return ", ".join(parts) if parts else "nothing (no legal action)"


# -- dice ------------------------------------------------------------------------------------------------
def _ran_out(e: DiceError, dice: Dice, rolled: int, src: str, field: str) -> DiceError:
    """A forced-dice error of a step, naming how many dice it had rolled."""
    n = len(dice.record) - rolled
    dice.clear_forced()
    if "ran out" in e.detail:
        e.detail = f"{e.detail} (roll {n + 1} of the step; the dice given covered {n})"
    return e.at(src, field)


def _check_used(dice: Dice, src: str, field: str, rolled: int, given: list[int]) -> None:
    n_left = dice.forced_left
    strict = dice.strict
    dice.clear_forced()
    if strict and n_left:
        left = given[len(given) - n_left:]
        faces = ", ".join(f"d{s}" for s, _ in dice.record[rolled:])
        raise DiceError(f"{n_left} forced result(s) were not used: {left} (the step rolled "
                        f"{len(dice.record) - rolled} dice{': ' + faces if faces else ''})",
                        source=src, field=field, expected="exactly the dice this step rolls")
