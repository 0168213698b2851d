"""The fake GitLab's merge-request records: merge requests, their diff discussions,
approvals, pipelines and jobs, a project's merge settings, and how GitLab judges a merge
request (``detailed_merge_status``) from them."""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass, field
from typing import Any

from ralph.gitlab.fake._mr_git import GitSide
from ralph.gitlab.fake._state import Note, Project, User, iso

__all__ = [
    "DiffNote",
    "Discussion",
    "Job",
    "MergeRequest",
    "MergeRequests",
    "Pipeline",
    "closing_iids",
    "of",
]

#: GitLab's default closing pattern (Settings > Repository), for the project's own
#: issues: ``Closes #12``, ``fixes #3 and #4``, ``Resolves: #5``.
_CLOSING = re.compile(
    r"\b(?:clos(?:e[sd]?|ing)|fix(?:e[sd]|ing)?|resolv(?:e[sd]?|ing)|implement(?:s|ed|ing)?)"
    r":? +((?:(?:issues? +)?#\d+(?: *,? +and +| *,? *)?)+)",
    re.IGNORECASE,
)
_REFERENCE = re.compile(r"(?<![\w/])#(\d+)")
#: Job statuses still to finish (GitLab's "active").
ACTIVE = frozenset(
    {"created", "waiting_for_resource", "preparing", "pending", "running", "scheduled"}
)
#: The project settings the merge-request side reads, with GitLab's defaults.
SETTINGS_DEFAULTS: dict[str, Any] = {
    "merge_method": "merge",
    "squash_option": "default_off",
    "only_allow_merge_if_pipeline_succeeds": False,
    "allow_merge_on_skipped_pipeline": False,
    "only_allow_merge_if_all_discussions_are_resolved": False,
    "approvals_before_merge": 0,
    # "Remove all approvals when commits are added to the source branch" (GitLab's
    # project approval settings; on by default).
    "reset_approvals_on_push": True,
    "autoclose_referenced_issues": True,
    "remove_source_branch_after_merge": True,
    "merge_requests_enabled": True,
}


def closing_iids(description: str) -> list[int]:
    """The project's own issues a description closes, by GitLab's default pattern."""
    found: list[int] = []
    for match in _CLOSING.finditer(description):
        for number in _REFERENCE.findall(match[1]):
            if int(number) not in found:
                found.append(int(number))
    return found


@dataclass
class Job:
    id: int
    name: str
    status: str
    allow_failure: bool = False
    stage: str = "test"
    failure_reason: str | None = None
    created_at: float = 0.0


@dataclass
class Pipeline:
    id: int
    iid: int
    sha: str
    ref: str
    created_at: float
    jobs: list[Job] = field(default_factory=list)

    def latest_jobs(self) -> list[Job]:
        latest: dict[str, Job] = {}
        for job in sorted(self.jobs, key=lambda j: j.id):
            latest[job.name] = job
        return list(latest.values())

    @property
    def status(self) -> str:
        """GitLab's pipeline status from its jobs' latest runs: running while any is
        active, failed when one that may not fail failed, else success (an allowed
        failure is GitLab's "passed with warnings")."""
        jobs = self.latest_jobs()
        if not jobs:
            return "created"
        if any(j.status in ACTIVE for j in jobs):
            started = any(j.status not in ("created", "pending") for j in jobs)
            return "running" if started else "pending"
        if any(j.status == "failed" and not j.allow_failure for j in jobs):
            return "failed"
        if any(j.status == "canceled" for j in jobs):
            return "canceled"
        if all(j.status == "skipped" for j in jobs):
            return "skipped"
        if all(j.status == "manual" for j in jobs):
            return "manual"
        return "success"


@dataclass
class DiffNote:
    note: Note
    #: GitLab's position: where in the diff (None for a note that is not on it).
    position: dict[str, Any] | None
    resolvable: bool = True
    resolved: bool = False
    resolved_by: User | None = None


@dataclass
class Discussion:
    id: str
    notes: list[DiffNote] = field(default_factory=list)

    @property
    def resolved(self) -> bool:
        return all(n.resolved for n in self.notes if n.resolvable)


@dataclass
class MergeRequest:
    id: int
    iid: int
    project: Project
    title: str
    description: str
    source_branch: str
    target_branch: str
    author: User
    created_at: float
    updated_at: float
    state: str = "opened"
    squash: bool = False
    reviewers: list[User] = field(default_factory=list)
    #: username -> (user, when approved, the head approved): read through
    #: ``MergeRequests.approvals``, which drops those a push made stale.
    approvals: dict[str, tuple[User, float, str]] = field(default_factory=dict)
    #: username -> their review state on GitLab's page (set by tests: ``requested_changes``).
    reviewer_states: dict[str, str] = field(default_factory=dict)
    notes: list[Note] = field(default_factory=list)
    discussions: list[Discussion] = field(default_factory=list)
    merged_at: float | None = None
    merged_by: User | None = None
    closed_at: float | None = None
    closed_by: User | None = None
    merge_commit_sha: str | None = None
    squash_commit_sha: str | None = None
    #: The head when it stopped being open (a merged branch may move or go).
    final_sha: str | None = None
    approvals_before_merge: int | None = None
    #: Why the last merge or rebase failed, as GitLab shows it.
    merge_error: str | None = None


