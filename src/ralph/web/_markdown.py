"""Markdown as the pages show it: CommonMark with GitHub's tables and strikethrough and
without raw HTML (issue text is untrusted, so tags in it show as text, and markdown-it
refuses javascript:, vbscript:, file: and data: links), with two changes for text about
code. A path or file name keeps its underscores (``calc/__init__.py`` is not
"calc/**init**.py"), and a fenced ``diff`` block colours its added and removed lines."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.renderer import RendererHTML
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict
from markupsafe import Markup, escape

__all__ = ["code_spans", "diff_line_class", "render_markdown"]

#: The characters of a path or a dotted name.
_PATH_CHAR = re.compile(r"[\w./-]")
#: A path (a slash in it) or a file name (a dot then letters: ``__init__.py``).
_PATH = re.compile(r"[\w.-]*/[\w./-]*\w|[\w./-]*\.[A-Za-z]\w*")


def _path_text(state: StateInline, silent: bool) -> bool:
    """At an underscore inside a path, the rest of the path as plain text (before the
    emphasis rule would take its underscores as markers)."""
    src, pos = state.src, state.pos
    if src[pos] != "_":
        return False
    start = pos
    while start > 0 and _PATH_CHAR.match(src[start - 1]):
        start -= 1
    end = pos
    while end < state.posMax and _PATH_CHAR.match(src[end]):
        end += 1
    word = src[start:end].rstrip(".")
    if word.endswith("_") or not _PATH.fullmatch(word):
        return False
    end = start + len(word)
    if end <= pos:
        return False
    if not silent:
        state.pending += src[pos:end]
    state.pos = end
    return True


def diff_line_class(line: str) -> str:
    """The class a line of a unified diff is shown with."""
    if line.startswith(("+++", "---", "diff ", "index ")):
        return "diff-file"
    if line.startswith("@@"):
        return "diff-hunk"
    if line.startswith("+"):
        return "diff-add"
    if line.startswith("-"):
        return "diff-del"
    return "diff-context"


def _fence(
    tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType, default: Any
) -> str:
    token = tokens[idx]
    if token.info.strip().split(" ")[0].lower() not in ("diff", "patch"):
        return str(default(tokens, idx, options, env))
    lines = token.content.removesuffix("\n").split("\n")
    # Each line is a block of its own (its colour spans the width): no newline between.
    shown = "".join(
        f'<span class="{diff_line_class(line)}">{escape(line)}</span>' for line in lines
    )
    return f'<pre class="diff"><code class="language-diff">{shown}</code></pre>\n'


def _markdown() -> MarkdownIt:
    # Tables and strikethrough as GitHub shows them (plans hold tables).
    md = MarkdownIt("commonmark", {"html": False}).enable(["table", "strikethrough"])
    md.inline.ruler.before("emphasis", "path_text", _path_text)
    assert isinstance(md.renderer, RendererHTML)
    default = md.renderer.rules["fence"]
    md.add_render_rule(
        "fence", lambda self, tokens, idx, options, env: _fence(tokens, idx, options, env, default)
    )
    return md


_MARKDOWN = _markdown()


_CODE_SPAN = re.compile(r"`([^`\n]+)`")


def code_spans(text: str) -> Markup:
    """One line of Ralph's own words (``approve with `ralph approve 5```) as HTML: the
    text escaped, its backticked commands as code, nothing else interpreted."""
    escaped = str(escape(text))
    return Markup(_CODE_SPAN.sub(lambda m: f"<code>{m.group(1)}</code>", escaped))


def render_markdown(text: str) -> Markup:
    """Markdown as safe HTML (every tag in ``text`` escaped)."""
    return Markup(_MARKDOWN.render(text))
