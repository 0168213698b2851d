"""Ralph's control files and guarded settings, named once. Pure: no I/O.

A control file is one that decides what Ralph (or an agent CLI it starts) runs, with
which rights: ralph.toml, ``.ralph/``, the prompt overrides, the routing file, the agent
CLIs' project settings, the CI workflows ``ralph init --actions`` writes. An agent's
change to one is never merged without a person. A guarded setting is one of ralph.toml
that runs something on the host, widens what agents get or bounds what they spend: it
is taken from what a person committed, never from a merge Ralph made without one."""

from __future__ import annotations

import fnmatch
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

__all__ = [
    "CONTROL_FILES",
    "GUARDED_SETTINGS",
    "ControlChange",
    "SettingsVerdict",
    "control_changes",
    "control_reason",
    "hold_reason",
    "judge_settings",
]

_SETTINGS = "Ralph's own settings"
_AGENT_RUNS = "an agent CLI loads it and runs what it names"

#: (path or glob, relative to the repository; a trailing "/" is a folder) -> why it is one.
CONTROL_FILES: tuple[tuple[str, str], ...] = (
    ("ralph.toml", _SETTINGS),
    (".ralph/", "Ralph's store, prompts and drafts"),
    (".ralph-routing.yml", "the board's routing rules"),
    (".claude/", f"Claude Code's project settings and hooks: {_AGENT_RUNS}"),
    (".codex/", f"Codex's project settings: {_AGENT_RUNS}"),
    (".gemini/", f"Gemini CLI's project settings: {_AGENT_RUNS}"),
    ("opencode.json", f"opencode's project settings: {_AGENT_RUNS}"),
    ("opencode.jsonc", f"opencode's project settings: {_AGENT_RUNS}"),
    (".opencode/", f"opencode's project settings: {_AGENT_RUNS}"),
    (".mcp.json", f"the MCP servers agent CLIs start: {_AGENT_RUNS}"),
    # Any workflow, not only Ralph's: once on the base branch it runs with the
    # repository's secrets, and so do the actions it uses.
    (".github/workflows/", "a CI workflow: it runs with the repository's secrets"),
    (".github/actions/", "a CI action: the workflows run it with the repository's secrets"),
)

#: ralph.toml's settings that run something on the host, widen what agents get or bound
#: what they spend (a cap of 0 is none; a price too low lets a dollar cap pass; a
#: fallback agent is another provider's spending; an agent run's ``max_usd`` wins over
#: ``budget_task_usd``), by their name in the file (a table's key as ``table.key``;
#: ``prices`` is the whole table, ``agent.KEY`` every role's and phase's too).
GUARDED_SETTINGS: tuple[str, ...] = (
    "test_command",
    "sandbox_env",
    "sandbox_network",
    "agent_hosts",
    "allow_unsandboxed",
    "prompts_dir",
    "notify.command",
    "hooks.after_create",
    "hooks.before_run",
    "hooks.after_run",
    "hooks.before_remove",
    "budget_task_usd",
    "budget_run_usd",
    "budget_day_usd",
    "budget_stall_usd",
    "budget_task_tokens",
    "budget_run_tokens",
    "budget_issue_tokens",
    "budget_day_tokens",
    "budget_day_sessions",
    "budget_stall_tokens",
    "prices",
    "agent.fallback_agents",
    "agent.max_usd",
)


def _matches(path: str, pattern: str) -> bool:
    if pattern.endswith("/"):
        return path == pattern[:-1] or path.startswith(pattern)
    return fnmatch.fnmatchcase(path, pattern)


def control_reason(path: str, prompts_dir: str = "") -> str | None:
    """Why ``path`` (relative to the repository, with "/") is a control file; None when
    it is none. ``prompts_dir`` is ralph.toml's folder of prompt overrides."""
    path = path.strip().removeprefix("./")
    for pattern, why in CONTROL_FILES:
        if _matches(path, pattern):
            return why
    folder = prompts_dir.strip().strip("/").removeprefix("./")
    if folder and folder != "." and _matches(path, folder + "/"):
        return "the prompt overrides: what Ralph tells every agent"
    return None


@dataclass(frozen=True)
class ControlChange:
    path: str
    why: str


def control_changes(paths: Iterable[str], prompts_dir: str = "") -> list[ControlChange]:
    """The control files among ``paths`` (a branch's changed files), each once, sorted."""
    found = {}
    for path in paths:
        why = control_reason(path, prompts_dir)
        if why is not None:
            found[path] = ControlChange(path, why)
    return [found[p] for p in sorted(found)]


def hold_reason(changes: Iterable[ControlChange], *, what: str, way_through: str) -> str:
    """The escalation's one line: ``what`` ("feature/GH-7", "pull request #8") changes
    these control files, why an agent may not, and how a person lets it through."""
    named = "; ".join(f"{c.path}, {c.why}" for c in changes)
    return (
        f"{what} changes {named}: an agent may not change what Ralph runs; a person "
        f"reviews the change and {way_through}"
    )


@dataclass(frozen=True)
class SettingsVerdict:
    """What is in force after comparing ralph.toml's guarded settings with the accepted
    ones: ``in_force`` (setting -> value), ``to_record`` (the new accepted ones, None:
    nothing to record) and a line per change for the person."""

    in_force: dict[str, object]
    to_record: dict[str, object] | None
    lines: tuple[str, ...]


def _shown(value: object) -> str:
    return json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else value


def judge_settings(
    accepted: Mapping[str, object] | None,
    loaded: Mapping[str, object],
    *,
    from_ralph_merge: bool,
) -> SettingsVerdict:
    """``loaded``: the guarded settings as ralph.toml has them now (no ``RALPH_*``
    variable: those are the person's, laid on top by the caller); ``accepted``: as
    recorded (None: never recorded, so what is loaded is taken); ``from_ralph_merge``:
    ralph.toml as read is what a merge Ralph made without a person left there. A refused
    change keeps the accepted value in force; a setting never recorded counts as
    changed (refused from a Ralph merge, taken without a word otherwise)."""
    if accepted is None:
        return SettingsVerdict(dict(loaded), dict(loaded), ())
    in_force = dict(loaded)
    record = dict(accepted)
    lines = []
    for name in GUARDED_SETTINGS:
        if name not in loaded or (name in accepted and loaded[name] == accepted[name]):
            continue
        was = _shown(accepted[name]) if name in accepted else "not recorded"
        now = _shown(loaded[name])
        change = f"ralph.toml's {name} changed since the last run: `{was}` → `{now}`"
        if from_ralph_merge:
            in_force[name] = accepted.get(name)
            # One never recorded has no accepted value: its narrowest is in force.
            kept = f"`{was}` stays" if name in accepted else "its narrowest value is"
            lines.append(
                f"{change}, by a merge Ralph made without a person: refused, {kept} in "
                "force; commit the change yourself to accept it"
            )
        else:
            record[name] = loaded[name]
            if name in accepted:  # one never recorded (a Ralph guarding more) is taken quietly
                lines.append(f"{change} (a person's change: accepted)")
    return SettingsVerdict(in_force, record if record != dict(accepted) else None, tuple(lines))
