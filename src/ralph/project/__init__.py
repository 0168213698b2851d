"""A project's wiring: from its settings (:mod:`ralph.config`), open its database, task
store, tracker, code host, git repository and GitHub client (``open_project``) and its
agent runtime (``open_agent_runtime``), and set a project up (``ralph init``). The one
package that knows every adapter."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ralph._lazy import lazy_exports

if TYPE_CHECKING:
    from ralph.project._backends import (
        TEST_CHECK,
        code_host_checks,
        first_issue,
        required_checks,
    )
    from ralph.project._github import github_client, github_tokens
    from ralph.project._github_backend import github_tracker
    from ralph.project._guarded import record_ralph_merge, record_settings, settle_settings
    from ralph.project._init import InitResult, init_project, without_password
    from ralph.project._open import (
        Project,
        migrate_database,
        notify_sandbox,
        open_database_alone,
        open_project,
        open_store_alone,
        open_tracker,
    )
    from ralph.project._runtime import open_agent_runtime
else:
    # Loaded on first use (ralph._lazy), from the imports above: a command imports only
    # what it uses.
    __getattr__, __dir__ = lazy_exports(globals())

__all__ = [
    "TEST_CHECK",
    "InitResult",
    "Project",
    "code_host_checks",
    "first_issue",
    "github_client",
    "github_tokens",
    "github_tracker",
    "init_project",
    "migrate_database",
    "notify_sandbox",
    "open_agent_runtime",
    "open_database_alone",
    "open_project",
    "open_store_alone",
    "open_tracker",
    "record_ralph_merge",
    "record_settings",
    "required_checks",
    "settle_settings",
    "without_password",
]
