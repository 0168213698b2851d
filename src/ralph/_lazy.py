"""A package's names, imported from its modules on first use: ``ralph status`` needs the
local tracker, not the GitHub one, so ``import ralph.tracker`` loads neither until a name
is asked for. A package keeps its imports under ``if TYPE_CHECKING:`` (what mypy and a
reader see) and, otherwise, the ``__getattr__`` made here, which reads those same
import lines from the package's source: the names are written once."""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["lazy_exports"]

#: ``from ralph.x._y import (a, b)`` or ``from ralph.x._y import a, b``.
_IMPORT = re.compile(r"^\s*from\s+([\w.]+)\s+import\s+(?:\(([^)]*)\)|([^\n]+))", re.M)


def lazy_exports(
    namespace: dict[str, Any],
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` for the package whose ``globals()`` is
    ``namespace``: each name imported in its ``if TYPE_CHECKING:`` block is imported
    from that module the first time it is asked for."""
    package = str(namespace["__name__"])
    module_of = _imports_for_type_checking(Path(namespace["__file__"]).read_text("utf-8"))

    def __getattr__(name: str) -> Any:
        module = module_of.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value  # asked once: later lookups are plain attribute reads
        return value

    def __dir__() -> list[str]:
        return sorted({*namespace, *module_of})

    return __getattr__, __dir__


def _imports_for_type_checking(source: str) -> dict[str, str]:
    """Name -> its module, from the ``if TYPE_CHECKING:`` block of ``source`` (up to its
    ``else:``)."""
    start = source.index("\nif TYPE_CHECKING:\n")
    block = source[start : source.index("\nelse:\n", start)]
    found: dict[str, str] = {}
    for module, grouped, inline in _IMPORT.findall(block):
        for name in (grouped or inline).replace("\n", " ").split(","):
            if name.strip():
                found[name.strip()] = module
    return found
