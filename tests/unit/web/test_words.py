"""How the pages say values and render Markdown: one time format, enums in words, short
token counts, frontmatter values as text, paths that keep their underscores, coloured
fenced diffs, and a pull request's diff split into its files."""

from __future__ import annotations

from datetime import datetime

import pytest

from ralph.tracker import ReviewDecision
from ralph.web._markdown import render_markdown
from ralph.web._pr_diff import MAX_DIFF_LINES, parse_diff
from ralph.web._words import count, field_text, when, words


def test_every_time_reads_in_one_local_format_whether_epoch_or_iso() -> None:
    epoch = 1_771_588_800.0
    local = datetime.fromtimestamp(epoch).strftime("%Y-%m-%d %H:%M:%S")
    assert when(epoch) == when("2026-02-20T12:00:00Z") == local
    assert when(None) == when("") == "—"
    assert when("yesterday") == "yesterday"


def test_enums_read_as_words() -> None:
    assert words(ReviewDecision.REVIEW_REQUIRED) == "review required"
    assert words("CHANGES_REQUESTED") == "changes requested"
    assert words(None) == ""


@pytest.mark.parametrize(
    ("tokens", "shown"), [(950, "950"), (2_048, "2.0k"), (12_345, "12.3k"), (1_200_000, "1.2M")]
)
def test_token_counts_are_short(tokens: int, shown: str) -> None:
    assert count(tokens) == shown


def test_frontmatter_values_read_as_text() -> None:
    assert field_text(["calc", "tests"]) == "calc, tests"
    assert field_text({"issue": 3, "tags": ["a", "b"]}) == "issue: 3, tags: a, b"
    assert field_text(True) == "yes"
    assert field_text(None) == ""
    assert field_text("2026-02-20") == "2026-02-20"


@pytest.mark.parametrize(
    "path", ["calc/__init__.py", "__init__.py", "src/my_mod/__main__.py", "a_b/c_d"]
)
def test_a_path_keeps_its_underscores(path: str) -> None:
    assert render_markdown(f"Edit {path}.") == f"<p>Edit {path}.</p>\n"
    assert render_markdown(f"**{path}**") == f"<p><strong>{path}</strong></p>\n"


def test_emphasis_still_works_around_paths() -> None:
    shown = render_markdown("_really_ see __this__ and _calc.py_ now")
    assert shown == ("<p><em>really</em> see <strong>this</strong> and <em>calc.py</em> now</p>\n")


def test_a_fenced_diff_is_coloured_line_by_line_and_escaped() -> None:
    shown = render_markdown("```diff\n@@ -1 +1 @@\n-<old>\n+new\n same\n```")
    assert shown == (
        '<pre class="diff"><code class="language-diff">'
        '<span class="diff-hunk">@@ -1 +1 @@</span>'
        '<span class="diff-del">-&lt;old&gt;</span>'
        '<span class="diff-add">+new</span>'
        '<span class="diff-context"> same</span></code></pre>\n'
    )
    assert "<script>" not in render_markdown("```diff\n+<script>x</script>\n```")


DIFF = """diff --git a/calc/__init__.py b/calc/__init__.py
index 1..2 100644
--- a/calc/__init__.py
+++ b/calc/__init__.py
@@ -1,2 +1,2 @@
-old
+new
 same
diff --git a/NEW.md b/NEW.md
new file mode 100644
--- /dev/null
+++ b/NEW.md
@@ -0,0 +1 @@
+hello
"""


def test_a_diff_splits_into_its_files_with_their_counts() -> None:
    first, second = parse_diff(DIFF)
    assert (first.path, first.added, first.removed) == ("calc/__init__.py", 1, 1)
    assert first.lines == (
        ("diff-hunk", "@@ -1,2 +1,2 @@"),
        ("diff-del", "-old"),
        ("diff-add", "+new"),
        ("diff-context", " same"),
    )
    assert (second.path, second.added, second.removed) == ("NEW.md", 1, 0)


def test_a_huge_diff_is_cut_but_still_counted() -> None:
    lines = "\n".join(f"+line {n}" for n in range(MAX_DIFF_LINES + 500))
    (only,) = parse_diff(f"diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -0,0 +1 @@\n{lines}\n")
    assert only.added == MAX_DIFF_LINES + 500
    assert len(only.lines) == MAX_DIFF_LINES


def test_tables_and_strikethrough_render_as_on_github() -> None:
    shown = render_markdown("| a | b |\n|---|---|\n| 1 | <x> |\n\n~~old~~")
    assert "<td>&lt;x&gt;</td>" in shown
    assert "<s>old</s>" in shown


def test_ralph_s_own_lines_show_their_commands_as_code_and_nothing_else_as_html():
    from ralph.web._markdown import code_spans

    assert str(code_spans("approve with `ralph approve 5`, then <b>go</b>")) == (
        "approve with <code>ralph approve 5</code>, then &lt;b&gt;go&lt;/b&gt;"
    )
    assert str(code_spans("`<script>`")) == "<code>&lt;script&gt;</code>"
