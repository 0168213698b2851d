"""An agent's activity as a runtime reports it: counted, kept short and safe, and
added up over a task's agent runs."""

from __future__ import annotations

import itertools

import pytest

from ralph._secrets import register_secret
from ralph.runtimes import Activity, ActivityFeed

pytestmark = pytest.mark.timeout(30)


def feed() -> ActivityFeed:
    ticks = itertools.count(100)
    return ActivityFeed("claude", clock=lambda: float(next(ticks)))


def test_turns_tokens_and_the_last_tool_call_add_up():
    f = feed()
    f.turn()
    f.usage(tokens=1200, cost_usd=0.01)
    f.tool("Read", "calc/__init__.py")
    f.turn()
    f.usage(tokens=800, cost_usd=0.02)
    f.tool("Edit", "calc/__init__.py")
    a = f.snapshot()
    assert (a.agent, a.turns, a.tokens, round(a.cost_usd, 2)) == ("claude", 2, 2000, 0.03)
    assert a.tool == "Edit calc/__init__.py"
    assert [(e.kind, e.text) for e in a.recent] == [
        ("tool", "Read calc/__init__.py"),
        ("tool", "Edit calc/__init__.py"),
    ]
    assert a.summary() == "turn 2 · 2.0k tokens · $0.03 · Edit calc/__init__.py"


def test_what_the_agent_said_last_is_one_printable_line():
    f = feed()
    f.said("first line\n\x1b[31mred\x1b[0m and\ttabs\n\n")
    a = f.snapshot()
    assert "\x1b" not in a.said
    assert a.said.endswith("and tabs")
    assert a.summary() == f"“{a.said}”"


def test_long_text_is_cut_and_secrets_never_kept():
    register_secret("ghp_" + "x" * 36)
    f = feed()
    f.tool("Bash", "curl -H 'Authorization: token ghp_" + "x" * 36 + "' " + "y" * 500)
    a = f.snapshot()
    assert "ghp_" + "x" * 36 not in a.tool
    assert len(a.tool) <= 120
    assert a.tool.endswith("…")


def test_a_refused_tool_is_named_once():
    f = feed()
    f.refused("Bash")
    f.refused("Bash")
    f.refused("WebFetch")
    a = f.snapshot()
    assert a.refused == ("Bash", "WebFetch")
    assert [e.kind for e in a.recent] == ["refused", "refused"]


def test_only_the_last_events_are_kept():
    f = feed()
    for n in range(20):
        f.tool("Read", f"file{n}.py")
    assert [e.text for e in f.snapshot().recent] == [f"Read file{n}.py" for n in range(12, 20)]


def test_final_figures_stand_where_the_stream_said_less_and_runs_add_up():
    f = feed()
    f.begin("codex")
    f.turn()
    f.ended(turns=3, tokens=5000, cost_usd=0.05)
    first = f.snapshot()
    assert (first.turns, first.tokens, first.ended) == (3, 5000, True)
    f.begin("codex")
    f.turn()
    f.turn()
    f.usage(tokens=100)
    f.ended(turns=1, tokens=50, cost_usd=0.0)
    second = f.snapshot()
    assert (second.turns, second.tokens, round(second.cost_usd, 2)) == (5, 5100, 0.05)


def test_listeners_hear_each_change_and_the_version_moves():
    f = feed()
    heard: list[int] = []
    f.listen(lambda: heard.append(f.version))
    f.turn()
    f.tool("Read", "a.py")
    assert heard == [1, 2]


def test_a_kept_activity_reads_back_and_a_malformed_one_reads_as_none():
    f = feed()
    f.turn()
    f.tool("Edit", "a.py")
    f.said("done")
    a = f.snapshot()
    assert Activity.from_dict(a.to_dict()) == a
    assert Activity.from_dict(None) is None
    assert Activity.from_dict({"turns": "many"}) is None
    assert Activity.from_dict({"recent": [{"at": 1}]}) is None


def test_a_running_total_counts_this_agent_run_on_top_of_the_runs_before_it():
    f = feed()
    f.begin("claude")
    f.usage(tokens=1000, cost_usd=0.01)
    f.ended(tokens=1000, cost_usd=0.01)
    f.begin("claude")
    f.usage(tokens=300, cost_usd=0.002, total=True)
    f.usage(tokens=500, cost_usd=0.004, total=True)  # so far in this run, not added
    a = f.snapshot()
    assert (a.tokens, round(a.cost_usd, 3)) == (1500, 0.014)
