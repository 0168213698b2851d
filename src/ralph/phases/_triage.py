"""Triage (analyst; Backlog): decide what an issue needs next and apply it. The agent
may propose the XS fast track (``phases._fast_track``): the guards decide, and a
fast-tracked issue goes to In Progress with a plan Ralph wrote."""

from __future__ import annotations

from collections.abc import Sequence

from ralph.artifacts import ArtifactKind
from ralph.phases._context import PhaseContext
from ralph.phases._fast_track import FAST_TRACKED, decide_for, fast_track
from ralph.phases._phase import AlreadyDone, Attempt, NeedsHuman, Phase
from ralph.phases._schemas import ESTIMATES, TEXT, result_schema
from ralph.tracker import CloseReason, Issue
from ralph.workflow import MAX_FAST_TRACK_FILES, TRIAGED_LABEL, Estimate, WorkflowState

__all__ = ["TriagePhase"]

_S = WorkflowState
_CLOSE_REASONS = {
    "done": CloseReason.COMPLETED,
    "duplicate": CloseReason.DUPLICATE,
    "obsolete": CloseReason.NOT_PLANNED,
}


class TriagePhase(Phase):
    name = "triage"
    result_schema = result_schema(
        ["action", "reason"],
        {
            "action": {"enum": ["RESEARCH", "PLAN", "CLOSE", "SPLIT", "KEEP", "ESCALATE"]},
            "reason": TEXT,
            "estimate": {"enum": ESTIMATES},
            "close_reason": {"enum": list(_CLOSE_REASONS)},
            "duplicate_of": {"type": "integer"},
            "related": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["number", "order"],
                    "properties": {
                        "number": {"type": "integer"},
                        "order": {"enum": ["before", "after"]},
                    },
                },
            },
            "fast_track": {
                "type": "boolean",
                "description": "XS and concrete: skip research and plan (Ralph's guards decide)",
            },
            "fast_track_reason": TEXT,
            "files": {
                "type": "array",
                "items": {"type": "string"},
                "description": f"the files the change touches (1 to {MAX_FAST_TRACK_FILES})",
            },
        },
    )

    def check(self, ctx: PhaseContext, members: Sequence[Issue]) -> None:
        issue = members[0]
        if TRIAGED_LABEL in issue.labels:
            raise AlreadyDone(
                f"#{issue.number} was triaged already (label {TRIAGED_LABEL}); remove the label "
                "to triage it again"
            )
        self.check_state(issue)

    def apply(self, ctx: PhaseContext, members: Sequence[Issue], attempt: Attempt) -> None:
        issue = members[0]
        result = attempt.result
        tracker = ctx.tracker
        n = issue.number
        if issue.estimate is None and result.get("estimate"):
            tracker.update_issue(n, estimate=Estimate(result["estimate"]))
            ctx.say(f"Estimated #{n} {result['estimate']}.")
        self._relate(ctx, issue, result.get("related", []))
        action, reason = result["action"], result["reason"]
        note = ""
        # Only research or a plan can be skipped: the agent proposes, the guards decide.
        track = None
        if action in ("RESEARCH", "PLAN") and result.get("fast_track"):
            track = decide_for(ctx, issue, result)
            if not track.granted:
                said = " ".join(str(result.get("fast_track_reason", "")).split())
                proposed = f" (proposed: {said})" if said else ""
                note = f"{FAST_TRACKED} refused{proposed}: {track.reason}.\n\n"
        if track is not None and track.granted:
            note = (
                f"{FAST_TRACKED}: {track.reason}. Ralph wrote the plan from the issue; "
                "moved to In Progress for implementation (no research, plan or review)."
            )
        elif action == "RESEARCH":
            ctx.move(n, _S.RESEARCH_NEEDED, command=self.command)
            note += "Moved to Research Needed for investigation."
        elif action == "PLAN":
            # Planning needs a research document; without one the issue goes to research.
            if ctx.find(ArtifactKind.RESEARCH, issue) is not None:
                ctx.move(n, _S.READY_FOR_PLAN, command=self.command)
                note += "Moved to Ready for Plan."
            else:
                ctx.move(n, _S.RESEARCH_NEEDED, command=self.command)
                note += (
                    "Ready for a plan, but planning needs a research document first: "
                    "moved to Research Needed."
                )
        elif action == "CLOSE":
            why = result.get("close_reason", "done")
            if result.get("duplicate_of"):
                reason = f"{reason} (duplicate of #{result['duplicate_of']})"
            note = f"Closing as {why}."
        elif action == "SPLIT":
            note = "Too large for one implementation: stays in Backlog for splitting."
        elif action == "KEEP":
            note = "Kept in Backlog as it is."
        elif action == "ESCALATE":
            self._label(ctx, n)
            raise NeedsHuman(reason)
        # A fast track skips research and planning: its action is the implementation.
        shown = "IMPLEMENT" if track is not None and track.granted else action
        estimated = (
            f"Estimate: **{result['estimate']}** (the issue had none; triage sized it)\n\n"
            if issue.estimate is None and result.get("estimate")
            else ""
        )
        ctx.comment_once(
            n,
            f"## Triage\n\nAction: **{shown}**\n\n{estimated}{reason}\n\n{note}".strip() + "\n",
        )
        if track is not None and track.granted:  # before the label: a rerun may finish it
            files = [str(f) for f in result.get("files", [])]
            path = fast_track(ctx, issue, files, track.reason, command=self.command)
            ctx.say(f"{FAST_TRACKED} for #{n}: {track.reason}; plan {path}; In Progress.")
        elif track is not None:
            ctx.say(f"{FAST_TRACKED} refused for #{n}: {track.reason}.")
        self._label(ctx, n)
        if action == "CLOSE":
            ctx.move(n, _S.DONE, command=self.command)
            original = result.get("duplicate_of")
            tracker.close_issue(
                n,
                _CLOSE_REASONS[result.get("close_reason", "done")],
                duplicate_of=original if original != n else None,
            )
        ctx.say(" ".join(f"Triaged #{n}: {action}. {note}".split()))

    @staticmethod
    def _label(ctx: PhaseContext, number: int) -> None:
        labels = ctx.tracker.get_issue(number).labels
        if TRIAGED_LABEL not in labels:
            ctx.tracker.update_issue(number, labels=[*labels, TRIAGED_LABEL])

    def _relate(
        self, ctx: PhaseContext, issue: Issue, related: Sequence[dict[str, object]]
    ) -> None:
        if not related:
            return
        tracker = ctx.tracker
        lines, order = [], [issue.number]
        for entry in related:
            other = int(str(entry["number"]))
            if entry["order"] == "before":  # this issue comes first: it blocks the other
                blocked, blocking = other, issue.number
                order.append(other)
                lines.append(f"- #{other} depends on this issue")
            else:
                blocked, blocking = issue.number, other
                order.insert(0, other)
                lines.append(f"- this issue depends on #{other}")
            if blocking not in tracker.get_issue(blocked).blocked_by:
                tracker.add_dependency(blocked, blocking)
        steps = "\n".join(f"{i}. #{n}" for i, n in enumerate(order, start=1))
        ctx.comment_once(
            issue.number,
            "## Grouped for Atomic Implementation\n\n"
            + "\n".join(lines)
            + f"\n\n**Implementation order**:\n{steps}\n\n"
            "**Rationale**: related work is planned and implemented together, in dependency "
            "order.\n",
        )
        others = ", ".join(f"#{entry['number']}" for entry in related)
        ctx.say(f"Linked #{issue.number} with {others}.")
