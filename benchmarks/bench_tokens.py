"""What the agents' tokens cost for one issue, phase by phase, with Claude Code and with
Codex: their real CLIs against the project's fakes of their model APIs, which count
tokens as the real APIs do (characters / 4 over the whole request, prompt caching as
each provider does it: ``tests/fakes/_tokens.py``). ``ralph hero N`` drives the issue
end to end; the fake model does each phase's work the way the end-to-end tests' model
does (``tests/integration/agents/_models.py``). Prints, per phase and in total, model
requests, input / cached input / cache-write / output tokens and dollars at list
prices. Counts, not times: the machine's load does not change them.

The issues: the demo's farewell, an XS issue with a concrete change, from Research
Needed to Done; and a small epic, an S parent with two XS children planned as one group
(research each, one plan with a phase per child, one review, one implementation). With
the ``fast_track`` setting (triage may skip research and plan) both ways when Ralph has
it; without it, today's path only, and the output says so. Both start at Research
Needed, so a fast track that begins at triage also needs them started in Backlog and a
triage answer from the fake model.

Goal (issue 36): with fast track off, prompt layout and tool lists alone bring each
CLI's tokens to at most 85 % of the baseline below (measured before the change: Claude
Code 10 requests, 172,874 tokens, $0.29; Codex 9 requests, 92,757 tokens, $0.057).
Measured after the tool lists and layout: Claude Code 133,154 (0.77x), Codex 70,287
(0.76x); with research's helper sub-agents (the Agent tool's definition rides along with
each research request): Claude Code 140,084 (0.81x). The epic: Claude Code 206,951 then
173,165 (0.84x), Codex 116,700 then 89,757 (0.77x).

    make bench-tokens    # or: .venv/bin/python benchmarks/bench_tokens.py
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import defaultdict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# Run as a script, so the repository root is put on the path.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.agents.install import Missing, installed
from tests.fakes.anthropic_api import MODEL as CLAUDE_MODEL
from tests.integration.agents._clis import CLAUDE, CLIS, Dialect
from tests.integration.agents._models import _steps, model
from tests.integration.conftest import ralph_environment

from benchmarks._quick import QUICK
from ralph.config import Config
from ralph.demo import create_sample_repository
from ralph.demo._sample import FAREWELL
from ralph.phases._prompts import PROMPT_VARIABLES, packaged_prompt

#: Dollars per million tokens: (input, cached input, cache write, output). Claude Sonnet
#: 4.5's list prices (5-minute cache writes); GPT-5's for Codex (no charge for writes).
PRICES = {"claude": (3.0, 0.30, 3.75, 15.0), "codex": (1.25, 0.125, 0.0, 10.0)}
#: The baseline: total tokens per CLI, fast track off, before prompt layout and tool lists
#: were changed (this bench, at the commit that added it).
BASELINE = {
    ("claude", "XS issue"): 172_874,
    ("codex", "XS issue"): 92_757,
    ("claude", "epic"): 206_951,
    ("codex", "epic"): 116_700,
}
GOAL = 0.85
FAREWELL_BODY = f"Add `farewell` to the core module.\n\n{FAREWELL}\n"
GROUP_PLAN = """\
---
date: 2026-11-22
status: draft
github_issues: [{first}, {second}]
primary_issue: {first}
---

# Farewells - Implementation Plan

## Overview

Two phases: `farewell` beside `greet`, then its mention.

## Phase 1: GH-{first} Add a farewell

### Changes Required

#### 1. Add farewell
**File**: `greet/core.py`
**Changes**: add `farewell(name)`.

### Success Criteria

#### Automated Verification
- [ ] The tests pass

## Phase 2: GH-{second} Document the farewell

### Changes Required

#### 1. Say it
**File**: `greet/core.py`
**Changes**: `farewell` sits beside `greet`.

### Success Criteria

