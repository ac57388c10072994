"""Save files of a table session: reading, checking, replay documents, policy memory."""


from __future__ import annotations

import datetime as _dt
import json
import re
from pathlib import Path
from typing import Any, Iterable, Mapping

import numpy as np
import yaml

from rules.dice import Dice
from rules.atomic import atomic_write
from rules.errors import ScenarioError
from rules.limits import MAX_SAVE_BYTES, load_text, read_text_file
from rules.serialize import FORMAT
from tactica.table.base import SESSION_FORMAT, SESSION_VERSION, SessionError


def _player(p):
    """The policy whose generators a save holds: a policy playing a GM's behaviour
    (agents/behaved.py) saves its policy's dice, `best` (agents/best.py) its player's."""
    p = getattr(p, "inner", p)
    return getattr(p, "delegate", None) or p


def _policy_rng_state(p) -> dict[str, Any]:
    p = _player(p)
    out: dict[str, Any] = {}
    for k, v in vars(p).items():
        if isinstance(v, np.random.Generator):
            out[k] = {"generator": v.bit_generator.state}
        elif isinstance(v, Dice):
            out[k] = {"dice": v.get_state()}
    if isinstance(getattr(p, "_buf", None), list) and isinstance(getattr(p, "_pos", None), int):
        out["_buf"] = {"rest": list(p._buf[p._pos:])}
    return json.loads(json.dumps(out, default=_json_default))


def _json_default(o: Any) -> Any:
    if isinstance(o, np.integer):
        return int(o)
    if isinstance(o, np.floating):
        return float(o)
    if isinstance(o, np.ndarray):
        return o.tolist()
    raise TypeError(f"{type(o).__name__} is not JSON")


def _set_policy_rng_state(p, st: Mapping[str, Any]) -> None:
    p = _player(p)
    for k, v in st.items():
        cur = getattr(p, k, None)
        if k == "_buf" and isinstance(v, Mapping):
            p._buf = list(v.get("rest", []))
            p._pos = 0
        elif isinstance(cur, np.random.Generator) and "generator" in v:
            cur.bit_generator.state = v["generator"]
        elif isinstance(cur, Dice) and "dice" in v:
            cur.set_state(v["dice"])


def read_save(path: str | Path) -> dict[str, Any]:
    """A save file as a dict, or a clear `SessionError` (missing, unreadable, not JSON, foreign)."""
    src = str(path)
    try:
        text = read_text_file(path, src, limit=MAX_SAVE_BYTES, expected="a save file written by tactica")
        if not text.strip():
            raise SessionError("file is empty", source=src, field="(file)", expected="a Tactica state file (JSON)")
        d = load_text(text, src, "json")
    except ScenarioError as e:  # rules/limits.py: a device, a pipe, too large, nested too deep ...
        raise SessionError(e.detail.replace("not valid JSON", "damaged: not valid JSON"), source=src,
                           field=e.field, expected=e.expected) from None
    if not isinstance(d, dict) or d.get("format") != FORMAT:
        raise SessionError("not a Tactica state file", source=src, field="format",
                           expected=f"a JSON object with format '{FORMAT}' (written by tactica autopilot or the API)")
    return d


def probe(battle: Any, source: str | None) -> None:
    """Read a fight loaded from a file as the table will next (every figure's health, tracks
    and description, the legal actions with their words and odds, the NPC policy's
    suggestion) inside `rules.state_check.untrusted`, so that a state the engine cannot use is
    one line naming the file now, not a traceback at the first prompt."""
    from agents.base import DEFAULT_POLICY
    from rules.state_check import untrusted
    from tactica.table.suggest import suggest
    from tactica.table.words import describe_action

    s, rs = battle.state, battle.ruleset
    with untrusted(source):
        for c in s.combatants:
            rs.health(c)
            rs.damage_tracks(c)
            rs.describe(c)
        if not s.over and s.actor is not None:
            for a in battle.legal_actions():
                describe_action(s, a)
            suggest(s, None, DEFAULT_POLICY, 0, 1)


def check_writable_target(path: Path, own: Path | None = None) -> None:
    """A save target must be new, or the very file this session was resumed from (or a
    device: /dev/null keeps nothing, /dev/full tries a full disk)."""
    path = Path(path)
    if own is not None and path.resolve() == Path(own).resolve():
        return
    if path.exists() and not path.is_char_device():
        raise SessionError("already exists", source=str(path), field="--save",
                           expected="a new file (continue a saved session with --resume FILE; it is never overwritten otherwise)")
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise SessionError("its folder does not exist", source=str(path), field="--save", expected="a file in an existing folder")


def replay_from_history(scenario_doc: Mapping[str, Any], seed: int, start_dice: list[int],
                        history: list[Mapping[str, Any]], asked: Iterable[str] | None = None) -> dict[str, Any]:
    """A replay document (rules/replay.py) from a session's recorded steps. `asked`: the
    teams whose figures' choices were the GM's steps (the others took their defaults)."""
    steps = []
    for h in history:
        if h.get("override") is not None:
            steps.append({"override": dict(h["override"]), "dice": list(h["dice"])})
        else:
            steps.append({"actor": h["actor"], "action": dict(h["action"]), "dice": list(h["dice"])})
    teams = [t["name"] for t in scenario_doc.get("teams", [])]
    asked = set(asked or ())
    return {"description": "exported by tactica autopilot", "scenario": dict(scenario_doc), "seed": int(seed),
            "start_dice": list(start_dice), "questions": {t: "ask" if t in asked else "default" for t in teams},
            "steps": steps}


