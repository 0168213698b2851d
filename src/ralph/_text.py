"""Text from outside Ralph (issue titles, bodies, comments, labels) made safe for where
it goes. A title is one line of printable characters: a line break in it could start a
new heading in an agent's prompt, a comment or a terminal. And nothing printed to a
terminal carries a control character: ESC sequences clear the screen, retitle the
window or rewrite what was printed before.

Control characters are Unicode's ``Cc`` (C0, DEL, C1), the line and paragraph
separators (U+2028, U+2029), which some renderers break lines at, and the invisible
format characters (``Cf``): bidi overrides and isolates (U+202E shows "Fix login
\u202egnp.exe" as "Fix login exe.png"), zero-width spaces, the BOM, tag characters.
The zero-width joiners stay: emoji sequences and several scripts are written with them.
"""

from __future__ import annotations

import unicodedata

from ralph._secrets import redact
from ralph.errors import InvalidInput

__all__ = [
    "MAX_BODY",
    "MAX_TITLE",
    "check_body",
    "check_text",
    "check_title",
    "control_characters",
    "one_line",
    "printable",
]

#: GitHub's limits, which every tracker keeps so that a board moves between them whole:
#: an issue or pull request title, and a body or comment.
MAX_TITLE = 256
MAX_BODY = 65_536

#: What a character that does something (ESC, BEL, NUL...) shows as once made harmless.
REPLACEMENT = "\ufffd"
#: Controls that only break or space a line: a space says the same in one line.
_SPACING = frozenset("\t\n\v\f\r\x1c\x1d\x1e\x1f\x85\u2028\u2029")


#: Format characters that shape what is written rather than hide or reorder it.
_JOINERS = frozenset("\u200c\u200d")


def _is_control(char: str) -> bool:
    category = unicodedata.category(char)
    return category in ("Cc", "Zl", "Zp") or (category == "Cf" and char not in _JOINERS)


def control_characters(text: str) -> list[str]:
    """The distinct control characters in ``text``, in order, as ``U+000A``."""
    found = dict.fromkeys(f"U+{ord(c):04X}" for c in text if _is_control(c))
    return list(found)


def check_title(title: str, what: str = "an issue") -> None:
    """Refuse a title a person or a client is creating that is empty or not one line
    of printable text (InvalidInput: one line that names the fix)."""
    if not title.strip():
        raise InvalidInput(f"{what} needs a title")
    if len(title) > MAX_TITLE:
        raise InvalidInput(
            f"{what}'s title is {len(title):,} characters long; at most {MAX_TITLE} "
            "(GitHub's limit): shorten it and put the rest in the body"
        )
    found = control_characters(title)
    if found:
        breaks = all(chr(int(code[2:], 16)) in _SPACING for code in found)
        raise InvalidInput(
            f"{what}'s title must be one line without control characters; it has "
            f"{', '.join(found)}: {'write it on one line' if breaks else 'remove them'}"
        )


def check_body(text: str, what: str = "the body") -> str:
    """A body or comment a person or a client gives: at most GitHub's length, and no
    control character other than line breaks and tabs (a NUL cannot even be stored)."""
    if len(text) > MAX_BODY:
        raise InvalidInput(
            f"{what} is {len(text):,} characters long; at most {MAX_BODY:,} (GitHub's limit): "
            "shorten it, or link to the rest"
        )
    found = [c for c in control_characters(text) if c not in ("U+000A", "U+0009", "U+000D")]
    if found:
        raise InvalidInput(f"{what} has control characters ({', '.join(found)}); remove them")
    return text


def check_text(text: str, what: str) -> str:
    """``text`` a person gave (a reason, feedback, a document): refused when blank or
    holding a control character other than line breaks and tabs."""
    if not text.strip():
        raise InvalidInput(f"{what} is empty; write it")
    return check_body(text, what)


def one_line(text: str) -> str:
    """``text`` as one printable line: line breaks and tabs become spaces, every other
    control character U+FFFD (for a title someone else wrote, which Ralph cannot
    refuse: one read from GitHub, one a splitting agent proposed)."""
    if not any(_is_control(c) for c in text):
        return text
    return "".join((" " if c in _SPACING else REPLACEMENT) if _is_control(c) else c for c in text)


def printable(text: str, replacement: str = REPLACEMENT) -> str:
    """``text`` safe for a terminal: lines and tabs stay, every other control character
    (ESC above all) becomes ``replacement``. A CRLF line end is an ordinary line end."""
    if not any(_is_control(c) and c not in "\n\t" for c in text):
        return text
    text = text.replace("\r\n", "\n")
    return "".join(replacement if _is_control(c) and c not in "\n\t" else c for c in text)


def short_line(text: object, limit: int) -> str:
    """``text`` as one short printable line without any secret this process knows, cut
    with an ellipsis at ``limit`` characters: what an agent or another process wrote, for
    a line of a terminal or a page."""
    line = " ".join(redact(one_line(str(text))).split())
    return line if len(line) <= limit else line[: limit - 1] + "…"
