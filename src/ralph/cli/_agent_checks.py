"""``ralph doctor``'s lines about the agents a run would use: whether each has a key or
a login, and if not, what to set or type (or how to try Ralph without one)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text

from ralph.cli._console import Console
from ralph.workflow import PHASE_SPECS

if TYPE_CHECKING:
    from ralph.config import Config

__all__ = ["print_agent_credentials"]


def _agents_in_use(config: Config, agent: str | None) -> dict[str, list[str]]:
    """The agents a run would use, each with its phases: ``--agent``'s for every phase,
    else ralph.toml's (per phase where it says so, best-of attempts' agents and
    fallback agents)."""
    phases = [spec.name for spec in PHASE_SPECS if spec.uses_agent]
    if agent is not None:
        return {agent: phases}
    settings = config.agent
    uses: dict[str, list[str]] = {}
    for phase in phases:
        uses.setdefault(settings.agent_for(phase), []).append(phase)
    others = [(phase, spec) for phase, b in settings.best_of.items() for spec in b.agents]
    others += [(phase, spec) for phase in phases for spec in settings.fallbacks_for(phase)]
    for phase, spec in others:
        name = spec.partition(":")[0]
        if phase not in uses.setdefault(name, []):
            uses[name].append(phase)
    return uses


def print_agent_credentials(console: Console, config: Config, agent: str | None) -> bool:
    """A line per agent a run would use: ✓ with its key or login, ✗ with how to get one;
    True when none is missing."""
    from ralph.runtimes import OFFLINE_HINT, agent_credentials

    ok = True
    for name, phases in _agents_in_use(config, agent).items():
        credentials = agent_credentials(name)
        if credentials.ready is False:
            ok = False
            line = (
                f"agent {name} ({', '.join(phases)}): no key or login; "
                f"{credentials.fix}; {OFFLINE_HINT}"
            )
            console.print(Text.assemble(("✗", "red"), " ", line))
        elif credentials.ready is None:
            console.print(
                Text.assemble(("!", "bold yellow"), f" agent {name}: {credentials.found}")
            )
        else:
            console.print(Text.assemble(("✓", "green"), f" agent {name}: {credentials.found}"))
    return ok
