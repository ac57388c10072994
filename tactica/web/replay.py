"""Recorded fights for `tactica view`: read a log, follow it through the rules engine.

Sources (`load_recording`):

- a `tactica simulate --log FILE`: JSON lines, one event each, with the fight's index
  (`fight`); the scenario is the bundled one the fight names, or `--scenario FILE`;
- a replay file (`tactica replay`: a scenario plus steps with their dice);
- a Tactica state file: an autopilot save or `GET /fights/ID`'s state (it holds the whole
  event log and the scenario; a save whose log is empty is rebuilt from its history).

A log holds events, not states. Every die the engine rolls is in a `roll` event, so the
fight can be played again exactly: from the scenario, at each decision the follower tries
the acting figure's legal actions on a copy, with the logged dice, and keeps the one whose
events are the logged ones (backtracking when two actions look alike). Every replay frame
is therefore a real state, with the same overlays as a live fight. A log that the engine
cannot follow (another scenario or ruleset version) stops at the last step it could
follow, with a warning, or is refused when not even its start fits.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, Mapping

from rules.actions import Action
from rules.battle import Battle
from rules.choices import ASK
from rules.dice import Dice
from rules.errors import ScenarioError, TacticaError
from rules.events import EVENT_TYPES, dumps, narrate
from rules.limits import MAX_LOG_BYTES, MAX_SAVE_BYTES, load_text, read_text_file
from rules.scenario import ScenarioSpec, bundled_scenarios, load_scenario, new_battle, read_document, resolve_scenario
from rules.state import BattleState

from tactica.web.board import board_json, map_json

EXPECTED = ("a --log file from tactica simulate (JSON lines of events), a replay file (scenario and steps) "
            "or an autopilot save / Tactica state file")
#: actions tried in all while following one fight, before giving up
MAX_TRIES = 50_000


class _Mismatch(Exception):
    """A candidate action rolled a die the log does not have next."""


def _canon(e: Mapping[str, Any]) -> dict[str, Any]:
    d = json.loads(dumps(e))
    d.pop("fight", None)
    return d


def _key(e: Mapping[str, Any]) -> Mapping[str, Any]:
    """An event as compared when following a log. An `initiative` event shares its `order`
    list with the state's turn order, which a delayed action changes later in the round, so
    a log saved after the fact (a state file, `run_replay`) can show the changed order; the
    rolls before it decide the order anyway. The `step` stamp is left out: a replay file's
    refused steps (skipped here, they change nothing) count as decisions there."""
    if e.get("type") == "initiative":
        return {k: v for k, v in e.items() if k not in ("order", "step")}
    return {k: v for k, v in e.items() if k != "step"}


def _same(new: list[dict[str, Any]], logged: list[dict[str, Any]]) -> bool:
    return len(new) == len(logged) and all(_key(a) == _key(b) for a, b in zip(new, logged))


# -- reading sources -------------------------------------------------------------------------
@dataclass
class Recording:
    """The events of the fights in a file and how to build their scenario."""

    source: str
    kind: str                       # "simulate log", "replay file", "state file"
    fights: dict[int, list[dict[str, Any]]]
    scenario: Any = None            # a scenario document (dict) or None: the one each fight names
    scenario_source: str | None = None
    base_dir: Path | None = None


def _err(src: str, detail: str, field: str = "(file)", expected: str = EXPECTED) -> ScenarioError:
    return ScenarioError(detail, source=src, field=field, expected=expected)


def _read_jsonl(text: str, src: str) -> dict[int, list[dict[str, Any]]]:
    fights: dict[int, list[dict[str, Any]]] = {}
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            e = json.loads(line)
        except (json.JSONDecodeError, RecursionError, ValueError):  # ValueError: an integer too long
            raise _err(src, "not valid JSON", f"line {n}", "one JSON event per line") from None
        if not isinstance(e, dict) or e.get("type") not in EVENT_TYPES:
            raise _err(src, "not an event", f"line {n}", "a JSON object with a known event type")
        i = e.get("fight", 0)
        if isinstance(i, bool) or not isinstance(i, int):
            raise _err(src, f"fight {i!r}", f"line {n}.fight", "a whole number")
        fights.setdefault(i, []).append(e)
    return fights


def load_recording(path: str | Path, scenario: str | None = None) -> Recording:
    """Read a log, replay file or state file; a file of another kind is a clear error."""
    p = Path(path)
    src = str(path)
    try:
        text = read_text_file(p, src, limit=MAX_LOG_BYTES, expected=EXPECTED)
    except ScenarioError as e:
        raise _err(src, e.detail, e.field or "(file)", e.expected or EXPECTED) from None
    if not text.strip():
        raise _err(src, "file is empty")
    scen_doc, scen_src = None, None
    if scenario is not None:
        scen_doc, scen_src = resolve_scenario(scenario)
    first = text.lstrip().split("\n", 1)[0]
    try:
        head = json.loads(first)
    except (json.JSONDecodeError, RecursionError, ValueError):
        head = None
    if isinstance(head, dict) and head.get("type") in EVENT_TYPES:
        return Recording(src, "simulate log", _read_jsonl(text, src), scen_doc, scen_src)
    try:
        doc = read_document(p, MAX_SAVE_BYTES) if p.suffix.lower() in (".json", ".yaml", ".yml") else _parse_any(text)
    except TacticaError:
        doc = None
    if not isinstance(doc, Mapping):
        raise _err(src, "not a fight log")
    if doc.get("format") == "tactica-state":
        return _from_state(doc, src, scen_doc, scen_src)
    if "steps" in doc and "scenario" in doc:
        return _events_of_replay(p, src, "replay file", p.parent)
    raise _err(src, "a mapping that is neither a replay nor a state file")


def _parse_any(text: str) -> Any:
    """JSON, else YAML (without aliases, within rules/limits.py), else None."""
    for fmt in ("json", "yaml"):
        try:
            return load_text(text, None, fmt)
        except TacticaError:
            pass
    return None


def _from_state(doc: Mapping[str, Any], src: str, scen_doc: Any, scen_src: str | None) -> Recording:
    events = doc.get("events")
    scen = doc.get("scenario")
    if not isinstance(scen, Mapping):
        raise _err(src, "no scenario", "scenario", "a state file written by Tactica")
    if isinstance(events, list) and events and isinstance(events[0], Mapping) \
            and events[0].get("type") == "battle_start":
        return Recording(src, "state file", {0: list(events)}, scen_doc or dict(scen), scen_src or src)
    if isinstance(doc.get("session"), Mapping):  # an autopilot save without its log: rebuild it
        from tactica.table import replay_from_save

        rdoc = replay_from_save(src)
        return _events_of_replay(rdoc, src, "state file", None)
    raise _err(src, "the state file holds no event log from the start of the fight", "events",
               "a save of tactica autopilot or a state from GET /fights/ID")


def _events_of_replay(replay: Any, src: str, kind: str, base_dir: Path | None) -> Recording:
    from rules.replay import load_replay, run_replay

    battle = run_replay(replay)
    doc, _ = load_replay(replay)
    scen = doc["scenario"]
    if isinstance(scen, str):
        if base_dir is not None and (base_dir / scen).exists():
            scen_doc, scen_src = read_document(base_dir / scen), str(base_dir / scen)
        else:
            scen_doc, scen_src = resolve_scenario(scen)
    else:
        scen_doc, scen_src = dict(scen), src
    return Recording(src, kind, {0: list(battle.events)}, scen_doc, scen_src)


# -- following a fight ------------------------------------------------------------------------
class _LogDice:
    """Serves the logged dice in order to `Dice.on_roll`; a die of other sides is a mismatch."""

    def __init__(self, seq: list[tuple[int, int]], pos: int = 0) -> None:
        self.seq = seq
        self.pos = pos

    def __call__(self, sides: int, label: str) -> int:
        if self.pos >= len(self.seq) or self.seq[self.pos][0] != sides:
            raise _Mismatch(label)
        r = self.seq[self.pos][1]
        self.pos += 1
        return r


def _battle_with(b: Battle, state: BattleState, pos: int, seq: list[tuple[int, int]]) -> tuple[Battle, _LogDice]:
    d = Dice(0)
    feed = _LogDice(seq, pos)
    d.on_roll = feed
    return b.clone(d, events=False, state=state), feed


@dataclass
class Frame:
    state: BattleState
    first: int            # events [first, last) of this frame
    last: int
    title: str
    actor: str | None = None
    action: dict[str, Any] | None = None


@dataclass
class Followed:
    """One fight followed through the engine: a frame per step and the whole log."""

    scenario: str
    ruleset: str
    grid_json: dict[str, Any]
    events: list[dict[str, Any]]
    frames: list[Frame] = field(default_factory=list)
    warning: str | None = None
    ruleset_obj: Any = None


def _order(legal: list[Action], state: BattleState, upcoming: list[dict[str, Any]]) -> list[Action]:
    """Legal actions, the ones that fit the next logged events first (a cheap guess)."""
    g = state.grid
    actor = state.actor
    nxt = upcoming[0] if upcoming else {}
    names = {e.get(k) for e in upcoming[:12] for k in ("target", "weapon")} - {None}
    move_to = None
    to = nxt.get("to")
    if (nxt.get("type") == "move" and nxt.get("actor") == actor.id and isinstance(to, list) and len(to) == 2
            and all(isinstance(v, int) for v in to) and g.in_bounds(*to)):
        move_to = g.index(*to)

    def key(a: Action) -> tuple[int, int]:
        if move_to is not None and a.cell == move_to:
            return (0, 0)
        if a.kind == "end_turn" and nxt.get("type") == "turn_end":
            return (0, 1)
        hits = (a.target in names) + (a.weapon in names)
        return (1 if a.kind != "move" else 3, -hits)

    return sorted(legal, key=key)


def _logged_dice(events: list[dict[str, Any]], src: str | None, where: str) -> list[tuple[int, int]]:
    """Every die of the log's roll events, in order, as (sides, face)."""
    seq: list[tuple[int, int]] = []
    for n, e in enumerate(events):
        if e.get("type") != "roll":
            continue
        try:
            for sides, face in e.get("dice") or []:
                seq.append((int(sides), int(face)))
        except (TypeError, ValueError):
            raise ScenarioError(f"{where}event {n}: dice {e.get('dice')!r}", source=src, field="dice",
                                expected="[[sides, face], ...] as tactica writes them") from None
    return seq


