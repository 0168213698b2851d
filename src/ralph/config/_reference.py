"""``docs/configuration.md``, generated from the settings themselves: the ralph.toml
``ralph init`` writes (every setting, commented) and the environment variables that
override them. ``make docs`` writes it; a test compares, so it cannot drift."""

from __future__ import annotations

from ralph.config._config import _KEYS, render_config
from ralph.config._debug import DEBUG_ENV
from ralph.config._github import _ENV as _GITHUB_ENV
from ralph.config._github import TOKEN_VARIABLES, GitHubSettings
from ralph.config._gitlab import GITLAB_ENV, GITLAB_TOKEN_VARIABLES, GitLabSettings, gitlab_table
from ralph.config._hooks import HOOK_ENV
from ralph.config._jira import JIRA_ENV, JIRA_TOKEN_VARIABLES, JiraSettings, jira_table
from ralph.config._linear import LINEAR_ENV, LINEAR_TOKEN_VARIABLES, LinearSettings, linear_table
from ralph.config._merge import MERGE_ENV
from ralph.config._notify import NOTIFY_ENV
from ralph.config._numbers import MIN_POLL_SECONDS, MIN_SECONDS, MIN_USD, MIN_WAIT_SECONDS
from ralph.workflow import CONTROL_FILES, GUARDED_SETTINGS

__all__ = ["configuration_reference"]


def _variables() -> list[str]:
    rows = [(variable, key) for key, (_, variable) in _KEYS.items() if variable]
    rows.append(("RALPH_AGENT", "[agent] runtime"))
    rows += [(variable, f"[hooks] {key}") for key, variable in HOOK_ENV.items()]
    rows += [(variable, f"[merge] {key}") for key, variable in MERGE_ENV.items()]
    rows += [(variable, f"[notify] {key}") for key, variable in NOTIFY_ENV.items()]
    rows += [(variable, f"[github] {key}") for key, variable in _GITHUB_ENV.items()]
    rows += [(variable, f"[debug] {key} (1 or 0)") for key, variable in DEBUG_ENV.items()]
    rows += [
        (variable, "the token for the repository (and the board)") for variable in TOKEN_VARIABLES
    ]
    rows.append(("RALPH_GH_PROJECT_TOKEN", "the token for the board, when it needs another"))
    rows += [(variable, f"[linear] {key}") for key, variable in LINEAR_ENV.items()]
    rows += [(variable, "the Linear API key") for variable in LINEAR_TOKEN_VARIABLES]
    rows += [(variable, f"[jira] {key}") for key, variable in JIRA_ENV.items()]
    rows += [(variable, "the Jira API token") for variable in JIRA_TOKEN_VARIABLES]
    rows += [(variable, f"[gitlab] {key}") for key, variable in GITLAB_ENV.items()]
    rows += [(variable, "the GitLab access token") for variable in GITLAB_TOKEN_VARIABLES]
    return ["| variable | overrides |", "|---|---|", *(f"| `{v}` | {k} |" for v, k in rows)]


def _guarded() -> list[str]:
    files = ", ".join(f"`{path}`" for path, _ in CONTROL_FILES)
    settings = ", ".join(f"`{name}`" for name in GUARDED_SETTINGS)
    return [
        "## What an agent cannot change",
        "",
        f"An agent's change to a control file ({files} and the `prompts_dir` folder) is",
        "never merged without a person: the issue goes to Human Needed naming the file.",
        "After reviewing it, `ralph issue retry N --accept-control-files` lets it through",
        "as it is (a later change is held again), or merge the pull request yourself",
        "(`ralph pr merge P`).",
        "",
        f"The settings that run something or widen what agents get ({settings}) are",
        "taken from what a person committed. Ralph keeps the values it last accepted; a",
        "`ralph.toml` last changed by a merge Ralph made without a person keeps them in",
        "force, and says so at the start of every run and in `ralph doctor` until you",
        "commit the change yourself. `RALPH_*` variables are always yours.",
        "",
    ]


def configuration_reference() -> str:
    local = render_config(repo="myproject", base_branch="main", test_command="make test")
    board = render_config(
        repo="shop",
        base_branch="main",
        tracker=GitHubSettings(owner="acme", repo="shop", project=3),
        test_command="make test",
    )
    github_table = board[board.index("# The GitHub board") :]
    return "\n".join(
        [
            "# Configuration reference",
            "",
            "Generated from the settings by `make docs`. Ralph reads `ralph.toml` from the",
            "working directory or its nearest parent; `ralph init` writes it with every",
            "setting and what it means. A bad value is refused with one line naming the",
            "setting and what it accepts.",
            "",
            "Numbers have a range both ways, because a value past either end is a typo:",
            f"`poll_seconds` is at least {MIN_POLL_SECONDS:g}, every timeout and stall limit "
            f"at least {MIN_SECONDS:g} s,",
            f"a merge's waits at least {MIN_WAIT_SECONDS:g} s, and a budget or cap is 0 "
            f"(no cap) or at least {MIN_USD:g} US dollars.",
            "A top-level setting goes above the first `[section]`: TOML puts every key after",
            "a `[section]` line in that section, so a line appended to the end of the file",
            "lands in its last table and is refused, saying so.",
            "",
            "## ralph.toml",
            "",
            "```toml",
            local.rstrip(),
            "```",
            "",
            "On a GitHub board (`ralph init --github acme/shop`) the file also has:",
            "",
            "```toml",
            github_table.rstrip(),
            "```",
            "",
            "A `[linear]` table names a Linear team (its API key is read from the",
            "environment only; a key in the file is refused):",
            "",
            "```toml",
            linear_table(LinearSettings(team="ENG")).rstrip(),
            "```",
            "",
            "A `[jira]` table names a Jira Cloud project, the site and the API token's",
            "account (the token is read from the environment only), and the project status",
            "each of Ralph's states moves to:",
            "",
            "```toml",
            jira_table(
                JiraSettings(url="https://acme.atlassian.net", project="PROJ", email="you@acme.com")
            ).rstrip(),
            "```",
            "",
            "A `[gitlab]` table names a GitLab project, on gitlab.com unless `url` names",
            "another instance (its token is read from the environment only):",
            "",
            "```toml",
            gitlab_table(GitLabSettings(project="acme/app")).rstrip(),
            "```",
            "",
            *_guarded(),
            "## Environment variables",
            "",
            "Each overrides its setting; a value that starts with `${` counts as unset.",
            "Tokens are read only from the environment, never from the file.",
            "",
            *_variables(),
            "",
        ]
    )
