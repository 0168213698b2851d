"""The agent CLIs known by name: each one's command line, with the narrowest
permissions of its own that let the phase work, and where Ralph finds it; and a runtime
per phase when ralph.toml chooses agents per phase."""

from __future__ import annotations

import dataclasses
import json
import subprocess
from pathlib import Path

import pytest

from ralph._agents import AGENT_CLIS, OUTPUT_FORMATS, is_command_preset
from ralph.config import AgentSettings, PhaseSettings
from ralph.errors import ConfigError
from ralph.runtimes import AgentBrief, IssueContext, PhaseAgents, open_agents
from ralph.runtimes.command import CommandRuntime
from ralph.runtimes.command._live import LIVE_READERS
from ralph.runtimes.command._parsers import PARSERS
from ralph.runtimes.command._presets import PRESETS, find_program
from ralph.runtimes.scripted import ScriptedRuntime


def brief(workdir: Path, *tools: str, phase: str = "research") -> AgentBrief:
    return AgentBrief(
        phase=phase,
        role="analyst",
        issues=(IssueContext(number=1, title="t", body="b"),),
        instructions="Do it.",
        workdir=workdir,
        tools=tools or ("Read", "Write"),
    )


def test_every_agent_cli_the_command_runtime_runs_has_a_preset_and_no_other_has():
    assert list(PRESETS) == [cli.name for cli in AGENT_CLIS if is_command_preset(cli.name)]
    assert all(PRESETS[name].output == name for name in PRESETS)


def test_every_output_format_has_a_parser_and_a_live_reader():
    assert set(PARSERS) == set(LIVE_READERS) == set(OUTPUT_FORMATS)


def test_codex_runs_in_its_workspace_write_sandbox_or_in_ralphs_alone(tmp_path):
    codex = PRESETS["codex"]
    words = codex.words(brief(tmp_path))
    assert words[:3] == ["codex", "exec", "--json"]
    assert words[-1] == "-"  # the prompt on standard input
    assert words[3:5] == ["--config", "approval_policy=never"]
    assert "--sandbox workspace-write" in " ".join(words)
    assert "--model={model}" in words
    # Where Codex's sandbox cannot start (inside Ralph's, as root), Ralph's is the one.
    outside = " ".join(codex.words(brief(tmp_path), own_sandbox=False))
    assert "--sandbox danger-full-access" in outside
    assert "workspace-write" not in outside


def test_codex_in_a_worktree_may_write_what_a_commit_there_writes(tmp_path):
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    subprocess.run(
        [
            "git",
            "-C",
            str(repo),
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "commit",
            "-q",
            "--allow-empty",
            "-m",
            "first",
        ],
        check=True,
    )
    tree = tmp_path / "GH-1"
    subprocess.run(
        ["git", "-C", str(repo), "worktree", "add", "-q", "-b", "feature/GH-1", str(tree)],
        check=True,
    )
    codex = PRESETS["codex"]
    shell = codex.words(brief(tree, "Read", "Bash"))
    added = [shell[i + 1] for i, word in enumerate(shell) if word == "--add-dir"]
    git_dir = (repo / ".git").resolve()
    assert str(git_dir / "objects") in added
    assert str(git_dir / "refs" / "heads" / "feature") in added
    assert not any(a == str(git_dir) or a.endswith("hooks") for a in added)
    assert "--add-dir" not in codex.words(brief(tree))  # no shell, no commit
    assert "--add-dir" not in codex.words(brief(tree, "Bash"), own_sandbox=False)


def test_gemini_edits_without_asking_and_gets_its_shell_only_with_bash(tmp_path):
    gemini = PRESETS["gemini"]
    words = " ".join(gemini.words(brief(tmp_path)))
    assert "--output-format stream-json --approval-mode auto_edit --skip-trust" in words
    assert "run_shell_command" not in words
    assert "--allowed-tools run_shell_command" in " ".join(gemini.words(brief(tmp_path, "Bash")))
    assert gemini.words(brief(tmp_path))[-2] == "--prompt"  # headless; the task on stdin


def test_opencode_permissions_allow_edits_and_the_shell_only_with_bash(tmp_path):
    opencode = PRESETS["opencode"]
    assert opencode.words(brief(tmp_path))[:4] == ["opencode", "run", "--format", "json"]
    without = json.loads(opencode.environment(brief(tmp_path))["OPENCODE_PERMISSION"])
    assert without == {
        "edit": "allow",
        "bash": "deny",
        "webfetch": "deny",
        "websearch": "deny",
        "external_directory": "deny",
    }
    shell = json.loads(opencode.environment(brief(tmp_path, "Bash"))["OPENCODE_PERMISSION"])
    assert shell == {**without, "bash": "allow"}


