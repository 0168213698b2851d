"""The scripted analyst: triage and split decisions from markers in the issue body, and a
research document built from the repository's files."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ralph.artifacts import diff_blocks
from ralph.runtimes._model import AgentBrief
from ralph.runtimes.scripted._limits import beyond_simulator, edit_command
from ralph.runtimes.scripted._outline import listed_changes, outline
from ralph.runtimes.scripted._text import keywords, marker, markers, repository_files

__all__ = ["research", "split", "triage"]

_ACTIONS = ("RESEARCH", "PLAN", "CLOSE", "SPLIT", "KEEP", "ESCALATE")
_ESTIMATES = ("XS", "S", "M", "L", "XL")
#: Titles made from a listed item are cut to this many characters; items up to
#: ``_XS_LENGTH`` characters are estimated XS, longer ones S.
_TITLE_LENGTH = 80
_XS_LENGTH = 60
#: A backticked path in an issue's words: a file name with an extension, maybe in folders.
_NAMED_PATH = re.compile(r"`((?:[\w.-]+/)*[\w-]+\.\w+)`")
_DIFF_PATH = re.compile(r"^(?:\+\+\+ b|--- a)/(\S+)", re.MULTILINE)
_FAST_TRACK_FILES = 3
#: An unestimated issue listing this many items is several changes: estimated M (split).
_SPLIT_ITEMS = 3
_SPLIT_ITEM = re.compile(r"^###\s+(XS|S)\s*:\s*(.+?)\s*(?:\(after ([\d,\s]+)\))?\s*$", re.I)


def _estimate(body: str, current: str | None) -> str:
    given = (marker(body, "Estimate") or "").upper()
    if given in _ESTIMATES:
        return given
    if current:
        return current
    if "## Split" in body or len(listed_changes(body)) >= _SPLIT_ITEMS:
        return "M"
    return "S" if len(body) > 400 else "XS"


def named_files(body: str) -> list[str]:
    """The files an issue names concretely: its ```diff blocks', else its backticked
    paths (``greet/core.py``)."""
    found = [p for diff in diff_blocks(body) for p in _DIFF_PATH.findall(diff)]
    if not found:
        found = _NAMED_PATH.findall(body.split("```")[0] if "```" in body else body)
    return list(dict.fromkeys(found))


def _fast_track(body: str, estimate: str) -> dict[str, Any]:
    """The fast track proposed for an XS issue naming 1 to 3 files (``Fast track: no``
    in the body keeps it from proposing)."""
    if (marker(body, "Fast track") or "").lower() in ("no", "false", "off"):
        return {}
    files = named_files(body)
    if estimate != "XS" or not 1 <= len(files) <= _FAST_TRACK_FILES:
        return {}
    return {
        "fast_track": True,
        "fast_track_reason": f"XS, and the issue names its change: {', '.join(files)}.",
        "files": files,
    }


def triage(brief: AgentBrief) -> dict[str, Any]:
    """``Triage: split|research|plan|keep|close done|close duplicate of #N|escalate why``;
    ``Related: #N before|after``; ``Estimate: S``. Without a marker: split what is M or
    bigger, research the rest, and propose the fast track for an XS issue that names
    one to three files (``Fast track: no`` does not)."""
    issue = brief.primary
    estimate = _estimate(issue.body, issue.estimate)
    decided = marker(issue.body, "Triage") or ""
    word, _, rest = decided.partition(" ")
    action = word.upper()
    if action not in _ACTIONS:
        action = "SPLIT" if estimate in ("M", "L", "XL") else "RESEARCH"
    result: dict[str, Any] = {"action": action, "estimate": estimate}
    reasons = {
        "SPLIT": f"Estimated {estimate}: too large for one implementation; split into XS/S.",
        "RESEARCH": "Valid and specific enough; needs codebase investigation before planning.",
        "PLAN": "Small and unambiguous; ready for a plan.",
        "KEEP": "Valid as it is; nothing to change yet.",
    }
    result["reason"] = reasons.get(action, rest.strip() or "Decided by the issue's marker.")
    if action == "CLOSE":
        duplicate = re.search(r"duplicate of #(\d+)", rest, re.I)
        if duplicate:
            result |= {"close_reason": "duplicate", "duplicate_of": int(duplicate.group(1))}
            result["reason"] = f"Duplicate of #{duplicate.group(1)}."
        else:
            result["close_reason"] = "obsolete" if "obsolete" in rest.lower() else "done"
            result["reason"] = f"Closed as {result['close_reason']}: {rest.strip() or 'per marker'}"
    if action == "ESCALATE":
        result["escalate"] = rest.strip() or "The scripted triage was told to ask a person."
    related = []
    for line in markers(issue.body, "Related"):
        match = re.match(r"#(\d+)\s+(before|after)", line, re.I)
        if match:
            related.append({"number": int(match.group(1)), "order": match.group(2).lower()})
    if related:
        result["related"] = related
    if action in ("RESEARCH", "PLAN"):
        result |= _fast_track(issue.body, estimate)
        if result.get("fast_track") and not decided:
            result["reason"] = "Valid and specific: it names the files it changes."
    return result


def _sub_issue_body(parent: int, summary: str, change: str | None) -> str:
    sections = [
        f"## Summary\n\n{summary or 'Part of the parent issue.'}",
        f"## Scope\n\n{summary.splitlines()[0] if summary else 'As summarised.'}",
        "## Acceptance Criteria\n\n- [ ] The change is made as described\n"
        "- [ ] The project's tests pass",
        f"## References\n\nParent: #{parent}",
        "## Out of Scope\n\nEverything else in the parent issue.",
    ]
    if change:
        sections.insert(3, f"## Proposed Change\n\n```diff\n{change}```")
    return "\n\n".join(sections) + "\n"


def split(brief: AgentBrief) -> dict[str, Any]:
    """Sub-issues from the body's ``## Split`` section: one ``### XS: Title (after 1)``
    heading per sub-issue, its text (and any ```diff block) below it. Without the
    section, one sub-issue per item the issue lists (``_outline``), each after the one
    before it."""
    issue = brief.primary
    section = issue.body.partition("## Split")[2]
    if not section:
        return _split_on_items(issue.number, issue.body, issue.children)
    section = re.split(r"^## ", section, flags=re.MULTILINE)[0]
    existing = {title.casefold(): number for number, title in issue.children}
    items: list[dict[str, Any]] = []
    current: dict[str, Any] | None = None
    lines: list[str] = []
    for line in [*section.splitlines(), "### end"]:
        heading = _SPLIT_ITEM.match(line)
        if heading or line.startswith("### "):
            if current is not None:
                text = "\n".join(lines).strip()
                diffs = diff_blocks(text)
                summary = re.sub(r"```diff.*?```", "", text, flags=re.S).strip()
                current["body"] = _sub_issue_body(
                    issue.number, summary, diffs[0] if diffs else None
                )
                items.append(current)
            current, lines = None, []
            if heading:
                title = heading.group(2)
                after = [int(n) for n in re.findall(r"\d+", heading.group(3) or "")]
                current = {"title": title, "estimate": heading.group(1).upper(), "after": after}
                if title.casefold() in existing:
                    current["reuse"] = existing[title.casefold()]
        else:
            lines.append(line)
    if not items:
        return {
            "escalate": beyond_simulator(
                "The '## Split' section names no '### XS: Title' sub-issues",
                "splits on '### XS: Title' headings under '## Split'",
                f"add them with {edit_command(issue.number)}",
            )
        }
    return {"sub_issues": items, "summary": f"Split #{issue.number} into {len(items)} issues."}


def _item_title(item: str) -> str:
    """A title for a listed item: its words, cut at a word before ``_TITLE_LENGTH``."""
    words = " ".join(item.split())
    if len(words) <= _TITLE_LENGTH:
        return words
    return words[:_TITLE_LENGTH].rsplit(" ", 1)[0].rstrip(",;:") + "…"


def _split_on_items(
    number: int, body: str, children: tuple[tuple[int, str], ...]
) -> dict[str, Any]:
    items = outline(body)
    if len(items) < 2:  # one item is the issue itself again: nothing to split on
        return {
            "escalate": beyond_simulator(
                "Nothing to split on: the issue has no '## Split' section and lists "
                "fewer than two items",
                "splits on a '## Split' section, a task list of '- [ ]' items, the "
                "acceptance criteria or a bullet list",
                f"add one with {edit_command(number)}",
            )
        }
    existing = {title.casefold(): child for child, title in children}
    subs: list[dict[str, Any]] = []
    for index, item in enumerate(items, start=1):
        title = _item_title(item)
        sub: dict[str, Any] = {
            "title": title,
            "estimate": "XS" if len(item) <= _XS_LENGTH else "S",
            "after": [index - 1] if index > 1 else [],
            "body": _sub_issue_body(number, f"{item}\n\nItem {index} of #{number}'s list.", None),
        }
        if title.casefold() in existing:
            sub["reuse"] = existing[title.casefold()]
        subs.append(sub)
    return {
        "sub_issues": subs,
        "summary": f"Split #{number} into {len(subs)} issues, one per item it lists, in order.",
    }


def research(brief: AgentBrief) -> dict[str, Any]:
    """A research document listing the files the issue's diff touches and the files whose
    names match its keywords."""
    issue = brief.primary
    workdir = Path(brief.workdir)
    files = repository_files(workdir)
    named = []
    for diff in diff_blocks(issue.body):
        named += re.findall(r"^\+\+\+ b/(\S+)", diff, re.MULTILINE)
    words = keywords(issue.title)
    matching = [
        path for path in files if any(word in path.lower() for word in words) and path not in named
    ]
    modify = list(dict.fromkeys([*named, *matching]))[:8]
    folders = {str(Path(path).parent) for path in modify}
    read = [p for p in files if p not in modify and str(Path(p).parent) in folders][:5]
    document = brief.outputs["document"]
    day = brief.facts.get("date", "")

    def listed(paths: list[str], why: str) -> str:
        return "\n".join(f"- `{path}` - {why}" for path in paths) or "- None"

    text = f"""---
date: {day}
github_issue: {issue.number}
github_url: {issue.url}
status: complete
type: research
---

# Research: GH-{issue.number} {issue.title}

> Written by a simulated agent (Ralph's scripted runtime), not by a model.

## Problem Statement

{issue.body.split("```")[0].strip() or issue.title}

## Current State

The repository has {len(files)} tracked files; {len(modify)} relate to this issue.

## Key Discoveries

{chr(10).join(f"- `{path}`" for path in modify) or "- Nothing in the repository matches yet."}

## Recommended Approach

{"Apply the change described in the issue." if named else "Make the change in the files listed."}

## Risks

- The project's tests must keep passing.

## Files Affected

### Will Modify
{listed(modify, "named by the issue")}

### Will Read (Dependencies)
{listed(read, "neighbouring code")}
"""
    (workdir / document).parent.mkdir(parents=True, exist_ok=True)
    (workdir / document).write_text(text)
    return {
        "document": document,
        "summary": f"{len(modify)} file(s) to modify: {', '.join(modify) or 'none found'}.",
    }
