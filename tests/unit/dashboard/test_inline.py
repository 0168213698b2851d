"""Text anyone wrote, inside Ralph's Markdown reports, reads as written: no emphasis,
link or table cell made of it; its `code` spans stay code."""

from __future__ import annotations

from ralph.dashboard._inline import inline


def test_emphasis_links_and_cells_are_escaped_outside_code_spans():
    said = "left pkg/__pycache__/x.pyc; see [docs](x) | *now* (`python3 -m unittest`)"
    assert inline(said) == (
        r"left pkg/\_\_pycache\_\_/x.pyc; see \[docs\](x) \| \*now\* (`python3 -m unittest`)"
    )


def test_a_code_span_keeps_its_underscores_and_a_bar_in_it_cannot_end_a_cell():
    assert inline("run `a_b | c`") == r"run `a_b \| c`"


def test_lines_become_one_line():
    assert inline("two\nlines") == "two lines"
