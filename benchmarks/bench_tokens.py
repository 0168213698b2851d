"""What the agents' tokens cost per issue, with each agent CLI Ralph drives: Claude
Code, Codex, Gemini CLI and opencode, their real CLIs against the project's fakes of
their model APIs, which count tokens as the real APIs do (characters / 4 over the whole
request, prompt caching as each provider does it: ``tests/fakes/_tokens.py``).
``ralph hero N`` drives the issue end to end; the fake model does each phase's work the
way the end-to-end tests' model does (``tests/integration/agents/_models.py``). Prints,
per phase and in total, model requests, input / cached input / cache-write / output
tokens and dollars at list prices, then one table: CLI, XS tokens, M-epic tokens,
requests, dollars. Every request the CLI sends its model counts, its side requests too
(opencode's session titles, Gemini CLI's model router). Counts, not times: the
machine's load does not change them.

The issues, opened in Backlog: the demo's farewell, an XS issue with a concrete change,
which ``ralph hero`` triages first (the fake model proposes the fast track, which Ralph
grants: its diff names its one file); and an M epic, which ``ralph hero`` splits first,
the fake model making two XS children of it (the farewell, then its mention),
researched each, planned as one group and implemented in one go. About five minutes.
``--ralph SRC`` measures another tree's Ralph (its ``src``) with this tree's fakes and
CLIs. Quick mode (``RALPH_BENCH_QUICK=1``, as tests/integration/test_benchmarks.py runs
it): Claude Code's XS issue only.

Measured (2026-12-07; tokens, requests, dollars; XS issue, then M epic):

    CLI         XS tokens  M-epic tokens   requests XS / M        dollars XS / M
    claude         63,829        143,579            5 / 13     $0.0996 / $0.2390
    codex          32,040         97,717            4 / 12     $0.0238 / $0.0764
    gemini         54,824        163,795            6 / 18     $0.0352 / $0.0952
    opencode       36,431        103,389            6 / 18     $0.1125 / $0.3240

Codex sends the fewest tokens and requests (it makes no side requests); Gemini CLI's
router and opencode's session titles add a request per phase. Claude Code pays for
cache writes; opencode's provider (the test config's prices) has no cached-input price.

Issue 36's goals were measured by this bench against commit 4e3edc1 (no fast track):
the XS issue with the fast track on at 0.34x of its tokens with Claude Code (63,748)
and 0.31x with Codex (32,060); the epic at 0.65x and 0.77x.

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

#: Dollars per million tokens: (input, cached input, cache write, output), at the list
#: prices of the model each CLI's fake stands for: Claude Sonnet 4.5 (5-minute cache
#: writes), GPT-5 for Codex, Gemini 2.5 Pro, and for opencode its provider's prices in
#: the test config ($3 in, $15 out; no cache price, so cached input at $3).
PRICES = {
    "claude": (3.0, 0.30, 3.75, 15.0),
    "codex": (1.25, 0.125, 0.0, 10.0),
    "gemini": (1.25, 0.125, 0.0, 10.0),
    "opencode": (3.0, 3.0, 0.0, 15.0),
}
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
SUB_ISSUE_BODY = """## Summary
{summary}

## Scope
`greet/core.py`.

## Acceptance Criteria
- [ ] The tests pass

