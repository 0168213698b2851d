"""Ralph's own source files parsed, once per process for every test that reads them
(the layers, the modules' exports, the console's callers): a parse of every module is
the larger part of those tests."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

__all__ = ["parsed"]


@functools.cache
def parsed(path: Path) -> ast.Module:
    """The module at ``path``, parsed; shared, so never to be changed by a caller."""
    return ast.parse(path.read_text())
