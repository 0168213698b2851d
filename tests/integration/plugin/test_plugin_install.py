"""``ralph plugin install`` and ``ralph plugin check`` with the real Claude Code CLI,
offline, in a scratch home: the plugin installs from the marketplace Ralph writes, and a
Claude Code started with a PATH that has no ``ralph`` still reaches this one from the
plugin's hooks, MCP server and skills."""

from __future__ import annotations

import json
import re
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

import ralph
from ralph.plugin import PLUGIN_ID, check_plugin, install_plugin
from tests.bytecode import bytecode_folder

from ...fakes.anthropic_api import FakeAnthropicAPI, Request, Script, Step, Text, ToolUse
from ..conftest import RALPH, GitProject, RalphCli, ralph_process
from .test_claude_code_plugin import (
    PATIENT_MCP,
    TOOL_PREFIX,
    _claude,
    as_a_model_would,
    text_of,
    tool_results,
)

pytestmark = pytest.mark.slow

#: A PATH with the system's tools and neither ``ralph`` nor ``claude``.
BARE_PATH = "/usr/bin:/bin"


@pytest.fixture
def home(tmp_path: Path) -> Path:
    _claude()  # skips without the bundled CLI
    folder = tmp_path / "home"
    folder.mkdir()
    return folder


def claude_environment(home: Path, path: str = BARE_PATH) -> dict[str, str]:
    """A person's bare environment, but for where the suite keeps its bytecode: the
    ``ralph`` processes Claude Code starts (its hooks, the plugin's MCP server, skills'
    Bash calls) would write theirs beside the checkout's sources. A person's keep
    Python's default, beside the installed package."""
    return {
        "HOME": str(home),
        "CLAUDE_CONFIG_DIR": str(home / ".claude"),
        "XDG_DATA_HOME": str(home / "data"),
        "PATH": path,
        "DISABLE_AUTOUPDATER": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "PYTHONPYCACHEPREFIX": str(bytecode_folder()),
    }


def bytecode_beside_ralph(since: float) -> list[Path]:
    """The compiled modules written beside Ralph's sources from ``since`` on."""
    package = Path(ralph.__file__).parent
    return [p for p in package.rglob("*.pyc") if p.stat().st_mtime >= since]


