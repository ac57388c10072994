"""The observation encoding in words: one row per number, rendered as docs/observations.md.

Everything here is read from the tables the encoder itself uses (envs/features.py: grid
channels and unit features; each ruleset's `economy_table`; the constants of
envs/encoding.py) and from the registered envs' spaces, so the docs cannot drift from the
code; tests/test_observation_docs.py re-renders the page and compares.

    python -m envs.describe > docs/observations.md

`encoding_fingerprint(env)` hashes an env's encoding (its rows, its observation space and
its action layout); tests/test_env_versions.py pins it per registered id, so a change to
the encoding must raise the id's version.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, NamedTuple

from envs.encoding import ADVICE_PARTS, ADVICE_ROWS, CLOCK_SLOT, ECON_HIGH, ECON_LEN, ECON_LOW, PARTS_ROWS
from envs.features import GRID, UNITS
from rules.features import Feature
from rules.ruleset import Ruleset, available_rulesets, get_ruleset

REGENERATE = "PYTHONPATH=$PWD python -m envs.describe > docs/observations.md"

#: `cover`'s two columns per enemy slot (the same numbers as the unit rows' last two base columns)
COVER = (Feature("cover_vs_actor", "the cover the enemy in the slot has against the acting figure", "level / 4"),
         Feature("actor_cover_vs", "the cover the acting figure has against the enemy in the slot", "level / 4"))
#: `advice`'s rows (envs/advice.py), each over the action layout
ADVICE = (Feature("pick", "1 at the advisor's pick (the best-scored action the layout can express)"),
          Feature("score", "each action the advisor ranked: its score relative to the advisor's best",
                  "max(0.05, 1 + score - best score), in fractions of a figure's health; 0 when not ranked"))
#: `advice_parts`' rows (envs/advice.py; agents/tactical_types.py `ScoreParts`), each over the action
#: layout; 0 at the actions the advisor did not rank
PARTS = (Feature("hit", "each action the advisor ranked: the chance to hit of its attack; for a move to a firing "
                 "position it priced, of the best attack it found from there this turn; 0 otherwise", "probability"),
         Feature("damage", "the same attack's expected damage against the target's health left (the advisor's "
                 "`hp_left`)", "expected damage / health left, at most 1"),
         Feature("exposure", "the expected share of the acting figure's health a turn of the enemies' fire costs at "
                 "the action's end cell (its own cell but for a move): from the enemies' own odds where the advisor "
                 "priced them, else its geometric estimate; not weighted by the advisor's caution",
                 "share of own health, at most 1"))
assert tuple(f.name for f in PARTS) == ADVICE_PARTS
#: the optional clock's economy slot
CLOCK = Feature("clock", "only with `clock=True` (otherwise 0): the rounds left before the round limit, this one "
                "included", "rounds left / round limit (1 in the first round, 1/limit in the last)")


class Row(NamedTuple):
    """One number of the observation: its block, index in the block, name, meaning, scaling and range."""

    block: str
    index: int
    name: str
    meaning: str
    scaling: str
    low: float | None
    high: float | None


def _rows(block: str, table: tuple[Feature, ...], start: int = 0) -> list[Row]:
    return [Row(block, start + i, f.name, f.meaning, f.scaling, f.low, f.high) for i, f in enumerate(table)]


def economy_rows(ruleset: Ruleset) -> list[Row]:
    """The economy's named slots for a ruleset (as `Layout.econ_names` orders them), then the clock."""
    table = {f.name: f for f in ruleset.economy_table}
    names = tuple(ruleset.economy_features)[:CLOCK_SLOT]
    out = []
    for i, name in enumerate(names):
        f = table.get(name, Feature(name, "(not described: the ruleset has no `economy_table` row)", "raw",
                                    ECON_LOW, ECON_HIGH))
        out.append(Row("economy", i, name, f.meaning, f.scaling, f.low, f.high))
    out.append(Row("economy", CLOCK_SLOT, CLOCK.name, CLOCK.meaning, CLOCK.scaling, CLOCK.low, CLOCK.high))
    return out


def describe_encoding(ruleset: Ruleset | str, parts: bool = False) -> list[Row]:
    """Every number the observation of a ruleset holds: grid channels, unit features, cover
    columns, economy slots (with the clock's) and advice rows, in order; with `parts`, the
    `advice_parts` rows too (only an env with `advice_parts=True` has them)."""
    rs = get_ruleset(ruleset) if isinstance(ruleset, str) else ruleset
    return (_rows("grid", GRID) + _rows("units", UNITS) + _rows("cover", COVER) + economy_rows(rs)
            + _rows("advice", ADVICE) + (_rows("advice_parts", PARTS) if parts else []))


