"""Ralph installs for use on a person's own projects: ``make install`` from a clone and
``uv tool install`` from a git URL put a working ``ralph`` in uv's tool bin folder (here a
throwaway one), at the versions of uv.lock. Each installs from uv's cache, offline when
the cache holds everything, and is bounded."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]

ROOT = Path(__file__).parents[2]
UV = Path(sys.executable).parent / "uv"
SECONDS = 280
VERSION = f"ralph {version('ralph-delivery')}\n"


def environment(tmp_path: Path) -> dict[str, str]:
    """This process's environment with a throwaway tool folder and bin folder (not on the
    PATH) and no make of ours around it."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MAKE", "MFLAGS"))}
    env.pop("VIRTUAL_ENV", None)
    return {
        **env,
        "UV_TOOL_DIR": str(tmp_path / "tools"),
        "UV_TOOL_BIN_DIR": str(tmp_path / "bin"),
        "UV_PYTHON_DOWNLOADS": "never",
    }


def run_offline_first(args: list[str], env: dict[str, str], cwd: Path):
    """``args`` offline from uv's cache; again with the network when the cache lacks a
    package (a fresh machine)."""
    done = subprocess.run(
        args,
        cwd=cwd,
        env={**env, "UV_OFFLINE": "1"},
        capture_output=True,
        text=True,
        timeout=SECONDS,
        check=False,
    )
    if done.returncode != 0 and "network was disabled" in done.stderr:
        done = subprocess.run(
            args, cwd=cwd, env=env, capture_output=True, text=True, timeout=SECONDS, check=False
        )
    return done


def installed_version(bin_folder: Path) -> str:
    done = subprocess.run(
        [str(bin_folder / "ralph"), "--version"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture
def uv() -> Path:
    if not UV.exists():
        pytest.skip(f"uv is not installed next to {sys.executable} (make .venv/.synced)")
    return UV


@pytest.mark.usefixtures("uv")
def test_make_install_puts_a_working_ralph_in_the_tool_bin_folder_and_says_where(tmp_path):
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    env = environment(tmp_path)
    constraints = tmp_path / "constraints.txt"
    done = run_offline_first(
        [
            "make",
            "--no-print-directory",
            "install",
            "EXTRAS=",
            f"INSTALL_CONSTRAINTS={constraints}",
        ],
        env,
        ROOT,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    bin_folder = tmp_path / "bin"
    assert f"Installed {VERSION.strip()} as {bin_folder / 'ralph'}\n" in done.stdout
    assert f"{bin_folder} is not on your PATH: add it, e.g. " in done.stdout
    assert installed_version(bin_folder) == VERSION
    # Without any group or extra, the whole command line loads.
    helped = subprocess.run(
        [str(bin_folder / "ralph"), "--help"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert helped.returncode == 0, helped.stderr
    assert "demo" in helped.stdout
    # No extra asked for: the Claude Agent SDK is not in ralph's environment.
    python = tmp_path / "tools" / "ralph-delivery" / "bin" / "python"
    probe = subprocess.run(
        [str(python), "-c", "import claude_agent_sdk"],
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert probe.returncode != 0


def test_uv_tool_install_from_a_git_url_of_a_clone(tmp_path, uv):
    if not (ROOT / ".git").exists():
        pytest.skip(f"{ROOT} is not a git repository")
    clone = tmp_path / "clone"
    subprocess.run(
        ["git", "clone", "--quiet", str(ROOT), str(clone)],
        check=True,
        capture_output=True,
        timeout=120,
    )
    env = environment(tmp_path)
    constraints = tmp_path / "constraints.txt"
    exported = subprocess.run(
        [
            str(uv),
            "export",
            "--quiet",
            "--frozen",
            "--no-default-groups",
            "--all-extras",
            "--no-emit-project",
            "--no-hashes",
            "--format",
            "requirements-txt",
            "-o",
            str(constraints),
        ],
        cwd=clone,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert exported.returncode == 0, exported.stderr
    done = run_offline_first(
        [
            str(uv),
            "tool",
            "install",
            "--quiet",
            "--python",
            sys.executable,
            "--constraints",
            str(constraints),
            f"ralph-delivery @ git+file://{clone}",
        ],
        env,
        tmp_path,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert installed_version(tmp_path / "bin") == VERSION
