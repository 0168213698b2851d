"""``ralph doctor`` says which agent CLIs it found, in which versions, where, and which
phases ralph.toml gives each: information, never a failure."""

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
    ralph_cli("init")
    config = tmp_path / "sample" / "ralph.toml"
    config.write_text(config.read_text() + '\n[agent.phases.implement]\npreset = "codex"\n')
    return tmp_path / "sample"


def agent_lines(out: str) -> list[str]:
    return [line for line in out.splitlines() if line.startswith("· agent ")]


def test_doctor_names_each_agent_cli_with_its_version_and_the_phases_it_runs(
    ralph_cli, sample, agent_bin, monkeypatch
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
    ralph_cli, sample, tmp_path, monkeypatch
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
