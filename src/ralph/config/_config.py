"""``ralph.toml``: where a project keeps its tracker, store and policies.

The file is found in the working directory or its parents; ``RALPH_*`` environment
variables override it, key by key. Relative SQLite paths are relative to the file, so
Ralph finds the same database from any subdirectory.
"""

from __future__ import annotations

import json
import os
import re
import textwrap
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, TypeVar

from ralph._suggest import unknown_name
from ralph.config._agent import AgentSettings, parse_agent_settings
from ralph.config._debug import DebugSettings, parse_debug_settings
from ralph.config._github import GitHubSettings
from ralph.config._hooks import HookSettings, parse_hook_settings
from ralph.config._linear import LinearSettings
from ralph.config._merge import MergeWaitSettings, parse_merge_settings
from ralph.config._notify import NotifySettings, parse_notify_settings
from ralph.config._numbers import (
    DEFAULT_MERGE_BATCH,
    MAX_AGENTS,
    MAX_FIX_ROUNDS,
    MAX_MERGE_BATCH,
    MAX_SESSIONS,
    MAX_TOKENS,
    MAX_USD,
    MAX_WIP,
    MIN_POLL_SECONDS,
    MIN_USD,
    setting_number,
)
from ralph.config._prices import ModelPrice, parse_prices
from ralph.config._services import LOCAL, SERVICES, code_hosts, service_of, trackers
from ralph.config._strings import branch_name, folder_path, no_nul
from ralph.errors import ConfigError
from ralph.graph import ReviewMode, Role
from ralph.workflow import MERGE_METHODS, PHASE_SPECS, MergePolicy, WorkflowState

__all__ = [
    "CONFIG_FILE",
    "MAX_POLL_SECONDS",
    "MAX_STUCK_HOURS",
    "Config",
    "find_config",
    "load_config",
    "render_config",
]

CONFIG_FILE = "ralph.toml"
#: Where issues can live, and pull requests (``project.BACKENDS`` opens each); the
#: services among them are the records of ``config/_services.py``.
TRACKERS = trackers()
CODE_HOSTS = code_hosts()
SANDBOX_NETWORK = ("off", "on")
#: How `ralph loop` runs each root: one process taking any task, or role-typed workers.
MODES = ("hero", "team")
#: Phases an agent does, which a per-phase cap may name.
_AGENT_PHASES = tuple(s.name for s in PHASE_SPECS if s.uses_agent and not s.by_person)
#: The longest `ralph serve` may go without reading the board: a day.
MAX_POLL_SECONDS = 86400
#: The largest ``stuck_threshold_hours``: a year.
MAX_STUCK_HOURS = 8760
#: The longest ``hygiene_interval``: a year.
MAX_HYGIENE_HOURS = 8760
_FLOAT_MAXIMUM = {
    "budget_task_usd": MAX_USD,
    "budget_run_usd": MAX_USD,
    "budget_day_usd": MAX_USD,
    "budget_stall_usd": MAX_USD,
    "stuck_threshold_hours": MAX_STUCK_HOURS,
}
#: The token and session caps: whole numbers, 0 for no cap.
_COUNT_MAXIMUM = {
    "budget_task_tokens": MAX_TOKENS,
    "budget_run_tokens": MAX_TOKENS,
    "budget_issue_tokens": MAX_TOKENS,
    "budget_day_tokens": MAX_TOKENS,
    "budget_day_sessions": MAX_SESSIONS,
}
#: What a cap reached does to an agent at work: lets it finish its turn, or stops it.
ON_CAP = ("finish", "stop")
#: The largest ``budget_stall_tokens``: a trillion tokens is no cap but a typo.
_MAX_STALL_TOKENS = 10**12
#: Patterns here are compiled (and cached) by ``re`` when a setting they check is read,
#: not at import: most projects set few of those settings.
_REPO_NAME = r"^[A-Za-z0-9._-]+$"


#: The store ralph.toml names unless ``ralph init --store`` says otherwise.
DEFAULT_STORE = "sqlite:///.ralph/ralph.db"


_Settings = TypeVar("_Settings")


