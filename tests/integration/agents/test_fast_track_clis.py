"""The XS fast track with the real Claude Code and Codex CLIs against fakes of their model
APIs: the triage agent proposes it, Ralph's guards grant it, and ``ralph hero`` goes
triage -> implement -> PR -> merge, no research, plan or review agent asked."""

from __future__ import annotations

import json
from typing import Any

import pytest

from ralph.demo._sample import FAREWELL

from ...fakes.anthropic_api import MODEL as CLAUDE_MODEL
from ..conftest import git
from ._clis import CLAUDE, CLIS
from ._models import FAREWELL_CODE, model

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]

BODY = f"Add `farewell` to the core module.\n\n{FAREWELL}\n"


def _configure(ralph: Any, monkeypatch: pytest.MonkeyPatch, env: dict[str, str], agent: str):
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    text = ralph.config.read_text().replace('runtime = "claude"\n', agent)
    if "model =" in agent:
        text = text.replace('model = ""\n', "", 1)
    ralph.config.write_text(text)


def _hero_fast_tracks(ralph: Any) -> None:
    ralph("issue", "new", "Add a farewell", "--body", BODY, "--estimate", "XS")
    code, out, err = ralph("hero", "1")
    assert code == 0, out + err
    shown = json.loads(ralph("issue", "show", "1", "--json")[1])
    assert shown["workflowState"] == "Done"
    assert git(ralph.repo.path, "show", "main:greet/core.py") + "\n" == FAREWELL_CODE
    comments = "\n".join(c["body"] for c in shown["comments"])
    assert "Fast track: XS, and the change is concrete: greet/core.py." in comments
    assert "## Implementation Plan" in comments
    assert "ralph-fast-track" in shown["labels"]
    assert "Fast track for #1: XS, and the change is concrete: greet/core.py" in out
    assert not git(
        ralph.repo.path, "ls-tree", "-r", "--name-only", "main", "thoughts/shared/research"
    )


def test_claude_code_fast_tracks_an_xs_issue_to_merged(ralph, start_api, agent_home, monkeypatch):
    api = start_api(CLAUDE, model(CLAUDE))
    env = CLAUDE.configure(agent_home, api)
    _configure(ralph, monkeypatch, env, f'runtime = "claude"\nmodel = "{CLAUDE_MODEL}"\n')
    _hero_fast_tracks(ralph)
    # One turn to triage (its result), four to implement (read, edit, commit, result).
    assert len(api.turns) == 5


@pytest.mark.usefixtures("persons_environment")
def test_claude_code_merges_in_a_project_that_ignores_no_bytecode(
    ralph, start_api, agent_home, monkeypatch
):
    # A person's project without .gitignore (only the one init wrote, for Ralph's own
    # state), in a person's environment: the agent runs the tests in its shell before it
    # commits, and Ralph runs them after it.
    ignore = ralph.repo.path / ".gitignore"
    own = [line for line in ignore.read_text().splitlines() if "__pycache__" not in line]
    git(ralph.repo.path, "rm", "-q", "--cached", ".gitignore")
    git(ralph.repo.path, "-c", "user.name=P", "-c", "user.email=p@x", "commit", "-qm", "no ignores")
    ignore.write_text("\n".join(own) + "\n")
    api = start_api(CLAUDE, model(CLAUDE, runs_tests=True))
    env = CLAUDE.configure(agent_home, api)
    _configure(ralph, monkeypatch, env, f'runtime = "claude"\nmodel = "{CLAUDE_MODEL}"\n')
    _hero_fast_tracks(ralph)
    on_main = git(ralph.repo.path, "ls-tree", "-r", "--name-only", "main").splitlines()
    assert not [name for name in on_main if "__pycache__" in name]


def test_codex_fast_tracks_an_xs_issue_to_merged(ralph, start_api, agent_env, monkeypatch):
    codex = CLIS["codex"]
    api = start_api(codex, model(codex))
    _configure(ralph, monkeypatch, agent_env(codex, api), 'preset = "codex"\n')
    _hero_fast_tracks(ralph)
    # One turn to triage (its result), three to implement (edit, commit, result).
    assert len(api.turns) == 4
