"""Plain lines (JSON, Markdown for pipes, one-line messages) without Rich: a command that
prints only these, ``ralph --version`` or an error, starts without Rich's console."""

from __future__ import annotations

import os
import sys

from ralph._secrets import redact
from ralph._text import printable

__all__ = ["echo", "say", "styled"]


def echo(text: str, *, err: bool = False, end: str = "\n") -> None:
    """Print a plain line (or lines) as every print should be: without known secrets and
    control characters."""
    print(printable(redact(text)), end=end, file=sys.stderr if err else sys.stdout, flush=True)


def styled(*, err: bool = False) -> bool:
    """Whether Rich could style what goes to stdout (stderr with ``err``): a terminal, or
    a stream Rich is told to treat as one (``TTY_COMPATIBLE=1``, ``FORCE_COLOR``), as
    ``rich.console.Console.is_terminal`` decides. Where this says no, Rich would print
    plain text too, so a plain print is the same output without importing Rich; where
    it says yes, Rich's console decides (it says no in a notebook, say)."""
    compatible = os.environ.get("TTY_COMPATIBLE", "")
    if compatible in ("0", "1"):
        return compatible == "1"
    force_color = os.environ.get("FORCE_COLOR")
    if force_color is not None:
        return force_color != ""
    stream = sys.stderr if err else sys.stdout
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # no stream, or a closed one: nothing to style
        return False


def say(text: str) -> None:
    """A message for a person, printed whole (soft-wrapped: it holds paths and commands
    they copy). Where nothing is styled it is a plain line, as Rich would print it,
    without loading Rich."""
    if not styled():
        # As Rich prints it: control characters dropped, not marked; tabs expanded.
        echo(printable(text, "").expandtabs())
        return
    from ralph.cli._console import Console

    Console(highlight=False, soft_wrap=True).print(text, markup=False)