@dataclass(frozen=True, kw_only=True)
class Config:
    #: The directory holding ralph.toml (the project root).
    root: Path
    tracker: str = "local"
    #: Where pull requests live ("local" or a service that holds code); empty: where
    #: the tracker is (local for one that holds no code, as Linear).
    code_host: str = ""
    #: The repository name issues are numbered under (the root folder's name by default).
    repo: str = ""
    store_url: str = DEFAULT_STORE
    base_branch: str = "main"
    review_mode: ReviewMode = ReviewMode.AUTO
    test_command: str = ""
    #: Spending caps in US dollars; 0 means no cap.
    budget_task_usd: float = 0.0
    budget_run_usd: float = 0.0
    budget_day_usd: float = 0.0
    #: Caps in tokens (every token an agent CLI reports, cached input included) and in
    #: agent sessions (one agent run is one); 0 means no cap. The issue's counts across
    #: runs.
    budget_task_tokens: int = 0
    budget_run_tokens: int = 0
    budget_issue_tokens: int = 0
    budget_day_tokens: int = 0
    budget_day_sessions: int = 0
    #: A cap reached while agents work: "finish" lets them finish their turn, "stop"
    #: stops them and hands their tasks back untried.
    budget_on_cap: str = "finish"
    #: The no-progress breaker: what an issue may spend since it last moved forward
    #: before it is held (tokens, US dollars); 0 means off.
    budget_stall_tokens: int = 0
    budget_stall_usd: float = 0.0
    stuck_threshold_hours: float = 48.0
    #: Who an escalation mentions ("@alice @acme/leads"); empty: the issue's assignees.
    escalate_to: str = ""
    wip_limits: dict[str, int] = field(default_factory=dict)
    #: How `ralph loop` runs each root ("hero" or "team").
    mode: str = "hero"
    #: `ralph loop`: roots run at once, agents at once in all, and agents per phase.
    max_concurrent_roots: int = 1
    max_concurrent_agents: int = 3
    max_concurrent_phases: dict[str, int] = field(default_factory=dict)
    #: A team's roster grows with its queues: at most this many workers in one session
    #: (0: as many as the machine suits, ``team_workers_for_machine``), and per role.
    max_team_workers: int = 0
    max_role_workers: dict[str, int] = field(default_factory=dict)
    #: `ralph serve`: seconds between two reads of the board (a root ending reads it too).
    poll_seconds: float = 30.0
    #: `ralph serve`: hours between two hygiene reports in its log (0: none).
    hygiene_interval: float = 0.0
    #: Whether the test command reaches the network from its sandbox ("off" or "on").
    sandbox_network: str = "off"
    #: Variables of the person's environment passed, by name, to agents and the test
    #: command (which get only what they need to run otherwise).
    sandbox_env: tuple[str, ...] = ()
    #: Hosts (``host:port``) agent CLIs may reach besides their model's API.
    agent_hosts: tuple[str, ...] = ()
    #: Research may search and read the web (its proxy then reaches public hosts).
    research_web: bool = False
    #: Run agents and the test command unconfined where bubblewrap cannot start.
    allow_unsandboxed: bool = False
    #: Where the project's prompt overrides are (PHASE.md), relative to ``root``.
    prompts_dir: str = ".ralph/prompts"
    #: When Ralph merges a pull request; load_config makes "approval" the default on a
    #: GitHub board.
    merge_policy: MergePolicy = MergePolicy.CHECKS
    #: "merge", "squash" or "rebase"; empty: the first the repository allows.
    merge_method: str = ""
    #: Address rounds (the builder fixing review feedback or a failed required check)
    #: before a pull request goes to a person.
    max_fix_rounds: int = 2
    #: Ready pull requests of a repository tested together and merged as one train
    #: (1: one at a time, each after its own test run).
    merge_batch: int = DEFAULT_MERGE_BATCH
    #: A validator agent reviews each pull request and posts its verdict as a review.
    review_code: bool = False
    #: The XS fast track: an XS issue with a concrete change skips research, plan and
    #: review (triage proposes it; ralph.workflow.decide_fast_track decides).
    fast_track: bool = True
    #: Shared infrastructure (folders, files or globs): a change naming one is never
    #: fast-tracked.
    shared_paths: tuple[str, ...] = ()
    agent: AgentSettings = field(default_factory=AgentSettings)
    hooks: HookSettings = field(default_factory=HookSettings)
    merge: MergeWaitSettings = field(default_factory=MergeWaitSettings)
    #: The services' tables (``config/_services.py``): these two keep a field of their
    #: own; every other service's parsed table is in ``services``, by name.
    github: GitHubSettings = field(default_factory=GitHubSettings)
    linear: LinearSettings = field(default_factory=LinearSettings)
    services: Mapping[str, Any] = field(default_factory=dict)
    debug: DebugSettings = field(default_factory=DebugSettings)
    notify: NotifySettings = field(default_factory=NotifySettings)
    #: Model -> its price, over Ralph's own table (``[prices."MODEL"]``).
    prices: dict[str, ModelPrice] = field(default_factory=dict)

    def service_settings(self, name: str) -> Any:
        """The parsed ``[NAME]`` table of service ``name`` (its defaults when absent)."""
        if name in _SERVICE_FIELDS:
            return getattr(self, name)
        return self.services.get(name) or SERVICES[name].settings()

    def settings_of(self, kind: type[_Settings]) -> _Settings:
        """The parsed table whose settings class is ``kind``: ``settings_of(JiraSettings)``."""
        settings = self.service_settings(service_of(kind).name)
        assert isinstance(settings, kind)
        return settings

    @property
    def code_host_kind(self) -> str:
        """The code host in use: ``code_host``, or the tracker's own kind (local for
        Linear, which holds no code)."""
        if self.code_host:
            return self.code_host
        return self.tracker if self.tracker in CODE_HOSTS else LOCAL

    @property
    def resolved_store_url(self) -> str:
        """The store URL with a relative SQLite path made absolute against ``root``."""
        if self.store_url.startswith("sqlite:///") and not self.store_url.startswith("sqlite:////"):
            path = self.root / self.store_url.removeprefix("sqlite:///")
            return f"sqlite:///{path}"
        return self.store_url


