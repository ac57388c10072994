"""Constants and errors shared by the table's modules."""

from __future__ import annotations

from rules.errors import TacticaError

SESSION_FORMAT = "tactica-autopilot"
SESSION_VERSION = 1
from agents.base import DEFAULT_POLICY  # noqa: E402,F401 - one default for every front end

ADVISOR_POLICY = DEFAULT_POLICY
#: undo snapshots kept in memory, and in the save file (each holds the dice generator's
#: buffered numbers, tens of kB)
UNDO_KEEP = 30
UNDO_SAVED = 10


class SessionError(TacticaError):
    """A problem with an autopilot session: its options, its save file, a command."""


class CommandError(TacticaError):
    """A command the session cannot read; the message says what was expected."""
