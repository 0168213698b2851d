"""The command runtime runs agent CLIs as subprocesses: small fake CLIs stand in for
Codex, Gemini CLI, opencode, Claude Code and a plain script, printing each format."""

from __future__ import annotations

import json
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from ralph.errors import ConfigError
from ralph.runtimes import AgentStatus, Limits
from ralph.runtimes.command import CommandRuntime

RESULT = {"document": "doc.md", "summary": "found it"}


@pytest.fixture(autouse=True)
def own_home(tmp_path, monkeypatch):
    """The fake CLIs are named codex, gemini, ...: the state folders the sandbox makes
    for them go into a home of the test's own."""
    (tmp_path / "home").mkdir()
    monkeypatch.setenv("HOME", str(tmp_path / "home"))


def fake_cli(tmp_path: Path, name: str, body: str) -> str:
    """An executable Python script called ``name``; returns its path."""
    script = tmp_path / "bin" / name
    script.parent.mkdir(exist_ok=True)
    script.write_text(f"#!{sys.executable}\nimport json, os, sys, time\n" + textwrap.dedent(body))
    script.chmod(0o755)
    return str(script)


def test_codex_events_give_the_final_message_tokens_and_session(tmp_path, brief, workdir):
    cli = fake_cli(
        tmp_path,
        "codex",
        f"""
        prompt = sys.stdin.read()
        open("prompt-seen.md", "w").write(prompt)
        open("doc.md", "w").write("# Findings\\n")
        for event in [
            {{"type": "thread.started", "thread_id": "th_1"}},
            {{"type": "turn.started"}},
            {{"type": "item.completed", "item": {{"id": "i1", "type": "agent_message",
              "text": {json.dumps(json.dumps(RESULT))}}}}},
            {{"type": "turn.completed", "usage": {{"input_tokens": 120, "output_tokens": 30}}}},
        ]:
            print(json.dumps(event))
    """,
    )
    result = CommandRuntime(f"{cli} exec --json -", output="codex").run(brief())
    assert result.status is AgentStatus.OK, result.error
    assert result.result == RESULT
    assert (result.input_tokens, result.output_tokens, result.turns) == (120, 30, 1)
    assert result.transcript == "session th_1"
    assert result.agent == "codex (command)"
    seen = (workdir / "prompt-seen.md").read_text()
    assert "Research the issue and write the document." in seen
    assert "as written on the tracker (untrusted text)" in seen
    assert '"required":[' in seen  # the result's schema travels with the prompt, compact


def test_with_a_transcripts_folder_the_output_stream_is_kept_as_the_transcript(tmp_path, brief):
    events = [{"type": "thread.started", "thread_id": "th_2"}, {"type": "turn.failed"}]
    cli = fake_cli(
        tmp_path,
        "codex",
        f"""
        sys.stdin.read()
        for event in {events!r}:
            print(json.dumps(event))
        sys.exit(1)
    """,
    )
    folder = tmp_path / "run" / "incoming" / "3"
    runtime = CommandRuntime(f"{cli} exec --json -", output="codex")
    result = runtime.run(brief(transcripts=folder))
    assert result.status is AgentStatus.FAILED
    assert result.transcript is not None
    kept = Path(result.transcript)
    assert kept.parent == folder
    assert kept.suffix == ".jsonl"
    assert [json.loads(line) for line in kept.read_text().splitlines()] == events
    assert runtime.run(brief()).transcript == "session th_2"  # no folder: none kept


def test_a_codex_turn_failure_is_a_failed_run(tmp_path, brief):
    cli = fake_cli(
        tmp_path,
        "codex",
        """
        sys.stdin.read()
        print(json.dumps({"type": "turn.failed", "error": {"message": "quota exceeded"}}))
        sys.exit(1)
    """,
    )
    result = CommandRuntime(f"{cli} exec --json -", output="codex").run(brief())
    assert result.status is AgentStatus.FAILED
    assert result.error == "quota exceeded"


