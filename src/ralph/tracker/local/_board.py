"""What the local tracker's board keeps beside its issues, in tables of the same
database: its settings (title, description, readme, open or closed), the positions of
issues a person moved, and the repositories linked to it."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from ralph.db import Database
from ralph.errors import IssueNotFound
from ralph.tracker._board_fields import ESTIMATE
from ralph.tracker._simple_board import BoardRecords
from ralph.tracker.local._schema import count_board_change

__all__ = ["LocalBoardRecords"]


class LocalBoardRecords(BoardRecords):
    def __init__(self, db: Database, repo: str, clock: Callable[[], float]) -> None:
        self.db = db
        self.repo = repo
        self._clock = clock

    def settings(self) -> dict[str, Any]:
        with self.db.read_transaction() as tx:
            rows = tx.rows(
                "SELECT name, value FROM ralph_board_settings WHERE repo = ?", (self.repo,)
            )
        return {row["name"]: json.loads(row["value"]) for row in rows}

    def save_settings(self, changes: Mapping[str, Any]) -> None:
        with self.db.write_transaction() as tx:
            for name, value in changes.items():
                tx.run(
                    "INSERT INTO ralph_board_settings (repo, name, value) VALUES (?, ?, ?) "
                    "ON CONFLICT (repo, name) DO UPDATE SET value = excluded.value",
                    (self.repo, name, json.dumps(value)),
                )

    def positions(self) -> dict[int, float]:
        with self.db.read_transaction() as tx:
            rows = tx.rows(
                "SELECT number, position FROM ralph_board_positions WHERE repo = ?", (self.repo,)
            )
        return {row["number"]: row["position"] for row in rows}

    def save_positions(self, positions: Mapping[int, float]) -> None:
        with self.db.write_transaction() as tx:
            for number, position in positions.items():
                tx.run(
                    "INSERT INTO ralph_board_positions (repo, number, position) VALUES (?, ?, ?) "
                    "ON CONFLICT (repo, number) DO UPDATE SET position = excluded.position",
                    (self.repo, number, position),
                )

    def linked(self) -> list[str]:
        with self.db.read_transaction() as tx:
            rows = tx.rows(
                "SELECT linked FROM ralph_board_repositories WHERE repo = ? ORDER BY linked",
                (self.repo,),
            )
        return [row["linked"] for row in rows]

    def set_linked(self, name: str, linked: bool) -> bool:
        with self.db.write_transaction() as tx:
            if linked:
                changed = tx.run(
                    "INSERT INTO ralph_board_repositories (repo, linked) VALUES (?, ?) "
                    "ON CONFLICT (repo, linked) DO NOTHING",
                    (self.repo, name),
                )
            else:
                changed = tx.run(
                    "DELETE FROM ralph_board_repositories WHERE repo = ? AND linked = ?",
                    (self.repo, name),
                )
        return changed == 1

    def clear(self, number: int, field: str) -> None:
        column = "estimate" if field == ESTIMATE else "priority"
        with self.db.write_transaction() as tx:
            changed = tx.run(
                f"UPDATE ralph_issues SET {column} = NULL, updated_at = ? "
                "WHERE repo = ? AND number = ?",
                (self._clock(), self.repo, number),
            )
            if changed != 1:
                raise IssueNotFound(number)
            count_board_change(tx, self.repo)