def replay_from_save(path: str | Path) -> dict[str, Any]:
    """The replay document of a saved autopilot session."""
    d = read_save(path)
    sess = d.get("session")
    if not isinstance(sess, Mapping):
        raise SessionError("no session section", source=str(path), field="session", expected="an autopilot save")
    try:
        info = _SessionBlock.check(sess)
    except SessionError as e:
        raise e.at(str(path), "session")
    if info["start_dice"] is None:
        raise SessionError("the session's start is unknown", source=str(path), field="session.start_dice",
                           expected="a session started by tactica autopilot")
    asked = [t for t, r in info["teams"].items() if r.get("policy") is None]
    return replay_from_history(d["scenario"], info["seed"], info["start_dice"], info["history"], asked)


class _SessionBlock:
    """Validation of a save file's `session` section (clear errors for damaged files)."""

    @staticmethod
    def check(s: Any) -> dict[str, Any]:
        from pydantic import BaseModel, ConfigDict, ValidationError, model_validator

        class TeamRole(BaseModel):
            model_config = ConfigDict(extra="forbid")
            role: str
            policy: str | None = None

        class Step(BaseModel):
            """An action of a figure (actor, action) or a GM override (override)."""
            model_config = ConfigDict(extra="allow")
            actor: str | None = None
            action: dict[str, Any] | None = None
            override: dict[str, Any] | None = None
            dice: list[int]
            round: int | None = None
            turn: int | None = None

            @model_validator(mode="after")
            def _one(self) -> "Step":
                if (self.override is None) == (self.action is None or self.actor is None):
                    raise ValueError("a step is an actor's action or a GM override")
                return self

        class Undo(BaseModel):
            model_config = ConfigDict(extra="allow")
            state: dict[str, Any]
            events: int
            history: int

        class Block(BaseModel):
            model_config = ConfigDict(extra="allow")
            format: str
            format_version: int
            seed: int = 0
            dice_mode: str = "engine"
            dice_by: dict[str, str] = {}
            behaviour: dict[str, Any] = {}
            confirm: bool = True
            teams: dict[str, TeamRole] = {}
            start_dice: list[int] | None = None
            history: list[Step] = []
            undo: list[Undo] = []
            policy_states: dict[str, Any] = {}

        if not isinstance(s, Mapping) or s.get("format") != SESSION_FORMAT:
            raise SessionError("not an autopilot session", field="format", expected=f"'{SESSION_FORMAT}'")
        if s.get("format_version") != SESSION_VERSION:
            raise SessionError(f"format_version {s.get('format_version')!r}", field="format_version",
                               expected=str(SESSION_VERSION))
        try:
            b = Block.model_validate(dict(s))
        except ValidationError as e:
            er = e.errors()[0]
            loc = ".".join(str(p) for p in er.get("loc", ()))
            raise SessionError(f"damaged: {er.get('msg', 'invalid')}", field=loc or "(top)",
                               expected="a session written by tactica autopilot") from None
        for t, r in b.teams.items():
            if r.role not in ("npc", "pc"):
                raise SessionError(f"role {r.role!r}", field=f"teams.{t}.role", expected="npc or pc")
        if b.dice_mode not in ("engine", "manual"):
            raise SessionError(f"dice mode {b.dice_mode!r}", field="dice_mode", expected="engine or manual")
        for i, u in enumerate(b.undo):
            if u.history > len(b.history):
                raise SessionError("undo snapshot beyond the history", field=f"undo[{i}]", expected="a consistent save")
        for k, v in b.dice_by.items():
            if v not in ("engine", "manual"):
                raise SessionError(f"dice mode {v!r}", field=f"dice_by.{k}", expected="engine or manual")
        return {"seed": b.seed, "dice_mode": b.dice_mode, "dice_by": dict(b.dice_by), "confirm": b.confirm,
                "behaviour": dict(b.behaviour),
                "teams": {t: r.model_dump() for t, r in b.teams.items()},
                "start_dice": b.start_dice, "history": [{k: v for k, v in h.model_dump().items()
                             if v is not None or k not in ("actor", "action", "override")} for h in b.history],
                "undo": [u.model_dump() for u in b.undo], "policy_states": b.policy_states}


def default_save_path(scenario_name: str) -> Path:
    slug = re.sub(r"[^A-Za-z0-9]+", "-", scenario_name).strip("-") or "fight"
    stamp = _dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    return Path(f"autopilot-{slug}-{stamp}.json")




def write_save(session: Any, target: Path, path: str | Path | None) -> Path:
    """`Session.save`: write the session to `target`; an explicit `path` other than the
    session's own file must be new or a Tactica save (a foreign file is never overwritten)."""
    own = session.save_path
    if path is not None and (own is None or Path(path).resolve() != own.resolve()):
        if Path(path).is_file():   # a device or a pipe is written directly, never read first
            try:
                read_save(path)
            except SessionError:
                raise SessionError("exists and is not a Tactica save", source=str(path), field="save",
                                   expected="a new file name (a foreign file is never overwritten)") from None
    atomic_write(target, json.dumps(session.to_dict(), default=_json_default))
    return target


def write_replay(doc: Mapping[str, Any], path: str | Path) -> Path:
    """A replay document written to `path`, which must be new or a replay file already."""
    p = Path(path)
    if p.exists() and not p.is_char_device():   # a device is written directly, never read first
        try:
            old = load_text(read_text_file(p, limit=MAX_SAVE_BYTES), str(p), "yaml")
        except Exception:  # noqa: BLE001 - anything unreadable is not a replay file
            old = None
        if not (isinstance(old, dict) and "steps" in old and "scenario" in old):
            raise SessionError("exists and is not a replay file", source=str(p), field="export",
                               expected="a new file name (other files are never overwritten)")
    atomic_write(p, yaml.safe_dump(dict(doc), sort_keys=False, default_flow_style=None, width=120))
    return p
