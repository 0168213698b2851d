"""``ralph init``: a ralph.toml at the repository's top level and a migrated database.
Re-running it changes nothing that exists; a failure leaves nothing half-written."""

from __future__ import annotations

import dataclasses
import logging
import os
import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from ralph.config import (
    CONFIG_FILE,
    SERVICES,
    Config,
    detect_test_command,
    env_value,
    find_config,
    load_config,
    render_config,
)
from ralph.db import open_database
from ralph.errors import ConfigError, GitError, RalphError
from ralph.git import GitRepo
from ralph.project._actions import WrittenWorkflow, write_workflows
from ralph.project._backend import InitAsk, ServiceSetUp
from ralph.project._backends import BACKENDS, pull_requests_elsewhere
from ralph.project._github_backend import on_github
from ralph.project._open import migrate_database
from ralph.tracker import BoardSetup
from ralph.tracker.linear import TeamSetup

__all__ = ["InitResult", "init_project", "without_password"]

logger = logging.getLogger(__name__)

#: What init adds to .gitignore: Ralph's state (the database, worktrees, drafts), but not
#: the project's prompt overrides, which are versioned with its code.
_IGNORED = (".ralph/*", "!.ralph/prompts/")


@dataclass(frozen=True)
class InitResult:
    config: Config
    config_path: Path
    created_config: bool
    migrated: tuple[int, ...]
    ignored_store: bool
    #: What ``--github`` found or made on GitHub.
    board: BoardSetup | None = None
    #: Where the configured test command came from ("--test-command", "the Makefile's
    #: test target", "ralph.toml"); empty when there is none.
    test_source: str = ""
    #: The GitHub Actions workflows ``actions`` asked for (written, or there already).
    workflows: tuple[WrittenWorkflow, ...] = ()
    #: The store ralph.toml names, when ``store_url`` initialised another.
    other_store: str = ""
    #: What ``--linear`` found or made on the Linear team.
    team: TeamSetup | None = None
    #: Where pull requests go when that is another service than the issues' ("GitHub
    #: acme/shop"); empty otherwise.
    pull_requests: str = ""
    #: What the services set up said of what they found or made, a line each.
    notes: tuple[str, ...] = ()


def _write_atomically(path: Path, text: str) -> None:
    temporary = path.with_name(f".{path.name}.tmp")
    temporary.write_text(text, encoding="utf-8")
    os.replace(temporary, path)


def _ignore_store(root: Path) -> bool:
    """Add ``.ralph/``'s state (the database, worktrees) to .gitignore, keeping
    ``.ralph/prompts/`` in version control; True if it was added."""
    gitignore = root / ".gitignore"
    existing = gitignore.read_text(encoding="utf-8") if gitignore.exists() else ""
    ignoring = (*_IGNORED, ".ralph/", ".ralph", "/.ralph/", "/.ralph/*")
    if any(line.strip() in ignoring for line in existing.splitlines()):
        return False
    separator = "" if not existing or existing.endswith("\n") else "\n"
    _write_atomically(gitignore, existing + separator + "".join(f"{p}\n" for p in _IGNORED))
    return True


