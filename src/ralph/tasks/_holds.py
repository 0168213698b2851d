"""The task store's holds and provider waits: issues Ralph stopped spending on until a
person lifts the hold, and agent CLIs whose provider refuses for now. Both are read by
every process of a project (the status, the web board, serve), so they live here."""

from __future__ import annotations

from ralph.db import Row
from ralph.tasks._core import StoreCore
from ralph.tasks._model import Hold, HoldReason, ProviderWait

__all__ = ["LONGEST_PROVIDER_WAIT", "HoldVerbs"]

#: The furthest a provider's wait may end, in seconds from now: a reset misread (in
#: milliseconds, say) must not pause an agent for ever.
LONGEST_PROVIDER_WAIT = 8 * 86_400.0


def _hold(row: Row) -> Hold:
    return Hold(
        repo=str(row["repo"]),
        number=int(row["number"]),
        reason=HoldReason(row["reason"]),
        detail=str(row["detail"]),
        lift=str(row["lift"]),
        run_id=row["run_id"],
        at=float(row["at"]),
    )


def _wait(row: Row) -> ProviderWait:
    return ProviderWait(
        agent=str(row["agent"]), until=float(row["until"]), said=str(row["said"]), at=row["at"]
    )


class HoldVerbs(StoreCore):
    """Holds on issues, and waits for a provider's limit."""

    # -- holds ------------------------------------------------------------------------------

    def hold_issue(
        self,
        repo: str,
        number: int,
        reason: HoldReason,
        *,
        detail: str,
        lift: str,
        run_id: int | None = None,
    ) -> Hold:
        """Hold issue ``number`` of ``repo`` (a hold already there is replaced: the
        latest reason is the one to lift)."""
        with self._write() as tx:
            row = tx.one(
                "INSERT INTO ralph_holds (repo, number, reason, detail, lift, run_id, at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (repo, number) DO UPDATE SET "
                "reason = excluded.reason, detail = excluded.detail, lift = excluded.lift, "
                "run_id = excluded.run_id, at = excluded.at RETURNING *",
                (repo, number, reason.value, detail, lift, run_id, self._now()),
            )
        assert row is not None
        return _hold(row)

    def holds(self, repo: str | None = None) -> list[Hold]:
        """The issues held (of ``repo``, or of every repository), oldest hold first."""
        sql = "SELECT * FROM ralph_holds" + (" WHERE repo = ?" if repo is not None else "")
        with self._reader() as tx:
            rows = tx.rows(sql + " ORDER BY at, number", (repo,) if repo is not None else ())
        return [_hold(row) for row in rows]

    def hold_of(self, repo: str, number: int) -> Hold | None:
        with self._reader() as tx:
            row = tx.one("SELECT * FROM ralph_holds WHERE repo = ? AND number = ?", (repo, number))
        return _hold(row) if row is not None else None

    def lift_hold(self, repo: str, number: int) -> Hold | None:
        """Lift the hold on an issue: the hold lifted, or None when it had none."""
        with self._write() as tx:
            row = tx.one(
                "DELETE FROM ralph_holds WHERE repo = ? AND number = ? RETURNING *", (repo, number)
            )
        return _hold(row) if row is not None else None

    # -- provider waits ---------------------------------------------------------------------

    def wait_for_provider(self, agent: str, until: float, said: str = "") -> ProviderWait:
        """Record that ``agent``'s provider refuses until ``until``; a later ``until``
        of an earlier wait stands (two workers may hear the same limit). It ends within
        ``LONGEST_PROVIDER_WAIT``."""
        now = self._now()
        until = min(until, now + LONGEST_PROVIDER_WAIT)
        with self._write() as tx:
            row = tx.one(
                "INSERT INTO ralph_provider_waits (agent, until, said, at) VALUES (?, ?, ?, ?) "
                "ON CONFLICT (agent) DO UPDATE SET said = CASE WHEN excluded.until >= "
                "ralph_provider_waits.until THEN excluded.said ELSE ralph_provider_waits.said "
                "END, until = CASE WHEN excluded.until >= ralph_provider_waits.until "
                "THEN excluded.until ELSE ralph_provider_waits.until END, at = excluded.at "
                "RETURNING *",
                (agent, until, said, now),
            )
        assert row is not None
        return _wait(row)

    def provider_waits(self, *, now: float | None = None) -> list[ProviderWait]:
        """The agents whose provider still refuses at ``now`` (default: the store's
        clock), soonest lifted first."""
        at = self._now() if now is None else now
        with self._reader() as tx:
            rows = tx.rows(
                "SELECT * FROM ralph_provider_waits WHERE until > ? ORDER BY until, agent", (at,)
            )
        return [_wait(row) for row in rows]

    def provider_wait(self, agent: str, *, now: float | None = None) -> ProviderWait | None:
        """``agent``'s wait still in force at ``now``, if any."""
        return next((w for w in self.provider_waits(now=now) if w.agent == agent), None)