def executable(folder: Path, name: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    program = folder / name
    program.write_text("#!/bin/sh\nexit 0\n")
    program.chmod(0o755)
    return program


def test_a_cli_is_found_on_the_path_or_in_the_projects_node_modules(tmp_path):
    project = tmp_path / "project"
    local = executable(project / "node_modules" / ".bin", "gemini")
    empty = {"PATH": str(tmp_path / "nowhere")}
    assert find_program("gemini", environ=empty, roots=(project,)) == local
    on_path = executable(tmp_path / "bin", "gemini")
    assert (
        find_program("gemini", environ={"PATH": str(on_path.parent)}, roots=(project,)) == on_path
    )
    assert find_program("gemini", environ=empty) is None


def test_a_missing_cli_is_one_line_saying_how_to_install_it(tmp_path):
    with pytest.raises(ConfigError) as error:
        CommandRuntime.preset("codex", environ={"PATH": str(tmp_path)})
    assert str(error.value) == (
        "the codex agent needs the Codex CLI (codex): npm install -g @openai/codex, or "
        "npm install @openai/codex in the project"
    )


def test_a_preset_runtime_is_named_for_its_cli(tmp_path):
    program = executable(tmp_path / "bin", "opencode")
    runtime = CommandRuntime.preset("opencode", environ={"PATH": str(program.parent)})
    assert (runtime.name, runtime.description, runtime.output) == (
        "opencode",
        "opencode",
        "opencode",
    )
    assert runtime.words[0] == str(program)


def test_agents_per_phase_make_one_runtime_that_runs_each_phase_on_its_own(tmp_path):
    executable(tmp_path / "bin", "codex")
    settings = AgentSettings(
        runtime="scripted", phases={"implement": PhaseSettings(preset="codex")}
    )
    runtime = open_agents(settings, environ={"PATH": str(tmp_path / "bin")})
    assert isinstance(runtime, PhaseAgents)
    assert isinstance(runtime.runtime_for("research"), ScriptedRuntime)
    assert isinstance(runtime.runtime_for("implement"), CommandRuntime)
    assert runtime.describe("implement") == "Codex"
    assert runtime.describe("research") == "simulated agent (scripted)"
    assert runtime.description == "simulated agent (scripted); implement: Codex"
    # The same agent for every phase is just that agent.
    assert isinstance(open_agents(AgentSettings(runtime="scripted")), ScriptedRuntime)


def test_fallback_agents_are_opened_up_front_and_run_the_briefs_that_name_them(tmp_path):
    executable(tmp_path / "bin", "codex")
    settings = AgentSettings(runtime="scripted", fallback_agents=("codex:o3",))
    runtime = open_agents(settings, environ={"PATH": str(tmp_path / "bin")})
    assert isinstance(runtime, PhaseAgents)
    assert isinstance(runtime.runtime_for("research"), ScriptedRuntime)
    assert isinstance(runtime.named["codex"], CommandRuntime)
    assert (runtime.runs_agent("codex"), runtime.runs_agent("gemini")) == (True, False)
    # One agent for every phase runs no other.
    assert not open_agents(AgentSettings(runtime="scripted")).runs_agent("codex")
    # A brief on the fallback is confined as that agent is, not as the phase's own.
    codex = runtime.named["codex"]
    assert runtime.agent_sandboxed("research", "codex") == codex.sandboxed("research")
    assert runtime.agent_sandboxed("research", "") is False  # the scripted agents'

    with pytest.raises(ConfigError, match="the gemini agent needs the Gemini CLI"):
        open_agents(
            AgentSettings(runtime="scripted", fallback_agents=("gemini",)),
            environ={"PATH": str(tmp_path / "bin")},
        )


def test_agents_per_phase_need_every_chosen_cli_before_any_phase_runs(tmp_path):
    settings = AgentSettings(runtime="scripted", roles={"builder": PhaseSettings(preset="gemini")})
    with pytest.raises(ConfigError, match="the gemini agent needs the Gemini CLI"):
        open_agents(settings, environ={"PATH": str(tmp_path)})


def test_codex_is_sent_no_tool_its_phases_do_not_use_and_searches_the_web_only_if_allowed(
    tmp_path,
):
    codex = PRESETS["codex"]
    words = " ".join(codex.words(brief(tmp_path)))
    for off in ("features.view_image=false", "features.goals=false", "skills."):
        assert off in words
    assert 'web_search="disabled"' in words
    web = dataclasses.replace(brief(tmp_path, "Read", "Write", "WebSearch"), web=True)
    allowed = " ".join(codex.words(web))
    assert 'web_search="live"' in allowed
    assert 'web_search="disabled"' not in allowed


def test_opencode_reads_no_config_from_the_worktree_an_agent_writes(tmp_path):
    environment = PRESETS["opencode"].environment(brief(tmp_path))
    assert environment["OPENCODE_DISABLE_PROJECT_CONFIG"] == "1"
