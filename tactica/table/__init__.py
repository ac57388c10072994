"""The table: one fight at a GM's table, behind every front end.

NPC turns are decided, explained and resolved here, the GM in charge. The terminal
(`tactica autopilot`), the HTTP API and the battle-map page (`tactica serve`) all drive the
same `Session`:

- `roles.py`: who plays each team (`Role`), from the scenario and `--npc`/`--pc`.
- `session.py`: `Session` holds one fight: the battle, the scenario document, which teams are
  NPCs or PCs (and their policies), who rolls which dice, the history of resolved actions
  (with the dice each one used) and the undo snapshots. It is saved atomically after every
  resolved action, so a session killed at any point loses nothing that was resolved;
  `Session.resume` continues exactly where it stopped, dice included.
- `building.py`: making a `Session`: `Session.new` from a scenario, `Session.resume` from a
  save file, `Session.from_dict` from a save's contents.
- `suggest.py`: a policy's plan, its reasons and the next best alternatives.
- `words.py`: actions in words, as commands and as JSON.
- `commands.py`: the command syntax typed at a prompt (its docstring is the `help` text).
- `dice.py`: manual dice: which roll comes next, who rolls it and against what.
- `saves.py`: save files, their checks, and replay documents made from a session.
- `terminal.py`: `Terminal`, the interactive loop behind `tactica autopilot`.

Save files are Tactica state files (`rules/serialize.py`, format `tactica-state`) with an
extra `session` section (format `tactica-autopilot`), so `tactica suggest` reads them too.
"""

from tactica.table.base import (ADVISOR_POLICY, DEFAULT_POLICY, UNDO_KEEP, CommandError,  # noqa: F401
                                SessionError)
from tactica.table.commands import Command, parse_action, parse_command, parse_faces  # noqa: F401
from tactica.table.dice import DiceRequest, next_dice_request  # noqa: F401
from tactica.table.saves import default_save_path, read_save, replay_from_history, replay_from_save  # noqa: F401
from tactica.table.roles import Abort, Role, parse_team_options  # noqa: F401
from tactica.table.session import Session  # noqa: F401
from tactica.table.suggest import Alternative, Plan, alternatives_for, suggest  # noqa: F401
from tactica.table.words import action_json, action_note, command_for, describe_action, odds_words  # noqa: F401
from tactica.table.terminal import Quit, Terminal  # noqa: F401
