"""``ralph run PHASE N`` and ``ralph approve N`` in an initialised project: what a person
types to move an epic from Backlog to Done with the scripted agent."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from ralph.demo import EPIC_BODY, create_sample_repository
from ralph.demo._sample import FAREWELL

from ..conftest import GitProject, ralph_process


@pytest.fixture
def ralph(ralph_cli, tmp_path, monkeypatch):
    repo = GitProject(create_sample_repository(tmp_path / "sample"))
    monkeypatch.chdir(repo.path)
    monkeypatch.setenv("RALPH_TEST_COMMAND", f"{sys.executable} -m unittest -q")
    assert ralph_cli("init")[0] == 0
    return ralph_cli


def test_ralph_run_takes_an_epic_from_backlog_to_done(ralph):
    code, _, err = ralph("issue", "new", "Say goodbye", "--body", EPIC_BODY, "--estimate", "M")
    assert code == 0, err
    code, out, _ = ralph("run", "triage", "1")
    assert code == 0
    assert "triage #1 — simulated agent (scripted)" in out
    assert "Triaged #1: SPLIT." in out
    code, out, _ = ralph("run", "split", "1")
    assert "Split #1 into 3 sub-issues; it stays the epic." in out
    for child in ("2", "3", "4"):
        code, out, _ = ralph("run", "research", child)
        assert code == 0, out
        assert "Status: Ready for Plan." in out
    code, out, _ = ralph("run", "plan", "3")
    assert "Plan complete for 3 issue(s)" in out
    code, out, _ = ralph("approve", "2")
    assert "Approved the plan for #2, #3, #4: In Progress." in out
    for phase in ("implement", "pr", "merge"):
        code, out, err = ralph("run", phase, "2")
        assert code == 0, (phase, out, err)
    assert "Merged pull request #5 into main" in out
    code, out, _ = ralph("issue", "list", "--json", "--all")
    assert code == 0
    code, out, _ = ralph("run", "merge", "2")
    assert "result: already_done" in out


def test_a_refused_phase_is_one_line_and_exit_2(ralph):
    ralph("issue", "new", "Small", "--state", "Backlog", "--estimate", "XS")
    code, _, err = ralph("run", "research", "1")
    assert code == 2
    assert err.strip() == ("ralph: error: research takes issues in Research Needed; #1 is Backlog")
    code, _, err = ralph("run", "deploy", "1")
    assert code == 2
    assert "unknown phase 'deploy'; phases are: triage, split, research" in err
    code, _, err = ralph("run", "reserch", "1")
    assert (code, err) == (2, "ralph: error: unknown phase 'reserch'; did you mean 'research'?\n")
    code, _, err = ralph("approve", "1")
    assert (code, err.count("\n")) == (2, 1)
    assert "#1 has no implementation plan; run ralph run plan 1 first" in err
    code, _, err = ralph("run", "research", "1", "--agent", "gpt")
    assert code == 2
    assert "unknown agent 'gpt'" in err
    code, _, err = ralph("run", "research", "1", "--agent", "scriptd")
    assert (code, err) == (2, "ralph: error: unknown agent 'scriptd'; did you mean 'scripted'?\n")


def test_an_escalated_phase_exits_1(ralph, monkeypatch):
    ralph("issue", "new", "Small", "--state", "Research Needed", "--estimate", "XS")
    monkeypatch.setenv("RALPH_SCRIPTED_FAULTS", "research=invalid-result*2")
    code, out, _ = ralph("run", "research", "1")
    assert code == 1
    assert "result: escalated" in out
    assert "Escalated #1 to Human Needed" in out


def test_the_installed_command_runs_a_phase(ralph, tmp_path):
    ralph("issue", "new", "Add a farewell", "--state", "Research Needed", "--estimate", "XS")
    done = ralph_process("run", "research", "1", "--agent", "scripted", cwd=Path.cwd())
    assert done.returncode == 0, done.stderr
    assert "Research complete for #1" in done.stdout


def planned_issue(ralph) -> str:
    body = f"Add `farewell` to the core module.\n\n{FAREWELL}\n"
    ralph("issue", "new", "Add a farewell", "--body", body, "--state", "Research Needed")
    for phase in ("research", "plan"):
        code, out, err = ralph("run", phase, "1")
        assert code == 0, out + err
    return "1"


def state_of(ralph, number: str) -> str:
    return str(json.loads(ralph("issue", "show", number, "--json")[1])["workflowState"])


def without_agent_credentials(monkeypatch, tmp_path: Path) -> None:
    """ralph.toml's agent is Claude Code, with no key and no login on this machine."""
    monkeypatch.setenv("RALPH_AGENT", "claude")
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "no-login"))


def test_pr_and_merge_call_no_model_and_ask_for_no_key(ralph, monkeypatch, tmp_path):
    number = planned_issue(ralph)
    assert ralph("approve", number)[0] == 0
    code, out, err = ralph("run", "implement", number)
    assert code == 0, out + err
    without_agent_credentials(monkeypatch, tmp_path)
    code, out, err = ralph("run", "pr", number)
    assert code == 0, out + err
    assert f"pr #{number} — no agent" in out
    assert state_of(ralph, number) == "In Review"
    code, out, err = ralph("run", "merge", number)
    assert code == 0, out + err
    assert state_of(ralph, number) == "Done"


def test_a_phase_with_an_agent_refuses_without_a_key_naming_a_login_and_the_offline_agent(
    ralph, monkeypatch, tmp_path
):
    ralph("issue", "new", "Add a farewell", "--state", "Research Needed", "--estimate", "XS")
    without_agent_credentials(monkeypatch, tmp_path)
    code, out, err = ralph("run", "research", "1")
    assert (code, out) == (2, "")
    (line,) = err.splitlines()
    assert line.startswith(
        "ralph: error: the claude agent needs an API key or a login: set ANTHROPIC_API_KEY, "
        "or log in with `"
    )
    assert "site-packages" not in line  # a command a person can type
    assert line.endswith("`; or try Ralph offline with --agent scripted")
    assert state_of(ralph, "1") == "Research Needed"


def test_run_review_leaves_the_plan_to_a_person_when_review_mode_is_interactive(ralph, monkeypatch):
    number = planned_issue(ralph)
    monkeypatch.setenv("RALPH_REVIEW_MODE", "interactive")
    code, out, err = ralph("run", "review", number)
    assert (code, out) == (2, "")
    assert err.strip() == (
        "ralph: error: review_mode is interactive: a person reviews this plan; approve it "
        "with ralph approve 1, or reject it with ralph review 1 --reject REASON "
        '(review_mode = "auto" in ralph.toml has the agent review)'
    )
    assert state_of(ralph, number) == "Plan in Review"
    code, out, _ = ralph("approve", number)
    assert code == 0
    assert out.strip().endswith(
        "Next: ralph implement 1 --interactive (by hand), or ralph run implement 1 (the agent)"
    )


def test_run_review_has_nothing_to_review_when_review_mode_is_skip(ralph, monkeypatch):
    number = planned_issue(ralph)
    monkeypatch.setenv("RALPH_REVIEW_MODE", "skip")
    code, _, err = ralph("run", "review", number)
    assert code == 2
    assert "review_mode is skip: plans go to implementation without a review; next: " in err
    assert state_of(ralph, number) == "Plan in Review"
    assert ralph("run", "implement", number)[0] == 0
