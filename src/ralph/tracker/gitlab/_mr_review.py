"""The GitLab code host's review writes: a review as GitLab takes one (an approval, a
note carrying the verdict, a discussion per inline comment on its diff line), replies
and resolving, and reviewers asked. Every inline comment is checked against the merge
request's diff before anything is written, so a refused review leaves nothing behind.

A thread's id is ``<merge request>-<discussion>``: GitLab's discussion ids are the
merge request's own, and a reply needs both."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ralph.errors import InvalidInput
from ralph.git import hunk_containing
from ralph.gitlab import (
    GitLabAmbiguous,
    GitLabAuthError,
    GitLabClient,
    GitLabError,
    GitLabInvalid,
    GitLabNotFound,
)
from ralph.tracker._pull_state import not_changed
from ralph.tracker._reviews import (
    Review,
    ReviewComment,
    ReviewEvent,
    ReviewThread,
    ThreadComment,
)
from ralph.tracker.gitlab._mr_read import (
    review_from_note,
    review_note,
    thread_comment_from,
    thread_from,
)

__all__ = ["Diffs", "ReviewWriter", "no_thread", "split_thread_id"]


def no_thread(thread_id: str) -> str:
    return f"no review thread {thread_id!r} on GitLab; read the merge request for its threads"


def split_thread_id(thread_id: str) -> tuple[int, str]:
    number, _, discussion = thread_id.partition("-")
    if not number.isdigit() or not discussion:
        raise InvalidInput(no_thread(thread_id))
    return int(number), discussion


class Diffs:
    """A merge request's diff, file by file, read once when first needed."""

    def __init__(self, read: Callable[[], list[Mapping[str, Any]]]) -> None:
        self._read = read
        self._files: dict[str, str] | None = None

    def files(self) -> dict[str, str]:
        if self._files is None:
            self._files = {str(d["new_path"]): str(d.get("diff") or "") for d in self._read()}
        return self._files

    def hunk(self, path: str, line: int) -> str:
        return hunk_containing(self.files().get(path, ""), line).rstrip("\n")

    def thread(self, number: int, discussion: Mapping[str, Any]) -> ReviewThread | None:
        """The discussion as a review thread of merge request ``number``."""
        found = thread_from(discussion, self.hunk)
        if found is None:
            return None
        return ReviewThread(
            id=f"{number}-{found.id}",
            path=found.path,
            line=found.line,
            resolved=found.resolved,
            diff_hunk=found.diff_hunk,
            comments=found.comments,
        )


