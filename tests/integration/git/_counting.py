"""The git commands a test's code starts, counted from a point of the test on."""

from __future__ import annotations

import subprocess
from typing import Any

import pytest


def gits_started(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """Every git command started from now on, as its arguments after git's global
    options (``-c ...``, ``--no-optional-locks``)."""
    started: list[list[str]] = []
    real_run = subprocess.run

    def counting(args: list[str], *rest: Any, **options: Any) -> Any:
        if args[0] == "git":
            kept = [a for a in args[1:] if not a.startswith(("-c", "core.", "--no-optional"))]
            started.append(kept)
        return real_run(args, *rest, **options)

    monkeypatch.setattr(subprocess, "run", counting)
    return started
