"""The task store's budget ledger: what each agent run cost, by run and task."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ralph.tasks._core import StoreCore
from ralph.tasks._model import Charge, Spend, Task, TaskStatus
from ralph.tasks._rows import to_charge

__all__ = ["LedgerVerbs"]


def _charges_where(
    run_id: int | None,
    since: float | None,
    *,
    repo: str | None = None,
    issue: int | None = None,
    task_id: int | None = None,
) -> tuple[str, list[Any]]:
    """The ledger's lines of one run (or all), at or after ``since``, of one issue of
    ``repo`` or of one task: a WHERE clause."""
    sql, params = " WHERE 1 = 1", list[Any]()
    if run_id is not None:
        sql += " AND run_id = ?"
        params.append(run_id)
    if repo is not None:
        sql += " AND repo = ?"
        params.append(repo)
    if issue is not None:
        sql += " AND issue = ?"
        params.append(issue)
    if task_id is not None:
        sql += " AND task_id = ?"
        params.append(task_id)
    if since is not None:
        sql += " AND at >= ?"
        params.append(since)
    return sql, params


class LedgerVerbs(StoreCore):
    """What agent runs cost."""

    # -- the budget ledger ----------------------------------------------------------------

    def record_charge(
        self,
        run_id: int,
        task_id: int | None,
        usd: float,
        *,
        tokens: int = 0,
        turns: int = 0,
        seconds: float = 0.0,
        cache_read_tokens: int = 0,
        cache_write_tokens: int = 0,
        refused: Sequence[str] = (),
        unpriced_model: str = "",
        repo: str = "",
        issue: int | None = None,
        agent: str = "",
        phase: str = "",
        estimate: str = "",
    ) -> Charge:
        """Add what one agent run cost to the ledger: ``tokens`` counts every token,
        cached input included; ``refused`` names the tool calls it was refused;
        ``unpriced_model`` a model it used whose price is unknown (its cost then is);
        ``repo`` and ``issue`` the issue it worked on, ``agent`` the agent CLI,
        ``phase`` and ``estimate`` what it did (for the phase's history)."""
        with self._write() as tx:
            self._locked_run(tx, run_id)
            row = tx.one(
                "INSERT INTO ralph_charges (run_id, task_id, usd, tokens, turns, seconds, at, "
                "cache_read_tokens, cache_write_tokens, refused, unpriced_model, repo, issue, "
                "agent, phase, estimate) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *",
                (
                    run_id,
                    task_id,
                    usd,
                    tokens,
                    turns,
                    seconds,
                    self._now(),
                    cache_read_tokens,
                    cache_write_tokens,
                    json.dumps(list(refused)),
                    unpriced_model,
                    repo,
                    issue,
                    agent,
                    phase,
                    estimate,
                ),
            )
        assert row is not None
        return to_charge(row)

    def charges(self, run_id: int) -> list[Charge]:
        """The run's ledger, oldest first."""
        with self._reader() as tx:
            rows = tx.rows("SELECT * FROM ralph_charges WHERE run_id = ? ORDER BY id", (run_id,))
        return [to_charge(row) for row in rows]

    def refused_charges(self) -> list[Charge]:
        """Every charge of every run whose agent was refused a tool call, oldest first:
        an issue's refusals without reading every run's tasks."""
        with self._reader() as tx:
            rows = tx.rows("SELECT * FROM ralph_charges WHERE refused <> '[]' ORDER BY id")
        return [to_charge(row) for row in rows]

    def spent(self, *, run_id: int | None = None, since: float | None = None) -> float:
        """US dollars charged to one run, or to every run, at or after ``since``."""
        where, params = _charges_where(run_id, since)
        with self._reader() as tx:
            row = tx.one(f"SELECT COALESCE(SUM(usd), 0) AS total FROM ralph_charges{where}", params)
        return float(row["total"]) if row is not None else 0.0

    def spend(
        self,
        *,
        run_id: int | None = None,
        since: float | None = None,
        repo: str | None = None,
        issue: int | None = None,
        task_id: int | None = None,
    ) -> Spend:
        """Dollars, tokens and agent sessions charged to one run (or every run), one
        issue of ``repo`` across runs, or one task, at or after ``since``."""
        where, params = _charges_where(run_id, since, repo=repo, issue=issue, task_id=task_id)
        sql = (
            "SELECT COALESCE(SUM(usd), 0) AS usd, COALESCE(SUM(tokens), 0) AS tokens, "
            f"COUNT(*) AS sessions FROM ralph_charges{where}"
        )
        with self._reader() as tx:
            row = tx.one(sql, params)
        if row is None:
            return Spend()
        return Spend(
            usd=float(row["usd"]), tokens=int(row["tokens"]), sessions=int(row["sessions"])
        )

    def phase_history(
        self, repo: str, phase: str, estimate: str, *, limit: int = 20
    ) -> list[Spend]:
        """What ``phase`` cost per task on issues of ``estimate`` in ``repo``, the
        latest ``limit`` tasks first: each task's agent runs summed."""
        sql = (
            "SELECT task_id, SUM(usd) AS usd, SUM(tokens) AS tokens, COUNT(*) AS sessions, "
            "MAX(id) AS last FROM ralph_charges WHERE repo = ? AND phase = ? AND estimate = ? "
            "AND task_id IS NOT NULL GROUP BY task_id ORDER BY last DESC LIMIT ?"
        )
        with self._reader() as tx:
            rows = tx.rows(sql, (repo, phase, estimate, limit))
        return [
            Spend(usd=float(r["usd"]), tokens=int(r["tokens"]), sessions=int(r["sessions"]))
            for r in rows
        ]

    def last_progress(self, repo: str, issue: int) -> Task | None:
        """The task that last moved issue ``issue`` of ``repo`` forward: of the tasks
        whose agent runs were charged to it (in any run), the latest to complete (its
        ``updated_at`` is when). None while none has. A task no agent worked on (a pull
        request opened, a merge) is not seen, and need not be: nothing is charged
        between it and the agent's task before it."""
        sql = (
            "SELECT id FROM ralph_tasks WHERE status = ? AND id IN (SELECT task_id FROM "
            "ralph_charges WHERE repo = ? AND issue = ? AND task_id IS NOT NULL) "
            "ORDER BY updated_at DESC, id DESC LIMIT 1"
        )
        with self._reader() as tx:
            row = tx.one(sql, (TaskStatus.DONE.value, repo, issue))
            found = [] if row is None else self._load_tasks(tx, "id = ?", (row["id"],))
        return found[0] if found else None

    def unpriced_models(
        self, *, run_id: int | None = None, since: float | None = None
    ) -> list[str]:
        """The models without a price among the charges ``spent`` counts, in the order
        first charged: while there is one, what was spent is unknown."""
        where, params = _charges_where(run_id, since)
        sql = (
            f"SELECT unpriced_model, MIN(id) AS first FROM ralph_charges{where} "
            "AND unpriced_model <> '' GROUP BY unpriced_model ORDER BY first"
        )
        with self._reader() as tx:
            rows = tx.rows(sql, params)
        return [str(row["unpriced_model"]) for row in rows]
