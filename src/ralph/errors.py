"""Every error Ralph raises on purpose derives from :class:`RalphError`.

The tree (a package in brackets defines that error beside the code that raises it; the
rest are here)::

    RalphError
    ├── InvalidInput            bad data from a person or a file (also a ValueError)
    ├── WorkflowError           the workflow state machine said no
    │   ├── UnknownState        not one of the 11 workflow states
    │   ├── UnknownCommand      not a known ralph_* command
    │   ├── StateResolutionError  an intent or target state not valid for the command
    │   └── InvalidTransition   the transition matrix forbids from -> to
    ├── PipelineError           the pipeline algorithms cannot answer
    │   └── DependencyCycle     issues that block each other in a circle
    ├── GraphError              a task graph that is not a DAG of known keys
    ├── NeedsPerson             only a person can clear the way: never retried, the run stops
    ├── ConfigError             ralph.toml or a RALPH_* variable is missing or wrong
    │   └── AgentUnusable       the agent cannot work here (key, login, account, model)
    ├── GitError                a git command failed (not a repository, unknown branch...)
    │   ├── MergeRefused        [git] conflicting files, or uncommitted work in the way
    │   │   └── CheckoutInTheWay  [git] the person's checkout of the branch blocks its move
    │   └── RemoteRefused       [git] the remote cannot be reached or refuses us (not retried)
    ├── TrackerError            the issue tracker refused an operation
    │   ├── IssueNotFound       no issue with that number
    │   │   └── IssueIsPullRequest  the number is a pull request's (they share the sequence)
    │   ├── PullRequestNotFound no pull request with that number
    │   ├── StateConflict       the issue's state changed while it was being moved
    │   │   └── HeadMoved       a pull request's head moved since it was read (not merged)
    │   ├── PullRequestNotOpen  merging or closing a pull request that is already merged/closed
    │   ├── MergeConflict       the head branch does not merge cleanly into the base
    │   ├── MergeBlocked        the host's rules hold the merge back (checks, reviews, queue)
    │   ├── NotAvailable        this tracker has no such thing (the local board has no teams)
    │   ├── ServiceUnavailable  a service (GitHub, Linear, ...) did not answer after the retries
    │   ├── ServiceRateLimited  a service still limits our rate after the waits allowed
    │   ├── ServiceCredentialsRefused  a service refused the token or key (not retried)
    │   ├── ServiceNotFound     a service does not know the repository, team or issue asked for
    │   ├── GitHubError         GitHub's API refused or did not answer
    │   │   ├── GitHubAuthError     bad credentials, a missing scope, no access (not retried)
    │   │   ├── GitHubNotFound      the repository, project or node does not exist
    │   │   ├── GitHubInvalid       GitHub rejected the request (422, a validation error)
    │   │   ├── GitHubPartialData   data came back with errors beside it (carries the data)
    │   │   ├── GitHubRateLimited   still rate limited after the waits allowed
    │   │   └── GitHubUnavailable   transport errors and 5xx after the retries allowed
    │   │       └── PartlyLanded    a batch's answer lost with only some of it landed
    │   ├── LinearError         [linear] Linear's API refused or did not answer
    │   │   ├── LinearAuthError     [linear] a missing, wrong or revoked key, or FORBIDDEN
    │   │   ├── LinearInvalid       [linear] Linear refused the input (nothing happened)
    │   │   │   └── LinearNotFound  [linear] an id or identifier Linear does not know
    │   │   ├── LinearRateLimited   [linear] still rate limited after the waits allowed
    │   │   └── LinearUnavailable   [linear] no answer or 5xx after a read's retries
    │   │       └── LinearAmbiguous [linear] a write's answer was lost: it may have happened
    │   ├── JiraError           [jira] Jira's REST API refused or did not answer
    │   │   ├── JiraAuthError       [jira] the email and API token refused (401/403)
    │   │   ├── JiraInvalid         [jira] Jira refused the input (nothing happened)
    │   │   │   └── JiraNotFound    [jira] a key or id Jira does not know (404)
    │   │   ├── JiraRateLimited     [jira] still rate limited (429) after the waits allowed
    │   │   └── JiraUnavailable     [jira] no answer or 5xx after a read's retries
    │   │       └── JiraAmbiguous   [jira] a write's answer was lost: it may have happened
    │   └── GitLabError         [gitlab] GitLab's API refused or did not answer
    │       ├── GitLabAuthError     [gitlab] a missing, wrong or expired token (401, 403)
    │       ├── GitLabInvalid       [gitlab] GitLab refused the input (nothing happened)
    │       │   └── GitLabNotFound  [gitlab] a project, issue or note GitLab does not know
    │       ├── GitLabRateLimited   [gitlab] still rate limited (429) after the waits allowed
    │       └── GitLabUnavailable   [gitlab] no answer or 5xx after the retries allowed
    │           └── GitLabAmbiguous [gitlab] a POST's answer was lost: it may have happened
    ├── PhaseRefused            [phases] a precondition does not hold (retried later)
    │   ├── Busy                [phases] another run holds the issue (waited for, never escalated)
    │   └── Impasse             [phases] a refusal only a person can lift (never retried)
    │       └── ForeignBranch   [phases] the implementation branch has commits Ralph did not make
    ├── NeedsHuman              [phases] only a person can go on: the phase escalates
    │   └── ControlFilesHeld    [phases] an agent's branch changes a control file (ralph.toml, ...)
    ├── Waiting                 [phases] not ready yet (checks, a review): look again later
    │   └── ProviderLimited     [phases] the agent's provider refuses for now (429, usage window)
    ├── FeedbackToAddress       [phases] the pull request has feedback for the builder first
    ├── AlreadyDone             [phases] the phase already succeeded for this issue
    ├── MovedMeanwhile          [phases] someone else moved an issue the phase holds
    ├── HookFailed              [phases] a workspace hook the worktree needs failed
    ├── RunFileNotFound         [orchestrate] no such task log or transcript kept by that run
    └── TaskStoreError          the task store refused an operation
        ├── StoreUnavailable    the store URL is malformed or names no Ralph store
        │   ├── StoreUnreachable  its database cannot be reached or opened now (locked)
        │   └── StoreDamaged    its SQLite file is damaged: restore it
        ├── RunNotFound         no run with that id
        ├── TaskNotFound        no task with that id
        ├── TaskNotClaimable    not pending, wrong role, or its serialisation key is busy
        │   └── TaskBlocked     dependencies are not done yet (names them)
        ├── LeaseLost           a write with a stale claim token was fenced off
        ├── IssueLocked         another holder has the issue
        ├── BatchNotFound       no merge batch with that id
        └── BatchRefused        one unfinished batch per repository; an ended one stays

Each error carries the structured facts its message was built from, so callers never
parse messages. Messages name the problem and, where one exists, the fix.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

__all__ = [
    "AgentUnusable",
    "BatchNotFound",
    "BatchRefused",
    "ConfigError",
    "DependencyCycle",
    "GitError",
    "GitHubAuthError",
    "GitHubError",
    "GitHubInvalid",
    "GitHubNotFound",
    "GitHubPartialData",
    "GitHubRateLimited",
    "GitHubUnavailable",
    "GraphError",
    "HeadMoved",
    "InvalidInput",
    "InvalidTransition",
    "IssueIsPullRequest",
    "IssueLocked",
    "IssueNotFound",
    "LeaseLost",
    "MergeBlocked",
    "MergeConflict",
    "NeedsPerson",
    "NotAvailable",
    "PipelineError",
    "PullRequestNotFound",
    "PullRequestNotOpen",
    "RalphError",
    "RunNotFound",
    "ServiceCredentialsRefused",
    "ServiceNotFound",
    "ServiceRateLimited",
    "ServiceUnavailable",
    "StateConflict",
    "StateResolutionError",
    "StoreDamaged",
    "StoreUnavailable",
    "StoreUnreachable",
    "TaskBlocked",
    "TaskNotClaimable",
    "TaskNotFound",
    "TaskStoreError",
    "TrackerError",
    "UnknownCommand",
    "UnknownState",
    "WorkflowError",
]


class RalphError(Exception):
    """Root of every error Ralph raises on purpose."""


class InvalidInput(RalphError, ValueError):
    """Input from a person or a file that Ralph cannot use."""


class WorkflowError(RalphError):
    """The workflow state machine refused a state, command or transition."""


class UnknownState(WorkflowError, ValueError):
    """A workflow state name that is not one of the 11 states."""

    def __init__(self, state: str, valid: Iterable[str]) -> None:
        self.state = state
        self.valid = tuple(valid)
        super().__init__(
            f"Unknown workflow state {state!r}. Valid states: {', '.join(self.valid)}."
        )


class UnknownCommand(WorkflowError, ValueError):
    """A command name that is not one of the known ``ralph_*`` commands."""

    def __init__(self, message: str, command: str, valid: Iterable[str]) -> None:
        self.command = command
        self.valid = tuple(valid)
        super().__init__(message)


class StateResolutionError(WorkflowError, ValueError):
    """A target state or semantic intent that the command may not produce."""

    def __init__(self, message: str, *, command: str, requested: str) -> None:
        self.command = command
        self.requested = requested
        super().__init__(message)


class InvalidTransition(WorkflowError):
    """The transition matrix does not allow moving ``from_state`` to ``to_state``."""

    def __init__(self, from_state: str, to_state: str, allowed: Sequence[str]) -> None:
        # str() turns state enums into their plain names for the message.
        self.from_state = from_state = str(from_state)
        self.to_state = to_state = str(to_state)
        self.allowed = tuple(str(s) for s in allowed)
        targets = ", ".join(self.allowed) if self.allowed else "none (terminal state)"
        super().__init__(
            f"Cannot move from {from_state!r} to {to_state!r}. "
            f"Allowed from {from_state!r}: {targets}."
        )


class PipelineError(RalphError):
    """A pipeline algorithm cannot produce an answer for its input."""


class DependencyCycle(PipelineError):
    """Issues whose blocked-by / blocking edges form a cycle."""

    def __init__(self, issues: Iterable[int]) -> None:
        self.issues = tuple(sorted(issues))
        listed = ", ".join(f"#{n}" for n in self.issues)
        super().__init__(
            f"Cycle detected in dependencies! Issues involved: {listed}. "
            "These issues form a circular dependency chain. Remove one dependency to resolve."
        )


class GraphError(RalphError):
    """A task graph with duplicate keys, unknown dependencies or a cycle."""


class NeedsPerson(RalphError):
    """Only a person can clear the way (their checkout, a remote, the agent's setup):
    trying again cannot change the answer until they act. A phase puts its issues back
    where they were, an orchestrated run stops with its tasks handed back untouched, and
    the message, said once, is the fix."""


class ConfigError(RalphError):
    """``ralph.toml`` is missing or holds a value Ralph cannot use."""


class AgentUnusable(ConfigError, NeedsPerson):
    """The agent cannot work here at all (its key or login was refused, its account
    cannot pay, its model does not exist): no attempt of any phase can succeed until a
    person fixes the setup. The message says what to fix."""


class GitError(RalphError):
    """A git command failed; the message carries git's own explanation."""


class TrackerError(RalphError):
    """The issue tracker refused an operation."""


class IssueNotFound(TrackerError, LookupError):
    """No issue with that number (in the tracker, or among the issues given)."""

    def __init__(self, number: int, where: str = "") -> None:
        self.number = number
        suffix = f" in {where}" if where else ""
        super().__init__(f"Issue #{number} not found{suffix}")


class IssueIsPullRequest(IssueNotFound):
    """The number asked for as an issue is a pull request's: issues and pull requests
    share one sequence of numbers."""

    def __init__(self, number: int) -> None:
        super().__init__(number)
        self.args = (f"#{number} is a pull request, not an issue; ralph pr show {number} shows it",)


class PullRequestNotFound(TrackerError, LookupError):
    def __init__(self, number: int) -> None:
        self.number = number
        super().__init__(f"Pull request #{number} not found")


class StateConflict(TrackerError):
    """Someone else changed the issue's workflow state between our read and our write."""

    def __init__(self, number: int, expected: str | None, actual: str | None) -> None:
        self.number = number
        self.expected = expected
        self.actual = actual
        super().__init__(
            f"Issue #{number} moved from {expected or '(no state)'} to "
            f"{actual or '(no state)'} while this change was being made; re-read it and retry"
        )


class HeadMoved(StateConflict):
    """A pull request's head is not the commit the caller read and decided on: a push
    came in between. Nothing was merged; read it again and decide again."""

    def __init__(self, number: int, expected: str, actual: str | None) -> None:
        now = actual[:7] if actual else "nothing (its branch is gone)"
        TrackerError.__init__(
            self,
            f"Pull request #{number}'s head moved from {expected[:7]} to {now} since "
            "it was read; nothing was merged: read it again and decide again",
        )
        self.number = number
        self.expected = expected
        self.actual = actual


class PullRequestNotOpen(TrackerError):
    def __init__(self, number: int, state: str) -> None:
        self.number = number
        self.state = state
        super().__init__(f"Pull request #{number} is {state}, not open")


class MergeConflict(TrackerError):
    """The pull request's head does not merge cleanly into its base; nothing changed."""

    def __init__(self, number: int, head: str, base: str, files: Sequence[str]) -> None:
        self.number = number
        self.files = tuple(files)
        listed = ", ".join(self.files) if self.files else "see git merge-tree"
        super().__init__(
            f"Pull request #{number} cannot be merged: {head} conflicts with {base} in "
            f"{listed}; merge {base} into {head}, resolve, commit and retry"
        )


class MergeBlocked(TrackerError):
    """The host would not merge the pull request now, for a rule of its own (required
    checks, reviews, a merge queue, an out-of-date branch); ``reason`` is in its words.
    Nothing was merged."""

    def __init__(self, number: int, reason: str, *, merge_state: str | None = None) -> None:
        self.number = number
        self.reason = reason
        self.merge_state = merge_state
        state = f" (merge state {merge_state})" if merge_state else ""
        super().__init__(f"Pull request #{number} was not merged{state}: {reason}")


class NotAvailable(TrackerError):
    """What was asked for exists on another tracker, not this one; the message says
    what to use here instead."""


class ServiceUnavailable(TrackerError):
    """A service's API (GitHub, Linear, ...) did not answer, or answered 5xx, after the
    retries allowed: trying again later may work. Each service's own error derives from
    it, so entry points name this one alone."""


class ServiceRateLimited(TrackerError):
    """A service still limits our rate after every wait its client allows itself."""


class ServiceCredentialsRefused(TrackerError):
    """A service refused the token or key (missing, wrong, expired, revoked or lacking a
    scope): a person must give another; never retried."""


class ServiceNotFound(TrackerError, LookupError):
    """A service does not know what was asked for (a repository, team, issue or node)."""


class GitHubError(TrackerError):
    """GitHub's API refused a request or did not answer it."""

    #: GitHub's own words, when it gave some (what a caller matches, not the message).
    reason: str = ""


class GitHubAuthError(GitHubError, ServiceCredentialsRefused):
    """The token is missing, wrong, lacks a scope or cannot see the resource."""


class GitHubNotFound(GitHubError, ServiceNotFound):
    """GitHub answered NOT_FOUND (a repository, project, issue or node)."""


class GitHubInvalid(GitHubError, ValueError):
    """GitHub rejected the request as invalid (422 or a validation error)."""


class GitHubPartialData(GitHubError):
    """GitHub returned data with errors beside it; ``data`` holds what did come back."""

    def __init__(self, message: str, data: object) -> None:
        self.data = data
        super().__init__(message)


class GitHubRateLimited(GitHubError, ServiceRateLimited):
    """Still rate limited after every wait the client allows itself."""


class GitHubUnavailable(GitHubError, ServiceUnavailable):
    """The request failed in transport or with 5xx after the retries allowed; a creating
    request that failed this way was reconciled first and found not to have happened."""


class TaskStoreError(RalphError):
    """The task store refused an operation."""


class StoreUnavailable(TaskStoreError):
    """The store URL is malformed, or its database cannot be reached or opened."""


class StoreUnreachable(StoreUnavailable):
    """The store's database did not answer or could not be opened: trying again later
    may work, unlike a URL that names no store."""


class StoreDamaged(StoreUnavailable):
    """The store's database file is damaged (SQLite finds it malformed): no command can
    use it until a person restores it or starts a new one."""


class RunNotFound(TaskStoreError, LookupError):
    def __init__(self, run_id: int) -> None:
        self.run_id = run_id
        super().__init__(f"no run with id {run_id}")


class TaskNotFound(TaskStoreError, LookupError):
    def __init__(self, task_id: int) -> None:
        self.task_id = task_id
        super().__init__(f"no task with id {task_id}")


class BatchNotFound(TaskStoreError, LookupError):
    def __init__(self, batch_id: int) -> None:
        self.batch_id = batch_id
        super().__init__(f"no merge batch with id {batch_id}")


class BatchRefused(TaskStoreError):
    """A merge batch write the record cannot take: opening a second unfinished batch of
    a repository (one train at a time; the next conductor takes the unfinished one
    over), changing a batch that has ended (it is kept as it ended), or a conductor's
    save to a batch another conductor took over (fenced: two never drive one batch)."""

    def __init__(self, batch_id: int | None, repo: str, why: str) -> None:
        self.batch_id = batch_id
        self.repo = repo
        which = f"merge batch {batch_id}" if batch_id is not None else "a merge batch"
        super().__init__(f"{which} of {repo} {why}")


class TaskNotClaimable(TaskStoreError):
    """The task is not pending, is for another role, or its serialisation key is busy."""


class TaskBlocked(TaskNotClaimable):
    """The task waits for dependencies that are not done."""

    def __init__(self, task_id: int, unfinished: Iterable[tuple[str, str]]) -> None:
        self.task_id = task_id
        self.unfinished = tuple(unfinished)
        listed = ", ".join(f"{key} ({status})" for key, status in self.unfinished)
        super().__init__(f"task {task_id} is blocked by unfinished dependencies: {listed}")


class LeaseLost(TaskStoreError):
    """The claim is stale: the task was reclaimed, reaped, canceled or finished since.

    Nothing was written; the worker must drop its result."""

    def __init__(self, task_id: int, token: int, reason: str) -> None:
        self.task_id = task_id
        self.token = token
        super().__init__(f"lease lost on task {task_id} (claim token {token}): {reason}")


class IssueLocked(TaskStoreError):
    """Another holder has the issue."""

    def __init__(self, repo: str, number: int, holder: str) -> None:
        self.repo = repo
        self.number = number
        self.holder = holder
        super().__init__(f"{repo}#{number} is locked by {holder}")
