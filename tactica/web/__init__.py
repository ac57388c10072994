"""The battle-map page of `tactica serve` and `tactica view`.

- `static/`: the page itself, plain HTML, CSS and JavaScript modules (no build step, no
  network): `index.html`, `style.css`, `app.js` (live fights and the autopilot),
  `replay.js` (replay controls), `map.js` (the SVG map), `ui.js` (panels, log, dialogs),
  `api.js` (requests and readable errors).
- `board.py`: what the page draws, as JSON, from a rules-level state: the map, the
  figures, the turn order, and the overlays (reach, line of sight, cover from a cell,
  threat), all computed by the rules engine (`rules/grid.py`, the ruleset).
- `replay.py`: a recorded fight (a `tactica simulate --log` file, a replay file, or an
  autopilot save / state file) followed step by step through the rules engine, so every
  replay frame is an exact state.
"""

from pathlib import Path

STATIC_DIR = Path(__file__).resolve().parent / "static"
