"""What the battle-map page needs beyond the fight API: the page and its files, the view,
overlays, undo, manual dice, settings, push updates, replays, and offline API docs."""

from __future__ import annotations

import asyncio
import html
import json
import threading
from typing import Any

from fastapi import Depends, FastAPI, Query, Request
from fastapi.responses import FileResponse, HTMLResponse, Response, StreamingResponse

from rules.errors import TacticaError
from tactica.server.fights import Store, acting_action, cell_query, check_legal, tactica_error
from tactica.server.models import (RETRY_AFTER_S, ApiError, DiceBody, DiceOut, ErrorOut, OverlaysOut, SettingsBody, SettingsOut,
                                   UndoOut, ViewOut)

_ASSET_TYPES = {".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8",
                ".css": "text/css; charset=utf-8", ".png": "image/png", ".svg": "image/svg+xml"}
_NO_CACHE = {"Cache-Control": "no-cache"}
#: how often a push stream looks for news (seconds), and how long it lives before the
#: browser reconnects (EventSource does so by itself)
STREAM_POLL = 0.25
STREAM_LIFE = 300.0


def _coord(what: str):
    """A map coordinate query parameter (one `Query` object per parameter: FastAPI names it)."""
    return Query(None, ge=0, le=10_000, description=what)


def page_routes(app: FastAPI, store: Store, auth, errors: dict, FightId) -> None:
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

    @app.get("/docs", include_in_schema=False)
    def docs():
        """The API reference, made from the OpenAPI description on this server (no CDN)."""
        return HTMLResponse(api_reference(app.openapi()))

    def view_of(f, since: int) -> dict[str, Any]:
        from rules.events import narrate

        b = f.battle
        s = b.state
        evs = b.events
        m = map_json(s.grid)
        if "image" in m:
            m["image"]["url"] = f"/fights/{f.id}/map-image"
        names = {c.id: c.name for c in s.combatants}   # the log names figures as the board and the plans do
        question = None
        if s.pending is not None:   # the rules' open question, told with what its action did so far
            q = s.pending.question
            question = {"figure": q.figure, "key": q.key, "options": list(q.options), "default": q.default,
                        "text": narrate(q.as_event(), names),
                        "told": [narrate(e, names) for e in b.before_question()]}
        return {"id": f.id, "map": m, "board": board_json(s, b.ruleset), "summary": f.summary(), "question": question,
                "log": [{"i": i, "text": narrate(e, names), "event": e} for i, e in enumerate(evs[since:], since)],
                "since": min(since, len(evs)), "total": len(evs), "undo": f.undo_depth(),
                "undo_last": f.undo_last(), "settings": f.settings, "decision": b.actions_resolved}

    @app.get("/fights/{fid}/view", response_model=ViewOut, tags=["page"], dependencies=[Depends(auth)],
             responses=errors)
    def view(fid: str = FightId, since: int = Query(0, ge=0, le=10**9)) -> dict[str, Any]:
        """Everything the battle map draws: map, figures, turn order, the narrated log from `since`."""
        f = store.get(fid)
        with f.hold():
            return view_of(f, since)

    @app.get("/fights/{fid}/map-image", tags=["page"], dependencies=[Depends(auth)], responses=errors,
             response_class=Response)
    def map_image(fid: str = FightId) -> Response:
        """The picture of the fight's map (a Universal VTT map's `image`), drawn under the grid;
        404 when the map has none."""
        f = store.get(fid)
        with f.hold():
            b = f.battle.state.grid.backdrop
        if b is None:
            raise ApiError(404, "this fight's map has no picture", "map")
        return Response(content=b.data, media_type=b.mime, headers={"Cache-Control": "private, max-age=3600"})

    @app.get("/fights/{fid}/stream", tags=["page"], responses=errors)
    async def stream(request: Request, fid: str = FightId, since: int = Query(0, ge=0, le=10**9),
                     token: str | None = Query(None, max_length=500,
                                               description="the bearer token (EventSource cannot send headers)")):
        """Server-sent events: a `view` message (as GET view, from `since`) whenever the fight
        changes (an action, an undo, a setting), so a page or a VTT module need not poll."""
        auth_header = request.headers.get("authorization", "")
        given = auth_header[7:] if auth_header.lower().startswith("bearer ") else token
        app.state.check_token(given)
        f = store.get(fid)

        async def gen():
            seen: int | None = None
            nxt = since
            waited = 0.0
            while waited < STREAM_LIFE:
                if await request.is_disconnected() or store.fights.get(fid) is not f:
                    break
                msg = None
                if f.lock.acquire(blocking=False):   # never block the event loop: busy now, look again soon
                    try:
                        key = f.session.revision   # moves on with every change: an action, an undo, a setting
                        msg = view_of(f, nxt) if key != seen else None
                    finally:
                        f.lock.release()
                if msg is not None:
                    seen = key
                    nxt = msg["total"]
                    yield f"event: view\ndata: {json.dumps(msg)}\n\n"
                await asyncio.sleep(STREAM_POLL)
                waited += STREAM_POLL

        return StreamingResponse(gen(), media_type="text/event-stream", headers=_NO_CACHE)

    @app.get("/fights/{fid}/overlays", response_model=OverlaysOut, tags=["page"], dependencies=[Depends(auth)],
             responses=errors)
    def fight_overlays(fid: str = FightId, x: int | None = _coord("column of the hovered cell"),
                       y: int | None = _coord("row of the hovered cell"),
                       to_x: int | None = _coord("column of a move's goal"),
                       to_y: int | None = _coord("row of a move's goal")) -> dict[str, Any]:
        """Reach, line of sight and threat of the acting figure; cover from cell (x, y) against each
        enemy; a path to (to_x, to_y). Threat: how many standing enemies see each cell."""
        f = store.get(fid)
        with f.hold():
            b = f.battle
            s = b.state
            cell, goal = cell_query(s, x, y, "x"), cell_query(s, to_x, to_y, "to_x")
            return overlays(s, b.ruleset, b.legal_actions(), cell, goal)

    @app.post("/fights/{fid}/undo", response_model=UndoOut, tags=["page"], dependencies=[Depends(auth)],
              responses=errors | {409: {"model": ErrorOut}})
    def undo(fid: str = FightId) -> dict[str, Any]:
        """Take back the last resolved action (the table session's undo: up to 30 of them)."""
        f = store.get(fid)
        with f.hold():
            if not f.undo_depth():
                raise ApiError(409, "nothing to undo", "undo")
            entry = f.session.undo()
            if entry is None:  # pragma: no cover - undo_depth said there was one
                raise ApiError(409, "nothing to undo", "undo")
            return {"undone": f.entry_words(entry), "undo": f.undo_depth(), "summary": f.summary()}

    @app.post("/fights/{fid}/dice", response_model=DiceOut, tags=["page"], dependencies=[Depends(auth)],
              responses=errors | {409: {"model": ErrorOut}})
    def next_die(body: DiceBody, fid: str = FightId) -> dict[str, Any]:
        """Manual dice: the next roll `action` needs after the faces given (who rolls what against
        what, and its dice), or null when they are all the action rolls."""
        from tactica.table.dice import next_roll

        f = store.get(fid)
        with f.hold():
            b = f.battle
            action = acting_action(b, body.actor, body.action)
            check_legal(b, action, fid)
            owners = f.session.dice if f.session.dice.any_manual() else None   # None: every roll by hand
            try:
                out = next_roll(b, action, body.dice, owners)
            except TacticaError as e:
                raise ApiError(422, f"dice: {e.detail}" + (f" (expected {e.expected})" if e.expected else ""),
                               "dice") from None
            if body.roll and out["request"] is not None:
                # the engine's seeded dice, as `r` at the terminal's dice prompt: drawn from the
                # fight's own generator (saved with it), so the same seed rolls the same faces
                out["rolled"] = f.session.engine_faces(out["request"]["sides"])
            return out

    @app.put("/fights/{fid}/settings", response_model=SettingsOut, tags=["page"], dependencies=[Depends(auth)],
             responses=errors)
    def settings(body: SettingsBody, fid: str = FightId) -> dict[str, Any]:
        """The dice mode (engine or manual) and who plays each team (pc: the GM; npc: a policy
        plans). Checked whole before anything changes."""
        from agents.base import check_policy, default_policy
        from tactica.table.roles import team_settings

        f = store.get(fid)
        with f.hold():
            sess = f.session
            teams = list(sess.state.teams)
            roles = dict(team_settings((body.teams or {}).items(), teams))   # "*": every team, as `--npc '*=...'`
            for team, r in roles.items():
                if team not in teams:
                    raise ApiError(422, f"no team {team!r} (expected one of {', '.join(teams)}, or * for every team)",
                                   f"teams.{team}")
                policy = r.policy or (default_policy(sess.state.ruleset) if r.role == "npc" else None)
                if policy is not None:
                    try:
                        check_policy(policy, f"teams.{team}.policy")
                    except TacticaError as e:
                        raise tactica_error(e) from None
            book = None
            try:
                if body.behaviour is not None:
                    book = sess.check_behaviour(body.behaviour)
                if body.dice is not None:
                    from tactica.table.dice import DiceOwners
                    DiceOwners.parse([f"{k}={v}" for k, v in body.dice.items()], sess.state, field_name="dice")
            except TacticaError as e:
                raise tactica_error(e) from None
            try:
                for team, r in roles.items():
                    sess.set_role(team, r.role, r.policy)
                if body.dice_mode is not None:
                    sess.set_dice_mode(body.dice_mode)
                if body.dice is not None:
                    sess.set_dice([f"{k}={v}" for k, v in body.dice.items()], replace=True)
                if body.behaviour is not None:   # {} or all defaults: back to the policies' own play
                    sess.set_behaviour(book)
            except TacticaError as e:  # pragma: no cover - checked above
                raise tactica_error(e) from None
            return f.settings

    replay_lock = threading.Lock()

    class replay_held:
        """The replay, for one request: following a long log takes a while; others wait at most
        the fight lock's wait, then get a 503 (as for a busy fight)."""

        def __enter__(self):
            if not replay_lock.acquire(timeout=store.lock_wait_s):
                raise ApiError(503, "the replay is busy with another request; try again shortly", "replay",
                               headers={"Retry-After": str(RETRY_AFTER_S)})

        def __exit__(self, *exc):
            replay_lock.release()

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
        with replay_held():
            try:
                return rp.to_json(rp.fights[0] if fight is None else fight)
            except TacticaError as e:
                raise tactica_error(e) from None

    @app.get("/replay/overlays", response_model=OverlaysOut, tags=["page"], dependencies=[Depends(auth)],
             responses=errors)
    def replay_overlays(fight: int | None = Query(None, ge=0, le=10**9), frame: int = Query(0, ge=0, le=10**9),
                        x: int | None = _coord("column of the hovered cell"),
                        y: int | None = _coord("row of the hovered cell"),
                        to_x: int | None = _coord("column of a move's goal"),
                        to_y: int | None = _coord("row of a move's goal")) -> dict[str, Any]:
        """The overlays of one replay frame (as for a live fight)."""
        rp = the_replay()
        with replay_held():
            try:
                i = rp.fights[0] if fight is None else fight
                s = rp.frame_state(i, frame)
                rs = rp.followed(i).ruleset_obj
            except TacticaError as e:
                raise tactica_error(e) from None
            legal = rs.legal_actions(s) if s.actor is not None and not s.over else []
            return overlays(s, rs, legal, cell_query(s, x, y, "x"), cell_query(s, to_x, to_y, "to_x"))


