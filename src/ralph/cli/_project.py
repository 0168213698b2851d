"""The project a command runs in: its ralph.toml, store and tracker, honouring
``--store``; and the warnings a run gives about it."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from ralph._text import printable
from ralph.cli._echo import echo, styled
from ralph.errors import (
    ConfigError,
    GitError,
    IssueIsPullRequest,
    IssueNotFound,
    RalphError,
)

if TYPE_CHECKING:
    from ralph.config import Config
    from ralph.db import Database
    from ralph.project import Project
    from ralph.tasks import TaskStore
    from ralph.tracker import CodeHost, Tracker

__all__ = [
    "check_before_run",
    "database_of",
    "open_project_of",
    "project_config",
    "project_root",
    "project_tracker",
    "store_of",
    "warn",
    "warn_if_untested",
]


def _explicit_store(ctx: typer.Context) -> str | None:
    root = ctx.find_root()
    return root.obj.get("store_url") if root.obj else None


def project_config() -> Config:
    from ralph.config import load_config

    return load_config(Path.cwd())


def store_of(ctx: typer.Context) -> TaskStore:
    """The task store alone: ``--store``/RALPH_STORE_URL, else the project's, else the
    default one."""
    from ralph.project import open_store_alone

    return open_store_alone(_config_here(), store_url=_explicit_store(ctx))


def database_of(ctx: typer.Context) -> Database:
    """The store's database alone (created when missing), found as ``store_of`` finds
    the store."""
    from ralph.project import open_database_alone

    return open_database_alone(_config_here(), store_url=_explicit_store(ctx))


def _config_here() -> Config | None:
    """The project's configuration, when the working directory is in a project."""
    from ralph.config import find_config

    return project_config() if find_config(Path.cwd()) is not None else None


def project_root() -> Path:
    """The project's folder (the one holding ralph.toml), else the working directory."""
    from ralph.config import find_config

    found = find_config(Path.cwd())
    return found.parent if found is not None else Path.cwd()


@contextmanager
def _pull_requests_named(host: CodeHost) -> Iterator[None]:
    """Pull requests share the issues' numbers: an issue not found that is a pull request
    is said to be one, instead of missing."""
    try:
        yield
    except IssueNotFound as exc:
        try:
            host.get_pull_request(exc.number)
        except RalphError:  # no pull request either (or no answer): not found, as it was
            raise exc from None
        raise IssueIsPullRequest(exc.number) from None


@contextmanager
def project_tracker(ctx: typer.Context) -> Iterator[tuple[Config, Tracker]]:
    from ralph.project import open_project

    config = project_config()
    with (
        open_project(config, store_url=_explicit_store(ctx), on_use=True) as project,
        _pull_requests_named(project.code_host),
    ):
        yield config, project.tracker


@contextmanager
def open_project_of(ctx: typer.Context, *, working: bool = False) -> Iterator[Project]:
    """The project of the working directory: its configuration, tracker, store and git.
    ``working``: a command that runs phases, which first puts back any checkout a crashed
    run left half-updated (before anything else can read or commit it)."""
    from ralph.project import open_project

    with (
        open_project(
            project_config(), store_url=_explicit_store(ctx), on_use=not working
        ) as project,
        _pull_requests_named(project.code_host),
    ):
        if working:
            from ralph.phases import load_overrides  # only a command that runs phases

            _require_base_branch(project)
            load_overrides(project.config)  # a malformed prompt stops the run before it starts
            project.git.recover_interrupted()
        yield project


def _require_base_branch(project: Project) -> None:
    """Phases start from the base branch: one that does not exist is named now, with the
    way out, instead of failing inside the first git command that reads it."""
    git, base = project.git, project.config.base_branch
    if not base.strip():
        raise ConfigError(
            "base_branch is empty in ralph.toml; set it to the branch pull requests merge "
            'into (e.g. base_branch = "main")'
        )
    if git.run("rev-parse", "--is-bare-repository").stdout.strip() == "true":
        raise GitError(f"{git.path} is a bare repository; run Ralph in a clone of it")
    if git.has_branch(base):
        return
    listed = git.git(
        "for-each-ref", "--format=%(refname:short)", "refs/heads", what="list branches"
    ).split()
    if not listed:
        raise GitError(
            f"{git.path} has no commits yet; make a first commit "
            '(git commit --allow-empty -m "First commit"), then run this again'
        )
    raise ConfigError(
        f"the base branch {base} does not exist in {git.path}; set base_branch in ralph.toml "
        f"to one of: {', '.join(listed[:5])}"
    )


def warn(text: str) -> None:
    """A warning a person must not miss: bold, on stderr (plain where nothing is styled,
    as Rich would print it, without loading Rich)."""
    if not styled(err=True):
        # As Rich prints it: control characters dropped, not marked; tabs expanded.
        echo(printable(f"Warning: {text}", "").expandtabs(), err=True)
        return
    from rich.text import Text

    from ralph.cli._console import Console

    Console(stderr=True, soft_wrap=True).print(
        Text.assemble(("Warning:", "bold yellow"), " ", text)
    )


def guarded_config(config: Config) -> tuple[Config, tuple[str, ...]]:
    """``config`` with the guarded settings in force, and what changed of them since the
    last run (nothing is recorded: the next run says it again)."""
    from ralph.git import GitRepo
    from ralph.project import open_store_alone, settle_settings

    try:
        store = open_store_alone(config)
    except RalphError:  # no store yet: the tracker check below says so
        return config, ()
    try:
        settled, verdict = settle_settings(config, store, GitRepo(config.root))
    finally:
        store.close()
    return settled, verdict.lines


def warn_settings_changed(project: Project) -> None:
    """Once, before a run starts: each change to ralph.toml's guarded settings since the
    last run, accepted (a person's) or refused (a merge Ralph made alone); what was
    accepted is kept as the values the next change is compared with."""
    from ralph.project import record_settings

    for line in project.settings.lines:
        warn(line)
    record_settings(project.config, project.store, project.settings)


def check_before_run(project: Project) -> None:
    """Once, before a run starts: what only a person can clear stops it now (NeedsPerson:
    a conflict in their checkout of the base branch, a remote that refuses us), not after
    the agents have worked; what may stop it later is a warning."""
    from ralph.git import check_checkout, check_remote

    warn_settings_changed(project)

    git = project.git
    for warning in (check_checkout(git, project.config.base_branch), check_remote(git)):
        if warning:
            warn(warning)


def warn_if_untested(config: Config) -> None:
    """Once per run: a project without a test command gets its implementations untested,
    and one allowed to run agents unconfined where bubblewrap cannot start does."""
    from ralph.config import untested_warning
    from ralph.sandbox import unconfined_warning

    for warning in (untested_warning(config), unconfined_warning(config.allow_unsandboxed)):
        if warning is not None:
            warn(warning)
