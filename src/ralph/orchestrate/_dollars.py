"""Dollars as reports show them: an unknown cost (an agent used a model Ralph has no
price for) is "?", never $0.00."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

__all__ = ["dollars", "unpriced_of"]


def dollars(usd: float, unpriced: Sequence[str] = (), *, blank_zero: bool = False) -> str:
    """``$1.23``; ``?`` when ``unpriced`` names a model without a price; "" for nothing
    spent when ``blank_zero``."""
    if unpriced:
        return "?"
    return "" if blank_zero and not usd else f"${usd:.2f}"


def unpriced_of(models: Iterable[str]) -> tuple[str, ...]:
    """The models without a price among ``models`` (charges' ``unpriced_model``), each once."""
    return tuple(dict.fromkeys(model for model in models if model))
