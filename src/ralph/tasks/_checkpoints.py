"""A checkpoint read straight from the database: what a project reads before anything
else (its accepted guarded settings) without loading the task store's model, which a
command that only reads issues never uses."""

from __future__ import annotations

import json
from typing import Any, cast

from ralph.db import Database

__all__ = ["read_checkpoint"]


def read_checkpoint(db: Database, key: str) -> dict[str, Any] | None:
    """The JSON kept under ``key`` (``TaskStore.save_checkpoint``), or None."""
    with db.read_transaction() as tx:
        row = tx.one("SELECT value FROM ralph_checkpoints WHERE key = ?", (key,))
    return cast(dict[str, Any], json.loads(row["value"])) if row is not None else None