def _space_json(space: Any) -> Any:
    if hasattr(space, "spaces"):
        return {k: _space_json(v) for k, v in space.spaces.items()}
    return {"shape": list(space.shape), "dtype": str(space.dtype), "low": float(space.low.min()),
            "high": float(space.high.max())}


def encoding_fingerprint(env: Any) -> str:
    """16 hex digits of SHA-256 over an env's encoding: its ruleset's rows (block, index, name,
    scaling, range; not the meanings' wording), its observation space (shapes, dtypes, bounds)
    and its action layout (`Layout.fingerprint`)."""
    env = getattr(env, "unwrapped", env)
    rows = [[r.block, r.index, r.name, r.scaling, r.low, r.high]
            for r in describe_encoding(env.rs, getattr(env, "advice_parts", False))]
    data = {"rows": rows, "space": _space_json(env.observation_space),
            "layout": env.fingerprint()}
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()[:16]


# -- the page -------------------------------------------------------------------------
def _span(r: Row) -> str:
    return Feature(r.name, "", "", r.low, r.high).span()


def _table(rows: list[Row]) -> list[str]:
    out = ["| index | name | meaning | scaling | range |", "|---|---|---|---|---|"]
    out += [f"| {r.index} | `{r.name}` | {r.meaning} | {r.scaling} | {_span(r)} |" for r in rows]
    return out


def _registered_envs() -> list[tuple[str, Any]]:
    from envs.registration import registered_ids
    from envs.skirmish import SkirmishEnv
    return [(env_id, SkirmishEnv(**kw)) for env_id, kw in registered_ids().items()]


