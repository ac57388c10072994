"""The NPC brain as an HTTP JSON API (FastAPI): `tactica serve`.

Endpoints (OpenAPI description at `/openapi.json`, interactive docs at `/docs`):

    GET    /health                       liveness (no token needed)
    POST   /fights                       create a fight: {"scenario": NAME or {...}, "seed": 0}
                                         or {"state": {...a Tactica state file...}} -> {"id", "summary"}
    GET    /fights                       the fights held
    GET    /fights/{id}                  {"id", "summary", "state"}: state in the state file format
    GET    /fights/{id}/legal            the acting figure's legal actions
    POST   /fights/{id}/suggest          {"policy": "tactical"} -> the plan, its reason, alternatives
    POST   /fights/{id}/actions          {"action": {"type": "attack", ...}, "dice": [5, 3, ...]}
    GET    /fights/{id}/events?since=N   events from index N on
    DELETE /fights/{id}                  forget the fight

For the battle-map page (`tactica/web/`):

    GET    /                             the page (no token needed; it sends the token it is given)
    GET    /web/{file}                   its scripts and styles (no token needed)
    GET    /fights/{id}/view?since=N     map, figures, turn order, narrated log from N, settings, undo depth
    GET    /fights/{id}/overlays?x=&y=   reach, line of sight and threat of the acting figure; with a
                                         cell (x, y): its cover against each enemy; with to_x, to_y: a path
    POST   /fights/{id}/undo             back one resolved action (the fight keeps an undo history)
    POST   /fights/{id}/dice             {"action", "dice": [...]} -> the next roll the action needs
                                         (who rolls what against what), or null when the dice are enough
    PUT    /fights/{id}/settings         {"dice_mode": "engine"|"manual", "teams": {TEAM: {"role", "policy"}}}
    GET    /replay?fight=N               a recorded fight, frame by frame (`tactica view LOG`)
    GET    /replay/overlays?frame=K      the overlays of a replay frame

Bodies are validated (422 with a message); a bearer token is checked when one is set (401);
bodies over the size limit get 413. An action is resolved on a copy of the fight, which
replaces it only when everything went well, so a bad action, bad dice or an internal error
leave the fight as it was. Each fight has its own lock. The rules engine needs none: a
map's tables give the same answer whoever fills them first, and a ruleset's per-call memos
are per thread (issue 30), so several fights are played at once from many threads.

Given dice (`"dice"` in POST actions) must be exactly the dice the action rolls, in order
(as in replay files): a face a die cannot show, too few or too many are a 422.
"""

from __future__ import annotations

import hmac
import itertools
import secrets
import threading
import time
from typing import Any, Literal

from fastapi import Depends, FastAPI, Path, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from pydantic import BaseModel, ConfigDict, Field, field_validator
from starlette.exceptions import HTTPException as StarletteHTTPException

from rules.actions import KINDS, Action
from rules.battle import Battle
from rules.choices import ASK
from rules.dice import Dice
from rules.errors import DiceError, IllegalActionError, TacticaError
from rules.replay import state_summary
from rules.scenario import bundled_scenarios, load_scenario, new_battle, resolve_scenario
from rules.serialize import battle_from_dict, battle_to_dict
from rules.state import BattleState

MAX_BODY = 1_000_000
MAX_FIGHTS = 64
MAX_MAP = 100          # cells per side of an inline scenario's map
MAX_FIGURES = 60
UNDO_KEEP = 50         # resolved actions a fight can take back (each keeps a copy of the fight)

ActionType = Literal[tuple(KINDS)]  # type: ignore[valid-type]


