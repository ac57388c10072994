"""Strict validation (issue #35): "Unknown keys are refused with a suggestion (a skill `gunz`
-> 'did you mean guns?'), in figures, templates overrides, settings and tuning knobs;
duplicate YAML keys are refused. A tuning knob is validated by `validate`, not first by
`tune`. `tactica new NAME --ruleset R` writes a commented starter encounter that validates."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from rules.errors import ScenarioError, TacticaError, UnknownNameError
from rules.limits import load_text
from rules.scenario import build_state, parse_scenario, resolve_scenario
from tactica.cli import app
from tactica.newfile import starter

RULESETS = ("cortex", "cortex_hu", "metalface", "cybergeneration")
#: a bundled scenario per ruleset, and a skill typo with the skill it is a typo of
TYPOS = {"cortex": ("cortex/duel", "gunz", "guns", "d6"), "cortex_hu": ("cortex_hu/les", "perceptoin", "perception", "d6"),
         "metalface": ("metalface/foundry", "firearm", "firearms", 1),
         "cybergeneration": ("cybergeneration/alley_brawl", "streetfihgting", "streetfighting", 3)}


def doc_of(name: str) -> dict:
    return copy.deepcopy(resolve_scenario(name)[0])


def refused(doc: dict) -> TacticaError:
    with pytest.raises(TacticaError) as e:
        build_state(parse_scenario(doc, "enc.yaml"), "enc.yaml")
    return e.value


def first(doc: dict) -> dict:
    return doc["teams"][0]["combatants"][0]


def cli(*args: str) -> tuple[int, str, str]:
    r = CliRunner().invoke(app, list(args))
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
    return r.exit_code, r.stdout, r.stderr


# -- figures and template overrides --------------------------------------------------------

@pytest.mark.parametrize("ruleset", RULESETS)
def test_a_skill_typo_is_refused_with_the_skill_it_is_a_typo_of(ruleset: str) -> None:
    scen, typo, meant, value = TYPOS[ruleset]
    doc = doc_of(scen)
    first(doc).setdefault("skills", {})[typo] = value  # a template's skills, overridden
    e = refused(doc)
    assert isinstance(e, ScenarioError) and isinstance(e, UnknownNameError)
    assert e.field == f"teams[0].combatants[0].skills.{typo}"
    assert f"did you mean {meant!r}?" in e.detail and meant in e.expected
    first(doc)["skills"][meant] = first(doc)["skills"].pop(typo)  # the skill meant is accepted
    build_state(parse_scenario(doc, "enc.yaml"), "enc.yaml")


@pytest.mark.parametrize("ruleset,key,value,meant", [
    ("cortex", "wepons", ["revolver"], "weapons"),
    ("cortex_hu", "armor", "leather", "armour"),
    ("metalface", "postur", "kneel", "posture"),
    ("cybergeneration", "stat", {"ref": 5}, "stats"),
])
def test_an_unknown_figure_key_is_refused_with_a_suggestion(ruleset: str, key: str, value, meant: str) -> None:
    doc = doc_of(TYPOS[ruleset][0])
    first(doc)[key] = value
    e = refused(doc)
    assert e.field == f"teams[0].combatants[0].{key}" and f"did you mean {meant!r}?" in e.detail, e


@pytest.mark.parametrize("ruleset,group,key,meant", [
    ("cortex", "attributes", "agilty", "agility"),
    ("metalface", "values", "agi", "agl"),
    ("cybergeneration", "stats", "reff", "ref"),
])
def test_a_template_override_of_an_unknown_trait_is_refused(ruleset: str, group: str, key: str, meant: str) -> None:
    doc = doc_of(TYPOS[ruleset][0])
    assert "template" in first(doc)
    first(doc)[group] = {key: 6 if ruleset != "cortex" else "d6"}
    e = refused(doc)
    assert e.field == f"teams[0].combatants[0].{group}.{key}" and f"did you mean {meant!r}?" in e.detail, e


def test_weapon_state_and_condition_names_get_suggestions() -> None:
    doc = doc_of("cortex/duel")
    first(doc)["weapons"] = ["revolvr"]
    assert "did you mean 'revolver'?" in refused(doc).detail
    doc = doc_of("cybergeneration/alley_brawl")
    first(doc)["state"] = {"wounds": 2}
    e = refused(doc)
    assert e.field.endswith("state.wounds") and "did you mean 'wound'?" in e.detail
    doc = doc_of("metalface/foundry")
    first(doc)["conditions"] = ["suffring"]
    assert "did you mean 'suffering'?" in refused(doc).detail


def test_a_cortex_specialty_may_be_coined_but_not_mistyped() -> None:
    doc = doc_of("cortex/duel")
    first(doc)["skills"] = {"guns/pistls": "d8"}
    e = refused(doc)
    assert "did you mean 'guns/pistols'?" in e.detail and e.field.endswith("skills.guns/pistls")
    first(doc)["skills"] = {"guns/harpoons": "d8", "knowledge/history": "d6"}  # coined: far from any known one
    build_state(parse_scenario(doc, "enc.yaml"), "enc.yaml")


# -- settings -------------------------------------------------------------------------------

@pytest.mark.parametrize("scen,key,meant", [("cortex/saloon", "plot_point", "plot_points"),
                                            ("cortex_hu/les", "surprise", "surprised"),
                                            ("cybergeneration/rooftop_standoff", "drop", "drops"),
                                            ("metalface/rooftop", "plot_points", None)])
def test_an_unknown_setting_is_refused(scen: str, key: str, meant: str | None) -> None:
    doc = doc_of(scen)
    doc.setdefault("settings", {})[key] = {}
    e = refused(doc)
    assert e.field == f"settings.{key}", e
    assert (f"did you mean {meant!r}?" in e.detail) if meant else ("takes none" in e.expected)


# -- tuning knobs, checked by validate --------------------------------------------------------

@pytest.mark.parametrize("change,field,words", [
    (lambda k: k[0].update(kind="cuont"), "tuning.knobs[0].kind", "did you mean 'count'?"),
    (lambda k: k[0].update(tema="crew"), "tuning.knobs[0].tema", "did you mean 'team'?"),
    (lambda k: k[0].update(team="syndicat"), "tuning.knobs[0].team", "did you mean 'syndicate'?"),
    (lambda k: k[2].update(figure="heavvy"), "tuning.knobs[2].figure", "did you mean 'heavy'?"),
    (lambda k: k[0].update(template="mercenery"), "tuning.knobs[0].template", "did you mean 'mercenary'?"),
    (lambda k: k[3].update(cells=[[8, 4], [99, 4], [8, 9], [11, 9]]), "tuning.knobs[3].cells[1]", "off the map"),
    (lambda k: k[4].update(min=1, max=0), "tuning.knobs[4]", "min"),
])
def test_validate_checks_the_tuning_knobs(tmp_path: Path, change, field: str, words: str) -> None:
    doc = doc_of("cortex/warehouse")
    change(doc["tuning"]["knobs"])
    f = tmp_path / "enc.yaml"
    f.write_text(yaml.safe_dump(doc, sort_keys=False))
    code, out, err = cli("validate", str(f))
    assert code == 2 and out == "", out
    line = " ".join(err.split())
    assert f"{f}: {field}" in line and words in line, line


def test_validate_counts_the_knobs_of_a_good_tuning_block(tmp_path: Path) -> None:
    f = tmp_path / "enc.yaml"
    f.write_text(yaml.safe_dump(doc_of("cortex/warehouse"), sort_keys=False))
    code, out, _ = cli("validate", str(f))
    assert code == 0 and "5 tuning knob(s)" in out


# -- duplicate keys ---------------------------------------------------------------------------

def test_a_duplicate_yaml_key_is_refused_naming_its_line_and_mapping() -> None:
    text = ("name: t\nruleset: cortex\nteams:\n  - name: a\n    combatants:\n"
            "      - id: x\n        skills: {guns: d6, athletics: d4, guns: d8}\n")
    with pytest.raises(ScenarioError) as e:
        load_text(text, "enc.yaml", "yaml")
    assert e.value.line() == ("enc.yaml: teams[0].combatants[0].skills: duplicate key 'guns' at line 7 "
                              "(expected each key once in a mapping)")
    with pytest.raises(ScenarioError, match="duplicate key 'name' at line 3"):
        load_text("name: t\nruleset: cortex\nname: u\n", "enc.yaml", "yaml")
    # the same key in two mappings, and keys YAML reads as different (1 and '1'), are fine
    assert load_text("a: {b: 1}\nb: {b: 2}\n1: x\n'1': y\n", "enc.yaml", "yaml") == \
        {"a": {"b": 1}, "b": {"b": 2}, 1: "x", "1": "y"}


def test_a_duplicate_json_key_is_refused() -> None:
    with pytest.raises(ScenarioError, match="duplicate key 'round_limit'"):
        load_text('{"name": "t", "round_limit": 5, "round_limit": 9}', "enc.json", "json")
    assert load_text('{"a": {"k": 1}, "k": [{"k": 2}]}', "enc.json", "json") == {"a": {"k": 1}, "k": [{"k": 2}]}


def test_a_duplicate_key_in_a_file_is_one_line_at_the_command_line(tmp_path: Path) -> None:
    f = tmp_path / "enc.yaml"
    text = starter("dup", "cortex").replace("round_limit: 20", "round_limit: 20\nround_limit: 30")
    f.write_text(text)
    code, _, err = cli("validate", str(f))
    assert code == 2 and len(err.strip().splitlines()) == 1 and "duplicate key 'round_limit'" in err


# -- tactica new ------------------------------------------------------------------------------

@pytest.mark.parametrize("ruleset", RULESETS)
def test_new_writes_a_commented_starter_that_validates_and_plays(tmp_path: Path, ruleset: str) -> None:
    f = tmp_path / "start.yaml"
    code, out, err = cli("new", "My fight", "--ruleset", ruleset, "-o", str(f))
    assert code == 0, err
    text = f.read_text()
    assert text.count("\n#") >= 10 and "# tuning:" in text  # explained, with a knob example to uncomment
    code, out, err = cli("validate", str(f))
    assert code == 0 and f"valid {ruleset} scenario: 2 teams, 4 figures" in out, err
    code, out, err = cli("simulate", str(f), "-n", "1", "--json")
    assert code == 0 and json.loads(out)["episodes"] == 1, err
    # the commented-out tuning block and settings validate too once uncommented
    doc = yaml.safe_load(re.sub(r"^# (tuning:|settings:|  )", r"\1", text, flags=re.M).replace("\nsettings: {}\n", "\n"))
    assert doc["tuning"]["knobs"]
    f.write_text(yaml.safe_dump(doc, sort_keys=False))
    code, out, err = cli("validate", str(f))
    assert code == 0 and "3 tuning knob(s)" in out, err


def test_new_never_overwrites_and_names_a_bad_ruleset(tmp_path: Path) -> None:
    f = tmp_path / "mine.yaml"
    f.write_text("my own encounter\n")
    code, _, err = cli("new", "x", "--ruleset", "cortex", "-o", str(f))
    assert code == 2 and "exists" in err and f.read_text() == "my own encounter\n"
    code, _, err = cli("new", "x", "--ruleset", "cortx", "-o", str(tmp_path / "y.yaml"))
    assert code == 2 and "--ruleset" in err and not (tmp_path / "y.yaml").exists()


def test_new_takes_a_name_ending_yaml_as_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`tactica new mine.yaml` writes mine.yaml (not mine.yaml.yaml), the encounter named `mine`."""
    monkeypatch.chdir(tmp_path)
    code, out, err = cli("new", "mine.yaml", "--ruleset", "metalface")
    assert code == 0, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine.yaml"]
    assert yaml.safe_load((tmp_path / "mine.yaml").read_text())["name"] == "mine"
    (tmp_path / "fights").mkdir()
    code, out, err = cli("new", "fights/Ambush.yml", "--ruleset", "cortex")
    assert code == 0 and (tmp_path / "fights" / "Ambush.yml").exists(), err
    # again: never over it, and the error names NAME (where the file's name came from)
    code, _, err = cli("new", "mine.yaml", "--ruleset", "cortex")
    assert code == 2 and "NAME" in err and "exists" in err
    assert yaml.safe_load((tmp_path / "mine.yaml").read_text())["ruleset"] == "metalface"
    code, _, err = cli("new", "nowhere/x.yaml", "--ruleset", "cortex")
    assert code == 2 and "NAME" in err and "existing folder" in err