def init_project(
    path: Path | None = None,
    *,
    github: str | None = None,
    project: int | None = None,
    env: Mapping[str, str] | None = None,
    transport: object | None = None,
    test_command: str | None = None,
    actions: bool = False,
    store_url: str | None = None,
    linear: str | None = None,
    linear_transport: object | None = None,
    services: Mapping[str, str] | None = None,
    transports: Mapping[str, object] | None = None,
    code_host: str | None = None,
) -> InitResult:
    """Set up Ralph in the git repository containing ``path``, on the services named
    (``services``: a kind of ``project.BACKENDS`` -> its ``ralph init --NAME`` value;
    ``github`` and ``linear`` are two of them). One service holds the issues and, if it can,
    the pull requests; two: the one that holds no code has the issues, the other the pull
    requests (Linear issues, GitHub pull requests); two that both hold code (GitLab and
    GitHub): ``code_host`` names the one with the pull requests. ``github`` ("OWNER/REPO")
    alone: that repository's Projects V2 board (found by ``project`` number or by title,
    else created) with Ralph's fields. ``linear`` (a team key): issues on that Linear team,
    given Ralph's workflow states. The test command is ``test_command``, else the one the
    repository's files point at. ``actions``: also the GitHub Actions workflows that run
    ``ralph sync`` (a GitHub board only). ``store_url`` (``--store``): the store to
    initialise, written into a new ralph.toml without its password. ``transports`` (kind ->
    transport; ``transport`` is GitHub's, ``linear_transport`` Linear's) replace HTTPS
    (tests)."""
    env = os.environ if env is None else env
    asked = {
        **(services or {}),
        **{k: v for k, v in (("github", github), ("linear", linear)) if v is not None},
    }
    transports = {
        **(transports or {}),
        **{k: v for k, v in (("github", transport), ("linear", linear_transport)) if v},
    }
    start = (path or Path.cwd()).resolve()
    try:
        git = GitRepo.find(start)
    except GitError:
        if GitRepo(start).run("rev-parse", "--is-bare-repository").stdout.strip() == "true":
            raise ConfigError(
                f"{start} is a bare repository (no files checked out); run Ralph in a clone "
                f"of it: git clone {start} DIR, then ralph init in DIR"
            ) from None
        raise ConfigError(
            f"{start} is not inside a git repository; run `git init` first "
            "(Ralph keeps documents and merges pull requests in git)"
        ) from None
    existing = find_config(start)
    config_path = existing or git.path / CONFIG_FILE
    created = existing is None
    if test_command is not None and not test_command.strip():
        raise ConfigError("--test-command is empty; give the command that runs the tests")
    if test_command is not None:
        _check_shell_syntax(test_command)
    if existing is not None and test_command is not None:
        _check_same_test_command(existing, test_command, env)
    issues, pulls = _roles(asked, code_host)
    board_named = any(BACKENDS[name].boards for name in asked)
    if actions and not board_named and not on_github(existing, env):
        raise ConfigError(
            "--actions writes GitHub Actions that sync a GitHub board; run ralph init "
            "--github OWNER/REPO --actions"
        )
    if issues and not BACKENDS[issues].boards and (actions or project is not None):
        option = "--actions" if actions else "--project"
        raise ConfigError(
            f"{option} is for a GitHub board; with --{issues} the issues are on "
            f"{SERVICES[issues].title} (leave out {option})"
        )
    asks = {
        name: InitAsk(
            value=asked[name],
            tracker=name == issues,
            tracker_title=SERVICES[issues].title if issues else "",
            existing=existing,
            env=env,
            transport=transports.get(name),
            project=project,
        )
        for name in (issues, pulls)
        if name
    }
    for name, ask in asks.items():
        BACKENDS[name].init_check(ask)
    # The code host's set-up first: it only reads, checked before the tracker changes.
    made = {name: _set_up(name, asks[name]) for name in reversed(asks)}
    board = next((m.board for m in made.values() if m.board), None)
    team = next((m.team for m in made.values() if m.team), None)
    source = "ralph.toml"
    if created:
        branch = git.git("symbolic-ref", "--short", "-q", "HEAD", what="read HEAD", check=False)
        base = next((m.default_branch for m in made.values() if m.default_branch), "")
        base = base or branch or "main"
        name = next((m.repo for m in made.values() if m.repo), "") or _repo_name(git.path)
        found = detect_test_command(git.path) if test_command is None else None
        command = test_command or (found.command if found else "")
        source = "--test-command" if test_command else found.source if found else ""
        text = render_config(
            repo=name,
            base_branch=base,
            tracker=made[issues].settings if issues else None,
            code_host=made[pulls].settings if pulls else None,
            test_command=command,
            **({"store_url": without_password(store_url)} if store_url else {}),
        )
        _write_atomically(config_path, text)
    try:
        config = load_config(config_path.parent)
        other = ""
        if store_url and not created and store_url != config.store_url:
            # ralph.toml stays as it is; the store named is the one initialised.
            other = config.store_url
            config = dataclasses.replace(config, store_url=store_url)
        with open_database(config.resolved_store_url) as db:
            migrated = tuple(migrate_database(db))
    except RalphError:
        if created:
            config_path.unlink()
        raise
    # The state beside a store elsewhere (runs, drafts, worktrees' files) is .ralph's too.
    elsewhere = config.store_url.startswith("sqlite:///") and not config.store_url.startswith(
        "sqlite:///.ralph"
    )
    ignored = False if elsewhere else _ignore_store(config.root)
    if env_value(env, "RALPH_TEST_COMMAND"):
        source = "RALPH_TEST_COMMAND"
    workflows = tuple(write_workflows(config.root)) if actions else ()
    logger.info("initialised", extra={"root": str(config.root), "created": created})
    return InitResult(
        config,
        config_path,
        created,
        migrated,
        ignored,
        board,
        test_source=source if config.test_command else "",
        workflows=workflows,
        other_store=other,
        team=team,
        pull_requests=pull_requests_elsewhere(config),
        notes=tuple(note for m in made.values() for note in m.notes),
    )