def follow(spec: ScenarioSpec, src: str | None, raw_events: list[dict[str, Any]], where: str = "",
           log: str | None = None) -> Followed:
    """Play the fight of `raw_events` again on `spec` (from file `src`); errors name the file
    `log` (default `src`) and `where` in it (see the module docstring)."""
    from tactica.table import describe_action, action_json

    log = log or src
    events = [_canon(e) for e in raw_events if e.get("type") != "refused"]
    seq = _logged_dice(events, log, where)
    base = new_battle(spec, Dice(0), src)
    if any(e.get("type") == "question" for e in events):   # a fight whose figures answered their choices
        base.deciders = {t: ASK for t in base.state.teams}
    b, feed = _battle_with(base, base.state, 0, seq)
    ok = True
    try:
        b.start()
    except (_Mismatch, TacticaError):
        ok = False
    start = [_canon(e) for e in b.events]
    if not ok or not _same(start, events[:len(start)]):
        raise ScenarioError(f"{where}the log does not start like scenario {spec.name!r} does", source=log,
                            field="scenario", expected="the scenario the fight was played on (--scenario FILE)")
    out = Followed(spec.name, spec.ruleset, map_json(base.state.grid), events, ruleset_obj=b.ruleset)
    out.frames.append(Frame(b.state, 0, len(start), "the fight begins"))
    path, k = _search(b, len(start), feed.pos, events, seq)
    for prev, lvl in zip(path, path[1:]):
        before = prev.battle.state
        actor = before.actor
        out.frames.append(Frame(lvl.battle.state, prev.k, lvl.k,
                                f"{actor.name}: {describe_action(before, lvl.action, with_odds=False)}",
                                actor.id, action_json(before, lvl.action)))
    if k < len(events):
        out.warning = (f"the replay stops at event {k} of {len(events)} ({narrate(events[k])}): no legal action "
                       f"gives the logged events from there (another scenario or ruleset version?)")
    return out


