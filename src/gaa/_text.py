"""One normal form for text from outside (doctor replies): what is checked is what is sent.

:func:`clean_text` applies, in order: Unicode NFKC (full-width and other compatibility forms
become plain letters), every line-break form to one, text hidden in Unicode tag characters
decoded onto a line of its own and blank-looking letters made spaces (:func:`shown_hidden`),
text inside a right-to-left override put in the order a screen shows it (:func:`shown_order`),
removal of zero-width, format and control characters, folding of the Cyrillic and Greek
letters that look like Latin ones (the benchmark's dialogue is English), and collapsing
whitespace runs to one space (line breaks, all in one form, are kept: they end sentences;
rules that look for instructions also read the text with them joined). A phrase split by
tabs, double spaces, line breaks or invisible characters ("ignore\u200b previous",
"DECISION: \u0410CCEPT") is therefore the phrase every rule looks for, and the patient and the
judge read exactly the text the validator checked. A run of blank lines becomes one blank
line: it marks a paragraph, which is where a fake speaker turn smuggled into a doctor reply
ends (see :mod:`gaa.dialogue._lines`). Replies are also bounded in size.
"""

from __future__ import annotations

import re
import unicodedata

MAX_REPLY_CHARS = 20_000
"""Longer doctor replies are cut here (and the cut is recorded): no real turn is this long, and
unbounded text would make every later check slower."""

_CONFUSABLES = str.maketrans(
    {
        # Cyrillic
        "\u0430": "a", "\u0435": "e", "\u043e": "o", "\u0440": "p", "\u0441": "c",
        "\u0443": "y", "\u0445": "x", "\u0456": "i", "\u0458": "j", "\u0455": "s",
        "\u0501": "d", "\u04bb": "h", "\u043a": "k", "\u0410": "A", "\u0412": "B",
        "\u0415": "E", "\u041a": "K", "\u041c": "M", "\u041d": "H", "\u041e": "O",
        "\u0420": "P", "\u0421": "C", "\u0422": "T", "\u0425": "X", "\u0423": "Y",
        "\u0406": "I", "\u0408": "J", "\u0405": "S", "\u0417": "3",
        # Greek
        "\u0391": "A", "\u0392": "B", "\u0395": "E", "\u0396": "Z", "\u0397": "H",
        "\u0399": "I", "\u039a": "K", "\u039c": "M", "\u039d": "N", "\u039f": "O",
        "\u03a1": "P", "\u03a4": "T", "\u03a5": "Y", "\u03a7": "X", "\u03bf": "o",
        "\u03b9": "i", "\u03ba": "k", "\u03bd": "v", "\u03c1": "p", "\u03c4": "t",
        "\u03c5": "u", "\u03c7": "x", "\u03b1": "a",
        # Latin look-alikes outside ASCII that NFKC keeps
        "\u0131": "i", "\u0261": "g", "\u01c3": "!",
    }
)
LINE_BREAKS = re.compile(r"\r\n|[\r\n\u2028\u2029\u0085\x0b\x0c]")
"""Every line-break form (CRLF, CR, LF, U+2028, U+2029, NEL, VT, FF)."""
_SPACES = re.compile(r"[^\S\n]+")
_BLANK_LINES = re.compile(r" ?\n[ \n]*")


def _break(match: re.Match[str]) -> str:
    """One line break, or one blank line where the text had one or more."""
    return "\n\n" if match.group(0).count("\n") > 1 else "\n"


def _visible(char: str) -> bool:
    """False for zero-width, format (Cf) and control (Cc) characters; spaces stay."""
    if char in " \t":
        return True
    return unicodedata.category(char) not in ("Cf", "Cc", "Cs", "Co", "Cn")


_TAGS = re.compile("[\U000e0020-\U000e007e]+")
"""Unicode tag characters: invisible, each one an ASCII character plus 0xE0000 (a way to hide
text in plain sight)."""
_BLANKS = str.maketrans(dict.fromkeys("\u2800\u3164\u115f\u1160\uffa0", " "))
"""Letters and symbols that show as blank space (braille blank, Hangul fillers): spaces."""


def _decoded(match: re.Match[str]) -> str:
    return "\n" + "".join(chr(ord(char) - 0xE0000) for char in match.group()) + "\n"


def shown_hidden(text: str) -> str:
    """``text`` with each run of tag characters decoded and shown on a line of its own, so what
    was hidden is read, checked and withheld like any other line; the blank-looking letters
    become the spaces they look like."""
    return _TAGS.sub(_decoded, text.translate(_BLANKS))


_OVERRIDE = re.compile("\u202e([^\u202c\u202d\n]*)(?:\u202c|$)", re.MULTILINE)
"""A right-to-left override and its text, up to the pop (or the line's end)."""


def shown_order(text: str) -> str:
    """``text`` with each right-to-left override's content in the order a screen shows it: the
    bidirectional algorithm (UAX #9) gives every character inside one right-to-left direction,
    so ``\u202eTPECCA\u202c`` is seen as ``ACCEPT``; the controls themselves are dropped."""
    if "\u202e" not in text:
        return text
    return _OVERRIDE.sub(lambda match: match.group(1)[::-1], text)


def clean_text(text: str) -> str:
    """The normal form described in the module docstring (without the size bound)."""
    text = unicodedata.normalize("NFKC", text)
    text = LINE_BREAKS.sub("\n", text)
    text = shown_hidden(text)
    text = shown_order(text)
    text = "".join(char for char in text if char == "\n" or _visible(char))
    text = text.translate(_CONFUSABLES)
    return _BLANK_LINES.sub(_break, _SPACES.sub(" ", text)).strip()


def bounded(text: str, limit: int = MAX_REPLY_CHARS) -> tuple[str, bool]:
    """``text`` cut to ``limit`` characters, and whether it was cut."""
    if len(text) <= limit:
        return text, False
    return text[:limit], True
