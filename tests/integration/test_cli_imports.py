"""The everyday commands start at once: each imports what it uses when it runs, not the
orchestration, the agents, the GitHub client, pydantic or the Markdown renderer."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import ralph_environment, ralph_process

#: What ``ralph status``, ``issue list``, ``issue show`` and ``--help`` never need on a
#: local project: the pipeline's machinery, the GitHub client, the web and MCP servers,
#: YAML (routing rules), pydantic (Typer's value conversion, ``ralph.cli._params``).
NEVER_LOADED = {
    "ralph.orchestrate._execute",
    "ralph.orchestrate._session",
    "ralph.phases._runner",
    "ralph.runtimes._open",
    "ralph.runtimes._claude_cli",
    "ralph.github._client",
    "ralph.tracker.github._tracker",
    "ralph.project._init",
    "ralph.sandbox",
    "ralph.web",
    "ralph.mcp",
    "ralph.demo",
    "yaml",
    "pydantic",
    "pydantic_core",
    # Nothing held, one board: no admission checks (budgets), no board-of-boards nor the
    # board's management (fields, views), no phase prompts, no merge train; a process's
    # name and a debug session's id are read without ``socket`` and ``secrets``.
    "ralph.orchestrate._admission",
    "ralph.orchestrate._budget",
    "ralph.board._projects",
    "ralph.tracker._project_board",
    "ralph.phases._prompts",
    "ralph.workflow._merge_train",
    # ralph.toml's merge settings are read, not the policy's decisions.
    "ralph.workflow._merge_policy",
    "socket",
    "secrets",
    # No notify target: nothing is sent, so neither how (``tempfile``) nor the events.
    "ralph.notify._send",
    "ralph.notify._event",
    "tempfile",
}
#: Other commands' modules: the root imports a command's module only when it runs.
OTHER_COMMANDS = {
    "ralph.cli._orchestrate",
    "ralph.cli._live",
    "ralph.cli._debug",
    "ralph.cli._report",
    "ralph.cli._status_report",
    "ralph.cli._init",
    "ralph.cli._route",
    "ralph.cli._serve",
    "ralph.cli._web",
    "ralph.cli._mcp",
    "ralph.cli._pr",
    "ralph.cli._store",
    "ralph.cli._by_hand",
}
#: Rich renders Markdown with these: only an issue with a description shown needs them
#: (Typer's Rich help imports them whatever the markup, but not in Ralph: ``_slim_help``).
MARKDOWN = {"markdown_it", "pygments", "rich.markdown"}


#: ``ralph ARGS`` in a fresh interpreter that writes the names of every module loaded, at
#: exit, to the file its first argument names (what ``-X importtime`` would list, without
#: depending on the command leaving stderr alone).
_DUMP_MODULES_AT_EXIT = """
import atexit, sys
from pathlib import Path
listing = Path(sys.argv.pop(1))
atexit.register(lambda: listing.write_text("\\n".join(sorted(sys.modules))))
sys.argv[0] = "ralph"
from ralph.__main__ import main
main()
"""


def imported(*args: str, cwd: Path, settings: dict[str, str] | None = None) -> set[str]:
    """The modules ``ralph ARGS`` imports, run as the ``ralph`` command runs it."""
    listing = cwd / ".ralph" / "modules.txt"
    done = subprocess.run(
        [sys.executable, "-c", _DUMP_MODULES_AT_EXIT, str(listing), *args],
        cwd=cwd,
        env=ralph_environment(settings),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return set(listing.read_text().split())


#: What ``ralph --help`` imports of Ralph: the root and its table, no command's module,
#: no console of Ralph's (Typer prints the help), no logging set up.
ROOT_ONLY = {
    "ralph",
    "ralph.__main__",
    "ralph._dataclass_code",  # the classes' compiled code, kept (Typer's too)
    "ralph._command_process",  # how the process collects and ends
    "ralph.errors",
    "ralph.cli",
    "ralph.cli._bounds",
    "ralph.cli._commands",
    "ralph.cli._exits",
    "ralph.cli._help",
    "ralph.cli._lazy_root",
    "ralph.cli._params",
    "ralph.cli._slim_help",
    "ralph.cli._version",
}


@pytest.fixture(scope="module")
def local_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A project on the local tracker with issue 1 (no description) and 2 (one)."""
    root = tmp_path_factory.mktemp("startup")
    for command in (["init", "-q"], ["commit", "-q", "--allow-empty", "-m", "First commit"]):
        subprocess.run(["git", *command], cwd=root, check=True, timeout=30, capture_output=True)
    for args in (
        ("init", "."),
        ("issue", "new", "No description", "-e", "S", "--body", ""),
        ("issue", "new", "Described", "-e", "XS", "--body", "Some *Markdown*."),
    ):
        done = ralph_process(*args, cwd=root, timeout=60)
        assert done.returncode == 0, done.stderr
    return root


