"""experiments/player_table.py: issue 31's table of every player against one reference on the
same paired fights. Two players on two held-out maps and two dice seeds, counted by hand."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("player_table", REPO / "experiments" / "player_table.py")
pt = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(pt)


def _pair(a: str, b: str, index: int, per_seed: list[tuple[int, int, int, int]]) -> dict:
    """One map's pair entry as `tactica evaluate --json` writes it; per_seed: (seed, n, a_wins, draws)."""
    n = sum(x[1] for x in per_seed)
    aw = sum(x[2] for x in per_seed)
    dr = sum(x[3] for x in per_seed)
    return {"a": a, "b": b, "scenario": f"generated/metalface/{1_000_000 + index}", "n": n, "a_wins": aw,
            "b_wins": n - aw - dr, "draws": dr,
            "per_seed": [{"seed": s, "n": k, "a_wins": w, "draws": d} for s, k, w, d in per_seed]}


def _file(tmp_path: Path, name: str, pairs: list[dict], seeds=(1, 2)) -> Path:
    p = tmp_path / name
    all_row = {"a": "x", "b": "tactical", "scenario": "all", "n": 0, "a_wins": 0, "b_wins": 0, "draws": 0, "per_seed": []}
    p.write_text(json.dumps({"against": "tactical", "seeds": list(seeds), "pairs": pairs + [all_row]}))
    return p


@pytest.fixture
def files(tmp_path: Path) -> list[Path]:
    # A is the pair's `a`; B is its `b` (tactical listed first), so its wins are the pair's b_wins
    a = _file(tmp_path, "a.json", [_pair("A", "tactical", 0, [(1, 2, 2, 0), (2, 2, 1, 1)]),
                                   _pair("A", "tactical", 1, [(1, 2, 0, 0), (2, 2, 1, 0)])])
    b = _file(tmp_path, "b.json", [_pair("tactical", "B", 0, [(1, 2, 1, 0), (2, 2, 0, 2)]),
                                   _pair("tactical", "B", 1, [(1, 2, 2, 0), (2, 2, 0, 0)])])
    return [a, b]


def test_rows_count_each_players_own_fights_and_pair_them(files: list[Path]) -> None:
    table, ref, seeds, n_maps = pt.rows(files, "metalface", None)
    assert (ref, seeds, n_maps) == ("tactical", [1, 2], 2)
    top, other = table
    assert (top["player"], top["n"], top["wins"], top["losses"], top["draws"]) == ("A", 8, 4, 3, 1)
    assert (other["player"], other["n"], other["wins"], other["losses"], other["draws"]) == ("B", 8, 3, 3, 2)
    assert top["per_seed"] == [0.5, 0.5] and other["per_seed"] == [0.25, 0.5]
    # B less A per (map, seed): -1, -1, 0, +1 wins of 2 fights: -1/8 a fight
    assert other["diff"] == pytest.approx(-0.125)
    assert other["diff_low"] < -0.125 < other["diff_high"]


def test_maps_and_seeds_keep_the_same_fights_for_every_row(files: list[Path]) -> None:
    table, _, seeds, _ = pt.rows(files, "metalface", None, [2])
    counts = {r["player"]: (r["n"], r["wins"], r["draws"]) for r in table}
    assert seeds == [2] and counts == {"A": (4, 2, 1), "B": (4, 2, 2)}
    table, _, _, n_maps = pt.rows(files, "metalface", 1)
    counts = {r["player"]: (r["n"], r["wins"], r["draws"]) for r in table}
    assert n_maps == 1 and counts == {"A": (4, 3, 1), "B": (4, 1, 2)}


