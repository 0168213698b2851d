"""Where Rich would print plain text, the CLI prints the same text without loading Rich:
the help's markup escaped as Rich escapes it, a warning on a stream that is no terminal,
and the decision of which is which made as Rich's console makes it."""

from __future__ import annotations

import io

import pytest
from rich.markup import escape
from rich.text import Text

from ralph.cli import _project
from ralph.cli._console import Console
from ralph.cli._echo import styled
from ralph.cli._help import escape_markup

pytestmark = pytest.mark.timeout(30)

MARKUP = [
    "",
    "plain words",
    "ralph.toml's [agent] table",
    "[/] and [bold]not bold[/bold]",
    "[link=https://x]click[/link]",
    "a \\[escaped] one",
    "two \\\\[b]backslashes",
    "ends in a backslash \\",
    "ends in two \\\\",
    "[#ff0000]colour[/] [@click]handler[/] [1, 2] [A-Z] [x",
]


@pytest.mark.parametrize("text", MARKUP)
def test_the_help_is_escaped_as_rich_escapes_it(text: str) -> None:
    assert escape_markup(text) == escape(text)


_TERMINAL_SETTINGS = ("TTY_COMPATIBLE", "FORCE_COLOR", "NO_COLOR", "TTY_INTERACTIVE")


@pytest.mark.parametrize(
    ("settings", "is_tty"),
    [
        ({}, False),
        ({}, True),
        ({"TTY_COMPATIBLE": "1"}, False),
        ({"TTY_COMPATIBLE": "0"}, True),
        ({"TTY_COMPATIBLE": "0", "FORCE_COLOR": "1"}, False),
        ({"FORCE_COLOR": "1"}, False),
        ({"FORCE_COLOR": ""}, True),
        ({"TTY_COMPATIBLE": "maybe"}, True),
        ({"NO_COLOR": "1"}, True),
    ],
)
def test_output_is_styled_where_riches_console_calls_it_a_terminal(
    monkeypatch: pytest.MonkeyPatch, settings: dict[str, str], is_tty: bool
) -> None:
    for name in _TERMINAL_SETTINGS:
        monkeypatch.delenv(name, raising=False)
    for name, value in settings.items():
        monkeypatch.setenv(name, value)

    class Stream(io.StringIO):
        def isatty(self) -> bool:
            return is_tty

    for err in (False, True):
        stream = Stream()
        monkeypatch.setattr("sys.stderr" if err else "sys.stdout", stream)
        assert styled(err=err) == Console(file=stream).is_terminal


def test_a_closed_stream_is_not_styled(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in _TERMINAL_SETTINGS:
        monkeypatch.delenv(name, raising=False)
    closed = io.StringIO()
    closed.close()
    monkeypatch.setattr("sys.stdout", closed)
    assert styled() is False


@pytest.mark.parametrize(
    "warning",
    [
        'test_command is empty in ralph.toml: set it (for example test_command = "make test")',
        "a [bold]bracket[/] and \x1b[2J an escape",
        "a line\nand another",
        "a\ttab, and\tanother\n\tone",
    ],
)
def test_a_warning_on_a_stream_that_is_no_terminal_reads_as_riches_would(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], warning: str
) -> None:
    for name in _TERMINAL_SETTINGS:
        monkeypatch.delenv(name, raising=False)
    _project.warn(warning)
    plain = capsys.readouterr().err
    rich = io.StringIO()
    Console(file=rich, soft_wrap=True, force_terminal=False).print(
        Text.assemble(("Warning:", "bold yellow"), " ", warning)
    )
    assert plain == rich.getvalue()