#### Automated Verification
- [ ] The tests pass
"""
TIMEOUT = 600
HOMES = Path("/var/tmp")


@dataclass
class Tally:
    requests: int = 0
    input: int = 0
    cached: int = 0
    written: int = 0
    output: int = 0

    @property
    def tokens(self) -> int:
        return self.input + self.cached + self.written + self.output

    def usd(self, cli: str) -> float:
        counts = (self.input, self.cached, self.written, self.output)
        return sum(n * p for n, p in zip(counts, PRICES[cli], strict=True)) / 1e6

    def add(self, other: Tally) -> None:
        self.requests += other.requests
        self.input += other.input
        self.cached += other.cached
        self.written += other.written
        self.output += other.output


@dataclass
class Measured:
    phases: dict[str, Tally] = field(default_factory=lambda: defaultdict(Tally))

    @property
    def total(self) -> Tally:
        total = Tally()
        for tally in self.phases.values():
            total.add(tally)
        return total


def _markers() -> dict[str, str]:
    """Each phase's opening sentence ("You are the analyst researching ..."): how a
    request is told to belong to it, whatever the prompt's layout."""
    found = {}
    for phase in PROMPT_VARIABLES:
        line = next(x for x in packaged_prompt(phase).splitlines() if x.startswith("You are"))
        found[phase] = line.split("$")[0][:40]
    return found


def _phase(texts: list[str], markers: Mapping[str, str]) -> str:
    joined = "\n".join(texts)
    return next((phase for phase, marker in markers.items() if marker in joined), "other")


def _tally(cli: str, request: Any, usage: Mapping[str, int]) -> Tally:
    if cli == "claude":
        return Tally(
            1,
            usage["input_tokens"],
            usage["cache_read_input_tokens"],
            usage["cache_creation_input_tokens"],
            usage["output_tokens"],
        )
    cached = usage["cached_tokens"]
    return Tally(1, usage["input_tokens"] - cached, cached, 0, usage["output_tokens"])


def fast_track_exists() -> bool:
    return "fast_track" in Config.__dataclass_fields__


def one_issue(repo: Path, env: Mapping[str, str]) -> int:
    """The farewell: an XS issue with a concrete change, ready for research."""
    _new(repo, env, "Add a farewell", FAREWELL_BODY, "--estimate", "XS")
    return 1


def small_epic(repo: Path, env: Mapping[str, str]) -> int:
    """An S parent with two XS children ready for research, planned as one group."""
    _new(repo, env, "Farewells", "Say goodbye, and say it in the docs.", "--estimate", "S")
    _new(repo, env, "Add a farewell", FAREWELL_BODY, "--estimate", "XS", "--parent", "1")
    body = "Document `farewell` beside `greet` in the core module."
    _new(repo, env, "Document the farewell", body, "--estimate", "XS", "--parent", "1")
    return 1


def _new(repo: Path, env: Mapping[str, str], title: str, body: str, *more: str) -> None:
    _ralph(repo, env, "issue", "new", title, "--body", body, "--state", "Research Needed", *more)


def group_model(cli: Dialect) -> Callable[[Any, int], Any]:
    """The end-to-end tests' model, and for a group of issues one plan with a phase per
    issue, implemented in one go."""
    single = model(cli)

    def answer(request: Any, turn: int) -> Any:
        prompt = "\n".join(request.texts())
        numbers = list(dict.fromkeys(re.findall(r"### Issue #(\d+)", prompt)))
        steps = _steps(cli, prompt) if len(numbers) > 1 else None
        if steps is None:
            return single(request, turn)
        document = re.search(r"- document: `([^`]+)`", prompt)
        if document is not None and "/plans/" in document.group(1):
            workdir = re.search(r"Your working directory is `([^`]+)`", prompt)
            assert workdir is not None
            plan = GROUP_PLAN.format(first=numbers[0], second=numbers[1])
            relative = os.path.relpath(document.group(1), workdir.group(1))
            steps = [
                cli.write(document.group(1), plan),
                *cli.finish({"document": relative, "summary": "two phases", "phase_count": 2}),
            ]
        elif "The plan file is" in prompt:  # the one change; the result counts both phases
            done = {"phases_done": 2, "phases_total": 2, "tests": "PASSING"}
            steps = [*steps[: -len(cli.finish({}))], *cli.finish(done)]
        return steps[min(request.answered, len(steps) - 1)]

    return answer


