"""Reads straight from the store's database, without loading the task store's model:
what a command that only reads issues asks of the store (the guarded settings a person
accepted, whether any agent was refused a tool) before it would need the store."""

from __future__ import annotations

import json
from typing import Any, cast

from ralph.db import Database

__all__ = ["has_refused_charge", "read_checkpoint"]


def read_checkpoint(db: Database, key: str) -> dict[str, Any] | None:
    """The JSON kept under ``key`` (``TaskStore.save_checkpoint``), or None."""
    with db.read_transaction() as tx:
        row = tx.one("SELECT value FROM ralph_checkpoints WHERE key = ?", (key,))
    return cast(dict[str, Any], json.loads(row["value"])) if row is not None else None


def has_refused_charge(db: Database) -> bool:
    """Whether any charge records a refused tool call (``TaskStore.refused_charges``)."""
    with db.read_transaction() as tx:
        row = tx.one("SELECT 1 AS refused FROM ralph_charges WHERE refused <> '[]' LIMIT 1")
    return row is not None
