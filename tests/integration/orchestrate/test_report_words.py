"""The run report speaks to a person: the outcome first in words, an escalation's reason
once (under "Needs a person", not in the table), a long error cut in its cell, counts with
their right plural, the timing and coordination counters only in the details, and after
a live table on a terminal no second copy of it: what the live view could not say."""

from __future__ import annotations

import io
import os
import pty
import re
import select
import subprocess
import time
from pathlib import Path

import pytest

from ralph.cli._console import Console
from ralph.cli._report import print_report
from ralph.graph import Role, TaskKind, TaskSpec
from ralph.orchestrate import ESCALATED, RunReport, load_report
from ralph.tasks import MessageKind, RunStatus, TaskStore, open_store

from ..cli_project import farewell_project
from ..conftest import RALPH, ralph_environment

pytestmark = pytest.mark.timeout(120)

REASON = "the agent says: Phase 1's diff does not apply " + "x" * 200


@pytest.fixture
def store(tmp_path: Path) -> TaskStore:
    return open_store(f"sqlite:///{tmp_path / 'ralph.db'}", create=True)


def spec(key: str, kind: TaskKind, number: int) -> TaskSpec:
    return TaskSpec(key, kind, Role.BUILDER, (number,), f"{kind.value} GH-{number}", "")


def ended_run(store: TaskStore, error: str) -> RunReport:
    """A hero run of #2 whose research is done and whose implementation failed with
    ``error`` (not retried)."""
    run = store.create_run("hero GH-2", root_issue=2, mode="hero")
    research, implement = store.add_tasks(
        run.id,
        [spec("research:2", TaskKind.RESEARCH, 2), spec("implement:2", TaskKind.IMPLEMENT, 2)],
    )
    store.complete(store.claim_task(research.id, "w1"), {})
    store.fail(store.claim_task(implement.id, "w1"), error, retryable=False)
    if error.startswith(ESCALATED):
        store.send_message(run.id, "w1", "lead", MessageKind.ESCALATION, f"#2 needs: {REASON}")
    store.finish_run(run.id, RunStatus.FINISHED)
    return load_report(store, run.id)


def shown(report: RunReport, **options: bool) -> str:
    out = io.StringIO()
    print_report(report, Console(file=out, width=100, highlight=False), **options)
    return out.getvalue()


def test_an_escalated_task_says_escalated_and_its_reason_once_with_the_issue_to_move(
    store: TaskStore,
) -> None:
    text = shown(ended_run(store, f"{ESCALATED}{REASON}"))
    assert "✗ escalated" in text
    assert text.count("the agent says") == 1  # under "Needs a person" only
    assert "Outcome: needs a person · tasks 1/2 done" in text
    retry = "Once the problem is resolved: `ralph issue retry 2`, then `ralph hero 2` goes on."
    assert retry in text


def test_a_long_error_is_cut_in_its_cell(store: TaskStore) -> None:
    text = shown(ended_run(store, "git push broke: " + "y" * 300))
    assert "Outcome: failed" in text
    assert "y" * 80 not in text.replace("│", "").replace(" ", "").replace("\n", "")
    assert "…" in text


def test_counts_have_their_plural_and_the_timing_waits_for_the_details(
    store: TaskStore,
) -> None:
    report = ended_run(store, f"{ESCALATED}{REASON}")
    text = shown(report)
    assert "0 agent turns" in text
    assert "makespan" not in text
    assert "claims" not in text
    details = shown(report, verbose=True)
    assert "makespan" in details
    assert "claims 2: 0 while blocked" in details
    assert "(1 escalation)" in details


def test_without_the_table_the_report_says_the_outcome_and_what_needs_a_person(
    store: TaskStore,
) -> None:
    text = shown(ended_run(store, f"{ESCALATED}{REASON}"), table=False)
    assert "┃" not in text
    assert text.splitlines()[0] == "Run 1: hero GH-2"
    assert "Outcome: needs a person" in text
    assert "Needs a person:" in text


def on_a_terminal(args: list[str], cwd: Path, seconds: float = 90) -> tuple[int, str]:
    """``ralph ARGS`` with a pseudo-terminal as its output: its exit code and what it
    wrote, without its escape sequences (colours, cursor moves)."""
    main, child = pty.openpty()
    env = ralph_environment({"COLUMNS": "120", "LINES": "50", "TERM": "xterm"})
    process = subprocess.Popen(
        [RALPH, *args], cwd=cwd, env=env, stdin=child, stdout=child, stderr=child
    )
    os.close(child)
    chunks = []
    deadline = time.monotonic() + seconds
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([main], [], [], 0.5)
            if not ready:
                continue
            try:
                chunk = os.read(main, 65536)
            except OSError:  # the child closed the terminal: it ended
                break
            if not chunk:
                break
            chunks.append(chunk)
        code = process.wait(timeout=max(1.0, deadline - time.monotonic()))
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=30)
        os.close(main)
    text = b"".join(chunks).decode("utf-8", "replace")
    return code, re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", text).replace("\r\n", "\n")


def test_after_the_live_table_the_report_says_what_it_could_not_and_not_the_table_again(
    tmp_path: Path,
) -> None:
    repo, n = farewell_project(tmp_path / "greet")
    code, said = on_a_terminal(["hero", str(n)], repo)
    assert code == 0, said
    assert f"hero GH-{n} (run 1)" in said  # the live table was there
    assert "┃ Tries" not in said  # the report's table was not
    assert "Outcome: succeeded" in said
    assert "Merged pull request #" in said
    assert "Next: `ralph web` to see the board, `ralph runs show 1` for this run" in said
