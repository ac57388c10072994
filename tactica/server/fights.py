"""The fights the API holds: each one a table `Session` (tactica/table/), the very session the
terminal drives, kept on disk as the autopilot keeps it when the server has a data folder.

A fight's file is `DATA/<id>.json`, an autopilot save (format `tactica-state` with a
`session` section), written atomically after every action, override and setting. At start
the server resumes every save in its folder; a file it cannot read is left where it is and
reported by `GET /health` (never deleted, never overwritten).
"""

from __future__ import annotations

import itertools
import re
import secrets
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator, Mapping

from rules.actions import Action
from rules.battle import Battle
from rules.errors import TacticaError
from rules.replay import state_summary
from rules.state import BattleState
from tactica.server.models import RETRY_AFTER_S, SERVER_LOCK_WAIT_S, ActionBody, ApiError
from tactica.table import Session, describe_action

FIGHT_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


class Fight:
    """One fight of the API: a table session, a lock, and a counter for suggestion seeds."""

    def __init__(self, fid: str, session: Session, lock_wait_s: float = SERVER_LOCK_WAIT_S) -> None:
        self.id = fid
        self.session = session
        self.lock = threading.Lock()
        self.lock_wait_s = lock_wait_s
        self.created = time.time()
        self.suggestions = itertools.count()
        #: made from an uploaded state: an engine failure on it is the state's fault (422), not a bug
        self.untrusted = False

    @contextmanager
    def hold(self) -> Iterator["Fight"]:
        """The fight, for one request: waits at most `lock_wait_s` while another request on
        this fight runs, then a 503 with Retry-After (a slow request never piles up others).
        On a fight made from an uploaded state, an unexpected engine failure is a 422 that
        names the state (the session restores its snapshot, so the fight is unchanged)."""
        if not self.lock.acquire(timeout=self.lock_wait_s):
            raise ApiError(503, f"fight {self.id} is busy with another request; try again shortly", "id",
                           headers={"Retry-After": str(RETRY_AFTER_S)})
        try:
            yield self
        except (ApiError, TacticaError):
            raise
        except Exception as e:  # noqa: BLE001 - see the docstring
            if not self.untrusted:
                raise
            raise ApiError(422, f"state: damaged: the engine cannot use this fight's state ({e.__class__.__name__} "
                                f"{str(e)[:80]!r}); the fight is unchanged", "state") from None
        finally:
            self.lock.release()

    @property
    def battle(self) -> Battle:
        return self.session.battle

    @property
    def seed(self) -> int:
        return self.session.seed

    @property
    def settings(self) -> dict[str, Any]:
        s = self.session
        return {"dice_mode": s.dice_mode, "teams": {t: self._team(t, r) for t, r in s.roles.items()},
                "dice": dict(s.dice.by), "behaviour": s.behaviour_json()}

    def _team(self, team: str, role: Any) -> dict[str, Any]:
        """A team's role and policy; for a team `best` plays, `plays_as` (the player it is in this fight) and, where
        that is not its ruleset's table entry, `why` (agents/best.py `playing`)."""
        from agents.best import playing

        out = role.to_json()
        got = playing(self.session.policies.get(team), self.battle.state) if role.policy == "best" else None
        if got is not None:
            out["plays_as"] = got[0]
            if got[1]:
                out["why"] = got[1]
        return out

    def undo_depth(self) -> int:
        s = self.session
        return min(len(s.undo_stack), len(s.history))

    def entry_words(self, h: Mapping[str, Any], s: BattleState | None = None) -> str:
        """'Mal: attack Jubal with pistol': a history entry in words (on state `s`)."""
        s = s or self.battle.state
        if h.get("override") is not None:
            from tactica.table.overrule import entry_words
            return entry_words(h, s)
        who = s.by_id[h["actor"]].name if h.get("actor") in s.by_id else str(h.get("actor"))
        try:
            a = Action.from_dict(h["action"], s.grid.width)
            return f"{who}: {describe_action(s, a, with_odds=False)}"
        except (TacticaError, KeyError, TypeError, ValueError):
            return f"{who}: {h.get('action', {}).get('type', '?')}"

    def undo_last(self) -> str | None:
        s = self.session
        return self.entry_words(s.history[-1]) if self.undo_depth() else None

    def summary(self) -> dict[str, Any]:
        b = self.battle
        d = state_summary(b.state)
        d["scenario"] = b.state.scenario
        d["ruleset"] = b.state.ruleset
        d["events"] = len(b.events)
        d["actions_resolved"] = b.actions_resolved
        d["order"] = list(b.state.order)
        d["end_reason"] = b.state.end_reason
        p = b.state.pending
        if p is not None:
            # the rules' open question, and what its action has told so far (the roll, the hit, the
            # damage): the log gets those events only once the question is answered
            d["question"] = p.question.to_dict() | {"told": b.before_question()}
        return d


