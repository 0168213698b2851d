"""For each hook event, whether a session running one of Ralph's skills goes ahead.

- Worktree gate: while a phase that changes code runs (``PhaseSpec.in_worktree``:
  implement, address), files are written only in the
  issue's own worktree (``worktrees/GH-N``, its attempts, its stream's, its epic's),
  judged by where the path really leads: the caller resolves symlinks and ``..``. A write
  whose file the gate cannot read from the input is refused, with the reason; so is a
  write to a worktree's ``.git`` pointer (a gitdir of an agent's making can hold
  ``core.fsmonitor``), and any worktree write while the context names no issue.
- Artifact validator: a research document, plan or critique written under
  ``thoughts/shared/`` must have the frontmatter and sections its kind needs.
- State gate: a workflow state change, through the MCP tool or ``ralph issue move`` in
  Bash, must be one the phase's command contract allows. Every ``issue move`` in the
  command line is checked, whatever runs it (``$(echo ralph)``, ``sh -c '…'``), and one
  built at run time (``eval``, ``$(…)``, backticks) is refused: its target cannot be read.
- Stop gate: the session does not stop while the skill's issue is left in the lock state
  its phase took.
"""

from __future__ import annotations

import posixpath
import re
import shlex
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ralph.artifacts import ArtifactKind, kind_of_path, missing_sections, validate_document
from ralph.errors import WorkflowError
from ralph.workflow import CommandContract, PhaseSpec, find_phase, resolve_state

__all__ = ["Decision", "pre_tool_use", "stop"]

#: Tools that write a file named by their input.
WRITE_TOOLS = ("Write", "Edit", "MultiEdit", "NotebookEdit")
#: The MCP tool that changes a workflow state, whatever server prefix Claude gives it.
STATE_TOOL = "ralph_hero__update_workflow_state"
WORKTREES = "worktrees"
#: Options of ``ralph issue move`` that take a value (skipped to find its arguments).
_VALUED_OPTIONS = ("--command", "-c", "--actor", "--store")
_SEPARATORS = ("&&", "||", ";", "|", "&", "\n")
#: A worktree's folder: ``GH-7``, ``GH-7-try-2``, ``GH-40-stream-42-44`` (an epic's
#: stream), as ``ralph.phases`` names them: numbers without a leading zero (``GH-07`` is
#: no name Ralph gives, and int("07") would match #7).
_NUMBER = r"[1-9]\d*"
_WORKTREE = re.compile(
    rf"GH-(?P<head>{_NUMBER})(?:-stream-(?P<stream>{_NUMBER}(?:-{_NUMBER})*))?(?:-try-{_NUMBER})?"
)
#: A state change written so that its target is only known when the shell runs it.
_BUILT_AT_RUN_TIME = re.compile(r"\$\(|`|(?:^|[\s;&|(])eval(?:$|\s)")
_MOVE_INTENT = re.compile(r"issue\s+move|update_workflow_state")
#: ``issue $m 5 Done``, ``issue "$(echo move)" …``: the subcommand itself only known
#: when the shell runs it.
_SUBCOMMAND_AT_RUN_TIME = re.compile(r"(?:^|[\s;&|(])issue\s+\S*[$`]")
#: How deep quoted command lines (``sh -c '…'``) are read for moves.
_NESTING = 3


@dataclass(frozen=True)
class Decision:
    """``block`` with the reason Claude is given; otherwise the call goes ahead."""

    block: bool = False
    reason: str = ""


ALLOW = Decision()


def _skill(spec: PhaseSpec) -> str:
    """The plugin's skill for the phase: skill names take hyphens, not underscores."""
    return f"ralph-{spec.command_name.replace('_', '-')}"


