"""The GitHub tracker: what each tracker operation costs in GitHub requests, how long the
client's own work takes (on the in-memory fake, no network), and what GitHub's pacing
rules cost a run; then the demo epic through ``ralph hero`` and ``ralph status`` on a
board of 2,000 issues, counted by document. Prints medians and ratios from one run, each
request count beside the count before batching (issue 21); not a test.

Goals (issue 21): the demo epic (``ralph init --github``, the epic, ``ralph hero``) in
<= 100 requests and <= 45 mutation requests (before: 406 and 127), at most 35 that create
content; ``create_issue`` <= 3 requests, ``set_state`` <= 2; ``ralph status`` on 2,000
issues (300 open) in <= 5 requests and <= 15 primary points.

Goals (issue 49): the demo epic in <= 70 requests, <= 35 mutation requests and <= 30
content-creating requests (GitHub's 500 an hour is the binding limit for a busy
repository). Before: 103 / 45 / 32 on this fake (the issue: 101 / 45). After: 81-82 / 35 /
27, by: an edit, a close or a dependency keeping the step's kept issues true from
GitHub's answer (no read after the write); a phase's moves of several issues, with
their notes and a new issue's fields, in one request (``MoveStates``, whole units within
the batch of ten); an edit carrying the issue's waiting Estimate and notes
(``EditIssue``); a split's dependencies in one request (``AddBlockedBys``); a merge
finding its pull request once; a new board linked as it is made and read from the
creations' answers. The requests still missing are the issue reads of each phase step
(one before the lock, one after the agent's turn, per worker) and the planner's.
With the failure handling a second read asked for (tests/integration/github/
test_batch_failures.py), the same: 82 / 35 / 27 (load 19). Then 74-76 / 31 / 25 (load
18-22), by: a split's children made together (``CreateIssues``, ``AddProjectItems``:
2 requests, not 6); a plan task's look for a cut-short apply, its re-plan and its run's
checks reading the group once; a step's prefetch reading the issues' relatives with them.
The 70 requests are not met: 27 of the 74 are group reads (IssueGroup), each the first
read of a step or the fresh read after an agent's turn, most on other workers' threads;
sharing them would need reads kept across threads and tasks, fenced by every agent's
turn and every person's chance to move an issue, which is not safe to assume.
Then 70 / 31 / 25 (load 12-15; 76 / 33 when a research step is tried again after its
push of main lost a race), by: the look at merges and the plan at a session's start
reading the root's group in one snapshot; opening a pull request keeping the issues it
closes true (their link) rather than reading them again for its comment; a merge's
apply judging the pull request its checks read whole in the same run (no agent ran);
a merge train's landed car taken from the merge's answer.

Goals (issue: GitHub tracker): an operation needs a handful of requests, never one per
comment or per field (a pull request is read whole, checks, reviews and threads, in one
request); the client adds little to a request (the network dominates); the pacer, not
GitHub's rate limiter, is what slows a run: one mutation a second means a state change
(field, Status, audit comment) costs at least 3 s of wall time.

    make bench-github    # or: .venv/bin/python benchmarks/bench_github.py
"""

from __future__ import annotations

import collections
import functools
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.integration.github.conftest import TOKEN, Served, git, ralph_on_the_board, tracker_of

# Run as a script, so the repository root is put on the path for the quick mode.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.published import use_published_definitions

from benchmarks._quick import pick
from ralph.config import Config
from ralph.db import SqliteDatabase
from ralph.demo._sample import EPIC_BODY, EPIC_TITLE, create_sample_repository
from ralph.github import GitHubClient, Pacer, PacingPolicy, Tokens
from ralph.github import queries as q
from ralph.github.fake import CheckPlan, FakeGitHub
from ralph.tracker import (
    GitHubCodeHost,
    GitHubTracker,
    IssueQuery,
    LocalTracker,
    ReviewComment,
    ReviewEvent,
    Tracker,
    set_up_board,
)
from ralph.views import load_board
from ralph.workflow import Estimate, WorkflowState

BOARD = pick(100, 12)
REPEATS = pick(15, 1)
#: The board `ralph status` reads: 300 open issues, the rest closed long ago.
STATUS_ISSUES = pick(2000, 400)
#: The client's own work without GitHub's waits (those are measured at the end).
UNPACED = PacingPolicy(mutation_interval=0, content_per_minute=10**6, points_per_minute=10**6)


def median_ms(action: Callable[[], object], repeats: int = REPEATS) -> float:
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        action()
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples)


def github() -> tuple[FakeGitHub, GitHubTracker]:
    fake = FakeGitHub()
    fake.add_token("t", "acme")
    fake.add_repository("acme/shop")
    client = GitHubClient(fake, Tokens("t"), pacer=Pacer(UNPACED))
    board = set_up_board(client, "acme/shop").board
    return fake, GitHubTracker(client, owner="acme", repo="shop", project=board.number)


