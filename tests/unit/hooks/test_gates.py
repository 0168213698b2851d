"""The gates, by table: each hook input a skill's session can send, and what the gate
decides for it."""

from __future__ import annotations

import posixpath

import pytest

from ralph.hooks import pre_tool_use, stop

ROOT = "/work/project"
RESEARCH = """---
github_issue: 7
status: complete
---
# Research

## Files Affected
### Will Modify
- `src/app.py`
### Will Read (Dependencies)
- `src/util.py`
"""
PLAN = """---
status: draft
github_issue: 7
---
## Phase 1: GH-7 Say goodbye
#### Automated Verification
- [ ] tests pass
"""


def write(path: str, content: str = "x") -> dict[str, object]:
    return {"tool_name": "Write", "tool_input": {"file_path": path, "content": content}}


def bash(command: str) -> dict[str, object]:
    return {"tool_name": "Bash", "tool_input": {"command": command}}


def move(state: str) -> dict[str, object]:
    return {
        "tool_name": "mcp__plugin_ralph-hero_ralph-hero__ralph_hero__update_workflow_state",
        "tool_input": {"number": 7, "state": state, "command": "ralph_research"},
    }


#: The table's symlinks: one inside #7's worktree to the checkout, one to #9's worktree.
LINKS = {
    f"{ROOT}/worktrees/GH-7/link": ROOT,
    f"{ROOT}/worktrees/GH-7/other": f"{ROOT}/worktrees/GH-9",
}


def resolve(path: str) -> str:
    """``os.path.realpath`` over the table's symlinks."""
    path = posixpath.normpath(path)
    for link, to in LINKS.items():
        if path == link or path.startswith(link + "/"):
            return to + path[len(link) :]
    return path


def decide(event, phase="research", files=None, epic=None):
    files = files or {}
    return pre_tool_use(
        {"cwd": ROOT, **event},
        phase,
        7,
        root=ROOT,
        read=lambda path: files.get(path),
        resolve=resolve,
        epic=epic,
    )


@pytest.mark.parametrize(
    ("phase", "event"),
    [
        ("implement", write(f"{ROOT}/worktrees/GH-7/src/app.py")),
        ("implement", write("worktrees/GH-7/src/app.py")),
        ("implement", write(f"{ROOT}/worktrees/GH-7-try-2/src/app.py")),
        ("implement", write(f"{ROOT}/worktrees/GH-3-stream-7-8/src/app.py")),
        ("address", write(f"{ROOT}/worktrees/GH-7/src/app.py")),
        ("research", write(f"{ROOT}/src/app.py")),
        ("research", write(f"{ROOT}/thoughts/shared/research/2026-01-01-GH-0007-x.md", RESEARCH)),
        ("plan", write(f"{ROOT}/thoughts/shared/plans/2026-01-01-GH-0007-x.md", PLAN)),
        ("research", write(f"{ROOT}/thoughts/shared/research/notes.txt", "anything")),
        ("research", {"tool_name": "Read", "tool_input": {"file_path": "/etc/passwd"}}),
        ("research", move("__LOCK__")),
        ("research", move("Ready for Plan")),
        ("research", move("__ESCALATE__")),
        ("research", bash("ralph issue move 7 'Ready for Plan' --command research")),
        ("research", bash("ralph issue show 7 && ralph run research 7")),
        ("research", bash("echo 'unbalanced")),
        ("implement", bash("ralph issue move 7 'In Review' -c impl")),
        ("nonsense", write("/etc/passwd")),
    ],
)
def test_these_calls_go_ahead(phase, event):
    decision = decide(event, phase)
    assert not decision.block, decision.reason


