"""The ``[agent]`` table of ralph.toml: which agent runs the phases, with which model
and within which limits, per phase if need be.

    [agent]
    runtime = "claude"            # claude | command | scripted (RALPH_AGENT overrides)
    # preset = "codex"            # or an agent CLI by name: claude | codex | gemini | opencode
    model = "sonnet"              # "" (default): Claude Code's choice for the account
    max_turns = 50
    timeout_seconds = 1800
    stall_seconds = 300
    fallback_agents = ["codex"]   # every phase's, in order: "agent" or "agent:model"
    fallback_after_seconds = 300  # a rate limit lifting later than this moves a phase on

    [agent.roles.validator]       # the same keys, for every phase of a role
    model = "sonnet"

    [agent.phases.research]       # any key of [agent] limits, for one phase
    model = "opus"
    max_usd = 2.0

    [agent.phases.implement]      # another agent CLI for one phase (or role)
    preset = "codex"
    best_of = 3                   # three builders implement the plan; the best one wins
    best_of_agents = ["claude", "codex"]   # attempt K runs agent K (round robin)
    select = "score"              # score (tests, checks, diff, cost) | review (+ a validator)
    fallback_agents = ["gemini"]  # this phase's own fallbacks (its list wins over [agent]'s)

A phase runs with its own table over its role's over ``[agent]``. A model is taken only
from tables whose agent is the phase's: a model ``[agent]`` names for Claude does not go
to the Codex a phase's table chose. When none of them names a model, Claude takes the
phase's default (``PhaseSpec.default_model``); other CLIs their own default. ``RALPH_AGENT`` (and
``--agent``) put one agent on every phase (and leave no fallback).

A fallback agent continues a phase whose own agent's provider refuses for longer than
``fallback_after_seconds`` (a nearer reset is waited out), or whose reset is not said a
second time in that window (the first is backed off), or that cannot work here at all
(its key, login or CLI); each fallback in turn, the phase's own first again next time.
A phase whose agent a global list names has the list's other agents.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any

from ralph._agents import AGENT_CLIS, OUTPUT_FORMATS, PLAIN
from ralph._suggest import closest, unknown_name
from ralph.config._numbers import (
    MAX_SECONDS,
    MAX_TURNS,
    MAX_USD,
    MIN_SECONDS,
    MIN_USD,
    setting_number,
)
from ralph.errors import ConfigError
from ralph.workflow import PHASE_SPECS

__all__ = [
    "PHASE_NAMES",
    "ROLE_NAMES",
    "SELECT_MODES",
    "AgentSettings",
    "BestOf",
    "PhaseSettings",
    "parse_agent_settings",
]

PERMISSION_MODES = ("dontAsk", "acceptEdits", "bypassPermissions")
#: How the winner of best-of-N attempts is chosen: the score alone, or the score's
#: survivors read by a validator agent that chooses with a written reason.
SELECT_MODES = ("score", "review")
#: Most attempts ``best_of`` may ask for.
MAX_BEST_OF = 8
#: The phases ``best_of`` makes sense for: those whose result is a branch to compare.
BEST_OF_PHASES = ("implement",)
#: The agent CLIs ``preset`` names (``ralph._agents``): Claude Code (the claude runtime)
#: and the CLIs the command runtime knows the command line, output and narrowest
#: permissions of.
_PRESETS = tuple(cli.name for cli in AGENT_CLIS)


@dataclass(frozen=True, kw_only=True)
class PhaseSettings:
    """Agent, model and limits for a phase; None falls back to ``[agent]``."""

    #: The agent CLI for the phase (one of ``ralph._agents.AGENT_CLIS``).
    preset: str | None = None
    model: str | None = None
    max_turns: int | None = None
    #: US dollars per agent run; 0 means no cap (``budget_task_usd`` applies then).
    max_usd: float | None = None
    timeout_seconds: float | None = None
    stall_seconds: float | None = None
    #: Agents (``agent`` or ``agent:model``) the phase continues on, in order, when its
    #: own is rate limited past ``fallback_after_seconds`` or cannot work here.
    fallback_agents: tuple[str, ...] | None = None


@dataclass(frozen=True, kw_only=True)
class BestOf:
    """Best of N for a phase: ``count`` attempts of the same plan side by side, each on
    its own branch, the best one kept (``[agent.phases.implement] best_of``)."""

    count: int = 1
    #: Agents for the attempts, round robin (attempt K runs ``agents[(K-1) % len]``),
    #: each ``agent`` or ``agent:model``; empty: the phase's own agent for every one.
    agents: tuple[str, ...] = ()
    select: str = "score"

    def agent_of(self, attempt: int) -> str:
        """``agent`` or ``agent:model`` for attempt ``attempt`` (1..N); "" for the phase's."""
        return self.agents[(attempt - 1) % len(self.agents)] if self.agents else ""