#: ralph.toml key -> (Config field, RALPH_* variable).
_KEYS = {
    "tracker": ("tracker", "RALPH_TRACKER"),
    "code_host": ("code_host", "RALPH_CODE_HOST"),
    "repo": ("repo", "RALPH_REPO"),
    "store": ("store_url", "RALPH_STORE_URL"),
    "base_branch": ("base_branch", "RALPH_BASE_BRANCH"),
    "review_mode": ("review_mode", "RALPH_REVIEW_MODE"),
    "test_command": ("test_command", "RALPH_TEST_COMMAND"),
    "budget_task_usd": ("budget_task_usd", "RALPH_BUDGET_TASK_USD"),
    "budget_run_usd": ("budget_run_usd", "RALPH_BUDGET_RUN_USD"),
    "budget_day_usd": ("budget_day_usd", "RALPH_BUDGET_DAY_USD"),
    **{cap: (cap, f"RALPH_{cap.upper()}") for cap in _COUNT_MAXIMUM},
    "budget_on_cap": ("budget_on_cap", "RALPH_BUDGET_ON_CAP"),
    "budget_stall_tokens": ("budget_stall_tokens", "RALPH_BUDGET_STALL_TOKENS"),
    "budget_stall_usd": ("budget_stall_usd", "RALPH_BUDGET_STALL_USD"),
    "stuck_threshold_hours": ("stuck_threshold_hours", "RALPH_STUCK_THRESHOLD_HOURS"),
    "escalate_to": ("escalate_to", "RALPH_ESCALATE_TO"),
    "wip_limits": ("wip_limits", None),
    "mode": ("mode", "RALPH_MODE"),
    "max_concurrent_roots": ("max_concurrent_roots", "RALPH_MAX_CONCURRENT_ROOTS"),
    "max_concurrent_agents": ("max_concurrent_agents", "RALPH_MAX_CONCURRENT_AGENTS"),
    "max_concurrent_phases": ("max_concurrent_phases", None),
    "max_team_workers": ("max_team_workers", "RALPH_MAX_TEAM_WORKERS"),
    "max_role_workers": ("max_role_workers", None),
    "poll_seconds": ("poll_seconds", "RALPH_POLL_SECONDS"),
    "hygiene_interval": ("hygiene_interval", "RALPH_HYGIENE_INTERVAL"),
    "sandbox_network": ("sandbox_network", "RALPH_SANDBOX_NETWORK"),
    "sandbox_env": ("sandbox_env", "RALPH_SANDBOX_ENV"),
    "agent_hosts": ("agent_hosts", "RALPH_AGENT_HOSTS"),
    "research_web": ("research_web", "RALPH_RESEARCH_WEB"),
    "allow_unsandboxed": ("allow_unsandboxed", "RALPH_ALLOW_UNSANDBOXED"),
    "prompts_dir": ("prompts_dir", "RALPH_PROMPTS_DIR"),
    "merge_policy": ("merge_policy", "RALPH_MERGE_POLICY"),
    "merge_method": ("merge_method", "RALPH_MERGE_METHOD"),
    "max_fix_rounds": ("max_fix_rounds", "RALPH_MAX_FIX_ROUNDS"),
    "merge_batch": ("merge_batch", "RALPH_MERGE_BATCH"),
    "review_code": ("review_code", "RALPH_REVIEW_CODE"),
    "fast_track": ("fast_track", "RALPH_FAST_TRACK"),
    "shared_paths": ("shared_paths", "RALPH_SHARED_PATHS"),
    "agent": ("agent", None),
    "hooks": ("hooks", None),
    "notify": ("notify", None),
    "merge": ("merge", None),
    "debug": ("debug", None),
    "prices": ("prices", None),
    **{name: (name, None) for name in SERVICES},
}
#: The services with a Config field of their own (the others' are in ``Config.services``).
_SERVICE_FIELDS = frozenset(SERVICES) & {f.name for f in fields(Config)}


def find_config(start: Path) -> Path | None:
    """The nearest ralph.toml in ``start`` or a parent directory."""
    start = start.resolve()
    for folder in (start, *start.parents):
        candidate = folder / CONFIG_FILE
        if candidate.is_file():
            return candidate
    return None


def _text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(
            f"{path} is not UTF-8 text (byte {exc.start}); save it as UTF-8"
        ) from None


def _read(path: Path, text: str) -> dict[str, Any]:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path} is not valid TOML: {exc}") from None
    except RecursionError:  # the parser recurses once per nested array or inline table
        raise ConfigError(
            f"{path}: arrays or tables are nested too deeply to read; no setting nests "
            "more than a few levels, so remove the nesting"
        ) from None
    _misplaced(data, path)
    unknown = sorted(set(data) - set(_KEYS))
    if unknown:
        raise ConfigError(
            f"{path}: {unknown_name('setting', unknown[0], list(_KEYS), 'known settings')}"
        )
    return data


#: The settings each table holds (a table not named here holds names of its own: states,
#: phases, models).
_TABLE_SETTINGS: dict[str, type] = {
    "agent": AgentSettings,
    "hooks": HookSettings,
    "merge": MergeWaitSettings,
    "debug": DebugSettings,
    "notify": NotifySettings,
    **{name: service.settings for name, service in SERVICES.items()},
}


