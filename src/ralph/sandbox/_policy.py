"""The rule for when the sandbox cannot start: refuse to run agent-written code unless
the project allows it unconfined, and then say so once."""

from __future__ import annotations

import logging
import threading

from ralph.errors import ConfigError
from ralph.sandbox._probe import probe

__all__ = ["ALLOW_UNSANDBOXED", "should_confine", "skip_unconfined_warning", "unconfined_warning"]

logger = logging.getLogger(__name__)

_INSTALL = "install bubblewrap (apt-get install bubblewrap)"
#: The two ways to allow agents unconfined: a person may never have seen the ralph.toml.
ALLOW_UNSANDBOXED = "allow_unsandboxed = true in ralph.toml (or RALPH_ALLOW_UNSANDBOXED=true)"
_warned = threading.Event()


def should_confine(allow_unsandboxed: bool, what: str) -> bool:
    """True: run ``what`` ("agents", "the test command") in the sandbox. False: it cannot
    start and ralph.toml allows running unconfined (warned once per process).
    ConfigError, naming both ways out, when it cannot start and that is not allowed."""
    status = probe()
    if status.available:
        return True
    if not allow_unsandboxed:
        raise ConfigError(
            f"{what} cannot run sandboxed: {status.reason}; {_INSTALL}, or set "
            f"{ALLOW_UNSANDBOXED} to run {what} unconfined"
        )
    if not _warned.is_set():
        _warned.set()
        logger.warning("agents run unconfined", extra={"why": status.reason})
    return False


def skip_unconfined_warning() -> None:
    """The person has been told that agents run unconfined (``ralph demo``'s notice):
    :func:`should_confine` does not log it again in this process."""
    _warned.set()


def unconfined_warning(allow_unsandboxed: bool) -> str | None:
    """What a run says once when agents will run unconfined (None: they will not)."""
    status = probe()
    if status.available or not allow_unsandboxed:
        return None
    return (
        f"agents and the test command run unconfined ({status.reason}; "
        f"allow_unsandboxed = true): they can write anywhere you can; {_INSTALL} to confine them"
    )
