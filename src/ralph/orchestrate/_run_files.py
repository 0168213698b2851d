"""The files a run keeps of its tasks, under the project's ``.ralph/runs/<run id>/``: a
log per task (``task-<id>.log``: every attempt's phase, ending, what it printed, and
each agent run with its cost, tokens and transcript) and each agent run's transcript
when its runtime kept one as a file (``task-<id>.<attempt>.<n>.jsonl``, or ``.txt``
for an agent's plain output): Claude Code's session is copied, and what runtimes wrote
in the run's ``incoming/`` folder (``AgentBrief.transcripts``: an agent CLI's output
stream, the scripted agents' exchange) is moved, so the run page can link them after
the agent's own copy is gone and nothing outside the run's folder is ever served.

Everything written passes through redaction: an agent's output can carry a token.
Files are found by name only: a name that is not one of these shapes, or that does not
resolve to a plain file directly inside the run's folder, is not a file of the run.
"""

from __future__ import annotations

import contextlib
import logging
import re
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ralph._secrets import redact
from ralph.errors import RalphError
from ralph.git import RUN_FILES_DIR
from ralph.orchestrate._dollars import dollars
from ralph.runtimes import AgentResult, AgentStatus

__all__ = ["RunFileNotFound", "RunFiles"]

logger = logging.getLogger(__name__)

#: The only names a run's folder serves: a task's log, an agent run's transcript.
_NAME = re.compile(
    r"task-(?P<task>[1-9][0-9]{0,17})(?:\.log|\.[0-9]{1,6}\.[0-9]{1,6}\.(?:jsonl|txt))"
)
#: Transcripts larger than this are cut (their start kept): a page, not an archive.
MAX_TRANSCRIPT_BYTES = 20 * 1024 * 1024
#: Appends from the workers of one process go one at a time per file.
_APPENDING = threading.Lock()


class RunFileNotFound(RalphError, LookupError):
    """No such file of that run (a name of another shape, or one that is not there)."""

    def __init__(self, run_id: int, name: str) -> None:
        self.run_id = run_id
        self.name = name
        super().__init__(f"run {run_id} keeps no file named {name!r}")


