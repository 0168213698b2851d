"""The files a run keeps of its tasks: each attempt appended to the task's log, agent
transcripts copied beside it (secrets redacted), listed per task, and found by name only
inside the run's folder."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ralph._secrets import register_secret
from ralph.git import RUN_FILES_DIR
from ralph.orchestrate import RunFileNotFound, RunFiles
from ralph.runtimes import AgentResult, AgentStatus

SECRET = "planted-secret-8d1f0c2b9e"


@pytest.fixture
def files(tmp_path: Path) -> RunFiles:
    return RunFiles(tmp_path / "project", 7)


def transcript(folder: Path, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "session.jsonl"
    path.write_text(text)
    return path


def test_each_attempt_is_appended_to_the_task_log_with_its_agent_runs(
    files: RunFiles, tmp_path: Path
) -> None:
    source = transcript(tmp_path / "agent", '{"type": "user"}\n{"type": "assistant"}\n')
    ran = AgentResult(
        status=AgentStatus.FAILED,
        cost_usd=0.25,
        input_tokens=1000,
        output_tokens=234,
        turns=3,
        transcript=str(source),
        error="tests fail",
        agent="simulated agent",
    )
    files.record_attempt(
        3, attempt=1, subject="Research GH-2", started=0.0, ending="failed", agent_runs=[ran]
    )
    files.record_attempt(
        3,
        attempt=2,
        subject="Research GH-2",
        started=0.0,
        ending="done",
        lines=["#2: Research Needed -> Ready for Plan"],
        agent_runs=[AgentResult(status=AgentStatus.OK, transcript="session abc")],
    )
    assert files.folder == files.root / RUN_FILES_DIR / "7"
    log = (files.folder / "task-3.log").read_text()
    first, second = log.split("== attempt 2")
    assert first.startswith("== attempt 1: Research GH-2")
    assert "failed" in first.splitlines()[0]
    assert "agent run 1: simulated agent failed · $0.25 · 1,234 tokens · 3 turns" in first
    assert "transcript task-3.1.1.jsonl" in first
    assert "error: tests fail" in first
    assert "Ready for Plan" in second
    assert "transcript session abc" in second
    assert (files.folder / "task-3.1.1.jsonl").read_text() == source.read_text()
    assert files.listing() == {3: ["task-3.log", "task-3.1.1.jsonl"]}


def test_transcripts_written_in_the_runs_incoming_folder_are_moved_beside_the_log(
    files: RunFiles,
) -> None:
    incoming = files.incoming(5)
    stream = transcript(incoming, '{"type": "turn.started"}\n')
    plain = incoming / "plain.txt"
    plain.write_text("I did it.\n")
    stray = incoming / "crashed.jsonl"  # an agent run whose result never came back
    stray.write_text('{"type": "user"}\n')
    files.record_attempt(
        5,
        attempt=2,
        subject="Implement",
        started=0.0,
        ending="failed",
        agent_runs=[
            AgentResult(status=AgentStatus.OK, transcript=str(stream)),
            AgentResult(status=AgentStatus.OK, transcript=str(plain)),
        ],
    )
    assert files.listing() == {
        5: ["task-5.log", "task-5.2.1.jsonl", "task-5.2.2.txt", "task-5.2.3.jsonl"]
    }
    assert (files.folder / "task-5.2.2.txt").read_text() == "I did it.\n"
    assert (files.folder / "task-5.2.3.jsonl").read_text() == '{"type": "user"}\n'
    log = (files.folder / "task-5.log").read_text()
    assert "transcript of an agent run without a result: task-5.2.3.jsonl" in log
    assert not incoming.exists()


def test_secrets_never_reach_the_log_or_the_copied_transcript(
    files: RunFiles, tmp_path: Path
) -> None:
    register_secret(SECRET)
    source = transcript(tmp_path / "agent", f'{{"env": "GH_TOKEN={SECRET}"}}\n')
    ran = AgentResult(status=AgentStatus.FAILED, transcript=str(source), error=f"saw {SECRET}")
    files.record_attempt(
        1,
        attempt=1,
        subject="Plan",
        started=0.0,
        ending="failed",
        error=f"exit 1: {SECRET}",
        lines=[f"printed {SECRET}"],
        agent_runs=[ran],
    )
    for path in files.folder.iterdir():
        assert SECRET not in path.read_text(), path.name
    assert "***" in (files.folder / "task-1.1.1.jsonl").read_text()


def test_a_log_that_cannot_be_written_does_not_fail_the_task(tmp_path: Path) -> None:
    blocked = tmp_path / "project"
    blocked.mkdir()
    (blocked / ".ralph").write_text("a file where the folder would go")
    RunFiles(blocked, 1).record_attempt(1, attempt=1, subject="x", started=0.0, ending="done")


def test_the_listing_puts_each_log_first_then_transcripts_in_order(files: RunFiles) -> None:
    files.folder.mkdir(parents=True)
    for name in ["task-2.2.1.jsonl", "task-2.10.1.jsonl", "task-2.log", "task-12.log", "x.txt"]:
        (files.folder / name).write_text("")
    assert files.listing() == {
        2: ["task-2.log", "task-2.2.1.jsonl", "task-2.10.1.jsonl"],
        12: ["task-12.log"],
    }
    assert RunFiles(files.root, 8).listing() == {}


@pytest.mark.parametrize(
    "name",
    [
        "../ralph.db",
        "..",
        "task-1.log/../../ralph.db",
        "task-1.txt",
        "task-0.log",
        "ralph.db",
        "task-1.log.bak",
        "task-9.log",  # not there
        "task-4.log",  # a folder
        "task-5.log",  # a symbolic link out of the run's folder
        "task-6.1.1.jsonl",  # a symbolic link to a file of the run
        "",
    ],
)
def test_only_a_file_of_the_run_is_found_by_name(
    files: RunFiles, tmp_path: Path, name: str
) -> None:
    files.folder.mkdir(parents=True)
    (files.folder / "task-1.log").write_text("mine")
    (files.folder.parent.parent / "ralph.db").write_text("the store")
    (files.folder / "task-4.log").mkdir()
    outside = tmp_path / "outside.txt"
    outside.write_text("not the run's")
    os.symlink(outside, files.folder / "task-5.log")
    os.symlink(files.folder / "task-1.log", files.folder / "task-6.1.1.jsonl")
    assert files.path_of("task-1.log").read_text() == "mine"
    with pytest.raises(RunFileNotFound, match="run 7 keeps no file named"):
        files.path_of(name)
    assert isinstance(RunFileNotFound(7, name), LookupError)