def render_markdown() -> str:
    """docs/observations.md, from the code."""
    envs = _registered_envs()
    n_units = len(UNITS)
    spaces = envs[0][1].layout.spaces(advice=True, parts=True).spaces
    box = {k: f"{float(v.low.min()):g} .. {float(v.high.max()):g}" for k, v in spaces.items()}
    lines = [
        "# Observations",
        "",
        f"Generated from the code by `{REGENERATE}`; do not edit by hand",
        "(tests/test_observation_docs.py re-renders it and checks the ranges on real fights).",
        "The tables come from envs/features.py (grid channels, unit features), each ruleset's",
        "`economy_table` (rules/systems/<name>/economy_table.py) and envs/encoding.py; the",
        "encoder reads its names and their order from the same tables.",
        "",
        "## Keys",
        "",
        "`SkirmishEnv`'s observation is a `Dict` (float32 boxes). H x W is the padded map",
        "(`map_size`), A the ally slots (`max_allies`), E the enemy slots (`max_enemies`), N the",
        "number of actions. Maps smaller than H x W are padded (padding: `in_map` 0, `impassable` 1).",
        "",
        "| key | shape | box | what |",
        "|---|---|---|---|",
        f"| `grid` | ({len(GRID)}, H, W) | {box['grid']} | one channel per row of [Grid channels](#grid-channels) |",
        f"| `cover` | (E, {len(COVER)}) | {box['cover']} | per enemy slot, the columns of [Cover](#cover) |",
        f"| `economy` | ({ECON_LEN},) | {box['economy']} | the ruleset's [economy](#economy) "
        f"(clipped to the box), zeros after it; slot {CLOCK_SLOT} the clock |",
        f"| `units` | (1 + A + E, {n_units}) | {box['units']} | row 0 the acting figure (empty in a neutral view), "
        "then the ally slots, "
        "then the enemy slots (scenario order; see [Unit features](#unit-features)); an empty slot is zeros |",
        f"| `advice` | ({ADVICE_ROWS}, N) | {box['advice']} | only with `advice=`: [Advice](#advice) |",
        f"| `advice_parts` | ({PARTS_ROWS}, N) | {box['advice_parts']} | only with `advice=` and `advice_parts=True`: "
        "[Advice parts](#advice-parts) |",
        "| `to_act` | (1 + A + E,) | 0 .. 1 | only with `turn_order=True`: per unit slot (the `units` rows' order), "
        "1 while that figure comes after the acting figure in this round's initiative order (or owns the turn "
        "while the acting figure answers a question): it takes a turn "
        "before the round ends if it stands then (`down` says which are down; some rulesets keep a downed figure's "
        "place, and it may come to there); 0 for the acting figure (unless it answers a question and its own turn "
        "is still to come), a figure that has had its turn or has no "
        "place in the order, and an empty slot; in the PettingZoo envs (`turn_order=True` there too) slot 0 is the "
        "agent's own figure, flagged while its own turn is still to come this round. A policy exported with it "
        "refuses an env without it (the layout fingerprint's `to_act`) |",
        "",
        "Beside the observation: `info[\"action_mask\"]` (int8, N) and `action_masks()` (bool) mark",
        "the legal actions; its move block (indices 1 .. H x W, `1 + y * W + x`) is the `reachable`",
        "channel. `describe_action(i)` says what index i means; `grid_channels` and `economy_names`",
        "give the names. When no figure of the agent's team is acting (the fight is over), the view",
        "is neutral: no acting figure, unit `dx`/`dy` are positions (column / W, row / H), the",
        "economy is zeros. The PettingZoo AEC env (envs/multiagent.py) gives each agent",
        "`{\"observation\": <this dict, from its figure's side>, \"action_mask\": int8 (N)}`; while",
        "its figure is not acting, its economy and `reachable` are zeros and its mask is all zeros.",
        "The parallel env (envs/parallel.py) gives the same, except that a waiting agent's mask allows",
        "only action 0, which is ignored. With `flat=True` both give `observation` as one float32",
        "vector: the dict's keys in alphabetical order, each flattened row-major (`envs.flat.flat_order`",
        "gives each key's slice).",
        "",
        "## Shapes of the registered ids",
        "",
        "| id | ruleset | grid | cover | economy | units | actions |",
        "|---|---|---|---|---|---|---|",
    ]
    for env_id, env in envs:
        sp = env.observation_space.spaces
        lines.append(f"| `{env_id}` | {env.rs.name} | {sp['grid'].shape} | {sp['cover'].shape} | "
                     f"{sp['economy'].shape} | {sp['units'].shape} | {env.action_space.n} |")
    lines += ["", "## Grid channels", "", "Per cell of the padded map (`grid[c, y, x]`).", ""]
    lines += _table(_rows("grid", GRID))
    lines += ["", "## Unit features", "",
              "Per slot (`units[slot, f]`). Positions are measured in cells of the map; conditions are the "
              "generic names rulesets use (docs/ruleset-guide.md).", ""]
    lines += _table(_rows("units", UNITS))
    lines += ["", "## Cover", "", "Per enemy slot (`cover[e, k]`); 0 in a neutral view.", ""]
    lines += _table(_rows("cover", COVER))
    lines += ["", "## Economy", "",
              "The acting figure's action economy (`economy[i]`), the ruleset's own numbers (`Ruleset.economy()`,",
              f"unscaled unless the row says), clipped to {ECON_LOW:g} .. {ECON_HIGH:g}; zeros in a neutral view "
              f"and in the unused slots; slot {CLOCK_SLOT} is the clock's. \"No fixed bound\" means the "
              "ruleset's data and the figures' stats set it.", ""]
    for name in available_rulesets():
        rs = get_ruleset(name)
        lines += [f"### {name}", ""] + _table(economy_rows(rs)) + [""]
    lines += ["## Advice", "",
              "Only in an env made with `advice=\"tactical\"` or `\"bold\"` (envs/advice.py): `advice[row, i]` "
              "for each action index i.", ""]
    lines += _table(_rows("advice", ADVICE))
    lines += ["", "## Advice parts", "",
              "Only in an env made with `advice=` and `advice_parts=True` (envs/advice.py): `advice_parts[row, i]` "
              "for each action index i, the parts of the score `advice` row 1 shows, as the advisor's own ranking "
              "computed them (no second ranking). All 0 at the actions it did not rank, at illegal ones and at "
              "the answers to a rules question. A policy exported with them refuses an env without them "
              "(the layout fingerprint's `advice_parts`).", ""]
    lines += _table(_rows("advice_parts", PARTS))
    lines += ["", "## Versions", "",
              "An env id ends in its version (`tactica/<Name>-vN`; a scenario's id takes its ruleset's",
              "`version`, `tactica/Skirmish-vN` the number in envs/registration.py). Any change to the",
              "encoding (a channel, feature or economy field added, removed, renamed, reordered, rescaled or",
              "given another range; a shape; the action layout) must raise the version of every id it changes.",
              "tests/test_env_versions.py pins `encoding_fingerprint` (envs/describe.py) per registered id and",
              "fails with \"the encoding changed: raise the env id's version (tactica/<Name>-vN) and update the",
              "pin\" until both are done; then regenerate this page. A change to the numbers an observation",
              "holds is also seen by tests/env_digests.py (seeded episodes of every id, digest by digest).", ""]
    return "\n".join(lines)


def main() -> None:
    print(render_markdown(), end="")


if __name__ == "__main__":
    main()