def pre_tool_use(
    event: Mapping[str, Any],
    phase: str,
    issue: int | None,
    *,
    root: str,
    read: Callable[[str], str | None],
    resolve: Callable[[str], str],
    epic: int | None = None,
) -> Decision:
    """``event``: Claude Code's PreToolUse input; ``phase`` and ``issue``: the hook
    context, ``epic`` the issue's parent (whose worktree its children share); ``root``:
    the project's folder; ``read``: a file's text, None if absent; ``resolve``: an
    absolute path with its symlinks and ``..`` resolved (``os.path.realpath``)."""
    spec = find_phase(phase)
    if spec is None:
        return ALLOW
    tool = str(event.get("tool_name") or "")
    given = event.get("tool_input")
    tool_input: Mapping[str, Any] = given if isinstance(given, Mapping) else {}
    cwd = str(event.get("cwd") or root)
    if tool in WRITE_TOOLS:
        if not isinstance(given, Mapping):
            return _unreadable(spec, tool, "its input is not an object")
        return _write(spec, tool, tool_input, Target(issue, epic, cwd, root, resolve), read=read)
    if tool == "Bash":
        command = str(tool_input.get("command") or "")
        if _built_at_run_time(command):
            return Decision(
                True,
                f"{_skill(spec)} is running: a state change is checked before it runs, so "
                "write it plainly: `ralph issue move N STATE`, without eval, $(…) or "
                "backticks.",
            )
        for target in _moves_in(command):
            refused = _state_change(spec, target)
            if refused.block:
                return refused
        return ALLOW
    if tool.endswith(STATE_TOOL) and isinstance(tool_input.get("state"), str):
        return _state_change(spec, tool_input["state"])
    return ALLOW


@dataclass(frozen=True)
class Target:
    """Where a write may go: the context's issue and epic, and how its paths are read."""

    issue: int | None
    epic: int | None
    cwd: str
    root: str
    resolve: Callable[[str], str]


def _write(
    spec: PhaseSpec,
    tool: str,
    tool_input: Mapping[str, Any],
    target: Target,
    *,
    read: Callable[[str], str | None],
) -> Decision:
    key = "notebook_path" if tool == "NotebookEdit" else "file_path"
    given = tool_input.get(key)
    if not isinstance(given, str) or not given.strip() or "\0" in given:
        return _unreadable(spec, tool, f"its {key} is {given!r}, not a path")
    path = posixpath.normpath(target.resolve(posixpath.join(target.cwd, given)))
    root = posixpath.normpath(target.resolve(target.root))
    if spec.in_worktree:
        refused = _outside_worktree(spec, target, given, path, root)
        if refused is not None:
            return refused
    relative = _within_checkout(path, root)
    kind = kind_of_path(relative) if relative is not None else None
    if kind is None or not path.endswith(".md"):
        return ALLOW
    text = _written_text(tool, tool_input, read(path))
    if text is None:
        return ALLOW
    problems = validate_document(kind, text) + missing_sections(kind, text)
    if not problems:
        return ALLOW
    return Decision(
        True,
        f"{_skill(spec)} is running and this {_noun(kind)} is incomplete: "
        + "; ".join(problems)
        + f". Write {relative} again with what is missing.",
    )


def _unreadable(spec: PhaseSpec, tool: str, why: str) -> Decision:
    return Decision(
        True,
        f"{_skill(spec)} is running and this {tool} cannot be checked: {why}. "
        "Give the file's path as a string.",
    )


def _outside_worktree(
    spec: PhaseSpec, target: Target, given: str, path: str, root: str
) -> Decision | None:
    """The refusal of a write that does not land in the issue's own worktree."""
    worktrees = posixpath.join(root, WORKTREES)
    inside = path != worktrees and _inside(path, worktrees)
    parts = posixpath.relpath(path, worktrees).split("/") if inside else []
    if target.issue is None:
        return Decision(
            True,
            f"{_skill(spec)} is running without an issue, so no worktree is its own; name "
            f"the issue: `ralph hook context set {spec.name} N`.",
        )
    if len(parts) > 1 and parts[1] == ".git":
        return Decision(
            True,
            f"{_skill(spec)} is running: {given} is the worktree's git pointer, which only "
            "Ralph writes. Write the issue's files instead.",
        )
    if inside and _owns(parts[0], target):
        return None
    where = f"{WORKTREES}/GH-{target.issue}/"
    lexical = posixpath.normpath(posixpath.join(target.cwd, given))
    shown = given if path == lexical else f"{given} (which leads to {path})"
    return Decision(
        True,
        f"{_skill(spec)} is running: files are written only inside the issue's "
        f"worktree ({where}), and {shown} is outside it. Write there instead; "
        "to leave the skill, run `ralph hook context clear`.",
    )


def _owns(folder: str, target: Target) -> bool:
    """Whether worktree ``folder`` is the context issue's: its own, an attempt's, its
    stream's or, for an epic's child, the epic's."""
    found = _WORKTREE.fullmatch(folder)
    if found is None:
        return False
    if found["stream"]:
        return target.issue in {int(n) for n in found["stream"].split("-")}
    return int(found["head"]) in (target.issue, target.epic)