@dataclass
class _Level:
    battle: Battle          # the fight at this decision (never changed: candidates run on copies)
    k: int                  # events of the log consumed
    pos: int                # dice of the log consumed
    action: Action | None   # the action that led here
    cands: Iterator[Action] | None = None


def _search(b: Battle, k: int, pos: int, events: list[dict[str, Any]], seq: list[tuple[int, int]]
            ) -> tuple[list[_Level], int]:
    """Depth-first over decisions for actions whose events are the logged ones; returns the
    path of levels (the whole fight, or the longest prefix found) and the events it covers."""
    levels = [_Level(b, k, pos, None)]
    best = list(levels)
    tries = 0
    while levels:
        top = levels[-1]
        if top.battle.state.over or top.k >= len(events):
            return levels, top.k
        if top.cands is None:
            top.cands = iter(_order(top.battle.legal_actions(), top.battle.state, events[top.k:top.k + 40]))
        nxt = None
        for a in top.cands:
            tries += 1
            if tries > MAX_TRIES:
                break
            nb, feed = _battle_with(top.battle, top.battle.state.clone(), top.pos, seq)
            try:
                nb.step(a, check=False)
            except (_Mismatch, TacticaError):
                continue
            new = [_canon(e) for e in nb.events]
            if new and _same(new, events[top.k:top.k + len(new)]):
                nxt = _Level(nb, top.k + len(new), feed.pos, a)
                break
        if nxt is None:
            if tries > MAX_TRIES:
                break
            levels.pop()
            continue
        levels.append(nxt)
        if nxt.k > best[-1].k:
            best = list(levels)
    return best, best[-1].k


