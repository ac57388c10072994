"""The numbers of `roll`, `defence` and `damage` events in words a GM checks (issue #33).

Issue #33, "NPCs that show their numbers": "Roll lines and prompts show every modifier ...
metalface shows the kept die and the modifiers; damage is told in each ruleset's own track
(metalface has Status, not Stun and Wound)." `rules.events.narrate` calls these for those
event types; each is a pure function of one event, so the replay viewer, the terminal and
the API tell the same line.

An event does not name its ruleset, so the line follows what the event carries:

- a roll with `kept` is a METALFACE roll (seed 003): the faces with the kept die in
  brackets, then `modifiers` (numbers added to the kept die) and `dice_modifiers` (dice
  gained or lost);
- a roll whose pool names dice only ("Agility d8 + Guns d6", "smg d8") is a Cortex roll
  (seeds 000, 002): its `modifiers` are die steps on the die in brackets ("(skill)",
  "(vitality)"; none: the action die of cortex_hu, whose `steps` field adds them up), told
  as "stepped down twice";
- any other roll (CyberGeneration, seed 004: "REF 6 + rifle 6 + 1d10") adds its modifiers
  as numbers; those its pool already spells out are not told twice.

The target number is told with its parts where the event has them: `difficulty_parts`
(a list of {source, value}, for any ruleset that adds it), CyberGeneration's `range`,
`cover` and `dodge`, METALFACE's range band, movement and cover, an `opposed` total.

`modifier_words` and `target_words` work on any mapping with a roll's fields (`pool`,
`modifiers`, `dice_modifiers`, `steps`, `difficulty` ...), so a prompt for a roll not yet
made (an announcement) can be told in the same words as the roll line that follows it.
"""

from __future__ import annotations

import re
from typing import Any, Collection, Mapping

_TIMES = {1: "once", 2: "twice"}
_DIE_WORD = re.compile(r"(^|[\s+/])d\d+\b")
_NUMBER_WORD = re.compile(r"(^|[\s+(-])\d+\b(?!\s*d\b)")


def roll_family(e: Mapping[str, Any]) -> str:
    """How a roll's modifiers count: `kept` (METALFACE), `steps` (Cortex) or `points`."""
    if "kept" in e:
        return "kept"
    if "steps" in e:
        return "steps"
    pool = str(e.get("pool") or "")
    if pool and _DIE_WORD.search(pool) and not _NUMBER_WORD.search(pool) and "1d10" not in pool:
        return "steps"
    return "points"


def _times(n: int) -> str:
    return _TIMES.get(n, f"{n} times")


#: what the bracket of a Cortex modifier's source names: the die it steps
_DICE = {"skill", "attribute", "bonus die", "damage die", "action die", "agility", "alertness",
         "intelligence", "strength", "vitality", "willpower"}


def step_words(source: str, value: int, damage: bool = False) -> str:
    """A Cortex step modifier: "multiple actions: skill stepped down once". A source with no
    die in brackets steps the action die (cortex_hu), or the damage die of a damage roll."""
    m = re.fullmatch(r"(.*?)\s*\(([^()]*)\)", source)
    if m and m.group(2) in _DICE:
        why, die = m.group(1), m.group(2)
    else:
        why, die = source, "damage die" if damage else "action die"
    if die == "bonus die":
        return f"{why}: +d{2 * value} bonus die"
    return f"{why}: {die} stepped {'up' if value > 0 else 'down'} {_times(abs(value))}"


def _signed(value: int) -> str:
    return f"{value:+d}"


def _faces(e: Mapping[str, Any]) -> str:
    """The faces rolled: "3(d8)+5(d8)"; METALFACE's kept die in brackets: "4 5 [5]"."""
    dice = [list(d) for d in e.get("dice", [])]
    if "kept" in e:
        faces = [f for _, f in dice]
        if not faces:
            return "no dice to roll"
        k = e["kept"]
        i = max(range(len(faces)), key=lambda j: (faces[j] == k, j)) if k in faces else -1
        words = [f"[{f}]" if j == i else str(f) for j, f in enumerate(faces)]
        return " ".join(words) + f" (kept {k})"
    if not dice and e.get("counts_as") is not None:   # a die the rules set, not rolled (seed 004: "counts as 10")
        return f"the die counts as {e['counts_as']}"
    return "+".join(f"{r}(d{s})" for s, r in dice) or "no dice to roll"


