"""Record what each real agent CLI prints for one run on its fake model API, for the
parsers' unit tests (``tests/unit/runtimes/recorded/``), which then need no Node.

    .venv/bin/python -m tests.agents.capture      # after `make agent-clis`

Each CLI runs its preset's command line (a shell phase: the model writes a document,
runs one shell command, then answers with the JSON result) in a scratch git
repository, with its config in a scratch home; the output is stored as printed, with
the scratch paths replaced by fixed ones so that a new capture differs only where the
CLI changed.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from ralph.runtimes import AgentBrief, IssueContext
from ralph.runtimes.command._presets import PRESETS

from ..fakes import anthropic_api
from ..fakes._scripted import Text
from ..integration.agents._clis import CLIS
from .install import installed, versions

OUT = Path(__file__).resolve().parents[1] / "unit" / "runtimes" / "recorded"
RESULT = {"document": "doc.md", "summary": "found it"}
PROMPT = "Write doc.md, check it with the shell, and answer with the JSON result."


def capture(name: str, folder: Path) -> str:
    cli = CLIS[name]
    home = Path(tempfile.mkdtemp(prefix="ralph-capture-home-", dir="/var/tmp"))
    work = Path(tempfile.mkdtemp(prefix="ralph-capture-work-"))
    try:
        subprocess.run(["git", "init", "-q", str(work)], check=True)
        script = [cli.write(str(work / "doc.md"), "# Findings\n"), cli.shell("echo checked")]
        with cli.fake([*script, Text(json.dumps(RESULT))]) as api:
            env = {**os.environ, **cli.configure(home, api)}
            env["PATH"] = f"{folder}{os.pathsep}{env.get('PATH', '')}"
            brief = AgentBrief(
                phase="implement",
                role="builder",
                issues=(IssueContext(number=1, title="t", body="b"),),
                instructions=PROMPT,
                workdir=work,
                tools=("Read", "Write", "Bash"),
            )
            preset = PRESETS[name]
            words = [w for w in preset.words(brief) if "{" not in w]
            env.update(preset.environment(brief))
            done = subprocess.run(
                words,
                input=PROMPT,
                cwd=work,
                env=env,
                capture_output=True,
                text=True,
                timeout=300,
                check=False,
            )
        if done.returncode != 0:
            raise SystemExit(f"{name} failed: {done.stderr[-500:]}")
        return done.stdout.replace(str(work), "/work").replace(str(home), "/home")
    finally:
        shutil.rmtree(home, ignore_errors=True)
        shutil.rmtree(work, ignore_errors=True)


def capture_claude() -> tuple[str, str]:
    """Claude Code's version and ``stream-json`` output (the CLI bundled with
    claude-agent-sdk): words before a write, the shell, a fetch its permissions refuse,
    the answer. Its init frame is cut to its core keys (it lists the person's tools)."""
    import claude_agent_sdk

    bundled = Path(claude_agent_sdk.__file__).parent / "_bundled"
    version = (bundled / "claude.version").read_text().split()[0]
    home = Path(tempfile.mkdtemp(prefix="ralph-capture-home-", dir="/var/tmp"))
    work = Path(tempfile.mkdtemp(prefix="ralph-capture-work-"))
    write = {"file_path": str(work / "doc.md"), "content": "# Findings\n"}
    script: list[anthropic_api.Text | anthropic_api.ToolUse] = [
        anthropic_api.ToolUse("Write", write, pre_text="I will write the findings first."),
        anthropic_api.ToolUse("Bash", {"command": "echo checked", "description": "check"}),
        anthropic_api.ToolUse("WebFetch", {"url": "https://example.com", "prompt": "read"}),
        anthropic_api.Text(json.dumps(RESULT)),
    ]
    try:
        subprocess.run(["git", "init", "-q", str(work)], check=True)
        with anthropic_api.FakeAnthropicAPI(script) as api:
            done = subprocess.run(
                [
                    str(bundled / "claude"),
                    "-p",
                    "--output-format",
                    "stream-json",
                    "--verbose",
                    "--model",
                    anthropic_api.MODEL,
                    "--permission-mode",
                    "dontAsk",
                    "--allowedTools",
                    "Read,Write,Bash",
                ],
                input=PROMPT,
                cwd=work,
                env={**os.environ, **api.environment(str(home))},
                capture_output=True,
                text=True,
                timeout=300,
                check=False,
            )
        if done.returncode != 0:
            raise SystemExit(f"claude failed: {done.stderr[-500:]}")
        lines = []
        printed = done.stdout.replace(str(work), "/work").replace(str(home), "/home")
        for line in printed.splitlines():
            frame = json.loads(line)
            if frame.get("type") == "system" and frame.get("subtype") == "init":
                keys = ("type", "subtype", "cwd", "session_id", "model", "permissionMode")
                frame = {key: frame[key] for key in keys if key in frame}
            lines.append(json.dumps(frame))
        return version, "\n".join(lines) + "\n"
    finally:
        shutil.rmtree(home, ignore_errors=True)
        shutil.rmtree(work, ignore_errors=True)


def main() -> int:
    folder = installed()
    OUT.mkdir(parents=True, exist_ok=True)
    version, output = capture_claude()
    (OUT / f"claude-{version}.jsonl").write_text(output)
    print(f"recorded claude {version}")
    for name, version in versions().items():
        (OUT / f"{name}-{version}.jsonl").write_text(capture(name, folder))
        print(f"recorded {name} {version}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
