"""A ruleset's reference: its templates, weapons, armour, items, actions, conditions, scenario
settings and assumptions, read from the `Ruleset` API and its data file (issue #35).

`reference(ruleset)` gathers it as one JSON-able dict (`tactica rulesets NAME --json`);
`tables`, `template_lines` and `markdown` lay it out for the terminal (tactica/reference_cli.py)
and for the generated pages docs/reference/<name>.md, written by

    python -m rules.reference --write docs/reference

and kept in step with the data files by tests/test_reference.py.
"""

from __future__ import annotations

import argparse
import copy
import inspect
from pathlib import Path
from typing import Any, Iterable, Mapping

from rules.ruleset import Ruleset, available_rulesets, get_ruleset

REPO = Path(__file__).resolve().parents[1]
WRITE_COMMAND = "python -m rules.reference --write docs/reference"

#: the data file's tables shown in full; the others are listed by name under "Other tables"
SHOWN = ("version", "weapons", "armour", "items", "bestiary", "assumptions")


def data_file(rs: Ruleset) -> str | None:
    """The ruleset's data file, relative to the repository when it lies inside it."""
    path = Path(inspect.getfile(type(rs))).with_name("data.yaml")
    if not path.is_file():
        return None
    try:
        return path.resolve().relative_to(REPO).as_posix()
    except ValueError:
        return path.name


def reference(rs: Ruleset) -> dict[str, Any]:
    """Everything a GM looks up in a ruleset, as one JSON-able dict (a copy: changing it
    changes nothing in the ruleset)."""
    data: Mapping[str, Any] = getattr(rs, "data", None) or {}
    bestiary = data.get("bestiary") or {}
    return copy.deepcopy({
        "name": rs.name,
        "version": rs.version,
        "description": rs.description,
        "data_file": data_file(rs),
        "templates": {t: bestiary.get(t, {}) for t in rs.templates()},
        "weapons": dict(data.get("weapons") or {}),
        "armour": dict(data.get("armour") or {}),
        "items": dict(data.get("items") or {}),
        "actions": {k: list(v) for k, v in rs.supported_actions.items()},
        "conditions": {"gm": list(rs.gm_conditions()), "tracks": dict(rs.track_conditions())},
        "settings": {k: {"default": d, "what": what} for k, (d, what) in rs.scenario_settings.items()},
        "assumptions": [dict(a) for a in data.get("assumptions") or ()],
        "other_tables": [k for k in data if k not in SHOWN],
    })


# -- layout ---------------------------------------------------------------------------
def cell(v: Any) -> str:
    """One value as short text: lists joined, mappings as `key value`, a `name` first."""
    if v is None:
        return "none"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        return f"{v:g}"
    if isinstance(v, (list, tuple)):
        return ", ".join(cell(x) for x in v)
    if isinstance(v, Mapping):
        rest = ", ".join(f"{k} {cell(x)}" if not isinstance(x, (Mapping, list)) else f"{k}: {cell(x)}"
                         for k, x in v.items() if k != "name")
        if "name" in v:
            return f"{cell(v['name'])} ({rest})" if rest else cell(v["name"])
        return rest or "-"
    return str(v)


def _columns(entries: Iterable[Any], skip: tuple[str, ...] = ()) -> list[str]:
    cols: list[str] = []
    for e in entries:
        for k in (e if isinstance(e, Mapping) else {"value": e}):
            if k not in cols and k not in skip:
                cols.append(str(k))
    return cols


def _table(title: str, what: str, entries: Mapping[str, Any], skip: tuple[str, ...] = ()
           ) -> tuple[str, list[str], list[list[str]]]:
    cols = _columns(entries.values(), skip)
    rows = []
    for name, e in entries.items():
        e = e if isinstance(e, Mapping) else {"value": e}
        rows.append([name] + [cell(e[c]) if c in e else "" for c in cols])
    return title, [what] + cols, rows


