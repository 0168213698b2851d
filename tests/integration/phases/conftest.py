"""A sample project: a small Python package with tests in a real git repository, a local
tracker over SQLite, and a phase runner with the scripted agents."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import pytest

from ralph.config import Config, Project
from ralph.git import GitRepo
from ralph.phases import PhaseOutcome, PhaseRunner
from ralph.runtimes import Limits
from ralph.runtimes.scripted import Fault, ScriptedRuntime
from ralph.tasks import open_store
from ralph.tracker import LocalTracker
from ralph.workflow import Estimate, WorkflowState

from ..conftest import Project as Repo
from ..conftest import git

DAY = date(2026, 11, 22)

CORE = 'def greet(name):\n    return f"Hello, {name}!"\n'
INIT = "from greet.core import greet\n"
TESTS = """import unittest

import greet


class GreetTest(unittest.TestCase):
    def test_greet(self):
        self.assertEqual(greet.greet("Ada"), "Hello, Ada!")
"""

FAREWELL = """```diff
--- a/greet/core.py
+++ b/greet/core.py
@@ -1,2 +1,6 @@
 def greet(name):
     return f"Hello, {name}!"
+
+
+def farewell(name):
+    return f"Goodbye, {name}!"
```"""

EXPORT = """```diff
--- a/greet/__init__.py
+++ b/greet/__init__.py
@@ -1 +1 @@
-from greet.core import greet
+from greet.core import farewell, greet
```"""

TEST_FAREWELL = """```diff
--- a/tests/test_greet.py
+++ b/tests/test_greet.py
@@ -6,3 +6,6 @@ import greet
 class GreetTest(unittest.TestCase):
     def test_greet(self):
         self.assertEqual(greet.greet("Ada"), "Hello, Ada!")
+
+    def test_farewell(self):
+        self.assertEqual(greet.farewell("Ada"), "Goodbye, Ada!")
```"""

EPIC = f"""The greeting library should say goodbye too.

## Split

### XS: Add a farewell function
Add `farewell(name)` next to `greet` in the core module.

{FAREWELL}

### XS: Export farewell from the package (after 1)
Make `greet.farewell` importable.

{EXPORT}

### S: Test the farewell (after 2)
Cover `farewell` in the test suite.

{TEST_FAREWELL}
"""


@dataclass
class Sample:
    repo: Repo
    project: Project
    runtime: ScriptedRuntime

    @property
    def tracker(self) -> LocalTracker:
        assert isinstance(self.project.tracker, LocalTracker)
        return self.project.tracker

    def runner(self, *faults: tuple[str, Fault], attempts: int = 2) -> PhaseRunner:
        if faults:
            queued: dict[str, list[Fault]] = {}
            for phase, fault in faults:
                queued.setdefault(phase, []).append(fault)
            self.runtime = ScriptedRuntime(queued, env={})
        return PhaseRunner(
            self.project, self.runtime, owner="test", max_attempts=attempts,
            limits=Limits(timeout_seconds=10), today=lambda: DAY,
        )  # fmt: skip

    def run(self, phase: str, number: int, *faults: tuple[str, Fault]) -> PhaseOutcome:
        return self.runner(*faults).run(phase, number)

    def state(self, number: int) -> WorkflowState | None:
        return self.tracker.get_issue(number).workflow_state

    def comments(self, number: int) -> list[str]:
        return [c.body for c in self.tracker.get_issue(number).comments]

    def epic(self) -> int:
        return self.tracker.create_issue(
            "Say goodbye", body=EPIC, state=WorkflowState.BACKLOG, estimate=Estimate.M
        ).number

    def issue(
        self,
        title: str = "Add a farewell function",
        body: str = f"Add `farewell` to the core module.\n\n{FAREWELL}\n",
        state: WorkflowState = WorkflowState.RESEARCH_NEEDED,
        estimate: Estimate = Estimate.XS,
    ) -> int:
        return self.tracker.create_issue(title, body=body, state=state, estimate=estimate).number

    def through(self, number: int, *phases: str) -> None:
        """Run ``phases`` on ``number`` with a well-behaved agent; each must succeed."""
        for phase in phases:
            outcome = self.run(phase, number)
            assert outcome.status.value == "done", (phase, outcome)


@pytest.fixture
def sample(tmp_path: Path) -> Iterator[Sample]:
    repo = Repo(tmp_path / "sample")
    repo.commit(
        "main",
        {"greet/__init__.py": INIT, "greet/core.py": CORE, "tests/__init__.py": "",
         "tests/test_greet.py": TESTS},
        "the greeting library",
    )  # fmt: skip
    git(repo.path, "reset", "-q", "--hard")
    config = Config(
        root=repo.path,
        repo="sample",
        test_command=f"{sys.executable} -m unittest -q",
    )
    store = open_store(f"sqlite:///{tmp_path / 'ralph.db'}")
    gitrepo = GitRepo(repo.path)
    tracker = LocalTracker(store, repo="sample", git=gitrepo)  # type: ignore[arg-type]
    project = Project(config, tracker, store, gitrepo)
    yield Sample(repo, project, ScriptedRuntime(env={}))
    store.close()