def test_unpaired_files_are_refused_with_the_file_and_field(files: list[Path], tmp_path: Path) -> None:
    three = _file(tmp_path, "c.json", [_pair("C", "tactical", 0, [(1, 2, 1, 0), (2, 2, 1, 0), (3, 2, 1, 0)]),
                                       _pair("C", "tactical", 1, [(1, 2, 1, 0), (2, 2, 1, 0), (3, 2, 1, 0)])],
                  seeds=(1, 2, 3))
    with pytest.raises(SystemExit, match=r"c\.json: field 'seeds' is \[1, 2, 3\].*--seeds"):
        pt.rows([*files, three], "metalface", None)
    table, _, _, _ = pt.rows([*files, three], "metalface", None, [1, 2])   # the seeds they share
    assert {r["player"]: r["n"] for r in table} == {"A": 8, "B": 8, "C": 8}
    with pytest.raises(SystemExit, match=r"a\.json: field 'seeds' is \[1, 2\]; --seeds asks for \[3\]"):
        pt.rows([*files, three], "metalface", None, [3])
    own = tmp_path / "table.json"   # a player table's own JSON (rows, no pairs) given as input
    own.write_text(json.dumps({"ruleset": "metalface", "against": "tactical", "seeds": [1, 2], "maps": 2, "rows": []}))
    with pytest.raises(SystemExit, match=r"table\.json: no field 'pairs'.*not a player table's own JSON"):
        pt.rows([*files, own], "metalface", None)
    short = _file(tmp_path, "d.json", [_pair("D", "tactical", 0, [(1, 2, 1, 0), (2, 2, 1, 0)])])
    with pytest.raises(SystemExit, match="D has 1 maps, the others 2"):
        pt.rows([*files, short], "metalface", None)


def test_the_command_prints_the_table(files: list[Path], capsys: pytest.CaptureFixture) -> None:
    pt.main([str(f) for f in files] + ["--ruleset", "metalface", "--seeds", "1,2"])
    out = capsys.readouterr().out
    assert "metalface: 2 held-out maps x 2 seeds x 2 sides, against tactical" in out
    assert "| `A` | 8 | 4 | 3 | 1 | **50.0%** |" in out
    assert "| `B` | 8 | 3 | 3 | 2 | **37.5%** |" in out and "-12.5 (" in out
    with pytest.raises(SystemExit, match="expected whole numbers"):
        pt.main([str(files[0]), "--ruleset", "metalface", "--seeds", "one"])


def test_vs_takes_the_differences_from_the_named_row(files: list[Path], capsys: pytest.CaptureFixture) -> None:
    table, *_ = pt.rows(files, "metalface", None, vs="B")
    assert [r["player"] for r in table] == ["B", "A"]
    assert table[1]["diff"] == pytest.approx(0.125)   # A less B: the sign turns
    # by its label too, and an unknown one names the choices
    pt.main([str(f) for f in files] + ["--ruleset", "metalface", "--name", "B=bee", "--vs", "bee"])
    out = capsys.readouterr().out
    assert "vs `bee`, same fights" in out and "+12.5 (" in out
    with pytest.raises(SystemExit, match="--vs 'C': no such player; expected one of A, B"):
        pt.rows(files, "metalface", None, vs="C")


def test_a_fights_log_gives_the_tables_rows_and_a_partial_one_its_finished_maps(tmp_path: Path) -> None:
    """`--fights-log` files (.jsonl) are read as the evaluate JSON: the same rows from the same run;
    a log cut short counts only the maps every player has finished, and a cut last line is skipped."""
    from envs.generators import heldout_scenarios
    from evaluation.tournament import load_scenarios, round_robin

    scen = load_scenarios(heldout_scenarios("metalface", 2))
    log = tmp_path / "run.jsonl"
    out = round_robin(scen, ["aggressive", "cautious"], 2, [1, 2], against="random", log=log)
    js = tmp_path / "run.json"
    js.write_text(json.dumps(out))
    from_json = pt.rows([js], "metalface", None)
    assert pt.rows([log], "metalface", None) == from_json
    import gzip   # a log kept with the results, gzipped
    packed = tmp_path / "run.jsonl.gz"
    packed.write_bytes(gzip.compress(log.read_bytes()))
    assert pt.rows([packed], "metalface", None) == from_json
    assert from_json[3] == 2 and from_json[0][0]["n"] == 8
    lines = log.read_text().splitlines()
    part = tmp_path / "part.jsonl"
    part.write_text("\n".join([lines[0]] + [x for x in lines[1:] if json.loads(x)["scenario"] == 0])
                    + "\n" + lines[1][:20])
    assert pt.rows([part], "metalface", None) == pt.rows([js], "metalface", 1)
    only_seed_1 = tmp_path / "seed1.jsonl"
    only_seed_1.write_text("\n".join([lines[0]] + [x for x in lines[1:] if json.loads(x)["seed"] == 1]) + "\n")
    with pytest.raises(SystemExit, match="nothing to count"):
        pt.rows([only_seed_1], "metalface", None)
    assert pt.rows([only_seed_1], "metalface", None, [1]) == pt.rows([js], "metalface", None, [1])