def fill(tracker: Tracker) -> None:
    for i in range(BOARD):
        tracker.create_issue(f"Issue {i}", estimate=Estimate.S, state=WorkflowState.BACKLOG)


def counted(fake: FakeGitHub, action: Callable[[], object]) -> tuple[int, int]:
    before = len(fake.requests)
    action()
    made = fake.requests[before:]
    return sum(not r.mutation for r in made), sum(r.mutation for r in made)


#: Before batching: measured with this benchmark on the branch's start (the same fake and
#: the same point formula); the issue's own count of the demo epic was 406 and 127.
BEFORE: dict[str, Any] = {
    "create_issue (state, estimate)": (2, 5),
    "set_state (+ Status, audit)": (2, 2),
    "demo epic: requests": 469,
    "demo epic: mutation requests": 122,
    "demo epic: content-creating requests": 55,
    "status (2,000 issues, 300 open): requests": 41,
    "status (2,000 issues, 300 open): primary points": 161,
}


#: Issue 49's goals for the demo epic.
GOALS = {
    "demo epic: requests": 70,
    "demo epic: mutation requests": 35,
    "demo epic: content-creating requests": 30,
}


def main() -> None:
    fake, gh = github()
    with tempfile.TemporaryDirectory() as folder:
        db = SqliteDatabase(Path(folder) / "ralph.db")
        local = LocalTracker(db, repo="shop")
        fill(gh)
        fill(local)
        fresh = {t.kind: iter(range(2, BOARD + 1)) for t in (gh, local)}  # Backlog issues
        operations: dict[str, Callable[[Tracker], object]] = {
            "get_issue": lambda t: t.get_issue(1),
            f"list_issues ({BOARD})": lambda t: t.list_issues(IssueQuery()),
            "create_issue (state, estimate)": lambda t: t.create_issue(
                "New", estimate=Estimate.XS, state=WorkflowState.BACKLOG
            ),
            "set_state (+ Status, audit)": lambda t: t.set_state(
                next(fresh[t.kind]), "Research Needed", command="ralph_triage"
            ),
            "add_comment": lambda t: t.add_comment(1, "note"),
        }
        print(f"GitHub tracker on the in-memory fake ({BOARD} issues), against local SQLite")
        print(
            f"{'operation':34} {'queries':>7} {'mutations':>9} {'github ms':>10} "
            f"{'local ms':>9} {'ratio':>6}"
        )
        for name, operation in operations.items():
            queries, mutations = counted(fake, functools.partial(operation, gh))
            gh_ms = median_ms(functools.partial(operation, gh))
            local_ms = median_ms(functools.partial(operation, local))
            before = BEFORE.get(name)
            was = f"  (before: {before[0]} + {before[1]})" if before else ""
            print(
                f"{name:34} {queries:7} {mutations:9} {gh_ms:10.2f} {local_ms:9.2f} "
                f"{gh_ms / local_ms:6.1f}{was}"
            )
        db.close()

    pull_requests()

    fake, gh = github()
    gh.create_issue("Paced", state=WorkflowState.BACKLOG)
    clock = {"now": 0.0}
    pacer = Pacer(
        clock=lambda: clock["now"], sleep=lambda s: clock.__setitem__("now", clock["now"] + s)
    )
    gh.client.pacer = pacer
    states = ["Research Needed", "Research in Progress", "Ready for Plan", "Plan in Progress"]
    commands = ["ralph_triage", "ralph_research", "ralph_research", "ralph_plan"]
    for state, command in zip(states, commands, strict=True):
        gh.set_state(1, state, command=command)
    print(
        f"\nPacing at GitHub's 1 mutation/s: 4 state changes wait {clock['now']:.0f} s "
        f"({clock['now'] / 4:.1f} s each) before any network time"
    )