class ReviewWriter:
    """Writes on merge requests of one project (``mr_path(number, numeric=...)``)."""

    def __init__(self, client: GitLabClient, mr_path: Callable[..., str]) -> None:
        self.client = client
        self._path = mr_path

    def _post_once(self, path: str, body: dict[str, Any], find: Callable[[], Any | None]) -> Any:
        """POST, and after a lost answer look (``find``) before giving up: never twice."""
        try:
            return self.client.request("POST", path, body=body)
        except GitLabAmbiguous:
            found = find()
            if found is None:
                raise
            return found

    def _note_by_text(self, number: int, text: str) -> Any | None:
        me = self.client.user().get("username")
        for note in self.client.pages(self._path(number) + "/notes", [("sort", "desc")]):
            if note.get("body") == text and (note.get("author") or {}).get("username") == me:
                return note
        return None

    def review(
        self,
        number: int,
        mr: Mapping[str, Any],
        event: ReviewEvent,
        body: str,
        comments: Sequence[ReviewComment],
        diffs: Diffs,
    ) -> Review:
        head = str(mr.get("sha") or "")
        if comments:
            files = diffs.files()
            for comment in comments:
                if comment.path not in files:
                    raise not_changed(number, comment.path, files)
                if not diffs.hunk(comment.path, comment.line):
                    raise InvalidInput(
                        f"GitLab takes an inline comment only on a line of the diff (part of "
                        f"the diff); {comment.path}:{comment.line} is not shown in !{number}"
                    )
        approvals = self.client.request("GET", self._path(number, numeric=True) + "/approvals")
        approved = bool(approvals.get("user_has_approved"))
        try:
            if event is ReviewEvent.APPROVE and not approved:
                self.client.request(
                    "POST", self._path(number, numeric=True) + "/approve", body={"sha": head}
                )
            elif event is ReviewEvent.REQUEST_CHANGES and approved:
                # A change request takes the reviewer's approval back, or GitLab would
                # still count it.
                self.client.request("POST", self._path(number, numeric=True) + "/unapprove")
        except (GitLabInvalid, GitLabAuthError) as exc:
            # GitLab answers 401 to an approval it will not take (the author's own, or a
            # second one): the token is fine, the approval is not.
            raise InvalidInput(_refused(number, exc)) from None
        text = review_note(event, body, head)
        note = self._post_once(
            self._path(number) + "/notes",
            {"body": text},
            lambda: self._note_by_text(number, text),
        )
        for comment in comments:
            self._discussion(number, mr, comment)
        review = review_from_note(note)
        assert review is not None, "a review note reads back as a review"
        return review

    def _discussion(self, number: int, mr: Mapping[str, Any], comment: ReviewComment) -> None:
        refs = mr.get("diff_refs") or {}
        position = {
            "position_type": "text",
            "base_sha": refs.get("base_sha") or "",
            "start_sha": refs.get("start_sha") or "",
            "head_sha": refs.get("head_sha") or str(mr.get("sha") or ""),
            "new_path": comment.path,
            "old_path": comment.path,
            "new_line": comment.line,
        }

        def find() -> Any | None:
            for found in self.client.pages(self._path(number) + "/discussions"):
                first = (found.get("notes") or [{}])[0]
                if (
                    first.get("body") == comment.body
                    and first.get("position", {})
                    and (first["position"].get("new_line") == comment.line)
                ):
                    return found
            return None

        try:
            self._post_once(
                self._path(number) + "/discussions",
                {"body": comment.body, "position": position},
                find,
            )
        except GitLabInvalid as exc:
            raise InvalidInput(_refused(number, exc)) from None

    def reply(self, number: int, discussion: str, thread_id: str, body: str) -> ThreadComment:
        path = f"{self._path(number)}/discussions/{discussion}"

        def find() -> Any | None:
            try:
                notes = self.client.request("GET", path).get("notes") or []
            except GitLabNotFound:
                return None
            return next((n for n in reversed(notes) if n.get("body") == body), None)

        try:
            note = self._post_once(path + "/notes", {"body": body}, find)
        except GitLabNotFound:
            raise InvalidInput(no_thread(thread_id)) from None
        return thread_comment_from(note)

    def resolve(self, number: int, discussion: str, thread_id: str) -> Mapping[str, Any]:
        try:
            found: Mapping[str, Any] = self.client.request(
                "PUT",
                f"{self._path(number)}/discussions/{discussion}",
                body={"resolved": True},
            )
        except GitLabNotFound:
            raise InvalidInput(no_thread(thread_id)) from None
        return found

    def ask(self, number: int, mr: Mapping[str, Any], names: Sequence[str]) -> None:
        """Make ``names`` reviewers of the merge request, beside those it has."""
        current = [int(r["id"]) for r in mr.get("reviewers") or []]
        wanted = list(current)
        for name in names:
            found = self.client.request("GET", "/users", query=[("username", name)])
            if not found:
                raise InvalidInput(f"GitLab has no user {name!r} to ask for a review")
            if int(found[0]["id"]) not in wanted:
                wanted.append(int(found[0]["id"]))
        if wanted == current:
            return
        try:
            self.client.request("PUT", self._path(number), body={"reviewer_ids": wanted})
        except GitLabInvalid as exc:
            raise InvalidInput(
                f"GitLab refused to request reviews of !{number} from {', '.join(names)}: "
                f"{exc.reason or exc}"
            ) from None


def _refused(number: int, exc: GitLabError) -> str:
    why = f"GitLab refused the review of !{number}: {exc.reason or exc}"
    if exc.status == 401:
        return (
            f"{why}; GitLab lets only another account than the merge request's author "
            "approve it, once (review with a reviewer's token, or comment)"
        )
    return why
