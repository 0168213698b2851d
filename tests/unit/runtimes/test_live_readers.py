"""Each output format's live reader turns the real CLI's output, line by line as it
is printed, into the activity a person watches: turns, tokens (and cost where the CLI
says it), the last tool call with its file or command, the last thing said, the tool
calls refused. Read from output recorded from the pinned CLIs on their fake model
APIs (``test_recorded_output``); Claude Code's with its bundled CLI, ``-p
--output-format stream-json --verbose`` (its init frame cut to its core keys)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ralph.config import ModelPrice
from ralph.runtimes import ActivityFeed
from ralph.runtimes._prices import Pricing
from ralph.runtimes.command._live import LIVE_READERS, live_reader
from ralph.runtimes.command._parsers import PARSERS

from .test_recorded_output import RECORDED, recorded

pytestmark = pytest.mark.timeout(30)

#: Where the recorded runs worked (their scratch folder, renamed on recording).
WORKDIR = Path("/work")
ANSWER = json.dumps({"document": "doc.md", "summary": "found it"})
#: Per CLI: turns, every token (the fakes answer each model call with 100 input and
#: 20 output tokens; Gemini CLI makes a router's call besides), the tool calls shown.
EXPECTED = {
    "codex": (3, 3 * 120, ["apply_patch doc.md", "shell echo checked"]),
    "gemini": (3, 4 * 120, ["write_file doc.md", "run_shell_command echo checked"]),
    "opencode": (3, 3 * 120, ["write doc.md", "bash echo checked"]),
    "claude": (4, 4 * 120, ["Write doc.md", "Bash echo checked", "WebFetch https://example.com"]),
}


def claude_recorded() -> str:
    (path,) = RECORDED.glob("claude-*.jsonl")
    return path.read_text()


def output(cli: str) -> str:
    return claude_recorded() if cli == "claude" else recorded(cli)


#: Prices for the recorded runs' models (Gemini CLI names its own, Codex none: the
#: pricing's model stands for it).
PRICING = Pricing(
    {
        "gemini-3.8-flash": ModelPrice(1.0, 0.1, 0.0, 8.0),
        "gemini-3.5-flash-lite": ModelPrice(0.5, 0.05, 0.0, 2.0),
    },
    model="gpt-5.5",
)


def read(cli: str, text: str, pricing: Pricing | None = PRICING) -> ActivityFeed:
    feed = ActivityFeed(cli)
    reader = live_reader(cli, feed, WORKDIR, pricing)
    for line in text.splitlines(keepends=True):
        reader(line)
    return feed


@pytest.mark.parametrize("cli", sorted(EXPECTED))
def test_the_clis_real_output_reads_as_its_activity(cli):
    activity = read(cli, output(cli)).snapshot()
    turns, tokens, tools = EXPECTED[cli]
    assert (activity.turns, activity.tokens) == (turns, tokens)
    assert [e.text for e in activity.recent if e.kind == "tool"] == tools
    assert activity.tool == tools[-1]
    assert activity.said == ANSWER


@pytest.mark.parametrize("cli", sorted(EXPECTED))
def test_the_live_figures_agree_with_the_final_parsers(cli):
    activity = read(cli, output(cli)).snapshot()
    parsed = PARSERS[cli](output(cli))
    every = (
        parsed.input_tokens
        + parsed.output_tokens
        + parsed.cache_read_tokens
        + parsed.cache_write_tokens
    )
    assert activity.tokens == every
    assert activity.turns == parsed.turns
    if parsed.cost_usd is None:  # priced by Ralph: the same figure as the final result
        cost, unpriced = PRICING.cost(parsed.tokens_by_model())
        assert cost > 0
        assert not unpriced
    else:
        cost = parsed.cost_usd
    assert activity.cost_usd == pytest.approx(cost)


def test_codex_and_gemini_cost_so_far_comes_from_their_models_prices():
    codex = read("codex", output("codex")).snapshot()
    # 240 input, 60 cached and 60 output tokens at gpt-5.5's $5, $0.50 and $30.
    assert codex.cost_usd == pytest.approx((240 * 5 + 60 * 0.5 + 60 * 30) / 1e6)
    gemini = read("gemini", output("gemini")).snapshot()
    flash = 240 * 1.0 + 60 * 0.1 + 60 * 8.0
    lite = 80 * 0.5 + 20 * 0.05 + 20 * 2.0
    assert gemini.cost_usd == pytest.approx((flash + lite) / 1e6)
    # A model without a price costs nothing so far: its cost is unknown, not $0 known.
    unknown = read("codex", output("codex"), Pricing(model="no-such-model")).snapshot()
    assert unknown.cost_usd == 0


def test_the_figures_grow_as_the_lines_come():
    feed = ActivityFeed("opencode")
    reader = live_reader("opencode", feed, WORKDIR)
    seen = []
    for line in recorded("opencode").splitlines():
        reader(line)
        snapshot = feed.snapshot()
        seen.append((snapshot.turns, snapshot.tokens, snapshot.tool))
    assert seen[:6] == [
        (1, 0, ""),  # a step starts
        (1, 0, "write doc.md"),
        (1, 120, "write doc.md"),  # the step's tokens
        (2, 120, "write doc.md"),
        (2, 120, "bash echo checked"),
        (2, 240, "bash echo checked"),
    ]


def test_opencode_shows_its_cost_and_the_write_its_permissions_refused():
    activity = read("opencode", recorded("opencode")).snapshot()
    assert activity.cost_usd == pytest.approx(3 * 0.00054)
    assert activity.refused == ("write",)


def test_claude_codes_refusal_is_shown_as_it_happens_and_its_words_before_a_tool():
    activity = read("claude", claude_recorded()).snapshot()
    assert activity.refused == ("WebFetch",)
    said = [e.text for e in activity.recent if e.kind == "said"]
    assert said == ["I will write the findings first.", ANSWER]
    assert activity.cost_usd == pytest.approx(0.0024)


def test_a_plain_command_says_each_line_it_prints():
    feed = read("plain", "Looking at calc.py\n\n  \nAll tests pass\n")
    activity = feed.snapshot()
    assert [e.text for e in activity.recent] == ["Looking at calc.py", "All tests pass"]
    assert activity.said == "All tests pass"
    assert activity.turns == activity.tokens == 0


MALFORMED = [
    "not json at all\n",
    "{\n",
    '{"type": "item.started", "item": "a string"}\n',
    '{"type": "item.completed", "item": {"type": "file_change", "changes": "x"}}\n',
    '{"type": "turn.completed", "usage": [1, 2]}\n',
    '{"type": "tool_use", "tool_name": null, "parameters": [1]}\n',
    '{"type": "result", "stats": "none"}\n',
    '{"type": "step_finish", "part": {"tokens": {"total": "many"}, "cost": "free"}}\n',
    '{"type": "tool_use", "part": {"state": {"status": "error", "error": 7}}}\n',
    '{"type": "assistant", "message": {"content": [null, {"type": "tool_use"}], "usage": 5}}\n',
    '{"type": "result", "usage": {"input_tokens": "x"}, "total_cost_usd": "y"}\n',
    "[1, 2, 3]\n",
    '"just a string"\n',
    "\x00\x1b[31m{}\n",
]


@pytest.mark.parametrize("cli", sorted(set(LIVE_READERS) - {"plain"}))
def test_a_malformed_line_is_passed_over(cli):
    activity = read(cli, "".join(MALFORMED)).snapshot()
    assert activity.tokens == 0
    assert activity.cost_usd == 0
    assert not activity.said


def test_what_an_agent_prints_is_kept_printable_and_short():
    line = json.dumps(
        {"type": "text", "part": {"text": "done \x1b[2J\x07 " + "x" * 500}},
    )
    activity = read("opencode", line).snapshot()
    assert "\x1b" not in activity.said
    assert "\x07" not in activity.said
    assert len(activity.said) <= 120
