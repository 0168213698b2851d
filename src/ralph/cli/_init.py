"""``ralph init`` (ralph.toml with the project's test command, the database, and with
``--github`` the board) and ``ralph doctor`` (is everything Ralph needs there, and if
not, what to do)."""

from __future__ import annotations

import os
import platform
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.text import Text

from ralph.cli._agent_checks import print_agent_credentials
from ralph.cli._bounds import MAX_COUNT
from ralph.cli._console import Console
from ralph.cli._notify import print_notify_checks
from ralph.cli._project import guarded_config, project_config, warn
from ralph.errors import InvalidInput, RalphError
from ralph.workflow import PHASE_SPECS

if TYPE_CHECKING:
    from ralph.config import Config
    from ralph.project import InitResult
    from ralph.tracker import BoardSetup

__all__ = ["doctor_command", "init_command"]


def init_command(
    ctx: typer.Context,
    path: Annotated[
        Path, typer.Argument(help="A folder inside the project's git repository.")
    ] = Path("."),
    github: Annotated[
        str | None,
        typer.Option(
            "--github",
            metavar="OWNER/REPO",
            help="Track issues on this GitHub repository's Projects V2 board; with "
            "--linear, only its pull requests are there (token: RALPH_GH_TOKEN).",
        ),
    ] = None,
    project: Annotated[
        int | None,
        typer.Option(
            "--project",
            metavar="N",
            min=1,
            max=MAX_COUNT,
            help="The board's number (default: find or create one).",
        ),
    ] = None,
    actions: Annotated[
        bool,
        typer.Option(
            "--actions",
            help="Also write GitHub Actions workflows (.github/workflows) that run ralph sync "
            "when a person closes or reopens an issue or merges a pull request on GitHub "
            "(secret: RALPH_GH_TOKEN). GitHub boards only.",
        ),
    ] = False,
    linear: Annotated[
        str | None,
        typer.Option(
            "--linear",
            metavar="TEAM",
            help="Track issues on this Linear team (its key, as in ENG-12), given Ralph's "
            "workflow states; pull requests stay in this repository, or with --github "
            "OWNER/REPO go to that GitHub repository (key: RALPH_LINEAR_TOKEN or "
            "LINEAR_API_KEY).",
        ),
    ] = None,
    jira: Annotated[
        str | None,
        typer.Option(
            "--jira",
            metavar="PROJECT",
            help="Track issues on this Jira Cloud project (its key, as in PROJ-12) at "
            "--jira-url as --jira-email; pull requests stay in this repository, or with "
            "--github OWNER/REPO go to that GitHub repository (token: RALPH_JIRA_TOKEN or "
            "JIRA_API_TOKEN).",
        ),
    ] = None,
    jira_url: Annotated[
        str | None,
        typer.Option(
            "--jira-url",
            metavar="URL",
            help="With --jira: the Jira site, https://YOURS.atlassian.net (or RALPH_JIRA_URL).",
        ),
    ] = None,
    jira_email: Annotated[
        str | None,
        typer.Option(
            "--jira-email",
            metavar="EMAIL",
            help="With --jira: the email of the API token's account (or RALPH_JIRA_EMAIL).",
        ),
    ] = None,
    gitlab: Annotated[
        str | None,
        typer.Option(
            "--gitlab",
            metavar="GROUP/PROJECT",
            help="Track issues in this GitLab project, given Ralph's labels, and keep merge "
            "requests there; or with --linear TEAM, the merge requests of that team's "
            "issues (token: RALPH_GITLAB_TOKEN or GITLAB_TOKEN).",
        ),
    ] = None,
    gitlab_url: Annotated[
        str | None,
        typer.Option(
            "--gitlab-url",
            metavar="URL",
            help="A self-managed GitLab's address (default: https://gitlab.com).",
        ),
    ] = None,
    code_host: Annotated[
        str | None,
        typer.Option(
            "--code-host",
            metavar="SERVICE",
            help="Of two services that both hold code (--gitlab and --github), the one "
            "that holds the pull requests; the other holds the issues.",
        ),
    ] = None,
    test_command: Annotated[
        str | None,
        typer.Option(
            "--test-command",
            metavar="COMMAND",
            help="How the project runs its tests (default: found from the files present: "
            "a Makefile's test target, package.json, Cargo.toml, go.mod, pytest/unittest).",
        ),
    ] = None,
) -> None:
    """Set Ralph up in a git repository: ralph.toml and the local database, with
    --github the board's fields, with --linear the team's workflow states. Safe to
    re-run."""
    from ralph.config import untested_warning
    from ralph.project import init_project, without_password

    # Each service's option, by its kind in project.BACKENDS (a new one adds its line).
    if gitlab_url and not gitlab:
        raise InvalidInput("--gitlab-url goes with --gitlab GROUP/PROJECT; name the project too")
    if (jira_url or jira_email) and not jira:
        raise InvalidInput(
            "--jira-url and --jira-email go with --jira PROJECT; name the project too"
        )
    services = {"github": github, "linear": linear, "jira": jira, "gitlab": gitlab}
    # A service's site and account, given as options, reach its set-up as its settings'
    # environment overrides do.
    given = {
        "RALPH_JIRA_URL": jira_url,
        "RALPH_JIRA_EMAIL": jira_email,
        "RALPH_GITLAB_URL": gitlab_url,
    }
    overrides = {name: value for name, value in given.items() if value}
    result = init_project(
        path,
        env={**os.environ, **overrides} if overrides else None,
        project=project,
        test_command=test_command,
        actions=actions,
        store_url=_store_named(ctx),
        services={kind: value for kind, value in services.items() if value is not None},
        code_host=code_host,
    )
    console = Console(highlight=False, soft_wrap=True)
    config = result.config
    verb = "Created" if result.created_config else "Found"
    console.print(
        f"{verb} {result.config_path}: {config.tracker} tracker (repo {config.repo}), "
        f"store {without_password(config.store_url)}{_store_change(result.migrated)}",
        markup=False,
    )
    if result.board is not None:
        _print_board(console, result.board, github)
    if result.team is not None:
        team = result.team
        made = ", ".join(team.created_states)
        console.print(
            f"Linear team {team.team.key} {team.team.name}: "
            + (f"created the states {made}" if made else "has Ralph's workflow states"),
            markup=False,
        )
    for note in result.notes:
        console.print(note, markup=False)
    if result.pull_requests and (result.team is not None or result.notes):
        console.print(
            f"Pull requests: {result.pull_requests}, into {config.base_branch}", markup=False
        )
    named = _store_named(ctx)
    if result.other_store:
        warn(
            f"ralph.toml names the store {without_password(result.other_store)}; commands "
            "without --store use that one (change store in ralph.toml to use this one)"
        )
    elif named and without_password(named) != named:
        console.print(
            "The password stays out of ralph.toml: give it in PGPASSWORD or ~/.pgpass "
            "(or the whole URL in RALPH_STORE_URL).",
            markup=False,
        )
    if result.ignored_store:
        console.print("Added .ralph/ to .gitignore (all but .ralph/prompts/, which you commit)")
    warning = untested_warning(config)
    if warning is None:
        console.print(
            f"Test command: {config.test_command} (from {result.test_source})", markup=False
        )
    else:
        warn(warning)
    for workflow in result.workflows:
        shown = workflow.path.relative_to(config.root)
        verb = "Wrote" if workflow.written else "Kept (it exists)"
        console.print(f"{verb} {shown}", markup=False)
    if result.workflows:
        console.print(
            "Add the repository secret RALPH_GH_TOKEN (Settings > Secrets and variables > "
            "Actions): a token that reaches the board (repo and project scopes); "
            "RALPH_GH_PROJECT_TOKEN and RALPH_STORE_URL are optional.",
            markup=False,
        )
    _print_commit(console, result)
    if result.created_config:
        _print_next(console, config)


