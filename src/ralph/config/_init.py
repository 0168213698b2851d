"""``ralph init``: a ralph.toml at the repository's top level and a migrated database.
Re-running it changes nothing that exists; a failure leaves nothing half-written."""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from pathlib import Path

from ralph.config._config import CONFIG_FILE, Config, find_config, load_config, render_config
from ralph.errors import ConfigError, GitError, RalphError
from ralph.git import GitRepo
from ralph.tasks import open_store

__all__ = ["InitResult", "init_project"]

logger = logging.getLogger(__name__)

_IGNORED = ".ralph/"


@dataclass(frozen=True)
class InitResult:
    config: Config
    config_path: Path
    created_config: bool
    migrated: tuple[int, ...]
    ignored_store: bool


def _write_atomically(path: Path, text: str) -> None:
    temporary = path.with_name(f".{path.name}.tmp")
    temporary.write_text(text, encoding="utf-8")
    os.replace(temporary, path)


def _ignore_store(root: Path) -> bool:
    """Add ``.ralph/`` (the database, worktrees) to .gitignore; True if it was added."""
    gitignore = root / ".gitignore"
    existing = gitignore.read_text(encoding="utf-8") if gitignore.exists() else ""
    if any(line.strip() in (_IGNORED, ".ralph", "/.ralph/") for line in existing.splitlines()):
        return False
    separator = "" if not existing or existing.endswith("\n") else "\n"
    _write_atomically(gitignore, f"{existing}{separator}{_IGNORED}\n")
    return True


def init_project(path: Path | None = None) -> InitResult:
    """Set up Ralph in the git repository containing ``path``."""
    start = (path or Path.cwd()).resolve()
    try:
        git = GitRepo.find(start)
    except GitError:
        raise ConfigError(
            f"{start} is not inside a git repository; run `git init` first "
            "(Ralph keeps documents and merges pull requests in git)"
        ) from None
    existing = find_config(start)
    config_path = existing or git.path / CONFIG_FILE
    created = existing is None
    if created:
        branch = git.git("symbolic-ref", "--short", "-q", "HEAD", what="read HEAD", check=False)
        _write_atomically(
            config_path, render_config(repo=_repo_name(git.path), base_branch=branch or "main")
        )
    try:
        config = load_config(config_path.parent)
        with open_store(config.resolved_store_url, migrate=False) as store:
            migrated = tuple(store.migrate())
    except RalphError:
        if created:
            config_path.unlink()
        raise
    ignored = (
        _ignore_store(config.root) if config.store_url.startswith("sqlite:///.ralph") else False
    )
    logger.info("initialised", extra={"root": str(config.root), "created": created})
    return InitResult(config, config_path, created, migrated, ignored)


def _repo_name(root: Path) -> str:
    name = "".join(c if c.isalnum() or c in "._-" else "-" for c in root.name)
    return name or "project"
