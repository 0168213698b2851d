"""The phases of the pipeline, one record each: the one table every other list of phases
(task kinds, roles, task titles, registry, settings, scripted agents) is derived from or
checked against (``tests/unit/test_phase_table.py``).

A phase's code (its ``ralph.phases.Phase`` subclass, its prompt, its result schema and
its scripted agent) lives in the layers above, keyed by the name given here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ralph.workflow._commands import COMMANDS, CommandContract, normalize_command

__all__ = ["PHASE_SPECS", "TASK_SPECS", "WEB_TOOLS", "PhaseSpec", "find_phase"]

#: Read-only code tools every agent gets; roles add what they must write with.
_READ = ("Read", "Glob", "Grep")
_WRITE = (*_READ, "Write")
#: The tools of an agent that may search and read the web.
WEB_TOOLS = ("WebSearch", "WebFetch")
#: The tracker tools of a role that looks at other issues (duplicates, related work,
#: existing sub-issues): the issues and their links, not the board, runs or tasks.
_TRACKER_READS = ("get_issue", "list_issues", "list_sub_issues", "list_dependencies")
#: Prompt variables every agent's prompt is filled with, and those of a phase that runs
#: the tests.
_COMMON = ("issue", "issues", "subject", "date")
_TESTS = ("test_command", "run_tests", "tests_check", "tests_gate")
#: The model the phases' Claude Code agents run when ralph.toml names none: Sonnet, not
#: Opus as the original had it for the plan: not every Claude account may use Opus, and
#: a default must run everywhere (``model = "opus"`` in ``[agent.phases.plan]`` asks for
#: it).
_SONNET = "sonnet"


@dataclass(frozen=True, kw_only=True)
class PhaseSpec:
    """One phase of the pipeline, or the person's gate, as a task of the graph."""

    #: What people call it: ``ralph run NAME``, ``[agent.phases.NAME]``, the phase of a
    #: brief; also its prompt (``phases/prompts/NAME.md``) when an agent does its work.
    name: str
    #: The task kind in the graph (``ralph.graph.TaskKind``).
    kind: str
    #: Who claims its tasks (``ralph.graph.Role``).
    role: str
    #: Its command contract in ``COMMANDS`` (``ralph_impl``): the states it starts from,
    #: locks and may set.
    command: str
    #: Task subject and active form, ``{}`` standing for what it is about (``GH-42``).
    title: str
    doing: str
    #: Relative agent time (an implementation takes longest), for starting the longest
    #: chains of the graph first.
    effort: float
    #: False for what no agent does: the phases the runner does alone (pull request,
    #: merge) and the person's gate. An agent's phase has a prompt
    #: (``phases/prompts/NAME.md``), a result schema and a scripted agent.
    uses_agent: bool = True
    #: The agent's tool whitelist.
    tools: tuple[str, ...] = _READ
    #: Ralph's read-only tracker tools the agent is offered, by name: only where the role
    #: looks beyond its own issue, and only those it uses, as their definitions are sent
    #: with every request of the run.
    tracker_tools: tuple[str, ...] = ()
    #: Sub-agents the agent may hand searches to (Claude Code's, defined in the plugin's
    #: agents folder), so its own context holds their conclusions, not file dumps.
    helpers: tuple[str, ...] = ()
    #: Whether the person may let it search and read the web (``research_web``).
    may_use_web: bool = False
    #: The variables its prompt is filled with (``Phase.instructions``), which a
    #: project's own prompt may use too; empty for a phase without an agent.
    prompt_variables: tuple[str, ...] = ()
    #: The model its Claude Code agent runs when ralph.toml names none (``[agent]``, its
    #: role's or its own table); "" for a phase without an agent. ``model = "default"``
    #: in ralph.toml hands the choice back to Claude Code.
    default_model: str = ""
    #: Whether it changes code, which it does only in the issue's worktree (the hooks'
    #: worktree gate refuses its writes anywhere else).
    in_worktree: bool = False

    def tools_with(self, *, web: bool) -> tuple[str, ...]:
        """Its tools, with the web's when it may use the web and the person allows it."""
        return (*self.tools, *WEB_TOOLS) if web and self.may_use_web else self.tools

    #: Done by a person, not by a phase (the gate where a person approves a plan).
    by_person: bool = False
    #: Not in every pipeline: its tasks are added when asked for (a code review with
    #: ``review_code``) or when needed (addressing feedback on a pull request).
    on_demand: bool = False

    def __post_init__(self) -> None:
        if self.command not in COMMANDS:
            raise ValueError(f"phase {self.name!r} names no command contract: {self.command!r}")
        if not self.uses_agent and (self.tools or self.prompt_variables or self.default_model):
            raise ValueError(f"phase {self.name!r} has agent settings but no agent to use them")
        if self.uses_agent and not self.default_model:
            raise ValueError(f"phase {self.name!r} runs an agent but names no default model")
        if self.in_worktree and "Write" not in self.tools:
            raise ValueError(f"phase {self.name!r} works in a worktree but writes no file")

    @property
    def contract(self) -> CommandContract:
        return COMMANDS[self.command]

    @property
    def command_name(self) -> str:
        """The original's name for it, in task metadata (``impl`` for implement)."""
        return self.contract.short_name