def _store_change(migrated: tuple[int, ...]) -> str:
    """What init did to the store: made it (its first schema version among those
    applied), brought it up to date, or nothing."""
    if not migrated:
        return ""
    return " (created)" if migrated[0] == 1 else f" (updated to schema {migrated[-1]})"


def _print_board(console: Console, board: BoardSetup, github: str | None) -> None:
    made = "Created" if board.created_project else "Found"
    console.print(f"{made} project #{board.board.number} {board.board.title} ({board.board.url})")
    if board.created_fields:
        console.print(f"Created fields: {', '.join(board.created_fields)}")
    for field, missing in board.incomplete_fields:
        console.print(
            f'"{field}" lacks the options {", ".join(missing)}; add them to the '
            "field on the board (GitHub's API could only replace every option, clearing "
            "the field on every item), then run ralph doctor",
            style="yellow",
        )
    if board.linked:
        console.print(f"Linked {github} to the project")
    if board.link_warning:
        warn(board.link_warning)
    for note in board.features.notes():
        console.print(note[0].upper() + note[1:], style="yellow")
    if board.created_project:  # GitHub's API cannot make views (nor could the original)
        console.print(
            "Views cannot be created through GitHub's API; on the board add a Board "
            'view "Ralph Kanban" with Workflow State as its columns, and a Table view '
            '"Ralph Table" grouped by Priority with the filter -has:parent-issue.'
        )


