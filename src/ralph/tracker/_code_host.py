"""The CodeHost interface: where a project's pull requests live, beside its tracker.

Pull requests, their reviews, review threads and check runs, and how the repository lets
them merge. The public methods check their input once and call a backend's primitive
(``_create_pull_request`` ...), so no backend repeats a check. A code host is given the
tracker whose issues its pull requests close: a merge crosses to it in one call,
``Tracker.close_merged``, so issues may live in one place (Linear, say) and pull
requests in another (GitHub).
"""

from __future__ import annotations

import abc
from collections.abc import Callable, Sequence
from dataclasses import replace

from ralph._secrets import redact
from ralph._text import check_title
from ralph.errors import InvalidInput
from ralph.tracker._fields import check_name
from ralph.tracker._model import MergeStrategy, PullRequest, PullRequestState
from ralph.tracker._pull_state import check_review
from ralph.tracker._reviews import (
    CheckRun,
    MergeSettings,
    Review,
    ReviewComment,
    ReviewEvent,
    ReviewThread,
    ThreadComment,
)
from ralph.tracker._tracker import Tracker

__all__ = ["CodeHost"]


class CodeHost(abc.ABC):
    """Pull requests from branch to branch, reviewed, checked and merged."""

    #: "local", "github", "memory": what logs and ``ralph pr`` call this host.
    kind: str = ""
    #: Whether Ralph runs a pull request's required check itself (the project's test
    #: command, recorded with ``record_check``) because no CI of the host runs it.
    runs_own_checks: bool = False
    #: Whether a merge lands on this repository's own branches (the local host), not on
    #: a remote's that Ralph fetches (GitHub, GitLab): where a merged change is looked for.
    merges_here: bool = False

    def __init__(self, tracker: Tracker, *, clock: Callable[[], float] | None = None) -> None:
        """``tracker``: where the issues are that a merged pull request closes."""
        self.tracker = tracker
        self._clock = clock or tracker.now

    def now(self) -> float:
        return self._clock()

    # -- reads --------------------------------------------------------------------------------

    @abc.abstractmethod
    def get_pull_request(self, number: int) -> PullRequest:
        """The pull request whole; PullRequestNotFound if there is none."""

    @abc.abstractmethod
    def list_pull_requests(
        self,
        *,
        issue: int | None = None,
        state: PullRequestState | None = None,
        head: str | None = None,
    ) -> list[PullRequest]:
        """Pull requests, oldest first; ``issue`` keeps those whose body closes it,
        ``head`` those from that branch (one request on GitHub, not a scan)."""

    @abc.abstractmethod
    def merge_settings(self) -> MergeSettings:
        """Which merge methods the repository allows, and whether merges queue."""

    # -- writes -------------------------------------------------------------------------------

    def create_pull_request(
        self, *, head: str, base: str, title: str, body: str = "", author: str = "ralph"
    ) -> PullRequest:
        """A pull request from branch ``head`` into ``base``; ``Closes #N`` lines in the
        body link it to those issues, which it closes when merged."""
        check_name(author, "the author")
        check_title(title, "a pull request")
        if head == base:
            raise InvalidInput(f"a pull request needs two branches; head and base are {head!r}")
        return self._create_pull_request(head, base, redact(title), redact(body), author)

    def merge_pull_request(
        self,
        number: int,
        strategy: MergeStrategy = MergeStrategy.MERGE,
        *,
        expected_head: str | None = None,
    ) -> PullRequest:
        """Merge head into base (MergeConflict, and nothing changed, when it does not merge
        cleanly), then close the issues the body names and move them to Done, through
        the tracker's ``close_merged``. ``expected_head``: the head commit the merge was
        decided on; HeadMoved, and nothing merged, when the branch has moved since."""
        return self._merge_pull_request(number, strategy, expected_head)

    def merge_message(self, number: int) -> str | None:
        """The message of the commit merging pull request ``number`` where Ralph's git
        makes it (the local host; None where the host makes its own): a merge train
        builds its prefix with it, so that the commit tested is the commit that lands."""
        return None

    def enqueue_pull_request(self, number: int, *, expected_head: str | None = None) -> PullRequest:
        """Put the pull request in its base's merge queue, where merges queue (GitHub);
        a host without one refuses. The host merges it later: ``settle_merged`` then
        moves its issues."""
        raise InvalidInput(f"the {self.kind} code host has no merge queue; merge instead")

    def settle_merged(self, number: int) -> None:
        """For a merged pull request: the moves its merge makes on the tracker (each issue
        it closes Done, audited, and closed) that are not made yet, as after a crash
        between the host's merge and them, or a merge the host's queue made. Nothing
        happens twice."""
        pr = self.get_pull_request(number)
        if pr.state is not PullRequestState.MERGED:
            raise InvalidInput(f"pull request #{number} is {pr.state.value}, not merged")
        self.tracker.close_merged(pr)

    @abc.abstractmethod
    def close_pull_request(self, number: int) -> PullRequest:
        """Close the open pull request unmerged; PullRequestNotOpen if it is not open."""

    # -- reviews, threads, checks -------------------------------------------------------------

    def submit_review(
        self,
        number: int,
        event: ReviewEvent,
        body: str = "",
        *,
        comments: Sequence[ReviewComment] = (),
        author: str = "ralph",
    ) -> Review:
        """A review of the pull request's current head. Each inline comment opens a
        thread. PullRequestNotFound; InvalidInput (one line, nothing recorded) when the
        pull request is not open, a change request or comment has no body, or an inline
        comment is on a file the pull request does not change."""
        check_review(event, body, comments, author)
        said = tuple(replace(c, body=redact(c.body)) for c in comments)
        return self._submit_review(number, event, redact(body), said, author)

    def reply_to_thread(self, thread_id: str, body: str, *, author: str = "ralph") -> ThreadComment:
        """A comment at the end of a review thread; InvalidInput for a thread there is
        not, or an empty body."""
        check_name(author, "the author")
        if not body.strip():
            raise InvalidInput("a reply on a review thread needs a body")
        return self._reply_to_thread(thread_id, redact(body), author)

    @abc.abstractmethod
    def resolve_thread(self, thread_id: str) -> ReviewThread:
        """Mark a review thread resolved (resolving a resolved one changes nothing)."""

    def request_review(self, number: int, reviewers: Sequence[str] = ()) -> None:
        """Ask for a review again (after the feedback was addressed); no reviewers: all
        who reviewed it. An outstanding change request stands until its author reviews
        again, as on GitHub."""
        for reviewer in reviewers:
            check_name(reviewer, "the reviewer")
        self._request_review(number, tuple(reviewers))

    def record_check(self, number: int, check: CheckRun) -> None:
        """Record a check run on the pull request's current head commit (replacing one
        of the same name there). Checks belong to a head: after a push the pull request
        has none until they run again. TrackerError where the host's CI posts them."""
        check_name(check.name, "the check's name")
        self._record_check(number, check)

    # -- primitives every backend implements --------------------------------------------------

    @abc.abstractmethod
    def _create_pull_request(
        self, head: str, base: str, title: str, body: str, author: str
    ) -> PullRequest: ...

    @abc.abstractmethod
    def _merge_pull_request(
        self, number: int, strategy: MergeStrategy, expected_head: str | None
    ) -> PullRequest:
        """Merge, then hand the merged pull request to ``self.tracker.close_merged``."""

    @abc.abstractmethod
    def _submit_review(
        self,
        number: int,
        event: ReviewEvent,
        body: str,
        comments: Sequence[ReviewComment],
        author: str,
    ) -> Review: ...

    @abc.abstractmethod
    def _reply_to_thread(self, thread_id: str, body: str, author: str) -> ThreadComment: ...

    @abc.abstractmethod
    def _request_review(self, number: int, reviewers: Sequence[str]) -> None: ...

    @abc.abstractmethod
    def _record_check(self, number: int, check: CheckRun) -> None: ...
