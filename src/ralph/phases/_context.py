"""What every phase works with: the project's adapters plus the reads and writes phases
share (documents on the base branch, comments posted once, moves of held issues), and
issues as agents see them."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date

from ralph._secrets import redact
from ralph.artifacts import ArtifactKind, Discovery, Links, Verdict, discover, parse_verdict
from ralph.errors import RalphError, StateConflict
from ralph.git import Worktrees, commit_files
from ralph.graph import ReviewMode
from ralph.phases._comments import for_agents
from ralph.phases._prompts import PromptOverride
from ralph.project import Project
from ralph.runtimes import Document, IssueContext
from ralph.tasks import Claim, Task
from ralph.tracker import CodeHost, Issue, PullRequest, StateChange, Tracker
from ralph.workflow import WorkflowState, parse_transition_comments

__all__ = ["MovedMeanwhile", "PhaseContext"]

logger = logging.getLogger(__name__)
_PERSON = "ralph_human"


class MovedMeanwhile(RalphError):
    """An issue the phase holds was moved by someone else (a person, usually to Human
    Needed) while the phase ran: their move wins and the phase stops."""

    def __init__(
        self, number: int, state: WorkflowState | None, by: str, *, closed: bool = False
    ) -> None:
        self.number = number
        self.state = state
        self.by = by
        self.closed = closed
        if closed:
            what = "closed"
        elif state is None:  # on GitHub: the card was taken off the board
            what = "taken off the board"
        else:
            what = f"moved to {state.value}"
        super().__init__(f"#{number} was {what} by {by}")


def _mover(issue: Issue) -> str:
    """Who put the issue in its state: a Ralph command its audit comment names, else a
    person (``ralph issue move``, or a board edited by hand, which leaves no audit)."""
    state = issue.workflow_state.value if issue.workflow_state else None
    records = [r for c in issue.comments for r in parse_transition_comments(c.body)]
    if records and records[-1].to_state == state and records[-1].command != _PERSON:
        return records[-1].command
    return "a person"


#: How the review comment links its critique (``phases._review``).
_CRITIQUE_LINK = "Full critique: "


@dataclass
class PhaseContext:
    project: Project
    day: date
    #: Blob URLs on a GitHub board, repository-relative paths on the local tracker.
    links: Links = field(default_factory=Links)
    #: How reports name the agent runtime ("simulated agent (scripted)").
    agent: str = ""
    #: Lines reporting what the phase did, in order (the CLI prints them).
    said: list[str] = field(default_factory=list)
    #: Where its agents wrote outside their working directory, one line each.
    breaches: list[str] = field(default_factory=list)
    #: The issues of the work stream this run is limited to (empty: not a stream).
    stream: tuple[int, ...] = ()
    #: How plans are approved in this run; None: ralph.toml's ``review_mode``.
    review_mode: ReviewMode | None = None
    #: The project's own prompt for the phase, loaded and checked before it starts.
    prompt_override: PromptOverride | None = None
    #: The task of a run the phase works for (None outside a run: ``ralph run``): its
    #: run, id and serialisation key (the merge train's conductor reads them).
    task: Task | None = None
    #: The worker's claim of ``task`` (None outside a run): the merge train's conductor
    #: heartbeats it before each test and each merge (LeaseLost: it stops) and fences
    #: its batch's saves with it, so a conductor whose batch was taken over stops.
    claim: Claim | None = None

    #: The issues the phase holds and the state it left each in (its lock state): the
    #: phase moves them only from there, so a person's move meanwhile wins.
    held: dict[int, WorkflowState] = field(default_factory=dict)
    #: The held issues that were open when the phase took them.
    held_open: set[int] = field(default_factory=set)
    #: The pull request a merge found for each issue, by number (None: none): its
    #: members, check and apply look it up once.
    found_pull_requests: dict[int, PullRequest | None] = field(default_factory=dict)
    #: The pull requests this phase run merged (a merge train's cars), as the merge
    #: answered: merged is final, so what follows needs no read to know it.
    merged: dict[int, PullRequest] = field(default_factory=dict)

    def __post_init__(self) -> None:
        config = self.project.config
        if self.project.tracker.links_on_host and not self.links.owner:
            # As the original: artifact comments link the file on GitHub.
            self.links = Links(
                config.github.owner,
                config.github.repo,
                config.base_branch,
                web=config.github.web_url,
            )

    @property
    def tracker(self) -> Tracker:
        return self.project.tracker

    @property
    def code_host(self) -> CodeHost:
        return self.project.code_host

    @property
    def base(self) -> str:
        return self.project.config.base_branch

    @property
    def skips_review(self) -> bool:
        """Plans go to implementation without a review (``review_mode = "skip"``)."""
        return (self.review_mode or self.project.config.review_mode) is ReviewMode.SKIP

    @property
    def worktrees(self) -> Worktrees:
        return Worktrees(self.project.git)

    def say(self, line: str) -> None:
        self.said.append(line)

    # -- documents on the base branch ---------------------------------------------------

    def base_files(self) -> list[str]:
        return self.project.git.files_on(self.base, "thoughts")

    def read_base(self, path: str) -> str | None:
        return self.project.git.read_on(self.base, path)

    def find(
        self,
        kind: ArtifactKind,
        issue: Issue,
        *,
        group_primary: int | None = None,
        heal: bool = True,
    ) -> Discovery | None:
        """The issue's document of ``kind`` on the base branch; one found only by its
        file name is linked again with a self-healing comment (unless ``heal`` is False:
        a read that must not write, racing the phase that is about to link it)."""
        comments = [c.body for c in issue.comments]
        found = discover(
            kind,
            issue.number,
            comments,
            self.base_files(),
            self.links,
            group_primary=group_primary,
        )
        if found is None or self.read_base(found.path) is None:
            return None
        if found.needs_self_heal and heal:
            self.comment_once(issue.number, found.heal_comment(kind, self.links))
        return found

    def document(self, kind: ArtifactKind, issue: Issue, *, heal: bool = True) -> Document | None:
        found = self.find(kind, issue, heal=heal)
        if found is None:
            return None
        return Document(kind.value, found.path, self.read_base(found.path) or "")

    def critique(self, issue: Issue) -> Document | None:
        """The reviewer's critique behind the issue's last verdict, when that verdict
        asks for another plan (the review comment's ``Full critique:`` line links it)."""
        for comment in reversed(issue.comments):
            verdict = parse_verdict(comment.body)
            if verdict is None:
                continue
            if verdict is not Verdict.NEEDS_ITERATION:
                return None
            for line in comment.body.splitlines():
                if line.startswith(_CRITIQUE_LINK):
                    path = self.links.path(line.removeprefix(_CRITIQUE_LINK))
                    text = self.read_base(path)
                    return Document(ArtifactKind.REVIEW.value, path, text) if text else None
            return None
        return None

    def commit_documents(self, files: Mapping[str, str], message: str) -> None:
        """Commit ``files`` to the base branch (nothing if they are there already) and
        push it when the repository has a remote."""
        git = self.project.git
        if git.has_remote():  # GitHub may have merged pull requests since
            git.fast_forward_from(self.base)
        commit = commit_files(git, self.base, files, message)
        if commit is not None:
            self.say(f"Committed {', '.join(files)} to {self.base} ({commit[:7]}).")
        if git.has_remote():
            git.push(self.base)

    # -- issues -------------------------------------------------------------------------

    def still_held(self) -> None:
        """Raise MovedMeanwhile if an issue the phase holds is no longer where it left it."""
        for number, state in self.held.items():
            issue = self.project.tracker.get_issue(number)
            if issue.workflow_state is not state:
                raise MovedMeanwhile(number, issue.workflow_state, _mover(issue))
            if number in self.held_open and not issue.is_open:
                raise MovedMeanwhile(number, issue.workflow_state, "a person", closed=True)

    def move(self, number: int, state_or_intent: str, *, command: str) -> StateChange:
        """The phase's own move of an issue: for a held issue a compare-and-set from the
        state the phase left it in (MovedMeanwhile when someone moved it since)."""
        held = self.held.get(number)
        try:
            change = self.project.tracker.set_state(
                number, state_or_intent, command=command, only_from=held
            )
        except StateConflict:
            if held is None:
                raise
            issue = self.project.tracker.get_issue(number)
            raise MovedMeanwhile(number, issue.workflow_state, _mover(issue)) from None
        if held is not None:
            self.held[number] = change.new
        return change

    def move_all(
        self, numbers: Sequence[int], state_or_intent: str, *, command: str
    ) -> list[StateChange]:
        """``move`` on each issue, sent together (a tracker whose writes cost requests
        carries several issues' moves, with their notes, in one)."""
        held = {n: self.held[n] for n in numbers if n in self.held}
        try:
            changes = self.project.tracker.set_states(
                numbers, state_or_intent, command=command, only_from=held
            )
        except StateConflict as conflict:
            if conflict.number not in held:
                raise
            issue = self.project.tracker.get_issue(conflict.number)
            raise MovedMeanwhile(conflict.number, issue.workflow_state, _mover(issue)) from None
        for change in changes:
            if change.number in held:
                self.held[change.number] = change.new
        return changes

    def comment_once(self, number: int, body: str) -> bool:
        """Post ``body`` unless the issue already has exactly this comment (a rerun after
        a crash must not post twice). True when posted."""
        body = redact(body)  # a secret printed by agent-written code never gets posted
        issue = self.project.tracker.get_issue(number)
        stored = self.project.tracker.stored_text(body).strip()
        if any(comment.body.strip() == stored for comment in issue.comments):
            return False
        self.project.tracker.add_note(number, body)  # with the issue's next move
        return True

    def issue_context(self, issue: Issue, *, children: bool = False) -> IssueContext:
        documents = [
            doc
            for kind in (ArtifactKind.RESEARCH, ArtifactKind.PLAN)
            if (doc := self.document(kind, issue)) is not None
        ]
        kids: Sequence[tuple[int, str]] = ()
        if children:
            kids = [(n, self.project.tracker.get_issue(n).title) for n in issue.sub_issues]
        return IssueContext(
            number=issue.number,
            title=issue.title,
            body=issue.body,
            url=issue.url,
            state=issue.workflow_state.value if issue.workflow_state else None,
            estimate=issue.estimate.value if issue.estimate else None,
            labels=issue.labels,
            comments=for_agents(c.body for c in issue.comments),
            parent=issue.parent,
            children=tuple(kids),
            blocked_by=issue.blocked_by,
            documents=tuple(documents),
        )