def _print_commit(console: Console, result: InitResult) -> None:
    """The command that commits what init wrote, when it wrote anything to commit."""
    root = result.config.root
    written = [result.config_path] if result.created_config else []
    if result.ignored_store:
        written.append(root / ".gitignore")
    written += [w.path for w in result.workflows if w.written]
    if not written:
        return
    paths = " ".join(
        str(p.relative_to(root)) if p.is_relative_to(root) else str(p) for p in written
    )
    console.print(
        f'Commit what init wrote: git add {paths} && git commit -m "Set up Ralph"', markup=False
    )


def _print_next(console: Console, config: Config) -> None:
    """Two ways on: the simulated agents now, and a real one (Claude) after a login."""
    from ralph.project import first_issue

    first = first_issue(config)
    console.print("Next:", markup=False)
    console.print(
        f'  try it with simulated agents: ralph issue new "My first issue" -e XS, '
        f"then ralph hero {first} --agent scripted",
        markup=False,
    )
    console.print(
        "  connect Claude: ralph login (or set ANTHROPIC_API_KEY), then ralph doctor",
        markup=False,
    )


def _store_named(ctx: typer.Context) -> str | None:
    """``ralph --store URL init``'s URL; not RALPH_STORE_URL's, which ralph.toml need not
    name (it overrides ralph.toml's store for every command)."""
    root = ctx.find_root()
    named: str | None = root.obj.get("store_url") if root.obj else None
    return None if not named or named == os.environ.get("RALPH_STORE_URL") else named


#: The doctor's marks: fine, a warning, a problem.
_OK = ("✓", "green")
_WARN = ("!", "bold yellow")
_BAD = ("✗", "red")


def _marked(mark: tuple[str, str], line: str) -> Text:
    return Text.assemble(mark, " ", line)


def _sandbox_line(config: Config) -> tuple[bool, Text]:
    """Whether agents can run as ralph.toml asks, and the doctor's line about the
    platform path that applies here (sandboxed, unconfined, or refused and what to do)."""
    from ralph.sandbox import platform_path, probe

    path = platform_path(platform.system(), probe(), config.allow_unsandboxed)
    line = path.line
    if path.confined:
        tests = "tests with network" if config.sandbox_network == "on" else "tests without network"
        line += f" (agents write only to their worktree; {tests})"
    mark = _OK if path.confined else _WARN if path.usable else _BAD
    return path.usable, _marked(mark, f"platform: {line}")


