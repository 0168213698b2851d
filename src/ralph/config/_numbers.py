"""Numbers in settings: what ralph.toml or a RALPH_* variable may say for a number.

TOML has ``nan``, ``inf`` and booleans, and ``float()`` reads all of them from a
string; none is a budget, a limit or a number of seconds (``nan`` compares false with
everything, so a ``nan`` cap would silently be no cap)."""

from __future__ import annotations

import math
from typing import Any

from ralph.errors import ConfigError

__all__ = ["setting_number"]


def setting_number(
    value: Any, where: str, *, whole: bool = False, minimum: float = 0, above: bool = False
) -> float:
    """``value`` as a finite number >= ``minimum`` (> when ``above``), a whole one when
    ``whole``; ConfigError naming ``where`` and the expected range otherwise. Strings
    (from the environment) are read as numbers."""
    kind = "a whole number" if whole else "a finite number"
    bound = f"{'>' if above else '>='} {minimum:g}"
    number: float | None = None
    if isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            number = None
    elif isinstance(value, int | float) and not isinstance(value, bool):
        number = float(value)
    if (
        number is None
        or not math.isfinite(number)
        or (whole and not number.is_integer())
        or number < minimum
        or (above and number == minimum)
    ):
        raise ConfigError(f"{where}: {value!r} is not valid; expected {kind} {bound}")
    return number
