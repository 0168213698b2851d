"""Every module's ``__all__`` says what it offers, public API or not: a package lists only
names it has, a private module only names it defines, and a package re-exports from its
private modules only what they list."""

from __future__ import annotations

import ast
import importlib
import pkgutil
from pathlib import Path
from types import ModuleType

import pytest

import ralph
from tests.ralph_source import parsed

MODULES = [
    "ralph",
    *(
        m.name
        for m in pkgutil.walk_packages(ralph.__path__, "ralph.")
        if not m.name.endswith(".__main__")
    ),
]
PACKAGES = [name for name in MODULES if hasattr(importlib.import_module(name), "__path__")]
PRIVATE = [name for name in MODULES if name.rpartition(".")[2].startswith("_")]


def _source(module: ModuleType) -> ast.Module:
    assert module.__file__ is not None
    return parsed(Path(module.__file__))


def _defined(module: ModuleType) -> set[str]:
    """The names a module's top level binds itself, imports aside."""
    names: set[str] = set()
    for node in _source(module).body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign | ast.Try | ast.If):
            for target in ast.walk(node):
                if isinstance(target, ast.Name) and isinstance(target.ctx, ast.Store):
                    names.add(target.id)
    return names


@pytest.mark.parametrize("name", PACKAGES)
def test_a_package_lists_only_names_it_has(name: str) -> None:
    package = importlib.import_module(name)
    assert [n for n in package.__all__ if not hasattr(package, n)] == []


@pytest.mark.parametrize("name", PACKAGES)
def test_a_package_lists_every_public_class_or_function_of_its_own(name: str) -> None:
    package = importlib.import_module(name)
    ours = {
        attribute
        for attribute, value in vars(package).items()
        if not attribute.startswith("_")
        and not isinstance(value, ModuleType)
        and getattr(value, "__module__", "").startswith(f"{name}._")
    }
    assert ours - set(package.__all__) == set()


@pytest.mark.parametrize("name", PRIVATE)
def test_a_private_module_lists_only_names_it_defines(name: str) -> None:
    module = importlib.import_module(name)
    assert set(module.__all__) - _defined(module) == set()


@pytest.mark.parametrize("name", PACKAGES)
def test_a_package_re_exports_only_what_its_private_modules_list(name: str) -> None:
    unlisted = []
    for node in _source(importlib.import_module(name)).body:
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(f"{name}._"):
            listed = importlib.import_module(str(node.module)).__all__
            unlisted += [f"{node.module}.{a.name}" for a in node.names if a.name not in listed]
    assert unlisted == []
