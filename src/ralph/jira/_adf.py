"""Text as Jira's Atlassian Document Format (ADF) and back (pure).

Jira Cloud's v3 API takes descriptions and comments as ADF documents. Ralph writes
text (markdown, its comment headers) that it must read back exactly as typed, so
:func:`to_adf` keeps it as plain paragraphs: each blank-line-separated block is a
paragraph, each line break inside one a ``hardBreak``, and :func:`to_text` joins them
back, so ``to_text(to_adf(text)) == text`` for any text. A document a person wrote in
Jira's editor (headings, lists, code blocks, mentions, links) is read as markdown-like
text.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["to_adf", "to_text"]


def to_adf(text: str) -> dict[str, Any]:
    """An ADF document holding ``text`` exactly."""
    paragraphs = []
    for block in text.split("\n\n"):
        content: list[dict[str, Any]] = []
        for index, line in enumerate(block.split("\n")):
            if index:
                content.append({"type": "hardBreak"})
            if line:  # ADF text nodes may not be empty
                content.append({"type": "text", "text": line})
        paragraphs.append({"type": "paragraph", "content": content})
    return {"type": "doc", "version": 1, "content": paragraphs}


def to_text(document: Any) -> str:
    """The text of an ADF document (None or a plain string read as they are)."""
    if document is None:
        return ""
    if isinstance(document, str):
        return document
    if not isinstance(document, Mapping):
        return ""
    return "\n\n".join(_block(node) for node in document.get("content") or [])


def _inline(nodes: Any) -> str:
    parts = []
    for node in nodes or []:
        kind = node.get("type")
        attrs = node.get("attrs") or {}
        if kind == "text":
            parts.append(str(node.get("text", "")))
        elif kind == "hardBreak":
            parts.append("\n")
        elif kind == "mention":
            parts.append(str(attrs.get("text") or "@someone"))
        elif kind in ("inlineCard", "blockCard"):
            parts.append(str(attrs.get("url", "")))
        elif kind == "emoji":
            parts.append(str(attrs.get("text") or attrs.get("shortName", "")))
        else:
            parts.append(_inline(node.get("content")))
    return "".join(parts)


def _block(node: Mapping[str, Any], indent: str = "") -> str:
    kind = node.get("type")
    content = node.get("content") or []
    if kind == "paragraph":
        return _inline(content)
    if kind == "heading":
        level = int((node.get("attrs") or {}).get("level", 1))
        return "#" * level + " " + _inline(content)
    if kind == "codeBlock":
        language = (node.get("attrs") or {}).get("language") or ""
        return f"```{language}\n{_inline(content)}\n```"
    if kind in ("bulletList", "orderedList"):
        lines = []
        for number, item in enumerate(content, 1):
            mark = f"{number}." if kind == "orderedList" else "-"
            text = "\n".join(_block(child, indent + "  ") for child in item.get("content") or [])
            lines.append(f"{indent}{mark} {text}")
        return "\n".join(lines)
    if kind == "blockquote":
        return "\n".join(
            "> " + line for line in "\n\n".join(_block(c) for c in content).split("\n")
        )
    if kind == "rule":
        return "---"
    if content and isinstance(content[0], Mapping) and content[0].get("type") in ("text", None):
        return _inline(content)
    return "\n\n".join(_block(child) for child in content if isinstance(child, Mapping))
