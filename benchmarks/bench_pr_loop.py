"""The merge's wait for CI: a pull request whose required check takes T seconds on a
(fake, in-process) GitHub, merged by ``ralph hero``'s engine with the merge policy. How
long after the check turns green the pull request is merged, and how much worker time
the merge task holds while it waits. Prints medians and ratios from one run; not a test.

Goals (issue 20): from green to merged within the wake-up backoff's step at that moment
(the merge looks again on its backoff, never later); no worker held while waiting (the
task is back in the store between looks: held seconds are only the looks themselves).

    make bench-pr    # or: .venv/bin/python benchmarks/bench_pr_loop.py
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

# Run as a script, so the repository root is put on the path for the quick mode.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.published import use_published_definitions

from benchmarks._quick import pick
from ralph.config import Config, GitHubSettings, MergeWaitSettings
from ralph.demo._sample import create_sample_repository
from ralph.git import GitRepo
from ralph.github import GitHubClient, Pacer, PacingPolicy, Tokens
from ralph.github.fake import CheckPlan, FakeGitHub
from ralph.orchestrate import SessionOptions, hero_crew, run_session
from ralph.project import Project
from ralph.runtimes.scripted import ScriptedRuntime
from ralph.tasks import EventKind, open_store
from ralph.tracker import GitHubCodeHost, GitHubTracker, set_up_board
from ralph.workflow import Estimate, MergePolicy, WorkflowState

#: Seconds CI takes to turn green, per case.
CHECK_SECONDS = pick((4.0, 8.0, 16.0), (0.5,))
REPEATS = pick(3, 1)
#: The merge's backoff: looks after 1 s, 2 s, then every 4 s.
WAITS = MergeWaitSettings(wait_seconds=1.0, max_wait_seconds=4.0)
UNPACED = PacingPolicy(mutation_interval=0, content_per_minute=10**6, points_per_minute=10**6)


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True)
    return done.stdout.strip()


@dataclass(frozen=True)
class Measured:
    #: From the check turning green to the start of the look that merged it.
    green_to_look: float
    #: From the check turning green to the merge task's end (the look's own requests too).
    green_to_merged: float
    #: The backoff step the merge was on when the check turned green.
    step: float
    waits: int
    #: Seconds workers held the merge task in the looks that ended waiting, and seconds
    #: it spent back in the store between looks.
    held: float
    waited: float
    #: GitHub requests per look (reading the pull request and its issues, judging).
    requests: float


def one_pull_request(folder: Path, check_seconds: float) -> Measured:
    work = create_sample_repository(folder / "work")
    origin = folder / "origin.git"
    git(folder, "clone", "-q", "--bare", str(work), str(origin))
    git(work, "remote", "add", "origin", str(origin))
    fake = FakeGitHub()
    fake.add_token("t", "acme")
    fake.add_repository("acme/greet", git_path=origin)
    fake.protect("acme/greet", checks=["ci"])
    fake.run_ci("acme/greet", CheckPlan("ci", running=check_seconds))
    client = GitHubClient(fake, Tokens("t"), pacer=Pacer(UNPACED))
    board = set_up_board(client, "acme/greet").board.number
    tracker = GitHubTracker(client, owner="acme", repo="greet", project=board)
    issue = tracker.create_issue(
        "Say farewell", state=WorkflowState.IN_REVIEW, estimate=Estimate.XS
    ).number
    branch = f"feature/GH-{issue}"
    git(work, "checkout", "-q", "-b", branch)
    (work / "greet" / "farewell.py").write_text("def farewell(name):\n    return name\n")
    git(work, "add", "-A")
    git(work, "-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "farewell")
    git(work, "checkout", "-q", "main")
    git(work, "push", "-q", "origin", branch)
    opened = time.time()
    host = GitHubCodeHost.of(tracker)
    pr = host.create_pull_request(
        head=branch, base="main", title="Say farewell", body=f"Closes #{issue}"
    )
    config = Config(
        root=work,
        repo="greet",
        tracker="github",
        github=GitHubSettings(owner="acme", repo="greet", project=board),
        merge_policy=MergePolicy.CHECKS,
        merge=WAITS,
        allow_unsandboxed=True,
    )
    before = len(fake.requests)
    with open_store("memory://") as store:
        project = Project(config, tracker, host, store, GitRepo(work))
        options = SessionOptions.from_config(project.config, mode="hero")
        result = run_session(project, issue, ScriptedRuntime(env={}), options, crew=hero_crew(2))
        assert result.run is not None
        merged = fake.pull_request("acme/greet", pr.number)
        assert merged.mergedAt is not None, result
        events = [e for e in store.events(result.run.id) if e.task_id is not None]
    requests = len(fake.requests) - before
    green = opened + check_seconds
    # GitHub's mergedAt is to the second: the merge task's end is when it was merged.
    merged_at = next(e.at for e in events if e.kind is EventKind.TASK_DONE)
    claimed_at = last_claim = 0.0
    held = waited = 0.0
    waits = 0
    waiting_since: float | None = None
    step = WAITS.wait_seconds
    for event in events:
        if event.kind is EventKind.TASK_CLAIMED:
            claimed_at = last_claim = event.at
            if waiting_since is not None:
                waited += event.at - waiting_since
                waiting_since = None
        elif event.kind is EventKind.TASK_WAITING:
            held += event.at - claimed_at
            waits += 1
            waiting_since = event.at
            if event.at < green:  # the pause it is in when the check turns green
                step = min(WAITS.wait_seconds * 2 ** (waits - 1), WAITS.max_wait_seconds)
    return Measured(
        max(0.0, last_claim - green),
        max(0.0, merged_at - green),
        step,
        waits,
        held,
        waited,
        requests / (waits + 1),
    )


def main() -> None:
    print(f"merge backoff: {WAITS.wait_seconds:g} s doubling to {WAITS.max_wait_seconds:g} s")
    print(
        f"{'check takes':>12} {'green->look':>12} {'step':>6} {'ratio':>6} "
        f"{'green->merged':>14} {'looks':>6} {'req/look':>9} {'held s':>7} {'waited s':>9} "
        f"{'held/waited':>12}"
    )
    for seconds in CHECK_SECONDS:
        runs = []
        for _ in range(REPEATS):
            with tempfile.TemporaryDirectory() as folder:
                runs.append(one_pull_request(Path(folder), seconds))
        look = statistics.median(r.green_to_look for r in runs)
        step = statistics.median(r.step for r in runs)
        merged = statistics.median(r.green_to_merged for r in runs)
        held = statistics.median(r.held for r in runs)
        waited = statistics.median(r.waited for r in runs)
        looks = statistics.median(r.waits for r in runs)
        requests = statistics.median(r.requests for r in runs)
        print(
            f"{seconds:>10.1f} s {look:>10.2f} s {step:>5.2f}s {look / step:>6.2f} "
            f"{merged:>12.2f} s {looks:>6.0f} {requests:>9.1f} {held:>7.2f} {waited:>9.2f} "
            f"{held / max(waited, 1e-9):>12.3f}"
        )
    print("goal: green->look <= the backoff step (ratio <= 1); while waiting the merge task")
    print("is in the store (held counts only the looks: reading the pull request, judging it);")
    print("green->merged adds that last look's own GitHub requests (the fake's, in-process).")


if __name__ == "__main__":
    use_published_definitions()  # the fakes' schemas, beside the repository
    main()
