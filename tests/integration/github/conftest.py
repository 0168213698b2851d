"""A fake GitHub on 127.0.0.1 and the ``ralph`` command pointed at it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from ralph.github.fake import FakeGitHub

RALPH = shutil.which("ralph", path=str(Path(sys.executable).parent)) or "ralph"
TOKEN = "ghp_fake_token_for_tests"


@dataclass
class Served:
    fake: FakeGitHub
    url: str

    def env(self, token: str | None = TOKEN, **extra: str) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("RALPH_GH", "RALPH_HERO"))}
        # Mutations 50 ms apart instead of GitHub's second: pacing has its own tests.
        env.update(
            {"COLUMNS": "120", "RALPH_GH_API_URL": self.url,
             "RALPH_GH_MUTATION_INTERVAL": "0.05", **extra}
        )  # fmt: skip
        if token is not None:
            env["RALPH_GH_TOKEN"] = token
        return env

    def ralph(self, *args: str, cwd: Path, env: dict[str, str] | None = None, timeout=120):
        return subprocess.run(
            [RALPH, *args], cwd=cwd, env=env or self.env(), capture_output=True, text=True,
            timeout=timeout, check=False,
        )  # fmt: skip


@pytest.fixture
def served(project) -> Iterator[Served]:
    """GitHub with user ``acme`` owning ``acme/shop``, whose git side is ``project``."""
    fake = FakeGitHub()
    fake.add_token(TOKEN, "acme")
    fake.add_repository("acme/shop", git_path=project.path)
    with fake.serve() as url:
        yield Served(fake, url)
    assert fake.internal_errors == []