#: The top-level keys that are tables themselves.
_TABLES = (
    *_TABLE_SETTINGS,
    "wip_limits",
    "max_concurrent_phases",
    "max_role_workers",
    "prices",
)


def _misplaced(data: dict[str, Any], path: Path, section: str = "") -> None:
    """A top-level setting inside a table: appended to the file's end (``echo 'key = 1'
    >> ralph.toml``), TOML puts it in the last table, where it would be refused as that
    table's unknown setting without a word about why."""
    for key, value in data.items():
        inside = f"{section}.{key}" if section else key
        top_level = key in _KEYS and key not in _TABLES
        if section and top_level and key not in _own_settings(section):
            raise ConfigError(
                f"{path}: {key} is a top-level setting but is inside [{section}] (TOML "
                "puts every key after a [section] line in that section); move it above the "
                "first [section]"
            )
        if isinstance(value, dict):
            _misplaced(value, path, inside)


def _own_settings(section: str) -> set[str]:
    settings = _TABLE_SETTINGS.get(section)
    return {f.name for f in fields(settings)} if settings else set()


def _convert(name: str, value: Any, source: str) -> Any:
    types = {f.name: f.type for f in fields(Config)}
    kind = types[name]
    try:
        if name == "review_mode":
            return ReviewMode(str(value))
        if name == "merge_policy":
            return MergePolicy(value if isinstance(value, str) else "")
        if name == "merge_method":
            if value not in ("", *MERGE_METHODS):
                raise ValueError
            return value
        if name == "max_fix_rounds":
            return int(setting_number(value, source, whole=True, minimum=1, maximum=MAX_FIX_ROUNDS))
        if name == "merge_batch":
            return int(
                setting_number(value, source, whole=True, minimum=1, maximum=MAX_MERGE_BATCH)
            )
        if name == "wip_limits":
            if not isinstance(value, dict):
                raise ValueError
            for state in value:
                if state not in {s.value for s in WorkflowState}:
                    raise ConfigError(
                        f"{source}: {state!r} is not a workflow state; use one of "
                        + ", ".join(s.value for s in WorkflowState)
                    )
            return {
                str(k): int(
                    setting_number(v, f"{source}.{k}", whole=True, minimum=1, maximum=MAX_WIP)
                )
                for k, v in value.items()
            }
        if name == "max_concurrent_phases":
            return _phase_caps(value, source)
        if name == "max_role_workers":
            return _role_caps(value, source)
        if name == "max_team_workers":
            return int(
                setting_number(
                    value, source, whole=True, minimum=1, or_zero=True, maximum=MAX_AGENTS
                )
            )
        if name in ("max_concurrent_roots", "max_concurrent_agents"):
            return int(setting_number(value, source, whole=True, minimum=1, maximum=MAX_AGENTS))
        if name == "hygiene_interval":
            return setting_number(value, source, maximum=MAX_HYGIENE_HOURS)
        if name == "poll_seconds":
            return setting_number(value, source, minimum=MIN_POLL_SECONDS, maximum=MAX_POLL_SECONDS)
        if name == "mode":
            if value not in MODES:
                raise ValueError
            return value
        if name == "escalate_to":
            return _handles(value, source)
        if name == "sandbox_network":
            if value not in SANDBOX_NETWORK:
                raise ValueError
            return value
        if name == "sandbox_env":
            return _names(value, source)
        if name == "agent_hosts":
            return _hosts(value, source)
        if name == "shared_paths":
            return _paths(value, source)
        if name in ("allow_unsandboxed", "review_code", "fast_track", "research_web"):
            return _flag(value)
        if name in _COUNT_MAXIMUM:
            return int(
                setting_number(
                    value, source, whole=True, minimum=1, or_zero=True, maximum=_COUNT_MAXIMUM[name]
                )
            )
        if name == "budget_on_cap":
            if value not in ON_CAP:
                raise ValueError
            return value
        if name == "budget_stall_tokens":
            return int(
                setting_number(
                    value, source, whole=True, minimum=1, or_zero=True, maximum=_MAX_STALL_TOKENS
                )
            )
        if name.startswith("budget_"):
            return setting_number(
                value, source, minimum=MIN_USD, or_zero=True, maximum=_FLOAT_MAXIMUM[name]
            )
        if kind == "float":
            return setting_number(value, source, maximum=_FLOAT_MAXIMUM[name])
        if not isinstance(value, str):
            raise ValueError
        value = no_nul(value, source)
        if name == "base_branch":
            return branch_name(value, source)
        if name == "prompts_dir":
            return folder_path(value, source)
        return value
    except (TypeError, ValueError):
        expected = {
            "review_mode": "one of " + ", ".join(m.value for m in ReviewMode),
            "wip_limits": "a table of state = limit",
            "sandbox_network": '"off" or "on"',
            "sandbox_env": 'a list of variable names, such as ["JAVA_HOME"]',
            "agent_hosts": 'a list of hosts, such as ["llm.example.com:443"]',
            "mode": '"hero" or "team"',
            "budget_on_cap": '"finish" or "stop"',
            "max_concurrent_phases": "a table of phase = limit",
            "max_role_workers": "a table of role = limit",
            "allow_unsandboxed": "true or false",
            "review_code": "true or false",
            "fast_track": "true or false",
            "shared_paths": 'a list of paths or globs, such as ["src/db/", "*.lock"]',
            "research_web": "true or false",
            "merge_policy": "one of " + ", ".join(p.value for p in MergePolicy),
            "merge_method": "one of " + ", ".join(MERGE_METHODS) + ' (or "" for the first the '
            "repository allows)",
        }.get(name, "a number >= 0" if kind == "float" else "a string")
        raise ConfigError(f"{source}: {value!r} is not valid; expected {expected}") from None


