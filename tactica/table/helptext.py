"""The autopilot's `help`, in the fight's own rules and names.

The command syntax a GM can type depends on the rule system: metalface has no defend or Plot
Points but turns and postures, cortex_hu parries, cybergeneration suppresses and gives first aid.
`help_text` lists the action commands of the fight's ruleset only (`Ruleset.supported_actions`),
each with its options in words, and its examples are actions of this fight: the acting figure's
weapons and enemies, the ruleset's tracks and conditions. The commands available at every prompt
follow, as in tactica/table/commands.py's docstring.
"""

from __future__ import annotations

from typing import Any

from rules.state import BattleState

#: kind -> (syntax, what it does); a kind the ruleset does not use is not shown
SYNTAX: dict[str, tuple[str, str]] = {
    "move": ("move X Y", "move to column X, row Y (also: m X Y, move X,Y)"),
    "attack": ("attack TARGET [WEAPON] [OPTION]", "attack a target with a weapon"),
    "suppress": ("suppress TARGET [WEAPON]", "suppressive fire on a target's area"),
    "defend": ("defend OPTION", "a defensive stance"),
    "aim": ("aim", "spend an action aiming"),
    "feint": ("feint TARGET", "feint against a target"),
    "grapple": ("grapple TARGET [OPTION]", "grapple a target"),
    "reload": ("reload [WEAPON]", "reload a weapon"),
    "ready": ("ready WEAPON [OPTION]", "ready, draw or unjam a weapon"),
    "drop": ("drop WEAPON", "drop a weapon or item on the figure's cell"),
    "drop_prone": ("prone", "drop prone (also: drop, down)"),
    "stand": ("stand", "stand up (also: up, rise)"),
    "turn": ("turn DIRECTION", "face a new direction"),
    "posture": ("posture POSTURE", "change posture"),
    "first_aid": ("first_aid TARGET [OPTION]", "first aid to a figure"),
    "heal": ("heal TARGET", "heal or repair a figure"),
    "pick_up": ("pickup [X Y] [ITEM]", "pick up an object (also: pick, take)"),
    "use": ("use OPTION", "use an item, a device or a rule"),
    "delay": ("delay [TRIGGER]", "hold the action for later"),
    "end_turn": ("end", "end the turn (also: e, done, pass)"),
}
ORDER = tuple(SYNTAX)

META_HELP = """\
  N                  the action numbered N in the list shown; at an NPC's
                     prompt the N-th alternative (Enter accepts the plan)
  KIND key=value     any action of the vocabulary by its fields: target=,
                     weapon=, option=, cell=X,Y (e.g. {kv})

Names may be ids or names, any case, or a unique prefix; typos get a
suggestion.

Commands at any prompt (the dice prompt too):

  map                the map, the initiative order and the figures
  moves              the map with the reachable cells (+)
  list               the numbered legal actions again
  status [FIGURE]    one figure in detail (alone: the figure to act)
  order              the initiative order
  log [N]            the last N narrated events
  hint               what the advisor policy would do
  undo               back one resolved action (at a dice prompt: the
                     pending action is dropped too)
  cancel             (dice prompt) drop the pending action
  dice engine|manual who rolls: the engine or the GM by hand;
                     dice {team}=manual (a team or figure) rolls by hand
                     for those only
  behave NAME k=v .. NPC behaviour of a team or figure (* every team):
                     downed=spare|finish, morale=fall_back|surrender
                     break_at=0.5, protect=ID, hold=X,Y radius=M
                     (docs/npc-behaviour.md)
  confirm on|off     ask before resolving NPC plans, or not
  save [FILE]        save now (it is saved after every action anyway)
  export FILE        the fight so far as a replay file (tactica replay)
  help               this text
  quit               save and leave

The GM overrules the engine (each is logged, undoable, saved and replayed):

  set FIGURE TRACK VALUE       set {fig} {track} {value} (tracks: {tracks})
  cond FIGURE +NAME | -NAME    cond {fig} +{cond}; conditions:
{conds}
  place FIGURE X Y             put a figure on any free cell
  add TEMPLATE TEAM X Y [NAME] a new figure, last in this round's order
                               (add {template} {team} X Y)
  remove FIGURE                take a figure out of the fight
  order ID ID ...              set this round's initiative order
  endfight [TEAM|draw] [WHY]   end the fight

Manual dice: every roll the engine needs is asked for, naming who rolls
what against what and which dice. Enter the faces separated by spaces, or
r to let the engine roll them; a face the die cannot show is refused with
the reason."""


