"""Where an issue's body comes from on the command line, as with ``gh issue``: ``--body``,
``--body-file FILE`` (``-``: standard input), or, when neither is given on a terminal,
the person's editor (``$VISUAL``, then ``$EDITOR``) on a template, as ``git commit``
does. Never an editor off a terminal: a script or a test must not wait on one."""

from __future__ import annotations

import sys
from pathlib import Path

from ralph._text import check_body
from ralph.cli._editor import edit, editor, on_terminal
from ralph.errors import InvalidInput

__all__ = ["TEMPLATE_END", "body_from"]

#: The template's last line: it and everything after it are dropped from what was written.
TEMPLATE_END = "<!-- ralph: everything from this line on is dropped -->"


def read_body_file(path: str) -> str:
    """The text of ``path`` (``-``: standard input), or one line saying why not."""
    if path == "-":
        return sys.stdin.read()
    try:
        return Path(path).read_text(encoding="utf-8")
    except (OSError, ValueError) as exc:  # missing, a folder, unreadable, a NUL, not UTF-8
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise InvalidInput(f"cannot read --body-file {path!r}: {reason}") from None


def _template(title: str) -> str:
    return (
        "\n\n"
        f"{TEMPLATE_END}\n"
        f"Describe the issue {title!r} above this comment, in Markdown: what is wrong or\n"
        "wanted, and how to tell it is done. An empty description files nothing.\n"
    )


def write_in_editor(command: list[str], title: str) -> str:
    """What the person writes in ``command`` on the template, without the template's
    comment; empty when they wrote nothing."""
    import tempfile  # here: only an editor needs a file, and most issues are filed without

    with tempfile.TemporaryDirectory(prefix="ralph-issue-") as folder:
        path = Path(folder) / "ISSUE_BODY.md"
        path.write_text(_template(title), encoding="utf-8")
        code = edit(command, path)
        if code != 0:
            raise InvalidInput(f"the editor {command[0]!r} exited with {code}; nothing was filed")
        written = path.read_text(encoding="utf-8", errors="replace")
    return written.split(TEMPLATE_END, 1)[0].strip()


def body_from(body: str | None, body_file: str | None, *, title: str, ask: bool) -> str | None:
    """The body the options give, checked; with neither and ``ask``, what the person
    writes in their editor when on a terminal with one set. None: no body was given."""
    if body is not None and body_file is not None:
        raise InvalidInput("give --body or --body-file, not both")
    if body_file is not None:
        text = read_body_file(body_file)
    elif body is not None:
        text = sys.stdin.read() if body == "-" else body
    elif ask and on_terminal() and (command := editor()):
        text = write_in_editor(command, title)
        if not text:
            raise InvalidInput("the description is empty, so nothing was filed")
    else:
        return None
    return check_body(text)
