"""The price table agent runs are charged from: Ralph's own (packaged, dated) under
ralph.toml's ``[prices]``; a model without a price makes the cost unknown, said once."""

from __future__ import annotations

import logging
from importlib import resources

import pytest

from ralph.config import ModelPrice
from ralph.runtimes import UNNAMED_MODEL, Pricing, Tokens, packaged_prices
from ralph.runtimes._prices import _warned
from ralph.workflow import PHASE_SPECS

pytestmark = pytest.mark.timeout(30)

RUN = Tokens(input=1_000_000, cache_read=2_000_000, cache_write=0, output=100_000)


@pytest.fixture(autouse=True)
def forget_warnings():
    _warned.clear()
    yield
    _warned.clear()


def test_the_packaged_table_is_dated_and_prices_each_providers_current_models():
    text = resources.files("ralph.runtimes").joinpath("prices.toml").read_text()
    assert "Taken 2026-" in text
    table = packaged_prices()
    for model in ("gpt-5.5", "gpt-5-codex", "claude-sonnet-4-6", "gemini-2.5-pro"):
        assert table[model].input > 0
        assert table[model].output > table[model].input
    # Claude Code's aliases, which Ralph's per-phase defaults name, have prices too.
    assert {s.default_model for s in PHASE_SPECS if s.uses_agent} <= set(table)


def test_cost_counts_cached_input_at_its_own_price():
    cost, unpriced = Pricing(model="gpt-5.5").cost({"": RUN})
    # gpt-5.5: $5 input, $0.50 cached input, $30 output per million tokens.
    assert cost == pytest.approx(5.0 + 2 * 0.5 + 0.1 * 30)
    assert unpriced == ""


def test_a_model_is_found_without_its_provider_prefix_or_date_suffix():
    pricing = Pricing()
    assert pricing.price("openai/gpt-5.5") == pricing.price("gpt-5.5")
    assert pricing.price("claude-haiku-4-5-20251001") == pricing.price("claude-haiku-4-5")
    assert pricing.price("gpt-4o-2024-08-06") == pricing.price("gpt-4o")
    assert pricing.price("no-such-model") is None


def test_ralph_toml_prices_replace_and_add_to_ralphs_own():
    own = ModelPrice(input=1.0, cached_input=0.1, cache_write=0.0, output=2.0)
    pricing = Pricing({"gpt-5.5": own, "local-llm": own}, model="gpt-5.5")
    assert pricing.cost({"": RUN})[0] == pytest.approx(1.0 + 0.2 + 0.2)
    assert pricing.cost({"local-llm": RUN}) == pytest.approx((1.4, ""))


def test_a_model_without_a_price_makes_the_cost_unknown_and_is_said_once(caplog):
    pricing = Pricing(model="gpt-5.5")
    with caplog.at_level(logging.WARNING, logger="ralph.runtimes._prices"):
        cost, unpriced = pricing.cost({"": RUN, "mystery-1": RUN})
        again = pricing.cost({"mystery-1": RUN})
    assert unpriced == "mystery-1"
    assert again == (0.0, "mystery-1")
    assert cost == pytest.approx(9.0)  # the priced model's share only
    (said,) = [r.getMessage() for r in caplog.records]
    assert said == (
        "the cost of model mystery-1 is unknown (Ralph has no price for it): add "
        '[prices."mystery-1"] (input, cached_input, cache_write, output) to ralph.toml'
    )


def test_tokens_of_a_model_nobody_named_have_an_unknown_cost_but_no_tokens_cost_nothing():
    assert Pricing().cost({"": RUN}) == (0.0, UNNAMED_MODEL)
    assert Pricing().cost({"": Tokens()}) == (0.0, "")


def test_a_cost_so_far_says_nothing_of_a_model_without_a_price(caplog):
    with caplog.at_level(logging.WARNING, logger="ralph.runtimes._prices"):
        assert Pricing().cost({"mystery-2": RUN}, say=False) == (0.0, "mystery-2")
    assert caplog.records == []


def test_a_model_served_on_this_machine_without_a_price_is_free_and_its_cost_known(caplog):
    # An open model on the person's own server (Ollama, vLLM): nobody bills its tokens.
    local = Pricing(local=True)
    with caplog.at_level(logging.WARNING, logger="ralph.runtimes._prices"):
        assert local.cost({"gpt-oss:20b": RUN}) == (0.0, "")
        assert local.with_model("qwen3").cost({"": RUN}) == (0.0, "")
    assert not caplog.records


def test_a_priced_model_served_on_this_machine_keeps_its_price():
    # A loopback address may be a gateway to a paid API (LiteLLM): a known price stands,
    # and ralph.toml's [prices] can price a local model as the person wants.
    listed = Pricing().cost({"gpt-5.4-mini": RUN})
    assert Pricing(local=True).cost({"gpt-5.4-mini": RUN}) == listed
    own = {"qwen3": ModelPrice(input=0.1, cached_input=0.0, cache_write=0.0, output=1.0)}
    dollars, unpriced = Pricing(own, local=True).cost({"qwen3": RUN})
    assert dollars == pytest.approx(0.2)
    assert unpriced == ""
