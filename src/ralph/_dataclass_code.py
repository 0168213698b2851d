"""The functions ``@dataclass`` writes, compiled once and kept with the bytecode.

For every class it decorates, ``dataclasses`` writes ``__init__``, ``__repr__``,
``__eq__`` (and ``__hash__``, ``__setattr__`` for frozen ones) as source text and compiles
it: about three quarters of a class's cost on Python 3.11, some 50 ms of ``ralph status``
with its hundred dataclasses. Python keeps a module's bytecode, not this. So, where
:func:`install` has run, ``dataclasses`` compiles through a cache keyed by that source
text: a file for each module beside the module's bytecode, read when the module makes its
first dataclass and written back, at exit, with what the module used, when something was
compiled. The code is what compiling the same text gives, so a class is the same with
or without the cache; a stale entry is never used (its text is the key), and goes when
its module's file is written again.

The files follow Python's rules for bytecode: where ``sys.pycache_prefix`` puts them,
never written under ``PYTHONDONTWRITEBYTECODE``, and a file that cannot be read or
written is no cache.
"""

from __future__ import annotations

import atexit
import builtins
import dataclasses
import marshal
import os
import sys
from importlib.util import cache_from_source
from pathlib import Path
from types import CodeType
from typing import Any

__all__ = ["cache_file", "install"]


class _ModuleCode:
    """One module's compiled texts: those its file kept, those this process used."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.kept = _read(path) if path is not None else {}
        self.used: dict[str, bytes] = {}
        self.compiled = False

    def code(self, text: str) -> CodeType:
        code = _load(self.kept.get(text))
        if code is None:
            # dont_inherit: compiled as dataclasses would, without this module's futures.
            code = compile(text, "<string>", "exec", dont_inherit=True)
            self.kept[text] = marshal.dumps(code)
            self.compiled = True
        self.used[text] = self.kept[text]
        return code


#: Source file of a module -> its compiled texts, for the modules that made a dataclass.
_modules: dict[str, _ModuleCode] = {}


def cache_file(source: str) -> Path | None:
    """Where the dataclasses' code of the module in ``source`` is kept: beside its
    bytecode (marshalled code is read only by the Python version that wrote it, which
    the bytecode's name says). None where Python keeps no bytecode."""
    try:
        pyc = Path(cache_from_source(source))
    except (NotImplementedError, ValueError):
        return None
    return pyc.with_name(f"{pyc.stem}.dataclasses.marshal")


def install() -> None:
    """``dataclasses`` compiles through the cache from now on, in this process."""
    if getattr(dataclasses, "exec", None) is _exec:
        return
    # A module's global comes before the builtin: only dataclasses' own exec is changed.
    dataclasses.exec = _exec  # type: ignore[attr-defined]
    atexit.register(_write_back)


def _exec(source: Any, globals: Any = None, locals: Any = None) -> None:
    if isinstance(source, str) and isinstance(globals, dict):
        # dataclasses runs the text in the globals of the class's module.
        module_file = globals.get("__file__")
        if isinstance(module_file, str):
            module = _modules.get(module_file)
            if module is None:
                module = _modules[module_file] = _ModuleCode(cache_file(module_file))
            source = module.code(source)
    if isinstance(source, str):
        # As dataclasses' own exec would: without this module's futures (annotations).
        source = compile(source, "<string>", "exec", dont_inherit=True)
    builtins.exec(source, globals, locals)


def _load(marshalled: object) -> CodeType | None:
    """The code kept, or None when there is none or it is not code (a damaged file)."""
    if not isinstance(marshalled, bytes):
        return None
    try:
        code = marshal.loads(marshalled)
    except (EOFError, ValueError, TypeError):
        return None
    return code if isinstance(code, CodeType) else None


def _read(path: Path) -> dict[str, bytes]:
    try:
        with path.open("rb") as file:
            found = marshal.load(file)
    except (OSError, EOFError, ValueError, TypeError):
        return {}
    return found if isinstance(found, dict) else {}


def _write_back() -> None:
    if sys.dont_write_bytecode:
        return
    for module in _modules.values():
        if module.compiled and module.path is not None:
            _write(module.path, module.used)


def _write(path: Path, entries: dict[str, bytes]) -> None:
    partial = path.with_name(f"{path.name}.{os.getpid()}")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with partial.open("wb") as file:
            marshal.dump(entries, file)
        os.replace(partial, path)  # whole or not at all, for a process reading it
    except OSError:
        partial.unlink(missing_ok=True)