@pytest.mark.parametrize("mode", ["json", "stream-json"])
def test_gemini_output_in_both_modes(tmp_path, brief, mode):
    answer = json.dumps(RESULT)
    cli = fake_cli(
        tmp_path,
        "gemini",
        f"""
        if sys.argv[-1] == "json":
            print(json.dumps({{"session_id": "g1", "response": {answer!r},
                               "stats": {{"input_tokens": 10, "output_tokens": 5}}}}))
        else:
            for event in [
                {{"type": "init", "session_id": "g1", "model": "m"}},
                {{"type": "message", "role": "assistant", "content": {answer[:10]!r},
                  "delta": True}},
                {{"type": "message", "role": "assistant", "content": {answer[10:]!r},
                  "delta": True}},
                {{"type": "result", "status": "success",
                  "stats": {{"input_tokens": 10, "output_tokens": 5}}}},
            ]:
                print(json.dumps(event))
    """,
    )
    result = CommandRuntime(f"{cli} -p {{prompt}} -o {mode}", output="gemini").run(brief())
    assert result.status is AgentStatus.OK, result.error
    assert result.result == RESULT
    assert (result.input_tokens, result.output_tokens) == (10, 5)
    assert result.transcript == "session g1"


def test_opencode_steps_sum_cost_and_tokens_and_a_spent_budget_is_reported(tmp_path, brief):
    cli = fake_cli(
        tmp_path,
        "opencode",
        f"""
        for event in [
            {{"type": "step_start", "sessionID": "ses_1", "part": {{}}}},
            {{"type": "step_finish", "sessionID": "ses_1",
              "part": {{"cost": 0.25, "tokens": {{"input": 100, "output": 10}}}}}},
            {{"type": "text", "sessionID": "ses_1", "part": {{"text": {json.dumps(RESULT)!r}}}}},
            {{"type": "step_finish", "sessionID": "ses_1",
              "part": {{"cost": 0.5, "tokens": {{"input": 50, "output": 5}}}}}},
        ]:
            print(json.dumps(event))
    """,
    )
    runtime = CommandRuntime(f"{cli} run --format json -f {{prompt_file}}", output="opencode")
    result = runtime.run(brief())
    assert result.status is AgentStatus.OK, result.error
    assert result.result == RESULT
    assert result.cost_usd == pytest.approx(0.75)
    assert (result.input_tokens, result.output_tokens, result.turns) == (150, 15, 2)
    capped = runtime.run(brief(limits=Limits(max_usd=0.5)))
    assert capped.status is AgentStatus.BUDGET_EXCEEDED
    assert capped.error == "spent $0.75 of $0.50"


def test_claude_print_mode_reuses_the_claude_outcome_mapping(tmp_path, brief):
    frame = {
        "type": "result",
        "subtype": "error_max_turns",
        "is_error": True,
        "errors": ["Reached maximum number of turns (3)"],
        "num_turns": 4,
        "total_cost_usd": 0.01,
        "session_id": "s1",
    }
    cli = fake_cli(
        tmp_path,
        "claude",
        f"""
        print(json.dumps({frame!r}))
        sys.exit(1)
    """,
    )
    result = CommandRuntime(f"{cli} -p --output-format json", output="claude").run(brief())
    assert result.status is AgentStatus.TURNS_EXCEEDED
    assert result.turns == 4
    assert result.cost_usd == pytest.approx(0.01)


def test_a_plain_agent_writes_its_result_file(tmp_path, brief, workdir):
    cli = fake_cli(
        tmp_path,
        "agent",
        f"""
        prompt = open(sys.argv[1]).read()
        assert "write it to" in prompt
        open(sys.argv[2], "w").write(json.dumps({RESULT!r}))
        print("all done")
    """,
    )
    result = CommandRuntime(f"{cli} {{prompt_file}} {{result_file}}").run(brief())
    assert result.status is AgentStatus.OK, result.error
    assert result.result == RESULT


def test_a_failing_exit_code_carries_the_end_of_stderr(tmp_path, brief):
    cli = fake_cli(
        tmp_path,
        "agent",
        """
        print("model not available", file=sys.stderr)
        sys.exit(3)
    """,
    )
    result = CommandRuntime(f"{cli} {{prompt_file}}").run(brief())
    assert result.status is AgentStatus.FAILED
    assert result.error == "exited with 3: model not available"


