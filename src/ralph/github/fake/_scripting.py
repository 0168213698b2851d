"""How a test scripts the fake's pull requests: a branch's protection, the merge
methods a repository allows, what CI reports on each push, a check's progress, a
person's review, pushes to a repository without a git side, how long mergeability takes,
and the merge queue's turn."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ralph.github.fake._checks import CheckRecord
from ralph.github.fake._model import Repository, World
from ralph.github.fake._pulls import PullRequest
from ralph.github.fake._queue import MergeQueue, leave, process_queue, run_due
from ralph.github.fake._reviewing import Review, add_review
from ralph.github.fake._rules import BranchProtection, CheckPlan, Mergeability

__all__ = ["PullRequestScripting"]


class PullRequestScripting:
    """Test-side controls of pull requests, mixed into FakeGitHub."""

    world: World

    def repository(self, full_name: str) -> Repository:
        return self.world.repositories[full_name.lower()]

    def _fresh(self) -> None:
        """A step outside any request: what it reads of git is read again."""
        self.world.serial += 1

    def pull_request(self, full_name: str, number: int) -> PullRequest:
        with self.world.lock:
            found: PullRequest = next(
                p for p in self.repository(full_name).pull_list if p.number == number
            )
            return found

    def protect(self, full_name: str, branch: str = "main", **rules: Any) -> BranchProtection:
        """Protect ``branch`` (``BranchProtection``'s fields: approvals, checks,
        strict, conversations, dismiss_stale, merge_queue, queue_seconds...)."""
        if "checks" in rules:
            rules["checks"] = frozenset(rules["checks"])
        with self.world.lock:
            repository = self.repository(full_name)
            protection = BranchProtection(**rules)
            repository.protections[branch] = protection
            if protection.merge_queue:
                repository.merge_queues.setdefault(branch, MergeQueue(repository, branch))
            else:
                repository.merge_queues.pop(branch, None)
            return protection

    def allow_merges(
        self,
        full_name: str,
        *,
        merge: bool = True,
        squash: bool = True,
        rebase: bool = True,
        auto_merge: bool = False,
    ) -> None:
        """The merge methods the repository allows, and whether it allows auto-merge."""
        with self.world.lock:
            repository = self.repository(full_name)
            repository.mergeCommitAllowed = merge
            repository.squashMergeAllowed = squash
            repository.rebaseMergeAllowed = rebase
            repository.autoMergeAllowed = auto_merge

    def run_ci(self, full_name: str, *plans: CheckPlan) -> None:
        """The checks CI reports on every new head of a pull request from now on."""
        with self.world.lock:
            self.repository(full_name).ci = list(plans)

    def add_check(
        self,
        full_name: str,
        number: int,
        name: str,
        conclusion: str | None = None,
        *,
        queued: bool = False,
        after: float = 0.0,
        status_context: bool = False,
        summary: str = "",
    ) -> CheckRecord:
        """A check reported on the pull request's current head: queued (until a test
        ``start``s it) or in progress, concluding ``after`` seconds from now with
        ``conclusion`` (None: when a test ``complete``s it)."""
        with self.world.lock:
            self._fresh()
            pr = self.pull_request(full_name, number)
            record = CheckRecord(
                pr.repository,
                name,
                status_context=status_context,
                queued=float("inf") if queued else 0.0,
                running=None if conclusion is None else after,
                conclusion=conclusion,
                summary=summary,
            )
            pr.repository.checks_on.setdefault(pr.head_oid(), []).append(record)
            return record

    def push(self, full_name: str, branch: str) -> str:
        """A new commit on ``branch`` of a repository without a git side; its oid."""
        with self.world.lock:
            return self.repository(full_name).push(branch)

    def mergeability(self, *, reads: int = 0, seconds: float = 0.0) -> None:
        """``mergeable`` is UNKNOWN for the first ``reads`` reads and ``seconds`` after
        every push from now on (GitHub computes it in the background)."""
        with self.world.lock:
            self.world.mergeability = Mergeability(reads, seconds)

    def review(
        self,
        full_name: str,
        number: int,
        login: str,
        event: str,
        body: str = "",
        *,
        threads: Sequence[Mapping[str, Any]] = (),
    ) -> Review:
        """A review by ``login`` (a person, not the client): APPROVE, REQUEST_CHANGES
        or COMMENT, each of ``threads`` ({path, line, body}) opening a thread."""
        with self.world.lock:
            self._fresh()
            pr = self.pull_request(full_name, number)
            return add_review(pr, self.world.account(login), event, body, threads)

    def run_merge_queue(self, full_name: str, branch: str = "main") -> list[int]:
        """The merge queue's turn: it merges what still meets the rules, in order."""
        with self.world.lock:
            self._fresh()
            return process_queue(self.repository(full_name).merge_queues[branch])

    def fail_in_merge_queue(
        self, full_name: str, number: int, reason: str, branch: str = "main"
    ) -> None:
        """On the queue's next turn, pull request ``number``'s checks fail in the merge
        group: the queue removes it for ``reason``."""
        with self.world.lock:
            self.repository(full_name).merge_queues[branch].failing[number] = reason

    def dequeue(self, full_name: str, number: int, login: str, reason: str = "MANUAL") -> None:
        """A person (``login``) takes pull request ``number`` out of its merge queue."""
        with self.world.lock:
            self._fresh()
            pr = self.pull_request(full_name, number)
            entry = pr.mergeQueueEntry
            if entry is None:
                raise ValueError(f"pull request #{number} is not in a merge queue")
            leave(entry, reason, self.world.account(login))

    def tick(self) -> None:
        """What GitHub does between requests (due queue entries, auto-merges)."""
        with self.world.lock:
            self._fresh()
            run_due(self.world)