class ApiError(Exception):
    def __init__(self, status: int, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.field = field


# -- request bodies ----------------------------------------------------------------------
class CreateFight(BaseModel):
    """A new fight from a bundled scenario name or an inline scenario, or a saved state."""

    model_config = ConfigDict(extra="forbid")
    scenario: str | dict[str, Any] | None = Field(
        None, description="a bundled scenario name (see GET /scenarios) or a whole scenario document")
    state: dict[str, Any] | None = Field(None, description="a Tactica state file (format tactica-state) to continue")
    seed: int = Field(0, ge=0, le=2**63 - 1, description="seed of the fight's dice")


class ActionBody(BaseModel):
    """One action in the shared vocabulary (`rules/actions.py`)."""

    model_config = ConfigDict(extra="forbid")
    type: ActionType
    target: str | None = Field(None, max_length=200)
    cell: list[int] | int | None = Field(None, description="a map cell as [x, y] (or its flat index)")
    weapon: str | None = Field(None, max_length=200)
    option: str | None = Field(None, max_length=200)

    @field_validator("cell")
    @classmethod
    def _cell(cls, v: Any) -> Any:
        if isinstance(v, list) and len(v) != 2:
            raise ValueError("a cell is [x, y]")
        return v


class ApplyAction(BaseModel):
    model_config = ConfigDict(extra="forbid")
    action: ActionBody
    actor: str | None = Field(None, max_length=200, description="if given, must be the acting figure")
    dice: list[int] | None = Field(None, max_length=1000,
                                   description="every die the action rolls, in order (omit: the engine rolls)")


class SuggestBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    policy: str = Field("tactical", min_length=1, max_length=100)
    actor: str | None = Field(None, max_length=200, description="default: the acting figure")
    alternatives: int = Field(4, ge=0, le=20)
    seed: int | None = Field(None, ge=0, le=2**63 - 1)


class DiceBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    action: ActionBody
    actor: str | None = Field(None, max_length=200, description="if given, must be the acting figure")
    dice: list[int] = Field(default_factory=list, max_length=1000,
                            description="the faces entered so far, in order")


class TeamRole(BaseModel):
    model_config = ConfigDict(extra="forbid")
    role: Literal["pc", "npc"]
    policy: str | None = Field(None, min_length=1, max_length=100,
                               description="the policy that plans for the team (NPCs; default tactical)")


class SettingsBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    dice_mode: Literal["engine", "manual"] | None = Field(None, description="manual: the GM enters every die")
    teams: dict[str, TeamRole] | None = Field(None, description="who plays each team: pc (the GM) or npc")


# -- responses (documented shapes) ---------------------------------------------------------
class ErrorOut(BaseModel):
    error: str
    field: str | None = None


class FightOut(BaseModel):
    id: str
    summary: dict[str, Any]


class FightState(FightOut):
    state: dict[str, Any]


class FightList(BaseModel):
    fights: list[dict[str, Any]]


class LegalOut(BaseModel):
    actor: str | None
    actions: list[dict[str, Any]]


class PlanOut(BaseModel):
    actor: str
    policy: str
    action: dict[str, Any]
    command: str
    reason: str
    alternatives: list[dict[str, Any]]
    hypothetical: bool = False


class ActionOut(BaseModel):
    events: list[dict[str, Any]]
    first_event: int
    summary: dict[str, Any]


class EventsOut(BaseModel):
    events: list[dict[str, Any]]
    since: int
    next: int
    total: int


class ViewOut(BaseModel):
    id: str
    map: dict[str, Any]
    board: dict[str, Any]
    summary: dict[str, Any]
    log: list[dict[str, Any]]
    since: int
    total: int
    undo: int
    undo_last: str | None = None
    settings: dict[str, Any]
    decision: int


class OverlaysOut(BaseModel):
    actor: str | None
    width: int
    height: int
    reach: list[list[int]]
    los: list[int] | None
    threat: list[int] | None
    threat_max: int
    cover: list[dict[str, Any]] | None
    cell: list[int] | None
    path: list[list[int]] | None


class UndoOut(BaseModel):
    undone: str
    undo: int
    summary: dict[str, Any]


class DiceOut(BaseModel):
    request: dict[str, Any] | None
    given: int


class SettingsOut(BaseModel):
    dice_mode: str
    teams: dict[str, dict[str, Any]]


# -- fights -------------------------------------------------------------------------------
class Fight:
    def __init__(self, fid: str, battle: Battle, doc: dict[str, Any], seed: int) -> None:
        self.id = fid
        self.battle = battle
        # the API's client answers every figure's choices (rules/choices.py) as a step
        battle.deciders = {t: ASK for t in battle.state.teams}
        self.doc = doc
        self.seed = seed
        self.lock = threading.Lock()
        self.created = time.time()
        self.suggestions = itertools.count()
        #: (the fight before, what was done) for each action that can be taken back, oldest first
        self.undo: list[tuple[Battle, str]] = []
        pcs = battle.state.settings.get("pc_teams", [])
        self.settings: dict[str, Any] = {
            "dice_mode": "engine",
            "teams": {t: {"role": "pc", "policy": None} if t in pcs else {"role": "npc", "policy": "tactical"}
                      for t in battle.state.teams}}

    def summary(self) -> dict[str, Any]:
        b = self.battle
        d = state_summary(b.state)
        d["scenario"] = b.state.scenario
        d["ruleset"] = b.state.ruleset
        d["events"] = len(b.events)
        d["actions_resolved"] = b.actions_resolved
        d["order"] = list(b.state.order)
        d["end_reason"] = b.state.end_reason
        return d


class Store:
    def __init__(self, max_fights: int) -> None:
        self.fights: dict[str, Fight] = {}
        self.lock = threading.Lock()
        self.max = max_fights

    def add(self, battle: Battle, doc: dict[str, Any], seed: int) -> Fight:
        with self.lock:
            if len(self.fights) >= self.max:
                raise ApiError(429, f"{len(self.fights)} fights are held; delete one first (DELETE /fights/ID)")
            fid = secrets.token_hex(8)
            f = Fight(fid, battle, doc, seed)
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
            if self.fights.pop(fid, None) is None:
                raise ApiError(404, f"no fight {fid!r}", "id")


def _check_inline(doc: dict[str, Any]) -> None:
    m = doc.get("map")
    rows = m.get("rows") if isinstance(m, dict) else None
    if isinstance(rows, list) and (len(rows) > MAX_MAP or any(isinstance(r, str) and len(r) > MAX_MAP for r in rows)):
        raise ApiError(422, f"the map is larger than {MAX_MAP}x{MAX_MAP}", "scenario.map.rows")
    teams = doc.get("teams")
    if isinstance(teams, list):
        n = sum(len(t.get("combatants") or []) for t in teams if isinstance(t, dict)
                and isinstance(t.get("combatants"), list))
        if n > MAX_FIGURES:
            raise ApiError(422, f"{n} figures (at most {MAX_FIGURES})", "scenario.teams")


_TYPE_TAGS = {"str", "int", "float", "bool", "list", "dict", "none", "function-after", "literal"}


def validation_message(errs: list[dict[str, Any]]) -> dict[str, Any]:
    """One readable message for pydantic errors: 'action.type: Input should be ...'."""
    def base(loc) -> str:
        parts = [str(p) for p in loc if p != "body"]
        parts = [p for p in parts if p.split("[")[0] not in _TYPE_TAGS and "[" not in p]
        return ".".join(parts) or "body"

    if not errs:
        return {"error": "invalid request", "field": None}
    first = errs[0]
    if first.get("type") == "json_invalid":
        return {"error": f"body: not valid JSON ({first.get('ctx', {}).get('error', 'decode error')})",
                "field": "body"}
    field = base(first.get("loc", ()))
    msgs = list(dict.fromkeys(str(e.get("msg", "")) for e in errs if base(e.get("loc", ())) == field))
    return {"error": f"{field}: {' or '.join(msgs)}", "field": field,
            "detail": [{"loc": [str(p) for p in e.get("loc", ())], "msg": str(e.get("msg", ""))} for e in errs[:20]]}


def _tactica_error(e: TacticaError, status: int = 422) -> ApiError:
    return ApiError(status, e.line(), e.field)


def _parse_action(s: BattleState, body: ActionBody) -> Action:
    """The action of a request body, with its cell on the map."""
    try:
        action = Action.from_dict(body.model_dump(exclude_none=True), s.grid.width, field="action")
    except TacticaError as e:
        raise _tactica_error(e) from None
    if action.cell is not None and not 0 <= action.cell < s.grid.n:
        raise ApiError(422, f"cell {body.cell} is off the map", "action.cell")
    return action


def _acting_action(b: Battle, actor: str | None, body_action: Any) -> Action:
    """The action asked of the acting figure: 409 when the fight is over or another figure acts."""
    s = b.state
    if s.over:
        raise ApiError(409, "the fight is over", "action")
    if actor is not None and actor != s.actor.id:
        raise ApiError(409, f"it is {s.actor.id}'s turn, not {actor!r}'s", "actor")
    return _parse_action(s, body_action)


def _check_legal(b: Battle, action: Action, fid: str) -> None:
    if action not in b.legal_actions():
        raise ApiError(422, f"{action} is not legal for {b.state.actor.id} now (GET /fights/{fid}/legal)", "action")


def _cell_query(s: BattleState, x: int | None, y: int | None, name: str) -> int | None:
    """A map cell from two query parameters (both or neither)."""
    if x is None and y is None:
        return None
    if x is None or y is None:
        raise ApiError(422, f"give both coordinates of the {name} cell", name)
    if not s.grid.in_bounds(x, y):
        raise ApiError(422, f"cell [{x}, {y}] is off the {s.grid.width}x{s.grid.height} map", name)
    return s.grid.index(x, y)


def _next_roll(b: Battle, action: Action, dice: list[int]) -> dict[str, Any]:
    """The roll `action` needs after the faces `dice` (checked die by die), or null (DiceOut)."""
    from tactica.table import next_dice_request

    def run(nb: Battle) -> None:
        nb.step(action, check=False)

    prefix: list[int] = []
    rest = list(dice)
    while True:
        try:
            req = next_dice_request(b, run, prefix)
        except TacticaError as e:
            raise _tactica_error(e) from None
        if req is None:
            if rest:
                raise ApiError(422, f"dice: {len(rest)} more than the action rolls", "dice")
            return {"request": None, "given": len(prefix)}
        if not rest:
            return {"request": {"roller": req.roller, "purpose": req.purpose, "pool": req.pool, "sides": req.sides,
                                "against": req.against, "text": req.text()}, "given": len(prefix)}
        group = rest[:len(req.sides)]
        for j, (v, n) in enumerate(zip(group, req.sides)):
            if not 1 <= v <= n:
                raise ApiError(422, f"dice[{len(prefix) + j}]: a d{n} cannot show {v} (expected 1..{n})", "dice")
        if len(group) < len(req.sides):
            raise ApiError(422, f"dice: the next roll ({req.purpose}) needs {len(req.sides)} dice "
                                f"({' '.join(f'd{n}' for n in req.sides)}), got {len(group)}", "dice")
        prefix += group
        rest = rest[len(group):]


# -- body size limit ------------------------------------------------------------------------
class BodyTooLarge(StarletteHTTPException):
    def __init__(self, max_body: int) -> None:
        super().__init__(413, f"request body over {max_body} bytes")


class BodyLimit:
    """Pure ASGI middleware: 413 for a body over `max_body` bytes (Content-Length or streamed)."""

    def __init__(self, app, max_body: int = MAX_BODY) -> None:
        self.app = app
        self.max_body = max_body

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        length = dict(scope.get("headers") or []).get(b"content-length")
        if length is not None:
            try:
                n = int(length)
            except ValueError:
                n = -1
            if n < 0:
                return await JSONResponse({"error": "bad Content-Length", "field": "Content-Length"},
                                          status_code=400)(scope, receive, send)
            if n > self.max_body:
                return await JSONResponse({"error": f"request body over {self.max_body} bytes", "field": "body"},
                                          status_code=413)(scope, receive, send)
        seen = 0
        limit = self.max_body

        async def counting():
            nonlocal seen
            msg = await receive()
            if msg["type"] == "http.request":
                seen += len(msg.get("body", b""))
                if seen > limit:
                    raise BodyTooLarge(limit)
            return msg

        await self.app(scope, counting, send)


# -- the app ------------------------------------------------------------------------------
def create_app(token: str | None = None, max_body: int = MAX_BODY, max_fights: int = MAX_FIGHTS,
               replay: Any = None) -> FastAPI:
    """The API app; `token` set means every /fights request needs `Authorization: Bearer TOKEN`.
    `replay`: a recorded fight (`tactica.web.replay.Replay`) the page shows (`tactica view`)."""
    app = FastAPI(title="Tactica NPC brain", version="1",
                  description="Tabletop-RPG fights under real rules: create a fight, ask an NPC policy what "
                              "to do and why, apply actions with the engine's dice or given dice, read "
                              "state and events. See `tactica/server.py`.")
    store = Store(max_fights)
    app.state.store = store
    app.state.replay = replay
    bearer = HTTPBearer(auto_error=False, description="the token given to `tactica serve --token`")
    errors = {401: {"model": ErrorOut}, 404: {"model": ErrorOut}, 413: {"model": ErrorOut},
              422: {"model": ErrorOut}}

    def auth(cred: HTTPAuthorizationCredentials | None = Depends(bearer)) -> None:
        if token is None:
            return
        if cred is None or cred.scheme.lower() != "bearer" or not hmac.compare_digest(
                cred.credentials.encode("utf-8", "surrogateescape"), token.encode("utf-8")):
            raise ApiError(401, "missing or wrong bearer token", "Authorization")

    # -- error handlers: every error is JSON {"error", "field"}; state is never half-changed
    @app.exception_handler(ApiError)
    async def _api_error(request: Request, exc: ApiError):
        headers = {"WWW-Authenticate": "Bearer"} if exc.status == 401 else None
        return JSONResponse({"error": exc.message, "field": exc.field}, status_code=exc.status, headers=headers)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError):
        return JSONResponse(validation_message(exc.errors()), status_code=422)

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException):
        return JSONResponse({"error": str(exc.detail), "field": None}, status_code=exc.status_code,
                            headers=getattr(exc, "headers", None))

    @app.exception_handler(Exception)
    async def _internal(request: Request, exc: Exception):  # pragma: no cover - a bug, never bad input
        return JSONResponse({"error": f"internal error ({exc.__class__.__name__}); the fight is unchanged",
                             "field": None}, status_code=500)

    app.add_middleware(BodyLimit, max_body=max_body)

    # -- routes --------------------------------------------------------------------------
    @app.get("/health", tags=["meta"])
    def health() -> dict[str, Any]:
        """Liveness: no token needed. `replay`: a recorded fight is loaded (`tactica view`)."""
        return {"ok": True, "fights": len(store.fights), "replay": app.state.replay is not None}

    @app.get("/scenarios", tags=["meta"], dependencies=[Depends(auth)], responses=errors)
    def scenarios() -> dict[str, Any]:
        """The bundled scenario names a fight can be created from."""
        return {"scenarios": bundled_scenarios()}

    @app.post("/fights", status_code=201, response_model=FightOut, tags=["fights"],
              dependencies=[Depends(auth)], responses=errors | {429: {"model": ErrorOut}})
    def create_fight(body: CreateFight) -> dict[str, Any]:
        """Create a fight from a scenario (a bundled name or a document) and a seed, or from a state file."""
        if (body.scenario is None) == (body.state is None):
            raise ApiError(422, "give exactly one of scenario or state", "scenario")
        try:
            if body.state is not None:
                try:
                    b = battle_from_dict(body.state, source="state")
                except TacticaError:
                    raise
                except Exception as e:  # noqa: BLE001 - a damaged state is bad input
                    raise ApiError(422, f"state: damaged ({e.__class__.__name__})", "state") from None
                doc = dict(body.state["scenario"])
                seed = body.seed
            else:
                if isinstance(body.scenario, str):
                    if body.scenario not in bundled_scenarios():
                        raise ApiError(422, f"no bundled scenario {body.scenario!r} (expected one of "
                                            f"{', '.join(bundled_scenarios())}, or a scenario document)", "scenario")
                    doc, src = resolve_scenario(body.scenario)
                else:
                    doc, src = dict(body.scenario), "scenario"
                    _check_inline(doc)
                spec, _ = load_scenario(doc)
                b = new_battle(spec, Dice(body.seed), src)
                b.start()
                seed = body.seed
        except TacticaError as e:
            raise _tactica_error(e) from None
        f = store.add(b, dict(doc), seed)
        return {"id": f.id, "summary": f.summary()}

    @app.get("/fights", response_model=FightList, tags=["fights"], dependencies=[Depends(auth)], responses=errors)
    def list_fights() -> dict[str, Any]:
        with store.lock:
            fs = list(store.fights.values())
        return {"fights": [{"id": f.id, "scenario": f.battle.state.scenario, "round": f.battle.state.round,
                            "over": f.battle.state.over} for f in fs]}

    FightId = Path(..., min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_-]+$")

    @app.get("/fights/{fid}", response_model=FightState, tags=["fights"], dependencies=[Depends(auth)],
             responses=errors)
    def get_fight(fid: str = FightId) -> dict[str, Any]:
        """The fight in the state file format (`rules/serialize.py`) and a summary."""
        f = store.get(fid)
        with f.lock:
            return {"id": f.id, "summary": f.summary(), "state": battle_to_dict(f.battle, f.doc)}

    @app.get("/fights/{fid}/legal", response_model=LegalOut, tags=["fights"], dependencies=[Depends(auth)],
             responses=errors)
    def legal(fid: str = FightId, notes: bool = Query(False, description="add `label`: the action in words, "
                                                                      "with the odds of attacks")) -> dict[str, Any]:
        """The acting figure's legal actions (each with the autopilot command that selects it)."""
        from tactica.table import action_json, command_for, describe_action

        f = store.get(fid)
        with f.lock:
            s = f.battle.state
            acts = f.battle.legal_actions()
            return {"actor": s.actor.id if s.actor is not None and not s.over else None,
                    "actions": [action_json(s, a) | {"command": command_for(s, a)}
                                | ({"label": describe_action(s, a)} if notes else {}) for a in acts]}

    @app.post("/fights/{fid}/suggest", response_model=PlanOut, tags=["fights"], dependencies=[Depends(auth)],
              responses=errors)
    def suggest(body: SuggestBody, fid: str = FightId) -> dict[str, Any]:
        """What a policy would do for the acting figure (or `actor`), why, and the next alternatives."""
        from agents.base import available_policies
        from tactica.table import suggest as plan_for

        if body.policy not in available_policies():
            raise ApiError(422, f"unknown policy {body.policy!r} (expected one of {', '.join(available_policies())})",
                           "policy")
        f = store.get(fid)
        with f.lock:
            seed = body.seed if body.seed is not None else (f.seed * 7919 + next(f.suggestions)) % (2**63)
            try:
                plan = plan_for(f.battle.state, body.actor, body.policy, seed, body.alternatives)
                return plan.to_json(f.battle.state)
            except TacticaError as e:
                raise _tactica_error(e, 409 if isinstance(e, IllegalActionError) else 422) from None

    @app.post("/fights/{fid}/actions", response_model=ActionOut, tags=["fights"], dependencies=[Depends(auth)],
              responses=errors | {409: {"model": ErrorOut}})
    def apply_action(body: ApplyAction, fid: str = FightId) -> dict[str, Any]:
        """Resolve one action of the acting figure, with the engine's dice or the given ones."""
        from tactica.table import describe_action

        f = store.get(fid)
        with f.lock:
            b = f.battle
            s = b.state
            action = _acting_action(b, body.actor, body.action)
            _check_legal(b, action, fid)
            nb = b.clone()
            n0 = len(nb.events)
            try:
                if body.dice is not None:
                    nb.dice.force(body.dice, strict=True)
                nb.step(action, check=False)
                if body.dice is not None and nb.dice.forced_left:
                    raise DiceError(f"{nb.dice.forced_left} of the given dice were not used", field="dice",
                                    expected="exactly the dice this action rolls")
            except DiceError as e:
                if body.dice is not None:
                    raise ApiError(422, f"dice: {e.detail}" + (f" (expected {e.expected})" if e.expected else ""),
                                   "dice") from None
                raise _tactica_error(e) from None
            except TacticaError as e:
                raise _tactica_error(e) from None
            nb.dice.clear_forced()
            done = f"{s.actor.name}: {describe_action(s, action, with_odds=False)}"
            f.undo.append((b, done))
            del f.undo[:-UNDO_KEEP]
            f.battle = nb
            return {"events": nb.events[n0:], "first_event": n0, "summary": f.summary()}

    @app.get("/fights/{fid}/events", response_model=EventsOut, tags=["fights"], dependencies=[Depends(auth)],
             responses=errors)
    def events(fid: str = FightId, since: int = Query(0, ge=0, le=10**9),
               limit: int = Query(1000, ge=1, le=10000)) -> dict[str, Any]:
        """Events from index `since` on (at most `limit`)."""
        f = store.get(fid)
        with f.lock:
            evs = f.battle.events
            out = evs[since:since + limit]
            return {"events": out, "since": since, "next": min(len(evs), since + len(out)), "total": len(evs)}

    @app.delete("/fights/{fid}", tags=["fights"], dependencies=[Depends(auth)], responses=errors)
    def delete_fight(fid: str = FightId) -> dict[str, Any]:
        store.delete(fid)
        return {"deleted": fid}

    _page_routes(app, store, auth, errors, FightId)
    return app


