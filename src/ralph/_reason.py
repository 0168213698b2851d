"""Why something needs a person, as people read it: a one-line reason, then the output
that proves it (a failing test's report). A reason such as "the tests fail (`make`):"
followed by forty lines is shown whole where there is room (a comment, the web's issue
and run pages) and as one line elsewhere, with the line of the output that says what
failed, so it never ends at its colon. Pure: no I/O."""

from __future__ import annotations

import re

__all__ = ["fenced", "gist", "one_line", "split_reason"]

# The lines of a test report that name what failed, in the order they are looked for:
# an assertion or exception ("AssertionError: -1 != 3", pytest's "E   assert 1 == 2"),
# then a summary ("FAILED tests/x.py::test - ...", "FAILED (failures=1)").
_FAILURE_LINES = (
    re.compile(r"^E\s+\S"),
    re.compile(r"^\w*(?:Error|Exception|Failure)\b.*:"),
    re.compile(r"^(?:FAILED|FAIL|ERROR)\b"),
)


def split_reason(text: str) -> tuple[str, str]:
    """The reason's first line and the output after it (empty when there is none)."""
    headline, _, rest = text.strip().partition("\n")
    return headline.strip(), rest.strip("\n").rstrip()


def gist(output: str) -> str:
    """The line of ``output`` that says what failed: the last assertion or error, else
    the last summary line, else its last line."""
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    for pattern in _FAILURE_LINES:
        for line in reversed(lines):
            if pattern.match(line):
                return line
    return lines[-1] if lines else ""


def one_line(text: str) -> str:
    """The reason on one line: its first, and when that introduces output (ends with a
    colon), the line of the output that says what failed."""
    headline, output = split_reason(text)
    if output and headline.endswith(":"):
        return f"{headline} {gist(output)}"
    return headline


def fenced(output: str, info: str = "text") -> str:
    """``output`` in a Markdown code block whose fence no line of it can close."""
    longest = max((len(run) for run in re.findall(r"`+", output)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{info}\n{output}\n{fence}"
