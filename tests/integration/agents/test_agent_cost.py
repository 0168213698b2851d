"""What a Codex run costs when Codex reports tokens and no cost: its tokens at its
model's price from Ralph's table, its turns the model's answers (not its commands), and
a run budget that stops the next agent once that cost reaches it; a model without a
price stops a capped run, saying how to price it. The real Codex CLI on the fake
Responses API, whose usage figures are the real API's."""

from __future__ import annotations

import json

import pytest

from ralph.runtimes import AgentBrief, AgentStatus, IssueContext, Limits
from ralph.runtimes.command import CommandRuntime

from ...fakes._scripted import Text, ToolCall
from ._clis import CLIS
from ._models import model
from .test_presets_end_to_end import BODY, show, use

#: Real CLIs start slowly on a busy machine; still bounded.
pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]

CODEX = CLIS["codex"]
#: Per model call (gpt-5.5, which the test's Codex config names: $5 input, $0.50
#: cached input, $30 output per million tokens), with the fake's usage made large so
#: that the dollars show: 80,000 input, 20,000 cached and 20,000 output tokens.
LARGE = {"input_tokens": 100_000, "cached_tokens": 20_000, "output_tokens": 20_000}
PER_CALL = (80_000 * 5 + 20_000 * 0.5 + 20_000 * 30) / 1e6  # $1.01
UNPRICED = "gpt-5.5-experimental"


def test_a_codex_run_is_charged_its_models_price_and_counts_answers_not_commands(
    start_api, agent_env, tmp_path
):
    two_at_once = ToolCall(
        "exec_command", {"cmd": "echo one"}, also=(ToolCall("exec_command", {"cmd": "echo two"}),)
    )
    script = [two_at_once, CODEX.shell("echo three"), Text(json.dumps({"summary": "done"}))]
    api = start_api(CODEX, script)
    api.usage = LARGE
    environ = agent_env(CODEX, api)
    runtime = CommandRuntime.preset("codex", environ=environ)
    workdir = tmp_path / "work"
    workdir.mkdir()
    brief = AgentBrief(
        phase="implement",
        role="builder",
        issues=(IssueContext(number=7, title="Check", body="Run the checks."),),
        instructions="Run the checks.",
        workdir=workdir,
        tools=("Read", "Write", "Bash"),
        limits=Limits(timeout_seconds=100.0, stall_seconds=60.0),
        result_schema={"type": "object"},
    )
    result = runtime.run(brief)
    assert result.status is AgentStatus.OK, result.error
    # Three model requests: the first answer asked for two commands (counted from Codex's
    # own session record, kept in the run's home when confined).
    assert len(api.turns) == 3
    assert result.turns == 3
    assert result.cost_usd == pytest.approx(3 * PER_CALL)
    assert result.unpriced_model == ""
    activity = brief.activity.snapshot()
    assert activity.cost_usd == pytest.approx(result.cost_usd)


def budget(ralph, line: str) -> None:
    text = ralph.config.read_text()
    ralph.config.write_text(text.replace("budget_run_usd = 0\n", line + "\n", 1))


def test_a_codex_run_stops_before_the_next_agent_once_its_cost_reaches_the_run_budget(
    ralph, start_api, agent_env, monkeypatch
):
    api = start_api(CODEX, model(CODEX))
    api.usage = LARGE
    use(ralph, monkeypatch, agent_env(CODEX, api), 'preset = "codex"\n')
    # Research costs two calls ($2.02): at the cap, so planning is not started.
    budget(ralph, "budget_run_usd = 2")
    ralph("issue", "new", "Add a farewell", "--body", BODY, "--state", "Research Needed")
    code, out, err = ralph("hero", "1")
    assert code == 1, out + err
    assert "the run's budget is spent ($2.02 of $2.00)" in out + err
    assert len(api.turns) == 2  # research's write and result; no planner asked
    assert show(ralph, 1)["workflowState"] == "Ready for Plan"
    code, out, err = ralph("runs", "show", "--json")
    assert code == 0, out + err
    report = json.loads(out)["report"]
    assert report["costUsd"] == pytest.approx(2 * PER_CALL)
    assert report["costKnown"] is True
    assert report["turns"] == 2


def test_a_capped_run_of_a_model_without_a_price_stops_saying_how_to_price_it(
    ralph, start_api, agent_env, agent_home, monkeypatch
):
    api = start_api(CODEX, model(CODEX))
    environment = agent_env(CODEX, api)
    config = agent_home / ".codex" / "config.toml"
    # A model Codex runs like gpt-5.5 (the same tools), but without a price.
    config.write_text(config.read_text().replace('"gpt-5.5"', f'"{UNPRICED}"'))
    use(ralph, monkeypatch, environment, 'preset = "codex"\n')
    budget(ralph, "budget_run_usd = 50")
    ralph("issue", "new", "Add a farewell", "--body", BODY, "--state", "Research Needed")
    code, out, err = ralph("hero", "1")
    assert code == 1, out + err
    said = " ".join((out + err).split())
    assert f'the cost of model {UNPRICED} is unknown: add [prices."{UNPRICED}"]' in said
    assert len(api.turns) == 2  # research ran; nothing after it
    assert "$0.00" not in out  # the cost is unknown, not nothing
    code, out, err = ralph("runs", "show", "--json")
    assert code == 0, out + err
    report = json.loads(out)["report"]
    assert (report["costKnown"], report["unpricedModels"]) == (False, [UNPRICED])
