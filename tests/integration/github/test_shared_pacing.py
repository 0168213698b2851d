"""One token's pacing across processes: two processes with their own pacers never start
mutations closer than the interval, together stay inside the content budget, and a rate
limit one of them meets pauses the other (a real file lock between real processes, and
pacers on a fake clock for the budgets)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

from ralph.github import Pacer, PacingPolicy, SharedPacing, pacing_dir

from ...conftest import FakeClock

_WORKER = textwrap.dedent(
    """
    import json, sys, time
    from pathlib import Path
    from ralph.github import Pacer, PacingPolicy, SharedPacing

    shared = SharedPacing(Path(sys.argv[1])) if sys.argv[2] == "shared" else None
    pacer = Pacer(PacingPolicy(mutation_interval=0.25), shared=shared)
    starts = []
    for _ in range(4):
        with pacer.slot(mutation=True):
            starts.append(time.time())
    print(json.dumps(starts))
    """
)


def _two_processes(path, mode: str) -> list[float]:
    workers = [
        subprocess.Popen(
            [sys.executable, "-c", _WORKER, str(path), mode], stdout=subprocess.PIPE, text=True
        )
        for _ in range(2)
    ]
    starts: list[float] = []
    for worker in workers:
        out, _ = worker.communicate(timeout=60)
        assert worker.returncode == 0
        starts += json.loads(out)
    return sorted(starts)


def test_two_processes_sharing_a_token_keep_the_mutation_interval_between_them(tmp_path):
    """Eight mutations a quarter second apart take 1.75 s however the two processes
    interleave (a little less as measured: a busy machine delays when a process notes
    its start, never when it takes its turn)."""
    starts = _two_processes(tmp_path / "pacing.json", "shared")
    assert len(starts) == 8
    assert starts[-1] - starts[0] >= 7 * 0.25 - 0.15


def test_two_processes_each_alone_would_start_mutations_together(tmp_path):
    """The check above could fail: unshared pacers run side by side (about 0.75 s)."""
    starts = _two_processes(tmp_path / "pacing.json", "alone")
    assert starts[-1] - starts[0] < 7 * 0.25 - 0.15


def _pacers(tmp_path, clock: FakeClock, **policy: int) -> tuple[Pacer, Pacer]:
    rules = PacingPolicy(mutation_interval=0, **policy)
    return tuple(  # type: ignore[return-value]
        Pacer(rules, clock=clock, sleep=clock.advance, shared=SharedPacing(tmp_path / "p.json"))
        for _ in range(2)
    )


def test_the_content_budget_is_spent_by_every_process_of_the_token(tmp_path, clock):
    first, second = _pacers(tmp_path, clock, content_per_minute=2)
    start = clock()
    for _ in range(2):
        with first.slot(mutation=True, creates=True):
            pass
    with second.slot(mutation=True, creates=True):  # the third of the minute: waits
        pass
    assert clock() - start >= 60.0


def test_a_rate_limit_one_process_met_pauses_the_others_mutations(tmp_path, clock):
    first, second = _pacers(tmp_path, clock)
    start = clock()
    first.pause_until(start + 30.0, "secondary rate limit")
    with second.slot(mutation=True):
        pass
    assert clock() - start >= 30.0


def test_the_shared_file_is_named_by_a_hash_never_the_token(tmp_path):
    shared = SharedPacing.for_token(tmp_path, "https://api.github.com/graphql", "ghp_secret")
    with shared.locked() as state:
        state["last_mutation"] = 1.0
    assert "ghp_secret" not in shared.path.name
    assert "ghp_secret" not in shared.path.read_text()
    other = SharedPacing.for_token(tmp_path, "https://ghe.example/api/graphql", "ghp_secret")
    assert other.path != shared.path


def test_the_pacing_folder_is_the_users_state_folder_unless_set(tmp_path):
    assert pacing_dir({"RALPH_GH_PACING_DIR": str(tmp_path)}) == tmp_path
    assert pacing_dir({"XDG_STATE_HOME": str(tmp_path)}) == tmp_path / "ralph" / "pacing"
