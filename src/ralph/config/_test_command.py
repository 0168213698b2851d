"""The project's test command: what ``ralph init`` finds from the files present, and the
warning every run gives when there is none (the implementation gate then tests
nothing)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from ralph.config._config import CONFIG_FILE, Config

__all__ = ["FoundTestCommand", "detect_test_command", "untested_warning"]

_MAKE_TEST = re.compile(r"^test\s*:(?!=)", re.MULTILINE)
#: What ``npm init`` writes when a package has no tests.
_NPM_PLACEHOLDER = "no test specified"
_PYTHON_FILES = ("pyproject.toml", "setup.cfg", "setup.py", "pytest.ini", "tox.ini")


@dataclass(frozen=True)
class FoundTestCommand:
    command: str
    #: What it was found from, for a person ("the Makefile's test target").
    source: str


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def _make(root: Path) -> FoundTestCommand | None:
    for name in ("GNUmakefile", "Makefile", "makefile"):
        if _MAKE_TEST.search(_read(root / name)):
            return FoundTestCommand("make test", f"the {name}'s test target")
    return None


def _npm(root: Path) -> FoundTestCommand | None:
    try:
        scripts = json.loads(_read(root / "package.json") or "{}").get("scripts") or {}
    except (ValueError, AttributeError):
        return None
    test = scripts.get("test") if isinstance(scripts, dict) else None
    if isinstance(test, str) and test.strip() and _NPM_PLACEHOLDER not in test:
        return FoundTestCommand("npm test", "package.json's test script")
    return None


def _test_folder(root: Path) -> Path | None:
    for name in ("tests", "test"):
        folder = root / name
        if folder.is_dir() and any(folder.rglob("test*.py")):
            return folder
    return None


def _python(root: Path) -> FoundTestCommand | None:
    markers = [name for name in _PYTHON_FILES if (root / name).is_file()]
    folder = _test_folder(root)
    if not markers and folder is None:
        return None
    text = "\n".join(_read(root / name) for name in markers)
    conftest = (root / "conftest.py").is_file() or (folder and (folder / "conftest.py").is_file())
    pytest = bool(conftest) or "pytest" in text
    if (root / "uv.lock").is_file():
        prefix, python = "uv run ", "uv run python"
    elif (root / "poetry.lock").is_file():
        prefix, python = "poetry run ", "poetry run python"
    else:
        prefix, python = "", "python3"
    found = ", ".join([*markers, *([f"{folder.name}/"] if folder else [])])
    if pytest:
        command = f"{prefix}pytest" if prefix else "python3 -m pytest"
        return FoundTestCommand(command, f"{found} (pytest)")
    # unittest discovers only packages; a tests folder without __init__.py is named.
    start = ""
    if folder is not None and not (folder / "__init__.py").is_file():
        start = f" discover -s {folder.name}"
    return FoundTestCommand(f"{python} -m unittest{start}", f"{found} (unittest)")


def detect_test_command(root: Path) -> FoundTestCommand | None:
    """How the project at ``root`` runs its tests, from the files present: a Makefile's
    ``test`` target, package.json's test script, Cargo.toml, go.mod, or a Python project
    (pytest when it is configured or named, else unittest). None when nothing says."""
    for found in (_make(root), _npm(root)):
        if found is not None:
            return found
    if (root / "Cargo.toml").is_file():
        return FoundTestCommand("cargo test", "Cargo.toml")
    if (root / "go.mod").is_file():
        return FoundTestCommand("go test ./...", "go.mod")
    return _python(root)


def untested_warning(config: Config) -> str | None:
    """What to tell a person whose project has no test command (None when it has one)."""
    if config.test_command.strip():
        return None
    found = detect_test_command(config.root)
    example = found.command if found is not None else "make test"
    return (
        f"test_command is empty in {config.root / CONFIG_FILE}: Ralph runs no tests, so an "
        f"implementation that breaks the project passes its gate. Set it there (for "
        f'example test_command = "{example}") or in RALPH_TEST_COMMAND.'
    )
