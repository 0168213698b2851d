"""Claude Code runs Bash in its own sandbox: the agent writes its worktree and commits
on its branch, and nothing else; no network; and no run at all when the sandbox
cannot start."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from ralph.runtimes import AgentStatus
from ralph.runtimes.claude import ClaudeRuntime
from ralph.runtimes.claude._sandbox import protected

from ...fakes.anthropic_api import ToolUse
from ..conftest import GitProject, git
from .conftest import MODEL

DONE = ToolUse("StructuredOutput", {"document": "d", "summary": "s"})


@dataclass(frozen=True)
class Checkout:
    repo: Path
    worktree: Path
    scratch: Path


@pytest.fixture
def checkout(tmp_path: Path) -> Checkout:
    """A repository as Ralph lays it out: its store in ``.ralph/``, an implementation
    worktree on ``feature/GH-7`` and a document phase's scratch checkout."""
    repo = GitProject(tmp_path / "repo").path
    (repo / ".ralph").mkdir()
    (repo / ".ralph" / "ralph.db").write_text("the store\n")
    git(repo, "worktree", "add", "-q", "-b", "feature/GH-7", "worktrees/GH-7", "main")
    git(repo, "worktree", "add", "-q", "--detach", ".ralph/scratch/research-GH-8", "main")
    return Checkout(repo, repo / "worktrees/GH-7", repo / ".ralph/scratch/research-GH-8")


def runtime(api, home, **kwargs) -> ClaudeRuntime:
    return ClaudeRuntime(model=MODEL, env=api.environment(str(home)), **kwargs)


def bash(command: str) -> ToolUse:
    return ToolUse("Bash", {"command": command, "description": "run"})


def builder(brief, workdir: Path):
    return brief(role="builder", phase="implement", workdir=workdir, tools=("Read", "Bash"))


def test_bash_writes_the_worktree_and_commits_on_its_branch_but_nothing_else(
    fake_api, home, tmp_path, checkout, brief
):
    repo = checkout.repo
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    main = git(repo, "rev-parse", "main")
    escapes = [
        f"touch {elsewhere}/planted",
        f"touch {repo}/.git/hooks/pre-commit",
        f"echo taken >> {repo}/.git/config",
        f"echo taken > {repo}/.ralph/ralph.db",
        "git update-ref refs/heads/main HEAD",
        f"echo 'gitdir: {elsewhere}' > .git",
        f"touch {repo}/planted",
    ]
    api = fake_api(
        [
            bash("echo made > made.txt && git add made.txt && git commit -qm 'agent work'"),
            bash("; ".join(escapes)),
            DONE,
        ]
    )
    result = runtime(api, home).run(builder(brief, checkout.worktree))
    assert result.status is AgentStatus.OK, result.error
    assert (checkout.worktree / "made.txt").read_text() == "made\n"
    assert git(repo, "log", "-1", "--format=%s", "feature/GH-7") == "agent work"
    # The sandbox leaves nothing git would see (Claude Code's .claude/.cc-writes is empty),
    # nor its placeholders in the repository.
    assert git(checkout.worktree, "status", "--porcelain") == ""
    assert not (repo / ".git/config.worktree").exists()
    assert not (repo / ".git/worktrees/GH-7/config.worktree").exists()
    assert not (repo / ".git/objects/info/alternates").exists()
    assert not list((repo / ".git").rglob(".claude-sandbox-noreplace"))
    assert not (elsewhere / "planted").exists()
    assert not (repo / ".git/hooks/pre-commit").exists()
    assert "taken" not in (repo / ".git/config").read_text()
    assert (repo / ".ralph/ralph.db").read_text() == "the store\n"
    assert git(repo, "rev-parse", "main") == main
    assert (checkout.worktree / ".git").read_text().startswith("gitdir: ")
    assert str(elsewhere) not in (checkout.worktree / ".git").read_text()
    assert not (repo / "planted").exists()
    refused = str(api.turns[2].tool_results()[-1]["content"])
    assert "Read-only file system" in refused


def test_a_document_phase_writes_its_scratch_checkout_but_not_the_store(
    fake_api, home, checkout, brief
):
    api = fake_api(
        [
            bash(
                "echo draft > draft.md; "
                f"echo taken > {checkout.repo}/.ralph/ralph.db; "
                f"touch {checkout.scratch.parent}/research-GH-9"
            ),
            DONE,
        ]
    )
    result = runtime(api, home).run(builder(brief, checkout.scratch))
    assert result.status is AgentStatus.OK, result.error
    assert (checkout.scratch / "draft.md").read_text() == "draft\n"
    assert (checkout.repo / ".ralph/ralph.db").read_text() == "the store\n"
    assert not (checkout.scratch.parent / "research-GH-9").exists()