## Out of Scope
Anything else.
"""


def _sub_issue(title: str, summary: str, **more: Any) -> dict[str, Any]:
    return {"title": title, "body": SUB_ISSUE_BODY.format(summary=summary), "estimate": "XS"} | more


#: Split's answer for the epic: the farewell, then its mention, after it.
SUB_ISSUES = [
    _sub_issue("Add a farewell", FAREWELL_BODY),
    _sub_issue("Document the farewell", "Document `farewell` beside `greet`.", after=[1]),
]
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


def m_epic(repo: Path, env: Mapping[str, str]) -> int:
    """An M issue, which split makes into two XS children."""
    body = "Say goodbye, and say it in the docs: `farewell` beside `greet`."
    _new(repo, env, "Farewells", body, "--estimate", "M")
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
        if re.search(r"^# Split issue", prompt, re.MULTILINE):
            steps = cli.finish({"sub_issues": SUB_ISSUES, "summary": "the farewell, its mention"})
            return steps[min(request.answered, len(steps) - 1)]
        if re.search(r"^# Triage issue", prompt, re.MULTILINE) and "fast_track" not in prompt:
            # A Ralph without the fast track: its triage result allows no such fields.
            plain = {k: v for k, v in TRIAGE.items() if k not in FAST_TRACK_FIELDS}
            return cli.finish(plain)[min(request.answered, len(cli.finish(plain)) - 1)]
        numbers = list(dict.fromkeys(re.findall(r"### Issue #(\d+)", prompt)))
        group = _steps(cli, prompt) if len(numbers) > 1 else None
        if group is None:
            return single(request, turn)
        document = re.search(r"- document: `([^`]+)`", prompt)
        if document is not None and "/plans/" in document.group(1):
            workdir = re.search(r"Your working directory is `([^`]+)`", prompt)
            assert workdir is not None
            plan = GROUP_PLAN.format(first=numbers[0], second=numbers[1])
            relative = os.path.relpath(document.group(1), workdir.group(1))
            group = [
                cli.write(document.group(1), plan),
                *cli.finish({"document": relative, "summary": "two phases", "phase_count": 2}),
            ]
        elif "The plan file is" in prompt:  # the one change; the result counts both phases
            done = {"phases_done": 2, "phases_total": 2, "tests": "PASSING"}
            group = [*group[: -len(cli.finish({}))], *cli.finish(done)]
        return group[min(request.answered, len(group) - 1)]

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
    # The agent commits in its worktree: git needs a name where the agent's HOME is, and
    # in the repository for Gemini CLI, whose shell reads no global git config.
    (home / ".gitconfig").write_text("[user]\n\tname = Bench\n\temail = bench@example.com\n")
    for key, value in (("user.name", "Bench"), ("user.email", "bench@example.com")):
        subprocess.run(["git", "-C", str(repo), "config", key, value], check=True, timeout=30)
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


def _source(argv: list[str]) -> Path | None:
    """``--ralph SRC``: measure the Ralph in another tree's ``src`` (e.g. a worktree of
    today's commit) with this tree's fakes and CLIs."""
    if not argv:
        return None
    if len(argv) != 2 or argv[0] != "--ralph" or not (Path(argv[1]) / "ralph").is_dir():
        raise SystemExit("usage: bench_tokens.py [--ralph SRC] (SRC: a tree's src folder)")
    return Path(argv[1]).resolve()


@dataclass(frozen=True)
class Row:
    cli: str
    xs: Measured
    epic: Measured | None


def table(rows: list[Row]) -> None:
    """One line per CLI: tokens per XS issue and per M epic, requests and dollars."""
    print(
        f"\n{'CLI':<10}{'XS tokens':>11}{'M-epic tokens':>15}{'requests XS / M':>18}"
        f"{'dollars XS / M':>22}"
    )
    for row in rows:
        xs, epic = row.xs.total, row.epic.total if row.epic is not None else None
        tokens = f"{epic.tokens:,}" if epic is not None else "-"
        requests = f"{xs.requests} / {epic.requests if epic is not None else '-'}"
        usd = f"${xs.usd(row.cli):.4f} / " + (f"${epic.usd(row.cli):.4f}" if epic else "-")
        print(f"{row.cli:<10}{xs.tokens:>11,}{tokens:>15}{requests:>18}{usd:>22}")


def main() -> None:
    source = _source(sys.argv[1:])
    try:
        bin_dir = installed()
    except Missing as missing:
        print(f"agent CLIs: {missing}; run make agent-clis")
        return
    clis = ("claude",) if QUICK else ("claude", "codex", "gemini", "opencode")
    mode: bool | None = True
    if not fast_track_exists(source):
        mode = None
        print("fast_track: not a setting of this Ralph; today's path only (no fast track)")
    print(f"Ralph: {source or 'this tree'}. Issues start in Backlog: triage comes first.")
    print("Tokens: characters / 4 over each request; caching as each API does it.")
    cases = [("XS issue", one_issue)] if QUICK else [("XS issue", one_issue), ("M epic", m_epic)]
    rows = []
    for cli in clis:
        measured: dict[str, Measured] = {}
        for case, create in cases:
            with tempfile.TemporaryDirectory() as folder:
                measured[case] = run_issue(cli, mode, Path(folder), bin_dir, create, source)
            show(cli, case, measured[case])
        rows.append(Row(cli, measured["XS issue"], measured.get("M epic")))
    table(rows)


if __name__ == "__main__":
    main()
