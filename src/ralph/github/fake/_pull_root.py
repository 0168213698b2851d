"""The fake's pull-request mutations: open, review, reply, resolve, request reviews,
merge (with GitHub's refusals), enqueue, auto-merge and close."""

from __future__ import annotations

from typing import Any

from ralph.github.fake._model import Account, GraphQLFault, Repository, World
from ralph.github.fake._pulls import PullRequest
from ralph.github.fake._queue import enable_auto_merge, enqueue
from ralph.github.fake._reviewing import (
    Review,
    ReviewThread,
    add_review,
    reply,
    request_reviews,
    submit_review,
)

__all__ = ["PullRequestMutations"]

#: GitHub's limit on a body (issue, comment, pull request).
BODY_MAXIMUM = 65536
#: GitHub's limit on an issue's or pull request's title.
TITLE_MAXIMUM = 256


def _invalid(message: str) -> GraphQLFault:
    return GraphQLFault("UNPROCESSABLE", message)


def check_title(title: str | None) -> None:
    if title is not None and len(title) > TITLE_MAXIMUM:
        raise _invalid(f"Title is too long (maximum is {TITLE_MAXIMUM} characters)")


def check_body(body: str | None) -> None:
    if body is not None and len(body) > BODY_MAXIMUM:
        raise _invalid(f"Body is too long (maximum is {BODY_MAXIMUM} characters)")


class PullRequestMutations:
    """Mutation fields on pull requests, mixed into the fake's root."""

    world: World

    def _creating(self) -> None:
        """Content is about to be created (the root may throttle it)."""

    def _viewer(self, info: Any) -> Account:
        return self.world.account(info.context["login"])

    def _pull(self, node_id: str) -> PullRequest:
        found: PullRequest = self.world.node_of(node_id, PullRequest)
        return found

    def createPullRequest(self, info: Any, input: dict[str, Any]) -> dict[str, Any]:
        repository: Repository = self.world.node_of(input["repositoryId"], Repository)
        head, base = input["headRefName"], input["baseRefName"]
        missing = [name for name in (head, base) if not repository.has_branch(name)]
        if missing:
            raise _invalid(f"Head sha can't be blank, Base sha can't be blank ({missing[0]})")
        if any(p.headRefName == head and p.state == "OPEN" for p in repository.pull_list):
            raise _invalid(f"A pull request already exists for {repository.owner.login}:{head}.")
        check_body(input.get("body"))
        self._creating()
        pr = PullRequest(
            repository,
            repository.next_number(),
            head,
            base,
            input["title"],
            input.get("body") or "",
            self._viewer(info),
        )
        repository.pull_list.append(pr)
        return {"pullRequest": pr}

    def mergePullRequest(self, info: Any, input: dict[str, Any]) -> dict[str, Any]:
        pr = self._pull(input["pullRequestId"])
        method = input.get("mergeMethod") or "MERGE"
        refusal = pr.merge_refusal(method, input.get("expectedHeadOid"))
        if refusal is not None:
            raise _invalid(refusal)
        pr.merge(method, input.get("commitHeadline"), self._viewer(info))
        return {"pullRequest": pr}

    def closePullRequest(self, info: Any, input: dict[str, Any]) -> dict[str, Any]:
        pr = self._pull(input["pullRequestId"])
        if pr.state == "MERGED":
            raise _invalid("Pull request is already merged")
        pr.close()
        return {"pullRequest": pr}

    # -- reviews ------------------------------------------------------------------------------

    def addPullRequestReview(self, info: Any, input: dict[str, Any]) -> dict[str, Any]:
        pr = self._pull(input["pullRequestId"])
        body = input.get("body") or ""
        check_body(body)
        threads = list(input.get("threads") or [])
        # The older diff-position comments: taken as threads on that line.
        threads += [
            {"path": c["path"], "line": c["position"], "body": c["body"]}
            for c in input.get("comments") or []
        ]
        self._creating()
        review = add_review(pr, self._viewer(info), input.get("event"), body, threads)
        return {"pullRequestReview": review, "reviewEdge": {"node": review, "cursor": review.id}}

    def submitPullRequestReview(self, info: Any, input: dict[str, Any]) -> dict[str, Any]:
        viewer = self._viewer(info)
        if input.get("pullRequestReviewId"):
            review: Review = self.world.node_of(input["pullRequestReviewId"], Review)
        else:
            pr = self._pull(input.get("pullRequestId") or "")
            found = [r for r in pr.review_list if r.author is viewer and r.state == "PENDING"]
            if not found:
                raise GraphQLFault("NOT_FOUND", "Could not find a pending review for this user")
            review = found[-1]
        if review.state != "PENDING":
            raise _invalid("Review has already been submitted")
        submit_review(review, input["event"], input.get("body"))
        return {"pullRequestReview": review}

    def addPullRequestReviewThreadReply(self, info: Any, input: dict[str, Any]) -> dict[str, Any]:
        thread: ReviewThread = self.world.node_of(input["pullRequestReviewThreadId"], ReviewThread)
        check_body(input["body"])
        self._creating()
        return {"comment": reply(thread, self._viewer(info), input["body"])}

    def resolveReviewThread(self, info: Any, input: dict[str, Any]) -> dict[str, Any]:
        thread: ReviewThread = self.world.node_of(input["threadId"], ReviewThread)
        if not thread.isResolved:
            thread.isResolved, thread.resolvedBy = True, self._viewer(info)
        return {"thread": thread}

    def unresolveReviewThread(self, info: Any, input: dict[str, Any]) -> dict[str, Any]:
        thread: ReviewThread = self.world.node_of(input["threadId"], ReviewThread)
        thread.isResolved, thread.resolvedBy = False, None
        return {"thread": thread}

    def requestReviews(self, info: Any, input: dict[str, Any]) -> dict[str, Any]:
        pr = self._pull(input["pullRequestId"])
        accounts = [self.world.node_of(i, Account) for i in input.get("userIds") or []]
        request_reviews(pr, accounts, union=bool(input.get("union")))
        return {"pullRequest": pr, "actor": self._viewer(info), "requestedReviewersEdge": None}

    # -- merge queue and auto-merge -------------------------------------------------------------

    def enqueuePullRequest(self, info: Any, input: dict[str, Any]) -> dict[str, Any]:
        pr = self._pull(input["pullRequestId"])
        entry = enqueue(pr, self._viewer(info), input.get("expectedHeadOid"))
        return {"mergeQueueEntry": entry}

    def enablePullRequestAutoMerge(self, info: Any, input: dict[str, Any]) -> dict[str, Any]:
        pr = self._pull(input["pullRequestId"])
        enable_auto_merge(
            pr,
            self._viewer(info),
            input.get("mergeMethod") or "MERGE",
            input.get("expectedHeadOid"),
            input.get("commitHeadline"),
        )
        return {"pullRequest": pr, "actor": self._viewer(info)}
