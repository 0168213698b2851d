"""Whether bubblewrap can start here: installed, and allowed to make its namespaces."""

from __future__ import annotations

import functools
import shutil
import subprocess
from dataclasses import dataclass

from ralph.sandbox._profile import SandboxProfile, confine

__all__ = ["SandboxStatus", "nests", "probe"]

_PROBE_SECONDS = 10.0


@dataclass(frozen=True)
class SandboxStatus:
    available: bool
    #: ``bubblewrap 0.8.0`` when available.
    version: str = ""
    #: Why not, when not available.
    reason: str = ""


def probe() -> SandboxStatus:
    """Whether ``bwrap`` (first on PATH) starts a sandbox like Ralph's; asked once per
    process and bwrap."""
    return _probe(shutil.which("bwrap"))


@functools.cache
def _probe(bwrap: str | None) -> SandboxStatus:
    if bwrap is None:
        return SandboxStatus(False, reason="bwrap is not installed")
    trial = _with(bwrap, confine(["true"], SandboxProfile()))
    try:
        ran = subprocess.run(
            trial, capture_output=True, text=True, timeout=_PROBE_SECONDS, check=False
        )
        version = subprocess.run(
            [bwrap, "--version"],
            capture_output=True,
            text=True,
            timeout=_PROBE_SECONDS,
            check=False,
        ).stdout.strip()
    except subprocess.TimeoutExpired:
        return SandboxStatus(False, reason=f"bwrap did not start within {_PROBE_SECONDS:g}s")
    except OSError as exc:
        return SandboxStatus(False, reason=f"bwrap cannot run ({exc.strerror})")
    if ran.returncode != 0:
        # User namespaces refused, most often: bwrap says so in one line.
        lines = ran.stderr.strip().splitlines()
        why = lines[-1] if lines else f"exit {ran.returncode}"
        return SandboxStatus(False, reason=f"bwrap cannot start here ({why})")
    return SandboxStatus(True, version=version or "bubblewrap")


def _with(bwrap: str, line: list[str]) -> list[str]:
    """``line`` run by the bwrap at ``bwrap`` (its first ``bwrap`` word)."""
    at = line.index("bwrap")
    return [*line[:at], bwrap, *line[at + 1 :]]


def nests() -> bool:
    """Whether a process in Ralph's sandbox can start a bubblewrap sandbox of its own
    (an agent CLI's, such as Codex's): it needs a user namespace, which bubblewrap run as
    root without capabilities is refused. Asked once per process and bwrap."""
    return _nests(shutil.which("bwrap"))


@functools.cache
def _nests(bwrap: str | None) -> bool:
    if bwrap is None or not _probe(bwrap).available:
        return False
    inner = [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--unshare-user", "--", "true"]
    trial = _with(bwrap, confine(inner, SandboxProfile()))
    try:
        ran = subprocess.run(trial, capture_output=True, timeout=_PROBE_SECONDS, check=False)
    except (subprocess.TimeoutExpired, OSError):
        return False
    return ran.returncode == 0
