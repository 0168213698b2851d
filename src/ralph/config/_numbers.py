"""Numbers in settings: what ralph.toml or a RALPH_* variable may say for a number.

TOML has ``nan``, ``inf`` and booleans, and ``float()`` reads all of them from a
string; none is a budget, a limit or a number of seconds (``nan`` compares false with
everything, so a ``nan`` cap would silently be no cap). Every number has an upper
bound too: past it a value is a typo (``1e23`` turns, a billion agents), not a policy,
and would be taken as one silently."""

from __future__ import annotations

import math
from typing import Any

from ralph.errors import ConfigError

__all__ = [
    "MAX_AGENTS",
    "MAX_FIX_ROUNDS",
    "MAX_SECONDS",
    "MAX_TURNS",
    "MAX_USD",
    "MAX_WIP",
    "setting_number",
]

#: Agents (or roots) at once, in all or per phase: the CLI's bound on workers.
MAX_AGENTS = 64
#: Turns of one agent run.
MAX_TURNS = 1000
#: US dollars of any budget or cap.
MAX_USD = 100_000
#: Any duration in seconds: a day.
MAX_SECONDS = 86_400
#: Issues in one workflow state.
MAX_WIP = 10_000
#: Address rounds before a pull request goes to a person.
MAX_FIX_ROUNDS = 100
#: Stands for an integer too large for a float.
_TOO_LARGE = 1e300


def setting_number(
    value: Any,
    where: str,
    *,
    whole: bool = False,
    minimum: float = 0,
    above: bool = False,
    maximum: float,
) -> float:
    """``value`` as a finite number >= ``minimum`` (> when ``above``) and <= ``maximum``,
    a whole one when ``whole``; ConfigError naming ``where`` and the expected range
    otherwise. Strings (from the environment) are read as numbers."""
    kind = "a whole number" if whole else "a finite number"
    bound = f"{'>' if above else '>='} {minimum:g}"
    number: float | None = None
    if isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            number = None
    elif isinstance(value, int | float) and not isinstance(value, bool):
        # An integer past a float's range (TOML's are unbounded here) is too large, not junk.
        huge = isinstance(value, int) and abs(value) > 2**1000
        number = (_TOO_LARGE if value > 0 else -_TOO_LARGE) if huge else float(value)
    if (
        number is None
        or not math.isfinite(number)
        or (whole and not number.is_integer())
        or number < minimum
        or (above and number == minimum)
    ):
        raise ConfigError(f"{where}: {value!r} is not valid; expected {kind} {bound}")
    if number > maximum:
        raise ConfigError(f"{where}: {value!r} is too large; at most {maximum:g}")
    return number
