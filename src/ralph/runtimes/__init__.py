"""Agent runtimes: a phase hands one an AgentBrief and gets one AgentResult back.

``scripted`` (in-process, deterministic; tests and the demo) ships here; Claude Code and
other agent CLIs (Codex, Gemini CLI, opencode: ``command`` and its presets) plug in
behind the same interface, one for every phase or one per phase (``PhaseAgents``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ralph._lazy import lazy_exports

if TYPE_CHECKING:
    from ralph.runtimes._activity import Activity, ActivityEvent, ActivityFeed
    from ralph.runtimes._by_phase import PhaseAgents
    from ralph.runtimes._claude_cli import claude_cli
    from ralph.runtimes._credentials import OFFLINE_HINT, Credentials, agent_credentials
    from ralph.runtimes._environment import agent_environment, environment_for_tests
    from ralph.runtimes._found import FoundCLI, found_agent_clis
    from ralph.runtimes._model import (
        AgentBrief,
        AgentResult,
        AgentStatus,
        Document,
        Feedback,
        IssueContext,
        Limits,
    )
    from ralph.runtimes._no_agent import NoAgent
    from ralph.runtimes._open import open_agents, open_runtime
    from ralph.runtimes._prices import (
        UNNAMED_MODEL,
        Pricing,
        Tokens,
        packaged_prices,
        price_hint,
    )
    from ralph.runtimes._runtime import AgentRuntime
    from ralph.runtimes._stop import StopSignal
else:
    # Loaded on first use (ralph._lazy), from the imports above: a command imports only
    # what it uses.
    __getattr__, __dir__ = lazy_exports(globals())

__all__ = [
    "OFFLINE_HINT",
    "UNNAMED_MODEL",
    "Activity",
    "ActivityEvent",
    "ActivityFeed",
    "AgentBrief",
    "AgentResult",
    "AgentRuntime",
    "AgentStatus",
    "Credentials",
    "Document",
    "Feedback",
    "FoundCLI",
    "IssueContext",
    "Limits",
    "NoAgent",
    "PhaseAgents",
    "Pricing",
    "StopSignal",
    "Tokens",
    "agent_credentials",
    "agent_environment",
    "claude_cli",
    "environment_for_tests",
    "found_agent_clis",
    "open_agents",
    "open_runtime",
    "packaged_prices",
    "price_hint",
]
