"""The API app: error handlers, the token, CORS, and the fight routes over table sessions."""

from __future__ import annotations

import hmac
from pathlib import Path as FilePath
from typing import Any

from fastapi import Depends, FastAPI, Path, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from starlette.exceptions import HTTPException as StarletteHTTPException

from rules.errors import DiceError, IllegalActionError, TacticaError
from rules.limits import MAX_DEPTH, MAX_NUMBER
from rules.scenario import bundled_scenarios, resolve_scenario
from rules.uvtt import no_map_files
from tactica.server.fights import Store, acting_action, check_legal, probe, tactica_error
from tactica.server.guard import READ_METHODS, HostCheck, ReadOnly, allowed_hosts, allowed_methods
from tactica.server.models import (MAX_BODY, MAX_FIGHTS, SERVER_LOCK_WAIT_S, ActionOut, ApiError, ApplyAction, BodyLimit, CreateFight,
                                   ErrorOut, EventsOut, FightList, FightOut, FightState, LegalOut, OverrideBody, PlanOut,
                                   SuggestBody, validation_message)
from tactica.table import Session


def create_app(token: str | None = None, max_body: int = MAX_BODY, max_fights: int = MAX_FIGHTS,
               replay: Any = None, data: str | FilePath | None = None,
               cors_origins: list[str] | None = None, allowed_hosts: list[str] | None = None,
               read_only: bool = False, lock_wait_s: float = SERVER_LOCK_WAIT_S) -> FastAPI:
    """The API app; `token` set means every /fights request needs `Authorization: Bearer TOKEN`.
    `replay`: a recorded fight (`tactica.web.replay.Replay`) the page shows (`tactica view`).
    `data`: a folder where every fight is saved and from which saved fights are resumed
    (None: fights live in memory only). `cors_origins`: the web origins (e.g. a VTT module's)
    whose pages may call the API from a browser. `allowed_hosts`: the `Host` values answered
    (`guard.allowed_hosts`; None: any, as for an in-process test client). `read_only`: only
    GET, HEAD and OPTIONS (the replay of `tactica view`). `lock_wait_s`: how long a request
    waits for a fight another request holds before a 503."""
    app = FastAPI(title="Tactica NPC brain", version="2", docs_url=None, redoc_url=None,
                  description="Tabletop-RPG fights under real rules: create a fight, ask an NPC policy what "
                              "to do and why, apply actions with the engine's dice or given dice, read "
                              "state and events. See `tactica/server/`.")
    store = Store(max_fights, data, lock_wait_s)
    app.state.store = store
    app.state.replay = replay
    app.state.token = token
    bearer = HTTPBearer(auto_error=False, description="the token given to `tactica serve --token`")
    errors = {400: {"model": ErrorOut, "description": "a body that cannot be read (not UTF-8, bad Content-Length)"},
              401: {"model": ErrorOut}, 404: {"model": ErrorOut}, 413: {"model": ErrorOut},
              422: {"model": ErrorOut},
              503: {"model": ErrorOut, "description": "the fight is busy with another request: try again "
                                                      "after Retry-After seconds",
                    "headers": {"Retry-After": {"schema": {"type": "integer"}}}}}

    def check_token(given: str | None) -> None:
        if token is None:
            return
        if given is None or not hmac.compare_digest(given.encode("utf-8", "surrogateescape"), token.encode("utf-8")):
            raise ApiError(401, "missing or wrong bearer token", "Authorization")

    def auth(cred: HTTPAuthorizationCredentials | None = Depends(bearer)) -> None:
        if token is None:
            return
        check_token(cred.credentials if cred is not None and cred.scheme.lower() == "bearer" else None)

    app.state.check_token = check_token

    # -- error handlers: every error is JSON {"error", "field"}; state is never half-changed
    @app.exception_handler(ApiError)
    async def _api_error(request: Request, exc: ApiError):
        headers = {"WWW-Authenticate": "Bearer"} if exc.status == 401 else exc.headers
        return JSONResponse({"error": exc.message, "field": exc.field}, status_code=exc.status, headers=headers)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError):
        return JSONResponse(validation_message(exc.errors()), status_code=422)

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException):
        headers = dict(getattr(exc, "headers", None) or {})
        if exc.status_code == 400 and exc.__cause__ is not None:   # FastAPI could not read the body
            return JSONResponse({"error": body_error(exc.__cause__), "field": "body"}, status_code=400)
        if exc.status_code == 405:  # every method of the path, not only the first route's
            methods = allowed_methods(app, request.scope)
            headers["Allow"] = ", ".join(m for m in methods if not read_only or m in READ_METHODS)
        return JSONResponse({"error": str(exc.detail), "field": None}, status_code=exc.status_code,
                            headers=headers or None)

    @app.exception_handler(Exception)
    async def _internal(request: Request, exc: Exception):  # pragma: no cover - a bug, never bad input
        return JSONResponse({"error": f"internal error ({exc.__class__.__name__}); the fight is unchanged",
                             "field": None}, status_code=500)

    app.add_middleware(BodyLimit, max_body=max_body)
    if read_only:
        app.add_middleware(ReadOnly)
        _read_only_schema(app)
    if cors_origins:
        from starlette.middleware.cors import CORSMiddleware
        app.add_middleware(CORSMiddleware, allow_origins=list(cors_origins), allow_methods=["*"],
                           allow_headers=["Authorization", "Content-Type"])
    if allowed_hosts is not None:   # outermost: a foreign Host reaches nothing
        app.add_middleware(HostCheck, allowed=allowed_hosts)

    # -- routes --------------------------------------------------------------------------
    @app.get("/health", tags=["meta"])
    def health() -> dict[str, Any]:
        """Liveness: no token needed. `replay`: a recorded fight is loaded (`tactica view`);
        `skipped`: save files in the data folder that could not be resumed."""
        return {"ok": True, "fights": len(store.fights), "replay": app.state.replay is not None,
                "persistent": store.data is not None, "skipped": store.skipped}

    @app.get("/scenarios", tags=["meta"], dependencies=[Depends(auth)], responses=errors)
    def scenarios() -> dict[str, Any]:
        """The bundled scenario names a fight can be created from."""
        return {"scenarios": bundled_scenarios()}

    @app.get("/policies", tags=["meta"], dependencies=[Depends(auth)], responses=errors)
    def policies() -> dict[str, Any]:
        """The NPC policies a team can be given (an exported .npz file's path works too), with
        the first line of each one's description; the default (`default`: suggestions and a
        ruleset not listed) and an NPC team's default per ruleset (`defaults`: `best`, the
        ruleset's strongest player, where it decides fast enough, else tactical)."""
        from agents.base import DEFAULT_POLICY, available_policies, default_policy, policy_summary
        from agents.best import BEST

        return {"policies": [{"name": n, "description": policy_summary(n)} for n in available_policies()],
                "default": DEFAULT_POLICY, "defaults": {r: default_policy(r) for r in sorted(BEST)}}

    @app.post("/fights", status_code=201, response_model=FightOut, tags=["fights"],
              dependencies=[Depends(auth)], responses=errors | {429: {"model": ErrorOut}})
    def create_fight(body: CreateFight) -> dict[str, Any]:
        """Create a fight from a scenario (a bundled name or a document) and a seed, or from a
        state file or an autopilot save (its history and undo come with it)."""
        try:
            return new_fight(body)
        finally:
            store.release_maps()   # a refused document may have built a map no fight uses

    def new_fight(body: CreateFight) -> dict[str, Any]:
        if body.text is not None:
            from rules.scenario import parse_text
            try:
                doc = parse_text(body.text, "text")
            except TacticaError as e:
                raise tactica_error(e) from None
            if not isinstance(doc, dict):
                raise ApiError(422, "text: not a mapping (expected an encounter or a save)", "text")
            is_state = doc.get("format") == "tactica-state"
            body = body.model_copy(update={"text": None, "state" if is_state else "scenario": doc})
        if body.state is None and isinstance(body.scenario, str):   # a bundled scenario may name its map file
            return _new_fight(body)
        with no_map_files():   # a document sent here may not make the server read its disks
            return _new_fight(body)

    def _new_fight(body: CreateFight) -> dict[str, Any]:
        try:
            if body.state is not None:
                try:
                    sess = Session.from_dict(body.state, "state", ask_all=True)
                except TacticaError:
                    raise
                except Exception as e:  # noqa: BLE001 - a damaged state is bad input
                    raise ApiError(422, f"state: damaged ({e.__class__.__name__})", "state") from None
            else:
                if isinstance(body.scenario, str):
                    if body.scenario not in bundled_scenarios():
                        raise ApiError(422, f"no bundled scenario {body.scenario!r} (expected one of "
                                            f"{', '.join(bundled_scenarios())}, or a scenario document)", "scenario")
                    doc, _ = resolve_scenario(body.scenario)
                else:
                    doc = dict(body.scenario)   # rules/scenario.py checks its size, figures and names
                sess = Session.new(doc, seed=body.seed, ask_all=True)
        except TacticaError as e:
            raise tactica_error(e) from None
        f = store.add(sess)
        f.untrusted = body.state is not None
        try:
            with f.hold():
                if not sess.started:
                    sess.begin()
                if f.untrusted:
                    probe(f)
                sess.save()
                return {"id": f.id, "summary": f.summary()}
        except BaseException:
            store.delete(f.id)   # a fight that could not start is not kept
            raise

    @app.get("/fights", response_model=FightList, tags=["fights"], dependencies=[Depends(auth)], responses=errors)
    def list_fights() -> dict[str, Any]:
        with store.lock:
            fs = list(store.fights.values())
        return {"fights": [{"id": f.id, "scenario": f.battle.state.scenario, "round": f.battle.state.round,
                            "over": f.battle.state.over, "created": f.session.created} for f in fs]}

    FightId = Path(..., min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_-]+$")

    @app.get("/fights/{fid}", response_model=FightState, tags=["fights"], dependencies=[Depends(auth)],
             responses=errors)
    def get_fight(fid: str = FightId) -> dict[str, Any]:
        """The fight in the state file format (`rules/serialize.py`) with its table `session`
        (history, undo, roles), as the autopilot saves it, and a summary."""
        f = store.get(fid)
        with f.hold():
            return {"id": f.id, "summary": f.summary(), "state": f.session.to_dict()}

    @app.get("/fights/{fid}/legal", response_model=LegalOut, tags=["fights"], dependencies=[Depends(auth)],
             responses=errors)
    def legal(fid: str = FightId, notes: bool = Query(False, description="add `label`: the action in words, "
                                                                      "with the odds of attacks")) -> dict[str, Any]:
        """The acting figure's legal actions (each with the autopilot command that selects it);
        each can be posted back to /actions as it is."""
        from tactica.table import action_json, command_for, describe_action

        f = store.get(fid)
        with f.hold():
            s = f.battle.state
            acts = f.battle.legal_actions()
            return {"actor": s.actor.id if s.actor is not None and not s.over else None,
                    "actions": [action_json(s, a) | {"command": command_for(s, a)}
                                | ({"label": describe_action(s, a)} if notes else {}) for a in acts]}

    @app.post("/fights/{fid}/suggest", response_model=PlanOut, tags=["fights"], dependencies=[Depends(auth)],
              responses=errors)
    def suggest(body: SuggestBody, fid: str = FightId) -> dict[str, Any]:
        """What a policy would do for the acting figure (or `actor`), why, and the next
        alternatives. No `policy`: the team's policy from /settings (tactical for a PC team)."""
        from agents.base import DEFAULT_POLICY, check_policy
        from tactica.table import suggest as plan_for

        if body.policy is not None:
            try:
                check_policy(body.policy, "policy")
            except TacticaError as e:
                raise tactica_error(e) from None
        f = store.get(fid)
        with f.hold():
            s = f.battle.state
            policy = body.policy
            if policy is None:
                who = s.by_id.get(body.actor) if body.actor else s.actor
                role = f.session.roles.get(who.team) if who is not None else None
                policy = (role.policy if role is not None else None) or DEFAULT_POLICY
            seed = body.seed if body.seed is not None else (f.seed * 7919 + next(f.suggestions)) % (2**63)
            try:
                plan = plan_for(s, body.actor, policy, seed, body.alternatives)
                return plan.to_json(s)
            except TacticaError as e:
                raise tactica_error(e, 409 if isinstance(e, IllegalActionError) else 422) from None

    @app.post("/fights/{fid}/actions", response_model=ActionOut, tags=["fights"], dependencies=[Depends(auth)],
              responses=errors | {409: {"model": ErrorOut}})
    def apply_action(body: ApplyAction, fid: str = FightId) -> dict[str, Any]:
        """Resolve one action of the acting figure, with the engine's dice or the given ones."""
        f = store.get(fid)
        with f.hold():
            sess = f.session
            action = acting_action(sess.battle, body.actor, body.action)
            check_legal(sess.battle, action, fid)
            n0 = len(sess.battle.events)
            if body.dice is not None and body.hand_dice is not None:
                raise ApiError(422, "give dice (every die) or hand_dice (the GM's rolls), not both", "dice")
            try:
                if body.hand_dice is not None:
                    from tactica.table.dice import feeder
                    sess.resolve(action, feeder(body.hand_dice))
                else:
                    sess.resolve(action, dice=body.dice)
            except DiceError as e:
                if body.dice is not None or body.hand_dice is not None:
                    raise ApiError(422, f"dice: {e.detail}" + (f" (expected {e.expected})" if e.expected else ""),
                                   "dice") from None
                raise tactica_error(e) from None
            except TacticaError as e:
                raise tactica_error(e) from None
            return {"events": sess.battle.events[n0:], "first_event": n0, "summary": f.summary()}

    @app.post("/fights/{fid}/overrides", response_model=ActionOut, tags=["fights"], dependencies=[Depends(auth)],
              responses=errors | {409: {"model": ErrorOut}})
    def apply_override(body: OverrideBody, fid: str = FightId) -> dict[str, Any]:
        """The GM overrules the engine: set a figure's track (`track`, `value`), add or remove a
        condition (`condition`, `on`), put a figure on any free `cell`, `add` a figure from a
        `template` to a `team` or `remove` one, set the round's `order`, or `end` the fight
        (`winner`, `reason`). Logged as an `override` event, undoable (/undo), saved."""
        f = store.get(fid)
        with f.hold():
            sess = f.session
            n0 = len(sess.battle.events)
            try:
                sess.override(body.model_dump())
            except TacticaError as e:
                raise tactica_error(e, 409 if e.detail in ("the fight is over", "the fight has not started") else 422) from None
            return {"events": sess.battle.events[n0:], "first_event": n0, "summary": f.summary()}

    @app.get("/fights/{fid}/events", response_model=EventsOut, tags=["fights"], dependencies=[Depends(auth)],
             responses=errors)
    def events(fid: str = FightId, since: int = Query(0, ge=0, le=10**9),
               limit: int = Query(1000, ge=1, le=10000)) -> dict[str, Any]:
        """Events from index `since` on (at most `limit`)."""
        f = store.get(fid)
        with f.hold():
            evs = f.battle.events
            out = evs[since:since + limit]
            return {"events": out, "since": since, "next": min(len(evs), since + len(out)), "total": len(evs)}

    @app.delete("/fights/{fid}", tags=["fights"], dependencies=[Depends(auth)], responses=errors)
    def delete_fight(fid: str = FightId) -> dict[str, Any]:
        """Forget the fight (and delete its save file in the data folder)."""
        store.delete(fid)
        return {"deleted": fid}

    from tactica.server.page import page_routes
    page_routes(app, store, auth, errors, FightId)
    return app


