"""The functions ``@dataclass`` writes, compiled once and kept with the bytecode.

For every class it decorates, ``dataclasses`` writes ``__init__``, ``__repr__``,
``__eq__`` (and ``__hash__``, ``__setattr__`` for frozen ones) as source text and compiles
it: about three quarters of a class's cost on Python 3.11, some 50 ms of ``ralph status``
with its hundred dataclasses. Python keeps a module's bytecode, not this. So, where
:func:`install` has run, ``dataclasses`` compiles through a cache keyed by that source
text, read from one file beside Ralph's bytecode and written back, at exit, when a
process compiled something new. The code is what compiling the same text gives, so a
class is the same with or without the cache; a stale entry is never used (its text is
the key), only dropped when the file grows too large.

The file follows Python's rules for bytecode: where ``sys.pycache_prefix`` puts it, never
written under ``PYTHONDONTWRITEBYTECODE``, and a file it cannot read or write is no
cache.
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

__all__ = ["install"]

#: Beyond this many entries the file keeps only what the process writing it used: stale
#: texts (sources since edited) do not pile up. A command uses some 550.
_MAX_ENTRIES = 5000

#: Source text -> its code, marshalled: read from the file, or compiled by this process.
_kept: dict[str, bytes] = {}
#: What this process used: an entry is unmarshalled only when a class asks for it.
_used: dict[str, bytes] = {}
_new = False


def cache_file() -> Path:
    """Where the compiled code is kept: beside the bytecode of Ralph's ``__init__``, for
    this interpreter's version (marshalled code is only read by the version that wrote it)."""
    pyc = Path(cache_from_source(str(Path(__file__).with_name("__init__.py"))))
    return pyc.with_name(f"_dataclass_code.{sys.implementation.cache_tag}.marshal")


def install() -> None:
    """``dataclasses`` compiles through the cache from now on, in this process."""
    if getattr(dataclasses, "exec", None) is _exec:
        return
    _kept.update(_read(cache_file()))
    # A module's global comes before the builtin: only dataclasses' own exec is changed.
    dataclasses.exec = _exec  # type: ignore[attr-defined]
    atexit.register(_write_back)


def _exec(source: Any, globals: Any = None, locals: Any = None) -> None:
    global _new
    if isinstance(source, str):
        text, code = source, _load(_kept.get(source))
        if code is None:
            # dont_inherit: compiled as dataclasses would, without this module's futures.
            code = compile(text, "<string>", "exec", dont_inherit=True)
            _kept[text] = marshal.dumps(code)
            _new = True
        _used[text] = _kept[text]
        source = code
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
    if not _new or sys.dont_write_bytecode:
        return
    path = cache_file()
    # Another process may have added its own since this one read the file.
    kept = {**_read(path), **_kept}
    if len(kept) > _MAX_ENTRIES:
        kept = dict(_used)
    partial = path.with_name(f"{path.name}.{os.getpid()}")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with partial.open("wb") as file:
            marshal.dump(kept, file)
        os.replace(partial, path)  # whole or not at all, for a process reading it
    except OSError:
        partial.unlink(missing_ok=True)
