"""``docs/configuration.md``, generated from the settings themselves: the ralph.toml
``ralph init`` writes (every setting, commented) and the environment variables that
override them. ``make docs`` writes it; a test compares, so it cannot drift."""

from __future__ import annotations

from ralph.config._config import _KEYS, render_config
from ralph.config._debug import DEBUG_ENV
from ralph.config._github import _ENV as _GITHUB_ENV
from ralph.config._github import TOKEN_VARIABLES, GitHubSettings
from ralph.config._hooks import HOOK_ENV
from ralph.config._merge import MERGE_ENV
from ralph.config._notify import NOTIFY_ENV
from ralph.config._numbers import MIN_POLL_SECONDS, MIN_SECONDS, MIN_USD, MIN_WAIT_SECONDS
from ralph.config._services import SERVICES
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
    for service in SERVICES.values():  # GitHub's are above: its board has a token too
        rows += [
            (variable, f"[{service.name}] {key}") for key, variable in service.variables.items()
        ]
        rows += [(variable, service.token) for variable in service.token_variables]
    return ["| variable | overrides |", "|---|---|", *(f"| `{v}` | {k} |" for v, k in rows)]


def _service_tables() -> list[str]:
    """Each service's table but GitHub's (shown with the board above), as init writes it."""
    lines: list[str] = []
    for service in SERVICES.values():
        if service.example is None:
            continue
        table = service.render(service.example, service.title).rstrip()
        lines += [*service.about.splitlines(), "", "```toml", table, "```", ""]
    return lines


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
        "The settings that run something, widen what agents get or bound what they",
        f"spend ({settings}; `prices` is the whole table, `agent.KEY` every role's and",
        "phase's too) are taken from what a person committed: an agent cannot lift a",
        "cap, lower a price or add a provider. Ralph keeps the values it last",
        "accepted; a `ralph.toml` last changed by a merge Ralph made without a person",
        "keeps them in force, and says so at the start of every run and in `ralph",
        "doctor` until you commit the change yourself. `RALPH_*` variables are always",
        "yours.",
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
            *_service_tables(),
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