def claude_plugins(home: Path) -> list[dict[str, Any]]:
    done = subprocess.run(
        [str(_claude()), "plugin", "list", "--json"],
        env=claude_environment(home),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    listed: list[dict[str, Any]] = json.loads(done.stdout)
    return listed


def fake_ralph(folder: Path, version: str) -> Path:
    folder.mkdir(parents=True)
    script = folder / "ralph"
    script.write_text(f'#!/bin/sh\n[ "$1" = --version ] && echo "ralph {version}"\n')
    script.chmod(0o755)
    return script


def test_install_adds_the_packaged_marketplace_and_the_plugin_running_this_ralph(home):
    done = ralph_process("plugin", "install", cwd=home, env=claude_environment(home))
    assert done.returncode == 0, done.stderr
    assert f"Claude Code has {PLUGIN_ID} {ralph.__version__} (scope user)" in done.stdout
    (plugin,) = claude_plugins(home)
    assert (plugin["id"], plugin["enabled"], plugin["scope"]) == (PLUGIN_ID, True, "user")
    assert plugin["version"] == ralph.__version__
    folder = Path(plugin["readFromFolder"])
    assert folder == home / "data" / "ralph" / "claude-marketplace" / "ralph-hero"
    assert (folder / "bin" / "ralph-path").read_text() == f"{RALPH}\n"
    # Again, as after an upgrade: the same one plugin, nothing added.
    again = ralph_process("plugin", "install", cwd=home, env=claude_environment(home))
    assert again.returncode == 0, again.stderr
    assert [p["id"] for p in claude_plugins(home)] == [PLUGIN_ID]


def test_install_in_project_scope_records_it_in_the_projects_settings(home, tmp_path):
    project = GitProject(tmp_path / "project").path
    done = ralph_process(
        "plugin", "install", "--scope", "project", cwd=project, env=claude_environment(home)
    )
    assert done.returncode == 0, done.stderr
    settings = json.loads((project / ".claude" / "settings.json").read_text())
    assert settings["enabledPlugins"] == {PLUGIN_ID: True}


def test_check_names_the_plugin_and_the_ralph_its_hooks_run_with_its_version(home):
    recorded = fake_ralph(home / "venv" / "bin", "9.9.9")
    environ = claude_environment(home)
    install_plugin(ralph=recorded, environ=environ)
    checks = check_plugin(environ)
    assert all(c.ok for c in checks), checks
    lines = [c.line for c in checks]
    assert lines[0].startswith("Claude Code 2.")
    assert lines[1].startswith(f"plugin {PLUGIN_ID} {ralph.__version__} (scope user, ")
    assert lines[1].endswith("): enabled")
    assert lines[2] == (
        f"hooks and MCP server run {recorded} (recorded by ralph plugin install): ralph 9.9.9"
    )


def test_check_fails_with_the_fix_for_a_disabled_plugin_and_a_ralph_gone(home):
    recorded = fake_ralph(home / "venv" / "bin", "9.9.9")
    environ = claude_environment(home)
    install_plugin(ralph=recorded, environ=environ)
    subprocess.run(
        [str(_claude()), "plugin", "disable", PLUGIN_ID],
        env=environ,
        capture_output=True,
        timeout=60,
        check=True,
    )
    recorded.unlink()
    _, enabled, reach = check_plugin(environ)
    assert (enabled.ok, enabled.fix) == (False, f"run: claude plugin enable {PLUGIN_ID}")
    assert not reach.ok
    assert f"cannot find ralph: not at {recorded}" in reach.line
    assert reach.fix == "run: ralph plugin install"


def test_check_fails_for_a_ralph_that_cannot_say_its_version(home):
    broken = home / "venv" / "bin" / "ralph"
    broken.parent.mkdir(parents=True)
    broken.write_text(
        "#!/bin/sh\necho '╭─ Error ─╮' >&2\necho '│ No such option: --version │' >&2\nexit 2\n"
    )
    broken.chmod(0o755)
    environ = claude_environment(home)
    install_plugin(ralph=broken, environ=environ)
    *_, reach = check_plugin(environ)
    assert not reach.ok
    assert reach.line.endswith("its --version fails: No such option: --version")
    assert reach.fix == "install Ralph again, then run: ralph plugin install"


def test_check_without_the_plugin_exits_1_with_the_fix(home):
    done = ralph_process("plugin", "check", cwd=home, env=claude_environment(home))
    assert done.returncode == 1
    assert "✗ plugin ralph-hero: not installed\n  fix: run: ralph plugin install" in done.stdout


def test_without_claude_code_install_says_so_in_one_line_and_writes_nothing(
    home, monkeypatch: pytest.MonkeyPatch, ralph_cli: RalphCli
):
    import ralph.runtimes

    monkeypatch.setattr(ralph.runtimes, "claude_cli", lambda environ=None: None)
    for name, value in claude_environment(home).items():
        monkeypatch.setenv(name, value)
    code, out, err = ralph_cli("plugin", "install")
    assert (code, out) == (2, "")
    assert err.startswith("ralph: error: Claude Code is not installed: install it")
    assert len(err.splitlines()) == 1
    assert not (home / "data").exists()
    code, out, _ = ralph_cli("plugin", "check")
    assert code == 1
    assert out.startswith("✗ Claude Code: not found\n  fix: Claude Code is not installed")


# -- a session of the real CLI, started without ralph on its PATH -----------------------


def session(
    project: Path, home: Path, prompt: str, script: Script, **settings: str
) -> list[dict[str, Any]]:
    """One ``claude -p`` with the installed plugin (no --plugin-dir), PATH without ralph."""
    with FakeAnthropicAPI(script) as api:
        env = {**claude_environment(home), **api.environment(str(home)), **PATIENT_MCP}
        env.update(settings)
        done = subprocess.run(
            [
                str(_claude()),
                "-p",
                prompt,
                "--output-format",
                "stream-json",
                "--verbose",
                "--model",
                "claude-sonnet-4-5",
                "--allowedTools",
                "Bash",
                "Write",
                TOOL_PREFIX.rstrip("_"),
            ],
            cwd=project,
            env=env,
            capture_output=True,
            text=True,
            timeout=180,
            stdin=subprocess.DEVNULL,
            check=False,
        )
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines() if line.strip()]


