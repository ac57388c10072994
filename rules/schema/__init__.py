"""The event and final-state vocabulary as JSON Schemas (draft 2020-12), shipped with the package.

- `events.schema.json`: one event of a fight's log (`rules/events.py` keeps `EVENT_TYPES`
  in agreement with it; a test checks);
- `final_state.schema.json`: `rules.replay.state_summary`, the replay's final state;
- `replay.schema.json`: what `tactica replay FILE --json` prints (events, final state, error).

`docs/events.md` is generated from them: `python -m rules.schema.doc > docs/events.md`.
Validating needs the `jsonschema` package (a dev extra); reading the schemas does not.
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from typing import Any

NAMES: tuple[str, ...] = ("events", "final_state", "replay")


@lru_cache(maxsize=None)
def load(name: str) -> dict[str, Any]:
    """The schema `name` (one of `NAMES`) as a dict."""
    if name not in NAMES:
        raise KeyError(f"no schema {name!r}; one of {', '.join(NAMES)}")
    text = resources.files(__package__).joinpath(f"{name}.schema.json").read_text(encoding="utf-8")
    return json.loads(text)


def validator(name: str) -> Any:
    """A `jsonschema` validator for schema `name`, which resolves references between the schemas."""
    import jsonschema
    from referencing import Registry, Resource

    registry = Registry().with_resources(
        (load(n)["$id"], Resource.from_contents(load(n))) for n in NAMES)
    cls = jsonschema.validators.validator_for(load(name))
    return cls(load(name), registry=registry)


def problems(name: str, doc: Any) -> list[str]:
    """What is wrong with `doc` under schema `name`, one line each (empty when it is valid)."""
    out = []
    for err in sorted(validator(name).iter_errors(doc), key=lambda e: list(e.absolute_path)):
        where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in err.absolute_path)
        out.append(f"{where or '(top)'}: {err.message}")
    return out