def modifier_words(e: Mapping[str, Any], family: str) -> list[str]:
    """Every modifier of the roll by name and value, in the ruleset's own units."""
    pool = str(e.get("pool") or "")
    keep = {e[k] for k in ("actor", "target") if isinstance(e.get(k), str)}
    out = []
    if family == "kept":
        out += [f"{keys_told(str(m['source']), keep)} {int(m['value']):+d}d" for m in e.get("dice_modifiers", [])
                if m.get("value")]
    for m in e.get("modifiers", []):
        # a trait's or an item's key as words: "glass jaw: vitality stepped down twice"
        src, v = keys_told(str(m.get("source", "?")), keep), int(m.get("value", 0))
        if family == "steps":
            out.append(step_words(src, v, damage=e.get("check") == "damage"))
        elif family == "points" and src in pool:
            continue                      # the pool already says "- 3 called shot (head)"
        elif family != "kept":
            out.append(f"{src} {_signed(v)}")
    if family == "steps" and e.get("steps") and len(e.get("modifiers", [])) > 1:
        out.append(f"action die {_signed(int(e['steps']))} steps in all")
    return out


def target_words(e: Mapping[str, Any]) -> str:
    """The target number with its parts: " vs 19 (range 15 + cover 4)"."""
    if e.get("difficulty") is not None:
        d = e["difficulty"]
        parts = [(p["source"], int(p["value"])) for p in e.get("difficulty_parts", [])]
        if not parts:
            parts = [(k, int(e[k])) for k in ("range", "cover", "dodge")
                     if isinstance(e.get(k), int) and not isinstance(e.get(k), bool)]
            if sum(v for _, v in parts) != d:
                parts = []
        words = " + ".join(f"{k} {v}" for k, v in parts if v)
        notes = []
        if e.get("band"):
            notes.append(f"{e['band']} range")
        for who in ("attacker", "target"):
            if e.get(f"{who}_moved"):
                notes.append(f"{who} {e[f'{who}_moved']}")
        if "cover" in e and "kept" in e:
            notes.append(f"partial cover: {e['cover']}" if e["cover"] else "no cover")
        inner = "; ".join(x for x in [words, ", ".join(notes)] if x)
        return f" vs {d}" + (f" ({inner})" if inner else "")
    if e.get("opposed") is not None:
        return f" vs {e['opposed']} (opposed)"
    return ""


#: a roll's purpose where the event's name does not read as words after "rolls"
PURPOSE_WORDS = {"initiative tie": "to break an initiative tie", "turns knocked out": "for the turns knocked out",
                 "assault rifle (Krav Maga) Basic": "the assault rifle's added Basic damage (Krav Maga)"}
#: a purpose that reads as a fact, not as what is rolled for: "pool stick breaks on 5 or less" -> "rolls whether
#: the pool stick breaks (5 or less)"
_BREAKS = re.compile(r"^(.+) breaks on (\d+) or less$")


#: a question's key as a GM reads it, where its underscores alone do not make it words (rules/choices.py)
QUESTION_WORDS = {"harms_way": "harm's way", "krav_maga_counter": "the Krav Maga counter",
                  "krav_maga_rifle": "the Krav Maga rifle", "plot_points_damage": "Plot Points against damage"}


def question_words(key: str) -> str:
    """"innate defence" for `innate_defence`, "harm's way" for `harms_way`."""
    return QUESTION_WORDS.get(key, key.replace("_", " "))


#: a key as the rules' data spell it ("sniper_rifle", "bypass_armour"), inside a line's text
_KEY = re.compile(r"(?<![\w-])([a-z][a-z0-9]*(?:_[a-z0-9]+)+)(?![\w-])")
_OPTION = re.compile(r"(?<![\w-])(called|plot points):([a-z0-9]+)(?![\w-])")
#: the event fields whose text tells weapons, items, armour and answers by their keys
KEYED_FIELDS = ("weapon", "purpose", "pool", "effect", "armour")


