"""`tactica rulesets NAME` and the generated reference pages docs/reference/<name>.md (issue #35,
"Ruleset reference"): templates, weapons and armour with their stats, conditions, scenario
settings and assumptions, read from each ruleset's data file (rules/reference.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from rules.reference import WRITE_COMMAND, pages, reference
from rules.ruleset import available_rulesets, get_ruleset
from tactica.cli import app

REPO = Path(__file__).resolve().parents[1]


def invoke(*args: str, width: int = 200):
    return CliRunner().invoke(app, list(args), env={"COLUMNS": str(width)})


def test_rulesets_cortex_shows_a_template_and_a_weapon_with_its_stats() -> None:
    r = invoke("rulesets", "cortex")
    assert r.exit_code == 0, r.stderr
    text = r.stdout
    # the gunslinger of rules/systems/cortex/data.yaml: Agility d10, Guns/Pistols d10, a revolver
    block = text[text.index("gunslinger: Gunslinger"):].split("\n")[:5]
    assert any("agility d10" in line for line in block), block
    assert any("guns/pistols d10" in line and "guns d6" in line for line in block), block
    assert any(line.strip() == "weapons: revolver" for line in block), block
    # the revolver's row: d8 Wound damage, 75 ft range increment, 6 rounds (the data file's stats)
    row = next(line.strip() for line in text.splitlines() if line.strip().startswith("revolver:"))
    for stat in ("damage d8", "type W", "range_ft 75", "rof 3", "magazine 6"):
        assert stat in row, row
    from rules.reference import reference
    from rules.ruleset import get_ruleset
    n = len(reference(get_ruleset("cortex"))["assumptions"])   # every assumption of the data files
    assert n >= 60
    for section in ("armour", "conditions", "scenario settings", f"assumptions ({n})"):
        assert section in text
    assert "plot_points" in text and "tactical_vest" in text and "multiple_actions" in text


@pytest.mark.parametrize("name", available_rulesets())
def test_rulesets_name_json_has_every_template_weapon_and_assumption(name: str) -> None:
    r = invoke("rulesets", name, "--json")
    assert r.exit_code == 0, r.stderr
    ref = json.loads(r.stdout)  # the whole of stdout is one JSON document
    rs = get_ruleset(name)
    assert ref["name"] == name and ref["version"] == rs.version
    assert list(ref["templates"]) == rs.templates()
    assert set(ref["weapons"]) == set(rs.data["weapons"]) and ref["weapons"]
    assert ref["armour"] == rs.data["armour"]
    assert [a["key"] for a in ref["assumptions"]] == [a["key"] for a in rs.data["assumptions"]]
    assert set(ref["conditions"]["gm"]) == set(rs.gm_conditions())
    assert set(ref["settings"]) == set(rs.scenario_settings)
    # a template keeps its own stats: the first one's weapons are weapons of the table
    first = ref["templates"][rs.templates()[0]]
    assert set(first["weapons"]) <= set(ref["weapons"])


def test_reference_is_a_copy() -> None:
    rs = get_ruleset("cortex")
    ref = reference(rs)
    ref["weapons"]["pistol"]["damage"] = "d12"
    ref["templates"]["gunslinger"]["weapons"].append("axe")
    assert rs.data["weapons"]["pistol"]["damage"] == "d6"
    assert rs.data["bestiary"]["gunslinger"]["weapons"] == ["revolver"]


def test_settings_each_ruleset_reads_are_listed_with_defaults() -> None:
    refs = {n: reference(get_ruleset(n)) for n in available_rulesets()}
    assert set(refs["cortex"]["settings"]) == {"plot_points"}
    assert set(refs["cortex_hu"]["settings"]) == {"plot_points", "surprised"}
    assert set(refs["cybergeneration"]["settings"]) == {"drops"}
    assert refs["metalface"]["settings"] == {}
    assert refs["cortex_hu"]["settings"]["surprised"]["default"] == []


def test_reference_pages_match_the_data_files() -> None:
    """docs/reference/<name>.md is what the data files give now (regenerate after a data change)."""
    folder = REPO / "docs" / "reference"
    for fname, text in pages().items():
        path = folder / fname
        assert path.is_file(), f"{path} is missing: run `{WRITE_COMMAND}`"
        have, want = path.read_text(encoding="utf-8").splitlines(), text.splitlines()
        if have != want:
            i = next((i for i, (a, b) in enumerate(zip(have, want)) if a != b), min(len(have), len(want)))
            pytest.fail(f"{path} is out of step with the ruleset's data (line {i + 1}: "
                        f"{have[i] if i < len(have) else '(end)'!r}, now {want[i] if i < len(want) else '(end)'!r}): "
                        f"run `{WRITE_COMMAND}`")
    assert sorted(p.name for p in folder.glob("*.md")) == sorted(pages())


def test_pages_are_linked_from_the_readme_and_the_ruleset_docs() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    for name in available_rulesets():
        assert f"](docs/reference/{name}.md)" in readme
        assert f"](reference/{name}.md)" in (REPO / "docs" / f"{name}.md").read_text(encoding="utf-8")


def test_the_page_shows_a_weapon_row_and_an_assumption() -> None:
    page = (REPO / "docs" / "reference" / "cortex.md").read_text(encoding="utf-8")
    assert "| revolver | agility | guns | pistols | d8 | W | 75 | 3 | 6 | 1 |" in page
    assert "### `gunslinger`: Gunslinger" in page
    assert "- **ties**: a roll equal to the Difficulty succeeds." in page


def test_unknown_ruleset_is_one_line_with_a_suggestion() -> None:
    r = invoke("rulesets", "cortx")
    assert r.exit_code == 2
    assert r.stdout == ""
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert "unknown ruleset 'cortx'" in lines[0] and "did you mean 'cortex'?" in lines[0]
    assert "Traceback" not in r.stderr


def test_rulesets_without_a_name_still_lists_them_all() -> None:
    r = invoke("rulesets", "--json")
    assert r.exit_code == 0
    assert [i["name"] for i in json.loads(r.stdout)] == available_rulesets()