def _print_prompt_overrides(console: Console, config: Config) -> bool:
    """A line per prompt override of the project, ✓ or ✗ with the problem; True when
    every one loads."""
    from ralph.phases import override_problems

    ok = True
    for path, problem in override_problems(config):
        if problem:
            ok = False
            console.print(_marked(_BAD, f"prompt: {problem}"))
        else:
            shown = path.relative_to(config.root) if path.is_relative_to(config.root) else path
            console.print(_marked(_OK, f"prompt: {shown} overrides the packaged one"))
    return ok


def _print_agent_clis(console: Console, config: Config) -> None:
    """A line per agent CLI, found or not, and the phases ralph.toml gives it: facts,
    never a failure (only the agents a run uses must be here, and the run says so)."""
    from ralph.runtimes import found_agent_clis

    uses: dict[str, list[str]] = {}
    fallback_for: dict[str, list[str]] = {}
    for phase in (spec.name for spec in PHASE_SPECS if spec.uses_agent):
        uses.setdefault(config.agent.agent_for(phase), []).append(phase)
        for fallback in config.agent.fallbacks_for(phase):
            fallback_for.setdefault(fallback.partition(":")[0], []).append(phase)
    for name, phases in fallback_for.items():
        uses.setdefault(name, []).append(f"fallback for {', '.join(phases)}")
    for cli in found_agent_clis(config.root):
        phases = uses.get(cli.name, [])
        chosen = f"; ralph.toml: {', '.join(phases)}" if phases else ""
        if cli.path is None:
            console.print(f"· agent {cli.name}: not found ({cli.install}){chosen}")
            continue
        version = f" {cli.version}" if cli.version else ""
        console.print(f"· agent {cli.name}: {cli.title}{version} ({cli.path}){chosen}")


def doctor_command(
    agent: Annotated[
        str | None,
        typer.Option(
            "--agent",
            help="Check this agent for every phase, as `ralph run --agent` would run it "
            "(default: ralph.toml's agents).",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Check the test command, the sandbox agents run in, each agent's key or login,
    the project's prompt overrides, the [notify] command and webhook (nothing is sent),
    and on GitHub the tokens (kind, scopes), what they may do in the repository and on
    the board, the issue relations the server has, the board and its fields; and say
    which agent CLIs are here, in which versions."""
    from ralph._agents import AGENT_NAMES
    from ralph.config import untested_warning
    from ralph.project import code_host_checks, open_tracker

    if agent is not None and agent not in AGENT_NAMES:
        raise InvalidInput(f"--agent {agent!r} is unknown; use one of: {', '.join(AGENT_NAMES)}")
    console = Console(highlight=False, soft_wrap=True)
    config, changes = guarded_config(project_config())
    for change in changes:
        console.print(_marked(_WARN, change))
    warning = untested_warning(config)
    if warning is None:
        console.print(_marked(_OK, f"test_command: {config.test_command}"))
    else:
        console.print(_marked(_WARN, f"test_command: {warning}"))
    confined, line = _sandbox_line(config)
    console.print(line)
    _print_agent_clis(console, config)
    agents_ok = print_agent_credentials(console, config, agent)
    prompts_ok = _print_prompt_overrides(console, config)
    notify_ok = print_notify_checks(console, config)
    healthy = confined and agents_ok and prompts_ok and notify_ok
    try:
        with open_tracker(config) as tracker:
            checks = tracker.check()
    except RalphError as exc:
        console.print(_marked(_BAD, f"tracker: {exc}"))
        raise typer.Exit(1) from None
    checks += code_host_checks(config)
    for check in checks:
        mark = _WARN if check.warning else _OK if check.ok else _BAD
        console.print(_marked(mark, f"{check.name}: {check.detail}"))
    if not healthy or not all(check.ok for check in checks):
        raise typer.Exit(1)
