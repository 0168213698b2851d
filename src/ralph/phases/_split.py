"""Split (analyst; Backlog or Research Needed; M/L/XL without sub-issues): the agent
proposes XS/S sub-issues; the runner creates and links them, orders them with
dependencies, and reports the split on the parent, which stays as the epic."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ralph._text import one_line
from ralph.phases._context import PhaseContext
from ralph.phases._phase import (
    AlreadyDone,
    Attempt,
    NeedsHuman,
    Phase,
    PhaseRefused,
    Workspace,
)
from ralph.phases._schemas import TEXT, result_schema
from ralph.runtimes import AgentResult
from ralph.tracker import Issue, NewIssue
from ralph.workflow import OVERSIZED_ESTIMATES, TRIAGED_LABEL, Estimate, WorkflowState

__all__ = ["SPLIT_HEADER", "SplitPhase"]

SPLIT_HEADER = "## Issue Split"
_BODY_PREFIX = (
    "## Split into Sub-Issues\n"
    "This issue has been decomposed. See children and comments for details.\n\n"
)
_SECTIONS = ("## Summary", "## Scope", "## Acceptance Criteria", "## Out of Scope")
_POINTS = {"XS": 1, "S": 2, "M": 3, "L": 5, "XL": 8}
_PLACES = [WorkflowState.RESEARCH_NEEDED.value, WorkflowState.READY_FOR_PLAN.value, "Backlog"]


def _title(sub: Mapping[str, Any]) -> str:
    """A proposed sub-issue's title as one line. Made one rather than refused: the rest
    of the split is good, and a retry costs a whole agent run for a cosmetic fault (an
    agent the issue talked into it gains nothing, as the title is one line either way).
    A blank one the schema refuses (Python strips every line break we would make a
    space)."""
    return one_line(str(sub.get("title", ""))).strip()


class SplitPhase(Phase):
    name = "split"
    result_schema = result_schema(
        ["sub_issues"],
        {
            "sub_issues": {
                "type": "array",
                "minItems": 1,
                "items": {
                    "type": "object",
                    "required": ["title", "body", "estimate"],
                    "properties": {
                        "title": TEXT,
                        "body": TEXT,
                        "estimate": {"enum": ["XS", "S"]},
                        "after": {"type": "array", "items": {"type": "integer", "minimum": 1}},
                        "reuse": {"type": "integer"},
                        "state": {"enum": _PLACES},
                    },
                },
            },
            "summary": {"type": "string"},
        },
    )

    def check(self, ctx: PhaseContext, members: Sequence[Issue]) -> None:
        issue = members[0]
        split_before = any(c.body.startswith(SPLIT_HEADER) for c in issue.comments)
        if split_before and issue.sub_issues:
            children = ", ".join(f"#{n}" for n in issue.sub_issues)
            raise AlreadyDone(f"#{issue.number} was split already into {children}")
        if issue.estimate not in OVERSIZED_ESTIMATES:
            size = issue.estimate.value if issue.estimate else "not estimated"
            raise PhaseRefused(
                f"#{issue.number} is {size}: only M, L and XL issues are split "
                f"(set one with ralph issue estimate {issue.number} M)"
            )
        self.check_state(issue)

    def validate(
        self, ctx: PhaseContext, members: Sequence[Issue], space: Workspace, result: AgentResult
    ) -> list[str]:
        problems = []
        subs: Sequence[Mapping[str, Any]] = (result.result or {}).get("sub_issues", [])
        for index, sub in enumerate(subs, start=1):
            missing = [s for s in _SECTIONS if s not in str(sub.get("body", ""))]
            if missing:
                problems.append(f"sub-issue {index} lacks {', '.join(missing)}")
            bad = [k for k in sub.get("after", []) if not 1 <= k < index]
            if bad:
                problems.append(
                    f"sub-issue {index} comes after {bad}: only earlier sub-issues can be named"
                )
        return problems

    def apply(self, ctx: PhaseContext, members: Sequence[Issue], attempt: Attempt) -> None:
        parent = members[0]
        tracker = ctx.tracker
        labels = [label for label in parent.labels if label != TRIAGED_LABEL]
        existing = {tracker.get_issue(n).title.strip().casefold(): n for n in parent.sub_issues}
        self._check_room(ctx, parent, attempt.result["sub_issues"], existing)
        found: dict[int, int] = {}
        tags: list[str] = []
        fresh: dict[int, NewIssue] = {}
        for index, sub in enumerate(attempt.result["sub_issues"]):
            estimate = Estimate(sub["estimate"])
            title = _title(sub)
            reuse = sub.get("reuse") or existing.get(title.casefold())
            if reuse:  # an existing child, or one an interrupted run created already
                tracker.update_issue(reuse, estimate=estimate)  # also puts it on the board
                if tracker.get_issue(reuse).parent != parent.number:
                    tracker.add_sub_issue(parent.number, reuse)
                found[index] = reuse
                tags.append("REUSED")
                continue
            fresh[index] = NewIssue(
                title,
                body=sub["body"],
                parent=parent.number,
                state=WorkflowState.BACKLOG,
                estimate=estimate,
                labels=tuple(labels),
            )
            tags.append("NEW")
        # Together: one request where requests cost, in the agent's order.
        made = tracker.create_issues(list(fresh.values()))
        found.update(zip(fresh, (child.number for child in made), strict=True))
        numbers = [found[index] for index in range(len(attempt.result["sub_issues"]))]
        places = [
            (number, sub.get("state", WorkflowState.RESEARCH_NEEDED.value))
            for sub, number in zip(attempt.result["sub_issues"], numbers, strict=True)
        ]
        self._place(ctx, places)
        edges = [
            (number, numbers[earlier - 1])
            for sub, number in zip(attempt.result["sub_issues"], numbers, strict=True)
            for earlier in sub.get("after", [])
            if numbers[earlier - 1] not in tracker.get_issue(number).blocked_by
        ]
        # Together: one request where requests cost; each edge once.
        tracker.add_dependencies(list(dict.fromkeys(edges)))
        self._report(ctx, parent, numbers)
        if not parent.body.startswith(_BODY_PREFIX):
            tracker.update_issue(parent.number, body=_BODY_PREFIX + parent.body)
        for number, tag in zip(numbers, tags, strict=True):
            issue = tracker.get_issue(number)
            state = issue.workflow_state.value if issue.workflow_state else "-"
            ctx.say(f"  #{number} {issue.title} ({issue.estimate}, {state}) [{tag}]")

    def _check_room(
        self,
        ctx: PhaseContext,
        parent: Issue,
        subs: Sequence[Mapping[str, Any]],
        existing: Mapping[str, int],
    ) -> None:
        """Refuse, before creating any child, a split the tracker cannot hold: more
        sub-issues than a parent may have, or children deeper than a tree may go."""
        tracker = ctx.tracker
        new = sum(1 for s in subs if not (s.get("reuse") or _title(s).casefold() in existing))
        most = tracker.max_sub_issues
        if most is not None and len(parent.sub_issues) + new > most:
            raise NeedsHuman(
                f"#{parent.number} has {len(parent.sub_issues)} sub-issues and the split adds "
                f"{new}: {tracker.kind} allows at most {most} per parent"
            )
        levels, above = 1, parent.parent
        while above is not None:
            levels += 1
            above = tracker.get_issue(above).parent
        if tracker.max_levels is not None and levels + 1 > tracker.max_levels:
            raise NeedsHuman(
                f"#{parent.number} is {levels} levels deep: its sub-issues would exceed "
                f"{tracker.kind}'s {tracker.max_levels} levels"
            )

    def _place(self, ctx: PhaseContext, places: Sequence[tuple[int, str]]) -> None:
        """Move the sub-issues where the split puts them, those bound for one state
        together (a tracker whose writes cost requests sends them in one). One not placed
        yet (no state: an interrupted run created it and died before it joined the board;
        or Backlog, where it is created) is placed; one a person has moved on is left
        where it is."""
        moving: dict[str, list[int]] = {}
        for number, place in places:
            state = ctx.tracker.get_issue(number).workflow_state
            if state is None or (state is WorkflowState.BACKLOG and place != state):
                moving.setdefault(place, []).append(number)
        for place, numbers in moving.items():
            ctx.tracker.set_states(numbers, place, command=self.command)

    def _report(self, ctx: PhaseContext, parent: Issue, numbers: Sequence[int]) -> None:
        tracker = ctx.tracker
        children = [tracker.get_issue(n) for n in numbers]
        rows = "\n".join(
            f"| {i} | #{c.number} | {c.title} | {c.estimate} |"
            for i, c in enumerate(children, start=1)
        )
        chain = " -> ".join(f"#{c.number}" for c in children)
        total = sum(_POINTS[str(c.estimate)] for c in children if c.estimate)
        original = parent.estimate.value if parent.estimate else "-"
        ctx.comment_once(
            parent.number,
            f"{SPLIT_HEADER}\n\n| Order | Issue | Title | Estimate |\n|---|---|---|---|\n{rows}\n\n"
            f"**Dependency chain**: {chain}\n\n"
            f"Original estimate: {original}. Total after split: {total} points across "
            f"{len(children)} issues.\n\n*Split by `ralph run split`*\n",
        )
        ctx.say(f"Split #{parent.number} into {len(children)} sub-issues; it stays the epic.")