@pytest.mark.parametrize(
    ("phase", "event", "words"),
    [
        ("implement", write(f"{ROOT}/src/app.py"), "only inside the issue's worktree"),
        ("implement", write("/tmp/elsewhere.txt"), "worktrees/GH-7/"),
        ("implement", write(f"{ROOT}/worktrees-other/x"), "is outside"),
        ("implement", write(f"{ROOT}/worktrees/GH-7/link/ralph.toml"), f"leads to {ROOT}/"),
        ("implement", write(f"{ROOT}/worktrees/GH-7/other/x.py"), "GH-9/x.py) is outside"),
        (
            "implement",
            {"tool_name": "Edit", "tool_input": {"file_path": f"{ROOT}/worktrees/GH-999/x.py"}},
            "worktrees/GH-7/",
        ),
        ("implement", write(f"{ROOT}/worktrees/GH-70/x.py"), "is outside"),
        ("implement", write(f"{ROOT}/worktrees/GH-3/x.py"), "is outside"),
        ("implement", write(f"{ROOT}/worktrees/GH-3-stream-8-9/x.py"), "is outside"),
        ("implement", write(f"{ROOT}/worktrees/notes.txt"), "is outside"),
        ("address", write(f"{ROOT}/worktrees/GH-9/x.py"), "is outside"),
        ("implement", write(123), "its file_path is 123, not a path"),  # type: ignore[arg-type]
        ("research", write(""), "its file_path is '', not a path"),
        ("implement", {"tool_name": "Write", "tool_input": {"content": "x"}}, "None, not a path"),
        (
            "implement",
            {"tool_name": "NotebookEdit", "tool_input": {"file_path": "x.ipynb"}},
            "its notebook_path is None",
        ),
        ("implement", {"tool_name": "Edit", "tool_input": [1]}, "its input is not an object"),
        (
            "implement",
            {"tool_name": "Edit", "tool_input": {"file_path": "../outside.py"}},
            "outside",
        ),
        (
            "research",
            write(f"{ROOT}/thoughts/shared/research/2026-01-01-GH-0007-x.md", "# no frontmatter"),
            "no frontmatter",
        ),
        (
            "research",
            write(
                f"{ROOT}/thoughts/shared/research/2026-01-01-GH-0007-x.md",
                RESEARCH.replace("### Will Modify\n", ""),
            ),
            "no '### Will Modify' section",
        ),
        (
            "plan",
            write(
                f"{ROOT}/thoughts/shared/plans/2026-01-01-GH-0007-x.md", "---\nstatus: draft\n---\n"
            ),
            "no '## Phase N' sections",
        ),
        (
            "implement",
            write(
                f"{ROOT}/worktrees/GH-7/thoughts/shared/plans/2026-01-01-GH-0007-x.md",
                "---\n---\n",
            ),
            "plan is incomplete",
        ),
        ("research", move("In Progress"), "not a valid output for ralph_research"),
        ("review", move("__LOCK__"), "__LOCK__"),
        ("plan", move("Done"), "outside ralph_plan's contract"),
        ("research", bash("ralph issue move 7 Done"), "not a valid output"),
        (
            "research",
            bash("cd /x && .venv/bin/ralph issue move --actor me 7 'In Review'"),
            "In Review",
        ),
        ("research", bash("true; python -m ralph issue move 7 Canceled -c human"), "Canceled"),
    ],
)
def test_these_calls_are_refused_with_the_reason(phase, event, words):
    decision = decide(event, phase)
    assert decision.block
    assert words in decision.reason


def test_a_childs_session_writes_in_its_epics_worktree_too():
    assert not decide(write(f"{ROOT}/worktrees/GH-3/x.py"), "implement", epic=3).block
    assert decide(write(f"{ROOT}/worktrees/GH-4/x.py"), "implement", epic=3).block


def test_a_refusal_for_an_unreadable_write_says_how_to_fix_it():
    decision = decide(write(123), "implement")  # type: ignore[arg-type]
    assert decision.reason == (
        "ralph-impl is running and this Write cannot be checked: its file_path is 123, not "
        "a path. Give the file's path as a string."
    )


def test_an_edit_is_judged_by_the_document_it_leaves():
    path = f"{ROOT}/thoughts/shared/research/2026-01-01-GH-0007-x.md"
    files = {path: RESEARCH}
    breaking = {"old_string": "## Files Affected\n", "new_string": ""}
    harmless = {"old_string": "# Research", "new_string": "# Findings"}
    edit = {"tool_name": "Edit", "tool_input": {"file_path": path, **breaking}}
    assert decide(edit, files=files).block
    assert not decide({**edit, "tool_input": {"file_path": path, **harmless}}, files=files).block
    multi = {
        "tool_name": "MultiEdit",
        "tool_input": {"file_path": path, "edits": [harmless, breaking]},
    }
    assert decide(multi, files=files).block
    # An edit that does not apply is the tool's to refuse, not the gate's.
    unknown = {"old_string": "not there", "new_string": ""}
    assert not decide({**edit, "tool_input": {"file_path": path, **unknown}}, files=files).block


