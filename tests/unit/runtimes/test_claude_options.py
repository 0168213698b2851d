"""What a phase's Claude Code run is allowed: its role's tools, its limits, Claude
Code's own system prompt with the role appended, and no credentials but the model's."""

from __future__ import annotations

import json
from pathlib import Path

from ralph.runtimes import AgentBrief, IssueContext, Limits
from ralph.runtimes.claude._options import option_values


def brief(**changes: object) -> AgentBrief:
    values: dict[str, object] = {
        "phase": "research",
        "role": "analyst",
        "issues": (IssueContext(number=1, title="T", body="B"),),
        "instructions": "Do it.",
        "workdir": Path("/work/tree"),
        "tools": ("Read", "Glob", "Grep", "Write"),
        "limits": Limits(max_turns=7),
        "result_schema": {"type": "object"},
    }
    values.update(changes)
    return AgentBrief(**values)  # type: ignore[arg-type]


def values(**changes: object) -> dict[str, object]:
    return option_values(brief(**changes), session_id="s-1", environ={})


def test_the_system_prompt_is_claude_codes_preset_with_the_role_appended():
    prompt = values()["system_prompt"]
    assert prompt["type"] == "preset"  # type: ignore[index]
    assert prompt["preset"] == "claude_code"  # type: ignore[index]
    assert "Ralph's analyst agent" in prompt["append"]  # type: ignore[index]


def test_the_role_whitelist_is_both_the_tool_set_and_the_approved_set():
    found = values()
    assert found["tools"] == ["Read", "Glob", "Grep", "Write"]
    assert found["allowed_tools"] == ["Read", "Glob", "Grep", "Write"]
    assert found["permission_mode"] == "dontAsk"
    assert "disallowed_tools" not in found


def test_of_the_tracker_tools_only_those_the_brief_names_are_offered():
    server = ["ralph_hero__get_issue", "ralph_hero__task_list", "ralph_hero__list_issues"]
    offered = ["ralph_hero__get_issue", "ralph_hero__list_issues"]
    found = option_values(
        brief(), session_id="s", environ={}, tracker_tools=offered, server_tools=server
    )
    assert found["allowed_tools"][-1] == "mcp__ralph-hero"
    # Hidden, their definitions are not sent with every request.
    assert found["disallowed_tools"] == ["mcp__ralph-hero__ralph_hero__task_list"]


def test_limits_model_schema_and_working_directory_are_passed():
    found = values(limits=Limits(max_turns=7, max_usd=1.5), model="opus")
    assert found["max_turns"] == 7
    assert found["max_budget_usd"] == 1.5
    assert found["model"] == "opus"
    assert found["cwd"] == "/work/tree"
    assert found["session_id"] == "s-1"
    assert found["output_format"] == {"type": "json_schema", "schema": {"type": "object"}}


def test_no_budget_flag_without_a_cap_and_no_model_without_a_choice():
    found = values()
    assert "max_budget_usd" not in found
    assert "model" not in found


def test_credentials_in_the_environment_are_blanked_for_the_child():
    environ = {
        "RALPH_GH_TOKEN": "ghp_1",
        "GH_TOKEN": "ghp_2",
        "RALPH_STORE_URL": "postgresql://u:pw@h/db",
        "AWS_SECRET_ACCESS_KEY": "aws",
        "ANTHROPIC_API_KEY": "sk-ant",
        "PATH": "/usr/bin",
    }
    env = option_values(brief(), session_id="s", environ=environ)["env"]
    assert env == {
        "RALPH_GH_TOKEN": "",
        "GH_TOKEN": "",
        "RALPH_STORE_URL": "",
        "AWS_SECRET_ACCESS_KEY": "",
        "CLAUDE_CODE_DISABLE_AUTO_MEMORY": "1",
    }


def test_the_child_keeps_its_python_bytecode_out_of_the_worktree():
    environ = {"PATH": "/usr/bin", "HOME": "/home/me", "PYTHONPYCACHEPREFIX": "/elsewhere"}
    env = option_values(brief(), session_id="s", environ=environ)["env"]
    assert env["PYTHONPYCACHEPREFIX"] == "/home/me/.cache/ralph/pycache"


def test_bypass_is_only_sandboxed_when_asked_for():
    assert "IS_SANDBOX" not in values()["env"]  # type: ignore[operator]


def sandbox_of(found: dict[str, object]) -> dict[str, object]:
    return json.loads(str(found["settings"]))["sandbox"]  # type: ignore[no-any-return]


def test_every_run_with_bash_gets_claude_codes_sandbox_which_must_start_and_not_be_bypassed():
    sandbox = sandbox_of(values(tools=("Read", "Bash")))
    assert sandbox["enabled"] is True
    assert sandbox["failIfUnavailable"] is True
    assert sandbox["allowUnsandboxedCommands"] is False
    assert sandbox["network"] == {
        "allowedDomains": [],
        "strictAllowlist": True,
        "allowAllUnixSockets": False,
    }
    assert "denyWrite" in sandbox["filesystem"]  # type: ignore[operator]


def test_bash_reads_neither_the_persons_home_nor_another_but_the_worktree_under_it(
    tmp_path: Path,
):
    home = tmp_path / "home"
    (home / ".cargo/bin").mkdir(parents=True)
    (home / "src/project").mkdir(parents=True)
    environ = {"HOME": str(home), "PATH": f"{home}/.cargo/bin:/usr/bin"}
    work = brief(tools=("Read", "Bash"), workdir=home / "src/project")
    found = option_values(work, session_id="s", environ=environ)
    filesystem = sandbox_of(found)["filesystem"]
    assert filesystem["denyRead"][:3] == [str(home), "/home", "/root"]  # type: ignore[index]
    allowed = filesystem["allowRead"]  # type: ignore[index]
    assert str(home / "src/project") in allowed
    assert str(home / ".cargo/bin") in allowed
    assert not [p for p in allowed if p in (str(home), "/home", "/root")]


def test_no_settings_file_is_loaded_neither_the_persons_nor_the_worktrees():
    assert values()["setting_sources"] == []


def test_sandboxed_bash_is_approved_by_the_sandbox_not_by_ralph():
    found = values(tools=("Read", "Bash"))
    assert found["tools"] == ["Read", "Bash"]
    assert found["allowed_tools"] == ["Read"]
    assert sandbox_of(found)["autoAllowBashIfSandboxed"] is True


def test_a_run_without_bash_needs_no_sandbox():
    assert "settings" not in values(tools=("Read", "Write"))


def test_a_run_without_the_sandbox_has_no_sandbox_settings_and_bash_approved():
    found = option_values(brief(tools=("Read", "Bash")), session_id="s", environ={}, sandbox=False)
    assert "settings" not in found
    assert found["allowed_tools"] == ["Read", "Bash"]


def test_claude_codes_auto_memory_is_off_for_every_phase():
    # Each run is one issue's brief: nothing is kept for later sessions.
    assert values()["env"]["CLAUDE_CODE_DISABLE_AUTO_MEMORY"] == "1"  # type: ignore[index]


def test_the_projects_claude_md_is_pointed_at_as_settings_no_longer_load_it(tmp_path: Path):
    (tmp_path / "CLAUDE.md").write_text("Use tabs.\n")
    found = option_values(brief(workdir=tmp_path), session_id="s", environ={})
    assert "conventions are in CLAUDE.md" in found["system_prompt"]["append"]
    assert "conventions" not in values()["system_prompt"]["append"]  # type: ignore[index]
