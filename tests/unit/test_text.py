"""Titles are one line of printable text, and nothing Ralph prints to a terminal carries
a control character from text someone else wrote."""

from __future__ import annotations

import pytest

from ralph._text import check_body, check_title, control_characters, one_line, printable
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


def test_a_title_is_at_most_githubs_256_characters_and_the_refusal_says_so():
    check_title("x" * 256)
    with pytest.raises(InvalidInput, match="100,000 characters long; at most 256"):
        check_title("x" * 100_000)


def test_a_body_is_at_most_githubs_65536_characters_with_lines_and_tabs_only():
    assert check_body("a\n\tb\r\n" + "x" * 65_530).startswith("a")
    with pytest.raises(InvalidInput, match="65,537 characters long; at most 65,536"):
        check_body("x" * 65_537)
    with pytest.raises(InvalidInput, match=r"the readme has control characters \(U\+0000\)"):
        check_body("a\x00b", "the readme")


def test_bidi_controls_and_invisible_format_characters_are_control_characters():
    assert control_characters("a\u202eb\u2066c\u200bd\ufeffe\u00adf\U000e0041") == [
        "U+202E",
        "U+2066",
        "U+200B",
        "U+FEFF",
        "U+00AD",
        "U+E0041",
    ]
    assert one_line("Fix \u202egnp.exe\u202c now") == "Fix \ufffdgnp.exe\ufffd now"
    assert printable("x\u2067y\u200fz", "") == "xyz"
    with pytest.raises(InvalidInput, match=r"it has U\+202E: remove them$"):
        check_title("Fix \u202egnp.exe")