def keys_told(text: str, keep: Collection[str] = ()) -> str:
    """`text` with the data's keys in it as words: "attack with sniper_rifle" -> "attack with sniper
    rifle", "(called:leg)" -> "(called leg)", and the bare-handed attack "attack with unarmed" -> "attack
    unarmed". A GM reads the line; the event keeps the keys. The words in `keep` (figure ids) stay as they are."""
    text = _KEY.sub(lambda m: m.group(1) if m.group(1) in keep else m.group(1).replace("_", " "), text)
    text = _OPTION.sub(r"\1 \2", text)   # an option's key: "(called:leg)" -> "(called leg)"
    return re.sub(r"^attack with unarmed\b", "attack unarmed", text)


def roll_head(actor: str, purpose: str) -> str:
    """"Zoe rolls damage", or, where the purpose is itself what the figure does ("spends 3 Plot
    Points against damage"), "Zoe spends 3 Plot Points against damage" (not "rolls spends"); the
    data's keys in it as words ("rolls attack with sniper rifle")."""
    purpose = _BREAKS.sub(r"whether the \1 breaks (\2 or less)", keys_told(purpose))
    if purpose.startswith("spends "):
        return f"{actor} {purpose}"
    return f"{actor} rolls {PURPOSE_WORDS.get(purpose, purpose)}"


def roll_line(e: Mapping[str, Any]) -> str:
    """One line for a `roll` event: pool, every modifier, faces, total and target number."""
    family = roll_family(e)
    pool = str(e.get("pool") or "")
    mods = modifier_words(e, family)
    head = roll_head(e["actor"], e["purpose"])
    if not e.get("dice") and e.get("counts_as") is not None:     # nothing rolled: "Dart's damage DC1 ..."
        head = f"{e['actor']}'s {keys_told(str(e['purpose']))}"
    if pool or mods:
        head += " (" + "; ".join(x for x in [pool, *mods] if x) + ")"
    line = f"{head}: {_faces(e)}"
    if family == "kept":
        line += "".join(f" {_signed(int(m['value']))} {m['source']}" for m in e.get("modifiers", [])
                        if m.get("value"))
    line += f" = {e['total']}" + target_words(e)
    if e.get("botch"):
        line += " - BOTCH"
    if e.get("extraordinary"):
        line += " - extraordinary"
    if e.get("critical"):
        line += f" - critical {e['critical']}"
    if e.get("success") is not None:
        line += " - success" if e["success"] else " - failure"
    return line


def defence_line(e: Mapping[str, Any]) -> str:
    """A `defence` event: the Difficulty an attack must reach, with the cover in it."""
    d = e["difficulty"]
    line = f"{e['actor']} defends by {e['mode']}: Difficulty {d}"
    cb = e.get("cover_bonus")
    if cb:
        line += f" ({d - cb} + {cb} cover)"
    elif cb == 0:
        line += " (no cover)"
    return line + "."


def damage_line(e: Mapping[str, Any]) -> str:
    """A `damage` event in the ruleset's own track: METALFACE Status, CyberGeneration
    Wounds (with the armour's SP), Cortex Stun and Wound."""
    t, stun, wound = e["target"], int(e["stun"]), int(e["wound"])
    if "status" in e:                     # METALFACE: one Status track, counted down
        verb = "loses" if wound >= 0 else "regains"
        line = f"{t} {verb} {abs(wound)} Status ({e['status']} of {e.get('max_status', '?')} left)"
    elif "raw" in e or "sp" in e:         # CyberGeneration: Wounds after armour
        line = f"{t} takes {wound} Wound{'s' if wound != 1 else ''}"
        if "raw" in e and e.get("absorbed"):
            line += f" ({e['raw']} rolled"
            line += (f", {e['armour']} SP {e['sp']} stopped {e['absorbed']})" if e.get("armour")
                     else f", armour stopped {e['absorbed']})")
        return line + "."
    elif stun < 0 or wound < 0:           # healing (second wind, recovery)
        parts = [f"{-v} {n}" for n, v in (("Stun", stun), ("Wound", wound)) if v < 0]
        line = f"{t} recovers " + " and ".join(parts)
    else:
        line = f"{t} takes {stun} Stun and {wound} Wound"
        if e.get("absorbed"):
            line += f" (armour stopped {e['absorbed']})"
    return line + "."