def tables(ref: Mapping[str, Any]) -> list[tuple[str, list[str], list[list[str]]]]:
    """(title, columns, rows) of each table of the reference but the templates and the
    assumptions: weapons (one table per `kind`), armour, items, actions, conditions, settings."""
    out = []
    weapons = ref["weapons"]
    kinds = [w.get("kind") if isinstance(w, Mapping) else None for w in weapons.values()]
    for kind in dict.fromkeys(kinds):
        group = {n: w for n, w, k in zip(weapons, weapons.values(), kinds) if k == kind}
        out.append(_table(f"weapons: {kind}" if kind else "weapons", "weapon", group, ("kind",)))
    if ref["armour"]:
        out.append(_table("armour", "armour", ref["armour"]))
    if ref["items"]:
        out.append(_table("items", "item", ref["items"]))
    out.append(("actions", ["action", "options"],
                [[k, ", ".join(o or "(plain)" for o in v)] for k, v in ref["actions"].items()]))
    cond = ref["conditions"]
    rows = [[c, "the GM may put it on or take it off"] for c in cond["gm"]]
    rows += [[c, f"follows the {t} track (set the track)"] for c, t in cond["tracks"].items()]
    out.append(("conditions", ["condition", "set by"], rows))
    out.append(("scenario settings", ["setting", "default", "what it does"],
                [[k, cell(s["default"]) if s["default"] not in ({}, []) else "(none)", s["what"]]
                 for k, s in ref["settings"].items()]))
    return out


def template_lines(entry: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(field, text) of a bestiary template, its display name left out."""
    return [(str(k), cell(v)) for k, v in entry.items() if k != "name"]


def _md(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def markdown(ref: Mapping[str, Any]) -> str:
    """The reference page docs/reference/<name>.md."""
    name = ref["name"]
    src = f"`{ref['data_file']}`" if ref["data_file"] else "its data file"
    lines = [f"# `{name}` reference (ruleset version {ref['version']})", "",
             (f"Generated from the ruleset and {src} by `{WRITE_COMMAND}`; do not edit it by hand "
              f"(tests/test_reference.py checks it). `tactica rulesets {name}` shows the same, `--json` "
              f"for tools. How the rules work: [docs/{name}.md](../{name}.md)."), "",
             _md(ref["description"]), "",
             f"## Templates ({len(ref['templates'])})", "",
             "A scenario figure names one as `template:` and may override any field.", ""]
    for t, entry in ref["templates"].items():
        title = f": {_md(entry['name'])}" if isinstance(entry, Mapping) and "name" in entry else ""
        lines += [f"### `{t}`{title}", ""]
        lines += [f"- {k}: {_md(v)}" for k, v in template_lines(entry)] + [""]
    for title, cols, rows in tables(ref):
        lines += [f"## {title[0].upper()}{title[1:]}", ""]
        if not rows:
            lines += ["(none)", ""]
            continue
        lines += ["| " + " | ".join(_md(c) for c in cols) + " |", "|" + "---|" * len(cols)]
        lines += ["| " + " | ".join(_md(c) for c in r) + " |" for r in rows] + [""]
    lines += [f"## Assumptions ({len(ref['assumptions'])})", "",
              "Every value the seed leaves open, with the reason; a GM may change it in the data file.", ""]
    for a in ref["assumptions"]:
        lines.append(f"- **{_md(a.get('key', '?'))}**: {_md(a.get('value', ''))}. "
                     f"*Why:* {_md(a.get('reason', ''))}")
    if ref["other_tables"]:
        lines += ["", "## Other tables of the data file", "",
                  "The rules read these too; see the data file: "
                  + ", ".join(f"`{k}`" for k in ref["other_tables"]) + "."]
    return "\n".join(lines) + "\n"


def pages(names: Iterable[str] | None = None) -> dict[str, str]:
    """File name -> page text of each ruleset's reference page."""
    return {f"{n}.md": markdown(reference(get_ruleset(n))) for n in (names or available_rulesets())}


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m rules.reference", description="Write the ruleset reference pages.")
    p.add_argument("--write", type=Path, required=True, metavar="DIR", help="folder for <ruleset>.md")
    args = p.parse_args(argv)
    args.write.mkdir(parents=True, exist_ok=True)
    for fname, text in pages().items():
        (args.write / fname).write_text(text, encoding="utf-8")
        print(args.write / fname)


if __name__ == "__main__":  # pragma: no cover
    main()
