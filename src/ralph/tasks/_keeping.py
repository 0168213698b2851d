"""What the task store keeps beside runs: issue locks (one worker per issue across
processes), the branches Ralph may build on, and phases' checkpoints."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any

from ralph.db import Row
from ralph.errors import IssueLocked
from ralph.tasks._core import StoreCore
from ralph.tasks._database_reads import read_checkpoint
from ralph.tasks._model import IssueLock
from ralph.tasks._rows import StoreTx, to_json

__all__ = ["KeepingVerbs"]

logger = logging.getLogger(__name__)


class KeepingVerbs(StoreCore):
    """Issue locks, branches and checkpoints."""

    # -- issue locks ----------------------------------------------------------------------

    def _held_lock(self, tx: StoreTx, repo: str, number: int) -> Row | None:
        return tx.one(
            f"SELECT * FROM ralph_issue_locks WHERE repo = ? AND number = ? {self.db.lock_rows}",
            (repo, number),
        )

    def acquire_issue_lock(
        self,
        repo: str,
        number: int,
        owner: str,
        token: str,
        *,
        lease_seconds: float | None = None,
    ) -> IssueLock:
        """Take the issue, or refresh a lock this owner and token already hold. A lock
        whose lease ran out may be taken over. Raises IssueLocked."""
        now = self._now()
        expires = now + (lease_seconds or self.lease_seconds)
        with self._write() as tx:
            # Insert-or-nothing, then lock the row: a concurrent first acquirer makes this
            # wait for its commit and then see its lock, never a key violation.
            tx.run(
                "INSERT INTO ralph_issue_locks (repo, number, owner, token, acquired_at, "
                "expires_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (repo, number) DO NOTHING",
                (repo, number, owner, token, now, expires),
            )
            held = self._held_lock(tx, repo, number)
            assert held is not None
            mine = (held["owner"], held["token"]) == (owner, token)
            if not mine and held["expires_at"] > now:
                raise IssueLocked(repo, number, held["owner"])
            acquired = held["acquired_at"] if mine else now
            tx.run(
                "UPDATE ralph_issue_locks SET owner = ?, token = ?, acquired_at = ?, "
                "expires_at = ? WHERE repo = ? AND number = ?",
                (owner, token, acquired, expires, repo, number),
            )
        return IssueLock(
            repo=repo,
            number=number,
            owner=owner,
            token=token,
            acquired_at=acquired,
            expires_at=expires,
        )

    def release_issue_lock(self, repo: str, number: int, owner: str, token: str) -> None:
        """Raises LeaseLost-like IssueLocked when another holder has it; releasing a
        lock nobody holds is a no-op."""
        with self._write() as tx:
            held = self._held_lock(tx, repo, number)
            if held is None:
                return
            if (held["owner"], held["token"]) != (owner, token):
                raise IssueLocked(repo, number, held["owner"])
            tx.run("DELETE FROM ralph_issue_locks WHERE repo = ? AND number = ?", (repo, number))

    def get_issue_lock(self, repo: str, number: int) -> IssueLock | None:
        with self._reader() as tx:
            row = tx.one(
                "SELECT * FROM ralph_issue_locks WHERE repo = ? AND number = ?", (repo, number)
            )
        return IssueLock(**row) if row is not None else None

    def issue_locks(self, repo: str) -> list[IssueLock]:
        """Every lock held on ``repo``'s issues (expired ones too), by issue number: what a
        board shows beside its cards, in one read."""
        with self._reader() as tx:
            rows = tx.rows(
                "SELECT * FROM ralph_issue_locks WHERE repo = ? ORDER BY number", (repo,)
            )
        return [IssueLock(**row) for row in rows]

    def break_issue_lock(self, repo: str, number: int, owner: str) -> bool:
        """Drop the lock if ``owner`` still holds it (for a holder known to be dead, such
        as a process on this machine that no longer exists). True when dropped."""
        with self._write() as tx:
            held = self._held_lock(tx, repo, number)
            if held is None or held["owner"] != owner:
                return False
            tx.run("DELETE FROM ralph_issue_locks WHERE repo = ? AND number = ?", (repo, number))
            return True

    def release_stale_issue_locks(
        self, holder_gone: Callable[[str], bool] | None = None
    ) -> list[IssueLock]:
        """Drop every lock whose lease ran out, and every lock whose holder
        ``holder_gone`` says no longer exists, whoever asks for the issue next or
        nobody; the locks dropped. A lock is otherwise only taken over by the next
        acquirer of its issue, and an issue nobody asks for again (its work finished by
        another process after the holder died) would keep it for good."""
        now = self._now()
        with self._write() as tx:
            rows = tx.rows(
                f"SELECT * FROM ralph_issue_locks ORDER BY repo, number {self.db.lock_rows}"
            )
            stale = [
                IssueLock(**row)
                for row in rows
                if row["expires_at"] < now
                or (holder_gone is not None and holder_gone(row["owner"]))
            ]
            for lock in stale:
                tx.run(
                    "DELETE FROM ralph_issue_locks WHERE repo = ? AND number = ? AND token = ?",
                    (lock.repo, lock.number, lock.token),
                )
        if stale:
            logger.info("released stale issue locks", extra={"locks": len(stale)})
        return stale

    # -- branches -----------------------------------------------------------------------

    def record_branch(self, repo: str, branch: str, origin: str) -> None:
        """Note that Ralph may build on ``branch`` of ``repo``: it created the branch
        (origin "created") or a person let it take theirs ("adopted"). A branch recorded
        already keeps its first origin."""
        with self._write() as tx:
            tx.run(
                "INSERT INTO ralph_branches (repo, name, origin, recorded_at) "
                "VALUES (?, ?, ?, ?) ON CONFLICT (repo, name) DO NOTHING",
                (repo, branch, origin, self._now()),
            )

    def branch_origin(self, repo: str, branch: str) -> str | None:
        """How ``branch`` became Ralph's (see record_branch); None when it is not."""
        with self._reader() as tx:
            row = tx.one(
                "SELECT origin FROM ralph_branches WHERE repo = ? AND name = ?", (repo, branch)
            )
        return str(row["origin"]) if row is not None else None

    # -- checkpoints ----------------------------------------------------------------------

    def save_checkpoint(self, key: str, value: Mapping[str, Any]) -> None:
        """Keep ``value`` (JSON) under ``key``, replacing what was there. A phase saves its
        validated agent result here so a rerun after a crash applies it instead of asking
        the agent again."""
        with self._write() as tx:
            tx.run(
                "INSERT INTO ralph_checkpoints (key, value, updated_at) VALUES (?, ?, ?) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value, "
                "updated_at = excluded.updated_at",
                (key, to_json(dict(value)), self._now()),
            )

    def load_checkpoint(self, key: str) -> dict[str, Any] | None:
        return read_checkpoint(self.db, key)

    def clear_checkpoint(self, key: str) -> None:
        """Forget ``key``; clearing a key that is not there is a no-op."""
        with self._write() as tx:
            tx.run("DELETE FROM ralph_checkpoints WHERE key = ?", (key,))