def body_error(cause: BaseException) -> str:
    """Why a request body could not be read, in one line (FastAPI says only that it could not)."""
    if isinstance(cause, RecursionError):
        why = f"nested too deeply to read (a document nests at most {MAX_DEPTH} levels)"
    elif isinstance(cause, UnicodeDecodeError):
        why = "not UTF-8 text"
    elif isinstance(cause, ValueError) and "digits" in str(cause):
        why = f"a number too long to read (at most {len(str(MAX_NUMBER))} digits)"
    else:
        why = f"{cause.__class__.__name__}"
    return f"body: cannot be read as JSON: {why}"


def serve(host: str = "127.0.0.1", port: int = 8765, token: str | None = None, max_body: int = MAX_BODY,
          log_level: str = "info", replay: Any = None, data: str | FilePath | None = None,
          cors_origins: list[str] | None = None, allow_hosts: list[str] | None = None) -> None:
    """Run the API (or, with `replay`, the read-only replay of `tactica view`) on host:port;
    only requests naming this server in `Host` are answered (`guard.allowed_hosts`)."""
    import uvicorn

    app = create_app(token, max_body, replay=replay, data=data, cors_origins=cors_origins,
                     allowed_hosts=allowed_hosts(host, port, allow_hosts or ()), read_only=replay is not None)
    uvicorn.run(app, host=host, port=port, log_level=log_level)


def _read_only_schema(app: FastAPI) -> None:
    """The read-only server's OpenAPI description lists only the methods it answers (the
    routes that write answer 405 there)."""
    from fastapi.openapi.utils import get_openapi

    def schema() -> dict[str, Any]:
        if app.openapi_schema is None:
            doc = get_openapi(title=app.title, version=app.version, description=app.description, routes=app.routes)
            doc["paths"] = {p: kept for p, ops in doc.get("paths", {}).items()
                            if (kept := {m: op for m, op in ops.items() if m.upper() in READ_METHODS})}
            app.openapi_schema = doc
        return app.openapi_schema

    app.openapi = schema
