"""A shell command of the project's (its tests, a workspace hook, the notify command)
confined as the test command is: one way to build it for all three."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from pathlib import Path

from ralph.sandbox._policy import should_confine
from ralph.sandbox._profile import confine
from ralph.sandbox._profiles import profile_for_tests

__all__ = ["confined_shell"]


def confined_shell(
    command: str,
    where: Path,
    *,
    allow_unsandboxed: bool,
    what: str,
    env: Mapping[str, str],
    network: bool,
    arguments: Sequence[str] = (),
    readable: Sequence[Path] = (),
) -> list[str]:
    """``sh -c command arguments…`` writing only to ``where`` and a private /tmp (also
    reading ``readable``), with the network only when ``network``; unconfined where the
    sandbox cannot start and a person allowed that. ConfigError naming ``what`` when it
    cannot start and that is not allowed."""
    argv = ["/bin/sh", "-c", command, *arguments]
    if not should_confine(allow_unsandboxed, what):
        return argv
    home = Path(env.get("HOME") or Path.home())
    profile = profile_for_tests(where, home=home, network=network)
    if readable:
        profile = dataclasses.replace(profile, readable=(*profile.readable, *readable))
    return confine(argv, profile)
