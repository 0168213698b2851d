"""``ralph doctor`` says which agent CLIs it found, in which versions, where, and which
phases ralph.toml gives each (information, never a failure); and whether each agent a
run would use has a key or a login, failing when one has neither."""

from __future__ import annotations

import os
import shutil

import pytest

from ralph.demo import create_sample_repository
from ralph.sandbox import probe

from ...agents.install import versions


@pytest.fixture
def sample(ralph_cli, tmp_path, monkeypatch):
    monkeypatch.chdir(create_sample_repository(tmp_path / "sample"))
    monkeypatch.delenv("RALPH_AGENT")  # ralph.toml chooses the agents
    # No login on this machine counts: the agents' folders are the test's own.
    for variable, folder in LOGIN_FOLDERS.items():
        monkeypatch.setenv(variable, str(tmp_path / folder))
    ralph_cli("init")
    config = tmp_path / "sample" / "ralph.toml"
    config.write_text(config.read_text() + '\n[agent.phases.implement]\npreset = "codex"\n')
    return tmp_path / "sample"


#: Where Claude Code and Codex keep their logins, by the variable that moves the folder.
LOGIN_FOLDERS = {"CLAUDE_CONFIG_DIR": "claude", "CODEX_HOME": "codex"}


@pytest.fixture
def keys(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")


def agent_lines(out: str) -> list[str]:
    return [line for line in out.splitlines() if line.startswith("· agent ")]


def test_doctor_names_each_agent_cli_with_its_version_and_the_phases_it_runs(
    ralph_cli, sample, keys, agent_bin, monkeypatch
):
    monkeypatch.setenv("PATH", f"{agent_bin}{os.pathsep}{os.environ['PATH']}")
    code, out, _ = ralph_cli("doctor")
    assert code == (0 if probe().available else 1)  # the sandbox decides, not the CLIs
    lines = agent_lines(out)
    assert [line.split(":")[0] for line in lines] == [
        "· agent claude",
        "· agent codex",
        "· agent gemini",
        "· agent opencode",
    ]
    installed = versions()
    assert (
        f"· agent codex: Codex {installed['codex']} ({agent_bin}/codex); ralph.toml: implement"
        in lines
    )
    assert f"· agent gemini: Gemini CLI {installed['gemini']} ({agent_bin}/gemini)" in lines
    assert lines[0].endswith(
        "ralph.toml: triage, split, research, plan, review, code_review, address"
    )


def test_doctor_says_how_to_install_a_cli_it_does_not_find_and_still_passes(
    ralph_cli, sample, keys, tmp_path, monkeypatch
):
    bin_dir = tmp_path / "bin"  # git and the sandbox stay; no agent CLI
    bin_dir.mkdir()
    for tool in ("git", "bwrap"):
        found = shutil.which(tool)
        if found:
            (bin_dir / tool).symlink_to(found)
    monkeypatch.setenv("PATH", str(bin_dir))
    code, out, _ = ralph_cli("doctor")
    lines = agent_lines(out)
    assert "· agent codex: not found (npm install -g @openai/codex); ralph.toml: implement" in lines
    assert "· agent opencode: not found (npm install -g opencode-ai)" in lines
    assert code == (0 if probe().available else 1)  # a missing CLI fails nothing


PASSES = 0 if probe().available else 1  # the sandbox's line decides the rest


def credential_lines(out: str) -> list[str]:
    return [
        line for line in out.splitlines() if line.startswith(("✓ agent ", "✗ agent ", "! agent "))
    ]


def test_doctor_fails_for_each_agent_without_a_key_or_login_and_says_what_to_do(ralph_cli, sample):
    code, out, _ = ralph_cli("doctor")
    assert code == 1
    claude, codex = credential_lines(out)
    assert claude.startswith(
        "✗ agent claude (triage, split, research, plan, review, code_review, address): no key "
        "or login; set ANTHROPIC_API_KEY, or log in with `"
    )
    assert "site-packages" not in claude  # a command a person can type
    assert claude.endswith("`; or try Ralph offline with --agent scripted")
    assert codex == (
        "✗ agent codex (implement): no key or login; set OPENAI_API_KEY or CODEX_API_KEY, "
        "or log in with `codex login`; or try Ralph offline with --agent scripted"
    )
    assert "✓ tracker: local" in out  # the other checks still ran


def test_doctor_takes_a_login_as_well_as_a_key(ralph_cli, sample, tmp_path, monkeypatch):
    claude_login = tmp_path / "claude" / ".credentials.json"
    claude_login.parent.mkdir()
    claude_login.write_text("{}")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    code, out, _ = ralph_cli("doctor")
    assert code == PASSES
    assert credential_lines(out) == [
        f"✓ agent claude: logged in ({claude_login})",
        "✓ agent codex: OPENAI_API_KEY",
    ]


def test_doctor_with_the_scripted_agent_needs_no_credentials(ralph_cli, sample):
    code, out, _ = ralph_cli("doctor", "--agent", "scripted")
    assert code == PASSES
    assert credential_lines(out) == ["✓ agent scripted: simulated, needs none"]
    code, _, err = ralph_cli("doctor", "--agent", "gpt")
    assert code == 2
    assert err.strip() == (
        "ralph: error: --agent 'gpt' is unknown; use one of: claude, codex, gemini, opencode, "
        "command, scripted"
    )


def test_doctor_checks_the_fallback_agents_too(ralph_cli, sample, keys, agent_bin, monkeypatch):
    monkeypatch.setenv("PATH", f"{agent_bin}{os.pathsep}{os.environ['PATH']}")
    config = sample / "ralph.toml"
    config.write_text(
        config.read_text().replace("fallback_agents = []", 'fallback_agents = ["gemini"]', 1)
    )
    code, out, _ = ralph_cli("doctor")
    assert code == 1
    installed = versions()
    assert (
        f"· agent gemini: Gemini CLI {installed['gemini']} ({agent_bin}/gemini); ralph.toml: "
        "fallback for triage, split, research, plan, review, implement, code_review, address"
    ) in agent_lines(out)
    gemini = next(line for line in credential_lines(out) if "agent gemini" in line)
    assert gemini.startswith("✗ agent gemini (triage, split, research, plan, review, implement")
    assert "no key or login; set GEMINI_API_KEY" in gemini
