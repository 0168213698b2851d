"""The CLI's console prints text as written, whatever it holds: no markup read, no
control character, hyperlink or known secret written, however the text is laid out;
Rich's own styles stay. And the command line prints through nothing else."""

from __future__ import annotations

import ast
import io
from pathlib import Path

from rich.panel import Panel
from rich.table import Table
from rich.text import Text

import ralph.cli
from ralph._secrets import register_secret
from ralph.cli._console import Console
from ralph.cli._echo import echo
from tests.ralph_source import parsed

EVIL = "\x1b[2J\x1b]0;pwned\x07"


def printed(*renderables, color: bool = False, width: int = 60) -> str:
    out = io.StringIO()
    console = Console(
        file=out, width=width, force_terminal=color, color_system="standard" if color else None
    )
    for renderable in renderables:
        console.print(renderable)
    return out.getvalue()


def test_markup_text_and_table_cells_lose_their_escapes_and_keep_their_borders_aligned():
    table = Table("task", "error")
    table.add_row("research #2", f"agent said {EVIL}")
    table.add_row("plan #2", "fine")
    text = printed(f"title {EVIL}", Text(f"body {EVIL}"), table)
    assert "\x1b" not in text
    assert "\x07" not in text
    assert "title [2J]0;pwned" in text
    widths = {len(line) for line in text.splitlines() if line.startswith(("│", "┃", "┏", "└"))}
    assert len(widths) == 1  # every row of the table is as wide as the others


def test_in_colour_riches_styles_stay_and_the_texts_escapes_go():
    text = printed(Text(f"body {EVIL}", style="bold red"), color=True)
    assert "\x1b[1;31m" in text
    assert "\x1b[2J" not in text
    assert "\x1b]0;" not in text


# -- text is printed as written ---------------------------------------------------------

MARKUP = "[wip] Fix [/] the [bold]thing [link=javascript:alert(1)]here[/link] :warning:"


def test_markup_in_text_is_shown_as_written_wherever_it_is_printed():
    table = Table("title", title=MARKUP)
    table.add_row(MARKUP)
    panel = Panel("body", title=MARKUP, subtitle=MARKUP)
    shown = printed(MARKUP, Text(MARKUP), table, panel, width=200)
    # a stray [/] raises no MarkupError; no tag, emoji code or link is read
    assert shown.count(MARKUP) == 6


def test_no_hyperlink_and_no_style_comes_from_text_in_a_colour_terminal():
    shown = printed(MARKUP, Panel("body", title=MARKUP), color=True, width=200)
    assert "\x1b]8;" not in shown  # an OSC 8 hyperlink (to javascript: here)
    assert "\x1b[1m" not in shown  # [bold] styles nothing
    assert MARKUP in shown


def test_no_hyperlink_reaches_the_terminal_even_from_a_linked_style():
    shown = printed(Text("docs", style="link https://example.com"), color=True)
    assert "\x1b]8;" not in shown
    assert "docs" in shown


def test_ralphs_own_styles_are_text_and_stay():
    line = Text.assemble(("✓", "green"), " test_command: [x]")
    assert "\x1b[32m✓" in printed(line, color=True)


# -- and without the secrets Ralph knows --------------------------------------------------

SECRET = "ghp_PLANTEDCONSOLE0001"


def test_a_known_secret_is_masked_in_strings_texts_tables_and_panel_titles():
    register_secret(SECRET)
    table = Table("error")
    table.add_row(f"token {SECRET} leaked")
    split = Text("token ")
    split.append(SECRET[:8], style="red")  # styled apart, laid out as one text
    split.append(SECRET[8:], style="blue")
    shown = printed(
        f"said {SECRET}", Text(f"said {SECRET}"), table, Panel("x", title=SECRET), split
    )
    assert SECRET not in shown
    assert SECRET[:8] not in shown
    assert shown.count("***") == 5


def test_a_secret_split_by_control_characters_is_masked_where_they_are_dropped():
    register_secret(SECRET)
    table = Table("error")
    for between in ("\x01", "\x1b", "\x7f", "\x9b"):
        table.add_row(f"token {SECRET[:8]}{between}{SECRET[8:]}")
    shown = printed(f"token {SECRET[:5]}\x1b{SECRET[5:]}", table)
    assert SECRET not in shown
    assert shown.count("***") == 5


def test_a_plain_line_is_masked_and_loses_its_control_characters(capsys):
    register_secret(SECRET)
    echo(f"said {SECRET} {EVIL}")
    echo(f"ralph: error: {SECRET}", err=True)
    out, err = capsys.readouterr()
    assert out == "said *** \ufffd[2J\ufffd]0;pwned\ufffd\n"
    assert err == "ralph: error: ***\n"


# -- and the command line prints nothing another way --------------------------------------

CLI = Path(ralph.cli.__file__).parent
#: Calls that write to the terminal without the console.
_WRITERS = {"print", "typer.echo", "click.echo", "sys.stdout.write", "sys.stderr.write"}


def _called(call: ast.Call) -> str:
    return ast.unparse(call.func)


def test_every_line_the_command_line_prints_goes_through_the_console():
    found = []
    for path in sorted(CLI.glob("*.py")):
        if path.name in ("_console.py", "_echo.py"):  # the console and its plain lines
            continue
        for node in ast.walk(parsed(path)):
            if not isinstance(node, ast.Call):
                continue
            if _called(node) in _WRITERS:
                found.append(f"{path.name}:{node.lineno} {_called(node)}: use _echo.echo")
            for keyword in node.keywords:
                markup = keyword.arg == "markup" and ast.unparse(keyword.value) != "False"
                if markup:
                    found.append(f"{path.name}:{node.lineno} markup=: use Text or style=")
            if _called(node).endswith(("from_markup", "render_markup")):
                found.append(f"{path.name}:{node.lineno} markup: use Text or style=")
    assert found == []
