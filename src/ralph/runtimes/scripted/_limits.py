"""What the simulated agents cannot do, said the same way wherever they give up: that
it is the simulator's limit, what it acts on, and how a person gets past it."""

from __future__ import annotations

__all__ = ["SIMULATOR_DOCS", "beyond_simulator", "edit_command"]

#: Where the formats the simulated agents act on are shown.
SIMULATOR_DOCS = "docs/getting-started.md#the-simulated-agents"


def edit_command(number: int) -> str:
    return f"`ralph issue edit {number} --body-file FILE`"


def beyond_simulator(problem: str, acts_on: str, remedy: str) -> str:
    """``problem``, named as the simulator's limit: ``acts_on`` says what the simulated
    agent needs, ``remedy`` how a person gives it that; or a real agent."""
    return (
        f"{problem} (a limit of the simulated agent: it {acts_on}; {remedy}, "
        f"or run a real agent; see {SIMULATOR_DOCS})"
    )
