"""A section of ralph.toml read as a table whose keys Ralph knows."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ralph._suggest import closest
from ralph.errors import ConfigError

__all__ = ["section_table"]


def section_table(data: Any, source: str, section: str, known: Iterable[str]) -> dict[str, Any]:
    """``[section]``'s table (empty when absent); a value that is no table, or a key
    Ralph does not know, is a ConfigError naming it and what is known."""
    table = {} if data is None else data
    if not isinstance(table, dict):
        raise ConfigError(f"{source}: [{section}] must be a table")
    names = list(known)
    unknown = sorted(set(table) - set(names))
    if unknown:
        close = closest(unknown[0], names)
        hint = f"did you mean {section}.{close}?" if close else f"known: {', '.join(names)}"
        raise ConfigError(f"{source}: unknown setting {section}.{unknown[0]}; {hint}")
    return table
