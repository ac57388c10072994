"""`tactica new NAME --ruleset R`: a commented starter encounter that validates (issue #35).

The file explains each field where it stands, has a small map with some cover, and two teams
of two figures each built from the ruleset's own bestiary (one each of its first two
templates, in the order of its data file, so the sides start even); a tuning block is there, commented out, to uncomment for
`tactica tune`. Nothing is overwritten: an existing file is an error.
"""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path
from typing import Any, Mapping, Optional

import typer

from rules.errors import ScenarioError, TacticaError
from rules.limits import check_name

#: the starter map: 12 x 8 cells, cover (light l, medium m, heavy h) the same on both sides
MAP = ("............",
       "....l..l....",
       "..m......m..",
       "............",
       "............",
       "...h....h...",
       "............",
       "............")
HEROES = ((1, 2), (1, 5))
FOES = ((10, 2), (10, 5))

#: an example value per settings key a ruleset may read (`Ruleset.settings_keys`)
SETTING_EXAMPLES = {"plot_points": "{heroes: 2}", "surprised": "[foes]", "drops": "[{at: [6, 7], metres: 3}]"}


def _flow(v: Any) -> str:
    """A short YAML flow value (names, numbers, lists and mappings of them)."""
    if isinstance(v, Mapping):
        return "{" + ", ".join(f"{k}: {_flow(x)}" for k, x in v.items()) + "}"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_flow(x) for x in v) + "]"
    return str(v)


def _figure(fid: str, template: str, at: tuple[int, int]) -> str:
    return f"      - {{id: {fid}, template: {template}, at: [{at[0]}, {at[1]}]}}"


def starter(name: str, ruleset: str) -> str:
    """The text of a starter encounter named `name` for `ruleset` (YAML with comments)."""
    from rules.ruleset import get_ruleset

    check_name(name, None, "NAME")
    if not name.strip():
        raise ScenarioError("an empty name", field="NAME", expected="a name for the encounter")
    try:
        rs = get_ruleset(ruleset)
    except TacticaError as e:
        e.field = "--ruleset"
        raise e.at() from None
    bestiary: Mapping[str, Any] = rs.data["bestiary"]
    names = list(bestiary)
    first, second = names[0], names[1 % len(names)]
    example = bestiary[first]
    overrides = {k: example[k] for k in ("weapons",) if k in example}
    settings = "\n".join(f"#   {k}: {SETTING_EXAMPLES.get(k, '...')}" for k in rs.settings_keys)
    rows = "\n".join(f'    - "{r}"' for r in MAP)
    templates = "\n".join(textwrap.wrap(", ".join(names), 90, initial_indent="  #   ", subsequent_indent="  #   "))
    quoted = name.replace("\\", "\\\\").replace('"', '\\"')
    return f"""\
# A starter encounter for the {rs.name} rules, written by `tactica new`. Change what you like,
# then check it with `tactica validate FILE` and play it with `tactica simulate FILE`.
# Every key is checked: a key or a name the rules do not know is an error that names the
# closest one they know ("did you mean ...?").
name: "{quoted}"
ruleset: {rs.name}
description: Two against two across a yard with some cover.
round_limit: 20          # after this many rounds the fight is a draw
initiative: roll         # roll: the ruleset's initiative; fixed: the order the figures are listed in
""" + (f"""\
# settings:              # the {rs.name} settings: {", ".join(rs.settings_keys)} (uncomment to use)
{settings}
settings: {{}}
""" if rs.settings_keys else f"""\
settings: {{}}             # the {rs.name} ruleset takes no settings
""") + f"""\
map:
  cell_m: {rs.default_cell_m:<14g} # metres a cell measures
  # One string a row, the top row first; a figure's `at: [x, y]` counts x from the left and
  # y from the top, from 0. Characters: . floor, # wall, l light cover, m medium cover,
  # h heavy cover, T total cover, , difficult ground (`legend:` adds your own:
  # {{c: {{name: crates, blocks_move: true, blocks_sight: false, cover: 2, difficult: false}}}}).
  rows:
{rows}
teams:
  # Each team has a unique name and figures with unique ids, one figure a cell. A figure is a
  # template of the {rs.name} bestiary, one of:
{templates}
  # with any stat-block field of its own overriding the template's, e.g.
  # {{id: hero3, template: {first}, name: Sam, at: [2, 3], {_flow(overrides)[1:-1] if overrides else "skills: {...}"}}}
  # (docs/{rs.name}.md lists the fields, weapons and armour).
  - name: heroes
    pc: true             # the players' team: `difficulty` and `tune` report its chance to win
    combatants:
{_figure("hero1", first, HEROES[0])}
{_figure("hero2", second, HEROES[1])}
  - name: foes
    combatants:
{_figure("foe1", first, FOES[0])}
{_figure("foe2", second, FOES[1])}
# What `tactica tune` may change to bring the fight to a target difficulty (uncomment to use;
# without a block, tune derives knobs of its own). Each knob moves in whole steps from min to
# max; the encounter as written above is its starting value.
# tuning:
#   knobs:
#     - {{kind: count, team: foes, template: {second}, min: 0, max: 3}}   # how many {second}s
#     - {{kind: distance, team: foes, min: -2, max: 2}}               # cells farther (< 0: nearer)
#     - {{kind: cover, cells: [[5, 3], [6, 4]], terrain: m, min: 0, max: 2}}  # crates placed
"""


def write_starter(name: str, ruleset: str, out: Optional[Path]) -> Path | None:
    """Write the starter to `out` (default NAME.yaml, or NAME itself where it ends .yaml/.yml; `-`: standard output),
    never over a file."""
    from rules.atomic import atomic_write

    given = None
    if name.lower().endswith((".yaml", ".yml")) and out is None:
        # `tactica new mine.yaml`: the GM named the file; the encounter takes its stem (not mine.yaml.yaml)
        given, name = Path(name), Path(name).stem
    text = starter(name, ruleset)
    if out is not None and str(out) == "-":
        sys.stdout.write(text)
        return None
    field = "-o" if out is not None else "NAME"  # where the file's name came from
    path = out or given or Path(name.replace("/", "_").replace("\\", "_") + ".yaml")
    if path.exists() or path.is_symlink():
        raise ScenarioError("the file exists already", source=str(path), field=field,
                            expected="a new file name (tactica new never overwrites)")
    atomic_write(path, text, field=field)
    return path


def register(app: typer.Typer, friendly, out) -> None:
    @app.command()
    @friendly
    def new(
        name: str = typer.Argument(..., help="The encounter's name (and the file's, without -o); a name ending .yaml is the file to write, the encounter named by its stem."),
        ruleset: str = typer.Option(..., "--ruleset", "-r", help="cortex, cortex_hu, metalface or cybergeneration."),
        output: Optional[Path] = typer.Option(None, "--output", "-o", help="The file to write (default NAME.yaml; - for standard output)."),
    ) -> None:
        """Write a commented starter encounter that validates, to edit into your own."""
        from tactica.textsafe import safe

        path = write_starter(name, ruleset, output)
        if path is not None:
            out.print(f"wrote {safe(path)}: check it with `tactica validate {safe(path)}`", highlight=False)
