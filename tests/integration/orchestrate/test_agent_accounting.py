"""What agents spent, cached input included, and the tool calls they were refused show
wherever a run is looked at: the live view, the report (`ralph runs show`) and
`ralph issue show`."""

from __future__ import annotations

import dataclasses
import io
import json

import pytest

from ralph.cli import main
from ralph.cli._console import Console
from ralph.cli._live import LiveView
from ralph.cli._report import print_report
from ralph.runtimes import AgentBrief, AgentResult
from ralph.runtimes.scripted import AgentFault, ScriptedRuntime

from .conftest import Demo


class CachingRuntime(ScriptedRuntime):
    """Scripted agents whose runs report tokens as Claude Code does: most input read
    from the prompt cache."""

    def run(self, brief: AgentBrief) -> AgentResult:
        result = super().run(brief)
        return dataclasses.replace(
            result,
            input_tokens=3_053,
            output_tokens=1_000,
            cache_read_tokens=210_000,
            cache_write_tokens=3_230,
        )


@pytest.fixture
def ralph(demo: Demo, monkeypatch, capsys):
    monkeypatch.chdir(demo.folder)
    monkeypatch.setenv("COLUMNS", "200")  # the report's table, unwrapped

    def run(*args: str) -> tuple[int, str]:
        with pytest.raises(SystemExit) as info:
            main(list(args))
        out, err = capsys.readouterr()
        code = info.value.code or 0
        assert isinstance(code, int)
        return code, out + err

    return run


def test_the_report_counts_cached_input_and_shows_it_apart(demo: Demo, ralph):
    number = demo.issue("farewell")
    result = demo.hero(number, runtime=CachingRuntime(env={}))
    assert result.run is not None
    report = demo.report(result)
    runs = 4  # research, plan, review, implement
    assert report.tokens == runs * 217_283
    assert (report.cache_read_tokens, report.cache_write_tokens) == (runs * 210_000, runs * 3_230)
    research = next(line for line in report.tasks if line.subject.startswith("Research"))
    assert (research.tokens, research.cache_read_tokens) == (217_283, 210_000)

    code, out = ralph("runs", "show", str(result.run.id))
    assert code == 0
    assert "869,132 tokens (840,000 cache read, 12,920 cache write)" in out
    assert "210,000 read / 3,230 written" in out
    code, out = ralph("runs", "show", str(result.run.id), "--json")
    shown = json.loads(out)["report"]
    assert (shown["tokens"], shown["cacheReadTokens"]) == (869_132, 840_000)


def test_refused_tool_calls_show_in_the_live_lines_and_table(demo: Demo):
    number = demo.issue("farewell")
    lines = io.StringIO()
    view = LiveView(demo.project.store, demo.project.tracker, Console(file=lines, width=200))
    demo.hero(
        number,
        runtime=ScriptedRuntime({"implement": [AgentFault.REFUSED_TOOL]}, env={}),
        observer=view,
    )
    done = [line for line in lines.getvalue().splitlines() if " done" in line]
    assert any(
        f"Implement GH-{number}" in line and "its agent was refused Bash" in line for line in done
    )
    assert not any("refused" in line for line in done if "Implement" not in line)

    table = io.StringIO()
    terminal = Console(file=table, force_terminal=True, width=160, color_system=None)
    live = LiveView(demo.project.store, demo.project.tracker, terminal)
    run = demo.project.store.list_runs()[0]
    terminal.print(live.table(run))
    shown = table.getvalue()
    assert "Refused tools" in shown
    assert any(f"Implement GH-{number}" in row and "Bash" in row for row in shown.splitlines())


def test_refused_tool_calls_show_in_runs_show_and_issue_show(demo: Demo, ralph):
    number = demo.issue("farewell")
    runtime = ScriptedRuntime({"research": [AgentFault.REFUSED_TOOL]}, env={})
    result = demo.hero(number, runtime=runtime)
    assert result.run is not None
    report = demo.report(result)
    out = io.StringIO()
    print_report(report, Console(file=out, width=200))
    assert f"Research GH-{number}: its agent was refused Bash" in out.getvalue()

    code, out_text = ralph("runs", "show", str(result.run.id))
    assert code == 0
    assert "Refused tools" in out_text
    assert f"Research GH-{number}: its agent was refused Bash" in out_text

    code, shown = ralph("issue", "show", str(number))
    assert code == 0, shown
    assert "Refused tool calls" in shown
    assert f"run {result.run.id}, Research GH-{number}: Bash" in shown
    code, shown = ralph("issue", "show", str(number), "--json")
    assert json.loads(shown)["refusedTools"] == [
        {"run": result.run.id, "task": f"Research GH-{number}", "tools": ["Bash"]}
    ]