def _options(kind: str, opts: tuple[str, ...]) -> str:
    """The options as they are typed (`called:head`, `heal_self`: the words the parser matches)."""
    words = [o for o in opts if o and not o.startswith("plot_points:")]
    if kind == "use" and len(words) < len([o for o in opts if o]):
        words.append("plot_points:N (pp N)")
    return ", ".join(words)


def _wrap(text: str, indent: int, width: int = 78) -> list[str]:
    lines, line = [], ""
    for w in text.split(" "):
        if line and indent + len(line) + 1 + len(w) > width:
            lines.append(line)
            line = w
        else:
            line = f"{line} {w}" if line else w
    return lines + [line] if line else lines


def _examples(state: BattleState, legal: list[Any]) -> dict[str, str]:
    """One typed command per kind: the first of the acting figure's legal actions of each."""
    from tactica.table.words import command_for

    out: dict[str, str] = {}
    for a in legal:
        if a.kind not in out:
            out[a.kind] = command_for(state, a)
    return out


def help_text(rs: Any, state: BattleState, legal: list[Any] | None = None) -> str:
    """The `help` of a fight under ruleset `rs`, with examples from `state` and the acting
    figure's `legal` actions (none: the syntax alone)."""
    kinds = [k for k in ORDER if k in rs.supported_actions]
    examples = _examples(state, legal or [])
    out = [f"Command syntax under {rs.name} rules", "(at a PC's prompt, or at an NPC's to override its plan):", ""]
    for k in kinds:
        syntax, what = SYNTAX[k]
        opts = _options(k, tuple(rs.supported_actions.get(k, ())))
        text = what
        if opts:
            text += f"; {'options' if k != 'turn' else 'directions'}: {opts}"
        if k == "attack" and any(o.startswith("called:") for o in rs.supported_actions.get(k, ())):
            text += " (called head is called:head)"
        if k in examples and examples[k] != syntax.split()[0]:
            text += f"; now e.g. `{examples[k]}`"
        first = syntax.ljust(18) + " " if len(syntax) <= 18 else None
        body = _wrap(text, 21)
        if first is None:
            out.append("  " + syntax)
            out += ["  " + " " * 19 + ln for ln in body]
        else:
            out.append("  " + first + body[0])
            out += ["  " + " " * 19 + ln for ln in body[1:]]
    if "use" in rs.supported_actions and any(o.startswith("plot_points:") for o in rs.supported_actions["use"]):
        out.append("  pp N               spend N Plot Points on the next roll")
    actor = state.actor or (state.combatants[0] if state.combatants else None)
    fig = actor.id if actor else "FIGURE"
    tracks = list(rs.damage_tracks(actor)) if actor else []
    conds = list(rs.gm_conditions())
    templates = rs.templates()
    team = actor.team if actor else "TEAM"
    kv = "move cell=3,4"
    track = tracks[0] if tracks else "TRACK"
    lo_hi = rs.damage_tracks(actor).get(track) if actor and tracks else None
    value = lo_hi[1] // 2 if lo_hi else 1
    out.append(META_HELP.format(kv=kv, team=team, fig=fig, track=track, value=value,
                                tracks=", ".join(tracks) or "none", cond=conds[0] if conds else "prone",
                                conds="\n".join(" " * 31 + ln for ln in _wrap(", ".join(conds) or "none", 31)),
                                template=templates[0] if templates else "TEMPLATE"))
    return "\n".join(out)