# -- the battle-map page ---------------------------------------------------------------------
_ASSET_TYPES = {".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8",
                ".css": "text/css; charset=utf-8", ".png": "image/png", ".svg": "image/svg+xml"}
_NO_CACHE = {"Cache-Control": "no-cache"}


def _coord(what: str):
    """A map coordinate query parameter (one `Query` object per parameter: FastAPI names it)."""
    return Query(None, ge=0, le=10_000, description=what)


def _page_routes(app: FastAPI, store: Store, auth, errors: dict, FightId) -> None:
    """The page, its files, and the endpoints it needs beyond the fight API."""
    from tactica.web import STATIC_DIR
    from tactica.web.board import board_json, map_json, overlays

    assets = {p.name: p for p in STATIC_DIR.iterdir()
              if p.is_file() and p.suffix in _ASSET_TYPES} if STATIC_DIR.is_dir() else {}

    @app.get("/", include_in_schema=False)
    def page():
        index = assets.get("index.html")
        if index is None:  # pragma: no cover - an install without the package data
            raise ApiError(404, "the battle-map page is not installed (tactica/web/static)")
        return HTMLResponse(index.read_text(encoding="utf-8"), headers=_NO_CACHE)

    @app.get("/web/{name}", include_in_schema=False)
    def asset(name: str):
        p = assets.get(name)
        if p is None:
            raise ApiError(404, f"no page file {name!r}", "name")
        return FileResponse(p, media_type=_ASSET_TYPES[p.suffix], headers=_NO_CACHE)

    @app.get("/fights/{fid}/view", response_model=ViewOut, tags=["page"], dependencies=[Depends(auth)],
             responses=errors)
    def view(fid: str = FightId, since: int = Query(0, ge=0, le=10**9)) -> dict[str, Any]:
        """Everything the battle map draws: map, figures, turn order, the narrated log from `since`."""
        from rules.events import narrate

        f = store.get(fid)
        with f.lock:
            b = f.battle
            s = b.state
            evs = b.events
            return {"id": f.id, "map": map_json(s.grid), "board": board_json(s, b.ruleset), "summary": f.summary(),
                    "log": [{"i": i, "text": narrate(e), "event": e} for i, e in enumerate(evs[since:], since)],
                    "since": min(since, len(evs)), "total": len(evs), "undo": len(f.undo),
                    "undo_last": f.undo[-1][1] if f.undo else None, "settings": f.settings,
                    "decision": b.actions_resolved}

    @app.get("/fights/{fid}/overlays", response_model=OverlaysOut, tags=["page"], dependencies=[Depends(auth)],
             responses=errors)
    def fight_overlays(fid: str = FightId, x: int | None = _coord("column of the hovered cell"),
                       y: int | None = _coord("row of the hovered cell"),
                       to_x: int | None = _coord("column of a move's goal"),
                       to_y: int | None = _coord("row of a move's goal")) -> dict[str, Any]:
        """Reach, line of sight and threat of the acting figure; cover from cell (x, y) against each
        enemy; a path to (to_x, to_y). Threat: how many standing enemies see each cell."""
        f = store.get(fid)
        with f.lock:
            b = f.battle
            s = b.state
            cell, goal = _cell_query(s, x, y, "x"), _cell_query(s, to_x, to_y, "to_x")
            return overlays(s, b.ruleset, b.legal_actions(), cell, goal)

    @app.post("/fights/{fid}/undo", response_model=UndoOut, tags=["page"], dependencies=[Depends(auth)],
              responses=errors | {409: {"model": ErrorOut}})
    def undo(fid: str = FightId) -> dict[str, Any]:
        """Take back the last resolved action (up to UNDO_KEEP = 50 of them)."""
        f = store.get(fid)
        with f.lock:
            if not f.undo:
                raise ApiError(409, "nothing to undo", "undo")
            f.battle, done = f.undo.pop()
            return {"undone": done, "undo": len(f.undo), "summary": f.summary()}

    @app.post("/fights/{fid}/dice", response_model=DiceOut, tags=["page"], dependencies=[Depends(auth)],
              responses=errors | {409: {"model": ErrorOut}})
    def next_die(body: DiceBody, fid: str = FightId) -> dict[str, Any]:
        """Manual dice: the next roll `action` needs after the faces given (who rolls what against
        what, and its dice), or null when they are all the action rolls."""
        f = store.get(fid)
        with f.lock:
            b = f.battle
            action = _acting_action(b, body.actor, body.action)
            _check_legal(b, action, fid)
            return _next_roll(b, action, body.dice)

    @app.put("/fights/{fid}/settings", response_model=SettingsOut, tags=["page"], dependencies=[Depends(auth)],
             responses=errors)
    def settings(body: SettingsBody, fid: str = FightId) -> dict[str, Any]:
        """The dice mode (engine or manual) and who plays each team (pc: the GM; npc: a policy plans)."""
        from agents.base import available_policies

        f = store.get(fid)
        with f.lock:
            new = {"dice_mode": f.settings["dice_mode"], "teams": {t: dict(r) for t, r in f.settings["teams"].items()}}
            if body.dice_mode is not None:
                new["dice_mode"] = body.dice_mode
            for team, r in (body.teams or {}).items():
                if team not in new["teams"]:
                    raise ApiError(422, f"no team {team!r} (expected one of {', '.join(new['teams'])})",
                                   f"teams.{team}")
                policy = r.policy or ("tactical" if r.role == "npc" else None)
                if policy is not None and policy not in available_policies():
                    raise ApiError(422, f"unknown policy {policy!r} (expected one of "
                                        f"{', '.join(available_policies())})", f"teams.{team}.policy")
                new["teams"][team] = {"role": r.role, "policy": policy}
            f.settings = new
            return new

    replay_lock = threading.Lock()

    def the_replay():
        rp = getattr(app.state, "replay", None)
        if rp is None:
            raise ApiError(404, "no recorded fight is loaded (open one with: tactica view LOG_FILE)", "replay")
        return rp

    @app.get("/replay", tags=["page"], dependencies=[Depends(auth)], responses=errors)
    def replay(fight: int | None = Query(None, ge=0, le=10**9)) -> dict[str, Any]:
        """The recorded fight of `tactica view`, frame by frame: each frame's board, its events and
        what was done; the whole narrated log."""
        rp = the_replay()
        with replay_lock:
            try:
                return rp.to_json(rp.fights[0] if fight is None else fight)
            except TacticaError as e:
                raise _tactica_error(e) from None

    @app.get("/replay/overlays", response_model=OverlaysOut, tags=["page"], dependencies=[Depends(auth)],
             responses=errors)
    def replay_overlays(fight: int | None = Query(None, ge=0, le=10**9), frame: int = Query(0, ge=0, le=10**9),
                        x: int | None = _coord("column of the hovered cell"),
                        y: int | None = _coord("row of the hovered cell"),
                        to_x: int | None = _coord("column of a move's goal"),
                        to_y: int | None = _coord("row of a move's goal")) -> dict[str, Any]:
        """The overlays of one replay frame (as for a live fight)."""
        rp = the_replay()
        with replay_lock:
            try:
                i = rp.fights[0] if fight is None else fight
                s = rp.frame_state(i, frame)
                rs = rp.followed(i).ruleset_obj
            except TacticaError as e:
                raise _tactica_error(e) from None
            legal = rs.legal_actions(s) if s.actor is not None and not s.over else []
            return overlays(s, rs, legal, _cell_query(s, x, y, "x"), _cell_query(s, to_x, to_y, "to_x"))


def serve(host: str = "127.0.0.1", port: int = 8765, token: str | None = None, max_body: int = MAX_BODY,
          log_level: str = "info", replay: Any = None) -> None:
    import uvicorn

    uvicorn.run(create_app(token, max_body, replay=replay), host=host, port=port, log_level=log_level)
