"""A package's names, imported from its modules on first use: ``ralph status`` needs the
local tracker, not the GitHub one, so ``import ralph.tracker`` loads neither until a name
is asked for. A package keeps the real imports under ``TYPE_CHECKING`` (what mypy and a
reader see) and, otherwise, the ``__getattr__`` made here from the same names."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Mapping
from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(
    namespace: dict[str, Any], exports: Mapping[str, Iterable[str]]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` for the package whose ``globals()`` is ``namespace``;
    ``exports`` maps each module (relative to the package, e.g. ``"._model"``, or
    absolute) to the names it gives."""
    package = str(namespace["__name__"])
    module_of = {
        name: (package + module if module.startswith(".") else module)
        for module, names in exports.items()
        for name in names
    }

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
