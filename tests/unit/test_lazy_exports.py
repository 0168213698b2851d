"""A package whose names are imported on first use (``ralph._lazy``) still gives every
name of its ``__all__``, and says so when a name is not its own."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

import ralph

SRC = Path(ralph.__file__).parent
LAZY = sorted(
    ".".join(("ralph", *init.parent.relative_to(SRC).parts))
    for init in SRC.rglob("__init__.py")
    if "lazy_exports(" in init.read_text()
)


def test_the_packages_a_command_reads_are_lazy():
    assert {"ralph.config", "ralph.project", "ralph.tracker", "ralph.phases"} <= set(LAZY)


@pytest.mark.parametrize("name", LAZY)
def test_every_exported_name_is_there_and_listed(name: str):
    package = importlib.import_module(name)
    for export in package.__all__:
        assert hasattr(package, export), export  # imported from its module now
    assert set(package.__all__) <= set(dir(package))


@pytest.mark.parametrize("name", LAZY)
def test_a_name_the_package_does_not_have_is_an_attribute_error(name: str):
    package = importlib.import_module(name)
    with pytest.raises(AttributeError, match="no attribute 'not_a_name'"):
        _ = package.not_a_name
