"""Tests run without the developer's Ralph settings and credentials."""

from __future__ import annotations

import os
import subprocess
import sys

from ralph.github import pacing_dir

_SHOW = "import os; print(sorted(n for n in os.environ if n.startswith('RALPH_')))"


#: Set by the tests' own fixture, never the developer's: a pacing folder per test, and
#: the published API definitions the fakes load (beside the repository).
_HARNESS = {
    "RALPH_GH_PACING_DIR",
    "RALPH_GITHUB_SCHEMA",
    "RALPH_LINEAR_SCHEMA",
    "RALPH_JIRA_OPENAPI",
    "RALPH_GITLAB_OPENAPI",
}


def test_no_ralph_setting_or_token_of_the_developer_reaches_a_test() -> None:
    leaked = [
        name
        for name in os.environ
        if (
            name.startswith("RALPH_")
            and not name.startswith("RALPH_TEST_")
            and name not in _HARNESS
        )
        or name in ("GH_TOKEN", "GITHUB_TOKEN", "ANTHROPIC_API_KEY")
    ]
    assert leaked == []
    assert os.environ["RALPH_GH_PACING_DIR"] != str(pacing_dir({}))  # never the real home


def test_nor_a_process_a_test_starts() -> None:
    shown = subprocess.run(
        [sys.executable, "-c", _SHOW], capture_output=True, text=True, timeout=30, check=True
    ).stdout
    assert "RALPH_GH_TOKEN" not in shown
    assert "RALPH_STORE_URL" not in shown


def test_tests_write_bytecode_only_if_the_environment_lets_them() -> None:
    """tests/conftest.py keeps bytecode while the tests load, then puts the setting back:
    what a test imports from a repository of its own leaves no ``__pycache__`` there."""
    assert sys.dont_write_bytecode is bool(os.environ.get("PYTHONDONTWRITEBYTECODE"))
