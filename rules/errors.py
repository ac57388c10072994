"""Errors the engine raises for bad input: each names where, which field and what was expected."""

from __future__ import annotations


def _printable(text: str) -> str:
    """Control characters (a newline in a key, an escape sequence in a name) written as their
    escapes: an error is one line, and prints nothing a terminal would run."""
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else ascii(ch)[1:-1] for ch in text)


class TacticaError(Exception):
    """Base class for every error Tactica reports to a user as one line."""

    def __init__(self, message: str, *, source: str | None = None, field: str | None = None,
                 expected: str | None = None) -> None:
        self.source = source
        self.field = field
        self.expected = expected
        self.detail = message
        super().__init__(self.line())

    def line(self) -> str:
        """One line: `source: field: message (expected ...)`."""
        parts = []
        if self.source:
            parts.append(str(self.source))
        if self.field:
            parts.append(str(self.field))
        text = self.detail
        if self.expected:
            text += f" (expected {self.expected})"
        parts.append(text)
        return _printable(": ".join(parts))

    def at(self, source: str | None = None, field_prefix: str | None = None) -> "TacticaError":
        """Return this error re-anchored to a file and/or a field path prefix."""
        if source and not self.source:
            self.source = source
        if field_prefix:
            self.field = f"{field_prefix}.{self.field}" if self.field else field_prefix
        self.args = (self.line(),)
        return self


class DiceError(TacticaError):
    """A forced roll its die cannot show, or forced results that ran out."""


class ScenarioError(TacticaError):
    """An encounter file that cannot be loaded."""


class IllegalActionError(TacticaError):
    """An action that the rules do not allow for the acting figure now."""


class UnknownNameError(TacticaError):
    """An unknown ruleset, template, weapon, policy or scenario name."""


class UnknownKeyError(ScenarioError, UnknownNameError):
    """A key or name the reader does not know (a typo, usually): `rules/names.py` names the
    closest known one. Both a `ScenarioError` (bad input) and an `UnknownNameError`."""


class OverrideError(TacticaError):
    """A GM override (rules/overrides.py) the fight cannot take now; nothing was changed."""


class WriteError(TacticaError):
    """A file that could not be written (a full disk, a read-only folder): names the file and
    what failed; nothing of it is left behind (rules/atomic.py). `errno` is the system's."""

    def __init__(self, message: str, *, source: str | None = None, field: str | None = None,
                 expected: str | None = None, errno: int | None = None) -> None:
        self.errno = errno
        super().__init__(message, source=source, field=field, expected=expected)