def _phase_caps(value: Any, source: str) -> dict[str, int]:
    if not isinstance(value, dict):
        raise ValueError
    for phase in value:
        if phase not in _AGENT_PHASES:
            raise ConfigError(
                f"{source}: {phase!r} is not a phase an agent does; use one of "
                + ", ".join(_AGENT_PHASES)
            )
    return {
        str(k): int(setting_number(v, f"{source}.{k}", whole=True, minimum=1, maximum=MAX_AGENTS))
        for k, v in value.items()
    }


def _role_caps(value: Any, source: str) -> dict[str, int]:
    if not isinstance(value, dict):
        raise ValueError
    for role in value:
        if role not in TEAM_ROLES:
            raise ConfigError(
                f"{source}: {role!r} is not a worker's role; use one of " + ", ".join(TEAM_ROLES)
            )
    return {
        str(k): int(setting_number(v, f"{source}.{k}", whole=True, minimum=1, maximum=MAX_AGENTS))
        for k, v in value.items()
    }


#: The roles a team's workers take (a person is the human gate's only taker).
TEAM_ROLES = tuple(role.value for role in Role if role is not Role.HUMAN)


_VARIABLE = r"^[A-Za-z_][A-Za-z0-9_]*$"


def _names(value: Any, source: str) -> tuple[str, ...]:
    """Environment variable names: a TOML list, or words from a RALPH_* variable."""
    names = value.replace(",", " ").split() if isinstance(value, str) else value
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise ValueError
    bad = [n for n in names if not re.match(_VARIABLE, n)]
    if bad:
        raise ConfigError(f"{source}: {bad[0]!r} is not an environment variable name")
    return tuple(dict.fromkeys(names))


_HOST = r"(?i)^(?:[a-z][a-z0-9+.-]*://)?(\[[0-9a-f:.]+\]|[a-z0-9_.-]+)(?::(\d{1,5}))?(?:/\S*)?$"


def _hosts(value: Any, source: str) -> tuple[str, ...]:
    """``host:port`` words (a bare host means port 443), or URLs."""
    words = value.replace(",", " ").split() if isinstance(value, str) else value
    if not isinstance(words, list) or not all(isinstance(w, str) for w in words):
        raise ValueError
    hosts = []
    for word in words:
        found = re.match(_HOST, word)
        port = int(found.group(2) or 443) if found else 0
        if found is None or not 0 < port < 65536:
            raise ConfigError(f"{source}: {word!r} is not a host; write host:port")
        hosts.append(f"{found.group(1).lower()}:{port}")
    return tuple(dict.fromkeys(hosts))


def _paths(value: Any, source: str) -> tuple[str, ...]:
    """Repository paths or globs: a TOML list, or words from a RALPH_* variable."""
    paths = value.replace(",", " ").split() if isinstance(value, str) else value
    if not isinstance(paths, list) or not all(isinstance(p, str) for p in paths):
        raise ValueError
    for path in paths:
        if not path.strip() or not path.isprintable() or path.startswith("/") or ".." in path:
            raise ConfigError(
                f"{source}: {path!r} is not a path inside the repository; write it relative "
                'to the repository, such as "src/db/"'
            )
    return tuple(dict.fromkeys(p.strip() for p in paths))


