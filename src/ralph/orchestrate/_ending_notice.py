"""The word to a person when a session of a run ends: how it ended, what waits for them
(a plan to approve, a pull request to review or merge) and a budget that stopped it."""

from __future__ import annotations

from ralph.notify import EventKind, budget_stopped, person_needed, run_ended
from ralph.orchestrate._lead import Ending, RunVerdict
from ralph.project import Project

__all__ = ["notify_ending"]

#: Each ending in a person's words.
_SAID = {
    Ending.FINISHED: "finished",
    Ending.WAITING_FOR_HUMAN: "waits for a person",
    Ending.OUT_OF_BUDGET: "stopped: out of budget",
    Ending.INTERRUPTED: "stopped",
    Ending.PHASES_DONE: "did the phases asked for",
    Ending.AGENT_UNUSABLE: "stopped: the agent cannot work here",
    Ending.BROKEN: "failed",
}


def notify_ending(
    project: Project, root: int, run_id: int, ending: Ending, verdict: RunVerdict
) -> None:
    """Tell the project's notifier how the session ended (it sends in the background)."""
    repo = project.config.repo or project.git.path.name
    notifier = project.notifier
    for kind, tasks in (
        (EventKind.APPROVAL_NEEDED, verdict.gates),
        (EventKind.REVIEW_NEEDED, verdict.waiting),
    ):
        for task in tasks:
            notifier.notify(
                person_needed(
                    kind,
                    repo,
                    run_id,
                    task.issues[0],
                    subject=task.subject,
                    reason=task.waiting_for or "",
                )
            )
    if ending is Ending.OUT_OF_BUDGET:
        notifier.notify(budget_stopped(repo, run_id, root, reason=verdict.detail))
    said = _SAID.get(ending, ending.value)
    notifier.notify(
        run_ended(repo, run_id, root, outcome=ending.value, said=said, reason=verdict.detail)
    )