@dataclass(frozen=True, kw_only=True)
class AgentSettings:
    runtime: str = "claude"
    #: An agent CLI by name (``ralph._agents``); set, it is the agent instead of ``runtime``.
    preset: str = ""
    model: str = ""
    max_turns: int = 50
    max_usd: float = 0.0
    timeout_seconds: float = 1800.0
    stall_seconds: float = 300.0
    #: Claude Code's permission mode. Headless runs never ask: ``dontAsk`` denies every
    #: tool the role does not allow. ``bypassPermissions`` needs ``allow_bypass``.
    permission_mode: str = "dontAsk"
    #: Explicit opt-in to bypass modes (they also need IS_SANDBOX=1 when run as root).
    allow_bypass: bool = False
    #: The command runtime's template and output format.
    command: str = ""
    format: str = PLAIN
    phases: Mapping[str, PhaseSettings] = field(default_factory=dict)
    roles: Mapping[str, PhaseSettings] = field(default_factory=dict)
    #: Best of N per phase (only ``implement`` takes it).
    best_of: Mapping[str, BestOf] = field(default_factory=dict)
    #: Fallback agents of every phase whose own table (or role's) names none.
    fallback_agents: tuple[str, ...] = ()
    #: A rate limit lifting further ahead than this moves a phase to its fallback agent.
    fallback_after_seconds: float = 300.0

    def fallbacks_for(self, phase: str) -> tuple[str, ...]:
        """The agents ``phase`` continues on, in order: its own table's list, else its
        role's, else ``[agent]``'s, without the phase's own agent."""
        levels = self._levels(phase)
        named: tuple[str, ...] = _first(*(table.fallback_agents for _, table in levels))
        return tuple(spec for spec in named if spec.partition(":")[0] != levels[0][0])

    def best_of_for(self, phase: str) -> BestOf:
        return self.best_of.get(phase, BestOf())

    @property
    def agent(self) -> str:
        """The agent of ``[agent]``: its preset, else its runtime."""
        return self.preset or self.runtime

    def _levels(self, phase: str) -> list[tuple[str, PhaseSettings | AgentSettings]]:
        """The phase's tables, its own first, each with the agent in force there."""
        own = self.phases.get(phase, PhaseSettings())
        role = self.roles.get(_ROLE_OF_PHASE.get(phase, ""), PhaseSettings())
        role_agent = role.preset or self.agent
        return [(own.preset or role_agent, own), (role_agent, role), (self.agent, self)]

    def agent_for(self, phase: str) -> str:
        """The agent a phase runs: a preset of its own table, else its role's, else
        ``[agent]``'s."""
        return self._levels(phase)[0][0]

    def for_phase(self, phase: str, agent: str = "") -> PhaseSettings:
        """The settings a phase runs with: its own table over its role's over
        ``[agent]``; the model only from tables of the phase's agent (``agent``, when a
        run put another one on it: ``--agent``), and with none named there, Claude runs
        the phase's default model."""
        levels = self._levels(phase)
        agent = agent or levels[0][0]
        merged = {
            f.name: _first(*(getattr(table, f.name) for _, table in levels))
            for f in fields(PhaseSettings)
        }
        # A model names a model of its table's agent: Claude's "opus" means nothing to
        # Codex.
        merged["model"] = _first(*(t.model for a, t in levels if a == agent)) or ""
        if not merged["model"] and agent == "claude":
            # Other agents' CLIs name their models otherwise: theirs stay their choice.
            merged["model"] = _SPEC_OF_PHASE[phase].default_model
        return PhaseSettings(**merged)


def _first(*values: Any) -> Any:
    return next((value for value in values if value is not None), None)


_LIMITS: dict[str, type] = {
    "preset": str,
    "model": str,
    "max_turns": int,
    "max_usd": float,
    "timeout_seconds": float,
    "stall_seconds": float,
    "fallback_agents": tuple,
}
_SETTINGS: dict[str, type] = {
    "runtime": str,
    **_LIMITS,
    "permission_mode": str,
    "allow_bypass": bool,
    "command": str,
    "format": str,
    "fallback_after_seconds": float,
}


