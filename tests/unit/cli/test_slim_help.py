"""Typer's Rich help is drawn without importing Rich's Markdown and traceback renderers,
and looks the same: each renderer is imported the first time something uses it."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.timeout(60)


def _python(code: str, *args: str, colour: bool = False) -> subprocess.CompletedProcess[str]:
    """``code`` in a fresh interpreter: what it imports is the point."""
    shown = {"FORCE_COLOR": "1"} if colour else {"TERM": "dumb"}
    outside = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "NO_COLOR")}
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        env={**outside, "COLUMNS": "100", **shown},
        capture_output=True,
        text=True,
        timeout=50,
        check=False,
    )


_HELP = """
import sys
{setup}
from ralph.cli import app
try:
    app(args=[*sys.argv[1:], "--help"], prog_name="ralph")
except SystemExit:
    pass
print("\\n" + " ".join(sorted(
    m for m in ("rich.markdown", "rich.traceback", "markdown_it", "pygments", "attr")
    if m in sys.modules
)), end="")
"""


_INSTALL = "from ralph.cli import _slim_help; _slim_help.install()"


@pytest.mark.parametrize(("command", "colour"), [("", False), ("issue list", False), ("", True)])
def test_the_help_looks_the_same_without_the_markdown_and_traceback_renderers(
    command: str, colour: bool
) -> None:
    slim = _python(_HELP.format(setup=_INSTALL), *command.split(), colour=colour)
    full = _python(_HELP.format(setup=""), *command.split(), colour=colour)
    assert slim.returncode == 0, slim.stderr
    assert full.returncode == 0, full.stderr
    slim_help, slim_loaded = slim.stdout.rsplit("\n", 1)
    full_help, full_loaded = full.stdout.rsplit("\n", 1)
    assert "Usage:" in slim_help
    assert ("\x1b[" in slim_help) is colour
    assert slim_help == full_help
    assert slim_loaded == ""
    assert "rich.markdown" in full_loaded  # what the slimming saves


def test_a_deferred_renderer_is_imported_when_used_and_later_imports_get_the_real_module() -> None:
    done = _python(
        """
import sys
from ralph.cli import _slim_help
_slim_help.install()
from typer import rich_utils
assert "rich.markdown" not in sys.modules and "rich.traceback" not in sys.modules
import rich.markdown, rich.traceback
shown = rich_utils._make_rich_text(text="*hi*", style="", markup_mode="markdown")
assert type(shown) is rich.markdown.Markdown, type(shown)
try:
    raise ValueError("boom")
except ValueError as exc:
    traceback = rich_utils.Traceback.from_exception(type(exc), exc, exc.__traceback__)
assert type(traceback) is rich.traceback.Traceback, type(traceback)
print("ok")
"""
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "ok\n"


def test_installing_after_typers_rich_help_is_loaded_changes_nothing() -> None:
    done = _python(
        """
import sys
import typer.rich_utils
from ralph.cli import _slim_help
_slim_help.install()
assert _slim_help._FINDER not in sys.meta_path
assert typer.rich_utils.Markdown.__module__ == "rich.markdown"
print("ok")
"""
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "ok\n"
