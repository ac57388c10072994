"""Names a user types, checked against the names a reader knows (issue #35, strict validation).

Every reader of user input (a figure's keys, its skills, a ruleset's `settings:`, a tuning
knob) refuses a key or name it does not know, and when one it knows is close, says which:

    enc.yaml: teams[0].combatants[1].skills.gunz: unknown skill 'gunz'; did you mean 'guns'?
    (expected one of athletics, guns, ...)

A typo that passed silently used to leave a figure without the skill the GM gave it.
"""

from __future__ import annotations

import difflib
from typing import Any, Collection, Iterable, Mapping

from rules.errors import UnknownKeyError


def did_you_mean(value: Any, known: Iterable[str]) -> str:
    """'; did you mean 'x'?' when `value` is close to one of `known`, else ''."""
    if not isinstance(value, str):
        return ""
    close = difflib.get_close_matches(value, [str(k) for k in known], n=1, cutoff=0.6)
    return f"; did you mean {close[0]!r}?" if close else ""


def one_of(known: Iterable[str]) -> str:
    """'one of a, b, c' (or 'nothing here' when there is none)."""
    names = [str(k) for k in known]
    return "one of " + ", ".join(names) if names else "nothing here"


def check_known(value: Any, known: Collection[str], source: str | None, field: str, what: str,
                expected: str | None = None) -> None:
    """Refuse `value` unless it is one of `known`: `UnknownKeyError` naming `field`, the
    closest known name and (unless `expected` says otherwise) every known one."""
    if isinstance(value, str) and value in known:
        return
    raise UnknownKeyError(f"unknown {what} {value!r}{did_you_mean(value, known)}", source=source, field=field,
                          expected=expected or one_of(known))


def check_keys(doc: Mapping[str, Any], known: Collection[str], source: str | None, field: str, what: str = "field",
               expected: str | None = None) -> None:
    """Refuse the first key of `doc` that is not one of `known`; the error names `field.KEY`."""
    for k in doc:
        if k not in known:
            check_known(k, known, source, f"{field}.{k}" if field else str(k), what, expected)


def close_but_unknown(value: str, known: Collection[str], cutoff: float = 0.8) -> str | None:
    """The known name `value` is most likely a typo of (close, not equal), or None: for names
    a user may coin (a Cortex specialty), where only a near miss is refused."""
    if value in known:
        return None
    close = difflib.get_close_matches(value, list(known), n=1, cutoff=cutoff)
    return close[0] if close else None


def skill_names(data: Mapping[str, Any]) -> tuple[str, ...]:
    """The skills a ruleset's figures may have: the data file's `skills:` list, the skills its
    weapons use and the skills its bestiary gives (general skills: `guns` of `guns/pistols`)."""
    names: dict[str, None] = {}
    for s in data.get("skills") or ():
        names[str(s)] = None
    for w in (data.get("weapons") or {}).values():
        if isinstance(w, Mapping) and isinstance(w.get("skill"), str) and w["skill"] != "none":
            names[w["skill"]] = None
    for t in (data.get("bestiary") or {}).values():
        for s in (t.get("skills") or {}) if isinstance(t, Mapping) else ():
            names[str(s).split("/")[0]] = None
    return tuple(sorted(names))


def specialty_names(data: Mapping[str, Any]) -> dict[str, set[str]]:
    """general skill -> the specialties a Cortex data file names (its weapons' and bestiary's)."""
    out: dict[str, set[str]] = {}
    for w in (data.get("weapons") or {}).values():
        if isinstance(w, Mapping) and w.get("specialty"):
            out.setdefault(str(w.get("skill")), set()).add(str(w["specialty"]))
    for t in (data.get("bestiary") or {}).values():
        for s in (t.get("skills") or {}) if isinstance(t, Mapping) else ():
            general, _, spec = str(s).partition("/")
            if spec:
                out.setdefault(general, set()).add(spec)
    for general, specs in (data.get("specialties") or {}).items():
        out.setdefault(str(general), set()).update(str(s) for s in specs or ())
    return out


__all__ = ["did_you_mean", "one_of", "check_known", "check_keys", "close_but_unknown", "skill_names",
           "specialty_names"]
