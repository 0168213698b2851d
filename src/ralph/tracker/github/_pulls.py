"""The GitHub code host: a repository's pull requests. One request reads a pull request
with everything the merge policy judges (checks with ``isRequired``, reviews, review threads,
``reviewDecision``, ``mergeStateStatus``, ``mergeable``, the head oid), and the writes
on it: reviews, thread replies and resolutions, review requests, merges and the merge
queue.

A merge names the head it was decided on (``expectedHeadOid``) and the method the
repository allows; after any refusal or lost answer the pull request is read again and
MERGED is success (GitHub has answered "not mergeable" for merges that landed). "Base
branch was modified" is tried again, a few times; GitHub's other refusals come back as
``MergeBlocked`` in GitHub's words, ``MergeConflict`` only when the head conflicts.
Reviews and replies carry an operation marker, so a lost answer is reconciled, never
posted twice."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from typing import TYPE_CHECKING, Any

from ralph.errors import (
    GitHubInvalid,
    GitHubNotFound,
    GitHubUnavailable,
    HeadMoved,
    InvalidInput,
    MergeBlocked,
    MergeConflict,
    PullRequestNotFound,
    PullRequestNotOpen,
    TrackerError,
)
from ralph.github import GitHubClient, marker
from ralph.github import queries as q
from ralph.tracker._code_host import CodeHost
from ralph.tracker._model import MergeStrategy, PullRequest, PullRequestState
from ralph.tracker._pull_state import not_reviewable
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
from ralph.tracker.github._body import fit_body
from ralph.tracker.github._issues import GitHubIssues
from ralph.tracker.github._pull_read import (
    merge_settings_from,
    pull_request_from,
    review_from,
    thread_comment_from,
    thread_from,
)

if TYPE_CHECKING:
    from ralph.tracker.github._tracker import GitHubTracker

__all__ = ["GitHubCodeHost"]

#: How many times a merge GitHub refused with "Base branch was modified" is sent, and
#: the first wait between (doubling): the base moved under it, a retry usually merges.
BASE_MOVED_TRIES = 3
BASE_MOVED_WAIT = 2.0
_BASE_MODIFIED = "base branch was modified"
_HEAD_MODIFIED = "head branch was modified"
_NOT_MERGEABLE = "not mergeable"
#: Merge states in which GitHub would merge now.
_READY = frozenset({"CLEAN", "UNSTABLE", "HAS_HOOKS"})
_SETTING = {
    MergeStrategy.MERGE: "merge_commit",
    MergeStrategy.SQUASH: "squash",
    MergeStrategy.REBASE: "rebase",
}
#: Where the whole of a cut review or reply is.
_IN_GIT = "in the pull request's branch"


def _allowed(settings: MergeSettings) -> list[str]:
    return [s.value for s, name in _SETTING.items() if getattr(settings, name)]


class GitHubCodeHost(CodeHost):
    """The pull requests of ``owner/repo`` on GitHub, closing issues of ``tracker`` when
    they merge. ``repository``: the repository's node (its id and merge settings) where
    the tracker reads it already (the GitHub tracker, in its first request); None reads
    it here, once."""

    kind = "github"

    def __init__(
        self,
        client: GitHubClient,
        *,
        owner: str,
        repo: str,
        tracker: Tracker,
        repository: Callable[[], Mapping[str, Any]] | None = None,
        clock: Callable[[], float] | None = None,
    ) -> None:
        super().__init__(tracker, clock=clock)
        self.client = client
        self._where = {"owner": owner, "name": repo}
        self._repository = repository or self._read_repository
        self._read: dict[str, Any] | None = None

    @classmethod
    def of(cls, tracker: GitHubTracker) -> GitHubCodeHost:
        """The pull requests of the GitHub tracker's repository, through its client and
        its one read of the repository."""
        return cls(
            tracker.client,
            owner=tracker.owner,
            repo=tracker.repo,
            tracker=tracker,
            repository=tracker.repository,
        )

    def _read_repository(self) -> Mapping[str, Any]:
        if self._read is None:
            self._read = dict(self.client.query(q.REPOSITORY, self._where)["repository"])
        return self._read

    def merge_settings(self) -> MergeSettings:
        """How the repository lets pull requests merge, read once."""
        return merge_settings_from(self._repository())

    # -- reads ------------------------------------------------------------------------------

    def node(self, number: int) -> dict[str, Any]:
        """The pull request whole, its threads past the first page paged in."""
        variables = {**self._where, "number": number}
        try:
            data = self.client.query(q.PULL_REQUEST, variables)
        except GitHubNotFound:
            raise PullRequestNotFound(number) from None
        node = (data.get("repository") or {}).get("pullRequest")
        if node is None:
            raise PullRequestNotFound(number)
        node = dict(node)
        threads = node.get("reviewThreads") or {}
        page = threads.get("pageInfo") or {}
        if page.get("hasNextPage"):
            rest = self.client.pages(
                q.PULL_REQUEST_THREADS,
                variables,
                ("repository", "pullRequest", "reviewThreads"),
                after=page.get("endCursor"),
            )
            node["reviewThreads"] = {"nodes": [*threads.get("nodes", []), *rest]}
        return node

    def _pull_request(
        self, node: Mapping[str, Any], threads: list[Mapping[str, Any]] | None = None
    ) -> PullRequest:
        # The closing words are the tracker's: Linear's issues beside GitHub's pull requests
        # are closed by their identifiers, never by a "#N" GitHub would take as its own.
        return pull_request_from(node, threads, closed_by=self.tracker.closed_by)

    def get_pull_request(self, number: int) -> PullRequest:
        """The pull request whole, in one request (threads past 50 paged in)."""
        return self._pull_request(self.node(number))

    def list_pull_requests(
        self,
        *,
        issue: int | None = None,
        state: PullRequestState | None = None,
        head: str | None = None,
    ) -> list[PullRequest]:
        """Pull requests without their checks, reviews and threads (GitHub tells which
        checks are required only of one pull request at a time): ``get_pull_request``
        reads those."""
        states = [state.value.upper()] if state is not None else None
        found = [self._pull_request(node) for node in self.summaries(states, head=head)]
        if issue is not None:
            found = [pr for pr in found if issue in pr.closes]
        return found

    def summaries(
        self, states: list[str] | None, *, head: str | None = None
    ) -> list[dict[str, Any]]:
        """Every pull request in ``states`` (None: all), without checks, reviews or
        threads: ``isRequired`` needs a pull request's number, so a list cannot say
        which checks are required. Read one pull request for those. ``head``: only
        those from that branch, asked of GitHub (``headRefName``) rather than scanned."""
        if head is not None:
            return list(
                self.client.pages(
                    q.PULL_REQUESTS_FROM,
                    {**self._where, "states": states, "head": head},
                    ("repository", "pullRequests"),
                )
            )
        return list(
            self.client.pages(
                q.PULL_REQUESTS, {**self._where, "states": states}, ("repository", "pullRequests")
            )
        )

    def _open(self, number: int) -> dict[str, Any]:
        node = self.node(number)
        if node["state"] != "OPEN":
            raise PullRequestNotOpen(number, node["state"].lower())
        return node

    # -- writes -----------------------------------------------------------------------------

    def _create_pull_request(
        self, head: str, base: str, title: str, body: str, author: str
    ) -> PullRequest:
        def already() -> dict[str, Any] | None:
            for pr in self.summaries(["OPEN"], head=head):
                if pr["headRefName"] == head:
                    return {"createPullRequest": {"pullRequest": pr}}
            return None

        opening = q.input_of(
            repositoryId=str(self._repository()["id"]),
            headRefName=head,
            baseRefName=base,
            title=title,
            body=f"{fit_body(body, f'on branch {head}')}\n\n{marker()}",
        )
        try:
            with self._opening():
                data = self.client.mutate(q.CREATE_PULL_REQUEST, opening, reconcile=already)
        except GitHubInvalid as exc:
            raise InvalidInput(
                f"cannot open a pull request from {head} into {base}: {exc}"
            ) from None
        opened = self._pull_request(data["createPullRequest"]["pullRequest"])
        issues = self._issues()
        if issues is not None:
            default = (self._repository().get("defaultBranchRef") or {}).get("name", "")
            issues.pull_request_opened(opened, str(default))
        return opened

    def _issues(self) -> GitHubIssues | None:
        """The tracker whose kept issues this host's writes change (its client's): the
        GitHub tracker, not one on another service."""
        tracker = self.tracker
        if isinstance(tracker, GitHubIssues) and tracker.client is self.client:
            return tracker
        return None

    def _opening(self) -> AbstractContextManager[None]:
        issues = self._issues()
        return issues.opening_pull_request() if issues is not None else nullcontext()

    def close_pull_request(self, number: int) -> PullRequest:
        node = self._open(number)
        self.client.mutate(q.CLOSE_PULL_REQUEST, q.input_of(pullRequestId=node["id"]))
        return self.get_pull_request(number)

    def _record_check(self, number: int, check: CheckRun) -> None:
        raise TrackerError("checks on GitHub come from its CI; Ralph does not post them")

    # -- merging ----------------------------------------------------------------------------

    def _merge_pull_request(
        self, number: int, strategy: MergeStrategy, expected_head: str | None
    ) -> PullRequest:
        """Merge on GitHub with ``strategy`` (InvalidInput where the repository forbids
        it), only if the head is still ``expected_head`` (HeadMoved, nothing merged);
        MergeBlocked in GitHub's words when its rules hold the merge back. Then the
        tracker moves the issues the body closes to Done and closes them."""
        node = self._open(number)
        merged = self._pull_request(
            self.merge(
                node,
                strategy,
                expected_head,
                f"Merge pull request #{number} from {node['headRefName']}",
            )
        )
        self.tracker.close_merged(merged)
        return merged

    def merge(
        self,
        node: Mapping[str, Any],
        strategy: MergeStrategy,
        expected_head: str | None,
        headline: str,
    ) -> dict[str, Any]:
        """Merge the open pull request ``node`` (as just read) with ``strategy``, if its
        head is still ``expected_head``; the merged pull request's node."""
        number = int(node["number"])
        head = str(node.get("headRefOid") or "")
        if expected_head is not None and head and expected_head != head:
            raise HeadMoved(number, expected_head, head)
        settings = self.merge_settings()
        if not getattr(settings, _SETTING[strategy]):
            raise InvalidInput(
                f"the repository does not allow {strategy.value} merges; it allows "
                f"{', '.join(_allowed(settings)) or 'none'} (merge_method in ralph.toml)"
            )
        if node.get("mergeable") == "CONFLICTING":
            raise MergeConflict(number, node["headRefName"], node["baseRefName"], ())
        if node.get("isMergeQueueEnabled"):
            raise MergeBlocked(
                number,
                f"{node['baseRefName']} merges through a merge queue; enqueue it instead",
                merge_state=node.get("mergeStateStatus"),
            )
        wait = BASE_MOVED_WAIT
        for attempt in range(1, BASE_MOVED_TRIES + 1):
            try:
                data = self.client.mutate(
                    q.MERGE_PULL_REQUEST,
                    q.input_of(
                        pullRequestId=node["id"],
                        mergeMethod=strategy.value.upper(),
                        expectedHeadOid=head or None,
                        commitHeadline=headline,
                    ),
                    reconcile=lambda: self._merged(number),
                )
                return dict(data["mergePullRequest"]["pullRequest"])
            except (GitHubInvalid, GitHubUnavailable) as exc:
                now = self.node(number)
                if now["state"] == "MERGED":  # it landed, whatever the answer said
                    return now
                reason = exc.reason or str(exc)
                if isinstance(exc, GitHubUnavailable):
                    raise
                if _BASE_MODIFIED in reason.lower() and attempt < BASE_MOVED_TRIES:
                    self.client.wait(wait)
                    wait *= 2
                    continue
                raise self._refusal(now, head, reason) from None
        raise AssertionError("unreachable: the last try returns or raises")

    def _merged(self, number: int) -> dict[str, Any] | None:
        """The merge's end state: the pull request as GitHub has it, once MERGED."""
        now = self.node(number)
        return {"mergePullRequest": {"pullRequest": now}} if now["state"] == "MERGED" else None

    def _refusal(self, now: Mapping[str, Any], sent_head: str, reason: str) -> Exception:
        """GitHub's refusal of a merge as the error that says what to do about it."""
        number = int(now["number"])
        lowered = reason.lower()
        if now["state"] != "OPEN":
            return PullRequestNotOpen(number, now["state"].lower())
        if _HEAD_MODIFIED in lowered:
            return HeadMoved(number, sent_head, str(now.get("headRefOid") or ""))
        if "not allowed on this repository" in lowered:
            return InvalidInput(f"GitHub refused to merge pull request #{number}: {reason}")
        state = now.get("mergeStateStatus")
        if now.get("mergeable") == "CONFLICTING" or state == "DIRTY":
            return MergeConflict(number, now["headRefName"], now["baseRefName"], ())
        return MergeBlocked(number, reason, merge_state=state)

    def enqueue_pull_request(self, number: int, *, expected_head: str | None = None) -> PullRequest:
        """Hand the merge to GitHub: into the base branch's merge queue, or (where the
        repository allows auto-merge and it is not ready yet) merged or queued by
        GitHub once it is. A pull request already merged or handed over is left so."""
        node = self.node(number)
        if node["state"] == "MERGED":
            return self._pull_request(node)
        if node["state"] != "OPEN":
            raise PullRequestNotOpen(number, node["state"].lower())
        head = str(node.get("headRefOid") or "")
        if expected_head is not None and head and expected_head != head:
            raise HeadMoved(number, expected_head, head)
        if node.get("isInMergeQueue") or node.get("autoMergeRequest"):
            return self._pull_request(node)
        queue = bool(node.get("isMergeQueueEnabled"))
        auto = bool(self._repository().get("autoMergeAllowed"))
        ready = node.get("mergeStateStatus") in _READY
        if not queue and (ready or not auto):
            why = "can merge now" if ready else "waits and the repository allows no auto-merge"
            raise InvalidInput(
                f"pull request #{number} cannot be enqueued: {node['baseRefName']} has no "
                f"merge queue and it {why}; merge it instead"
            )
        document, fields = q.ENQUEUE_PULL_REQUEST, {"pullRequestId": node["id"]}
        if not ready and auto:
            document = q.ENABLE_AUTO_MERGE
            if not queue:  # a queue sets the method itself
                fields["mergeMethod"] = self._method().value.upper()
        try:
            self.client.mutate(document, q.input_of(**fields, expectedHeadOid=head or None))
        except GitHubInvalid as exc:
            now = self.node(number)
            if now["state"] == "MERGED" or now.get("isInMergeQueue"):
                return self._pull_request(now)
            raise self._refusal(now, head, exc.reason or str(exc)) from None
        return self.get_pull_request(number)

    def _method(self) -> MergeStrategy:
        """The first merge method the repository allows (merge commits first)."""
        settings = self.merge_settings()
        return next((s for s, n in _SETTING.items() if getattr(settings, n)), MergeStrategy.MERGE)

    # -- reviews ------------------------------------------------------------------------------

    def _submit_review(
        self,
        number: int,
        event: ReviewEvent,
        body: str,
        comments: Sequence[ReviewComment],
        author: str,
    ) -> Review:
        """A review as the token's user (GitHub has no other author to give): it may not
        approve or request changes on a pull request that user opened."""
        node = self.node(number)
        state = PullRequestState(node["state"].lower())
        if state is not PullRequestState.OPEN:
            raise not_reviewable(number, state)
        tag = marker()

        def already() -> dict[str, Any] | None:
            data = self.client.query(q.REVIEW_BY_MARKER, {**self._where, "number": number})
            for found in data["repository"]["pullRequest"]["reviews"]["nodes"]:
                if tag in (found.get("body") or ""):
                    return {"addPullRequestReview": {"pullRequestReview": found}}
            return None

        threads = [{"path": c.path, "line": c.line, "body": c.body} for c in comments]
        text = fit_body(body, _IN_GIT)
        try:
            data = self.client.mutate(
                q.ADD_REVIEW,
                q.input_of(
                    pullRequestId=node["id"],
                    event=event.value,
                    body=f"{text}\n\n{tag}" if text else tag,
                    threads=threads or None,
                    commitOID=node.get("headRefOid"),
                ),
                reconcile=already,
            )
        except GitHubInvalid as exc:
            raise InvalidInput(_review_refused(number, exc.reason or str(exc))) from None
        return review_from(data["addPullRequestReview"]["pullRequestReview"])

    def _reply_to_thread(self, thread_id: str, body: str, author: str) -> ThreadComment:
        tag = marker()

        def already() -> dict[str, Any] | None:
            data = self.client.query(q.THREAD_COMMENTS, {"thread": thread_id})
            for found in ((data.get("node") or {}).get("comments") or {}).get("nodes", []):
                if tag in (found.get("body") or ""):
                    return {"addPullRequestReviewThreadReply": {"comment": found}}
            return None

        try:
            data = self.client.mutate(
                q.REPLY_TO_THREAD,
                q.input_of(
                    pullRequestReviewThreadId=thread_id,
                    body=f"{fit_body(body, _IN_GIT)}\n\n{tag}",
                ),
                reconcile=already,
            )
        except GitHubNotFound:
            raise InvalidInput(_no_thread(thread_id)) from None
        return thread_comment_from(data["addPullRequestReviewThreadReply"]["comment"])

    def resolve_thread(self, thread_id: str) -> ReviewThread:
        """Resolve the thread (GitHub leaves a resolved one as it is)."""
        try:
            data = self.client.mutate(q.RESOLVE_THREAD, q.input_of(threadId=thread_id))
        except GitHubNotFound:
            raise InvalidInput(_no_thread(thread_id)) from None
        return thread_from(data["resolveReviewThread"]["thread"])

    def _request_review(self, number: int, reviewers: Sequence[str]) -> None:
        """Ask ``reviewers`` (none: everyone who reviewed, but the author) to review
        again; their earlier reviews stand until they review again, as on GitHub."""
        node = self._open(number)
        author = (node.get("author") or {}).get("login")
        known: dict[str, str] = {}
        for found in (node.get("reviews") or {}).get("nodes", []):
            reviewer = found.get("author") or {}  # None: a deleted account ("ghost")
            if reviewer.get("login") and reviewer.get("id") and found["state"] != "PENDING":
                known[reviewer["login"]] = reviewer["id"]
        logins = list(dict.fromkeys(reviewers)) or [n for n in known if n != author]
        ids = [known.get(login) or self._user_id(login) for login in logins]
        if not ids:
            return
        try:
            self.client.mutate(
                q.REQUEST_REVIEWS, q.input_of(pullRequestId=node["id"], userIds=ids, union=True)
            )
        except GitHubInvalid as exc:
            raise InvalidInput(
                f"GitHub refused to request reviews of pull request #{number} from "
                f"{', '.join(logins)}: {exc.reason or exc}"
            ) from None

    def _user_id(self, login: str) -> str:
        try:
            data = self.client.query(q.USER, {"login": login})
        except GitHubNotFound:
            raise InvalidInput(f"GitHub has no user {login!r} to ask for a review") from None
        return str(data["user"]["id"])


def _no_thread(thread_id: str) -> str:
    return f"no review thread {thread_id!r} on GitHub; read the pull request for its threads"


def _review_refused(number: int, reason: str) -> str:
    why = f"GitHub refused the review of pull request #{number}: {reason}"
    lowered = reason.lower()
    if "your own pull request" in lowered:
        return (
            f"{why}; GitHub lets only another account than the one that opened it approve "
            "or request changes (review with a reviewer's token, or comment)"
        )
    if "part of the diff" in lowered:
        return f"{why}; an inline comment goes on a line the pull request changes"
    return why
