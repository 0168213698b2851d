"""Check runs and commit statuses on the fake: reported on one commit, queued, then in
progress, then concluded, on the fake's clock or when a test says; required when the
base branch of the pull request asking requires their name."""

from __future__ import annotations

from typing import Any

from ralph.github.fake._model import GraphQLFault, Node, Repository, _iso

__all__ = ["PASSING", "CheckRecord"]

#: Conclusions that count as passing, as branch protection counts them.
PASSING = frozenset({"SUCCESS", "NEUTRAL", "SKIPPED"})


class CheckRecord(Node):
    """A check run (or a commit status) on one commit: queued until ``queued_until``, in
    progress until ``done_at`` (None: until a test completes it), then concluded."""

    def __init__(
        self,
        repository: Repository,
        name: str,
        *,
        status_context: bool = False,
        queued: float = 0.0,
        running: float | None = None,
        conclusion: str | None = None,
        summary: str = "",
    ) -> None:
        world = repository.world
        super().__init__(world, "SC_" if status_context else "CR_")
        self.typename = "StatusContext" if status_context else "CheckRun"
        self.repository = repository
        self.name = name
        self.summary = summary
        self.databaseId = next(world.database_ids)
        now = world.clock()
        self.queued_until = now + queued
        self.done_at = None if running is None else self.queued_until + running
        self.final = conclusion.upper() if conclusion else None
        self.createdAt = _iso(now)

    # -- test control -----------------------------------------------------------------------

    def start(self) -> None:
        self.queued_until = min(self.queued_until, self.world.clock())

    def complete(self, conclusion: str = "SUCCESS") -> None:
        self.start()
        self.done_at, self.final = self.world.clock(), conclusion.upper()

    # -- as GitHub shows it -----------------------------------------------------------------

    @property
    def status(self) -> str:
        now = self.world.clock()
        if now < self.queued_until:
            return "QUEUED"
        if self.done_at is None or now < self.done_at or self.final is None:
            return "IN_PROGRESS"
        return "COMPLETED"

    @property
    def conclusion(self) -> str | None:
        return self.final if self.status == "COMPLETED" else None

    @property
    def pending(self) -> bool:
        return self.status != "COMPLETED"

    @property
    def passed(self) -> bool:
        return self.conclusion in PASSING

    def isRequired(
        self, info: Any, pullRequestId: str | None = None, pullRequestNumber: int | None = None
    ) -> bool:
        if pullRequestId is None and pullRequestNumber is None:
            raise GraphQLFault(
                "UNPROCESSABLE", "One of pullRequestId or pullRequestNumber must be provided"
            )
        pr = next(
            (
                p
                for p in self.repository.pull_list
                if p.id == pullRequestId or p.number == pullRequestNumber
            ),
            None,
        )
        return pr is not None and self.name in pr.protection().checks

    @property
    def url(self) -> str:
        return f"https://github.com/{self.repository.nameWithOwner}/runs/{self.databaseId}"

    detailsUrl = targetUrl = permalink = url

    @property
    def title(self) -> str:
        return self.name

    @property
    def text(self) -> str:
        return self.summary

    @property
    def startedAt(self) -> str:
        return _iso(self.queued_until)

    @property
    def completedAt(self) -> str | None:
        return _iso(self.done_at) if self.done_at is not None and not self.pending else None

    # StatusContext's names for the same things.
    @property
    def context(self) -> str:
        return self.name

    @property
    def state(self) -> str:
        conclusion = self.conclusion
        if conclusion is None:
            return "PENDING"
        return conclusion if conclusion in ("SUCCESS", "FAILURE") else "ERROR"

    @property
    def description(self) -> str:
        return self.summary
