"""A builder that does exactly what the implement prompt says, nothing more: for each
unticked phase it applies the phase's diff, runs the verification command the
instructions name, ticks the phase's boxes, stages the files the phase names plus any
file the instructions' staging sentence names, and commits. Run by the command runtime:
``literal_builder.py PROMPT_FILE RESULT_FILE`` in the worktree."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from ralph.artifacts import diff_blocks, plan_steps, tick_step

IDENTITY = {
    "GIT_AUTHOR_NAME": "Literal agent",
    "GIT_AUTHOR_EMAIL": "literal@localhost",
    "GIT_COMMITTER_NAME": "Literal agent",
    "GIT_COMMITTER_EMAIL": "literal@localhost",
}


def git(*args: str, stdin: str | None = None) -> str:
    env = {**__import__("os").environ, **IDENTITY}
    done = subprocess.run(
        ["git", *args], input=stdin, capture_output=True, text=True, check=True, env=env
    )
    return done.stdout


def main() -> None:
    prompt = Path(sys.argv[1]).read_text()
    instructions = " ".join(prompt.split("## Where you work")[0].split())
    plan = re.search(r"Linked plan document `([^`]+)`", prompt)
    assert plan is not None, "the brief attaches the plan"
    plan_file = Path(plan.group(1))
    verification = re.search(r"(?:tests|verification) \(`([^`]+)`\)", instructions)
    staging = [s for s in re.split(r"(?<=\.) ", instructions) if re.search(r"\bstage\b", s, re.I)]
    named_for_staging = [
        p for s in staging for p in re.findall(r"`([^`]+)`", s) if Path(p).is_file()
    ]
    text = plan_file.read_text()
    phases = plan_steps(text)
    for phase in phases:
        if phase.done:
            continue
        for diff in diff_blocks(phase.body):
            git("apply", stdin=diff)
        if verification:
            subprocess.run(verification.group(1), shell=True, check=True, capture_output=True)
        text = tick_step(text, phase.number)
        plan_file.write_text(text)
        files = re.findall(r"\*\*File\*\*: `([^`]+)`", phase.body)
        git("add", "--", *files, *named_for_staging)
        git("commit", "-q", "-m", f"feat: {phase.title}\n\nPhase {phase.number} of {len(phases)}")
    done = sum(1 for p in plan_steps(plan_file.read_text()) if p.done)
    Path(sys.argv[2]).write_text(json.dumps({"phases_done": done, "phases_total": len(phases)}))


if __name__ == "__main__":
    main()
