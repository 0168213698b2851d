"""``ralph init`` finds the project's test command from the files present."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ralph.config import Config, detect_test_command, untested_warning


def make(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


@pytest.mark.parametrize(
    ("files", "command", "source"),
    [
        ({"Makefile": "lint:\n\truff .\n\ntest: lint\n\tpytest\n"}, "make test", "Makefile"),
        ({"package.json": json.dumps({"scripts": {"test": "vitest"}})}, "npm test", "package"),
        ({"Cargo.toml": "[package]\n"}, "cargo test", "Cargo.toml"),
        ({"go.mod": "module x\n"}, "go test ./...", "go.mod"),
        (
            {"pyproject.toml": "[tool.pytest.ini_options]\n", "tests/test_a.py": ""},
            "python3 -m pytest",
            "pytest",
        ),
        ({"pyproject.toml": "", "uv.lock": "", "conftest.py": ""}, "uv run pytest", "pytest"),
        (
            {"tests/__init__.py": "", "tests/test_a.py": "import unittest\n"},
            "python3 -m unittest",
            "unittest",
        ),
        (
            {"tests/test_a.py": "import unittest\n"},
            "python3 -m unittest discover -s tests",
            "tests/",
        ),
        (
            {"setup.cfg": "[metadata]\n", "poetry.lock": ""},
            "poetry run python -m unittest",
            "setup.cfg",
        ),
    ],
)
def test_the_test_command_is_found_from_the_files_present(tmp_path, files, command, source):
    found = detect_test_command(make(tmp_path, files))
    assert found is not None
    assert found.command == command
    assert source in found.source


def test_a_makefile_target_wins_over_the_language_default(tmp_path):
    make(tmp_path, {"Makefile": "test:\n\tgo test ./...\n", "go.mod": "module x\n"})
    found = detect_test_command(tmp_path)
    assert found is not None
    assert found.command == "make test"


@pytest.mark.parametrize(
    "files",
    [
        {},
        {"README.md": "hello\n"},
        {"Makefile": "TEST := 1\ntest := 2\nbuild:\n\tcc x.c\n"},
        {"package.json": json.dumps({"scripts": {"test": 'echo "Error: no test specified"'}})},
        {"package.json": "not json"},
    ],
)
def test_nothing_is_found_when_nothing_says_how_to_test(tmp_path, files):
    assert detect_test_command(make(tmp_path, files)) is None


def test_an_empty_test_command_is_a_warning_that_says_what_to_set(tmp_path):
    make(tmp_path, {"go.mod": "module x\n"})
    warning = untested_warning(Config(root=tmp_path))
    assert warning is not None
    assert f"test_command is empty in {tmp_path / 'ralph.toml'}" in warning
    assert "Ralph runs no tests" in warning
    assert 'test_command = "go test ./..."' in warning
    assert untested_warning(Config(root=tmp_path, test_command="go test ./...")) is None
