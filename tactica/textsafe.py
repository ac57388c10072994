"""Printing text a user gave (names, ids, file names, descriptions) without letting it act.

Two things in such text can act on the terminal instead of being shown:

- Rich markup: `[/x]crew` is a closing tag that raises `MarkupError`; `[bold]x[/]` styles.
- control characters: ESC starts an escape sequence (`\\x1b[2J` clears the screen,
  `\\x1b]0;title\\x07` retitles the window), BEL rings, C1 codes act on some terminals, and
  bidi overrides (U+202E) turn the rest of the line around.

`visible(text)` writes every such character as a visible escape (`\\x1b`, `\\u202e`);
`safe(text)` also escapes markup, for text put inside a markup string. Encounter names are
refused with control characters at validation (rules/limits.check_name), but saves, API
states, GM-added figures and replays can still carry them, so every print of user-given
text goes through here. `SafeConsole` is the net below: a string it prints never carries a
raw control character, and markup it cannot parse is printed literally, never a traceback.
"""

from __future__ import annotations

import unicodedata
from typing import Any

from rich.console import Console
from rich.errors import MarkupError
from rich.markup import escape as _escape_markup
from rich.text import Text

#: kept as they are: a line break and a tab do not act on a terminal
_KEEP = frozenset("\n\t")
#: bidirectional controls (format characters, not category Cc) that reorder what follows
_BIDI = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def _acts(ch: str) -> bool:
    if ch in _KEEP:
        return False
    return ch in _BIDI or unicodedata.category(ch) == "Cc"


def _shown(ch: str) -> str:
    n = ord(ch)
    return f"\\x{n:02x}" if n < 0x100 else f"\\u{n:04x}"


def visible(text: Any) -> str:
    """`text` with every control character (C0 but line feed and tab, DEL, C1, bidi
    overrides) written as a visible escape: ESC becomes the four characters `\\x1b`."""
    s = str(text)
    if not any(_acts(ch) for ch in s):
        return s
    return "".join(_shown(ch) if _acts(ch) else ch for ch in s)


def one_line(text: Any) -> str:
    """`visible(text)` with line feeds and tabs escaped too (a name, a prompt)."""
    return visible(text).replace("\n", "\\n").replace("\t", "\\t")


def safe(text: Any) -> str:
    """`text` ready to put inside a Rich markup string: shown literally, controls visible."""
    return _escape_markup(visible(text))


def safe_text(text: Any, style: str = "") -> Text:
    """A Rich `Text` of user-given text (no markup is read from it), controls visible."""
    return Text(visible(text), style=style)


class SafeConsole(Console):
    """A Rich console that never writes a raw control character of a string it renders and
    never fails on markup: text whose markup does not parse is printed as it is written.
    Emoji codes (`:smile:`) are off, so a name is never turned into a picture."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("emoji", False)
        super().__init__(*args, **kwargs)

    def render_str(self, text: str, **kwargs: Any) -> Text:  # type: ignore[override]
        text = visible(text)
        try:
            return super().render_str(text, **kwargs)
        except MarkupError:
            return super().render_str(text, **{**kwargs, "markup": False})
