"""The API's request and response bodies (pydantic), its limits and its error shapes."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator
from pydantic.json_schema import SkipJsonSchema
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import JSONResponse

from rules.actions import KINDS
from rules.limits import MAX_FIGHTS, MAX_FIGURES, MAX_SAVE_BYTES, MAX_MAP_CELLS, MAX_MAP_SIDE, MAX_SEED

__all__ = ["MAX_BODY", "MAX_FIGHTS", "MAX_FIGURES", "MAX_MAP_CELLS", "MAX_MAP_SIDE", "SERVER_LOCK_WAIT_S",
           "RETRY_AFTER_S"]

#: bytes of a request body (`tactica serve --max-body`): a document's bound (rules/limits.py)
MAX_BODY = MAX_SAVE_BYTES
#: seconds a request waits for its fight while another request on the same fight runs; then a
#: 503 with Retry-After, so that slow requests cannot pile up and take every worker thread
SERVER_LOCK_WAIT_S = 10.0
#: seconds a client is told to wait (Retry-After) after a 503 for a busy fight
RETRY_AFTER_S = 2

ActionType = Literal[tuple(KINDS)]  # type: ignore[valid-type]


class ApiError(Exception):
    def __init__(self, status: int, message: str, field: str | None = None,
                 headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.field = field
        self.headers = headers


# -- request bodies ----------------------------------------------------------------------
class CreateFight(BaseModel):
    """A new fight from a bundled scenario name or an inline scenario, or a saved state:
    exactly one of `scenario`, `state` and `text` (none of them null)."""

    model_config = ConfigDict(extra="forbid", json_schema_extra={
        "oneOf": [{"required": ["scenario"]}, {"required": ["state"]}, {"required": ["text"]}]})
    scenario: str | dict[str, Any] | SkipJsonSchema[None] = Field(
        None, description="a bundled scenario name (see GET /scenarios) or a whole scenario document")
    state: dict[str, Any] | SkipJsonSchema[None] = Field(
        None, description="a Tactica state file (format tactica-state) to continue")
    text: Annotated[str, Field(max_length=MAX_SAVE_BYTES)] | SkipJsonSchema[None] = Field(
        None, description="an uploaded file's text: an encounter (YAML or JSON) or a save (JSON)")
    seed: int = Field(0, ge=0, le=MAX_SEED, description="seed of the fight's dice")

    @model_validator(mode="after")
    def _exactly_one(self) -> "CreateFight":
        given = [k for k in ("scenario", "state", "text") if k in self.model_fields_set]
        if len(given) != 1:
            raise ValueError("give exactly one of scenario, state or text")
        if getattr(self, given[0]) is None:
            raise ValueError(f"{given[0]} is null (expected a value)")
        return self


#: a map cell as [x, y]
Cell = Annotated[list[int], Field(min_length=2, max_length=2)]


class ActionBody(BaseModel):
    """One action in the shared vocabulary (`rules/actions.py`)."""

    model_config = ConfigDict(extra="forbid")
    type: ActionType
    target: str | None = Field(None, max_length=200)
    cell: Cell | int | None = Field(None, description="a map cell as [x, y] (or its flat index)")
    weapon: str | None = Field(None, max_length=200)
    option: str | None = Field(None, max_length=200)

    at: Cell | None = Field(None, description="the cell as [x, y], as /legal and /suggest give it")
    command: str | None = Field(None, max_length=500, description="ignored: the command /legal gives with an action")
    label: str | None = Field(None, max_length=2000, description="ignored: /legal's words for the action")

    @model_validator(mode="after")
    def _one_cell(self) -> "ActionBody":
        if self.at is not None:
            if self.cell is not None and isinstance(self.cell, list) and list(self.cell) != list(self.at):
                raise ValueError("cell and at name different cells")
            if self.cell is None:
                self.cell = list(self.at)
        return self


class ApplyAction(BaseModel):
    model_config = ConfigDict(extra="forbid")
    action: ActionBody
    actor: str | None = Field(None, max_length=200, description="if given, must be the acting figure")
    dice: list[int] | None = Field(None, max_length=1000,
                                   description="every die the action rolls, in order (omit: the engine rolls)")
    hand_dice: list[int] | None = Field(None, max_length=1000,
                                        description="the faces of the rolls the GM makes by hand (the settings' "
                                                    "dice), in order; the engine rolls the others")


class SuggestBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    policy: str | None = Field(None, min_length=1, max_length=300,
                               description="a policy name or .npz file (default: the team's policy from /settings, "
                                           "else tactical)")
    actor: str | None = Field(None, max_length=200, description="default: the acting figure")
    alternatives: int = Field(4, ge=0, le=20)
    seed: int | None = Field(None, ge=0, le=MAX_SEED)


class OverrideBody(BaseModel):
    """A GM override (rules/overrides.py): {"kind": "track" | "condition" | "place" | "add" |
    "remove" | "order" | "end", ...}; the rules check the fields and name a bad one."""

    model_config = ConfigDict(extra="allow")
    kind: Literal["track", "condition", "place", "add", "remove", "order", "end"]


class DiceBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    action: ActionBody
    actor: str | None = Field(None, max_length=200, description="if given, must be the acting figure")
    dice: list[int] = Field(default_factory=list, max_length=1000,
                            description="the faces entered so far, in order")
    roll: bool = Field(False, description="'Roll for me': the engine rolls the next roll's dice from the "
                                          "fight's seeded dice and returns them in `rolled`")


class TeamRole(BaseModel):
    model_config = ConfigDict(extra="forbid")
    role: Literal["pc", "npc"]
    policy: str | None = Field(None, min_length=1, max_length=300,
                               description="the policy that plans for the team (NPCs; default `best` where it "
                                           "decides fast enough in the fight's ruleset, else tactical: "
                                           "GET /policies)")


class SettingsBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    dice_mode: Literal["engine", "manual"] | None = Field(None, description="manual: the GM enters every die")
    teams: dict[str, TeamRole] | None = Field(None, description="who plays each team: pc (the GM) or npc; the "
                                                              "key * sets every team (a team named beside it "
                                                              "keeps its own)")
    dice: dict[str, Literal["engine", "manual"]] | None = Field(
        None, description="who rolls by hand per team or figure ({'crew': 'manual'}: the players roll the crew's "
                          "dice, the engine the rest); replaces the earlier per-name settings")
    behaviour: dict[str, Any] | None = Field(
        None, description="NPC behaviour (docs/npc-behaviour.md): {'teams': {T: {...}}, 'figures': {ID: {...}}}")


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
    #: the rules' open question (figure, key, options, default), `text` as the log will tell it and
    #: `told`: what its action did before it, narrated (the log gets those once it is answered)
    question: dict[str, Any] | None = None
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
    reach_mode: list[str] | None = None
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
    rolled: list[int] | None = None


class SettingsOut(BaseModel):
    dice_mode: str
    teams: dict[str, dict[str, Any]]
    dice: dict[str, str] = {}
    behaviour: dict[str, Any] = {}


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


