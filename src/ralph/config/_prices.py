"""The ``[prices]`` table of ralph.toml: what a model costs, in US dollars per million
tokens, where Ralph's own table (``ralph.runtimes``) lacks the model or is out of date.
An agent CLI that reports no cost of its own (Codex, Gemini CLI) is charged from it.

    [prices."gpt-5-codex"]
    input = 1.25          # input outside the prompt cache
    cached_input = 0.125  # input read from the cache (default: input)
    cache_write = 0       # input written to the cache (default: input)
    output = 10
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ralph.config._numbers import setting_number
from ralph.errors import ConfigError

__all__ = ["MAX_PRICE", "PRICE_KEYS", "ModelPrice", "parse_prices"]

#: Dollars per million tokens: past it a price is a typo.
MAX_PRICE = 10_000
PRICE_KEYS = ("input", "cached_input", "cache_write", "output")


@dataclass(frozen=True)
class ModelPrice:
    """US dollars per million tokens."""

    input: float
    cached_input: float
    cache_write: float
    output: float

    def cost(
        self, *, input_tokens: int, cache_read_tokens: int, cache_write_tokens: int, output: int
    ) -> float:
        """Dollars for these tokens (input outside the cache, read from it, written to it,
        and output)."""
        dollars = (
            input_tokens * self.input
            + cache_read_tokens * self.cached_input
            + cache_write_tokens * self.cache_write
            + output * self.output
        )
        return dollars / 1_000_000


def parse_prices(data: Any, source: str) -> dict[str, ModelPrice]:
    """``[prices]``: a table per model; ConfigError naming the setting otherwise."""
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f'{source}: [prices] must be a table of models, [prices."MODEL"]')
    prices = {}
    for model, table in data.items():
        where = f'{source}: prices."{model}"'
        if not isinstance(table, dict):
            raise ConfigError(
                f"{where} must be a table: input, cached_input, cache_write, output "
                "(US dollars per million tokens)"
            )
        unknown = sorted(set(table) - set(PRICE_KEYS))
        if unknown:
            raise ConfigError(f"{where}.{unknown[0]} is unknown; known: {', '.join(PRICE_KEYS)}")
        missing = [key for key in ("input", "output") if key not in table]
        if missing:
            raise ConfigError(f"{where} needs {missing[0]} (US dollars per million tokens)")
        numbers = {
            key: setting_number(table[key], f"{where}.{key}", maximum=MAX_PRICE)
            for key in PRICE_KEYS
            if key in table
        }
        prices[str(model)] = ModelPrice(
            input=numbers["input"],
            cached_input=numbers.get("cached_input", numbers["input"]),
            cache_write=numbers.get("cache_write", numbers["input"]),
            output=numbers["output"],
        )
    return prices