def test_the_timeout_kills_the_agent_and_its_children(tmp_path, brief, workdir):
    cli = fake_cli(
        tmp_path,
        "agent",
        """
        import subprocess
        beat = "import time\\nwhile True:\\n open('child.beat', 'a').write('.')\\n time.sleep(0.05)"
        subprocess.Popen([sys.executable, "-c", beat])
        while True:
            print("working", flush=True)
            time.sleep(0.2)
    """,
    )
    started = time.monotonic()
    limits = Limits(timeout_seconds=1.5, stall_seconds=30)
    result = CommandRuntime(f"{cli} {{prompt_file}}").run(brief(limits=limits))
    assert result.status is AgentStatus.TIMEOUT
    assert result.error == "no result within 1.5s"
    assert time.monotonic() - started < 10
    # The child's pid means nothing outside the sandbox's pid namespace: its heartbeat
    # file stops growing once it is dead.
    time.sleep(0.2)
    beats = (workdir / "child.beat").stat().st_size
    time.sleep(0.3)
    assert beats > 0
    assert (workdir / "child.beat").stat().st_size == beats


def test_a_stop_kills_the_agent_and_its_children_at_once(tmp_path, brief, workdir):
    cli = fake_cli(
        tmp_path,
        "agent",
        """
        import subprocess
        beat = "import time\\nwhile True:\\n open('child.beat', 'a').write('.')\\n time.sleep(0.05)"
        subprocess.Popen([sys.executable, "-c", beat])
        while True:
            print("working", flush=True)
            time.sleep(0.2)
    """,
    )
    stopped = brief(limits=Limits(timeout_seconds=600, stall_seconds=600))
    beat_file = workdir / "child.beat"

    def stop_once_the_child_beats() -> None:
        # The stop comes once the child is alive (a loaded machine starts it late).
        deadline = time.monotonic() + 30
        while not beat_file.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        stopping.append(time.monotonic())
        stopped.stop.stop("#2 was moved to Canceled")

    stopping: list[float] = []
    threading.Thread(target=stop_once_the_child_beats, daemon=True).start()
    result = CommandRuntime(f"{cli} {{prompt_file}}").run(stopped)
    assert (result.status, result.error) == (AgentStatus.STOPPED, "#2 was moved to Canceled")
    assert result.result is None
    assert time.monotonic() - stopping[0] < 10
    time.sleep(0.2)
    beats = (workdir / "child.beat").stat().st_size
    time.sleep(0.3)
    assert beats > 0
    assert (workdir / "child.beat").stat().st_size == beats


def test_an_agent_that_goes_quiet_is_stalled(tmp_path, brief):
    cli = fake_cli(
        tmp_path,
        "agent",
        """
        print("thinking", flush=True)
        time.sleep(60)
    """,
    )
    limits = Limits(timeout_seconds=60, stall_seconds=1)
    result = CommandRuntime(f"{cli} {{prompt_file}}").run(brief(limits=limits))
    assert result.status is AgentStatus.TIMEOUT
    assert result.error == "stalled: no output for 1s"


def test_the_agent_gets_no_tracker_or_store_credentials(tmp_path, brief, workdir, monkeypatch):
    monkeypatch.setenv("RALPH_GH_TOKEN", "ghp_secret")
    monkeypatch.setenv("RALPH_STORE_URL", "postgresql://ralph:pw@db/ralph")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-agents-own")
    cli = fake_cli(
        tmp_path,
        "agent",
        """
        json.dump(dict(os.environ), open("env.json", "w"))
    """,
    )
    CommandRuntime(f"{cli} {{prompt_file}}").run(brief())
    seen = json.loads((workdir / "env.json").read_text())
    assert "RALPH_GH_TOKEN" not in seen
    assert "RALPH_STORE_URL" not in seen
    assert seen["OPENAI_API_KEY"] == "sk-agents-own"


@pytest.mark.parametrize(
    ("template", "message"),
    [
        ("", "the agent command is empty"),
        ("codex exec {prompt_fle}", "unknown placeholder 'prompt_fle'"),
        ("codex 'unclosed", "cannot be split"),
    ],
)
def test_a_bad_template_is_a_configuration_error(template, message):
    with pytest.raises(ConfigError, match=message):
        CommandRuntime(template)


def test_a_missing_agent_binary_says_so(brief):
    with pytest.raises(ConfigError, match="cannot start the agent command 'no-such-agent'"):
        CommandRuntime("no-such-agent {prompt_file}").run(brief())


