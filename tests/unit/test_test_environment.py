"""Tests run without the developer's Ralph settings and credentials."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from ralph.github import pacing_dir
from tests.bytecode import bytecode_folder

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


def test_tests_keep_their_bytecode_outside_the_checkout() -> None:
    """tests/conftest.py sends bytecode to the user's cache folder, for this process and
    the processes it starts: a test run leaves no ``__pycache__`` in the checkout, or in a
    repository a test imports from."""
    checkout = Path(__file__).resolve().parents[2]
    assert sys.pycache_prefix is not None
    assert not Path(sys.pycache_prefix).resolve().is_relative_to(checkout)
    assert sys.dont_write_bytecode is False
    shown = subprocess.run(
        [sys.executable, "-c", "import sys; print(sys.pycache_prefix, sys.dont_write_bytecode)"],
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    ).stdout.split()
    assert shown == [sys.pycache_prefix, "False"]


def test_the_bytecode_folder_is_the_users_cache_unless_one_is_chosen() -> None:
    assert bytecode_folder({"HOME": "/home/me", "XDG_CACHE_HOME": "/var/cache/me"}) == Path(
        "/var/cache/me/ralph-tests/bytecode"
    )
    chosen = {"XDG_CACHE_HOME": "/var/cache/me", "PYTHONPYCACHEPREFIX": "/elsewhere"}
    assert bytecode_folder(chosen) == Path("/elsewhere")
