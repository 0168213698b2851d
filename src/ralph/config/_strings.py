"""Text settings that become a git argument or a path: checked here, so a mistake in
ralph.toml is one line naming the setting, not an error from git or the file system
(``embedded null byte``, ``File name too long``) in the middle of a run."""

from __future__ import annotations

import re

from ralph.errors import ConfigError

__all__ = ["MAX_PATH_CHARS", "branch_name", "folder_path", "no_nul"]

#: Linux's PATH_MAX; a part of a path (NAME_MAX) is at most 255 bytes.
MAX_PATH_CHARS = 4096
_MAX_PART_BYTES = 255
#: What ``git check-ref-format --branch`` refuses, as far as a setting can say it.
_BAD_BRANCH = re.compile(r"[\x00-\x20\x7f~^:?*\[\\]|\.\.|@\{|//|^[-/.]|[/.]$|\.lock$|/\.")


def no_nul(value: str, where: str) -> str:
    """``value`` unless it holds a NUL, which no command line or path can carry."""
    if "\x00" in value:
        raise ConfigError(f"{where}: the value contains a NUL character (\\u0000); remove it")
    return value


def branch_name(value: str, where: str) -> str:
    """``value`` as a git branch name, refused in one line when git would refuse it
    (empty is left to the commands that need the branch, which say so)."""
    if value and (_BAD_BRANCH.search(value) or len(value.encode()) > _MAX_PART_BYTES):
        shown = value if len(value) <= 80 else value[:80] + "…"
        raise ConfigError(
            f"{where}: {shown!r} is not a git branch name; write the branch pull requests "
            'merge into, such as "main"'
        )
    return value


def folder_path(value: str, where: str) -> str:
    """``value`` as a folder path the file system can hold (its length and its parts')."""
    too_long = len(value) > MAX_PATH_CHARS or any(
        len(part.encode()) > _MAX_PART_BYTES for part in value.split("/")
    )
    if too_long:
        raise ConfigError(
            f"{where}: a path of {len(value)} characters is too long; a path has at most "
            f"{MAX_PATH_CHARS} characters and each name in it at most {_MAX_PART_BYTES} bytes"
        )
    return value