def pull_requests() -> None:
    """What a pull request costs in requests: its whole read (checks with isRequired,
    reviews, threads and what GitHub judges) and each write of the review loop."""
    fake, tracker = github()
    gh = GitHubCodeHost.of(tracker)
    fake.protect("acme/shop", approvals=1, checks=["ci"])
    fake.run_ci("acme/shop", CheckPlan("ci"), CheckPlan("lint"), CheckPlan("docs"))
    fake.add_token("r", "alice")
    reviewer = GitHubCodeHost.of(
        GitHubTracker(
            GitHubClient(fake, Tokens("r"), pacer=Pacer(UNPACED)),
            owner="acme",
            repo="shop",
            project=1,
        )
    )
    number = gh.create_pull_request(
        head="feature", base="main", title="PR", body="Closes #1"
    ).number
    for i in range(3):
        comments = [ReviewComment(path=f"f{i}.py", line=j, body=f"note {j}") for j in (1, 2)]
        reviewer.submit_review(number, ReviewEvent.COMMENT, f"round {i}", comments=comments)
    thread = gh.get_pull_request(number).threads[0].id
    operations: dict[str, Callable[[], object]] = {
        "get_pull_request (3 checks, 3 reviews, 6 threads)": lambda: gh.get_pull_request(number),
        "list_pull_requests (1)": lambda: gh.list_pull_requests(),
        "submit_review (1 inline comment)": lambda: reviewer.submit_review(
            number,
            ReviewEvent.REQUEST_CHANGES,
            "again",
            comments=[ReviewComment(path="x.py", line=1, body="x")],
        ),
        "reply_to_thread": lambda: gh.reply_to_thread(thread, "done"),
        "resolve_thread": lambda: gh.resolve_thread(thread),
        "request_review (everyone who reviewed)": lambda: gh.request_review(number),
        "merge_settings (after the first)": gh.merge_settings,
    }
    print("\nPull requests on GitHub (the in-memory fake)")
    print(f"{'operation':50} {'queries':>7} {'mutations':>9} {'ms':>8}")
    for name, operation in operations.items():
        queries, mutations = counted(fake, operation)
        print(f"{name:50} {queries:7} {mutations:9} {median_ms(operation, 5):8.2f}")
    fake.review("acme/shop", number, "alice", "APPROVE")
    queries, mutations = counted(fake, lambda: gh.merge_pull_request(number))
    print(f"{'merge_pull_request (closing no issue)':50} {queries:7} {mutations:9}")


def demo_epic() -> None:
    """The sample epic from Backlog to merged code: ``ralph init --github``, the epic, and
    ``ralph hero`` as real processes against the fake on HTTP (scripted agents)."""
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        work = create_sample_repository(root / "work")
        origin = root / "origin.git"
        git(root, "clone", "-q", "--bare", str(work), str(origin))
        git(work, "remote", "add", "origin", str(origin))
        fake = FakeGitHub()
        fake.add_token(TOKEN, "acme")
        fake.add_repository("acme/greet", git_path=origin)
        with fake.serve() as url:
            served = Served(fake, url)
            env = ralph_on_the_board(work, served)
            epic = tracker_of(fake).create_issue(
                EPIC_TITLE, body=EPIC_BODY, state=WorkflowState.BACKLOG
            )
            run = served.ralph("hero", str(epic.number), cwd=work, env=env, timeout=600)
        if run.returncode != 0:
            raise SystemExit(f"ralph hero failed:\n{run.stdout[-2000:]}\n{run.stderr[-2000:]}")
    made = fake.requests
    mutations = [r for r in made if r.mutation]
    creating = sum(_content(r.name, r.variables) for r in mutations)
    print("\nThe demo epic (ralph init --github, the epic, ralph hero) on the fake, by document")
    figures = {
        "demo epic: requests": len(made),
        "demo epic: mutation requests": len(mutations),
        "demo epic: content-creating requests": sum(
            1 for r in mutations if _creates(r.name, r.variables)
        ),
    }
    for name, value in figures.items():
        print(f"{name:44} {value:5}  (goal <= {GOALS[name]}; before: {BEFORE[name]})")
    print(f"{'demo epic: things created (content budget)':44} {creating:5}")
    for name, count in collections.Counter(r.name for r in made).most_common():
        print(f"    {name:40} {count:5}")


def _creates(name: str, variables: Mapping[str, object]) -> bool:
    return _content(name, variables) > 0


def _content(name: str, variables: Mapping[str, object]) -> int:
    """What a mutation created: a batch's creating aliases (comments, fields), else one
    for a creating document."""
    if set(variables) != {"input"}:  # a batch: one input per alias
        return sum(
            1 for alias in variables if alias.startswith(("audit", "note", "field", "issue"))
        )
    document = q.ALL.get(name)
    return 1 if document is not None and document.creates else 0


def status_board() -> None:
    """``ralph status``'s read of a board of 2,000 issues, 300 of them open."""
    fake, gh = github()
    repository = fake.repository("acme/shop")
    for i in range(STATUS_ISSUES):
        issue = fake.add_issue("acme/shop", f"Issue {i}")
        if i >= 300:
            issue.state = "CLOSED"
            issue.stateReason = "COMPLETED"
            issue.closedAt = "2020-01-01T00:00:00Z"
            issue.updatedAt = "2020-01-01T00:00:00Z"
    assert len(repository.issue_list) == STATUS_ISSUES
    before = len(fake.requests)
    spent = fake.remaining
    load_board(gh, Config(root=Path(".")), now=time.time())
    made = fake.requests[before:]
    print("\nralph status on a board of 2,000 issues (300 open), on the fake")
    figures = {
        "status (2,000 issues, 300 open): requests": len(made),
        "status (2,000 issues, 300 open): primary points": spent - fake.remaining,
    }
    for name, value in figures.items():
        print(f"{name:44} {value:5}  (before: {BEFORE[name]})")


if __name__ == "__main__":
    use_published_definitions()  # the fakes' schemas, beside the repository
    main()
    demo_epic()
    status_board()
