"""``[agent] preset = "codex"`` (or gemini, opencode): ``ralph run`` does research and
implementation with the real CLI, its fake model calling the CLI's own tools, and
Ralph's phase runner reading the result back, committing, moving the issue; and one
``ralph hero`` run with Claude Code researching and planning and Codex implementing."""

from __future__ import annotations

import json
from typing import Any

import pytest

from ralph.demo._sample import FAREWELL
from ralph.sandbox import probe

from ...fakes.anthropic_api import MODEL as CLAUDE_MODEL
from ..conftest import git
from ._clis import CLAUDE, CLIS
from ._models import FAREWELL_CODE, model

#: Real CLIs start slowly on a busy machine (opencode: tens of seconds); still bounded.
pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]

TITLES = {"codex": "Codex", "gemini": "Gemini CLI", "opencode": "opencode"}
BODY = f"Add `farewell` to the core module.\n\n{FAREWELL}\n"


def use(ralph, monkeypatch, environment: dict[str, str], agent: str, tables: str = "") -> None:
    """The agents' environment; ``agent`` (TOML) in place of ``runtime`` and ``tables``
    at the end of ralph.toml."""
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    text = ralph.config.read_text().replace('runtime = "claude"\n', agent)
    if "model =" in agent:
        text = text.replace('model = ""\n', "", 1)
    ralph.config.write_text(text + tables)


def claude_on_farewell(ralph, monkeypatch, environment: dict[str, str]) -> None:
    """Claude Code (on its fake, by ``environment``) for every phase, and the farewell
    filed as issue 1: XS, in Research Needed."""
    use(ralph, monkeypatch, environment, f'runtime = "claude"\nmodel = "{CLAUDE_MODEL}"\n')
    ralph(
        "issue",
        "new",
        "Add a farewell",
        "--body",
        BODY,
        "--state",
        "Research Needed",
        "--estimate",
        "XS",
    )


def show(ralph, number: int) -> dict[str, Any]:
    shown: dict[str, Any] = json.loads(ralph("issue", "show", str(number), "--json")[1])
    return shown


def test_research_with_the_cli_commits_the_document_and_moves_the_issue(
    ralph, cli, start_api, agent_env, monkeypatch
):
    api = start_api(cli, model(cli))
    use(ralph, monkeypatch, agent_env(cli, api), f'preset = "{cli.name}"\n')
    ralph("issue", "new", "Add a farewell", "--state", "Research Needed", "--estimate", "XS")
    code, out, err = ralph("run", "research", "1")
    assert code == 0, out + err
    assert f"research #1 — {TITLES[cli.name]}" in out
    assert "Research complete for #1" in out
    assert "result: done" in out
    shown = show(ralph, 1)
    assert shown["workflowState"] == "Ready for Plan"
    committed = git(ralph.repo.path, "log", "--name-only", "--format=%s", "main", "-1")
    assert "docs(research): GH-1 research findings" in committed
    assert "thoughts/shared/research/2026-" in committed
    assert len(api.turns) == 2  # the write, then the result


def test_implementation_with_the_cli_edits_commits_and_passes_ralphs_checks(
    ralph, cli, start_api, agent_env, monkeypatch
):
    api = start_api(cli, model(cli))
    use(ralph, monkeypatch, agent_env(cli, api), f'preset = "{cli.name}"\n')
    ralph(
        "issue",
        "new",
        "Add a farewell",
        "--body",
        BODY,
        "--state",
        "Research Needed",
        "--estimate",
        "XS",
    )
    for phase in ("research", "plan", "review"):
        code, out, err = ralph("run", phase, "1", "--agent", "scripted")
        assert code == 0, out + err
    assert show(ralph, 1)["workflowState"] == "In Progress"
    code, out, err = ralph("run", "implement", "1")
    assert code == 0, out + err
    assert f"implement #1 — {TITLES[cli.name]}" in out
    assert "result: done" in out
    branch = "feature/GH-1"
    assert git(ralph.repo.path, "show", f"{branch}:greet/core.py") + "\n" == FAREWELL_CODE
    log = git(ralph.repo.path, "log", "--format=%s%n%b", f"main..{branch}")
    assert "feat(core): farewell" in log
    assert "Phase 1 of 1: #1 - farewell" in log
    # The edit went through the CLI's edit tool, the commit through its shell.
    assert len(api.turns) == 3


