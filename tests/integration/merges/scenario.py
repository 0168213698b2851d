"""A local project with ready pull requests waiting to merge, and the merges run as an
orchestrated run runs them: a builder for merge-train tests and the kill sweep.

``merge_scenario`` makes the demo's sample package in real git with the local tracker
over SQLite, a test command that sleeps a little first (a suite that takes a while),
and one XS issue In Review per change, each with its own branch and pull request:

- ``"ok"``: adds a module and a test of its own, which passes;
- ``"breaks"``: adds a test that fails;
- ``"raises_a"`` / ``"raises_b"``: raises the constant ``A`` (``B``) that
  ``tests/test_limits.py`` bounds: each passes alone, the two together fail (a semantic
  conflict, in files of their own so that git merges them cleanly).

``Scenario.run_merges`` puts a merge task per change into one run of the store (the
serialisation key every merge of the repository holds) and runs them with the task
executor until every one has ended, as a worker would, one at a time.
"""

from __future__ import annotations

import dataclasses
import shlex
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ralph._process import process_owner
from ralph.config import MergeWaitSettings, load_config
from ralph.demo import create_demo_project
from ralph.demo._sample import commit_everything
from ralph.git import commit_files
from ralph.graph import Role, TaskKind, TaskSpec
from ralph.orchestrate._execute import TaskExecutor
from ralph.orchestrate._planning import merge_serial_key
from ralph.project import Project, open_project
from ralph.runtimes.scripted import ScriptedRuntime
from ralph.tasks import MergeBatch, Run, Task, TaskStatus
from ralph.workflow import Car, Estimate, Train, WorkflowState

__all__ = ["KINDS", "Change", "Scenario", "merge_scenario"]

#: What a change can do to the project's tests (see the module docstring).
KINDS = ("ok", "breaks", "raises_a", "raises_b")

#: The bound the two constants share: 1 + 1 and 2 + 1 pass, 2 + 2 does not.
LIMITS = {
    "greet/limit_a.py": "A = 1\n",
    "greet/limit_b.py": "B = 1\n",
    "tests/test_limits.py": (
        "import unittest\n\nfrom greet.limit_a import A\nfrom greet.limit_b import B\n\n\n"
        "class LimitsTest(unittest.TestCase):\n"
        "    def test_the_constants_stay_within_their_shared_bound(self):\n"
        "        self.assertLessEqual(A + B, 3)\n"
    ),
}


def _files(kind: str, k: int) -> dict[str, str]:
    if kind == "ok":
        return {
            f"greet/change_{k}.py": f"VALUE_{k} = {k}\n",
            f"tests/test_change_{k}.py": (
                f"import unittest\n\nfrom greet.change_{k} import VALUE_{k}\n\n\n"
                f"class Change{k}Test(unittest.TestCase):\n"
                f"    def test_value(self):\n        self.assertEqual(VALUE_{k}, {k})\n"
            ),
        }
    if kind == "breaks":
        return {
            f"tests/test_change_{k}.py": (
                "import unittest\n\n\n"
                f"class Change{k}Test(unittest.TestCase):\n"
                f"    def test_change_{k}_breaks(self):\n"
                f"        self.assertEqual({k}, -{k}, 'change {k} breaks the tests')\n"
            )
        }
    if kind == "raises_a":
        return {"greet/limit_a.py": "A = 2\n"}
    if kind == "raises_b":
        return {"greet/limit_b.py": "B = 2\n"}
    raise ValueError(f"a change is one of {', '.join(KINDS)}, not {kind!r}")


@dataclass(frozen=True)
class Change:
    """One ready change: its issue, branch and pull request."""

    kind: str
    issue: int
    branch: str
    pr: int


