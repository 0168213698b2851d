"""``ralph init``: a ralph.toml at the repository's top level and a migrated database.
Re-running it changes nothing that exists; a failure leaves nothing half-written."""

from __future__ import annotations

import dataclasses
import logging
import os
import re
import shlex
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit, urlunsplit

from ralph.config import (
    CONFIG_FILE,
    LINEAR_TOKEN_VARIABLES,
    TOKEN_VARIABLES,
    Config,
    GitHubSettings,
    LinearSettings,
    detect_test_command,
    env_value,
    find_config,
    linear_token,
    load_config,
    parse_github_settings,
    parse_linear_settings,
    render_config,
)
from ralph.db import open_database
from ralph.errors import ConfigError, GitError, RalphError
from ralph.git import GitRepo
from ralph.github import Transport
from ralph.linear import Transport as LinearTransport
from ralph.project._actions import WrittenWorkflow, write_workflows
from ralph.project._github import github_client
from ralph.project._open import migrate_database
from ralph.tracker import BoardSetup, set_up_board
from ralph.tracker.linear import TeamSetup

if TYPE_CHECKING:
    from ralph.linear import LinearClient

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
    transport: Transport | None = None,
    test_command: str | None = None,
    actions: bool = False,
    store_url: str | None = None,
    linear: str | None = None,
    linear_transport: LinearTransport | None = None,
) -> InitResult:
    """Set up Ralph in the git repository containing ``path``; with ``github``
    ("OWNER/REPO"), on that repository's Projects V2 board (found by ``project`` number
    or by title, else created) with Ralph's fields. The test command is
    ``test_command``, else the one the repository's files point at. ``actions``: also
    the GitHub Actions workflows that run ``ralph sync`` (a GitHub board only).
    ``store_url`` (``--store``): the store to initialise, written into a new ralph.toml
    without its password. ``linear`` (a team key): issues on that Linear team, given
    Ralph's workflow states, pull requests in this repository, or with ``github`` too
    on that GitHub repository (no board). ``transport`` and
    ``linear_transport`` replace HTTPS (tests)."""
    env = os.environ if env is None else env
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
    if actions and github is None and not _on_github(existing, env):
        raise ConfigError(
            "--actions writes GitHub Actions that sync a GitHub board; run ralph init "
            "--github OWNER/REPO --actions"
        )
    if linear is not None and (actions or project is not None):
        option = "--actions" if actions else "--project"
        raise ConfigError(
            f"{option} is for a GitHub board; with --linear the issues are on Linear "
            f"(leave out {option})"
        )
    team = None
    linear_settings = None
    code_host: GitHubSettings | None = None
    default_branch = ""
    if linear is not None:
        linear_settings = LinearSettings(team=_team_key(linear))
        if github is not None:  # GitHub holds the pull requests, the issues stay on Linear
            code_host = _github_repository(github)
        if existing is not None:
            _check_same_team(existing, linear_settings, code_host, env)
        if code_host is not None:  # read-only: checked before the team is changed
            default_branch = _check_github_repository(github or "", env, transport)
        team = _set_up_linear(linear_settings.team, env, linear_transport)
    board = None
    if github is not None and linear is None:
        board = _set_up_github(github, project, env, transport)
        settings = GitHubSettings(
            owner=github.split("/")[0],
            repo=github.split("/")[1],
            project=board.board.number,
            project_owner=env_value(env, "RALPH_GH_PROJECT_OWNER"),
        )
        if existing is not None:
            _check_same_board(existing, settings, env)
    source = "ralph.toml"
    if created:
        branch = git.git("symbolic-ref", "--short", "-q", "HEAD", what="read HEAD", check=False)
        base = board.default_branch if board is not None else default_branch or branch or "main"
        name = (
            settings.repo
            if board is not None
            else code_host.repo
            if code_host is not None
            else _repo_name(git.path)
        )
        found = detect_test_command(git.path) if test_command is None else None
        command = test_command or (found.command if found else "")
        source = "--test-command" if test_command else found.source if found else ""
        text = render_config(
            repo=name,
            base_branch=base,
            tracker=linear_settings or (settings if board is not None else None),
            code_host=code_host,
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
        pull_requests=_pull_requests_elsewhere(config),
    )


def _pull_requests_elsewhere(config: Config) -> str:
    if config.code_host_kind == config.tracker or config.code_host_kind != "github":
        return ""
    return f"GitHub {config.github.owner}/{config.github.repo}"


_FULL_NAME = re.compile(r"^[A-Za-z0-9-]+/[A-Za-z0-9._-]+$")


