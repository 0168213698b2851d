"""The task store's budget ledger: what each agent run cost, by run and task."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ralph.tasks._core import StoreCore
from ralph.tasks._model import Charge
from ralph.tasks._rows import to_charge

__all__ = ["LedgerVerbs"]


def _charges_where(run_id: int | None, since: float | None) -> tuple[str, list[Any]]:
    """The ledger's lines of one run (or all), at or after ``since``: a WHERE clause."""
    sql, params = " WHERE 1 = 1", list[Any]()
    if run_id is not None:
        sql += " AND run_id = ?"
        params.append(run_id)
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
    ) -> Charge:
        """Add what one agent run cost to the ledger: ``tokens`` counts every token,
        cached input included; ``refused`` names the tool calls it was refused;
        ``unpriced_model`` a model it used whose price is unknown (its cost then is)."""
        with self._write() as tx:
            self._locked_run(tx, run_id)
            row = tx.one(
                "INSERT INTO ralph_charges (run_id, task_id, usd, tokens, turns, seconds, at, "
                "cache_read_tokens, cache_write_tokens, refused, unpriced_model) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *",
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
                ),
            )
        assert row is not None
        return to_charge(row)

    def charges(self, run_id: int) -> list[Charge]:
        """The run's ledger, oldest first."""
        with self._reader() as tx:
            rows = tx.rows("SELECT * FROM ralph_charges WHERE run_id = ? ORDER BY id", (run_id,))
        return [to_charge(row) for row in rows]

    def spent(self, *, run_id: int | None = None, since: float | None = None) -> float:
        """US dollars charged to one run, or to every run, at or after ``since``."""
        where, params = _charges_where(run_id, since)
        with self._reader() as tx:
            row = tx.one(f"SELECT COALESCE(SUM(usd), 0) AS total FROM ralph_charges{where}", params)
        return float(row["total"]) if row is not None else 0.0

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