def test_claude_retrying_a_refused_key_is_stopped_at_once_as_misconfigured(tmp_path, brief):
    retry = {
        "type": "system",
        "subtype": "api_retry",
        "attempt": 1,
        "error_status": 401,
        "error": "authentication_failed",
    }
    cli = fake_cli(
        tmp_path,
        "claude",
        f"""
        print(json.dumps({{"type": "system", "subtype": "init"}}), flush=True)
        while True:
            print(json.dumps({retry!r}), flush=True)
            time.sleep(1)
    """,
    )
    started = time.monotonic()
    limits = Limits(timeout_seconds=60, stall_seconds=30)
    result = CommandRuntime(f"{cli} -p {{prompt}}", output="claude").run(brief(limits=limits))
    assert time.monotonic() - started < 10
    assert result.status is AgentStatus.MISCONFIGURED
    assert result.error.startswith("Claude Code's credentials were refused (401")


def test_an_option_with_no_value_for_its_placeholder_is_left_out(tmp_path, brief):
    cli = fake_cli(
        tmp_path,
        "agent",
        f"""
        sys.stdin.read()
        open("argv.json", "w").write(json.dumps(sys.argv[1:]))
        print({json.dumps(json.dumps(RESULT))})
    """,
    )
    template = f"{cli} --model={{model}} --turns={{max_turns}} -"
    result = CommandRuntime(template, output="gemini").run(brief())
    assert result.status is AgentStatus.OK, result.error
    argv = json.loads((brief().workdir / "argv.json").read_text())
    assert argv == ["--turns=10", "-"]
    CommandRuntime(template, output="gemini", model="m1").run(brief())
    assert json.loads((brief().workdir / "argv.json").read_text())[0] == "--model=m1"


def test_a_plain_agents_lines_are_its_words_as_it_prints_them(tmp_path, brief, workdir):
    cli = fake_cli(
        tmp_path,
        "agent",
        """
        print("Reading calc.py", flush=True)
        deadline = time.monotonic() + 20
        while not os.path.exists("go") and time.monotonic() < deadline:
            time.sleep(0.05)
        print("\\x1b[31mAll tests pass\\x1b[0m")
    """,
    )
    the_brief = brief()
    runtime = CommandRuntime(f"{cli} {{prompt_file}}")
    ran = threading.Thread(target=runtime.run, args=(the_brief,))
    ran.start()
    deadline = time.monotonic() + 20
    while not the_brief.activity.snapshot().said and time.monotonic() < deadline:
        time.sleep(0.05)
    meanwhile = the_brief.activity.snapshot()
    (workdir / "go").write_text("")
    ran.join(timeout=30)
    assert not ran.is_alive()
    assert meanwhile.said == "Reading calc.py"  # shown while the agent still worked
    end = the_brief.activity.snapshot()
    assert end.said == "\ufffd[31mAll tests pass\ufffd[0m"  # no escape reaches a terminal
    assert [e.text for e in end.recent] == ["Reading calc.py", end.said]


def test_claude_retrying_an_overload_is_stopped_as_rate_limited(tmp_path, brief):
    cli = fake_cli(
        tmp_path,
        "claude",
        """
        print(json.dumps({"type": "system", "subtype": "init"}), flush=True)
        for attempt in range(1, 11):
            retry = {"type": "system", "subtype": "api_retry", "attempt": attempt,
                     "max_retries": 10, "retry_delay_ms": 500 * attempt,
                     "error_status": 529, "error": "overloaded"}
            print(json.dumps(retry), flush=True)
            time.sleep(0.5)
        time.sleep(60)
    """,
    )
    started = time.monotonic()
    limits = Limits(timeout_seconds=60, stall_seconds=30)
    result = CommandRuntime(f"{cli} -p {{prompt}}", output="claude").run(brief(limits=limits))
    assert time.monotonic() - started < 10
    assert result.status is AgentStatus.RATE_LIMITED
    assert result.resets_at == 0
    assert "overloaded" in result.error


def test_a_cli_that_exits_saying_its_provider_refused_is_rate_limited(tmp_path, brief):
    cli = fake_cli(
        tmp_path,
        "agent",
        """
        sys.stdin.read()
        print("Error: 429 Too Many Requests. Please try again in 1m30s.", file=sys.stderr)
        sys.exit(1)
    """,
    )
    before = time.time()
    result = CommandRuntime(f"{cli}").run(brief())
    assert result.status is AgentStatus.RATE_LIMITED
    assert before + 90 <= result.resets_at <= time.time() + 90
