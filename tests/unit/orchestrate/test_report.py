"""The run report's work streams: built from the stream tasks' metadata alone."""

from __future__ import annotations

from ralph.graph import TaskKind
from ralph.orchestrate import build_report
from ralph.tasks import Run, Task, TaskStatus

DONE, PENDING, CANCELED = TaskStatus.DONE, TaskStatus.PENDING, TaskStatus.CANCELED


def task(id_, kind, status, stream=None, members=(), subject=""):
    metadata = {"issue_number": members[0] if members else 1}
    if stream:
        metadata |= {
            "stream_id": stream,
            "stream_members": list(members),
            "epic_issue": 1,
            "worktree": f"GH-1-{stream}",
        }
    return Task(
        id=id_,
        run_id=1,
        key=f"{kind}:{id_}",
        kind=kind.value,
        role="builder",
        issues=tuple(members) or (1,),
        subject=subject or f"{kind} {id_}",
        metadata=metadata,
        status=status,
    )


def test_each_stream_says_where_it_is_built_and_how_far_it_got():
    tasks = [
        task(1, TaskKind.PLAN, CANCELED, subject="Plan group GH-2"),
        task(2, TaskKind.PLAN, DONE, "stream-2", [2]),
        task(3, TaskKind.MERGE, DONE, "stream-2", [2]),
        task(4, TaskKind.PLAN, DONE, "stream-3-4", [3, 4]),
        task(5, TaskKind.IMPLEMENT, PENDING, "stream-3-4", [3, 4], "Implement GH-3"),
        task(6, TaskKind.MERGE, PENDING, "stream-3-4", [3, 4]),
        task(7, TaskKind.REVIEW, CANCELED, "stream-3-4", [3, 4]),
    ]
    report = build_report(Run(id=1, name="hero GH-1", root_issue=1, mode="hero"), tasks, [], [], [])
    first, second = report.streams
    assert (first.id, first.issues, first.worktree, first.branch) == (
        "stream-2",
        (2,),
        "GH-1-stream-2",
        "feature/GH-1-stream-2",
    )
    assert (first.done, first.total, first.merged, first.at) == (2, 2, True, "")
    assert (second.id, second.issues) == ("stream-3-4", (3, 4))
    assert (second.done, second.total, second.merged, second.at) == (1, 3, False, "Implement GH-3")
    assert report.to_dict()["streams"][0]["worktree"] == "GH-1-stream-2"


def test_a_run_without_streams_reports_none():
    tasks = [task(1, TaskKind.PLAN, DONE)]
    assert (
        build_report(Run(id=1, name="r", root_issue=1, mode="hero"), tasks, [], [], []).streams
        == ()
    )
