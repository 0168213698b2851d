"""The default agent, Claude Code, holds like the others: neither its file tools nor its
Bash read the person's credentials, Bash reaches no Unix socket, and nothing it writes
in the worktree becomes settings or hooks of a later session."""

from __future__ import annotations

import json
import socket
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from ralph.runtimes import AgentStatus
from ralph.runtimes.claude import ClaudeRuntime

from ...fakes.anthropic_api import ToolUse
from ..conftest import GitProject, git
from .conftest import MODEL

DONE = ToolUse("StructuredOutput", {"document": "d", "summary": "s"})
SECRET = "npm_PLANTEDsecretToken0123456789"
POSTGRES = Path("/var/run/postgresql/.s.PGSQL.5432")


def bash(command: str) -> ToolUse:
    return ToolUse("Bash", {"command": command, "description": "run"})


def connect(path: Path | str) -> str:
    """A command that connects to a Unix socket and says how it went."""
    code = (
        "import socket, sys; s = socket.socket(socket.AF_UNIX); "
        'print("connected" if s.connect_ex(sys.argv[1]) == 0 else "refused")'
    )
    return f"{sys.executable} -c '{code}' {path}; echo exit=$?"


@pytest.fixture
def listener(home: Path) -> Iterator[list[str]]:
    """A socket of the person's, under their home; what connected to it."""
    path = home / "agent.sock"
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(path))
    server.listen()
    server.settimeout(0.2)
    accepted: list[str] = []
    done = threading.Event()

    def serve() -> None:
        while not done.is_set():
            try:
                conn, _ = server.accept()
            except TimeoutError:
                continue
            accepted.append("connection")
            conn.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield accepted
    done.set()
    thread.join()
    server.close()


@pytest.fixture
def person(home: Path) -> Path:
    """The person's home, with credentials in it."""
    (home / ".npmrc").write_text(f"//registry.npmjs.org/:_authToken={SECRET}\n")
    (home / ".ssh").mkdir()
    (home / ".ssh/id_ed25519").write_text(f"-----BEGIN KEY-----\n{SECRET}\n")
    (home / ".config/gh").mkdir(parents=True)
    (home / ".config/gh/hosts.yml").write_text(f"github.com:\n  oauth_token: {SECRET}\n")
    return home


def runtime(api, home: Path) -> ClaudeRuntime:
    return ClaudeRuntime(model=MODEL, env=api.environment(str(home)))


def sent(api) -> str:
    """Everything the model was sent."""
    return "\n".join(json.dumps(request.body) for request in api.requests)


def test_the_file_tools_do_not_read_the_persons_home(fake_api, person, workdir, brief):
    api = fake_api(
        [
            ToolUse("Read", {"file_path": str(person / ".npmrc")}),
            ToolUse("Read", {"file_path": str(person / ".ssh/id_ed25519")}),
            ToolUse("Grep", {"pattern": "Token", "path": str(person), "output_mode": "content"}),
            ToolUse("Grep", {"pattern": "oauth", "path": "/", "output_mode": "content"}),
            ToolUse("Glob", {"pattern": "**/hosts.yml", "path": str(person)}),
            ToolUse("Glob", {"pattern": f"{person}/**/hosts.yml"}),
            ToolUse("Read", {"file_path": "notes.md"}),
            DONE,
        ]
    )
    tools = ("Read", "Grep", "Glob")
    result = runtime(api, person).run(brief(tools=tools))
    assert result.status is AgentStatus.OK, result.error
    assert SECRET not in sent(api)
    results = [str(r["content"]) for r in api.turns[7].tool_results()]
    assert not [r for r in results if "hosts.yml" in r]
    assert {"Read", "Grep", "Glob"} <= set(result.denied_tools)
    # The worktree itself reads as before.
    assert "existing notes" in results[6]


@pytest.mark.skipif(not POSTGRES.is_socket(), reason="no PostgreSQL socket on this machine")
def test_bash_reads_no_credential_and_reaches_no_unix_socket(
    fake_api, person, listener, workdir, brief
):
    api = fake_api(
        [
            bash("cat ~/.npmrc ~/.ssh/id_ed25519 ~/.config/gh/hosts.yml; echo exit=$?"),
            bash(f"grep -r authToken {person} 2>&1 | head; echo exit=$?"),
            bash(f"{connect(POSTGRES)}; {connect(person / 'agent.sock')}"),
            bash("echo made > made.txt && cat made.txt notes.md"),
            DONE,
        ]
    )
    work = brief(role="builder", phase="implement", tools=("Read", "Bash"))
    result = runtime(api, person).run(work)
    assert result.status is AgentStatus.OK, result.error
    assert SECRET not in sent(api)
    reached = str(api.turns[3].tool_results()[2]["content"])
    assert reached.count("exit=") == 2  # both ran
    assert "connected" not in reached
    assert listener == []
    # What a run needs still works: the worktree, written and read.
    assert "made" in str(api.turns[4].tool_results()[3]["content"])
    assert (workdir / "made.txt").read_text() == "made\n"


