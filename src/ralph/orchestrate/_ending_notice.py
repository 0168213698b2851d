"""The word to a person when a session of a run ends: how it ended, what waits for them
(a plan to approve, a pull request to review or merge) and a budget that stopped it."""

from __future__ import annotations

from ralph.notify import EventKind, budget_stopped, person_needed, run_ended
from ralph.orchestrate._lead import Ending, RunVerdict
from ralph.orchestrate._outcome import Outcome
from ralph.project import Project

__all__ = ["notify_ending"]

#: Why a run that stopped short stopped, where the outcome alone does not say.
_WHY = {
    Ending.OUT_OF_BUDGET: "out of budget",
    Ending.AGENT_UNUSABLE: "the agent cannot work here",
    Ending.PHASES_DONE: "did the phases asked for",
}


def notify_ending(
    project: Project,
    root: int,
    run_id: int,
    ending: Ending,
    verdict: RunVerdict,
    outcome: Outcome,
) -> None:
    """Tell the project's notifier how the session ended (it sends in the background),
    in the run's outcome, as ``ralph runs list`` says it."""
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
    why = _WHY.get(ending)
    said = f"{outcome.words}: {why}" if why else outcome.words
    notifier.notify(
        run_ended(repo, run_id, root, outcome=outcome.value, said=said, reason=verdict.detail)
    )
