"""The core (workflow, pipeline, graph) does no I/O: it imports nothing that could."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import ralph
from tests.ralph_source import parsed

SRC = Path(ralph.__file__).parent
CORE = ["workflow", "pipeline", "graph", "dashboard", "routing", "artifacts", "hooks"]
FORBIDDEN = {
    "asyncio",
    "httpx",
    "httpx2",
    "io",
    "os",
    "pathlib",
    "psycopg",
    "requests",
    "shutil",
    "socket",
    "sqlite3",
    "subprocess",
    "tempfile",
    "threading",
    "time",
    "urllib",
}
ALLOWED_FIRST_PARTY = (
    "ralph.workflow",
    "ralph.pipeline",
    "ralph.graph",
    "ralph.dashboard",
    "ralph.routing",
    "ralph.artifacts",
    "ralph.hooks",
    "ralph.errors",
    "ralph._json",
    # A package's names imported on first use (importlib only): no I/O of its own.
    "ralph._lazy",
)


def imports(path):
    for node in ast.walk(parsed(path)):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            yield node.module


@pytest.mark.parametrize(
    "path", [p for layer in CORE for p in sorted((SRC / layer).rglob("*.py"))], ids=str
)
def test_core_modules_import_no_io_and_nothing_above_the_core(path):
    for name in imports(path):
        top = name.split(".")[0]
        assert top not in FORBIDDEN, f"{path.name} imports {name}"
        if top == "ralph":
            assert name.startswith(ALLOWED_FIRST_PARTY), f"{path.name} imports {name}"


@pytest.mark.parametrize("path", sorted((SRC / "sandbox").rglob("*.py")), ids=str)
def test_the_sandbox_depends_on_nothing_of_ralph_but_its_errors_and_the_agent_catalogue(path):
    """Every layer that runs agent-written code uses it; it must not pull them in."""
    allowed = ("ralph.sandbox", "ralph.errors", "ralph._agents")
    for name in imports(path):
        if name.split(".")[0] == "ralph":
            assert name.startswith(allowed), f"{path.name} imports {name}"


def test_the_agent_catalogue_imports_nothing_of_ralph_and_does_no_io():
    """Settings, the sandbox and the runtimes all read it: pure data, at the bottom."""
    for name in imports(SRC / "_agents.py"):
        assert name.split(".")[0] != "ralph"
        assert name.split(".")[0] not in FORBIDDEN
