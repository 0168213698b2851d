"""The agent CLIs the end-to-end tests run (Codex, Gemini CLI, opencode), installed from
the lock-step files beside this one (``package.json``, ``package-lock.json``) into
``node_modules/`` here, once per version of the lock file.

``make agent-clis`` runs this file; the tests' fixture calls ``installed()``, which
installs only when the lock file changed since the last install (a stamp holds its
hash), under a file lock so that parallel test workers install once. Without ``node``
and ``npm`` it says so and the tests that need the CLIs skip.

The registry this was locked against lacked opencode's packages for other platforms
than linux-x64; their entries in the lock name the version with no integrity, which
``npm ci`` accepts and fills in from the registry on those platforms.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
MODULES = HERE / "node_modules"
BIN = MODULES / ".bin"
STAMP = MODULES / ".ralph-lock-sha256"
LOCK = HERE / "package-lock.json"
#: Each CLI's program, by its package.
PACKAGES = {"codex": "@openai/codex", "gemini": "@google/gemini-cli", "opencode": "opencode-ai"}
PROGRAMS = tuple(PACKAGES)
#: Gemini CLI's engines field.
NODE_MAJOR = 20
INSTALL_SECONDS = 900


class Missing(Exception):
    """Why the CLIs cannot be had here, as one line."""


def _lock_hash() -> str:
    return hashlib.sha256(LOCK.read_bytes()).hexdigest()


def _current() -> bool:
    try:
        stamped = STAMP.read_text().strip() == _lock_hash()
    except OSError:
        return False
    return stamped and all(os.access(BIN / name, os.X_OK) for name in PROGRAMS)


def _check_node() -> None:
    if shutil.which("node") is None or shutil.which("npm") is None:
        raise Missing("node and npm are not installed: the real agent CLIs cannot run here")
    version = subprocess.run(
        ["node", "--version"], capture_output=True, text=True, timeout=30, check=False
    ).stdout.strip()
    major = int(version.lstrip("v").split(".")[0] or 0) if version else 0
    if major < NODE_MAJOR:
        raise Missing(f"node {version or '?'} is older than {NODE_MAJOR}: Gemini CLI needs it")


def installed() -> Path:
    """The folder of the CLIs' executables, installed if need be; Missing when that
    cannot be done here."""
    if _current():
        return BIN
    _check_node()
    with open(HERE / ".install.lock", "w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        if _current():  # another worker installed them meanwhile
            return BIN
        try:
            done = subprocess.run(
                ["npm", "ci", "--prefix", str(HERE), "--no-audit", "--no-fund", "--loglevel=error"],
                capture_output=True,
                text=True,
                timeout=INSTALL_SECONDS,
                check=False,
            )
        except subprocess.TimeoutExpired:
            raise Missing(f"npm ci took over {INSTALL_SECONDS}s; run `make agent-clis`") from None
        if done.returncode != 0:
            tail = " | ".join(done.stderr.strip().splitlines()[-3:])
            raise Missing(f"npm ci failed ({tail}); run `make agent-clis` to see why")
        STAMP.write_text(_lock_hash() + "\n")
    return BIN


def versions() -> dict[str, str]:
    """The installed version of each CLI, by program."""
    return {
        name: json.loads((MODULES / package / "package.json").read_text())["version"]
        for name, package in PACKAGES.items()
    }


def main() -> int:
    try:
        installed()
    except Missing as missing:
        print(f"agent CLIs: {missing}")
        return 0  # nothing to install with is not an error: their tests skip
    listed = ", ".join(f"{name} {version}" for name, version in versions().items())
    where = BIN.relative_to(Path.cwd()) if BIN.is_relative_to(Path.cwd()) else BIN
    print(f"agent CLIs in {where}: {listed}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
