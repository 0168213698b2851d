"""A conductor that lost its claim stops (issue 47): its lease ran out while its batch
was tested, the task went back to the store and another conductor took the batch over;
the first lands nothing more and writes nothing more to the batch."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from ralph._process import process_owner
from ralph.orchestrate._execute import Execution, TaskExecutor
from ralph.runtimes.scripted import ScriptedRuntime
from ralph.workflow import WorkflowState

from ..orchestrate.test_team import wait_until
from .scenario import merge_scenario

pytestmark = pytest.mark.timeout(300)


def test_a_conductor_whose_batch_was_taken_over_stops_without_landing_anything(
    tmp_path: Path,
) -> None:
    with merge_scenario(tmp_path / "greet", ("ok",) * 3, test_seconds=3) as scenario:
        store = scenario.project.store
        run = scenario.merge_run()
        executor = TaskExecutor(
            scenario.project, ScriptedRuntime(env={}), run, owner=process_owner("first")
        )
        claim = store.claim(run.id, executor.runner.owner, ["integrator"])
        assert claim is not None
        ended: list[Execution] = []
        conducting = threading.Thread(target=lambda: ended.append(executor.execute(claim)))
        conducting.start()
        try:
            repo = scenario.serial_key.removeprefix("merge:")
            wait_until(lambda: store.unfinished_batch(repo) is not None)
            batch = store.unfinished_batch(repo)
            assert batch is not None
            assert len(batch.members) == 3
            assert batch.test_runs == 0
            # While the batch is tested: the conductor's lease runs out, its task goes
            # back to the store, and another run's conductor takes the batch over.
            assert [t.id for t in store.reap(now=time.time() + 24 * 3600)] == [claim.task_id]
            other = scenario.merge_run(scenario.changes[:1], name="other")
            (taker,) = store.list_tasks(other.id)
            taken = store.take_over_batch(batch.id, other.id, taker.id)
        finally:
            conducting.join(timeout=120)
        assert not conducting.is_alive()
        (execution,) = ended
        assert execution.status.value == "lost", execution
        assert scenario.first_parents() == []  # nothing landed
        assert scenario.merged() == []
        assert [scenario.state(c) for c in scenario.changes] == [WorkflowState.IN_REVIEW] * 3
        (now,) = scenario.batches()
        assert (now.run_id, now.task_id, now.status) == (other.id, taker.id, taken.status)
        assert now.landed == []
        assert now.train == taken.train  # the old conductor wrote nothing more
