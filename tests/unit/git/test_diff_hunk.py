"""The hunk of a file's diff that a review comment on a line is attached to."""

from __future__ import annotations

import pytest

from ralph.git import hunk_containing

DIFF = """diff --git a/story.txt b/story.txt
index 1111111..2222222 100644
--- a/story.txt
+++ b/story.txt
@@ -1,4 +1,4 @@
 one
-two
+TWO
 three
 four
@@ -20,3 +20,5 @@ def middle():
 twenty
+twenty-a
+twenty-b
 twenty-one
 twenty-two
@@ -40 +42 @@
-forty
+FORTY
@@ -50,2 +52,0 @@
-fifty
-fifty-one
"""


@pytest.mark.parametrize(
    ("line", "starts"),
    [
        (1, "@@ -1,4 +1,4 @@"),
        (4, "@@ -1,4 +1,4 @@"),
        (20, "@@ -20,3 +20,5 @@"),
        (24, "@@ -20,3 +20,5 @@"),
        (42, "@@ -40 +42 @@"),  # a count left out is one line
        (5, ""),
        (25, ""),
        (52, ""),  # a hunk that only deletes holds no line of the new file
        (43, ""),
    ],
)
def test_the_hunk_whose_new_side_holds_the_line(line, starts):
    hunk = hunk_containing(DIFF, line)
    assert hunk.startswith(starts) if starts else hunk == ""


def test_a_hunk_runs_to_the_next_one_and_no_further():
    assert hunk_containing(DIFF, 2).splitlines() == [
        "@@ -1,4 +1,4 @@",
        " one",
        "-two",
        "+TWO",
        " three",
        " four",
    ]
    assert hunk_containing(DIFF, 42).splitlines() == ["@@ -40 +42 @@", "-forty", "+FORTY"]


def test_no_diff_has_no_hunk():
    assert hunk_containing("", 1) == ""