def run_issue(
    cli: str,
    fast_track: bool | None,
    folder: Path,
    bin_dir: Path,
    create: Callable[[Path, Mapping[str, str]], int] = one_issue,
) -> Measured:
    """``ralph hero N`` on what ``create`` opens, with ``cli`` doing every phase."""
    dialect: Dialect = CLAUDE if cli == "claude" else CLIS[cli]
    repo = create_sample_repository(folder / "sample")
    home = Path(tempfile.mkdtemp(prefix="ralph-bench-home-", dir=HOMES))
    # The agent commits in its worktree: git needs a name where the agent's HOME is.
    (home / ".gitconfig").write_text("[user]\n\tname = Bench\n\temail = bench@example.com\n")
    try:
        api = dialect.fake(group_model(dialect), counting=True)
        with api:
            env = {
                **dialect.configure(home, api),
                "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
                "RALPH_TEST_COMMAND": f"{sys.executable} -m unittest -q",
            }
            _ralph(repo, env, "init")
            config = repo / "ralph.toml"
            agent = (
                f'runtime = "claude"\nmodel = "{CLAUDE_MODEL}"\n'
                if cli == "claude"
                else f'preset = "{cli}"\n'
            )
            text = config.read_text().replace('runtime = "claude"\n', agent)
            if cli == "claude":
                text = text.replace('model = ""\n', "", 1)
            if fast_track is not None:  # a top-level key: before the first table
                text = f"fast_track = {str(fast_track).lower()}\n" + text
            config.write_text(text)
            _ralph(repo, env, "hero", str(create(repo, env)))
            markers = _markers()
            measured = Measured()
            for request, usage in list(api.charged):
                measured.phases[_phase(request.texts(), markers)].add(_tally(cli, request, usage))
            return measured
    finally:
        shutil.rmtree(home, ignore_errors=True)


def _ralph(repo: Path, env: Mapping[str, str], *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "ralph", *args],
        cwd=repo,
        env=ralph_environment(env),
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(
            f"ralph {' '.join(args)} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}"
        )
    return done.stdout


def show(cli: str, label: str, measured: Measured) -> None:
    print(f"\n{cli}, {label}")
    print(
        f"  {'phase':<12}{'requests':>9}{'input':>10}{'cached':>10}{'written':>10}"
        f"{'output':>8}{'tokens':>10}{'USD':>9}"
    )
    rows = [*sorted(measured.phases.items()), ("total", measured.total)]
    for phase, tally in rows:
        print(
            f"  {phase:<12}{tally.requests:>9}{tally.input:>10}{tally.cached:>10}"
            f"{tally.written:>10}{tally.output:>8}{tally.tokens:>10}{tally.usd(cli):>9.4f}"
        )


def main() -> None:
    try:
        bin_dir = installed()
    except Missing as missing:
        print(f"agent CLIs: {missing}; run make agent-clis")
        return
    clis = ("claude",) if QUICK else ("claude", "codex")
    if fast_track_exists():
        modes: tuple[bool | None, ...] = (False,) if QUICK else (False, True)
    else:
        modes = (None,)
        print("fast_track: not a setting of this Ralph; today's path only (no fast track)")
    print("Tokens: characters / 4 over each request; caching as each API does it.")
    cases = [("XS issue", one_issue)] if QUICK else [("XS issue", one_issue), ("epic", small_epic)]
    for cli in clis:
        for case, create in cases:
            for mode in modes:
                with tempfile.TemporaryDirectory() as folder:
                    measured = run_issue(cli, mode, Path(folder), bin_dir, create)
                label = "fast track " + ("on" if mode else "off")
                show(cli, f"{case}, {label}", measured)
                baseline = BASELINE.get((cli, case))
                if baseline and not mode:
                    ratio = measured.total.tokens / baseline
                    verdict = "meets" if ratio <= GOAL else "misses"
                    print(
                        f"  against the baseline ({baseline}): {ratio:.2f}x, {verdict} the "
                        f"goal of {GOAL:.2f}x"
                    )


if __name__ == "__main__":
    main()
