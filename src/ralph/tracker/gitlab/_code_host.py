"""The GitLab code host: a project's merge requests as Ralph's pull requests, through
``ralph.gitlab``'s REST client. A merge request is read whole in six requests (the
project, the merge request with GitLab's ``detailed_merge_status`` and head pipeline,
the pipeline's jobs as the checks, approvals, reviewers, and the discussions, which hold
every note; the diffs only for the lines a thread is on). The project (merge method,
squash option, "pipelines must succeed", approvals before merge) is read each time,
since a person may change it.

A merge names the head it was decided on (``sha``: GitLab answers 409 when the branch
moved) and is refused with 405 while GitLab's rules hold it back; after any refusal or
lost answer the merge request is read again and ``merged`` is success. A project that
only fast-forwards (``merge_method: ff``, Ralph's rebase) or wants the head up to date
(``rebase_merge``) has the head rebased first. Reviews are notes (``_mr_read``), an
approval GitLab's own; a creating write whose answer was lost is looked for before
anything is written again."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ralph.errors import (
    HeadMoved,
    InvalidInput,
    MergeBlocked,
    MergeConflict,
    PullRequestNotFound,
    PullRequestNotOpen,
    TrackerError,
)
from ralph.gitlab import GitLabAmbiguous, GitLabClient, GitLabInvalid, GitLabNotFound, project_id
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
from ralph.tracker.gitlab._mr_read import (
    checks_from,
    merge_settings_from,
    pull_request_from,
    reviews_from,
)
from ralph.tracker.gitlab._mr_review import Diffs, ReviewWriter, no_thread, split_thread_id

if TYPE_CHECKING:
    from ralph.tracker.gitlab import GitLabTracker

__all__ = ["GitLabCodeHost"]

_STATES = {
    PullRequestState.OPEN: "opened",
    PullRequestState.MERGED: "merged",
    PullRequestState.CLOSED: "closed",
}
_SETTING = {
    MergeStrategy.MERGE: "merge_commit",
    MergeStrategy.SQUASH: "squash",
    MergeStrategy.REBASE: "rebase",
}
#: GitLab rebases in the background: how often its merge request is read while it does,
#: and how long apart (seconds), before the merge is left for another try.
REBASE_READS = 30
REBASE_WAIT = 1.0
#: GitLab's limit on a description; a longer one is cut with a line saying so.
MAX_DESCRIPTION = 1_048_576
_CUT = "\n\n(cut: the whole text is in the merge request's branch)"


def _allowed(settings: MergeSettings) -> list[str]:
    return [s.value for s, name in _SETTING.items() if getattr(settings, name)]


class GitLabCodeHost(CodeHost):
    """The merge requests of project ``project`` (``group/name``) on GitLab, closing
    issues of ``tracker`` when they merge (GitLab's own issues: GitLab closes them too,
    by ``Closes #12``)."""

    kind = "gitlab"

    def __init__(
        self,
        client: GitLabClient,
        *,
        project: str,
        tracker: Tracker,
        clock: Callable[[], float] | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        super().__init__(tracker, clock=clock)
        self.client = client
        self._sleep = sleep
        self.project = project
        self._path = f"/projects/{project_id(project)}"
        self._numeric: str | None = None

    @classmethod
    def of(cls, tracker: GitLabTracker) -> GitLabCodeHost:
        """The merge requests of the GitLab tracker's project, through its client."""
        return cls(tracker.client, project=tracker.project, tracker=tracker)

    # -- the project --------------------------------------------------------------------------

    def _project(self) -> dict[str, Any]:
        found: dict[str, Any] = self.client.request("GET", self._path)
        self._numeric = str(found["id"])
        return found

    def _mr_path(self, number: int, *, numeric: bool = False) -> str:
        """Where merge request ``number`` is; ``numeric``: by the project's number, which
        GitLab's approval endpoints take (their ``{id}`` is an integer)."""
        if numeric:
            if self._numeric is None:
                self._project()
            return f"/projects/{self._numeric}/merge_requests/{number}"
        return f"{self._path}/merge_requests/{number}"

    def merge_settings(self) -> MergeSettings:
        """The project's merge method and squash option, as read now."""
        return merge_settings_from(self._project())

    # -- reads ----------------------------------------------------------------------------------

    def _mr(self, number: int) -> dict[str, Any]:
        try:
            found: dict[str, Any] = self.client.request("GET", self._mr_path(number))
        except GitLabNotFound:
            raise PullRequestNotFound(number) from None
        return found

    def _open(self, number: int) -> dict[str, Any]:
        mr = self._mr(number)
        if mr["state"] not in ("opened", "locked"):
            raise PullRequestNotOpen(number, _state_word(mr))
        return mr

    def _diffs(self, number: int) -> Diffs:
        return Diffs(lambda: list(self.client.pages(self._mr_path(number) + "/diffs")))

    def pull_request(self, mr: Mapping[str, Any]) -> PullRequest:
        """The merge request ``mr`` (as just read) whole: its checks, reviews, threads and
        GitLab's judgement of it."""
        number = int(mr["iid"])
        project = self._project()
        path = self._mr_path(number)
        pipeline = mr.get("head_pipeline") or {}
        jobs: list[Any] = []
        if pipeline and pipeline.get("sha") == mr.get("sha"):
            jobs = list(self.client.pages(f"{self._path}/pipelines/{pipeline['id']}/jobs"))
        checks = checks_from(
            mr, jobs, must_succeed=bool(project.get("only_allow_merge_if_pipeline_succeeds"))
        )
        approvals = self.client.request("GET", self._mr_path(number, numeric=True) + "/approvals")
        reviewers = self.client.request("GET", path + "/reviewers")
        # Every note is in a discussion: a lone one (a review's) as an individual note.
        discussions = list(self.client.pages(path + "/discussions"))
        notes = [n for d in discussions if d.get("individual_note") for n in d.get("notes", [])]
        reviews = reviews_from(notes, approvals, reviewers)
        diffs = self._diffs(number)
        threads = tuple(
            thread
            for discussion in discussions
            if not discussion.get("individual_note")
            and (thread := diffs.thread(number, discussion)) is not None
        )
        required = approvals.get("approvals_required")
        if required is None:
            required = project.get("approvals_before_merge") or 0
        return pull_request_from(
            mr,
            checks=checks,
            reviews=reviews,
            threads=threads,
            approvals_required=int(required),
            closed_by=self.tracker.closed_by,
        )

    def _summary(self, mr: Mapping[str, Any]) -> PullRequest:
        return pull_request_from(mr, closed_by=self.tracker.closed_by)

    def get_pull_request(self, number: int) -> PullRequest:
        return self.pull_request(self._mr(number))

    def list_pull_requests(
        self,
        *,
        issue: int | None = None,
        state: PullRequestState | None = None,
        head: str | None = None,
    ) -> list[PullRequest]:
        """Merge requests without their checks, reviews and threads (one request a page):
        ``get_pull_request`` reads those."""
        query = [("state", _STATES[state] if state else "all")]
        query += [("order_by", "created_at"), ("sort", "asc")]
        if head is not None:
            query.append(("source_branch", head))
        found = [
            self._summary(mr) for mr in self.client.pages(self._path + "/merge_requests", query)
        ]
        if issue is not None:
            found = [pr for pr in found if issue in pr.closes]
        return found

    # -- writes ---------------------------------------------------------------------------------

    def _create_pull_request(
        self, head: str, base: str, title: str, body: str, author: str
    ) -> PullRequest:
        if len(body) > MAX_DESCRIPTION:
            body = body[: MAX_DESCRIPTION - len(_CUT)] + _CUT
        fields = {"source_branch": head, "target_branch": base, "title": title, "description": body}
        try:
            mr = self.client.request("POST", self._path + "/merge_requests", body=fields)
        except GitLabAmbiguous:
            mr = self._opened_from(head, base)
            if mr is None:
                raise
        except GitLabInvalid as exc:
            raise InvalidInput(
                f"cannot open a merge request from {head} into {base}: {exc.reason or exc}"
            ) from None
        return self._summary(mr)

    def _opened_from(self, head: str, base: str) -> dict[str, Any] | None:
        query = [("state", "opened"), ("source_branch", head), ("target_branch", base)]
        return next(iter(self.client.pages(self._path + "/merge_requests", query)), None)

    def close_pull_request(self, number: int) -> PullRequest:
        self._open(number)
        mr = self.client.request("PUT", self._mr_path(number), body={"state_event": "close"})
        return self.pull_request(mr)

    def _record_check(self, number: int, check: CheckRun) -> None:
        raise TrackerError(
            "checks on GitLab come from its CI (pipelines); Ralph does not post them"
        )

    # -- merging ---------------------------------------------------------------------------------

    def _merge_pull_request(
        self, number: int, strategy: MergeStrategy, expected_head: str | None
    ) -> PullRequest:
        """Merge on GitLab with ``strategy`` (InvalidInput where the project's merge method
        forbids it), only if the head is still ``expected_head`` (HeadMoved, nothing
        merged); MergeBlocked while GitLab's rules hold it back. Then the tracker moves
        the issues the description closes to Done and closes them."""
        mr = self._open(number)
        head = str(mr.get("sha") or "")
        if expected_head is not None and head and expected_head != head:
            raise HeadMoved(number, expected_head, head)
        project = self._project()
        settings = merge_settings_from(project)
        if not getattr(settings, _SETTING[strategy]):
            raise InvalidInput(
                f"the project does not allow {strategy.value} merges (merge method "
                f"{project.get('merge_method', 'merge')}); it allows "
                f"{', '.join(_allowed(settings)) or 'none'} (merge_method in ralph.toml)"
            )
        if mr.get("has_conflicts") or mr.get("detailed_merge_status") == "conflict":
            raise MergeConflict(number, mr["source_branch"], mr["target_branch"], ())
        if mr.get("detailed_merge_status") == "need_rebase":
            self._rebase(number, mr)
            # The rebased head is one no check ran on and no one decided on (a push since
            # the read is rebased too): the merge is decided again on it, later.
            raise MergeBlocked(
                number,
                f"GitLab rebased !{number} onto {mr['target_branch']}; the merge is decided "
                "again once its checks report on the new head",
                merge_state="need_rebase",
            )
        body: dict[str, Any] = {"sha": head, "squash": strategy is MergeStrategy.SQUASH}
        try:
            merged = self.client.request("PUT", self._mr_path(number) + "/merge", body=body)
        except (GitLabInvalid, GitLabAmbiguous) as exc:
            now = self._mr(number)
            if now["state"] != "merged":  # it landed, whatever the answer said
                raise self._refusal(now, head, exc) from None
            merged = now
        pr = self.pull_request(merged)
        self.tracker.close_merged(pr)
        return pr

    def _rebase(self, number: int, mr: Mapping[str, Any]) -> dict[str, Any]:
        """The head rebased onto the base by GitLab (its fast-forward and semi-linear
        methods merge only an up-to-date head); MergeConflict when it does not apply."""
        path = self._mr_path(number)
        self.client.request("PUT", path + "/rebase", body={})
        for _ in range(REBASE_READS):
            now: dict[str, Any] = self.client.request(
                "GET", path, query=[("include_rebase_in_progress", "true")]
            )
            if not now.get("rebase_in_progress"):
                break
            self._sleep(REBASE_WAIT)
        else:
            raise MergeBlocked(
                number,
                f"GitLab is still rebasing !{number} after {REBASE_READS * REBASE_WAIT:.0f} s; "
                "the merge is tried again later",
                merge_state="need_rebase",
            )
        if now.get("merge_error") or now.get("detailed_merge_status") == "need_rebase":
            raise MergeConflict(number, mr["source_branch"], mr["target_branch"], ())
        return now

    def _refusal(self, now: Mapping[str, Any], sent_head: str, exc: Exception) -> Exception:
        """GitLab's refusal of a merge as the error that says what to do about it."""
        number = int(now["iid"])
        status = getattr(exc, "status", 0)
        if now["state"] not in ("opened", "locked"):
            return PullRequestNotOpen(number, _state_word(now))
        if status == 409 or (now.get("sha") and now.get("sha") != sent_head):
            return HeadMoved(number, sent_head, now.get("sha"))
        detailed = str(now.get("detailed_merge_status") or "")
        if now.get("has_conflicts") or detailed == "conflict":
            return MergeConflict(number, now["source_branch"], now["target_branch"], ())
        if isinstance(exc, GitLabAmbiguous):
            return exc
        reason = getattr(exc, "reason", "") or str(exc)
        why = f"GitLab refused to merge !{number} ({detailed or 'unknown'}): {reason}"
        return MergeBlocked(number, why, merge_state=detailed or None)

    # -- reviews ----------------------------------------------------------------------------------

    def _writer(self) -> ReviewWriter:
        return ReviewWriter(self.client, self._mr_path)

    def _submit_review(
        self,
        number: int,
        event: ReviewEvent,
        body: str,
        comments: Sequence[ReviewComment],
        author: str,
    ) -> Review:
        """A review as the token's user (GitLab has no other author to give): an approval
        is GitLab's, which the author of a merge request may not give by default."""
        mr = self._mr(number)
        state = PullRequestState.OPEN if mr["state"] in ("opened", "locked") else None
        if state is None:
            raise not_reviewable(number, PullRequestState(_state_word(mr)))
        return self._writer().review(number, mr, event, body, comments, self._diffs(number))

    def _reply_to_thread(self, thread_id: str, body: str, author: str) -> ThreadComment:
        number, discussion = split_thread_id(thread_id)
        return self._writer().reply(number, discussion, thread_id, body)

    def resolve_thread(self, thread_id: str) -> ReviewThread:
        """Resolve the thread (GitLab leaves a resolved one as it is)."""
        number, discussion = split_thread_id(thread_id)
        answer = self._writer().resolve(number, discussion, thread_id)
        thread = self._diffs(number).thread(number, answer)
        if thread is None:
            raise InvalidInput(no_thread(thread_id))
        return thread

    def _request_review(self, number: int, reviewers: Sequence[str]) -> None:
        """Ask ``reviewers`` (none: everyone who reviewed, but the author) to review
        again, as the merge request's reviewers; earlier reviews stand until they
        review again."""
        mr = self._open(number)
        author = (mr.get("author") or {}).get("username")
        names = list(dict.fromkeys(reviewers))
        if not names:
            pr = self.pull_request(mr)
            names = list(dict.fromkeys(r.author for r in pr.reviews if r.author != author))
        self._writer().ask(number, mr, names)


def _state_word(mr: Mapping[str, Any]) -> str:
    return {"opened": "open", "locked": "open"}.get(str(mr["state"]), str(mr["state"]))
