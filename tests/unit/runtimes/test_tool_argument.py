"""The argument an activity shows beside a tool call names what the call is about."""

from __future__ import annotations

from pathlib import Path

import pytest

from ralph.runtimes._tool_argument import tool_argument

pytestmark = pytest.mark.timeout(30)

WORKDIR = Path("/work/repo")


@pytest.mark.parametrize(
    ("arguments", "shown"),
    [
        ({"file_path": "/work/repo/calc/x.py", "content": "..."}, "calc/x.py"),
        ({"filePath": "/work/repo/doc.md"}, "doc.md"),
        ({"file_path": "/etc/passwd"}, "/etc/passwd"),  # outside: as given
        ({"pattern": "def farewell", "path": "/work/repo"}, "def farewell"),
        ({"command": "/bin/bash -lc 'make test'"}, "make test"),
        ({"command": "pytest -q", "description": "run the tests"}, "pytest -q"),
        ({"cmd": ["git", "status"]}, "git status"),
        ({"url": "https://example.com/a"}, "https://example.com/a"),
        ({"content": "no subject"}, ""),
        ({"command": "echo 'unclosed"}, "echo 'unclosed"),
        ("not a mapping", ""),
        (None, ""),
    ],
)
def test_the_argument_names_the_file_pattern_command_or_address(arguments, shown):
    assert tool_argument(arguments, WORKDIR) == shown
