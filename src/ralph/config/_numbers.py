"""Numbers in settings: what ralph.toml or a RALPH_* variable may say for a number.

TOML has ``nan``, ``inf`` and booleans, and ``float()`` reads all of them from a
string; none is a budget, a limit or a number of seconds (``nan`` compares false with
everything, so a ``nan`` cap would silently be no cap). Every number has an upper
bound too: past it a value is a typo (``1e23`` turns, a billion agents), not a policy,
and would be taken as one silently. And a lower one: a positive value too small to mean
anything (``poll_seconds = 1e-300`` makes an idle ``ralph serve`` spin on a core) is a
typo as well."""

from __future__ import annotations

import math
from typing import Any

from ralph.errors import ConfigError

__all__ = [
    "DEFAULT_MERGE_BATCH",
    "MAX_AGENTS",
    "MAX_FIX_ROUNDS",
    "MAX_MERGE_BATCH",
    "MAX_SECONDS",
    "MAX_SESSIONS",
    "MAX_TOKENS",
    "MAX_TURNS",
    "MAX_USD",
    "MAX_WIP",
    "MIN_POLL_SECONDS",
    "MIN_SECONDS",
    "MIN_USD",
    "MIN_WAIT_SECONDS",
    "setting_number",
]

#: Agents (or roots) at once, in all or per phase: the CLI's bound on workers.
MAX_AGENTS = 64
#: Turns of one agent run.
MAX_TURNS = 1000
#: US dollars of any budget or cap.
MAX_USD = 100_000
#: Tokens of any token cap: a trillion.
MAX_TOKENS = 1_000_000_000_000
#: Agent sessions of a session cap.
MAX_SESSIONS = 100_000
#: Any duration in seconds: a day.
MAX_SECONDS = 86_400
#: Issues in one workflow state.
MAX_WIP = 10_000
#: Address rounds before a pull request goes to a person.
MAX_FIX_ROUNDS = 100
#: Pull requests in one merge train: five is where a peer's batches pay off (one test run
#: for five changes; three more find a bad one); a train longer than 50 is a typo.
DEFAULT_MERGE_BATCH = 5
MAX_MERGE_BATCH = 50
#: The shortest timeout or stall limit (an agent, a hook, a notification): a second.
MIN_SECONDS = 1.0
#: The shortest pause between two reads of the board by ``ralph serve``.
MIN_POLL_SECONDS = 1.0
#: The shortest pause before a waiting merge looks again (a local merge is cheap to check).
MIN_WAIT_SECONDS = 0.1
#: The smallest budget or cap that is not 0 (no cap): a cent.
MIN_USD = 0.01
#: Stands for an integer too large for a float.
_TOO_LARGE = 1e300


def setting_number(
    value: Any,
    where: str,
    *,
    whole: bool = False,
    minimum: float = 0,
    maximum: float,
    or_zero: bool = False,
) -> float:
    """``value`` as a finite number >= ``minimum`` and <= ``maximum``,
    a whole one when ``whole`` (0 too when ``or_zero``: a cap's "no cap"); ConfigError
    naming ``where`` and the expected range otherwise. Strings (from the environment)
    are read as numbers."""
    kind = "a whole number" if whole else "a finite number"
    bound = f">= {minimum:g}"
    if or_zero:
        bound = f">= {minimum:g}, or 0 for no cap"
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
        or (number < minimum and not (or_zero and number == 0))
    ):
        raise ConfigError(f"{where}: {value!r} is not valid; expected {kind} {bound}")
    if number > maximum:
        raise ConfigError(f"{where}: {value!r} is too large; at most {maximum:g}")
    return number