def _noun(kind: ArtifactKind) -> str:
    return {ArtifactKind.RESEARCH: "research document", ArtifactKind.PLAN: "plan"}.get(
        kind, "critique"
    )


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def _within_checkout(path: str, root: str) -> str | None:
    """``path`` relative to the checkout it is in: the project's, or a worktree's."""
    if not _inside(path, root):
        return None
    relative = posixpath.relpath(path, root)
    parts = relative.split("/")
    if parts[0] == WORKTREES and len(parts) > 2:
        return "/".join(parts[2:])
    return relative


def _written_text(tool: str, tool_input: Mapping[str, Any], current: str | None) -> str | None:
    """The file's text once the tool ran; None when it cannot be known beforehand."""
    if tool == "Write":
        content = tool_input.get("content")
        return content if isinstance(content, str) else None
    edits: Sequence[Any] = [tool_input] if tool == "Edit" else tool_input.get("edits") or ()
    if current is None or tool not in ("Edit", "MultiEdit") or not isinstance(edits, Sequence):
        return None
    text = current
    for edit in edits:
        old, new = edit.get("old_string"), edit.get("new_string")
        if not isinstance(old, str) or not isinstance(new, str) or not old or old not in text:
            return None  # the tool refuses this edit itself
        text = text.replace(old, new) if edit.get("replace_all") else text.replace(old, new, 1)
    return text


def _state_change(spec: PhaseSpec, requested: str) -> Decision:
    try:
        resolve_state(requested, spec.command)
    except WorkflowError as exc:
        return Decision(
            True,
            f"{_skill(spec)} is running: moving an issue to {requested!r} is outside "
            f"{spec.command}'s contract. {exc}",
        )
    return ALLOW


def _built_at_run_time(command: str) -> bool:
    """Whether ``command`` changes a state through eval, a command substitution or
    backticks, or names ``issue``'s subcommand by an expansion (quotes and escapes taken
    out: ``i''ssue move`` is ``issue move``)."""
    plain = re.sub(r"[\\'\"]", "", command)
    if _SUBCOMMAND_AT_RUN_TIME.search(plain):
        return True
    return bool(_BUILT_AT_RUN_TIME.search(command) and _MOVE_INTENT.search(plain))


def _moves_in(command: str, depth: int = 0) -> list[str]:
    """The target states of every ``issue move N STATE`` in a shell command, whatever
    names the program (``ralph``, a path to it, ``python -m ralph``, a variable), and in
    the quoted command lines it passes on (``sh -c '…'``)."""
    lexer = shlex.shlex(command, posix=True, punctuation_chars=";&|")
    lexer.whitespace_split = True
    try:
        tokens = list(lexer)
    except ValueError:  # unbalanced quotes: the shell refuses it too
        return []
    targets: list[str] = []
    if depth < _NESTING:
        for token in tokens:
            if any(c.isspace() for c in token):
                targets += _moves_in(token, depth + 1)
    segment: list[str] = []
    for token in [*tokens, ";"]:
        if token not in _SEPARATORS:
            segment.append(token)
            continue
        target = _move_target(segment)
        if target is not None:
            targets.append(target)
        segment = []
    return targets


def _move_target(words: list[str]) -> str | None:
    for index in range(len(words)):
        if words[index : index + 2] != ["issue", "move"]:
            continue
        arguments, rest = [], iter(words[index + 2 :])
        for argument in rest:
            if argument in _VALUED_OPTIONS:
                next(rest, None)
            elif not argument.startswith("-"):
                arguments.append(argument)
        return arguments[1] if len(arguments) > 1 else None
    return None


def stop(event: Mapping[str, Any], phase: str, issue: int | None, state: str | None) -> Decision:
    """``state``: the skill's issue's workflow state now (None when unknown)."""
    spec = find_phase(phase)
    if event.get("stop_hook_active") or spec is None or issue is None or state is None:
        return ALLOW
    contract: CommandContract = spec.contract
    lock = contract.lock_state
    # Implementation's lock state is also where it starts: In Progress is no leftover.
    if lock is None or state != lock or lock in contract.input_states:
        return ALLOW
    return Decision(
        True,
        f"{_skill(spec)} took #{issue} into {lock.value} and it is still there, so no one "
        f"else will take it. Finish the phase (`ralph run {spec.name} {issue}`) or hand it "
        f"to a person (`ralph issue move {issue} __ESCALATE__ --command {spec.command}`), "
        "then run `ralph hook context clear`.",
    )
