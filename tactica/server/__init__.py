"""The NPC brain as an HTTP JSON API (FastAPI): `tactica serve`.

Endpoints (OpenAPI description at `/openapi.json`, interactive docs at `/docs`):

    GET    /health                       liveness (no token needed)
    POST   /fights                       create a fight: {"scenario": NAME or {...}, "seed": 0}
                                         or {"state": {...a Tactica state file...}} -> {"id", "summary"}
    GET    /fights                       the fights held
    GET    /fights/{id}                  {"id", "summary", "state"}: state in the state file format
    GET    /fights/{id}/legal            the acting figure's legal actions
    POST   /fights/{id}/suggest          {"policy": NAME?} -> the plan, its reason, alternatives
                                         (no policy: the team's policy from /settings)
    POST   /fights/{id}/actions          {"action": {"type": "attack", ...}, "dice": [5, 3, ...]}
    POST   /fights/{id}/overrides        {"kind": "track"|"condition"|"place"|"add"|"remove"|"order"|"end", ...}
                                         the GM overrules the engine (logged, undoable, saved)
    GET    /fights/{id}/events?since=N   events from index N on
    DELETE /fights/{id}                  forget the fight (and its save file)

For the battle-map page (`tactica/web/`):

    GET    /                             the page (no token needed; it sends the token it is given)
    GET    /web/{file}                   its scripts and styles (no token needed)
    GET    /fights/{id}/view?since=N     map, figures, turn order, narrated log from N, settings (a team `best`
                                         plays: `plays_as`, the player it is in this fight, and `why` where that
                                         is not its ruleset's usual one), undo depth, the rules' open question
                                         with what its action did so far
    GET    /fights/{id}/overlays?x=&y=   reach, line of sight and threat of the acting figure; with a
                                         cell (x, y): its cover against each enemy; with to_x, to_y: a path
    POST   /fights/{id}/undo             back one resolved action (the fight keeps an undo history)
    POST   /fights/{id}/dice             {"action", "dice": [...]} -> the next roll the action needs
                                         (who rolls what against what), or null when the dice are enough
    PUT    /fights/{id}/settings         {"dice_mode": "engine"|"manual", "teams": {TEAM: {"role", "policy"}}}
    GET    /fights/{id}/stream?since=N   server-sent events: the view whenever the fight changes
    GET    /docs                         this reference as a page, offline (no CDN)
    GET    /replay?fight=N               a recorded fight, frame by frame (`tactica view LOG`)
    GET    /replay/overlays?frame=K      the overlays of a replay frame

Every fight is a table session (`tactica/table/`), the very session `tactica autopilot`
drives: the same roles, dice, history, undo and save files. With a data folder
(`tactica serve --data DIR`) each fight is saved there after every change, and the fights
saved there are resumed when the server starts. The action objects /legal and /suggest hand
out (with `at` and `command`) can be posted back as they are. `--cors-origin` lets named web
origins (a VTT module's page) call the API.

Bodies are validated (422 with a message); a bearer token is checked when one is set (401);
bodies over the size limit get 413, bodies that cannot be read as JSON 400. Only requests
whose Host header names this server are answered (421 otherwise: DNS rebinding, see
`guard.py`); `tactica view` serves its replay read-only (405 for anything but GET). A request
waits at most `SERVER_LOCK_WAIT_S` for a fight another request holds (then 503 with
Retry-After); maps no fight uses leave the rules' caches (`maps.py`). A fight made from an
uploaded state is read once as the routes will before it is kept. A bad action, bad dice or an internal error leave the fight as it was (the
session restores its snapshot). Each fight has its own lock. The rules engine needs none: a
map's tables give the same answer whoever fills them first, and a ruleset's per-call memos
are per thread (issue 30), so several fights are played at once from many threads.

Given dice (`"dice"` in POST actions) must be exactly the dice the action rolls, in order
(as in replay files): a face a die cannot show, too few or too many are a 422.
"""

from tactica.server.app import create_app, serve  # noqa: E402,F401