def test_settings_hooks_and_servers_in_the_worktree_are_not_loaded(
    fake_api, home, tmp_path, workdir, brief
):
    """An agent could have left them for the next session in the same worktree (the
    review, an address round): their hooks would run outside any sandbox."""
    marks = {name: tmp_path / name for name in ("hooked", "local-hooked", "served")}
    hook = {"hooks": [{"type": "command", "command": f"touch {marks['hooked']}"}]}
    settings = {
        "hooks": {"SessionStart": [hook], "PreToolUse": [{"matcher": "*", **hook}]},
        "enableAllProjectMcpServers": True,
    }
    (workdir / ".claude").mkdir()
    (workdir / ".claude/settings.json").write_text(json.dumps(settings))
    local = json.dumps(settings).replace("hooked", "local-hooked")
    (workdir / ".claude/settings.local.json").write_text(local)
    server = {"command": "touch", "args": [str(marks["served"])]}
    (workdir / ".mcp.json").write_text(json.dumps({"mcpServers": {"planted": server}}))
    api = fake_api([bash("echo hi"), DONE])
    work = brief(role="builder", phase="implement", tools=("Read", "Bash"))
    result = runtime(api, home).run(work)
    assert result.status is AgentStatus.OK, result.error
    assert [name for name, mark in marks.items() if mark.exists()] == []


def test_the_agent_cannot_write_settings_or_servers_into_the_worktree(
    fake_api, home, workdir, brief
):
    planted = json.dumps({"hooks": {}})
    api = fake_api(
        [
            ToolUse(
                "Write", {"file_path": str(workdir / ".claude/settings.json"), "content": planted}
            ),
            ToolUse("Write", {"file_path": str(workdir / ".mcp.json"), "content": planted}),
            bash(
                "mkdir -p .claude; echo '{}' > .claude/settings.local.json; "
                "echo '{}' > .mcp.json; echo exit=$?"
            ),
            DONE,
        ]
    )
    work = brief(role="builder", phase="implement", tools=("Read", "Write", "Bash"))
    result = runtime(api, home).run(work)
    assert result.status is AgentStatus.OK, result.error
    assert not (workdir / ".mcp.json").exists()
    assert not [p for p in (workdir / ".claude").rglob("*") if p.is_file()]
    assert "Write" in result.denied_tools


def test_a_worktree_under_the_persons_home_stays_theirs_to_work_and_commit_in(
    fake_api, person, brief
):
    repo = GitProject(person / "src/project").path
    git(repo, "worktree", "add", "-q", "-b", "feature/GH-7", "worktrees/GH-7", "main")
    worktree = repo / "worktrees/GH-7"
    api = fake_api(
        [
            bash("cat README.md; cat ~/.npmrc; echo made > made.txt"),
            bash("git add made.txt && git commit -qm 'agent work' && echo committed"),
            DONE,
        ]
    )
    work = brief(role="builder", phase="implement", workdir=worktree, tools=("Read", "Bash"))
    result = runtime(api, person).run(work)
    assert result.status is AgentStatus.OK, result.error
    assert "hello" in str(api.turns[1].tool_results()[0]["content"])
    assert SECRET not in sent(api)
    assert "committed" in str(api.turns[2].tool_results()[1]["content"])
    assert git(repo, "log", "-1", "--format=%s", "feature/GH-7") == "agent work"


def test_git_in_bash_still_knows_the_persons_name_but_none_of_their_credentials(
    fake_api, person, workdir, brief
):
    """Their ``~/.gitconfig`` is denied with the rest of the home: git gets a copy of
    it without credentials, so a commit still has an author."""
    (person / ".gitconfig").write_text(
        "[user]\n\tname = Pat Person\n\temail = pat@example.com\n"
        f'[http]\n\textraheader = "Authorization: Bearer {SECRET}"\n'
    )
    api = fake_api(
        [
            bash(
                "git init -q . && git add notes.md && git commit -qm work && "
                "git log -1 --format=%an; git config --list"
            ),
            DONE,
        ]
    )
    work = brief(role="builder", phase="implement", tools=("Read", "Bash"))
    result = runtime(api, person).run(work)
    assert result.status is AgentStatus.OK, result.error
    assert "Pat Person" in str(api.turns[1].tool_results()[0]["content"])
    assert SECRET not in sent(api)
