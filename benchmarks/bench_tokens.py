"""What the agents' tokens cost for one issue, phase by phase, with Claude Code and with
Codex: their real CLIs against the project's fakes of their model APIs, which count
tokens as the real APIs do (characters / 4 over the whole request, prompt caching as
each provider does it: ``tests/fakes/_tokens.py``). ``ralph hero N`` drives the issue
end to end; the fake model does each phase's work the way the end-to-end tests' model
does (``tests/integration/agents/_models.py``). Prints, per phase and in total, model
requests, input / cached input / cache-write / output tokens and dollars at list
prices. Counts, not times: the machine's load does not change them.

The issues, opened in Backlog so ``ralph hero`` triages them first (the fake model
proposes the fast track for an XS issue whose diff names its file, when the triage
prompt offers it): the demo's farewell, an XS issue with a concrete change; and a small
epic, an S parent with two XS children planned as one group (the fast track is refused
for them: each is planned together with the other). Rows: fast track on and off when
Ralph has the setting, with the ratio on / off measured in the same run; without it,
today's path only. ``--ralph SRC`` measures another tree's Ralph (its ``src``) with this
tree's fakes and CLIs: how ``TODAY`` below was measured, in a worktree of its commit.

Goals (issue 36), against today: an XS issue with the fast track on at most 0.60x of
today's tokens and requests with each CLI; fast track off, at most 0.85x of today's
tokens from prompt layout and tool lists alone (the epic's rows too: its members are
refused the fast track). Each row prints its ratios and verdict.

Measured after (tokens, ratio to today): the XS issue with Claude Code 63,748 fast track
on (0.34x; 5 requests of 11) and 117,248 off (0.62x); with Codex 32,060 on (0.31x; 4 of
10) and 78,911 off (0.76x). The epic, on and off alike: Claude Code 153,168 (0.65x),
Codex 106,490 (0.77x). Beyond the layout and tool lists measured before, triage and
split now get only the tracker tools they use, and Claude Code's auto memory is off.

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
from tests.integration.agents._models import TRIAGE, _steps, model
from tests.integration.conftest import ralph_environment

from benchmarks._quick import QUICK
from ralph.config import Config
from ralph.demo import create_sample_repository
from ralph.demo._sample import FAREWELL
from ralph.phases._prompts import PROMPTED_PHASES, packaged_prompt

#: Dollars per million tokens: (input, cached input, cache write, output). Claude Sonnet
#: 4.5's list prices (5-minute cache writes); GPT-5's for Codex (no charge for writes).
PRICES = {"claude": (3.0, 0.30, 3.75, 15.0), "codex": (1.25, 0.125, 0.0, 10.0)}
#: Today: (requests, tokens, dollars) per CLI and case before issue 36's work (commit
#: 4e3edc1: no fast track, prompts laid out as they were), measured by this bench with
#: ``--ralph`` pointing at that commit's ``src``.
TODAY = {
    ("claude", "XS issue"): (11, 187_625, 0.3419),
    ("claude", "epic"): (14, 236_434, 0.4240),
    ("codex", "XS issue"): (10, 103_184, 0.0675),
    ("codex", "epic"): (13, 137_523, 0.0938),
}
TODAY_COMMIT = "4e3edc1"
#: The goals against today: the XS issue fast-tracked, tokens and requests; otherwise
#: (fast track off, or refused as for the epic's members), tokens from layout and tools.
GOAL_ON = 0.60
GOAL_OFF = 0.85
#: The triage result's fast-track fields, which a Ralph without the fast track refuses.
FAST_TRACK_FIELDS = ("fast_track", "fast_track_reason", "files")
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
    for phase in PROMPTED_PHASES:
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


def fast_track_exists(source: Path | None) -> bool:
    """Whether the Ralph measured (this one, or the one in ``source``) has the setting."""
    if source is None:
        return "fast_track" in Config.__dataclass_fields__
    check = "from ralph.config import Config; print('fast_track' in Config.__dataclass_fields__)"
    done = subprocess.run(
        [sys.executable, "-c", check],
        env={**os.environ, "PYTHONPATH": str(source)},
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=True,
    )
    return done.stdout.strip() == "True"


def one_issue(repo: Path, env: Mapping[str, str]) -> int:
    """The farewell: an XS issue with a concrete change (its diff names its one file)."""
    _new(repo, env, "Add a farewell", FAREWELL_BODY, "--estimate", "XS")
    return 1


def small_epic(repo: Path, env: Mapping[str, str]) -> int:
    """An S parent with two XS children, planned as one group."""
    _new(repo, env, "Farewells", "Say goodbye, and say it in the docs.", "--estimate", "S")
    _new(repo, env, "Add a farewell", FAREWELL_BODY, "--estimate", "XS", "--parent", "1")
    body = "Document `farewell` beside `greet` in the core module."
    _new(repo, env, "Document the farewell", body, "--estimate", "XS", "--parent", "1")
    return 1


def _new(repo: Path, env: Mapping[str, str], title: str, body: str, *more: str) -> None:
    """An issue in Backlog: ``ralph hero`` triages it first."""
    _ralph(repo, env, "issue", "new", title, "--body", body, *more)


def group_model(cli: Dialect) -> Callable[[Any, int], Any]:
    """The end-to-end tests' model, and for a group of issues one plan with a phase per
    issue, implemented in one go."""
    single = model(cli)

    def answer(request: Any, turn: int) -> Any:
        prompt = "\n".join(request.texts())
        if re.search(r"^# Triage issue", prompt, re.MULTILINE) and "fast_track" not in prompt:
            # A Ralph without the fast track: its triage result allows no such fields.
            plain = {k: v for k, v in TRIAGE.items() if k not in FAST_TRACK_FIELDS}
            return cli.finish(plain)[min(request.answered, len(cli.finish(plain)) - 1)]
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
    source: Path | None = None,
) -> Measured:
    """``ralph hero N`` on what ``create`` opens, with ``cli`` doing every phase (the
    ``ralph`` of ``source``, another tree's ``src``, when given)."""
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
                **({"PYTHONPATH": str(source)} if source is not None else {}),
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
            if fast_track is not None:  # init writes the key (true) at the top level
                text = re.sub(
                    r"^fast_track = \w+$",
                    f"fast_track = {str(fast_track).lower()}",
                    text,
                    count=1,
                    flags=re.MULTILINE,
                )
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


def _verdict(ratio: float, goal: float) -> str:
    return f"{ratio:.2f}x (goal {goal:.2f}x: {'meets' if ratio <= goal else 'misses'})"


def compare(cli: str, case: str, mode: bool | None, measured: Measured) -> None:
    """The row against today's figures: tokens, and for a fast-tracked issue requests too."""
    today = TODAY.get((cli, case))
    if today is None:
        return
    requests, tokens, usd = today
    total = measured.total
    fast = bool(mode) and case == "XS issue"
    goal = GOAL_ON if fast else GOAL_OFF
    print(
        f"  against today ({TODAY_COMMIT}: {requests} requests, {tokens} tokens, "
        f"${usd:.4f}): tokens {_verdict(total.tokens / tokens, goal)}"
        + (f", requests {_verdict(total.requests / requests, goal)}" if fast else "")
    )


def on_off(cli: str, case: str, off: Measured, on: Measured) -> None:
    """Fast track on against off, measured in this run."""
    a, b = on.total, off.total
    print(
        f"\n{cli}, {case}, fast track on / off: requests {a.requests}/{b.requests} = "
        f"{a.requests / b.requests:.2f}x, tokens {a.tokens}/{b.tokens} = "
        f"{a.tokens / b.tokens:.2f}x, USD {a.usd(cli) / b.usd(cli):.2f}x"
    )


def _source(argv: list[str]) -> Path | None:
    """``--ralph SRC``: measure the Ralph in another tree's ``src`` (e.g. a worktree of
    today's commit) with this tree's fakes and CLIs."""
    if not argv:
        return None
    if len(argv) != 2 or argv[0] != "--ralph" or not (Path(argv[1]) / "ralph").is_dir():
        raise SystemExit("usage: bench_tokens.py [--ralph SRC] (SRC: a tree's src folder)")
    return Path(argv[1]).resolve()


def main() -> None:
    source = _source(sys.argv[1:])
    try:
        bin_dir = installed()
    except Missing as missing:
        print(f"agent CLIs: {missing}; run make agent-clis")
        return
    clis = ("claude",) if QUICK else ("claude", "codex")
    if fast_track_exists(source):
        modes: tuple[bool | None, ...] = (True,) if QUICK else (True, False)
    else:
        modes = (None,)
        print("fast_track: not a setting of this Ralph; today's path only (no fast track)")
    print(f"Ralph: {source or 'this tree'}. Issues start in Backlog: triage comes first.")
    print("Tokens: characters / 4 over each request; caching as each API does it.")
    cases = [("XS issue", one_issue)] if QUICK else [("XS issue", one_issue), ("epic", small_epic)]
    for cli in clis:
        for case, create in cases:
            runs: dict[bool | None, Measured] = {}
            for mode in modes:
                with tempfile.TemporaryDirectory() as folder:
                    runs[mode] = run_issue(cli, mode, Path(folder), bin_dir, create, source)
                label = {True: "fast track on", False: "fast track off", None: "today's path"}
                show(cli, f"{case}, {label[mode]}", runs[mode])
                if source is None:
                    compare(cli, case, mode, runs[mode])
            if True in runs and False in runs:
                on_off(cli, case, runs[False], runs[True])


if __name__ == "__main__":
    main()