@dataclass
class Scenario:
    project: Project
    folder: Path
    changes: list[Change] = field(default_factory=list)
    #: The base's commit before any change merged.
    start: str = ""

    @property
    def serial_key(self) -> str:
        return merge_serial_key(self.project)

    def configure(self, **settings: Any) -> None:
        """``settings`` in the project's configuration (``merge_batch=1``, ...)."""
        config = dataclasses.replace(self.project.config, **settings)
        self.project = dataclasses.replace(self.project, config=config)

    def add_change(self, kind: str, files: dict[str, str] | None = None) -> Change:
        """Another ready change: an XS issue In Review, its branch off the base as it is
        now (with ``files`` besides its kind's), and its pull request."""
        k = len(self.changes) + 1
        tracker, git = self.project.tracker, self.project.git
        issue = tracker.create_issue(
            f"Change {k} ({kind})",
            body=f"Change {k} of the merge scenario.",
            state=WorkflowState.IN_REVIEW,
            estimate=Estimate.XS,
        ).number
        branch = f"feature/GH-{issue}"
        git.git("branch", branch, "refs/heads/main", what="make the branch")
        commit_files(git, branch, {**_files(kind, k), **(files or {})}, f"Change {k}: {kind}")
        if git.has_remote():  # GitHub's side of it
            git.push(branch)
        pr = self.project.code_host.create_pull_request(
            head=branch, base="main", title=f"Change {k}", body=f"Closes #{issue}"
        )
        change = Change(kind, issue, branch, pr.number)
        self.changes.append(change)
        return change

    def merge_run(self, changes: Sequence[Change] | None = None, *, name: str = "merges") -> Run:
        """A run holding a merge task per change (all of them by default), on the
        repository's serialisation key, in the order given."""
        store = self.project.store
        run = store.create_run(name, mode="team")
        specs = [
            TaskSpec(
                f"merge:{c.issue}",
                TaskKind.MERGE,
                Role.INTEGRATOR,
                (c.issue,),
                f"Merge #{c.issue}",
                f"Merging #{c.issue}",
                (),
                {"issue_number": c.issue},
                serial_key=self.serial_key,
            )
            for c in (self.changes if changes is None else changes)
        ]
        store.add_tasks(run.id, specs)
        return run

    def run_merges(
        self, run: Run | None = None, *, seconds: float = 240.0, worker: str = "integrator"
    ) -> Run:
        """Run ``run``'s merge tasks (a new run of every change's by default) one at a time
        until each has ended or waits for another role's task (an address round the
        merge asked for); a task deferred is taken again when its time comes."""
        run = run or self.merge_run()
        store = self.project.store
        executor = TaskExecutor(
            self.project, ScriptedRuntime(env={}), run, owner=process_owner(worker), attempts=3
        )
        deadline = time.monotonic() + seconds
        while True:
            tasks = store.list_tasks(run.id)
            done = {task.id for task in tasks if task.status is TaskStatus.DONE}
            if all(
                task.terminal or task.role != "integrator" or not set(task.deps) <= done
                for task in tasks
            ):
                return run  # what is left waits for a builder (an address round)
            assert time.monotonic() < deadline, f"the merges did not end: {self.statuses(run)}"
            claim = store.claim(run.id, executor.runner.owner, ["integrator"])
            if claim is None:
                time.sleep(0.05)
                continue
            executor.execute(claim)

    def dead_batch(self, run: Run, change: Change) -> MergeBatch:
        """A batch of ``change`` left running on the base as it is, as a conductor of
        ``run`` that died before testing it would leave it."""
        project = self.project
        head = project.code_host.get_pull_request(change.pr).head_oid
        assert head is not None
        base = project.git.resolve("refs/heads/main")
        dead = Train(base, (Car(change.pr, head, (change.issue,)),))
        repo = self.serial_key.removeprefix("merge:")
        return project.store.open_batch(run.id, self.tasks(run)[0].id, repo, dead.to_record())

    def batches(self) -> list[MergeBatch]:
        """The merge trains of the repository, oldest first."""
        repo = self.serial_key.removeprefix("merge:")
        return sorted(self.project.store.batches(repo=repo), key=lambda b: b.id)

    def test_runs(self) -> int:
        """How many times the merges ran the tests, from the batch records."""
        return sum(batch.test_runs for batch in self.batches())

    def tasks(self, run: Run) -> list[Task]:
        return self.project.store.list_tasks(run.id)

    def statuses(self, run: Run) -> dict[str, str]:
        return {t.key: t.status.value for t in self.tasks(run)}

    def merged(self) -> list[Change]:
        """The changes whose pull request is merged, in the order they merged."""
        host = self.project.code_host
        found = [(host.get_pull_request(c.pr), c) for c in self.changes]
        landed = [(pr.merged_at or 0.0, pr.number, c) for pr, c in found if pr.merged_at]
        return [c for _, _, c in sorted(landed, key=lambda x: (x[0], x[1]))]

    def state(self, change: Change) -> WorkflowState | None:
        return self.project.tracker.get_issue(change.issue).workflow_state

    def first_parents(self) -> list[str]:
        """The base's first-parent commits since the scenario was set up, oldest first."""
        out = self.project.git.git(
            "rev-list",
            "--first-parent",
            "--reverse",
            f"{self.start}..refs/heads/main",
            what="list the base's commits",
        )
        return out.split()

    def on_base(self, change: Change) -> bool:
        """Whether the change's head is reachable from the base (a squash aside)."""
        head = self.project.git.resolve(f"refs/heads/{change.branch}")
        return self.project.git.is_ancestor(head, "refs/heads/main")

    def passes_at(self, commit: str) -> bool:
        """Whether the project's tests pass on ``commit`` (a throwaway checkout)."""
        path = self.folder.parent / f"at-{commit[:12]}"
        git = self.project.git
        git.git("worktree", "add", "-q", "--detach", str(path), commit, what="check out")
        try:
            tests = subprocess.run(
                [sys.executable, "-m", "unittest", "-q"],
                cwd=path,
                capture_output=True,
                text=True,
                timeout=120,
            )
        finally:
            git.git("worktree", "remove", "--force", str(path), what="remove the checkout")
        return tests.returncode == 0


def slow_tests(seconds: float) -> str:
    """The sample's unittest suite as the test command, ``seconds`` of sleep first."""
    tests = shlex.join([sys.executable, "-m", "unittest", "-q"])
    return f"sleep {seconds}; {tests}" if seconds > 0 else tests


@contextmanager
def merge_scenario(
    folder: Path,
    kinds: Sequence[str] = ("ok",) * 8,
    *,
    test_seconds: float = 0.5,
    **settings: Any,
) -> Iterator[Scenario]:
    """The project at ``folder`` with a ready change of each kind in ``kinds``, its
    merges' waits short; ``settings`` go into its configuration (``merge_batch=1``)."""
    repo, _ = create_demo_project(folder)
    for path, text in LIMITS.items():
        (repo / path).write_text(text)
    commit_everything(repo, "Two constants and their shared bound")
    with open_project(load_config(repo)) as project:
        scenario = Scenario(project, repo)
        scenario.configure(
            test_command=slow_tests(test_seconds),
            merge=MergeWaitSettings(wait_seconds=0.1, max_wait_seconds=0.5),
            **settings,
        )
        scenario.start = project.git.resolve("refs/heads/main")
        for kind in kinds:
            scenario.add_change(kind)
        yield scenario