@pytest.mark.parametrize(
    "args", [("status",), ("issue", "list"), ("issue", "show", "1")], ids=" ".join
)
def test_an_everyday_command_imports_neither_the_pipeline_nor_pydantic_nor_markdown(
    local_project: Path, args: tuple[str, ...]
) -> None:
    modules = imported(*args, cwd=local_project)
    assert "ralph.tracker.local._tracker" in modules  # it did read the board
    assert modules & (NEVER_LOADED | MARKDOWN | OTHER_COMMANDS) == set()


#: What reading and filing issues never needs: the dashboard (``status``'s), the
#: documents' sections (``issue show`` and JSON's) and the task store, of which only the
#: guarded settings' checkpoint is read, from its database.
NOT_FOR_ISSUES = {
    "ralph.dashboard",
    "ralph.artifacts",
    "ralph.views._issues",
    "ralph.tasks._store",
    "ralph.tasks._lifecycle",
}
#: The code host's pull requests, reviews and merges: opened when first asked for, so
#: reading issues and the board never loads them.
CODE_HOST = {"ralph.tracker.local._pulls", "ralph.tracker._code_host", "ralph.git._rebase"}


@pytest.mark.parametrize(
    "args", [("status",), ("issue", "list"), ("issue", "show", "1")], ids=" ".join
)
def test_reading_issues_opens_no_code_host(local_project: Path, args: tuple[str, ...]) -> None:
    assert imported(*args, cwd=local_project) & CODE_HOST == set()


@pytest.mark.parametrize(
    "args",
    [("issue", "list"), ("issue", "new", "Filed", "-e", "S", "--body", "")],
    ids=" ".join,
)
def test_listing_or_filing_issues_loads_no_dashboard_documents_nor_task_store(
    local_project: Path, args: tuple[str, ...]
) -> None:
    assert imported(*args, cwd=local_project) & NOT_FOR_ISSUES == set()


@pytest.mark.parametrize(
    ("args", "on_a_terminal"),
    [
        (("issue", "list"), "rich.table"),
        (("status",), "rich.table"),
        (("issue", "new", "Piped", "-e", "S", "--body", ""), "rich.console"),
    ],
    ids=lambda value: " ".join(value) if isinstance(value, tuple) else "",
)
def test_what_a_pipe_is_given_is_printed_without_rich(
    local_project: Path, args: tuple[str, ...], on_a_terminal: str
) -> None:
    """A pipe gets plain lines (``_issue_rows``, ``_status_plain``, ``echo.say``); only a
    terminal's tables and styles need Rich."""
    modules = imported(*args, cwd=local_project)
    assert {m for m in modules if m == "rich" or m.startswith("rich.")} == set()
    styled = imported(*args, cwd=local_project, settings={"FORCE_COLOR": "1"})
    assert on_a_terminal in styled


def test_the_help_imports_nothing_of_the_pipeline(local_project: Path) -> None:
    modules = imported("--help", cwd=local_project)
    assert "typer.rich_utils" in modules  # the help as it looks, panels and colours
    loaded_for_nothing = NEVER_LOADED | MARKDOWN | {"rich.traceback", "attr"}
    assert modules & (loaded_for_nothing | {"ralph.tracker.local._tracker", "ralph.db"}) == set()
    assert {m for m in modules if m == "ralph" or m.startswith("ralph.")} <= ROOT_ONLY


def test_showing_an_issue_no_agent_was_refused_a_tool_loads_no_task_store(
    local_project: Path,
) -> None:
    """Whether any agent was refused a tool is read from the store's database; only a
    refusal would open the store to say on which issue."""
    for args in (("issue", "show", "1"), ("issue", "show", "1", "--json")):
        assert (
            imported(*args, cwd=local_project) & {"ralph.tasks._store", "ralph.tasks._model"}
            == set()
        )


def test_an_issue_with_a_description_loads_the_markdown_renderer_to_show_it_on_a_terminal(
    local_project: Path,
) -> None:
    modules = imported("issue", "show", "2", cwd=local_project, settings={"FORCE_COLOR": "1"})
    assert "rich.markdown" in modules
    assert modules & NEVER_LOADED == set()
    piped = imported("issue", "show", "2", cwd=local_project)  # the description as written
    assert {m for m in piped if m == "rich" or m.startswith("rich.")} == set()


def test_a_bad_value_is_refused_in_typers_words(local_project: Path) -> None:
    """The plain conversion hands what it does not recognise to Typer (and pydantic)."""
    done = ralph_process("issue", "list", "--limit", "many", cwd=local_project, timeout=60)
    assert done.returncode == 2
    assert "Invalid value for '--limit'" in done.stderr
    assert "valid integer" in done.stderr