def _value(kind: type, value: Any, where: str) -> Any:
    if kind is tuple:
        return _agent_list(value, where)
    if kind is bool:
        if isinstance(value, bool):
            return value
        raise ConfigError(f"{where}: {value!r} is not valid; expected true or false")
    if kind is str:
        if isinstance(value, str):
            return value
        raise ConfigError(f"{where}: {value!r} is not valid; expected a string")
    if isinstance(value, str):  # TOML numbers only: a quoted "5" is a mistake here
        raise ConfigError(f"{where}: {value!r} is not valid; expected a number")
    if kind is int:
        return int(setting_number(value, where, whole=True, minimum=1, maximum=MAX_TURNS))
    if where.endswith("_seconds"):
        return setting_number(value, where, minimum=MIN_SECONDS, maximum=MAX_SECONDS)
    return setting_number(value, where, minimum=MIN_USD, or_zero=True, maximum=MAX_USD)


def _table(data: Any, where: str) -> Mapping[str, Any]:
    if not isinstance(data, Mapping):
        raise ConfigError(f"{where} must be a table")
    return data


def _known(table: Mapping[str, Any], known: Mapping[str, type], where: str) -> None:
    for key in table:
        if key not in known:
            raise ConfigError(
                f"{where}: {unknown_name('setting', key, list(known), 'known settings')}"
            )


#: The phases a ``[agent.phases.NAME]`` table may name.
PHASE_NAMES = tuple(s.name for s in PHASE_SPECS)
_SPEC_OF_PHASE = {s.name: s for s in PHASE_SPECS}
_ROLE_OF_PHASE = {s.name: s.role for s in PHASE_SPECS}
#: The roles a ``[agent.roles.NAME]`` table may name: those whose phases run agents.
ROLE_NAMES = tuple(dict.fromkeys(s.role for s in PHASE_SPECS if s.uses_agent))


def _limit_tables(
    data: Any,
    source: str,
    kind: str,
    names: tuple[str, ...],
    best_of: dict[str, BestOf] | None = None,
) -> dict[str, PhaseSettings]:
    """``[agent.phases.*]`` or ``[agent.roles.*]``: model and limits per name; a phase's
    best-of settings go to ``best_of`` when given."""
    parsed: dict[str, PhaseSettings] = {}
    for name, table in _table(data, f"{source}: [agent.{kind}]").items():
        where = f"{source}: [agent.{kind}.{name}]"
        if name not in names:
            close = closest(name, names)
            hint = f"did you mean {close}?" if close else f"{kind} are: {', '.join(names)}"
            raise ConfigError(f"{where}: unknown {kind[:-1]}; {hint}")
        own = dict(_table(table, where))
        if best_of is not None:
            found = _best_of_table(own, name, where)
            if found is not None:
                best_of[name] = found
        _known(own, _LIMITS, where)
        parsed[name] = PhaseSettings(
            **{k: _value(_LIMITS[k], v, f"{where} {k}") for k, v in own.items()}
        )
        _check_preset(parsed[name].preset, f"{where} preset")
    return parsed


_BEST_OF_KEYS = ("best_of", "best_of_agents", "select")


def _best_of_table(own: dict[str, Any], name: str, where: str) -> BestOf | None:
    """Pops ``best_of``, ``best_of_agents`` and ``select`` from a phase's table."""
    found = {key: own.pop(key) for key in _BEST_OF_KEYS if key in own}
    if not found:
        return None
    if name not in BEST_OF_PHASES:
        raise ConfigError(
            f"{where}: {', '.join(found)} only apply to {', '.join(BEST_OF_PHASES)}; "
            "move them to [agent.phases.implement]"
        )
    count = found.get("best_of", 1)
    if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= MAX_BEST_OF:
        raise ConfigError(
            f"{where} best_of: {count!r} is not valid; expected a whole number from 1 to "
            f"{MAX_BEST_OF}"
        )
    agents = found.get("best_of_agents", [])
    if not isinstance(agents, list) or not all(isinstance(a, str) and a for a in agents):
        raise ConfigError(
            f"{where} best_of_agents: {agents!r} is not valid; expected a list of agent names "
            f'such as ["claude", "codex:o3"]'
        )
    for agent in agents:
        _check_preset(agent.partition(":")[0], f"{where} best_of_agents")
    select = found.get("select", "score")
    if select not in SELECT_MODES:
        raise ConfigError(
            f"{where} select: {select!r} is not valid; use one of {', '.join(SELECT_MODES)}"
        )
    return BestOf(count=count, agents=tuple(agents), select=select)


