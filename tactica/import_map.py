"""`tactica import-map FILE.dd2vtt`: a Universal VTT map as an encounter's `map` block (issue #35).

The block holds ASCII rows (objects as cover cells), `walls` between cells (closed doors
included) and `doors` (drawn on the battle map); a report says what the import made of the
file: cells, walls, doors, objects, lights ignored and anything dropped (docs/uvtt.md).
An encounter may instead name the file itself (`map: {uvtt: FILE}`), which keeps its picture.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable, Optional

import typer

from rules.uvtt import DEFAULT_OBJECT_COVER, ImportedMap, load_uvtt_map


def map_yaml(imp: ImportedMap, file: Path, cell_m: float | None = None) -> str:
    """The encounter `map` block as YAML text, the report as comments above it."""
    lines = [f"# Imported from {file.name} by `tactica import-map` (docs/uvtt.md)."]
    lines += [f"# {line}" for line in imp.report()]
    lines.append(f"# To keep the file's picture under the grid, use instead (beside the encounter file): "
                 f"map: {{uvtt: {json.dumps(file.name)}}}")
    lines.append("map:")
    if cell_m is not None:
        lines.append(f"  cell_m: {cell_m}")
    block = imp.map_block()
    for key, items in block.items():
        lines.append(f"  {key}:")
        lines += [f"    - {json.dumps(v)}" if key == "rows" else f"    - {_flow(v)}" for v in items]
    return "\n".join(lines) + "\n"


def _flow(v: Any) -> str:
    """A list or mapping on one line, as YAML flow style."""
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k}: {_flow(x)}" for k, x in v.items()) + "}"
    return json.dumps(v)


def register(app: typer.Typer, friendly: Callable, out, err) -> None:
    """Add `import-map` to the CLI app."""

    @app.command("import-map")
    @friendly
    def import_map(
        file: Path = typer.Argument(..., help="A Universal VTT map: .dd2vtt (Dungeondraft), .uvtt, .df2vtt."),
        output: Optional[Path] = typer.Option(None, "--output", "-o", help="Write the map block here "
                                              "(default: standard output, the report on standard error)."),
        object_cover: int = typer.Option(DEFAULT_OBJECT_COVER, "--object-cover", min=0, max=4,
                                         help="Cover level of the file's objects (0 leaves them out)."),
        cell_m: Optional[float] = typer.Option(None, "--cell-m", help="Metres a cell (default: the ruleset's)."),
    ) -> None:
        """Turn a Universal VTT map into an encounter's map block (rows and walls) with a report."""
        from rules.atomic import atomic_write
        from rules.limits import check_cell_m

        if cell_m is not None:
            check_cell_m(cell_m, "--cell-m", "--cell-m")
        imp = load_uvtt_map(str(file.resolve()), None, object_cover)
        text = map_yaml(imp, file, cell_m)
        if output is None:
            out.print(text, end="", highlight=False, markup=False, emoji=False, soft_wrap=True)
            for line in imp.report():
                err.print(line, highlight=False, markup=False)
            return
        atomic_write(output, text, field="--output")
        for line in imp.report():
            out.print(line, highlight=False, markup=False)
        out.print(f"map block written to {output}", highlight=False, markup=False)
