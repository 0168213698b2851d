"""An agent CLI run by the command runtime is confined: it writes and commits in its
worktree, and every write anywhere else (git's hooks and config, Ralph's store, the
person's checkout, other folders) fails and changes nothing; the person's credentials
read as empty."""

from __future__ import annotations

import json
import os
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from ralph.git import GitRepo, Worktrees
from ralph.runtimes import AgentStatus
from ralph.runtimes.command import CommandRuntime
from ralph.sandbox import probe

from .conftest import SECRET, Machine, implement_brief

pytestmark = pytest.mark.skipif(not probe().available, reason=probe().reason)


def agent(machine: Machine, workdir: Path) -> str:
    """A plain agent that tries every forbidden write, reads the credentials, then does
    its work and commits it; it reports what happened in ``attempts.json``."""
    git = machine.repo.path / ".git"
    writes = {
        "hook": str(git / "hooks" / "post-checkout"),
        "config": str(git / "config"),
        "info": str(git / "info" / "exclude"),
        "store": str(machine.store),
        "checkout": str(machine.repo.path / "README.md"),
        "outside": str(machine.outside / "keep.txt"),
        "tmp": str(machine.tmp / "keep.txt"),
        "ssh": str(machine.home / ".ssh" / "id_rsa"),
        "pointer": str(machine.worktree / ".git"),
        "commondir": str(git / "worktrees" / "GH-1" / "commondir"),
    }
    reads = [str(machine.home / ".ssh" / "id_rsa"), str(machine.home / ".git-credentials")]
    script = machine.tmp / "bin" / "agent"
    script.parent.mkdir(exist_ok=True)
    script.write_text(
        f"#!{sys.executable}\n"
        + textwrap.dedent(f"""
        import json, os, subprocess, sys
        report = {{"writes": {{}}, "reads": []}}
        for name, path in {writes!r}.items():
            try:
                with open(path, "a") as f:
                    f.write("#!/bin/sh\\necho pwned\\n")
                report["writes"][name] = "written"
            except OSError as exc:
                report["writes"][name] = exc.strerror
        for path in {reads!r}:
            try:
                report["reads"].append(open(path).read())
            except OSError as exc:
                report["reads"].append(exc.strerror)
        open("work.txt", "w").write("done\\n")
        os.makedirs(os.path.expanduser("~/.cache/agent"), exist_ok=True)
        open(os.path.expanduser("~/.cache/agent/session"), "w").write("s1")
        add = subprocess.run(["git", "add", "work.txt"], capture_output=True, text=True)
        commit = subprocess.run(
            ["git", "commit", "-q", "-m", "agent work"], capture_output=True, text=True
        )
        report["git"] = [add.returncode, commit.returncode, add.stderr + commit.stderr]
        open("attempts.json", "w").write(json.dumps(report))
        json.dump({{"ok": True}}, open(sys.argv[1], "w"))
        """)
    )
    script.chmod(0o755)
    return f"{script} {{result_file}}"


def run_agent(machine: Machine, workdir: Path, *, sandbox: bool | None = None) -> dict[str, Any]:
    runtime = CommandRuntime(
        agent(machine, workdir), environ={**os.environ, "HOME": str(machine.home)}, sandbox=sandbox
    )
    result = runtime.run(implement_brief(workdir))
    assert result.status is AgentStatus.OK, result.error
    assert result.result == {"ok": True}  # its scratch files are writable inside
    attempts: dict[str, Any] = json.loads((workdir / "attempts.json").read_text())
    return attempts


def test_an_agent_commits_in_its_worktree_and_writes_nowhere_else(machine):
    before = machine.protected()
    report = run_agent(machine, machine.worktree)
    assert machine.protected() == before
    writes = report["writes"]
    # /tmp is private: a write there lands in the sandbox's own, gone with it.
    assert writes.pop("tmp") == "written"
    assert set(writes.values()) == {"Read-only file system"}, writes
    assert report["git"][:2] == [0, 0], report["git"]
    assert machine.repo.show("feature/GH-1", "work.txt") == "done"
    # Its cache was in a home of its run's own, gone with the run.
    assert not (machine.home / ".cache" / "agent").exists()


def test_the_persons_credentials_are_not_there_to_read(machine):
    report = run_agent(machine, machine.worktree)
    # ~/.ssh is an empty folder, ~/.git-credentials an empty file.
    assert report["reads"] == ["No such file or directory", ""]
    assert SECRET in (machine.home / ".ssh" / "id_rsa").read_text()


def test_unconfined_the_same_agent_changes_them_all(machine):
    """The control: what the sandbox stops is what an agent does without it."""
    before = machine.protected()
    report = run_agent(machine, machine.worktree, sandbox=False)
    after = machine.protected()
    assert set(report["writes"].values()) == {"written"}
    assert [path.name for path in before if before[path] != after[path]] == [
        "config",
        "post-checkout",
        "exclude",
        "ralph.db",
        "README.md",
        "keep.txt",
        "keep.txt",
        "id_rsa",
        ".git",
        "commondir",
    ]
    assert SECRET in report["reads"][0]


def test_an_agent_in_a_scratch_checkout_under_the_store_folder_writes_only_there(machine):
    with Worktrees(GitRepo(machine.repo.path)).scratch("research-GH-1", "main") as scratch:
        before = machine.protected()
        report = run_agent(machine, scratch)
        assert (scratch / "work.txt").read_text() == "done\n"
    assert machine.protected() == before
    assert report["writes"]["store"] == "Read-only file system"


def test_an_agent_cli_installed_with_npm_under_tmp_runs_confined(machine):
    """npm links ``node_modules/.bin/tool`` to the package's script, which loads its
    dependencies from the same ``node_modules``: all of it must be there inside, wherever
    the install lies (a checkout under /tmp, as a CI clone may be)."""
    modules = machine.tmp / "agents" / "node_modules"
    (modules / "dep").mkdir(parents=True)
    (modules / "dep" / "index.txt").write_text("from a dependency\n")
    script = modules / "tool" / "bin" / "tool.py"
    script.parent.mkdir(parents=True)
    script.write_text(
        f"#!{sys.executable}\nimport json, pathlib, sys\n"
        "dep = pathlib.Path(__file__).resolve().parents[2] / 'dep' / 'index.txt'\n"
        "json.dump({'said': dep.read_text().strip()}, open(sys.argv[1], 'w'))\n"
    )
    script.chmod(0o755)
    (modules / ".bin").mkdir()
    (modules / ".bin" / "tool").symlink_to("../tool/bin/tool.py")
    runtime = CommandRuntime(
        f"{modules / '.bin' / 'tool'} {{result_file}}",
        environ={**os.environ, "HOME": str(machine.home)},
    )
    result = runtime.run(implement_brief(machine.worktree))
    assert result.status is AgentStatus.OK, result.error
    assert result.result == {"said": "from a dependency"}