def test_hooks_mcp_and_skills_reach_ralph_though_claude_code_was_started_without_it(home, tmp_path):
    project = GitProject(tmp_path / "project").path
    for args in (["init"], ["issue", "new", "Add a farewell", "--state", "Research Needed"]):
        assert ralph_process(*args, cwd=project).returncode == 0
    assert (
        ralph_process("plugin", "install", cwd=home, env=claude_environment(home)).returncode == 0
    )
    outside = project / "src" / "stray.py"
    script: list[Step] = [
        ToolUse("Bash", {"command": "command -v ralph; ralph status", "description": "s"}),
        ToolUse(f"{TOOL_PREFIX}ralph_hero__get_issue", {"number": 1}),
        ToolUse("Bash", {"command": "ralph hook context set implement 1", "description": "g"}),
        ToolUse("Write", {"file_path": str(outside), "content": "print('hi')\n"}),
        Text("Done."),
    ]
    started = time.time() - 1  # a file system's times may be coarser than the clock's
    frames = session(project, home, "Check the pipeline.", as_a_model_would(script))
    assert bytecode_beside_ralph(started) == []  # hooks, MCP server, skills: none in the tree
    status, issue, gate, write = tool_results(frames)
    # The skills' Bash calls: the plugin's bin/ is on the Bash tool's PATH.
    assert not status.get("is_error"), text_of(status)
    assert "/claude-marketplace/ralph-hero/bin/ralph\n" in text_of(status)
    assert "Research Needed" in text_of(status)
    # The MCP server.
    assert not issue.get("is_error"), text_of(issue)
    assert json.loads(text_of(issue))["workflowState"] == "Research Needed"
    # The PreToolUse hook, after the gate was set.
    assert not gate.get("is_error"), text_of(gate)
    assert write.get("is_error")
    assert "only inside the issue's worktree (worktrees/GH-1/)" in text_of(write)
    assert not outside.exists()


def test_the_hero_skill_starts_its_run_in_the_background_and_follows_it_to_its_end(home, tmp_path):
    project = GitProject(tmp_path / "project").path
    # A ```diff the simulated builder cannot apply: the run ends waiting for a person.
    stale = "```diff\n--- a/gone.py\n+++ b/gone.py\n@@ -1 +1 @@\n-old\n+new\n```\n"
    for args in (["init"], ["issue", "new", "Say hi", "-e", "XS", "--body", stale]):
        assert ralph_process(*args, cwd=project).returncode == 0
    assert (
        ralph_process("plugin", "install", cwd=home, env=claude_environment(home)).returncode == 0
    )

    def model(request: Request, turn: int) -> Step:
        """What the skill tells a model to do: start, then follow until not active."""
        said = "\n".join(request.texts())
        started = re.search(r"Run (\d+) \(hero #1\) runs in the background", said)
        if started is None:
            return ToolUse("Bash", {"command": "ralph hero 1 --background", "description": "go"})
        statuses = re.findall(r'^  "status": "(\w+)"', said, re.MULTILINE)
        if turn < 60 and (not statuses or statuses[-1] == "active"):
            follow = f"sleep 1; ralph runs show {started[1]} --json"
            return ToolUse("Bash", {"command": follow, "description": "follow"})
        return Text(f"Run {started[1]}: {statuses[-1] if statuses else 'unknown'}.")

    frames = session(project, home, "/ralph-hero:ralph-hero 1", model, RALPH_AGENT="scripted")
    start, *follows = tool_results(frames)
    assert not start.get("is_error"), text_of(start)
    run = re.search(r"Run (\d+) \(hero #1\)", text_of(start))
    assert run is not None
    assert frames[-1]["result"] == f"Run {run[1]}: finished."
    last = text_of(follows[-1])
    assert '"needsPerson": [\n      "Implement GH-1: #1 needs a person' in last
