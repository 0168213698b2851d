"""``ralph prompts show`` prints the prompt a phase's agent gets in this project;
``ralph doctor`` lists the project's overrides; a malformed one stops ``ralph run``
before it starts, in one line."""

from __future__ import annotations

import pytest

from ralph.demo import create_sample_repository

from ..conftest import GitProject


@pytest.fixture
def project(tmp_path, monkeypatch, ralph_cli):
    repo = GitProject(create_sample_repository(tmp_path / "sample"))
    monkeypatch.chdir(repo.path)
    assert ralph_cli("init")[0] == 0
    assert ralph_cli("issue", "new", "Add farewell", "--state", "Research Needed")[0] == 0
    (repo.path / ".ralph" / "prompts").mkdir(parents=True)
    return repo


def test_show_prints_the_packaged_prompt_filled_in_for_an_issue(ralph_cli, project):
    code, out, err = ralph_cli("prompts", "show", "research", "1")
    assert code == 0, err
    assert out.startswith("# Research issue #1\n")
    assert "`$document` (and nowhere else)" in out  # only a run decides the path


def test_show_prints_the_project_s_override_around_the_packaged_prompt(ralph_cli, project):
    (project.path / ".ralph" / "prompts" / "plan.md").write_text("Mind ADR-7.\n$packaged")
    code, out, _ = ralph_cli("prompts", "show", "plan")
    assert code == 0
    assert out.startswith("Mind ADR-7.\n# Plan ")
    assert "python3 -m unittest" in out  # the test command is the project's


def test_a_malformed_override_is_one_line_for_show_doctor_and_run(ralph_cli, project):
    bad = project.path / ".ralph" / "prompts" / "research.md"
    bad.write_text("Write ${documnet}.\n")
    line = f"{bad}:1: unknown variable $documnet; the research prompt has $issue"
    code, out, err = ralph_cli("prompts", "show", "research", "1")
    assert (code, out) == (2, "")
    assert err.startswith(f"ralph: error: {line}")
    assert err.count("\n") == 1
    code, out, _ = ralph_cli("doctor")
    assert code == 1
    assert f"✗ prompt: {line}" in out
    code, out, err = ralph_cli("run", "triage", "1")
    assert code == 2
    assert err.startswith(f"ralph: error: {line}")
    assert "Moved" not in out
    bad.write_text("Write $document.\n")
    code, out, _ = ralph_cli("doctor")
    assert "✓ prompt: .ralph/prompts/research.md" in out


def test_phases_without_an_agent_have_no_prompt(ralph_cli, project):
    code, _, err = ralph_cli("prompts", "show", "merge")
    assert code == 2
    assert "merge runs no agent, so it has no prompt; phases with one: triage" in err