def test_one_run_researches_with_claude_and_implements_with_codex(
    ralph, start_api, agent_env, agent_home, monkeypatch
):
    codex = CLIS["codex"]
    claude_api = start_api(CLAUDE, model(CLAUDE))
    codex_api = start_api(codex, model(codex))
    environment = {**CLAUDE.configure(agent_home, claude_api), **agent_env(codex, codex_api)}
    use(
        ralph,
        monkeypatch,
        environment,
        f'runtime = "claude"\nmodel = "{CLAUDE_MODEL}"\n',
        '\n[agent.phases.implement]\npreset = "codex"\n',
    )
    ralph(
        "issue",
        "new",
        "Add a farewell",
        "--body",
        BODY,
        "--state",
        "Research Needed",
        "--estimate",
        "XS",
    )
    code, out, err = ralph("hero", "1")
    assert code == 0, out + err
    assert "Claude Code; implement: Codex" in out
    assert show(ralph, 1)["workflowState"] == "Done"
    assert git(ralph.repo.path, "show", "main:greet/core.py") + "\n" == FAREWELL_CODE
    # Claude Code did research, plan and review (a document and a result each) ...
    assert len(claude_api.turns) == 6
    assert all("Bash" not in t.tool_names for t in claude_api.turns)
    # ... and Codex the implementation, with the model Codex's config names, not Claude's.
    assert len(codex_api.turns) == 3
    assert {t.body["model"] for t in codex_api.turns} == {"gpt-5.5"}


def test_best_of_two_implements_with_codex_and_gemini_and_keeps_one(
    ralph, start_api, agent_env, monkeypatch
):
    codex, gemini = CLIS["codex"], CLIS["gemini"]
    codex_api = start_api(codex, model(codex))
    gemini_api = start_api(gemini, model(gemini))
    use(
        ralph,
        monkeypatch,
        {**agent_env(codex, codex_api), **agent_env(gemini, gemini_api)},
        'preset = "codex"\n',
        '\n[agent.phases.implement]\nbest_of = 2\nbest_of_agents = ["codex", "gemini"]\n',
    )
    ralph(
        "issue",
        "new",
        "Add a farewell",
        "--body",
        BODY,
        "--state",
        "Research Needed",
        "--estimate",
        "XS",
    )
    for phase in ("research", "plan", "review"):
        code, out, err = ralph("run", phase, "1", "--agent", "scripted")
        assert code == 0, out + err
    code, out, err = ralph("hero", "1")
    assert code == 0, out + err
    assert show(ralph, 1)["workflowState"] == "Done"
    assert git(ralph.repo.path, "show", "main:greet/core.py") + "\n" == FAREWELL_CODE
    # Each CLI implemented the plan on its own branch, with its own model.
    assert len(codex_api.turns) == 3
    assert len(gemini_api.turns) >= 3
    assert "Implement GH-1 (best of 2)" in out
    assert "codex" in out
    assert "gemini" in out
    # The same change both ways: the tie goes to the earlier attempt.
    assert "Why: try 1 won" in out


@pytest.mark.skipif(not probe().available, reason=probe().reason)
def test_codex_with_its_own_model_provider_takes_an_issue_from_backlog_to_done_sandboxed(
    ralph, start_api, agent_env, monkeypatch
):
    # The provider is in Codex's own config.toml (a gateway, a local model server: here
    # a fake on this machine's loopback) and nowhere in Ralph's settings.
    codex = CLIS["codex"]
    api = start_api(codex, model(codex))
    environment = agent_env(codex, api)
    assert "RALPH_AGENT_HOSTS" not in environment
    assert "127.0.0.1" in api.base_url
    use(ralph, monkeypatch, environment, 'preset = "codex"\n')
    ralph("issue", "new", "Add a farewell", "--body", BODY, "--estimate", "XS")
    code, out, err = ralph("hero", "1")
    assert code == 0, out + err
    assert show(ralph, 1)["workflowState"] == "Done"
    assert git(ralph.repo.path, "show", "main:greet/core.py") + "\n" == FAREWELL_CODE
    assert "not an allowed host" not in out + err
    # Every phase's agent was Codex, confined (ralph.toml allows no run without the
    # sandbox): its one way to the model was its egress proxy.
    assert "allow_unsandboxed = false" in ralph.config.read_text()
    assert {t.body["model"] for t in api.turns} == {"gpt-5.5"}
    assert len(api.turns) >= 3
