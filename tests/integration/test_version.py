"""``ralph --version``, ``-V`` and ``ralph version`` print the installed distribution's
version, from its metadata, both on the fast path (``ralph.__main__``, nothing else on
the line) and through the command line (``-v --version``)."""

from __future__ import annotations

from importlib.metadata import version
from pathlib import Path

import pytest

import ralph

from .conftest import ralph_process

LINE = f"ralph {version('ralph-delivery')}\n"


def test_the_package_version_is_the_distributions():
    assert ralph.__version__ == version("ralph-delivery")


@pytest.mark.parametrize("args", [("--version",), ("-V",), ("version",), ("-v", "--version")])
def test_the_installed_command_prints_its_version(args, tmp_path: Path):
    done = ralph_process(*args, cwd=tmp_path, timeout=60)
    assert (done.returncode, done.stdout, done.stderr) == (0, LINE, "")


@pytest.mark.parametrize("args", [("--version",), ("-V",), ("version",)])
def test_the_command_line_prints_its_version_in_process(ralph_cli, args):
    assert ralph_cli(*args) == (0, LINE, "")


def test_help_lists_the_version_option(ralph_cli):
    code, out, _ = ralph_cli("--help")
    assert code == 0
    assert "--version" in out
    assert "-V" in out