def _flag(value: Any) -> bool:
    """A TOML boolean, or ``true``/``false`` from a RALPH_* variable."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in ("true", "false"):
        return value.lower() == "true"
    raise ValueError


_HANDLE = r"^@?[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:/[A-Za-z0-9._-]+)?$"


def _handles(value: Any, source: str) -> str:
    """GitHub handles (users or ``org/team``), each written with its ``@``."""
    if not isinstance(value, str):
        raise ValueError
    handles = value.replace(",", " ").split()
    bad = [h for h in handles if not re.match(_HANDLE, h)]
    if bad:
        raise ConfigError(
            f"{source}: {bad[0]!r} is not a GitHub handle; write people as @login and teams "
            "as @org/team, separated by spaces"
        )
    return " ".join("@" + h.lstrip("@") for h in handles)


def load_config(start: Path | None = None, env: Mapping[str, str] | None = None) -> Config:
    """The configuration for the project containing ``start`` (the working directory by
    default). ConfigError, pointing at ``ralph init``, when there is no ralph.toml."""
    env = os.environ if env is None else env
    start = Path.cwd() if start is None else start
    path = find_config(start)
    if path is None:
        raise ConfigError(
            f"no {CONFIG_FILE} in {start.resolve()} or its parents; "
            "run `ralph init` in your project's git repository"
        )
    global _last_read
    text = _text(path)
    read_from = (path, text, sorted(env.items()))
    if _last_read is not None and _last_read[0] == read_from:
        return _last_read[1]
    config = _load(path, text, env)
    _last_read = (read_from, config)
    return config


#: The last configuration read and what from (the file, its text, the environment): a
#: command reads ralph.toml a second time to judge its guarded settings
#: (``project.settle_settings``), the same text with the same variables where no RALPH_*
#: is set; a Config is frozen, so the one already made is that one.
_last_read: tuple[tuple[Path, str, list[tuple[str, str]]], Config] | None = None


def _load(path: Path, text: str, env: Mapping[str, str]) -> Config:
    values: dict[str, Any] = {}
    data = _read(path, text)
    values["agent"] = parse_agent_settings(
        data.pop("agent", None), str(path), runtime_override=env.get("RALPH_AGENT") or None
    )
    values["hooks"] = parse_hook_settings(data.pop("hooks", None), str(path), env)
    values["merge"] = parse_merge_settings(data.pop("merge", None), str(path), env)
    services = {
        name: service.parse(data.pop(name, None), str(path), env)
        for name, service in SERVICES.items()
    }
    values.update((name, services.pop(name)) for name in _SERVICE_FIELDS)
    values["services"] = services
    values["debug"] = parse_debug_settings(data.pop("debug", None), str(path), env)
    values["notify"] = parse_notify_settings(data.pop("notify", None), str(path), env)
    values["prices"] = parse_prices(data.pop("prices", None), str(path))
    for key, value in data.items():
        name, _ = _KEYS[key]
        values[name] = _convert(name, value, f"{path}: {key}")
    for name, variable in _KEYS.values():
        if variable and env.get(variable):
            values[name] = _convert(name, env[variable], variable)
    host = SERVICES.get(values.get("code_host") or values.get("tracker") or "")
    if "merge_policy" not in values and host is not None and host.code_host:
        values["merge_policy"] = host.merge_policy
    config = Config(root=path.parent, **values)
    if config.tracker not in TRACKERS:
        raise ConfigError(
            f"{path}: tracker {config.tracker!r} is unknown; use one of {', '.join(TRACKERS)}"
        )
    if config.code_host_kind not in CODE_HOSTS:
        raise ConfigError(
            f"{path}: code_host {config.code_host_kind!r} is unknown; use one of "
            f"{', '.join(CODE_HOSTS)}"
        )
    if host_service := SERVICES.get(config.code_host_kind):
        host_service.code_host_needs(config.service_settings(host_service.name), str(path))
    if tracker_service := SERVICES.get(config.tracker):
        tracker_service.tracker_needs(config.service_settings(tracker_service.name), str(path))
    named = (s.repo_name(config.service_settings(s.name)) for s in SERVICES.values())
    repo = config.repo or next((r for r in named if r), "") or path.parent.name
    if not re.match(_REPO_NAME, repo):
        raise ConfigError(f"repo {repo!r} must be letters, digits, '.', '_' or '-'")
    return Config(**{**{f.name: getattr(config, f.name) for f in fields(Config)}, "repo": repo})


def render_config(
    *,
    repo: str,
    base_branch: str,
    tracker: object | None = None,
    code_host: object | None = None,
    test_command: str = "",
    store_url: str = DEFAULT_STORE,
) -> str:
    """The ralph.toml ``ralph init`` writes: every setting, documented. ``tracker``: the
    settings of the service holding the issues (a ``SERVICES`` record's class; None: the
    local tracker); ``code_host``: those of the service holding the pull requests when it
    is another (Linear issues, GitHub pull requests); by default where the tracker is, or
    this repository for a tracker that holds no code."""
    issues = service_of(type(tracker)) if tracker is not None else None
    pulls = service_of(type(code_host)) if code_host is not None else None
    if pulls is None and issues is not None and issues.code_host:
        pulls = issues
    board = ""
    if issues is not None:
        board += f"\n{issues.render(tracker, issues.title)}"
    if pulls is not None and pulls is not issues:
        board += f"\n{pulls.render(code_host, issues.title if issues else '')}"
    merge_policy = pulls.merge_policy if pulls is not None else MergePolicy.CHECKS
    tracker_kinds = _either([f'"{s.name}"' for s in SERVICES.values() if s.tracker])
    host_kinds = _either([f'"{s.name}"' for s in SERVICES.values() if s.code_host])
    tracker_kind = issues.name if issues else LOCAL
    code_host_kind = pulls.name if pulls else LOCAL
    return f"""\
# Ralph's settings for this project. RALPH_<SETTING> environment variables override
# them (RALPH_STORE_URL, RALPH_REVIEW_MODE, ...).

