"""The corpus of hostile inputs (issue #34): "each gets exit 2 and one line naming file and
field, within a time and memory bound checked by the test".

The small files live in tests/hostile/; the large or special ones (a 2000x2000 map, 10,000
figures, a 9 MB file, 100,000 nested brackets, a FIFO, /dev/zero, a zip bomb, edited saves)
are made here. Every case runs as the console script in its own forked process
(tests/hostile_runner.py) with its address space capped and a kill timer; the test checks
the exit status, that stderr is one line naming the file and the field, the wall time
(`TIME_S`) and the peak memory beyond the runner's (`MEMORY_MB`).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

from rules.limits import MAX_FILE_BYTES

HERE = Path(__file__).parent
CORPUS = HERE / "hostile"
TIME_S = 5.0
MEMORY_MB = 500

DUEL_TEAMS = ('teams:\n  - {name: a, combatants: [{id: x, template: gunslinger, at: [0, 0]}]}\n'
              '  - {name: b, combatants: [{id: y, template: gunslinger, at: [3, 1]}]}\n')


def _write(p: Path, text: str) -> str:
    p.write_text(text, encoding="utf-8")
    return str(p)


def _made(tmp: Path) -> dict[str, str]:
    """The generated part of the corpus: name -> path."""
    m: dict[str, str] = {}
    m["deep_json"] = _write(tmp / "deep.json", "[" * 100_000 + "]" * 100_000)
    m["deep_yaml"] = _write(tmp / "deep.yaml", "a: " + "[" * 100_000 + "]" * 100_000 + "\n")
    m["deep_ok_size"] = _write(tmp / "deep_mapping.json", '{"a":' * 60 + "1" + "}" * 60)
    rows = "\n".join(f"    - \"{'.' * 2000}\"" for _ in range(2000))
    m["big_map"] = _write(tmp / "big_map.yaml", f"name: big\nruleset: cortex\nmap:\n  rows:\n{rows}\n" + DUEL_TEAMS)
    figs = "\n".join(f"      - {{id: f{i}, template: gunslinger, at: [{i % 100}, {i // 100}]}}" for i in range(10_000))
    m["many_figures"] = _write(tmp / "many.yaml", "name: many\nruleset: cortex\nmap:\n  rows:\n"
                               + "\n".join(f"    - \"{'.' * 100}\"" for _ in range(100))
                               + f"\nteams:\n  - name: a\n    combatants:\n{figs}\n"
                               + "  - {name: b, combatants: [{id: y, template: gunslinger, at: [3, 1]}]}\n")
    doc = {"name": "many", "ruleset": "cortex", "map": {"rows": ["." * 100] * 100},
           "teams": [{"name": "a", "combatants": [{"id": f"f{i}", "template": "gunslinger", "at": [i % 100, i // 100]}
                                                  for i in range(10_000)]},
                     {"name": "b", "combatants": [{"id": "y", "template": "gunslinger", "at": [3, 1]}]}]}
    m["many_json"] = _write(tmp / "many.json", json.dumps(doc))
    m["oversized"] = _write(tmp / "oversized.yaml", "# " + "x" * (MAX_FILE_BYTES + 10) + "\n")
    fifo = tmp / "fifo.yaml"
    os.mkfifo(fifo)
    m["fifo"] = str(fifo)
    # a zip bomb: one member of 300 MB of zeros, about 300 KB packed
    bomb = tmp / "bomb.npz"
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as zf:
        with zf.open("w.npy", "w", force_zip64=True) as fh:
            block = bytes(2 ** 20)
            for _ in range(300):
                fh.write(block)
    m["bomb"] = str(bomb)
    # the shipped policy with one weight of the wrong shape
    src = HERE.parent / "tactica" / "policies" / "metalface.npz"
    with np.load(src, allow_pickle=False) as z:
        arrays = {k: z[k] for k in z.files}
    key = next(k for k in sorted(arrays) if k.endswith(".w") and arrays[k].ndim == 2)
    arrays[key] = arrays[key][:, :-1]
    np.savez(tmp / "wrong_shape.npz", **arrays)
    m["wrong_shape"] = str(tmp / "wrong_shape.npz")
    m.update(_saves(tmp))
    return m


def _saves(tmp: Path) -> dict[str, str]:
    """A real autopilot save of the duel, then copies edited as a hostile user would."""
    from tactica.table import Session

    good = tmp / "good_save.json"
    s = Session.new("cortex/duel", seed=1, save_path=good)
    s.begin()
    s.resolve(s.plan().action)
    d = json.loads(good.read_text())
    st = d["state"] if "state" in d else d
    figs = st["combatants"]
    first = next(iter(figs))
    out = {"good_save": str(good)}

    def edited(name: str, change) -> None:
        doc = json.loads(good.read_text())
        change(doc["state"] if "state" in doc else doc)
        out[name] = _write(tmp / f"{name}.json", json.dumps(doc))

    edited("save_wrapped_pos", lambda x: x["combatants"][first].update(pos=[500, 0]))
    edited("save_dice_face", lambda x: x["dice"].update(buf=[1.5]))
    edited("save_order", lambda x: x.update(order=["nobody"]))
    edited("save_escape_name", lambda x: x["scenario"]["teams"][0]["combatants"][0].update(name="\x1b]0;pwn\x07"))
    edited("save_economy_mode", lambda x: x["economy"].pop("mode"))        # the API state fuzz found these
    edited("save_economy_list", lambda x: x["economy"].update(move_units=[1, 2]))
    edited("save_res_list", lambda x: x["combatants"][first]["res"].update(afflictions={"a": 1}, lost=5))
    edited("save_deep", lambda x: x.update(economy=json.loads("[" * 200 + "]" * 200)))
    return out


CASES = [  # id, argv ({H}: tests/hostile, {name}: a made file), field the error must name
    ("laughs_validate", ["validate", "{H}/billion_laughs.yaml"], "(file)"),
    ("laughs_simulate", ["simulate", "{H}/billion_laughs.yaml", "-n", "1"], "(file)"),
    ("laughs_autopilot", ["autopilot", "{H}/billion_laughs.yaml", "--save", "{T}/laughs.save.json"], "(file)"),
    ("laughs_tune", ["tune", "{H}/billion_laughs.yaml", "--target-win", "0.5", "-o", "{T}/laughs.tuned.yaml"], "(file)"),
    ("laughs_difficulty", ["difficulty", "{H}/billion_laughs.yaml", "-n", "10"], "(file)"),
    ("tiny_cell", ["simulate", "{H}/tiny_cell.yaml", "-n", "1"], "map.cell_m"),
    ("inf_cell", ["validate", "{H}/inf_cell.yaml"], "map.cell_m"),
    ("huge_cell", ["validate", "{H}/huge_cell.yaml"], "map.cell_m"),
    ("big_number", ["validate", "{H}/big_number.yaml"], "teams[0].combatants[0].attributes.agility"),
    ("huge_int", ["validate", "{H}/huge_int.json"], "(file)"),
    ("nan", ["simulate", "{H}/nan.json", "-n", "1"], "round_limit"),
    ("lone_surrogate", ["validate", "{H}/lone_surrogate.json"], "teams[0].combatants[0].id"),
    ("escape_name", ["validate", "{H}/escape_name.json"], "teams[0].combatants[0].id"),
    ("long_name", ["validate", "{H}/long_name.json"], "teams[0].name"),
    ("deep_json", ["validate", "{deep_json}"], "(file)"),
    ("deep_yaml", ["simulate", "{deep_yaml}", "-n", "1"], "(file)"),
    ("deep_mapping", ["validate", "{deep_ok_size}"], "(document)"),
    ("big_map", ["validate", "{big_map}"], "map.rows"),
    ("many_figures", ["simulate", "{many_figures}", "-n", "1"], "(file)"),
    ("many_figures_json", ["simulate", "{many_json}", "-n", "1"], "teams"),
    ("oversized", ["validate", "{oversized}"], "(file)"),
    ("fifo", ["validate", "{fifo}"], "(file)"),
    ("dev_zero", ["simulate", "/dev/zero", "-n", "1"], "(file)"),
    ("zip_bomb", ["simulate", "metalface/foundry", "-n", "1", "-p", "*={bomb}"], "(file)"),
    ("wrong_shape", ["simulate", "metalface/foundry", "-n", "1", "-p", "*={wrong_shape}"], "(arrays)"),
    ("wrong_ruleset", ["simulate", "cortex_hu/csarda", "-n", "1", "-p", "*={P}"], "--policy"),
    ("seed_negative", ["simulate", "-n", "1", "--seed", "-1"], "--seed"),
    ("generated_too_many", ["evaluate", "--ruleset", "cortex", "--generated", "100000000"], "--generated"),
    ("save_wrapped_pos", ["autopilot", "--resume", "{save_wrapped_pos}"], ".pos"),
    ("save_dice_face", ["autopilot", "--resume", "{save_dice_face}"], "dice.buf[0]"),
    ("save_order", ["autopilot", "--resume", "{save_order}"], "order[0]"),
    ("save_escape_name", ["autopilot", "--resume", "{save_escape_name}"], "teams[0].combatants[0].name"),
    ("save_deep", ["autopilot", "--resume", "{save_deep}"], "(document)"),
    ("save_economy_mode", ["autopilot", "--resume", "{save_economy_mode}"], "state"),
    ("save_economy_list", ["autopilot", "--resume", "{save_economy_list}"], "state"),
    ("save_res_list", ["autopilot", "--resume", "{save_res_list}"], "state"),
    ("suggest_economy", ["suggest", "{save_economy_mode}"], "state"),
    ("uvtt_huge", ["validate", "{H}/uvtt_huge.yaml"], "resolution.map_size"),
    ("uvtt_huge_import", ["import-map", "{H}/huge_map.dd2vtt", "-o", "{T}/huge_map.yaml"], "resolution.map_size"),
    ("suggest_deep", ["suggest", "{save_deep}"], "(document)"),
]


#: cases whose error names another file than the one on the command line: the map an encounter names
NAMED = {"uvtt_huge": "huge_map.dd2vtt"}


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> dict[str, dict]:
    tmp = tmp_path_factory.mktemp("hostile")
    made = _made(tmp)
    subs = {"H": str(CORPUS), "T": str(tmp), "P": str(HERE.parent / "tactica" / "policies" / "metalface.npz"),
            **made}
    cases = [{"id": cid, "argv": [a.format(**subs) for a in argv], "stdin": "quit\n"} for cid, argv, _ in CASES]
    cf, rf = tmp / "cases.json", tmp / "results.json"
    cf.write_text(json.dumps(cases))
    env = {**os.environ, "PYTHONPATH": str(HERE.parent), "COLUMNS": "200", "TERM": "dumb"}
    subprocess.run([sys.executable, str(HERE / "hostile_runner.py"), str(cf), str(rf)], check=True, env=env,
                   timeout=600)
    out = {r["id"]: r for r in json.loads(rf.read_text())}
    for r, c in zip(out.values(), cases):
        r["argv"] = c["argv"]
    return out


def _named_file(argv: list[str]) -> str | None:
    """The file the command was given (the error must name it), if any."""
    for a in argv:
        v = a.split("=", 1)[1] if a.startswith("*=") else a
        if os.path.exists(v):  # bundled names and files still to write are not paths that exist
            return v
    return None


@pytest.mark.parametrize("cid,argv,field", CASES, ids=[c[0] for c in CASES])
def test_a_hostile_input_gets_one_line_naming_the_file_and_the_field(results, cid, argv, field):
    r = results[cid]
    err = r["stderr"].strip()
    assert r["code"] == 2, f"{cid}: status {r['code']} signal {r.get('signal')}\n{err[-2000:]}"
    assert "Traceback" not in r["stderr"], err
    assert len(err.splitlines()) == 1, f"{cid}: not one line:\n{err}"
    assert field in err, f"{cid}: the error does not name {field!r}: {err}"
    if cid not in ("seed_negative", "generated_too_many"):
        f = NAMED.get(cid) or _named_file(r["argv"])
        assert f is not None and (f in err or Path(f).name in err), f"{cid}: the file is not named: {err}"
    assert r["wall_s"] < TIME_S, f"{cid}: {r['wall_s']} s"
    assert r["peak_extra_mb"] < MEMORY_MB, f"{cid}: {r['peak_extra_mb']} MB"


def test_the_corpus_files_are_all_used():
    used = {a.split("/")[-1] for _, argv, _ in CASES for a in argv if a.startswith("{H}/")} | set(NAMED.values())
    assert {p.name for p in CORPUS.iterdir()} == used


def test_the_good_save_still_resumes(results, tmp_path):
    """The edits are what is refused: the save they were made from loads."""
    from tactica.table import Session
    good = next(r for r in results.values() if r["id"] == "save_order")["argv"][-1].replace("save_order", "good_save")
    s = Session.resume(good)
    assert s.battle.state.round >= 1
