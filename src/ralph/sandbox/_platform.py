"""Which way Ralph runs on this machine, as ``ralph doctor`` says it: Linux with
bubblewrap (agents and tests sandboxed), Linux without it, or macOS and other systems,
where bubblewrap does not exist. Only agents and the test command (so implement and merge)
need the sandbox: issues, the board, ``ralph web``, research, plan and review by hand and
``ralph demo`` (whose project and agents are Ralph's own) work everywhere."""

from __future__ import annotations

from dataclasses import dataclass

from ralph.sandbox._probe import SandboxStatus

__all__ = ["PlatformPath", "platform_path"]

_RISK = (
    "set RALPH_ALLOW_UNSANDBOXED=true (or allow_unsandboxed = true in ralph.toml) at your own risk"
)
_UNCONFINED = (
    "agents and the test command run unconfined (allow_unsandboxed = true) and can write "
    "anywhere you can"
)


@dataclass(frozen=True)
class PlatformPath:
    #: Agents and the test command can run as ralph.toml asks (sandboxed, or allowed not).
    usable: bool
    #: False: they run, but unconfined.
    confined: bool
    line: str


def platform_path(system: str, status: SandboxStatus, allow_unsandboxed: bool) -> PlatformPath:
    """The path for ``system`` (``platform.system()``: Linux, Darwin, ...), where the
    sandbox probe found ``status`` and ralph.toml says ``allow_unsandboxed``."""
    if status.available:
        sandboxed = f"Linux with {status.version}: agents and tests run sandboxed"
        return PlatformPath(True, True, sandboxed)
    if system == "Linux":
        where = f"Linux without a working bubblewrap ({status.reason})"
        if allow_unsandboxed:
            return PlatformPath(
                True, False, f"{where}: {_UNCONFINED}; install bubblewrap to confine them"
            )
        return PlatformPath(
            False,
            False,
            f"{where}: agents and the test command (so implement and merge) are refused; "
            "install bubblewrap "
            f"(apt-get install bubblewrap), or {_RISK}",
        )
    name = "macOS" if system == "Darwin" else system or "this system"
    where = f"{name}, which has no bubblewrap (Linux only)"
    works = "issues, the board, ralph web, research, plan and review by hand and ralph demo work"
    if allow_unsandboxed:
        return PlatformPath(True, False, f"{where}: {works}; {_UNCONFINED}")
    return PlatformPath(
        False,
        False,
        f"{where}: {works}; agents and the test command (so implement and merge) are "
        f"refused: run Ralph in a Linux VM or container for the sandbox, or {_RISK}",
    )
