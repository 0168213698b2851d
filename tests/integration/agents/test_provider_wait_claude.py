"""Issue 48's Done-when for provider limits, with the real Claude Code CLI on the fake
Anthropic API: the subscription's usage window is spent ("usage limit reached", its
reset a few seconds ahead, as the API's ``anthropic-ratelimit-unified-*`` headers say
it). ``ralph hero`` waits for the reset instead of failing, says so, and ends Done with
every task tried once."""

from __future__ import annotations

import time

import pytest

from ralph.config import load_config
from ralph.demo._sample import FAREWELL
from ralph.project import open_project
from ralph.tasks import TaskStatus

from ..conftest import git
from ._clis import CLAUDE
from ._models import FAREWELL_CODE, model
from .test_presets_end_to_end import claude_on_farewell, show

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]

BODY = f"Add `farewell` to the core module.\n\n{FAREWELL}\n"


def test_a_spent_usage_window_is_waited_out_and_the_run_ends_done_with_one_attempt_each(
    ralph, start_api, agent_home, monkeypatch
):
    api = start_api(CLAUDE, model(CLAUDE))
    # A subscription's login (the fake token, no API key, which Claude Code would use
    # first): Claude Code reads the usage window's headers then, and says when it resets.
    subscription = {
        **CLAUDE.configure(agent_home, api),
        "CLAUDE_CODE_OAUTH_TOKEN": "sk-ant-oat01-fake",
    }
    del subscription["ANTHROPIC_API_KEY"]
    claude_on_farewell(ralph, monkeypatch, subscription)
    started = time.time()
    api.limit("usage", seconds=6, lifts=True)
    code, out, err = ralph("hero", "1")
    assert code == 0, out + err
    assert api.limits.refused >= 1  # the research's first turn met the spent window
    assert time.time() >= api.limits.resets_at  # waited for the reset, not around it
    assert "waiting for the provider of claude until" in out, out
    assert show(ralph, 1)["workflowState"] == "Done"
    assert git(ralph.repo.path, "show", "main:greet/core.py") + "\n" == FAREWELL_CODE
    with open_project(load_config(ralph.repo.path)) as project:
        (run,) = project.store.list_runs()
        tasks = project.store.list_tasks(run.id)
        (wait,) = project.store.provider_waits(now=0.0)  # lifted by now: any time since
    # Until the reset the window's headers named, not a guessed backoff (30 s).
    assert wait.agent == "claude"
    assert wait.until == pytest.approx(api.limits.resets_at, abs=1.5)
    assert tasks
    assert all(t.status is TaskStatus.DONE for t in tasks)
    assert [t.attempts for t in tasks] == [1] * len(tasks), [(t.key, t.attempts) for t in tasks]
    assert time.time() - started < 240
