"""Nothing Done that is not merged: each look at the board (``ralph loop`` and ``ralph
serve`` on every read, ``ralph hero`` and ``team`` on their root as they start) finds a
merge left half-way and finishes it, or says so.

- A pull request merged (by a person on the host, ``ralph pr merge``, a merge queue, or
  a merge phase killed between the host's merge and the tracker's moves) whose issue is
  still in review or in progress, or Done without the note that finishes a merge: settled
  and finished as the merge phase finishes one (``sync_pull_request``). A person's own
  merge of a Ralph pull request is taken as merged.
- An issue Done whose change is not on the base branch: its pull request open (In Review
  again: the merge phase merges it), or merged as a commit the base no longer holds (a
  force-push, a push the remote refused: In Review again, the merge phase makes it
  again), or closed unmerged (Human Needed: a person decides). Each with a comment
  saying why.

A Done is sent back once per pull request: a person who moves the issue to Done again
has the last word (a change they decided is not wanted, its pull request closed).

Issues Done long ago are not read again on every look (their pull requests cost a
request each on GitHub): those updated in the last ``LOOK_BACK_SECONDS``, and every
issue a session starts on. A merge found on the base once is then only looked for on
the base (git), and a Done with nothing to watch not at all, until the issue changes.
An issue a phase holds (its lock in the store) is that phase's: a merge phase in the
middle of its merge is not finished under it; nor is a car of the repository's running
merge train (its conductor lands and finishes it). A merge is called lost only on the
base as fetched when it is judged, not as fetched earlier in the look.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from ralph.errors import RalphError
from ralph.phases._merged import noted
from ralph.phases._sync import Synced, sync_pull_request
from ralph.project import Project
from ralph.tracker import Issue, PullRequest, PullRequestState, StateChange
from ralph.workflow import Train, WorkflowState

__all__ = [
    "LOOK_BACK_SECONDS",
    "MergeLooks",
    "SendBack",
    "Settle",
    "judge_merged",
    "merge_on_base",
    "taken_back",
]

logger = logging.getLogger(__name__)

#: How long after its last change a Done issue is still looked at on every look.
LOOK_BACK_SECONDS = 14 * 24 * 3600.0
#: States where a merged pull request of the issue means its merge was left half-way:
#: the merge phase's, and those its merge may be made from by a person.
_MERGING_STATES = frozenset(
    {WorkflowState.IN_PROGRESS, WorkflowState.IN_REVIEW, WorkflowState.HUMAN_NEEDED}
)


@dataclass(frozen=True)
class Settle:
    """``pr`` merged and its follow-ups are not all made: make them."""

    pr: PullRequest


@dataclass(frozen=True)
class SendBack:
    """A Done issue whose change is not merged: move it to ``state``, saying ``why``."""

    pr: PullRequest
    state: WorkflowState
    why: str


def judge_merged(
    issue: Issue,
    requests: Sequence[PullRequest],
    on_base: Callable[[PullRequest], bool],
) -> Settle | SendBack | None:
    """What ``issue``'s pull requests (those that close it, oldest first) say of its
    being Done; ``on_base``: whether a merged one's commit is on its base branch. None:
    nothing to do (no pull request: a Done of a person's, a parent's; a Done a person
    made again after the issue was sent back for the same pull request). ``issue``
    with its comments: the notes of finished merges and of earlier send-backs."""
    closing = [pr for pr in requests if issue.number in pr.closes]
    merged = [pr for pr in closing if pr.state is PullRequestState.MERGED]
    landed = [pr for pr in merged if on_base(pr)]
    state = issue.workflow_state
    if state in _MERGING_STATES:
        unfinished = [pr for pr in landed if not noted(issue, pr)]
        return Settle(unfinished[-1]) if unfinished else None
    if state is not WorkflowState.DONE or not closing:
        return None
    if landed:
        return None if noted(issue, landed[-1]) else Settle(landed[-1])
    found = _send_back(issue.number, closing, merged)
    # Sent back once for this pull request, and Done again: a person's word, which stands.
    return None if taken_back(issue, found.pr) else found


def taken_back(issue: Issue, pr: PullRequest) -> bool:
    """Whether ``issue`` was sent back from Done once already for ``pr``."""
    said = f"#{issue.number} was Done, but "
    return any(
        c.body.startswith(said) and f"request #{pr.number}" in c.body for c in issue.comments
    )


def _send_back(n: int, closing: Sequence[PullRequest], merged: Sequence[PullRequest]) -> SendBack:
    if merged:
        pr = merged[-1]
        commit = (pr.merge_commit or "")[:7]
        return SendBack(
            pr,
            WorkflowState.IN_REVIEW,
            f"#{n} was Done, but pull request #{pr.number}'s merge ({commit}) is not on "
            f"{pr.base} any more (the branch was rewritten, or a push of it refused): "
            "back to In Review, so that the merge phase merges it again.",
        )
    opened = [pr for pr in closing if pr.state is PullRequestState.OPEN]
    if opened:
        pr = opened[-1]
        return SendBack(
            pr,
            WorkflowState.IN_REVIEW,
            f"#{n} was Done, but its pull request #{pr.number} is open, not merged: back "
            "to In Review, so that the merge phase merges it.",
        )
    pr = closing[-1]
    return SendBack(
        pr,
        WorkflowState.HUMAN_NEEDED,
        f"#{n} was Done, but its pull request #{pr.number} was closed without being "
        f"merged, so its change is not on {pr.base}: a person decides (open a new pull "
        f'request, or move #{n} to "In Progress" to build it again).',
    )


def merge_on_base(project: Project, pr: PullRequest, fetched: set[str] | None = None) -> bool:
    """Whether merged ``pr``'s commit is on its base branch as the code host has it
    (here for the local host; else the remote's, fetched once per look: ``fetched``
    holds the bases fetched). What cannot be told (no merge commit named, the base
    unknown or unreachable) is taken as on it: only a merge seen missing is a finding,
    and a merge missing from a base fetched earlier in the look (a merge train may
    have landed it since) is looked for again on the base fetched now."""
    commit = pr.merge_commit
    if not commit:
        return True
    git = project.git
    if project.code_host.merges_here or not git.has_remote():
        return _holds(project, commit, f"refs/heads/{pr.base}")
    base = f"refs/remotes/origin/{pr.base}"
    if fetched is not None and pr.base in fetched and _holds(project, commit, base):
        return True
    if git.run("fetch", "--quiet", "origin", f"+refs/heads/{pr.base}:{base}").returncode != 0:
        return True
    if fetched is not None:
        fetched.add(pr.base)
    return _holds(project, commit, base)


def _holds(project: Project, commit: str, base: str) -> bool:
    """Whether ``base`` as it is here holds ``commit`` (an unknown base: taken as so)."""
    git = project.git
    if base.startswith("refs/heads/"):  # read from its ref file where git keeps it in one
        tip = git.branch_tip(base.removeprefix("refs/heads/"))
    else:
        found = git.run("rev-parse", "--verify", "--quiet", base)
        tip = found.stdout.strip() if found.returncode == 0 else None
    if tip is None:
        return True
    # A commit the base as fetched just now (or made here) never had is no ancestor.
    return tip == commit or git.is_ancestor(commit, tip)


class MergeLooks:
    """The looks of one process (a loop, a service): what it found merged on the base
    once is not read from the code host again until the issue changes."""

    def __init__(self, project: Project) -> None:
        self.project = project
        #: issue -> (its updated_at when seen, the merged pull request found on the base)
        self._landed: dict[int, tuple[float, PullRequest]] = {}
        #: Done issues with nothing to do and no merge to watch -> their updated_at then.
        self._quiet: dict[int, float] = {}
        #: This look's list of the code host's pull requests, where issues name none.
        self._listed: list[PullRequest] | None = None
        #: Landed issues -> the tip of the (local) base their merge was last seen on. A
        #: base that only moved forward from there still holds it: one git call a look
        #: tells that for them all, instead of three per issue (a service reads the
        #: board after every root, and Done issues pile up).
        self._seen_on: dict[int, str] = {}
        #: (earlier tip, tip now) -> whether the base moved only forward, for this look.
        self._forward: dict[tuple[str, str], bool] = {}

    def look(self, issues: Iterable[Issue], *, every: bool = False) -> list[Synced]:
        """Finish or say each merge of ``issues`` (a board as just read) left half-way;
        ``every``: Done issues of any age too (a session's own). What cannot be read
        now is left for the next look."""
        fetched: set[str] = set()
        self._listed = None  # read again on each look
        self._forward = {}
        done = []
        oldest = self.project.tracker.now() - LOOK_BACK_SECONDS
        busy = self._held()
        for issue in issues:
            if issue.number in busy or not self._candidate(issue, oldest, every, fetched):
                continue
            try:
                found = self._look_at(issue, fetched)
            except RalphError as exc:
                logger.warning(
                    "merge left for the next look", extra={"issue": issue.number, "error": str(exc)}
                )
                continue
            if found is not None:
                done.append(found)
        return done

    def _held(self) -> set[int]:
        """Issues a phase holds now (its lock in the store), and the issues of every car
        of the repository's running merge train (its conductor lands them and moves
        them to Done as it goes): a merge in hand is that phase's to finish, not a
        look's."""
        store = self.project.store
        repo = self.project.repo_name
        now = time.time()
        held = {lock.number for lock in store.issue_locks(repo) if lock.expires_at > now}
        batch = store.unfinished_batch(repo)
        if batch is not None:
            held.update(n for car in Train.from_record(batch.train).cars for n in car.issues)
        return held

    def _candidate(self, issue: Issue, oldest: float, every: bool, fetched: set[str]) -> bool:
        state = issue.workflow_state
        if state in _MERGING_STATES:
            # A tracker that names none (Linear) is asked only for those in review.
            return bool(issue.pull_requests) or state is WorkflowState.IN_REVIEW
        if state is not WorkflowState.DONE or issue.archived:
            return False
        if not every and issue.updated_at < oldest:
            return False
        if self._quiet.get(issue.number) == issue.updated_at:
            return False
        seen = self._landed.get(issue.number)
        if seen is None or seen[0] != issue.updated_at:
            return True
        return not self._still_on_base(issue.number, seen[1], fetched)

    def _still_on_base(self, number: int, pr: PullRequest, fetched: set[str]) -> bool:
        """``merge_on_base`` for a merge seen on its base before: taken as still there
        while the local base has only moved forward since (a base rewritten under it is
        looked at again)."""
        tip = self._local_tip(pr)
        before = self._seen_on.get(number)
        if tip is not None and before is not None and self._moved_forward(before, tip):
            self._seen_on[number] = tip  # the next look compares with this tip
            return True
        on = merge_on_base(self.project, pr, fetched)
        if on and tip is not None:
            self._seen_on[number] = tip
        else:
            self._seen_on.pop(number, None)
        return on

    def _local_tip(self, pr: PullRequest) -> str | None:
        """The tip of ``pr``'s base where merges are judged on the local branch (the
        local host, or a repository without a remote); None where a remote's is fetched."""
        project = self.project
        if not project.code_host.merges_here and project.git.has_remote():
            return None
        return project.git.branch_tip(pr.base)

    def _moved_forward(self, before: str, tip: str) -> bool:
        if before == tip:
            return True
        if (before, tip) not in self._forward:
            self._forward[before, tip] = self.project.git.is_ancestor(before, tip)
        return self._forward[before, tip]

    def _look_at(self, issue: Issue, fetched: set[str]) -> Synced | None:
        project = self.project
        requests = sorted(self._requests_of(issue), key=lambda pr: pr.number)
        full = issue
        merged = any(pr.state is PullRequestState.MERGED for pr in requests)
        if requests and (merged or issue.workflow_state is WorkflowState.DONE):
            full = project.tracker.get_issue(issue.number)  # its comments: the notes
        found = judge_merged(full, requests, lambda pr: merge_on_base(project, pr, fetched))
        if found is None:
            self._remember(full, requests, fetched)
            return None
        if isinstance(found, Settle):
            synced = sync_pull_request(project, found.pr.number)
            self._landed.pop(issue.number, None)
            self._seen_on.pop(issue.number, None)
            return synced
        change = project.tracker.take_back_done(issue.number, found.state, found.why)
        self._landed.pop(issue.number, None)
        self._seen_on.pop(issue.number, None)
        return Synced(f"#{issue.number}", (change,), (_said(change, found),))

    def _requests_of(self, issue: Issue) -> list[PullRequest]:
        """The pull requests that close ``issue``. A tracker on another service than the
        code host (Linear) names none: the host's are listed once per look, not once
        per issue (a scan of them all on GitHub), and those that close it read whole."""
        project = self.project
        if project.config.code_host_kind == project.config.tracker:
            return project.pull_requests_of(issue)
        if self._listed is None:
            self._listed = project.code_host.list_pull_requests()
        host = project.code_host
        return [
            host.get_pull_request(pr.number) for pr in self._listed if issue.number in pr.closes
        ]

    def _remember(self, issue: Issue, requests: Sequence[PullRequest], fetched: set[str]) -> None:
        if issue.workflow_state is not WorkflowState.DONE:
            return
        for pr in reversed(requests):
            if pr.state is not PullRequestState.MERGED:
                continue
            tip = self._local_tip(pr)  # before the look: a tip that holds the merge
            if merge_on_base(self.project, pr, fetched):
                self._landed[issue.number] = (issue.updated_at, pr)
                if tip is not None:
                    self._seen_on[issue.number] = tip
                return
        self._quiet[issue.number] = issue.updated_at


def _said(change: StateChange, found: SendBack) -> str:
    return f"#{change.number}: Done -> {change.new} ({found.why.split(': ')[0]})."