class Store:
    """The fights held, at most `max_fights`; saved in `data` when it is given."""

    def __init__(self, max_fights: int, data: str | Path | None = None,
                 lock_wait_s: float = SERVER_LOCK_WAIT_S) -> None:
        self.fights: dict[str, Fight] = {}
        self.lock = threading.Lock()
        self.max = max_fights
        self.lock_wait_s = lock_wait_s
        self.data = Path(data) if data is not None else None
        #: save files found in `data` that could not be resumed: {"file", "error"}
        self.skipped: list[dict[str, str]] = []
        if self.data is not None:
            self.data.mkdir(parents=True, exist_ok=True)
            self._load()

    def _load(self) -> None:
        assert self.data is not None
        for p in sorted(self.data.glob("*.json"), key=lambda q: q.stat().st_mtime):
            if not FIGHT_ID.match(p.stem) or len(self.fights) >= self.max:
                self.skipped.append({"file": p.name, "error": "not a fight file name, or over the fight limit"})
                continue
            try:
                sess = Session.resume(p, ask_all=True)
            except TacticaError as e:
                self.skipped.append({"file": p.name, "error": e.line()})
                continue
            except Exception as e:  # noqa: BLE001 - a damaged file is reported, never fatal
                self.skipped.append({"file": p.name, "error": f"damaged ({e.__class__.__name__})"})
                continue
            self.fights[p.stem] = Fight(p.stem, sess, self.lock_wait_s)

    def add(self, session: Session) -> Fight:
        with self.lock:
            if len(self.fights) >= self.max:
                raise ApiError(429, f"{len(self.fights)} fights are held; delete one first (DELETE /fights/ID)")
            fid = secrets.token_hex(8)
            if self.data is not None:
                session.save_path = self.data / f"{fid}.json"
            f = Fight(fid, session, self.lock_wait_s)
            self.fights[fid] = f
        return f

    def get(self, fid: str) -> Fight:
        with self.lock:
            f = self.fights.get(fid)
        if f is None:
            raise ApiError(404, f"no fight {fid!r}", "id")
        return f

    def delete(self, fid: str) -> None:
        with self.lock:
            f = self.fights.pop(fid, None)
            if f is None:
                raise ApiError(404, f"no fight {fid!r}", "id")
        p = f.session.save_path
        if p is not None and self.data is not None and p.parent == self.data:
            p.unlink(missing_ok=True)
        self.release_maps()

    def release_maps(self) -> None:
        """Forget the cached maps no held fight uses (tactica/server/maps.py)."""
        from tactica.server.maps import release_unused_maps

        with self.lock:
            sessions = [f.session for f in self.fights.values()]
        release_unused_maps(sessions)


def probe(f: Fight) -> None:
    """Read a fight made from an uploaded state as the routes will (summary, board, legal
    actions, overlays, a suggestion), so that a state the engine cannot use is refused when it
    is posted rather than failing on every later read. Call it holding the fight."""
    from agents.base import DEFAULT_POLICY
    from tactica.table import suggest
    from tactica.web.board import board_json, overlays

    b = f.battle
    s = b.state
    try:
        f.summary()
        f.undo_last()
        board_json(s, b.ruleset)
        legal = b.legal_actions()
        overlays(s, b.ruleset, legal, None, None)
        if not s.over and s.actor is not None:
            suggest(s, None, DEFAULT_POLICY, 0, 0)
    except TacticaError as e:
        raise tactica_error(e) from None


def tactica_error(e: TacticaError, status: int = 422) -> ApiError:
    return ApiError(status, e.line(), e.field)


def parse_action(s: BattleState, body: ActionBody) -> Action:
    """The action of a request body, with its cell on the map."""
    g = s.grid
    try:
        action = Action.from_dict(body.model_dump(exclude_none=True, exclude={"at", "command", "label"}),
                                  g.width, field="action", height=g.height)
    except TacticaError as e:
        raise tactica_error(e) from None
    if action.cell is not None and not 0 <= action.cell < g.n:
        raise ApiError(422, f"cell {body.cell} is off the {g.width}x{g.height} map (expected a cell number "
                            f"0 to {g.n - 1}, or [x, y] with 0 <= x < {g.width}, 0 <= y < {g.height})", "action.cell")
    return action


def acting_action(b: Battle, actor: str | None, body_action: Any) -> Action:
    """The action asked of the acting figure: 409 when the fight is over or another figure acts."""
    s = b.state
    if s.over:
        raise ApiError(409, "the fight is over", "action")
    if actor is not None and actor != s.actor.id:
        raise ApiError(409, f"it is {s.actor.id}'s turn, not {actor!r}'s", "actor")
    return parse_action(s, body_action)


#: the field of an action that `why_illegal`'s words are about
_WHY_FIELDS = ((r"^there is no figure| can make no \w+ action at ", "action.target"),
               (r" has no weapon | cannot \w+ with ", "action.weapon"), (r"^no \w+ to \[", "action.cell"),
               (r"^option |^an option ", "action.option"))


def check_legal(b: Battle, action: Action, fid: str) -> None:
    """422 for an action the rules do not allow now, saying what keeps it out (no such figure, no such
    weapon, no such cell ...: rules/replay.py `why_illegal`) and in which field."""
    from rules.replay import why_illegal

    legal = b.legal_actions()
    if action in legal:
        return
    me = b.state.actor.id
    why = why_illegal(b.state, legal, action)
    field = next((f for pat, f in _WHY_FIELDS if re.search(pat, why)), "action")
    raise ApiError(422, f"{action} is not legal for {me} now: {why} (GET /fights/{fid}/legal)", field)


def cell_query(s: BattleState, x: int | None, y: int | None, name: str) -> int | None:
    """A map cell from two query parameters (both or neither)."""
    if x is None and y is None:
        return None
    if x is None or y is None:
        raise ApiError(422, f"give both coordinates of the {name} cell", name)
    if not s.grid.in_bounds(x, y):
        raise ApiError(422, f"cell [{x}, {y}] is off the {s.grid.width}x{s.grid.height} map", name)
    return s.grid.index(x, y)