# Where issues live: "local" (tables in the store below), {tracker_kinds}.
tracker = "{tracker_kind}"
# Where pull requests live: "local" (branches merged in this git repository) or
# {host_kinds}; left out, where the tracker is.
code_host = "{code_host_kind}"
# The name issues are numbered under.
repo = "{repo}"
# The task store and local tracker database: sqlite:///relative/path (relative to this
# file), sqlite:////absolute/path or postgresql://user@host/db.
store = {json.dumps(store_url, ensure_ascii=False)}
# The branch pull requests merge into.
base_branch = "{base_branch}"
# How plans are approved: "auto" (a reviewer agent), "interactive" (a person) or "skip".
review_mode = "auto"
# The command that proves an implementation works (run in the worktree). Empty: Ralph
# runs no tests, and every run warns about it.
test_command = {json.dumps(test_command, ensure_ascii=False)}
# Spending caps in US dollars; 0 means no cap.
budget_task_usd = 0
budget_run_usd = 0
budget_day_usd = 0
# Caps in tokens (as each agent CLI reports them) and agent sessions, for subscriptions
# that dollars do not measure: per task, run, issue (across runs) and day; 0: no cap.
# A cap reached holds the issue (`ralph budget` shows it); "finish" lets a running agent
# finish its turn, "stop" stops it and hands its task back untried.
budget_task_tokens = 0
budget_run_tokens = 0
budget_issue_tokens = 0
budget_day_tokens = 0
budget_day_sessions = 0
budget_on_cap = "finish"
# An issue that spends more than this (tokens, US dollars) since it last moved forward is
# held until `ralph budget lift N`; 0 means off.
budget_stall_tokens = 0
budget_stall_usd = 0
# When an issue counts as stuck on the board.
stuck_threshold_hours = 48
# Agents and the test command run in a bubblewrap sandbox: they write only to their
# worktree, and the person's credentials (~/.ssh, ~/.config/gh, ...) are hidden. Whether
# the test command may reach the network: "off" or "on".
sandbox_network = "off"
# They get only what a program needs to run (PATH, HOME, the locale, the terminal) and,
# agents only, their own CLI's settings and API key. Other variables they need, by name:
sandbox_env = []
# Agent CLIs run with a network of their own whose one way out is a proxy that reaches
# only their model's API (and where a *_BASE_URL variable or their own config in your
# home points); nothing else on this machine's loopback. Other hosts, as "host:port":
agent_hosts = []
# Research may search and read the web (WebSearch, WebFetch): its proxy then reaches any
# public host, never this machine's or private addresses. Off by default, because it
# lets issue text, which anyone who can file an issue writes, steer the agent's network
# requests (and carry what it read out in a URL).
research_web = false
# `ralph loop`: how each root runs ("hero": one crew taking any task; "team": workers
# per role), how many roots run at once, and how many agents work at once in all.
mode = "hero"
max_concurrent_roots = 1
max_concurrent_agents = 3
# A team's workers per role grow while more of that role's tasks wait than it has idle
# workers, and shrink back to the roster it started with once idle. At most this many
# workers in one team session (0: eight per core, from 16 to 64), and per role in
# [max_role_workers] below.
max_team_workers = 0
# `ralph serve`: seconds between two reads of the board (a root ending reads it too),
# and hours between two hygiene reports in its log (0: none; `ralph hygiene` by hand).
poll_seconds = 30
hygiene_interval = 0
# Where bubblewrap cannot start, Ralph refuses to run agents; true runs them unconfined.
allow_unsandboxed = false
# When Ralph merges a pull request: "checks" (its required checks pass), "approval" (and
# a review approves it, no change request outstanding) or "manual" (a person merges;
# Ralph finishes the issues after). Locally the one required check is test_command run
# on the merge result.
merge_policy = "{merge_policy.value}"
# "merge", "squash" or "rebase"; empty: the first of these the repository allows.
merge_method = ""
# Rounds in which the builder addresses review feedback or a failed required check
# before the pull request goes to a person (Human Needed).
max_fix_rounds = 2
# Ready pull requests tested together on the latest base and merged in order, as a train:
# the tests run once for the batch; a failing batch is run again once (a flaky test), then
# halved until the change that breaks it is found, which goes back to its builder while the
# rest land. 1: one pull request at a time, each after its own test run.
merge_batch = {DEFAULT_MERGE_BATCH}
# A validator agent reviews each pull request and posts its verdict as a pull request
# review (approve, or request changes with inline comments).
review_code = false
# The XS fast track: triage may send an XS issue whose change names 1 to 3 files straight
# to implementation, Ralph writing its plan (no research, plan or review agents); once
# its implementation fails, it goes through the full pipeline. Never for an issue of an
# epic with 3 children or more, nor one naming a file under shared_paths (folders,
# files or globs of the project's shared infrastructure, such as ["src/db/", "*.lock"]).
fast_track = true
shared_paths = []
# The project's own prompts: PHASE.md here (relative to this file) replaces the phase's
# packaged prompt, or extends it where it writes $packaged; same $variables.
prompts_dir = ".ralph/prompts"

# Work-in-progress limits per workflow state, e.g. "In Progress" = 3.
[wip_limits]

# `ralph loop`: agents at once per phase (within max_concurrent_agents), e.g. implement = 1.
[max_concurrent_phases]

# A team's most workers per role (analyst, builder, validator, integrator), e.g.
# validator = 2; a role not named grows to 8 (integrators to 4: merges take turns).
[max_role_workers]

