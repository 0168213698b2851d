"""Typer's Rich help without Rich's Markdown and traceback renderers.

``typer.rich_utils``, which draws every ``--help`` and usage error, imports
``rich.markdown`` (markdown-it, Pygments) and ``rich.traceback`` (``rich.pretty``, attrs)
at its top: a third of ``ralph --help``'s start-up. It uses them only to render help
written as Markdown (``rich_markup_mode="markdown"``; Ralph's is ``"rich"``) and to show
pretty tracebacks (Ralph turns them off). So, where :func:`install` has run, the module
is imported with a stand-in for each of the two names, which imports the real class the
first time it is used: the help looks the same, and either renderer still works when
something asks for it. Only that one import is changed; every other import, a later
``import rich.markdown`` included, gets the real module.
"""

from __future__ import annotations

import importlib
import sys
import types
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from importlib.machinery import ModuleSpec, PathFinder
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from importlib.abc import Loader

__all__ = ["install"]

#: The module made lighter, and what it imports that it seldom uses: (module, name).
_SLIMMED = "typer.rich_utils"
_DEFERRED = (("rich.markdown", "Markdown"), ("rich.traceback", "Traceback"))


def _stand_in(module: str, name: str) -> type:
    """A class named ``name`` whose uses go to ``module.name``, imported on the first."""

    def real() -> Any:
        return getattr(importlib.import_module(module), name)

    class _Meta(type):
        def __getattr__(cls, attribute: str) -> Any:  # Traceback.from_exception(...)
            return getattr(real(), attribute)

    def __new__(cls: type, *args: Any, **kwargs: Any) -> Any:
        return real()(*args, **kwargs)  # not an instance of cls: __init__ is not called

    return _Meta(name, (), {"__new__": __new__, "__module__": module})


@contextmanager
def _stand_ins() -> Iterator[None]:
    """The deferred modules not imported yet, stood in for while the block runs."""
    placed = []
    for module, name in _DEFERRED:
        if module not in sys.modules:
            stand_in = types.ModuleType(module)
            setattr(stand_in, name, _stand_in(module, name))
            sys.modules[module] = stand_in
            placed.append(module)
    try:
        yield
    finally:
        for module in placed:
            del sys.modules[module]


class _SlimLoader:
    # Duck-typed, as importlib.abc's base classes cost more to import than they save.
    def __init__(self, loader: Loader) -> None:
        self._loader = loader

    def create_module(self, spec: ModuleSpec) -> types.ModuleType | None:
        return self._loader.create_module(spec)

    def exec_module(self, module: types.ModuleType) -> None:
        with _stand_ins():
            self._loader.exec_module(module)


class _SlimFinder:
    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None,
        target: types.ModuleType | None = None,
    ) -> ModuleSpec | None:
        if fullname != _SLIMMED:
            return None
        spec = PathFinder.find_spec(fullname, path, target)
        if spec is not None and spec.loader is not None:
            spec.loader = cast("Loader", _SlimLoader(spec.loader))
        return spec


_FINDER = _SlimFinder()


def install() -> None:
    """From now on, ``typer.rich_utils`` is imported without the two renderers (once)."""
    if _SLIMMED not in sys.modules and _FINDER not in sys.meta_path:
        sys.meta_path.insert(0, _FINDER)