#: Every task kind of the graph, in the graph's order.
TASK_SPECS: tuple[PhaseSpec, ...] = (
    PhaseSpec(
        name="triage",
        kind="triage",
        role="analyst",
        command="ralph_triage",
        title="Triage {}",
        doing="Triaging {}",
        effort=1.0,
        tracker_tools=_TRACKER_READS,
        prompt_variables=_COMMON,
        # The cheap model: triage only sorts.
        default_model="haiku",
    ),
    PhaseSpec(
        name="split",
        kind="split",
        role="analyst",
        command="ralph_split",
        title="Split {}",
        doing="Splitting {}",
        effort=2.0,
        tracker_tools=_TRACKER_READS,
        prompt_variables=_COMMON,
        default_model=_SONNET,
    ),
    PhaseSpec(
        name="research",
        kind="research",
        role="analyst",
        command="ralph_research",
        title="Research {}",
        doing="Researching {}",
        effort=3.0,
        tools=_WRITE,
        helpers=("codebase-locator", "codebase-analyzer", "codebase-pattern-finder"),
        may_use_web=True,
        prompt_variables=(*_COMMON, "document"),
        default_model=_SONNET,
    ),
    PhaseSpec(
        name="plan",
        kind="plan",
        role="builder",
        command="ralph_plan",
        title="Plan {}",
        doing="Planning {}",
        effort=3.0,
        tools=_WRITE,
        # A plan for a work stream also gets its stream and epic.
        prompt_variables=(
            *_COMMON,
            "document",
            *_TESTS,
            "stream_id",
            "stream_issues",
            "epic_issue",
        ),
        default_model=_SONNET,
    ),
    PhaseSpec(
        name="review",
        kind="review",
        role="validator",
        command="ralph_review",
        title="Review plan for {}",
        doing="Reviewing plan for {}",
        effort=1.5,
        tools=_WRITE,
        prompt_variables=(*_COMMON, "critique"),
        default_model=_SONNET,
    ),
    PhaseSpec(
        name="human_gate",
        kind="human_gate",
        role="human",
        command="ralph_review",
        title="Approve plan for {}",
        doing="Waiting for a person to approve the plan for {}",
        effort=0.0,
        uses_agent=False,
        tools=(),
        by_person=True,
    ),
    PhaseSpec(
        name="implement",
        kind="implement",
        role="builder",
        command="ralph_impl",
        title="Implement {}",
        doing="Implementing {}",
        effort=5.0,
        tools=(*_WRITE, "Edit", "Bash"),
        prompt_variables=(*_COMMON, *_TESTS, "branch", "base_branch", "worktree", "plan"),
        default_model=_SONNET,
        in_worktree=True,
    ),
    PhaseSpec(
        name="pr",
        kind="pr",
        role="integrator",
        command="ralph_pr",
        title="Create PR for {}",
        doing="Creating PR for {}",
        effort=0.5,
        uses_agent=False,
        tools=(),
    ),
    PhaseSpec(
        name="code_review",
        kind="code_review",
        role="validator",
        command="ralph_code_review",
        title="Review PR for {}",
        doing="Reviewing PR for {}",
        effort=1.5,
        on_demand=True,
        prompt_variables=(*_COMMON, "branch", "base_branch", "pull_request"),
        default_model=_SONNET,
    ),
    PhaseSpec(
        # The original's ralph_impl in its address mode, as a phase of its own.
        name="address",
        kind="address",
        role="builder",
        command="ralph_address",
        title="Address PR feedback for {}",
        doing="Addressing PR feedback for {}",
        effort=3.0,
        tools=(*_WRITE, "Edit", "Bash"),
        on_demand=True,
        prompt_variables=(
            *_COMMON,
            *_TESTS,
            "branch",
            "base_branch",
            "worktree",
            "pull_request",
        ),
        default_model=_SONNET,
        in_worktree=True,
    ),
    PhaseSpec(
        name="merge",
        kind="merge",
        role="integrator",
        command="ralph_merge",
        title="Merge PR for {}",
        doing="Merging PR for {}",
        effort=0.5,
        uses_agent=False,
        tools=(),
    ),
)

#: The phases Ralph runs (every task kind but the person's gate), in the table's order.
PHASE_SPECS: tuple[PhaseSpec, ...] = tuple(s for s in TASK_SPECS if not s.by_person)

#: Every name a phase goes by: its own and its command's, bare or with ``ralph_``.
_BY_ANY_NAME: Mapping[str, PhaseSpec] = {
    alias: s
    for s in PHASE_SPECS
    for alias in (s.name, normalize_command(s.name), s.command, s.command_name)
}


def find_phase(name: str) -> PhaseSpec | None:
    """The phase ``name`` names (``implement``, ``ralph_implement``, ``impl`` or
    ``ralph_impl``), or None."""
    return _BY_ANY_NAME.get(name)