# The agent that does each phase's work: "claude" (Claude Code: the claude extra, which
# `make install` adds, and ANTHROPIC_API_KEY or `ralph login`), "command" (another agent
# CLI, below) or "scripted" (simulated agents for trying Ralph out). RALPH_AGENT or `--agent`
# put one agent on every phase.
[agent]
runtime = "claude"
# Or, instead of runtime, an agent CLI by name: preset = "codex" (Codex), "gemini"
# (Gemini CLI), "opencode" or "claude": its headless command line, output format and
# narrowest permissions of its own (npm install -g @openai/codex, @google/gemini-cli,
# opencode-ai; or in the project). Per phase or role too, as below.
# preset = "codex"
{_model_comment()}
model = ""
# Limits of one agent run: turns, US dollars (0: budget_task_usd), seconds, seconds
# without a message before the run counts as stalled.
max_turns = 50
max_usd = 0
timeout_seconds = 1800
stall_seconds = 300
# Agents a phase continues on, in order ("codex" or "codex:o3"), when its own agent's
# provider refuses for more than fallback_after_seconds (a nearer reset is waited out)
# or the agent cannot work here; per phase too ([agent.phases.implement]).
fallback_agents = []
fallback_after_seconds = 300
# Headless runs never ask a person: "dontAsk" denies any tool the phase's role does not
# allow; "acceptEdits" also lets edits inside the working directory through.
permission_mode = "dontAsk"
# The command runtime: a template with {{prompt_file}}, {{workdir}}, {{schema_file}},
# {{result_file}}, {{model}}, and how to read its output (plain, codex, gemini, opencode).
# command = "codex exec --json --skip-git-repo-check -C {{workdir}} -"
# format = "codex"

# Per-role (analyst, builder, validator) and per-phase overrides of agent, model and
# limits; a phase's own table wins over its role's, e.g.
# [agent.roles.analyst]
# max_turns = 30
# [agent.phases.research]
# model = "opus"
# max_usd = 2
# [agent.phases.implement]    # Codex implements; the other phases stay on Claude
# preset = "codex"
# model = "gpt-5.5"           # a model goes only to its own table's agent
# Best of N: N builders implement the same approved plan side by side, each on its own
# branch (feature/GH-N-try-K); the tests, the plan's checks, the smaller diff and the
# cost pick the winner (select = "review" adds a validator's reasoned choice). Not
# --attempts, which counts retries of one attempt. --best-of N on the command line.
# best_of = 3
# best_of_agents = ["claude", "codex"]   # attempt K runs agent K (round robin)
# select = "score"

# Shell commands run in each implementation worktree (worktrees/GH-N), sandboxed like
# the test command and killed after timeout_seconds: after_create once per worktree
# (e.g. "uv sync"; its failure fails the task), before_run and after_run around each
# agent run there, before_remove before Ralph removes it (their failures are reported).
[hooks]
after_create = ""
before_run = ""
after_run = ""
before_remove = ""
timeout_seconds = 600

# A merge whose pull request is not ready yet (checks running, a review missing) waits
# without holding a worker: it looks again after wait_seconds, twice as long each time,
# at most max_wait_seconds apart.
[merge]
wait_seconds = 15
max_wait_seconds = 300

# Ralph's debug log: every MCP tool call, GraphQL request, agent run, phase refusal and
# hook decision as a JSON line in .ralph/logs/ (secrets redacted), read by `ralph debug
# stats` and `ralph debug collate`. RALPH_DEBUG=1 turns it on for one command.
[debug]
enabled = false

# Tell a person when they are needed (an escalation, a plan to approve, a review
# requested), when a run ends and when a budget stops work: command runs through the
# shell, sandboxed like the test command (with the network; it writes only to /tmp), with
# the event as JSON on standard input and its one-line summary as "$1"
# (command = 'notify-send Ralph "$1"'); webhook gets the event POSTed as JSON with a
# "text" field (Slack-compatible). Each call has timeout_seconds; the webhook is tried
# again `retries` times. `ralph notify test` sends a sample.
[notify]
command = ""
webhook = ""
timeout_seconds = 5
retries = 3

# What a model costs, in US dollars per million tokens, where Ralph's own table lacks
# it or is out of date: agent CLIs that report no cost (Codex, Gemini CLI) are charged
# from it. A model with no price has an unknown cost, which stops work when a budget
# above is set. E.g.
# [prices."gpt-5-codex"]
# input = 1.25
# cached_input = 0.125
# cache_write = 0
# output = 10
{board}"""


def _either(names: list[str]) -> str:
    """``"a"``, ``"a" or "b"``, ``"a", "b" or "c"``."""
    return " or ".join(filter(None, [", ".join(names[:-1]), *names[-1:]]))


def _model_comment() -> str:
    table = ", ".join(f"{s.name} {s.default_model}" for s in PHASE_SPECS if s.uses_agent)
    text = (
        'Claude\'s model for every phase (an alias such as "sonnet" or "opus", or a full id); '
        '"default": the one Claude Code recommends for your account; empty: Ralph\'s '
        f'choice per phase ({table}). Per role or phase: [agent.roles.validator] model = "haiku".'
    )
    return "\n".join(textwrap.wrap(text, 86, initial_indent="# ", subsequent_indent="# "))
