"""`tactica rulesets [NAME]`: the rule systems, or one ruleset's reference (rules/reference.py)."""

from __future__ import annotations

import json
from typing import Any, Mapping, Optional

import typer
from rich.table import Table

from tactica.textsafe import safe, safe_text

#: tables with more columns than this are shown one line a row
WIDE = 5


def print_table(out, title: str, cols: list[str], rows: list[list[str]], **kw: Any) -> None:
    """A Rich table of plain text (no markup read from the data, controls made visible)."""
    t = Table(title=title, **kw)
    for c in cols:
        t.add_column(safe_text(c))
    for r in rows:
        t.add_row(*(safe_text(x) for x in r))
    out.print(t)


def list_rulesets(out, as_json: bool) -> None:
    """Every rule system: name, version, supported actions and description."""
    from rules.ruleset import available_rulesets, get_ruleset

    infos = [get_ruleset(n).info() for n in available_rulesets()]
    if as_json:
        print(json.dumps(infos, indent=2))
        return
    rows = [[i["name"], str(i["version"]), ", ".join(k + (f" ({'/'.join(v)})" if v else "")
                                                  for k, v in i["actions"].items()), i["description"]]
            for i in infos]
    print_table(out, "rule systems", ["name", "version", "actions", "description"], rows)
    out.print("one ruleset's templates, weapons, armour, conditions, settings and assumptions: "
              "tactica rulesets NAME", highlight=False)


def show_reference(out, ref: Mapping[str, Any]) -> None:
    """One ruleset's reference in the terminal: the sections of docs/reference/<name>.md."""
    from rules.reference import tables, template_lines

    src = f" (data: {ref['data_file']})" if ref["data_file"] else ""
    out.print(f"[bold]{safe(ref['name'])}[/] version {ref['version']}{safe(src)}: {safe(ref['description'])}",
              highlight=False)
    out.print(f"\n[bold]templates ({len(ref['templates'])})[/]", highlight=False)
    for name, entry in ref["templates"].items():
        title = f": {entry['name']}" if isinstance(entry, Mapping) and "name" in entry else ""
        out.print(f"  [bold]{safe(name)}[/]{safe(title)}", highlight=False)
        for k, v in template_lines(entry):
            out.print(f"    {safe(k)}: {safe(v)}", highlight=False)
    for title, cols, rows in tables(ref):
        if not rows:
            out.print(f"\n[bold]{safe(title)}[/]: none", highlight=False)
            continue
        if len(cols) > WIDE:  # one line a row: fits any terminal, and greps
            out.print(f"\n[bold]{safe(title)}[/]", highlight=False)
            for r in rows:
                stats = ", ".join(f"{c} {x}" for c, x in zip(cols[1:], r[1:]) if x)
                out.print(f"  [bold]{safe(r[0])}[/]: {safe(stats)}", highlight=False)
            continue
        out.print()
        print_table(out, title, cols, rows, title_justify="left")
    out.print(f"\n[bold]assumptions ({len(ref['assumptions'])})[/]", highlight=False)
    for a in ref["assumptions"]:
        out.print(f"  [bold]{safe(a.get('key', '?'))}[/]: {safe(a.get('value', ''))}", highlight=False)
        out.print(f"    why: {safe(a.get('reason', ''))}", highlight=False)
    if ref["other_tables"]:
        out.print("\nother tables of the data file: " + safe(", ".join(ref["other_tables"])), highlight=False)


def register(app: typer.Typer, friendly, out) -> None:
    @app.command()
    @friendly
    def rulesets(
        name: Optional[str] = typer.Argument(None, help="A ruleset: show its reference (templates, weapons, "
                                                        "armour, conditions, settings, assumptions)."),
        as_json: bool = typer.Option(False, "--json", help="One JSON document for tools."),
    ) -> None:
        """List the rule systems, or show one ruleset's reference (docs/reference/NAME.md)."""
        if name is None:
            list_rulesets(out, as_json)
            return
        from rules.reference import reference
        from rules.ruleset import get_ruleset

        ref = reference(get_ruleset(name))
        if as_json:
            print(json.dumps(ref, indent=2))
            return
        show_reference(out, ref)
