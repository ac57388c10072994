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

Bodies are validated (422 with a message); a bearer token is checked when one is set (401);
bodies over the size limit get 413. An action is resolved on a copy of the fight, which
replaces it only when everything went well, so a bad action, bad dice or an internal error
leave the fight as it was. Each fight has its own lock; the rules engine's shared caches are
guarded by one engine lock, so several fights can be played at once from many threads.

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
from fastapi.responses import JSONResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from pydantic import BaseModel, ConfigDict, Field, field_validator
from starlette.exceptions import HTTPException as StarletteHTTPException

from rules.actions import KINDS, Action
from rules.battle import Battle
from rules.dice import Dice
from rules.errors import DiceError, IllegalActionError, TacticaError
from rules.replay import state_summary
from rules.scenario import bundled_scenarios, load_scenario, new_battle, resolve_scenario
from rules.serialize import battle_from_dict, battle_to_dict

MAX_BODY = 1_000_000
MAX_FIGHTS = 64
MAX_MAP = 100          # cells per side of an inline scenario's map
MAX_FIGURES = 60

#: one lock for the rules engine: rulesets are shared instances with caches
ENGINE_LOCK = threading.RLock()

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


# -- fights -------------------------------------------------------------------------------
class Fight:
    def __init__(self, fid: str, battle: Battle, doc: dict[str, Any], seed: int) -> None:
        self.id = fid
        self.battle = battle
        self.doc = doc
        self.seed = seed
        self.lock = threading.Lock()
        self.created = time.time()
        self.suggestions = itertools.count()

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


def _copy_battle(b: Battle) -> Battle:
    d = Dice(0)
    d.set_state(b.dice.get_state())
    nb = Battle(b.state.clone(), b.ruleset, d, record=True)
    nb.events = list(b.events)
    nb.actions_resolved = b.actions_resolved
    nb._decisions = b._decisions
    return nb


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
def create_app(token: str | None = None, max_body: int = MAX_BODY, max_fights: int = MAX_FIGHTS) -> FastAPI:
    """The API app; `token` set means every /fights request needs `Authorization: Bearer TOKEN`."""
    app = FastAPI(title="Tactica NPC brain", version="1",
                  description="Tabletop-RPG fights under real rules: create a fight, ask an NPC policy what "
                              "to do and why, apply actions with the engine's dice or given dice, read "
                              "state and events. See `tactica/server.py`.")
    store = Store(max_fights)
    app.state.store = store
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
        """Liveness: no token needed."""
        return {"ok": True, "fights": len(store.fights)}

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
                    with ENGINE_LOCK:
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
                with ENGINE_LOCK:
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
    def legal(fid: str = FightId) -> dict[str, Any]:
        """The acting figure's legal actions (each with the autopilot command that selects it)."""
        from tactica.autopilot import action_json, command_for

        f = store.get(fid)
        with f.lock, ENGINE_LOCK:
            s = f.battle.state
            acts = f.battle.legal_actions()
            return {"actor": s.actor.id if s.actor is not None and not s.over else None,
                    "actions": [action_json(s, a) | {"command": command_for(s, a)} for a in acts]}

    @app.post("/fights/{fid}/suggest", response_model=PlanOut, tags=["fights"], dependencies=[Depends(auth)],
              responses=errors)
    def suggest(body: SuggestBody, fid: str = FightId) -> dict[str, Any]:
        """What a policy would do for the acting figure (or `actor`), why, and the next alternatives."""
        from agents.base import available_policies
        from tactica.autopilot import suggest as plan_for

        if body.policy not in available_policies():
            raise ApiError(422, f"unknown policy {body.policy!r} (expected one of {', '.join(available_policies())})",
                           "policy")
        f = store.get(fid)
        with f.lock:
            seed = body.seed if body.seed is not None else (f.seed * 7919 + next(f.suggestions)) % (2**63)
            try:
                with ENGINE_LOCK:
                    plan = plan_for(f.battle.state, body.actor, body.policy, seed, body.alternatives)
                    return plan.to_json(f.battle.state)
            except TacticaError as e:
                raise _tactica_error(e, 409 if isinstance(e, IllegalActionError) else 422) from None

    @app.post("/fights/{fid}/actions", response_model=ActionOut, tags=["fights"], dependencies=[Depends(auth)],
              responses=errors | {409: {"model": ErrorOut}})
    def apply_action(body: ApplyAction, fid: str = FightId) -> dict[str, Any]:
        """Resolve one action of the acting figure, with the engine's dice or the given ones."""
        f = store.get(fid)
        with f.lock:
            b = f.battle
            s = b.state
            if s.over:
                raise ApiError(409, "the fight is over", "action")
            if body.actor is not None and body.actor != s.actor.id:
                raise ApiError(409, f"it is {s.actor.id}'s turn, not {body.actor!r}'s", "actor")
            try:
                action = Action.from_dict(body.action.model_dump(exclude_none=True), s.grid.width, field="action")
            except TacticaError as e:
                raise _tactica_error(e) from None
            if action.cell is not None and not 0 <= action.cell < s.grid.n:
                raise ApiError(422, f"cell {body.action.cell} is off the map", "action.cell")
            with ENGINE_LOCK:
                legal = b.legal_actions()
                if action not in legal:
                    raise ApiError(422, f"{action} is not legal for {s.actor.id} now (GET /fights/{fid}/legal)",
                                   "action")
                nb = _copy_battle(b)
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

    return app


def serve(host: str = "127.0.0.1", port: int = 8765, token: str | None = None, max_body: int = MAX_BODY,
          log_level: str = "info") -> None:
    import uvicorn

    uvicorn.run(create_app(token, max_body), host=host, port=port, log_level=log_level)
