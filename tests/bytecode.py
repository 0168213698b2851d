"""Where the suite and the benchmarks keep their compiled modules: a cache folder of the
user's, never ``__pycache__`` beside the sources of the checkout.

Bytecode is what makes the suite quick to load: each xdist worker imports Ralph, its
dependencies and every test module (asserts rewritten by pytest), and the processes
tests start (ralph, agents, fakes) import them again; compiled once, each import reads a
file instead of compiling. So bytecode is written even where the environment says not to
(``PYTHONDONTWRITEBYTECODE``), but under ``sys.pycache_prefix``, a folder outside the
checkout: the tree a person works in gets no file from a test run or a benchmark.

The folder is ``$XDG_CACHE_HOME/ralph-tests/bytecode`` (``~/.cache`` by default): the
user's own, so no other account can put bytecode there for the suite to run (a folder
under ``/tmp`` could be made by anyone first), and kept between runs, which is the point
of a cache. Not ``.venv``: it is inside the checkout. Python mirrors each source's
absolute path under it, so clones never share a file, and a stale file is recompiled
(it records its source's size and time). A ``PYTHONPYCACHEPREFIX`` already set wins."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path

__all__ = ["BYTECODE_VARIABLES", "bytecode_folder", "keep_bytecode_outside_the_tree"]

#: The variables ``keep_bytecode_outside_the_tree`` sets or clears for the processes
#: this one starts.
BYTECODE_VARIABLES = ("PYTHONPYCACHEPREFIX", "PYTHONDONTWRITEBYTECODE")


def bytecode_folder(environ: Mapping[str, str] = os.environ) -> Path:
    """The folder the compiled modules go to: ``PYTHONPYCACHEPREFIX`` if set, else the
    user's cache folder's ``ralph-tests/bytecode``."""
    chosen = environ.get("PYTHONPYCACHEPREFIX")
    if chosen:
        return Path(chosen)
    cache = environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "ralph-tests" / "bytecode"


def keep_bytecode_outside_the_tree() -> Path:
    """This process and every process it starts from now on write and read their
    bytecode in ``bytecode_folder()``, and nowhere else; returns the folder."""
    folder = bytecode_folder()
    sys.pycache_prefix = str(folder)
    sys.dont_write_bytecode = False
    os.environ["PYTHONPYCACHEPREFIX"] = str(folder)
    # Set, it would stop the processes tests start from writing into the folder, and
    # each would compile again what only it imports.
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    return folder