def _roles(asked: Mapping[str, str], code_host: str | None = None) -> tuple[str, str]:
    """Which of the services named holds the issues and which the pull requests when
    that is another ("": the tracker's own, or this repository). Two that both hold
    code: ``code_host`` (``--code-host``) says which has the pull requests."""
    for name in asked:
        if name not in BACKENDS or BACKENDS[name].set_up is None:
            raise ConfigError(f"ralph init cannot set up {name!r}; use one of the options shown")
    named = " and ".join(f"--{name}" for name in asked)
    if code_host is not None and code_host not in asked:
        raise ConfigError(
            f"--code-host {code_host} names no service given; use one of "
            f"{', '.join(asked) or 'the service options'} (with its option)"
        )
    if len(asked) <= 1:
        return next(iter(asked), ""), ""
    holds_code = [name for name in asked if SERVICES[name].code_host]
    if code_host is not None and len(asked) == 2:
        if not SERVICES[code_host].code_host:
            raise ConfigError(f"--code-host {code_host}: {code_host} holds no pull requests")
        holds_code = [code_host]
    trackers = [name for name in asked if name not in holds_code and SERVICES[name].tracker]
    if len(asked) == 2 and len(holds_code) == 2:
        raise ConfigError(
            f"{named}: both hold code; say which holds the pull requests with --code-host "
            f"({' or '.join(holds_code)}), the other holds the issues"
        )
    if len(asked) > 2 or len(trackers) != 1 or len(holds_code) != 1:
        raise ConfigError(
            f"{named}: name one service for the issues and at most one other, which holds "
            "code, for the pull requests"
        )
    return trackers[0], holds_code[0]


def _set_up(name: str, ask: InitAsk) -> ServiceSetUp:
    set_up = BACKENDS[name].set_up
    assert set_up is not None  # _roles refused the others
    return set_up(ask)


def without_password(url: str) -> str:
    """``url`` as ralph.toml may hold it: ralph.toml is committed, so a password in the
    URL stays out (PostgreSQL then takes it from PGPASSWORD or ~/.pgpass)."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    user = f"{parts.username}@" if parts.username else ""
    port = f":{parts.port}" if parts.port else ""
    return urlunsplit(parts._replace(netloc=f"{user}{parts.hostname or ''}{port}"))


def _check_same_test_command(path: Path, command: str, env: Mapping[str, str]) -> None:
    """An existing ralph.toml is never rewritten: --test-command must agree with it."""
    configured = load_config(path.parent, env={**env, "RALPH_TEST_COMMAND": ""}).test_command
    if configured != command:
        raise ConfigError(
            f"{path} exists with test_command = {configured!r}; set test_command there "
            "(ralph init never rewrites an existing ralph.toml)"
        )


def _repo_name(root: Path) -> str:
    name = "".join(c if c.isalnum() or c in "._-" else "-" for c in root.name)
    return name or "project"


def _check_shell_syntax(command: str) -> None:
    """The test command runs in a shell: one it cannot parse fails every test run."""
    try:
        shlex.split(command)
    except ValueError as exc:
        raise ConfigError(
            f"--test-command {command!r} is not a complete shell command ({exc}); close its quotes"
        ) from None
    if "\x00" in command:
        raise ConfigError("--test-command has a NUL byte; remove it")
