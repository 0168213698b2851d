"""The layers of docs/architecture.md, kept: no module imports a layer above its own, and
no package reaches into another package's private modules."""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator
from pathlib import Path

import pytest

import ralph
from tests.ralph_source import parsed

SRC = Path(ralph.__file__).parent
#: Lowest first. A package may import its own layer and the ones below.
LAYERS: dict[str, int] = {
    **dict.fromkeys(
        [
            "errors",
            "_agents",
            "_command_process",
            "_dataclass_code",
            "_debuglog",
            "_distribution",
            "_graphql_http",
            "_json",
            "_jsonschema",
            "_lazy",
            "_logs",
            "_openapi",
            "_process",
            "_published",
            "_quiet_http",
            "_reason",
            "_rest_http",
            "_secrets",
            "_suggest",
            "_text",
            "_tracing",
        ],
        0,
    ),
    **dict.fromkeys(
        ["workflow", "pipeline", "graph", "artifacts", "dashboard", "routing", "hooks"], 1
    ),
    **dict.fromkeys(
        [
            "config",
            "db",
            "tracker",
            "tasks",
            "git",
            "github",
            "linear",
            "jira",
            "gitlab",
            "sandbox",
            "notify",
        ],
        2,
    ),
    # The wiring from settings to adapters; runtimes need no project.
    # The debug log read back files its errors on a tracker; board management (hygiene,
    # archive, status reports, routing) works on a tracker with the pure core's numbers.
    **dict.fromkeys(["project", "runtimes", "debug", "board"], 3),
    "phases": 4,
    # What people look at (the CLI's --json, the web's pages), over orchestrate's reports.
    **dict.fromkeys(["orchestrate", "views"], 5),
    **dict.fromkeys(["cli", "mcp", "demo", "plugin", "web", "__main__", "__init__"], 6),
}
#: Private modules still reached across packages; this list only ever shrinks.
KNOWN_PRIVATE_REACHES: set[tuple[str, str]] = set()


def _modules() -> list[Path]:
    return sorted(SRC.rglob("*.py"))


def _name(path: Path) -> str:
    parts = path.relative_to(SRC.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@functools.cache
def _imported(path: Path) -> tuple[str, ...]:
    """Every ralph module ``path`` imports, lazily or not, ``from pkg import _mod`` counted
    as an import of ``pkg._mod``; read once for the tests of every layer rule."""
    return tuple(_imports_in(path))


def _imports_in(path: Path) -> Iterator[str]:
    package = _name(path) if path.name == "__init__.py" else _name(path).rpartition(".")[0]
    for node in ast.walk(parsed(path)):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            yield base
            yield from (f"{base}.{alias.name}" for alias in node.names if alias.name[0] == "_")


def _package(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _ids(path: Path) -> str:
    return str(path.relative_to(SRC))


@pytest.mark.parametrize("path", _modules(), ids=_ids)
def test_every_package_has_a_layer(path: Path) -> None:
    assert _package(_name(path)) in LAYERS


@pytest.mark.parametrize("path", _modules(), ids=_ids)
def test_no_module_imports_a_layer_above_its_own(path: Path) -> None:
    own = LAYERS.get(_package(_name(path)), 0)
    upward = [
        module
        for module in _imported(path)
        if module.startswith("ralph.") and LAYERS.get(_package(module), 0) > own
    ]
    assert upward == []


@pytest.mark.parametrize("path", _modules(), ids=_ids)
def test_no_module_reaches_into_another_packages_private_modules(path: Path) -> None:
    me = _name(path)
    reaches = []
    for module in _imported(path):
        parts = module.split(".")
        private = [i for i, part in enumerate(parts) if part.startswith("_") and i > 0]
        if not module.startswith("ralph.") or not private:
            continue
        owner = ".".join(parts[: private[0]])
        if not (me == owner or me.startswith(owner + ".")) and len(parts) > 2:
            reaches.append(module)
    assert [r for r in reaches if (me, r) not in KNOWN_PRIVATE_REACHES] == []


#: What settings parsing may import: errors, did-you-mean, the agent CLIs' catalogue, the
#: pure core and itself.
#: Opening the adapters the settings name is ralph.project's work.
_SETTINGS_MAY_IMPORT = (
    "ralph.config",
    "ralph.errors",
    "ralph._agents",
    "ralph._lazy",
    "ralph._suggest",
    "ralph.graph",
    "ralph.workflow",
)


@pytest.mark.parametrize("path", sorted((SRC / "config").rglob("*.py")), ids=_ids)
def test_settings_import_no_adapter(path: Path) -> None:
    adapters = [
        module
        for module in _imported(path)
        if module.startswith("ralph.") and not module.startswith(_SETTINGS_MAY_IMPORT)
    ]
    assert adapters == []