# -- what the page gets ------------------------------------------------------------------------
class Replay:
    """A recording and its fights, followed on demand (`tactica view`)."""

    def __init__(self, rec: Recording) -> None:
        self.rec = rec
        self._followed: dict[int, Followed] = {}

    @property
    def fights(self) -> list[int]:
        return sorted(self.rec.fights)

    def spec_for(self, i: int) -> tuple[ScenarioSpec, str | None]:
        rec = self.rec
        evs = rec.fights[i]
        where = f"fight {i}: " if rec.kind == "simulate log" else ""
        if not evs or evs[0].get("type") != "battle_start":
            raise _err(rec.source, f"{where}the log does not begin with a battle_start event", "(file)",
                       "the whole log of a fight")
        if rec.scenario is not None:
            try:
                spec, _ = load_scenario(rec.scenario)
            except TacticaError as e:
                raise e.at(rec.scenario_source or rec.source, "scenario")
            return spec, rec.scenario_source
        name = evs[0].get("scenario")
        if name not in bundled_scenarios():
            raise _err(rec.source, f"{where}the fight was played on scenario {name!r}, which is not bundled",
                       "scenario", "--scenario FILE naming the scenario file it was simulated on")
        doc, ssrc = resolve_scenario(name)
        spec, _ = load_scenario(doc)
        return spec, ssrc

    def followed(self, i: int) -> Followed:
        if i not in self.rec.fights:
            raise _err(self.rec.source, f"no fight {i} in the log", "fight",
                       f"one of {', '.join(map(str, self.fights[:20]))}{' ...' if len(self.fights) > 20 else ''}")
        f = self._followed.get(i)
        if f is None:
            spec, ssrc = self.spec_for(i)
            where = f"fight {i}: " if self.rec.kind == "simulate log" else ""
            f = follow(spec, ssrc, self.rec.fights[i], where, log=self.rec.source)
            if len(self._followed) > 8:
                self._followed.clear()
            self._followed[i] = f
        return f

    def to_json(self, i: int) -> dict[str, Any]:
        f = self.followed(i)
        rs = f.ruleset_obj
        frames = []
        rows = f.grid_json["rows"]
        # the log names figures as the board does (a figure a GM adds mid-fight is in a later frame)
        names = {c.id: c.name for fr in f.frames for c in fr.state.combatants}
        for fr in f.frames:
            board = board_json(fr.state, rs)
            if board["map_rows"] == rows:
                board.pop("map_rows")
            else:
                rows = board["map_rows"]
            frames.append({"board": board, "first": fr.first, "last": fr.last, "title": fr.title,
                           "actor": fr.actor, "action": fr.action})
        return {"source": self.rec.source, "kind": self.rec.kind, "fights": self.fights, "fight": i,
                "scenario": f.scenario, "ruleset": f.ruleset, "map": f.grid_json, "frames": frames,
                "log": [{"i": n, "text": narrate(e, names), "event": e} for n, e in enumerate(f.events)],
                "warning": f.warning}

    def frame_state(self, i: int, frame: int) -> BattleState:
        f = self.followed(i)
        if not 0 <= frame < len(f.frames):
            raise _err(self.rec.source, f"no frame {frame}", "frame", f"0..{len(f.frames) - 1}")
        return f.frames[frame].state