def test_settings_committed_in_the_project_cannot_loosen_the_sandbox(
    fake_api, home, tmp_path, workdir, brief
):
    """An agent could commit a .claude/settings.json that a later run loads."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    loosen = {
        "enabled": False,
        "allowUnsandboxedCommands": True,
        "excludedCommands": ["touch *"],
        "filesystem": {"allowWrite": [str(elsewhere)]},
    }
    (workdir / ".claude").mkdir()
    (workdir / ".claude/settings.json").write_text(json.dumps({"sandbox": loosen}))
    unsandboxed = {"command": f"touch {tmp_path}/b", "dangerouslyDisableSandbox": True}
    api = fake_api([bash(f"touch {elsewhere}/a"), ToolUse("Bash", unsandboxed), DONE])
    result = runtime(api, home).run(builder(brief, workdir))
    assert result.status is AgentStatus.OK, result.error
    assert not (elsewhere / "a").exists()
    assert not (tmp_path / "b").exists()


def test_sandboxed_commands_reach_no_network(fake_api, home, workdir, brief):
    reach = f"{sys.executable} -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1])'"
    api = fake_api([bash(f"{reach} $ANTHROPIC_BASE_URL/from-bash; echo exit=$?"), DONE])
    result = runtime(api, home).run(builder(brief, workdir))
    assert result.status is AgentStatus.OK, result.error
    assert not [r for r in api.requests if "from-bash" in r.path]
    assert "exit=1" in str(api.turns[1].tool_results()[0]["content"])


def test_a_sandbox_that_cannot_start_ends_the_run_misconfigured_before_any_turn(
    fake_api, home, tmp_path, workdir, brief
):
    api = fake_api([bash("touch unconfined"), DONE])
    nothing = tmp_path / "empty-path"
    nothing.mkdir()
    env = {**api.environment(str(home)), "PATH": str(nothing)}  # no bwrap, no socat
    result = ClaudeRuntime(model=MODEL, env=env).run(builder(brief, workdir))
    assert result.status is AgentStatus.MISCONFIGURED
    assert result.error.startswith("Claude Code's sandbox cannot start here (")
    assert "bubblewrap (bwrap) not installed" in result.error
    assert "allow_unsandboxed = true" in result.error
    assert "\n" not in result.error
    assert api.turns == []
    assert not (workdir / "unconfined").exists()


def test_without_the_sandbox_bash_runs_unconfined(fake_api, home, tmp_path, workdir, brief):
    outside = tmp_path / "outside"
    api = fake_api([bash(f"touch {outside}"), DONE])
    result = runtime(api, home, sandbox=False).run(builder(brief, workdir))
    assert result.status is AgentStatus.OK, result.error
    assert outside.exists()


def test_what_git_needs_to_commit_stays_writable_and_the_rest_is_denied(checkout):
    common = checkout.repo / ".git"
    denied = set(protected(checkout.worktree))
    for path in (
        common / "hooks",
        common / "config",
        common / "HEAD",
        common / "index",
        common / "refs/heads/main",
        common / "logs/HEAD",
        common / "worktrees/research-GH-8",
        common / "worktrees/GH-7/commondir",
        common / "worktrees/GH-7/gitdir",
        checkout.worktree / ".git",
        checkout.repo / ".ralph",
    ):
        assert path in denied, path
    assert (
        not {
            common / "objects",
            common / "refs",
            common / "refs/heads/feature",
            common / "refs/heads/feature/GH-7",
            common / "logs/refs/heads/feature/GH-7",
            common / "worktrees/GH-7",
            checkout.worktree,
        }
        & denied
    )


def test_a_scratch_checkout_in_the_store_folder_leaves_only_its_own_path_open(checkout):
    denied = set(protected(checkout.scratch))
    ralph = checkout.repo / ".ralph"
    assert ralph / "ralph.db" in denied
    assert not {ralph, ralph / "scratch", checkout.scratch} & denied


def test_a_folder_outside_git_has_nothing_to_protect(workdir):
    assert protected(workdir) == []


def test_the_file_tools_cannot_repoint_the_worktree_at_another_repository(
    fake_api, home, tmp_path, checkout, brief
):
    pointer = checkout.worktree / ".git"
    before = pointer.read_text()
    api = fake_api(
        [
            ToolUse("Read", {"file_path": str(pointer)}),  # Claude Code writes only what it read
            ToolUse("Write", {"file_path": str(pointer), "content": f"gitdir: {tmp_path}\n"}),
            ToolUse("Edit", {"file_path": str(pointer), "old_string": "gitdir", "new_string": "x"}),
            DONE,
        ]
    )
    tools = ("Read", "Write", "Edit", "Bash")
    work = brief(role="builder", phase="implement", workdir=checkout.worktree, tools=tools)
    result = runtime(api, home).run(work)
    assert result.status is AgentStatus.OK, result.error
    assert pointer.read_text() == before
    assert {"Write", "Edit"} <= set(result.denied_tools)
    assert "is git's, not yours" in str(api.turns[2].tool_results()[-1]["content"])