def api_reference(spec: dict[str, Any]) -> str:
    """A self-contained HTML page listing every route of an OpenAPI description: method, path,
    summary, parameters and request body (what Swagger UI shows, without loading it from a CDN)."""
    e = html.escape
    rows = []
    for path, ops in sorted(spec.get("paths", {}).items()):
        for method, op in ops.items():
            params = ", ".join(f"{p['name']} ({p.get('in')})" for p in op.get("parameters", []))
            body = op.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema", {})
            ref = body.get("$ref", "").rsplit("/", 1)[-1]
            rows.append(f"<tr><td><code>{e(method.upper())}</code></td><td><code>{e(path)}</code></td>"
                        f"<td>{e(op.get('summary', ''))}<br><small>{e(op.get('description', '') or '')}</small></td>"
                        f"<td>{e(params)}</td><td>{e(ref)}</td></tr>")
    schemas = []
    for name, sch in sorted(spec.get("components", {}).get("schemas", {}).items()):
        fields = "".join(f"<li><code>{e(k)}</code>: {e(v.get('description', '') or v.get('type', '') or '')}</li>"
                         for k, v in sch.get("properties", {}).items())
        schemas.append(f"<h3 id='{e(name)}'>{e(name)}</h3><ul>{fields}</ul>")
    info = spec.get("info", {})
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>{e(info.get('title', 'API'))}</title>"
            "<style>body{font-family:sans-serif;margin:2em}td{border-top:1px solid #ccc;padding:4px;"
            "vertical-align:top}</style></head><body>"
            f"<h1>{e(info.get('title', 'API'))} <small>v{e(str(info.get('version', '')))}</small></h1>"
            f"<p>{e(info.get('description', ''))}</p><p>Machine-readable: <a href='/openapi.json'>/openapi.json</a>"
            "</p><table><tr><th>method</th><th>path</th><th>what</th><th>parameters</th><th>body</th></tr>"
            + "".join(rows) + "</table><h2>Bodies</h2>" + "".join(schemas) + "</body></html>")
