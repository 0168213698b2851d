"""Titles are one line of printable text, and nothing Ralph prints to a terminal carries
a control character from text someone else wrote."""

from __future__ import annotations

import pytest

from ralph._text import check_title, control_characters, one_line, printable
from ralph.errors import InvalidInput


def test_control_characters_are_named_once_each_in_order():
    assert control_characters("a\nb\x1b[2J\nc\u2028\x9b") == [
        "U+000A",
        "U+001B",
        "U+2028",
        "U+009B",
    ]
    assert control_characters("Café 日本語 👩\u200d💻 — ok") == []


def test_a_title_must_be_one_line_of_printable_text():
    check_title("Add a farewell: say goodbye (à bientôt)")
    with pytest.raises(InvalidInput, match=r"^an issue needs a title$"):
        check_title("  ")
    with pytest.raises(InvalidInput, match=r"it has U\+0009: write it on one line$"):
        check_title("tab\there")


def test_one_line_turns_breaks_into_spaces_and_other_controls_into_a_mark():
    assert one_line("Fix\r\nthe\tbuild\u2028now") == "Fix  the build now"
    assert one_line("x\x1b[2J\x00y") == "x\ufffd[2J\ufffdy"
    assert one_line("plain") == "plain"


def test_printable_keeps_lines_and_tabs_and_nothing_else():
    assert printable("a\r\nb\tc\n") == "a\nb\tc\n"
    assert printable("\x1b[2J\x1b]0;pwned\x07!") == "\ufffd[2J\ufffd]0;pwned\ufffd!"
    assert printable("\x1b[31mred\r", "") == "[31mred"