@dataclass
class MergeRequests:
    """One project's merge requests, pipelines and merge settings (kept in
    ``Project.extra``)."""

    git: GitSide
    #: The project's merge settings (shared with its JSON: ``Project.extra["settings"]``).
    settings: dict[str, Any]
    items: dict[int, MergeRequest] = field(default_factory=dict)
    pipelines: list[Pipeline] = field(default_factory=list)
    next_iid: int = 1
    next_pipeline_iid: int = 1
    #: (what, head commit, base commit) -> the answer: git is asked once per pair.
    judged: dict[tuple[str, str | None, str | None], bool] = field(default_factory=dict)

    def sha(self, mr: MergeRequest) -> str:
        if mr.state != "opened" and mr.final_sha:
            return mr.final_sha
        return self.git.head(mr.source_branch) or ""

    def head_pipeline(self, mr: MergeRequest) -> Pipeline | None:
        """The latest pipeline on the merge request's head commit."""
        sha = self.sha(mr)
        found = [p for p in self.pipelines if p.sha == sha]
        return max(found, key=lambda p: p.id) if found else None

    def approvals(self, mr: MergeRequest) -> dict[str, tuple[User, float, str]]:
        """The approvals that stand: a push removes those of an older head, where the
        project says so."""
        if self.settings["reset_approvals_on_push"] and mr.state == "opened":
            sha = self.sha(mr)
            for name, (_user, _at, approved) in list(mr.approvals.items()):
                if approved != sha:
                    del mr.approvals[name]
                    mr.reviewer_states.pop(name, None)
        return mr.approvals

    def approvals_required(self, mr: MergeRequest) -> int:
        if mr.approvals_before_merge is not None:
            return mr.approvals_before_merge
        return int(self.settings["approvals_before_merge"] or 0)

    def _heads(self, mr: MergeRequest) -> tuple[str | None, str | None]:
        return self.git.head(mr.source_branch), self.git.head(mr.target_branch)

    def up_to_date(self, mr: MergeRequest) -> bool:
        key = ("up_to_date", *self._heads(mr))
        if key not in self.judged:
            self.judged[key] = self.git.up_to_date(mr.source_branch, mr.target_branch)
        return self.judged[key]

    def has_conflicts(self, mr: MergeRequest) -> bool:
        """Whether head and base conflict, worked out once per pair of commits (GitLab
        keeps it too, until either branch moves)."""
        if mr.state != "opened":
            return False
        key = ("conflicts", *self._heads(mr))
        if key not in self.judged:
            merges = self.git.can_merge(mr.source_branch, mr.target_branch)
            self.judged[key] = merges is False
        return self.judged[key]

    def detailed_merge_status(self, mr: MergeRequest) -> str:
        """Why GitLab would or would not merge it now, in its order of checks."""
        if mr.state != "opened":
            return "not_open"
        if mr.title.lower().startswith(("draft:", "[draft]", "(draft)")):
            return "draft_status"
        if self.has_conflicts(mr):
            return "conflict"
        if self.settings["merge_method"] in ("ff", "rebase_merge") and not self.up_to_date(mr):
            return "need_rebase"
        settings = self.settings
        if settings["only_allow_merge_if_pipeline_succeeds"]:
            pipeline = self.head_pipeline(mr)
            status = pipeline.status if pipeline else None
            if status in ("running", "pending", "created"):
                return "ci_still_running"
            passed = status == "success" or (
                status == "skipped" and settings["allow_merge_on_skipped_pipeline"]
            )
            if not passed:
                return "ci_must_pass"
        if settings["only_allow_merge_if_all_discussions_are_resolved"] and not all(
            d.resolved for d in mr.discussions
        ):
            return "discussions_not_resolved"
        if len(self.approvals(mr)) < self.approvals_required(mr):
            return "not_approved"
        return "mergeable"


def of(project: Project) -> MergeRequests:
    """The project's merge-request records, made on first use."""
    found = project.extra.get("merge_requests")
    if found is None:
        settings = project.extra.setdefault("settings", {})
        for key, value in SETTINGS_DEFAULTS.items():
            settings.setdefault(key, value)
        found = MergeRequests(GitSide(project.repository), settings)
        project.extra["merge_requests"] = found
    assert isinstance(found, MergeRequests)
    return found


def discussion_id() -> str:
    return secrets.token_hex(20)


def user_json(user: User | None) -> dict[str, Any] | None:
    return user.json() if user is not None else None


def when(seconds: float | None) -> str | None:
    return iso(seconds) if seconds is not None else None
