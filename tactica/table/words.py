"""Actions in words: the command that gives an action, its JSON form, its odds, its description."""


from __future__ import annotations

from typing import Any


from rules.actions import KIND_VERBS, Action, option_words, use_words, weapon_phrase
from rules.state import BattleState


def cell_xy(state: BattleState, cell: int) -> list[int]:
    return list(state.grid.xy(cell))


def action_json(state: BattleState, action: Action) -> dict[str, Any]:
    """`Action.to_dict()` with the cell also given as [x, y] (`at`)."""
    d = action.to_dict()
    if action.cell is not None:
        d["at"] = cell_xy(state, action.cell)
    return d


def command_for(state: BattleState, action: Action) -> str:
    """The short command that selects `action` (what a GM would type)."""
    k = action.kind
    if k == "end_turn":
        return "end"
    if k == "move":
        x, y = state.grid.xy(action.cell)
        return f"move {x} {y}"
    if k == "drop_prone":
        return "prone"
    if k == "defend":
        return f"defend {action.option}"
    if k == "grapple" and action.option in ("escape", "release"):
        return action.option
    if k == "use" and action.option and action.option.startswith("plot_points:"):
        return f"pp {action.option.split(':')[1]}"
    bits = ["pickup" if k == "pick_up" else k]
    if action.target:
        bits.append(action.target)
    if action.cell is not None:
        x, y = state.grid.xy(action.cell)
        bits += [str(x), str(y)]
    if action.weapon:
        bits.append(action.weapon)
    if action.option:
        bits.append(action.option)
    return " ".join(bits)


def odds_words(state: BattleState, action: Action) -> str:
    """'80% to hit, 7.2 expected damage' for attack-like actions, else ''."""
    from rules.ruleset import get_ruleset

    actor = state.actor
    if actor is None or action.kind not in ("attack", "grapple", "suppress", "feint"):
        return ""
    try:
        o = get_ruleset(state.ruleset).attack_odds(state, actor, action)
    except Exception:  # noqa: BLE001 - odds are only a hint
        return ""
    if not o:
        return ""
    return f"{o.get('p_hit', 0):.0%} to hit, {o.get('exp_damage', 0):.1f} expected damage"


def cannot_succeed(state: BattleState, action: Action) -> bool:
    """An attack or grapple of the acting figure with no chance to hit (the ruleset's odds say
    0%): such options are listed last and never suggested."""
    if action.kind not in ("attack", "grapple") or state.actor is None:
        return False
    from rules.ruleset import get_ruleset
    try:
        o = get_ruleset(state.ruleset).attack_odds(state, state.actor, action)
    except Exception:  # noqa: BLE001 - odds are only a hint
        return False
    return bool(o) and float(o.get("p_hit", 0.0)) <= 0.0


def action_note(state: BattleState, action: Action) -> str:
    """A short note for a numbered list: odds for attacks, distance and cover for moves, what a
    defence does."""
    if action.kind == "move":
        d = describe_action(state, action)
        return d[d.index("(") + 1:-1] if "(" in d else ""
    if action.kind == "defend":
        from rules.ruleset import get_ruleset
        return get_ruleset(state.ruleset).defend_words.get(action.option or "", "")
    return odds_words(state, action)


def move_facts(state: BattleState, action: Action, attacks: bool = False) -> dict[str, Any] | None:
    """What a move of the acting figure really is, read off the rules by trying it on a copy
    with throwaway dice: `metres` along its path, `mode` (walk, run, ... in the ruleset's
    words), `ends_turn`, and `rolls` (the move asks for a roll, e.g. a cortex_hu run); with `attacks`,
    `no_attack_after` (no attack is open after it where one was before). None when the rules cannot say without
    a question or the move is not legal."""
    from agents.reasons import tried_move
    from rules.dice import Dice

    if action.kind != "move" or state.actor is None:
        return None
    f = tried_move(state, state.actor, action, Dice(0), attacks=attacks)
    return f if f is None else f | {"metres": round(f["metres"], 2)}


def move_words(facts: dict[str, Any] | None, straight_m: float) -> str:
    """'7.5 m path, a run that ends the turn' (or the straight distance when unknown)."""
    if facts is None:
        return f"{straight_m:.1f} m"
    bits = [f"{facts['metres']:.1f} m path"]
    mode = facts["mode"]
    article = "an" if mode[:1] in "aeiou" else "a"
    what = f"{article} {mode}"
    if facts["ends_turn"]:
        what += " that ends the turn"
    elif facts.get("no_attack_after"):
        what += ", no attack after it"
    if facts["rolls"]:
        what += " (with a roll)"
    bits.append(what)
    return ", ".join(bits)


def describe_action(state: BattleState, action: Action, with_odds: bool = True) -> str:
    """A plain description of an action of the acting figure."""
    k = action.kind
    g = state.grid
    actor = state.actor
    if k == "end_turn":
        return "end the turn"
    if k == "move":
        d = g.distance_m(actor.pos, action.cell) if actor is not None else 0.0
        cover = ""
        x0, y0 = g.xy(action.cell)
        near = max((g.cover_level[g.index(x0 + dx, y0 + dy)] for dx in (-1, 0, 1) for dy in (-1, 0, 1)
                    if (dx or dy) and g.in_bounds(x0 + dx, y0 + dy)), default=0)
        if near:
            from rules.grid import COVER_NAMES
            cover = f", next to {COVER_NAMES[min(near, 4)]} cover"
        return f"move to {cell_xy(state, action.cell)} ({move_words(move_facts(state, action, True), d)}{cover})"
    if k == "choose":   # as the reasons say it: "answer innate defence: roll"
        from agents.reasons import label
        return label(state, action)
    if k == "use" and not action.weapon:
        return use_words(action.option)
    bits = [KIND_VERBS.get(k, k.replace("_", " "))]
    if action.target:
        t = state.by_id.get(action.target)
        bits.append(t.name if t else action.target)
    if action.weapon:
        bits.append(weapon_phrase(k, action.weapon))
    if action.cell is not None and k != "move":
        bits.append(f"at {cell_xy(state, action.cell)}")
    if action.option:
        bits.append(f"({option_words(action.option)})")
    text = " ".join(bits)
    if with_odds:   # the odds of an attack, what a defence does
        o = action_note(state, action) if k == "defend" else odds_words(state, action)
        if o:
            text += f" - {o}"
    return text