@dataclass(frozen=True)
class RunFiles:
    """The files of run ``run_id`` of the project at ``root``."""

    root: Path
    run_id: int

    @property
    def folder(self) -> Path:
        return self.root / RUN_FILES_DIR / str(self.run_id)

    def incoming(self, task_id: int) -> Path:
        """Where runtimes write the transcripts of an attempt at task ``task_id`` (moved
        beside its log after the attempt)."""
        return self.folder / "incoming" / str(task_id)

    # -- writing (the workers) ------------------------------------------------------------

    def record_attempt(
        self,
        task_id: int,
        *,
        attempt: int,
        subject: str,
        started: float,
        ending: str,
        error: str = "",
        lines: Sequence[str] = (),
        agent_runs: Sequence[AgentResult] = (),
    ) -> None:
        """Append one attempt of task ``task_id`` to its log, keeping a copy of each agent
        run's transcript file. Never raises: a log that cannot be written must not fail
        the task (the failure is logged)."""
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            kept = [
                self._keep_transcript(task_id, attempt, n, run)
                for n, run in enumerate(agent_runs, 1)
            ]
            text = _attempt_text(
                attempt, subject, started, time.time(), ending, error, lines, agent_runs, kept
            )
            text += self._keep_leftovers(task_id, attempt, len(agent_runs))
            with _APPENDING, (self.folder / f"task-{task_id}.log").open("a") as log:
                log.write(redact(text))
        except OSError as exc:
            logger.warning("task log not written", extra={"task": task_id, "error": str(exc)})

    def _keep_transcript(self, task_id: int, attempt: int, n: int, run: AgentResult) -> str:
        """The name of the copy of ``run``'s transcript, or where it is kept ("" when
        nowhere): only a file is copied (and one from ``incoming`` removed), a session
        id is only named."""
        source = Path(run.transcript) if run.transcript else None
        if source is None or not source.is_absolute() or not source.is_file():
            return run.transcript or ""
        suffix = ".jsonl" if source.suffix == ".jsonl" else ".txt"
        name = f"task-{task_id}.{attempt}.{n}{suffix}"
        with source.open("rb") as original, (self.folder / name).open("w") as copy:
            data = original.read(MAX_TRANSCRIPT_BYTES)
            for line in data.decode("utf-8", "replace").splitlines(keepends=True):
                copy.write(redact(line))
        if source.parent.resolve() == self.incoming(task_id).resolve():
            source.unlink()
        return name

    def _keep_leftovers(self, task_id: int, attempt: int, after: int) -> str:
        """Transcripts left in the task's ``incoming`` folder by agent runs whose
        results never came back (the phase crashed around them), kept like the others;
        the log's lines naming them."""
        folder = self.incoming(task_id)
        if not folder.is_dir():
            return ""
        said = ""
        files = sorted(folder.iterdir(), key=lambda path: path.stat().st_mtime_ns)
        for n, path in enumerate(files, after + 1):
            if path.is_file() and not path.is_symlink():
                ran = AgentResult(status=AgentStatus.CRASHED, transcript=str(path))
                said += "transcript of an agent run without a result: "
                said += f"{self._keep_transcript(task_id, attempt, n, ran)}\n"
        with contextlib.suppress(OSError):
            folder.rmdir()
        return said + ("\n" if said else "")

    # -- reading (the run page) -----------------------------------------------------------

    def listing(self) -> dict[int, list[str]]:
        """Each task's files (its log first, then its transcripts in order), by task id."""
        found: dict[int, list[str]] = {}
        if not self.folder.is_dir():
            return found
        for path in self.folder.iterdir():
            match = _NAME.fullmatch(path.name)
            if match and path.is_file() and not path.is_symlink():
                found.setdefault(int(match["task"]), []).append(path.name)
        return {task: sorted(names, key=_order) for task, names in sorted(found.items())}

    def path_of(self, name: str) -> Path:
        """The file ``name`` of this run; RunFileNotFound for any other name, for a file
        not there, and for anything that leads out of the run's folder (``..``, a
        symbolic link)."""
        if not _NAME.fullmatch(name):
            raise RunFileNotFound(self.run_id, name)
        path = self.folder / name
        if path.is_symlink() or not path.is_file():
            raise RunFileNotFound(self.run_id, name)
        if path.resolve().parent != self.folder.resolve():
            raise RunFileNotFound(self.run_id, name)
        return path


def _order(name: str) -> tuple[int, ...]:
    """The log first, then transcripts by attempt and agent run."""
    if name.endswith(".log"):
        return (0,)
    _, attempt, n, _ = name.split(".")
    return (1, int(attempt), int(n))


def _attempt_text(
    attempt: int,
    subject: str,
    started: float,
    ended: float,
    ending: str,
    error: str,
    lines: Sequence[str],
    agent_runs: Sequence[AgentResult],
    kept: Sequence[str],
) -> str:
    stamp = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(started))
    out = [f"== attempt {attempt}: {subject} · {stamp} · {ended - started:.1f}s · {ending}"]
    if error:
        out.append(f"error: {error}")
    out += [f"  {line}" for line in lines]
    for n, (run, transcript) in enumerate(zip(agent_runs, kept, strict=True), 1):
        said = f"agent run {n}: {run.agent or 'agent'} {run.status.value}"
        cost = dollars(run.cost_usd, (run.unpriced_model,) if run.unpriced_model else ())
        said += f" · {cost} · {run.tokens:,} tokens · {run.turns} turns"
        said += f" · {run.duration_seconds:.1f}s"
        if transcript:
            said += f" · transcript {transcript}"
        out.append(said)
        if run.error:
            out.append(f"  error: {run.error}")
        if run.denied_tools:
            out.append(f"  refused tools: {', '.join(run.denied_tools)}")
    return "\n".join(out) + "\n\n"