def without_password(url: str) -> str:
    """``url`` as ralph.toml may hold it: ralph.toml is committed, so a password in the
    URL stays out (PostgreSQL then takes it from PGPASSWORD or ~/.pgpass)."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    user = f"{parts.username}@" if parts.username else ""
    port = f":{parts.port}" if parts.port else ""
    return urlunsplit(parts._replace(netloc=f"{user}{parts.hostname or ''}{port}"))


def _github_repository(full_name: str) -> GitHubSettings:
    """``--github``'s repository as ralph.toml's [github] table names it."""
    if not _FULL_NAME.match(full_name):
        raise ConfigError(f"--github {full_name!r} is not OWNER/REPO (for example acme/shop)")
    owner, _, repo = full_name.partition("/")
    return GitHubSettings(owner=owner, repo=repo)


def _check_github_repository(
    full_name: str, env: Mapping[str, str], transport: Transport | None
) -> str:
    """That the token reaches ``full_name`` (GitHub as the code host alone), and its
    default branch."""
    from ralph.tracker.github import repository_default_branch

    if not any(env_value(env, variable) for variable in TOKEN_VARIABLES):
        # Not github_client's message: without a board, no project scope is needed.
        raise ConfigError(
            f"no GitHub token: set RALPH_GH_TOKEN to a token that may push to {full_name} "
            "and merge its pull requests (a classic token: the repo scope)"
        )
    from_env = parse_github_settings(None, "environment", env)
    client = github_client(from_env, env, transport=transport)
    try:
        return repository_default_branch(client, full_name)
    finally:
        client.close()


def _set_up_github(
    full_name: str, project: int | None, env: Mapping[str, str], transport: Transport | None
) -> BoardSetup:
    _github_repository(full_name)
    if project is not None and project <= 0:
        raise ConfigError(f"--project {project} is not a project number (1, 2, ...)")
    from_env = parse_github_settings(None, "environment", env)
    client = github_client(from_env, env, transport=transport)
    try:
        return set_up_board(
            client, full_name, project=project, project_owner=from_env.project_owner
        )
    finally:
        client.close()


def _team_key(key: str) -> str:
    """``--linear``'s team key, checked as ralph.toml's linear.team would be."""
    return parse_linear_settings({"team": key}, "--linear", {}).team


def _set_up_linear(
    key: str, env: Mapping[str, str], transport: LinearTransport | None
) -> TeamSetup:
    """Ralph's workflow states on team ``key`` (created where missing); nothing written
    when the team's estimates or states cannot hold Ralph's."""
    from ralph.linear import HttpTransport, LinearClient
    from ralph.tracker.linear import set_up_team

    token = linear_token(env)
    url = parse_linear_settings(None, "environment", env).url
    probe = LinearClient(transport or HttpTransport(url, timeout=_REACH_TIMEOUT), token)
    try:
        _reach_linear(probe, url, env)
    finally:
        probe.close()
    client = LinearClient(transport or HttpTransport(url), token)
    try:
        return set_up_team(client, key)
    finally:
        client.close()


#: How long init waits for Linear's first answer, in seconds per try, and how many
#: tries: a person waits at the terminal (a run's reads retry for longer).
_REACH_TIMEOUT = 10.0
_REACH_TRIES = 2


def _reach_linear(client: LinearClient, url: str, env: Mapping[str, str]) -> None:
    """Whether Linear answers and takes the key: one read, tried twice a second apart
    and logged nowhere, so that init says at once what is wrong and what to do instead
    of retrying for a quarter of a minute with a log line per try."""
    from ralph.linear import API_URL_VARIABLE, ResponseKind
    from ralph.linear.queries import VIEWER

    outcome = client.send(VIEWER, {})
    for _ in range(_REACH_TRIES - 1):
        if outcome.kind is not ResponseKind.INDETERMINATE:
            break
        time.sleep(1.0)
        outcome = client.send(VIEWER, {})
    if outcome.kind is ResponseKind.INDETERMINATE:
        check = "and " + API_URL_VARIABLE if env_value(env, API_URL_VARIABLE) else "(a proxy?)"
        raise ConfigError(
            f"cannot reach Linear at {url} ({outcome.message}); check the network {check}, "
            "then run ralph init again"
        )
    if outcome.kind in (ResponseKind.AUTH, ResponseKind.FORBIDDEN):
        variable = next(v for v in LINEAR_TOKEN_VARIABLES if env_value(env, v))
        raise ConfigError(
            f"Linear refused the API key in {variable}; create a personal API key "
            f"(Linear: Settings → Security & access → Personal API keys) and set {variable} "
            "to it"
        )


def _check_same_team(
    path: Path, settings: LinearSettings, code_host: GitHubSettings | None, env: Mapping[str, str]
) -> None:
    """An existing ralph.toml is never rewritten; it must already name this team (and,
    with ``code_host``, this GitHub repository for the pull requests)."""
    unset = ("RALPH_TRACKER", "RALPH_LINEAR_TEAM", "RALPH_CODE_HOST", "RALPH_GH_OWNER")
    config = load_config(path.parent, env={**env, **dict.fromkeys(unset, ""), "RALPH_GH_REPO": ""})
    if (config.tracker, config.linear.team) != ("linear", settings.team):
        raise ConfigError(
            f'{path} exists and does not name this team; set tracker = "linear" and a '
            f'[linear] table with team = "{settings.team}" in it'
        )
    if code_host is not None and (
        config.code_host_kind,
        config.github.owner,
        config.github.repo,
    ) != ("github", code_host.owner, code_host.repo):
        raise ConfigError(
            f"{path} exists and does not send pull requests to this repository; set "
            f'code_host = "github" and a [github] table with owner = "{code_host.owner}", '
            f'repo = "{code_host.repo}" in it'
        )


def _on_github(existing: Path | None, env: Mapping[str, str]) -> bool:
    """Whether an existing ralph.toml (or the environment) names the GitHub tracker."""
    if existing is None:
        return env_value(env, "RALPH_TRACKER") == "github"
    return load_config(existing.parent, env=env).tracker == "github"


def _check_same_board(path: Path, settings: GitHubSettings, env: Mapping[str, str]) -> None:
    """An existing ralph.toml is never rewritten; it must already name this board."""
    config = load_config(path.parent, env={**env, "RALPH_TRACKER": ""})
    mine = config.github
    if (config.tracker, mine.owner, mine.repo, mine.project) != (
        "github",
        settings.owner,
        settings.repo,
        settings.project,
    ):
        raise ConfigError(
            f"{path} exists and does not name this board (ready on GitHub); set tracker = "
            f'"github" and a [github] table with owner = "{settings.owner}", repo = '
            f'"{settings.repo}", project = {settings.project} in it'
        )


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
