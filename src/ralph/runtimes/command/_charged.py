"""What an agent CLI's run is charged: the CLI's own cost where it reports one (Claude
Code, opencode with a priced provider), else its tokens at its models' prices
(``Pricing``); Codex's turns and model from its own session record."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass

from ralph.runtimes._prices import Pricing
from ralph.runtimes.command._cli_files import codex_session
from ralph.runtimes.command._parsers import Parsed

__all__ = ["Charged", "charged"]


@dataclass(frozen=True)
class Charged:
    parsed: Parsed
    cost_usd: float
    #: A model without a price ("" when the cost is known).
    unpriced_model: str = ""


def charged(
    parsed: Parsed, pricing: Pricing, *, output: str, env: Mapping[str, str], named: str
) -> Charged:
    """``parsed`` as charged; ``named``: the model Ralph asked for ("" for the CLI's)."""
    if output == "codex":
        parsed, pricing = _with_codex_session(parsed, pricing, env, named)
    if parsed.cost_usd is not None:  # the CLI's own figure
        return Charged(parsed, parsed.cost_usd)
    cost, unpriced = pricing.cost(parsed.tokens_by_model())
    return Charged(parsed, cost, unpriced)


def _with_codex_session(
    parsed: Parsed, pricing: Pricing, env: Mapping[str, str], named: str
) -> tuple[Parsed, Pricing]:
    """Codex's own record of the session: its model answers counted exactly, and the
    model it ran priced (unless Ralph named one)."""
    session = codex_session(parsed.session_id, env)
    if session is None:
        return parsed, pricing
    if session.answers:
        parsed = dataclasses.replace(parsed, turns=session.answers)
    return parsed, pricing if named else pricing.with_model(session.model)