def _agent_list(value: Any, where: str) -> tuple[str, ...]:
    """A list of ``agent`` or ``agent:model``, each agent a known one and named once."""
    if not isinstance(value, list) or not all(isinstance(a, str) and a for a in value):
        raise ConfigError(
            f"{where}: {value!r} is not valid; expected a list of agent names "
            'such as ["codex", "gemini:gemini-2.5-pro"]'
        )
    seen: set[str] = set()
    for spec in value:
        agent = spec.partition(":")[0]
        _check_preset(agent, where)
        if agent in seen:
            raise ConfigError(f"{where}: {agent} is named twice; keep one")
        seen.add(agent)
    return tuple(value)


def _check_fallbacks(settings: AgentSettings, source: str) -> None:
    """No table's fallback list names the agent the table runs."""
    tables: list[tuple[str, str, PhaseSettings | AgentSettings]] = [
        (f"{source}: agent.fallback_agents", settings.agent, settings)
    ]
    for role, own in settings.roles.items():
        agent = own.preset or settings.agent
        tables.append((f"{source}: [agent.roles.{role}] fallback_agents", agent, own))
    for phase, own in settings.phases.items():
        agent = settings.agent_for(phase)
        tables.append((f"{source}: [agent.phases.{phase}] fallback_agents", agent, own))
    for where, agent, table in tables:
        if agent in (spec.partition(":")[0] for spec in table.fallback_agents or ()):
            raise ConfigError(f"{where}: {agent} runs the phases already; name another agent")


def _check_preset(preset: str | None, where: str) -> None:
    if preset is not None and preset not in _PRESETS:
        raise ConfigError(
            f"{where}: {unknown_name('agent', preset, list(_PRESETS), 'known agents')}"
        )


def parse_agent_settings(
    data: Any, source: str, *, runtime_override: str | None = None
) -> AgentSettings:
    """``[agent]`` from ralph.toml (``data`` may be absent: the defaults)."""
    table = dict(_table(data if data is not None else {}, f"{source}: [agent]"))
    best_of: dict[str, BestOf] = {}
    phases = _limit_tables(table.pop("phases", {}), source, "phases", PHASE_NAMES, best_of)
    roles = _limit_tables(table.pop("roles", {}), source, "roles", ROLE_NAMES)
    _known(table, _SETTINGS, f"{source}: [agent]")
    values = {k: _value(_SETTINGS[k], v, f"{source}: agent.{k}") for k, v in table.items()}
    if values.get("preset") and "runtime" in values:
        raise ConfigError(
            f"{source}: agent.runtime and agent.preset both name the agent; keep one "
            f'(preset = "{values["preset"]}" needs no runtime)'
        )
    settings = AgentSettings(**values, phases=phases, roles=roles, best_of=best_of)
    _check_preset(settings.preset or None, f"{source}: agent.preset")
    _check_fallbacks(settings, source)
    if runtime_override:
        # One agent for every phase: the per-phase choices give way.
        settings = replace(
            settings,
            runtime=runtime_override,
            preset="",
            phases={n: replace(p, preset=None) for n, p in settings.phases.items()},
            roles={n: replace(p, preset=None) for n, p in settings.roles.items()},
            best_of={n: replace(b, agents=()) for n, b in settings.best_of.items()},
            fallback_agents=(),
        )
        settings = replace(
            settings,
            phases={n: replace(p, fallback_agents=None) for n, p in settings.phases.items()},
            roles={n: replace(p, fallback_agents=None) for n, p in settings.roles.items()},
        )
    if settings.permission_mode not in PERMISSION_MODES:
        raise ConfigError(
            f"{source}: agent.permission_mode {settings.permission_mode!r} is not valid; "
            f"use one of {', '.join(PERMISSION_MODES)}"
        )
    if settings.permission_mode == "bypassPermissions" and not settings.allow_bypass:
        raise ConfigError(
            f'{source}: agent.permission_mode = "bypassPermissions" lets the agent run any '
            "tool; set agent.allow_bypass = true to opt in"
        )
    if settings.format not in OUTPUT_FORMATS:
        raise ConfigError(
            f"{source}: agent.format {settings.format!r} is not valid; "
            f"use one of {', '.join(OUTPUT_FORMATS)}"
        )
    return settings
