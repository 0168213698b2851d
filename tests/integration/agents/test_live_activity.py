"""``ralph runs show --json`` shows what the implement agent is doing while it works:
a ``ralph hero`` run with the real Claude Code on its fake API, where the fake, asked
for the implement agent's next step, first looks at the run from another process."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from ...fakes.anthropic_api import MODEL as CLAUDE_MODEL
from ..conftest import ralph_process
from ._clis import CLAUDE, CLIS, Dialect
from ._models import model
from .test_presets_end_to_end import BODY, show, use

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]

#: The longest the store may take to show the agent's activity (written every 2 s).
SHOWN_WITHIN = 30.0


def implement_activity(cwd: Any) -> dict[str, Any] | None:
    """The running implement task's activity, as ``ralph runs show --json`` says it."""
    done = ralph_process("runs", "show", "--json", cwd=cwd, timeout=60)
    if done.returncode != 0:
        return None
    tasks = json.loads(done.stdout)["report"]["tasks"]
    found = [t for t in tasks if t["role"] == "builder" and t["status"] == "running"]
    return found[0]["activity"] if found else None


def watching(cli: Dialect, cwd: Any, seen: list[dict[str, Any]], ready: Any) -> Any:
    """``cli``'s fake model, which, asked for the implement agent's step after its edit,
    first waits (bounded) until the run shows that agent's activity as ``ready`` wants."""
    answer = model(cli)

    def script(request: Any, turn: int) -> Any:
        prompt = "\n".join(request.texts())
        if "The plan file is" in prompt and request.answered == 1 and not seen:
            deadline = time.monotonic() + SHOWN_WITHIN
            while time.monotonic() < deadline:
                activity = implement_activity(cwd)
                if activity is not None and ready(activity):
                    seen.append(activity)
                    break
                time.sleep(0.5)
            else:
                seen.append({"missing": activity})
        return answer(request, turn)

    return script


def test_runs_show_has_the_claude_implement_agents_turns_tokens_and_last_tool_call(
    ralph, start_api, agent_home, monkeypatch
):
    seen: list[dict[str, Any]] = []
    api = start_api(
        CLAUDE,
        watching(
            CLAUDE,
            ralph.repo.path,
            seen,
            lambda a: a["turns"] >= 1 and a["tokens"] > 0 and "greet/core.py" in a["tool"],
        ),
    )
    use(
        ralph,
        monkeypatch,
        CLAUDE.configure(agent_home, api),
        f'runtime = "claude"\nmodel = "{CLAUDE_MODEL}"\n',
    )
    ralph("issue", "new", "Add a farewell", "--body", BODY, "--state", "Research Needed")
    code, out, err = ralph("hero", "1")
    assert code == 0, out + err
    assert show(ralph, 1)["workflowState"] == "Done"
    (activity,) = seen
    assert "missing" not in activity, activity
    assert activity["agent"] == "claude"
    assert activity["turns"] == 1
    assert activity["tokens"] == 120  # the fake's one answer so far
    assert activity["tool"] == "Read greet/core.py"  # Claude Code edits only what it read
    assert not activity["ended"]


def test_runs_show_has_the_codex_implement_agents_turns_and_last_tool_call(
    ralph, start_api, agent_env, agent_home, monkeypatch
):
    codex = CLIS["codex"]
    seen: list[dict[str, Any]] = []
    claude_api = start_api(CLAUDE, model(CLAUDE))
    codex_api = start_api(
        codex,
        watching(
            codex, ralph.repo.path, seen, lambda a: a["turns"] >= 1 and "core.py" in a["tool"]
        ),
    )
    use(
        ralph,
        monkeypatch,
        {**CLAUDE.configure(agent_home, claude_api), **agent_env(codex, codex_api)},
        f'runtime = "claude"\nmodel = "{CLAUDE_MODEL}"\n',
        '\n[agent.phases.implement]\npreset = "codex"\n',
    )
    ralph("issue", "new", "Add a farewell", "--body", BODY, "--state", "Research Needed")
    code, out, err = ralph("hero", "1")
    assert code == 0, out + err
    assert show(ralph, 1)["workflowState"] == "Done"
    (activity,) = seen
    assert "missing" not in activity, activity
    assert activity["agent"] == "codex"
    assert activity["turns"] == 1
    # Codex counts its tokens when its turn is over: none yet.
    assert activity["tool"] == "apply_patch greet/core.py"
    assert not activity["ended"]