@pytest.mark.parametrize(
    ("phase", "state", "blocked"),
    [
        ("research", "Research in Progress", True),
        ("plan", "Plan in Progress", True),
        ("research", "Ready for Plan", False),
        ("research", "Human Needed", False),
        # Implementation starts in In Progress: being there is no leftover lock.
        ("implement", "In Progress", False),
        ("review", "Plan in Review", False),
        ("research", None, False),
    ],
)
def test_a_stop_is_refused_only_while_the_issue_is_left_in_the_phases_lock(phase, state, blocked):
    decision = stop({"hook_event_name": "Stop"}, phase, 7, state)
    assert decision.block is blocked
    if blocked:
        assert f"ralph issue move 7 __ESCALATE__ --command ralph_{phase}" in decision.reason


def test_a_stop_the_gate_already_sent_back_goes_ahead():
    assert not stop({"stop_hook_active": True}, "research", 7, "Research in Progress").block


def test_a_stop_without_an_issue_goes_ahead():
    assert not stop({}, "research", None, "Research in Progress").block


@pytest.mark.parametrize(
    ("path", "words"),
    [
        (f"{ROOT}/worktrees/GH-7/.git", "is the worktree's git pointer, which only Ralph writes"),
        (f"{ROOT}/worktrees/GH-7/.git/config", "git pointer"),
        (f"{ROOT}/worktrees/GH-07/x.py", "is outside"),  # int("07") is 7, but no such name
        (f"{ROOT}/worktrees/GH-7-try-02/x.py", "is outside"),
        (f"{ROOT}/worktrees/GH-3-stream-07/x.py", "is outside"),
    ],
)
def test_a_worktrees_git_pointer_and_names_ralph_never_gives_are_refused(path, words):
    decision = decide(write(path, "gitdir: /tmp/evil"), "implement")
    assert decision.block
    assert words in decision.reason


@pytest.mark.parametrize("path", ["worktrees/GH-999/x.py", "worktrees/anything/x.py", "x.py"])
def test_without_an_issue_in_the_context_no_worktree_is_the_skills(path):
    decision = pre_tool_use(
        {"cwd": ROOT, **write(f"{ROOT}/{path}")},
        "implement",
        None,
        root=ROOT,
        read=lambda _: None,
        resolve=resolve,
    )
    assert decision.block
    assert decision.reason == (
        "ralph-impl is running without an issue, so no worktree is its own; name the issue: "
        "`ralph hook context set implement N`."
    )


@pytest.mark.parametrize(
    "command",
    [
        "$(echo ralph) issue move 7 Done",
        "eval 'ralph issue move 7 Done'",
        'eval "ralph issue move 7 Done"',
        "`which ralph` issue move 7 Done",
        "R=ralph; $R issue move 7 Done",
        "sh -c 'ralph issue move 7 Done'",
        "bash -lc \"cd /x && ralph issue move 7 'In Review'\"",
        "echo x | xargs -I{} ralph issue move 7 Done",
        "ralph i''ssue move 7 Done; eval true",
        "m=move; ralph issue $m 7 Done",
        'ralph issue "$(echo move)" 7 Done',
        "ralph issue `echo move` 7 Done",
    ],
)
def test_a_state_change_hidden_from_a_plain_reading_is_refused_too(command):
    decision = decide(bash(command), "research")
    assert decision.block, command


def test_a_state_change_built_at_run_time_is_refused_saying_to_write_it_plainly():
    decision = decide(bash("eval \"$(echo ralph issue move 7 'Ready for Plan')\""), "research")
    assert decision.reason == (
        "ralph-research is running: a state change is checked before it runs, so write it "
        "plainly: `ralph issue move N STATE`, without eval, $(…) or backticks."
    )
    # Substitutions that change no state go ahead.
    assert not decide(bash("cd $(git rev-parse --show-toplevel) && make test"), "implement").block
    assert not decide(bash('eval "$(ssh-agent -s)"'), "research").block
