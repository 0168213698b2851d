"""The root's commands as ``ralph --help`` lists them, known without importing them.

Each command is named with the module and attribute that define it (a function, or a
Typer app of subcommands), the summary ``--help`` shows for it and its panel, grouped as
gh groups its own: what a person runs every day first, then the steps a person takes by
hand, then the setup and the board's upkeep, and last the plumbing other programs call.
The root (``_lazy_root``) imports a command's module only when that command runs, so
``ralph status`` does not import the orchestration, and ``ralph --help`` nothing at all.
A test builds the whole tree and holds this table to it: a summary changed in a
docstring is changed here too.
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["PANELS", "Listed"]


class Listed(NamedTuple):
    """A root command as listed: its name, where it is defined, its summary."""

    name: str
    module: str
    attribute: str
    summary: str
    hidden: bool = False


#: Each panel of ``ralph --help`` with its commands, in the order listed.
PANELS: tuple[tuple[str, tuple[Listed, ...]], ...] = (
    (
        "Core commands",
        (
            Listed(
                "demo",
                "ralph.cli._orchestrate",
                "demo_command",
                "Run the whole pipeline on a throwaway project with simulated agents.",
            ),
            Listed(
                "init",
                "ralph.cli._init",
                "init_command",
                "Set Ralph up in a git repository: ralph.toml and the local database, with "
                "--github the board's fields, with --linear the team's workflow states. Safe "
                "to re-run.",
            ),
            Listed(
                "issue",
                "ralph.cli._issue",
                "issue_app",
                "Issues on the project's tracker.",
            ),
            Listed(
                "hero",
                "ralph.cli._orchestrate",
                "hero_command",
                "Carry an issue tree from where it is to merged, in this process (resumable).",
            ),
            Listed(
                "team",
                "ralph.cli._orchestrate",
                "team_command",
                "Run a team on an issue tree: a lead and role-typed workers over the shared store.",
            ),
            Listed(
                "run",
                "ralph.cli._run",
                "run_command",
                "Run one phase on one issue (a group phase on the issue's whole group); without "
                "a number, on the issue the phase should take next (exit 0 when there is none). "
                "A phase not ready yet (a pull request's checks running) looks again as it backs"
                " off; one waiting for a person stops with exit 1, unless --wait. implement with"
                " --best-of N (or ralph.toml's best_of) runs N attempts at once and keeps the "
                "best.",
            ),
            Listed(
                "loop",
                "ralph.cli._orchestrate",
                "loop_command",
                "One pass over the board: every root with work, most urgent and in-flight first,"
                " as hero or team runs (ralph.toml's mode); exit 0 when no work is left, 1 when "
                "what is left waits for a person.",
            ),
            Listed(
                "serve",
                "ralph.cli._serve",
                "serve_command",
                "`ralph loop` as a service: read the board every poll (and at once when the "
                "local board changes), start roots as capacity frees, stop an agent whose issue "
                "a person takes away, one lease per root in the store (several processes share "
                "one store). New issues are routed by .ralph-routing.yml when there is one, and "
                "the hygiene report is logged every hygiene_interval hours (ralph.toml; off by "
                "default). SIGTERM, SIGHUP or Ctrl-C: finish the tasks in hand and exit 0; a "
                "second: hand them back, exit 130.",
            ),
            Listed(
                "web",
                "ralph.cli._web",
                "web_command",
                "The board in a browser: columns by state, issues, runs with their task graphs, "
                "spending, live as it changes, and the actions a person takes (approve, reject, "
                "retry, cancel). Every page is also JSON under /api/.",
            ),
            Listed(
                "status",
                "ralph.cli._status",
                "status_command",
                "The pipeline dashboard: issues per state, WIP limits, stuck, blocked and "
                "oversized issues, lock collisions; only warnings count against health.",
            ),
            Listed(
                "runs",
                "ralph.cli._store",
                "runs_app",
                "Runs in the task store.",
            ),
            Listed(
                "budget",
                "ralph.cli._budget",
                "budget_app",
                "Spend against every cap (run, day, issue: dollars, tokens, agent sessions), "
                "the issues held and the providers waited for; `ralph budget lift N` lifts a "
                "hold.",
            ),
            Listed(
                "pr",
                "ralph.cli._pr",
                "pr_app",
                "Pull requests: their checks, reviews and threads; review, check and merge them.",
            ),
        ),
    ),
    (
        "By hand",
        (
            Listed(
                "idea",
                "ralph.cli._idea",
                "idea_app",
                "Ideas: written down, then formed into issues.",
            ),
            Listed(
                "plan",
                "ralph.cli._by_hand",
                "plan_app",
                "Write an issue's plan yourself (ralph plan N --interactive, then --done) or "
                "revise it (ralph plan iterate N). The agent's plan is ralph run plan N.",
            ),
            Listed(
                "research",
                "ralph.cli._by_hand",
                "research_command",
                "Research an issue yourself: ralph research N --interactive, edit it, then --done.",
            ),
            Listed(
                "approve",
                "ralph.cli._run",
                "approve_command",
                "Approve the plan for an issue (a human gate): its issues move to In Progress.",
            ),
            Listed(
                "review",
                "ralph.cli._by_hand",
                "review_command",
                "Reject the plan for an issue (a human gate): its issues go back to Ready for "
                "Plan.",
            ),
            Listed(
                "implement",
                "ralph.cli._by_hand",
                "implement_command",
                "Implement an issue yourself in its worktree, one plan phase at a time.",
            ),
            Listed(
                "sync",
                "ralph.cli._sync",
                "sync_app",
                "Bring what people did outside Ralph into the workflow: an issue closed (Done or"
                " Canceled) or reopened (Backlog), a pull request merged (its issues Done, the "
                "parent advanced, the worktree pruned). Safe to run again.",
            ),
        ),
    ),
    (
        "Setup and upkeep",
        (
            Listed(
                "doctor",
                "ralph.cli._init",
                "doctor_command",
                "Check the test command, the sandbox agents run in, each agent's key or login, "
                "the project's prompt overrides, the [notify] command and webhook (nothing is "
                "sent), and on GitHub the tokens (kind, scopes), what they may do in the "
                "repository and on the board, the issue relations the server has, the board and "
                "its fields; and say which agent CLIs are here, in which versions.",
            ),
            Listed(
                "login",
                "ralph.cli._login",
                "login_command",
                "Log Claude Code in (its `auth login`, with the CLI on the PATH or the one "
                "claude-agent-sdk bundles): the login the claude agent then uses instead of "
                "ANTHROPIC_API_KEY.",
            ),
            Listed(
                "notify",
                "ralph.cli._notify",
                "notify_app",
                "The word Ralph sends when a person is needed, a run ends or a budget stops work"
                " ([notify] in ralph.toml: a command and/or a webhook).",
            ),
            Listed(
                "version",
                "ralph.cli._version",
                "version_command",
                "Print Ralph's version.",
            ),
            Listed(
                "plugin",
                "ralph.cli._plugin",
                "plugin_app",
                "The Claude Code plugin.",
            ),
            Listed(
                "hygiene",
                "ralph.cli._hygiene",
                "hygiene_command",
                "The board's hygiene: what to archive, stale and orphaned issues, missing "
                "estimates and priorities, WIP limits exceeded, likely duplicates by title. With"
                " --archive, archive the issues done or canceled more than --archive-days ago.",
            ),
            Listed(
                "report",
                "ralph.cli._status_report",
                "report_app",
                "The project status report, posted as the board's status update.",
            ),
            Listed(
                "route",
                "ralph.cli._route",
                "route_command",
                "Where the routing rules send an issue (boards, workflow state, labels), by its "
                "repository, labels and type; --apply moves it there. A state it cannot move to "
                "refuses the whole routing before anything is written.",
            ),
            Listed(
                "debug",
                "ralph.cli._debug",
                "debug_app",
                "The debug log (RALPH_DEBUG=1, or [debug] enabled in ralph.toml): statistics, "
                "and recurring errors filed as debug-auto issues.",
            ),
        ),
    ),
    (
        "Plumbing",
        (
            Listed(
                "worker",
                "ralph.cli._orchestrate",
                "worker_command",
                "Claim and run tasks of a run in this process (another terminal or machine, with"
                " --store pointing at the shared PostgreSQL store); exits when the run shuts "
                "down.",
            ),
            Listed(
                "mcp",
                "ralph.cli._mcp",
                "mcp_command",
                "Serve the ralph_hero__* tools over stdio (for Claude Code and other MCP clients).",
            ),
            Listed(
                "hook",
                "ralph.cli._hook",
                "hook_app",
                "Claude Code hooks of the ralph-hero plugin: they gate a session only while one "
                "of its skills has set a hook context.",
            ),
            Listed(
                "pipeline",
                "ralph.cli._pipeline",
                "pipeline_app",
                "Pipeline analysis on JSON snapshots: position, groups, work streams, task graphs.",
            ),
            Listed(
                "prompts",
                "ralph.cli._prompts",
                "prompts_app",
                "The prompts phases give their agents: packaged, or the project's own "
                "(prompts_dir in ralph.toml, .ralph/prompts/PHASE.md by default).",
            ),
            Listed(
                "tasks",
                "ralph.cli._store",
                "tasks_app",
                "Tasks in the task store.",
            ),
            Listed(
                "db",
                "ralph.cli._store",
                "db_app",
                "Database maintenance: the task store's and the local tracker's tables. (`ralph "
                "store reap` still works as the old spelling of `ralph db reap`.)",
            ),
            Listed(
                "store",
                "ralph.cli._store",
                "store_app",
                "",
                hidden=True,
            ),
        ),
    ),
)
