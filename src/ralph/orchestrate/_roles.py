"""The roles a worker may claim (``ralph worker --roles``): the CLI's help names them
without loading the orchestration."""

from __future__ import annotations

from ralph.graph import Role

__all__ = ["WORKER_ROLES"]

#: Every role a worker can take (a person is the human gate's only taker).
WORKER_ROLES = (Role.ANALYST.value, Role.BUILDER.value, Role.VALIDATOR.value, Role.INTEGRATOR.value)
