"""Ralph's text through Jira's ADF: exactly as typed, whatever it holds."""

from __future__ import annotations

import pytest

from ralph.jira import to_adf, to_text

TEXTS = [
    "",
    "one line",
    "ends with a break\n",
    "\n",
    "two\n\nparagraphs",
    "three\n\n\nnewlines",
    "\n\n\n\n",
    "  leading and trailing spaces  \n\ttab",
    '<!-- ralph:transition {"from": "Backlog"} -->\n**Moved** to `In Progress`\n\n- a\n- b\n',
    "```python\ndef f():\n    return 1\n```",
]


@pytest.mark.parametrize("text", TEXTS)
def test_text_comes_back_exactly_as_typed(text):
    assert to_text(to_adf(text)) == text


def test_every_text_node_has_text_as_jira_requires():
    document = to_adf("a\n\n\nb\n")
    stack = list(document["content"])
    while stack:
        node = stack.pop()
        if node["type"] == "text":
            assert node["text"]
        stack.extend(node.get("content", []))
    assert document["type"] == "doc"
    assert document["version"] == 1


def test_a_document_written_in_jira_reads_as_markdown_like_text():
    document = {
        "type": "doc",
        "version": 1,
        "content": [
            {
                "type": "heading",
                "attrs": {"level": 2},
                "content": [{"type": "text", "text": "Plan"}],
            },
            {
                "type": "bulletList",
                "content": [
                    {
                        "type": "listItem",
                        "content": [
                            {"type": "paragraph", "content": [{"type": "text", "text": "first"}]}
                        ],
                    },
                    {
                        "type": "listItem",
                        "content": [
                            {
                                "type": "paragraph",
                                "content": [{"type": "mention", "attrs": {"text": "@Ada"}}],
                            }
                        ],
                    },
                ],
            },
            {
                "type": "codeBlock",
                "attrs": {"language": "sh"},
                "content": [{"type": "text", "text": "make"}],
            },
        ],
    }
    assert to_text(document) == "## Plan\n\n- first\n- @Ada\n\n```sh\nmake\n```"


def test_no_description_is_empty_text():
    assert to_text(None) == ""
