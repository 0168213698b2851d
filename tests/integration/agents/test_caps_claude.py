"""Issue 48's Done-when for caps, with the real Claude Code CLI on the fake Anthropic
API (each model call reports 120 tokens): RALPH_BUDGET_RUN_TOKENS below what an XS issue
needs stops ``ralph hero`` naming the cap, the spend and the fix; the issue is held,
not sent to Human Needed; raising the cap lifts the hold and the same run ends Done."""

from __future__ import annotations

import json
import re

import pytest

from ralph.demo._sample import FAREWELL

from ..conftest import git
from ._clis import CLAUDE
from ._models import FAREWELL_CODE, model
from .test_presets_end_to_end import claude_on_farewell, show

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]

BODY = f"Add `farewell` to the core module.\n\n{FAREWELL}\n"
CAP = re.compile(
    r"#1 held: budget — the run's token cap: ([\d,]+) of 200 tokens; raise "
    r"budget_run_tokens in ralph.toml or run with RALPH_BUDGET_RUN_TOKENS=N"
)


def test_a_run_token_cap_holds_a_claude_code_run_and_raising_it_resumes_to_done(
    ralph, start_api, agent_home, monkeypatch
):
    api = start_api(CLAUDE, model(CLAUDE))
    claude_on_farewell(ralph, monkeypatch, CLAUDE.configure(agent_home, api))
    monkeypatch.setenv("RALPH_BUDGET_RUN_TOKENS", "200")
    code, out, err = ralph("hero", "1")
    assert code == 1, out + err
    found = CAP.search(out)
    assert found is not None, out + err
    assert int(found.group(1).replace(",", "")) >= 200
    asked = len(api.turns)
    assert asked >= 1
    # Research spent past the cap: the plan is not started; the issue waits for it.
    assert show(ralph, 1)["workflowState"] == "Ready for Plan"
    code, out, err = ralph("budget", "--json")
    assert code == 0, out + err
    holds = json.loads(out)["holds"]
    assert [(h["number"], h["reason"]) for h in holds] == [(1, "budget")]
    code, out, err = ralph("status")
    assert code == 0, out + err
    assert "#1 held: budget — the run's token cap:" in out

    monkeypatch.setenv("RALPH_BUDGET_RUN_TOKENS", "1000000")
    code, out, err = ralph("hero", "1")
    assert code == 0, out + err
    assert "Resumed run 1." in out
    assert len(api.turns) > asked
    assert show(ralph, 1)["workflowState"] == "Done"
    assert git(ralph.repo.path, "show", "main:greet/core.py") + "\n" == FAREWELL_CODE
    code, out, err = ralph("budget", "--json")
    assert json.loads(out)["holds"] == []
