"""What an agent run cost, from its tokens and its model's price, for the agent CLIs that
report tokens but no cost (Codex, Gemini CLI; opencode where its provider has no
price). The prices are Ralph's own table (``prices.toml``, packaged beside this
module, with the date they were taken) under ralph.toml's ``[prices]``.

A model with no price has an unknown cost, not a zero one: the run's result says so
(``AgentResult.unpriced_model``), a budget with a dollar cap stops on it, and the
person is told once per model how to add its price. Except a model served on the
person's own machine (``Pricing.local``: its CLI's endpoint is a loopback address, as
for Ollama, vLLM or LM Studio): nobody bills it, so without a price it costs $0. A
known price still stands there (a loopback address may be a gateway to a paid API),
and tokens are counted all the same."""

from __future__ import annotations

import logging
import re
import threading
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from importlib import resources

from ralph.config import ModelPrice, parse_prices

__all__ = ["UNNAMED_MODEL", "Pricing", "Tokens", "packaged_prices", "price_hint"]

logger = logging.getLogger(__name__)

#: A date a model id may end with (``claude-haiku-4-5-20251001``, ``gpt-4o-2024-08-06``).
_DATE_SUFFIX = re.compile(r"-(\d{8}|\d{4}-\d{2}-\d{2})$")
#: Stands for a model neither the CLI nor ralph.toml names (its price cannot be found).
UNNAMED_MODEL = "(unnamed)"
_warned: set[str] = set()
_warned_lock = threading.Lock()


@cache
def packaged_prices() -> Mapping[str, ModelPrice]:
    """Ralph's own price table (``ralph/runtimes/prices.toml``)."""
    text = resources.files("ralph.runtimes").joinpath("prices.toml").read_text(encoding="utf-8")
    return parse_prices(tomllib.loads(text), "ralph/runtimes/prices.toml")


def price_hint(model: str) -> str:
    """How a person gives ``model`` a price."""
    if model == UNNAMED_MODEL:
        return 'name the model in ralph.toml ([agent] model) and add its [prices."MODEL"]'
    return f'add [prices."{model}"] (input, cached_input, cache_write, output) to ralph.toml'


@dataclass(frozen=True)
class Tokens:
    """One model's tokens: input outside the cache, read from it, written to it; output."""

    input: int = 0
    cache_read: int = 0
    cache_write: int = 0
    output: int = 0

    @property
    def total(self) -> int:
        return self.input + self.cache_read + self.cache_write + self.output


@dataclass(frozen=True)
class Pricing:
    """The prices an agent runtime charges by: ralph.toml's over Ralph's own, and the
    model it runs when its CLI does not say (``model``: "" when unknown). ``local``: the
    model is served on this machine, free unless a table prices it."""

    overrides: Mapping[str, ModelPrice] = field(default_factory=dict)
    model: str = ""
    local: bool = False

    def with_model(self, model: str) -> Pricing:
        return Pricing(self.overrides, model, self.local) if model else self

    def with_local(self, local: bool) -> Pricing:
        return Pricing(self.overrides, self.model, local)

    def price(self, model: str) -> ModelPrice | None:
        """``model``'s price, found by its name as given, then without a provider prefix
        (``openai/gpt-5.5``) or a date suffix; None when neither table has it."""
        table = {**packaged_prices(), **self.overrides}
        name = model.strip()
        for candidate in (name, name.rpartition("/")[2]):
            for key in (candidate, _DATE_SUFFIX.sub("", candidate)):
                found = table.get(key) or table.get(key.lower())
                if found is not None:
                    return found
        return None

    def cost(self, by_model: Mapping[str, Tokens], *, say: bool = True) -> tuple[float, str]:
        """Dollars for each model's tokens (a model the CLI did not name, "", is this
        pricing's ``model``), and the first model with tokens but no price ("" when
        every one had one, or the model is ``local``: the cost is then known). ``say``:
        warn of that model (once); a cost so far need not, the run's result will."""
        dollars, unpriced = 0.0, ""
        for named, tokens in by_model.items():
            model = named or self.model
            if tokens.total == 0:
                continue
            price = self.price(model) if model else None
            if price is None and self.local:
                continue  # an open model on this machine: nobody bills it
            if price is None:
                unpriced = unpriced or model or UNNAMED_MODEL
                continue
            dollars += price.cost(
                input_tokens=tokens.input,
                cache_read_tokens=tokens.cache_read,
                cache_write_tokens=tokens.cache_write,
                output=tokens.output,
            )
        if unpriced and say:
            warn_unpriced(unpriced)
        return dollars, unpriced


def warn_unpriced(model: str) -> None:
    """Say once per process that ``model``'s cost is unknown, and how to price it."""
    with _warned_lock:
        if model in _warned:
            return
        _warned.add(model)
    logger.warning(
        "the cost of model %s is unknown (Ralph has no price for it): %s",
        model,
        price_hint(model),
        extra={"model": model},
    )
