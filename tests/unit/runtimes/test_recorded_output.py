"""The parsers read what the real CLIs print: output recorded from each pinned CLI on
its fake model API (``python -m tests.agents.capture``), in a run where the model wrote
a document, ran one shell command and answered with the JSON result. The fakes answer
each model call with 100 input tokens (20 cached) and 20 output tokens."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ralph.runtimes.command import PARSERS

RECORDED = Path(__file__).parent / "recorded"
PINNED = json.loads((Path(__file__).parents[2] / "agents" / "package.json").read_text())
PACKAGES = {"codex": "@openai/codex", "gemini": "@google/gemini-cli", "opencode": "opencode-ai"}
RESULT = {"document": "doc.md", "summary": "found it"}
#: Model calls each CLI counts: three turns, and Gemini CLI's router's call.
CALLS = {"codex": 3, "gemini": 4, "opencode": 3}


def recorded(cli: str) -> str:
    version = PINNED["dependencies"][PACKAGES[cli]]
    return (RECORDED / f"{cli}-{version}.jsonl").read_text()


@pytest.mark.parametrize("cli", sorted(PACKAGES))
def test_the_output_of_the_pinned_cli_is_recorded(cli):
    assert recorded(cli).strip()


@pytest.mark.parametrize("cli", sorted(PACKAGES))
def test_each_parser_reads_its_clis_real_output(cli):
    parsed = PARSERS[cli](recorded(cli))
    assert parsed.status is None  # decided by the exit code: nothing failed
    assert parsed.result == RESULT
    assert parsed.session_id
    calls = CALLS[cli]
    assert (parsed.input_tokens, parsed.cache_read_tokens, parsed.output_tokens) == (
        80 * calls,
        20 * calls,
        20 * calls,
    )
    assert parsed.turns == 3


def test_opencode_reports_the_cost_at_its_configured_prices():
    # $3 and $15 per million input (outside the cache) and output tokens.
    assert PARSERS["opencode"](recorded("opencode")).cost_usd == pytest.approx(
        3 * (80 * 3 + 20 * 15) / 1e6
    )
