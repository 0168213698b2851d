"""ralph.toml's guarded settings (``ralph.workflow.GUARDED_SETTINGS``) as the JSON values
the store keeps, and back: a Config with given values in force."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from ralph.config import (
    HOOK_NAMES,
    MIN_USD,
    AgentSettings,
    Config,
    HookSettings,
    ModelPrice,
    NotifySettings,
    PhaseSettings,
)
from ralph.workflow import GUARDED_SETTINGS

__all__ = ["guarded_values", "with_values"]

#: The spending caps the workflow guards, in US dollars and in whole tokens or sessions;
#: 0 is no cap.
_CAPS = tuple(name for name in GUARDED_SETTINGS if name.startswith("budget_"))
_USD_CAPS = tuple(name for name in _CAPS if name.endswith("_usd"))
_COUNT_CAPS = tuple(name for name in _CAPS if not name.endswith("_usd"))
#: [agent]'s guarded keys that a role's or a phase's table may set too, each with its
#: narrowest value: no fallback agent, no run cap of its own (budget_task_usd applies).
_PER_TABLE: dict[str, Any] = {"fallback_agents": (), "max_usd": 0.0}
#: The tables under [agent] that may set those keys, by their field in AgentSettings.
_AGENT_TABLES = ("roles", "phases")


def guarded_values(config: Config) -> dict[str, Any]:
    """The guarded settings of ``config`` as JSON values."""
    return {
        "test_command": config.test_command,
        "sandbox_env": list(config.sandbox_env),
        "sandbox_network": config.sandbox_network,
        "agent_hosts": list(config.agent_hosts),
        "allow_unsandboxed": config.allow_unsandboxed,
        "prompts_dir": config.prompts_dir,
        "notify.command": config.notify.command,
        **{name: config.hooks.command(name.removeprefix("hooks.")) for name in _hook_names()},
        **{name: getattr(config, name) for name in (*_USD_CAPS, *_COUNT_CAPS)},
        "prices": {
            model: dataclasses.asdict(price) for model, price in sorted(config.prices.items())
        },
        **{f"agent.{key}": _per_table(config.agent, key) for key in _PER_TABLE},
    }


def _hook_names() -> list[str]:
    return [f"hooks.{hook}" for hook in HOOK_NAMES]


def _per_table(agent: AgentSettings, key: str) -> dict[str, Any]:
    """``key`` of every [agent] table that sets it, by the table's name in the file:
    ``agent``, ``agent.roles.ROLE``, ``agent.phases.PHASE`` (a role or phase setting
    none is left out: it takes the table above's)."""
    values = {"agent": _json(getattr(agent, key))}
    for kind in _AGENT_TABLES:
        tables: Mapping[str, PhaseSettings] = getattr(agent, kind)
        for name, table in sorted(tables.items()):
            if getattr(table, key) is not None:
                values[f"agent.{kind}.{name}"] = _json(getattr(table, key))
    return values


def _json(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value


def _with_per_table(
    agent: AgentSettings, key: str, values: Mapping[str, Any], default: Any
) -> AgentSettings:
    """``agent`` with ``values`` (as ``_per_table`` makes them) its ``key``; [agent]'s
    own ``default`` where ``values`` has none."""

    def native(value: Any) -> Any:
        return tuple(value) if isinstance(value, list) else value

    changes: dict[str, Any] = {key: native(values.get("agent", default))}
    for kind in _AGENT_TABLES:
        prefix = f"agent.{kind}."
        named = {k.removeprefix(prefix): v for k, v in values.items() if k.startswith(prefix)}
        tables = dict(getattr(agent, kind))
        for name in tables.keys() | named.keys():
            own = native(named.get(name))
            tables[name] = dataclasses.replace(tables.get(name, PhaseSettings()), **{key: own})
        changes[kind] = tables
    return dataclasses.replace(agent, **changes)


def with_values(config: Config, values: Mapping[str, Any]) -> Config:
    """``config`` with ``values`` in force; a value never accepted (None) is the narrowest:
    no command, nothing passed, no network, nothing unsandboxed, the smallest cap, Ralph's
    own prices, no fallback agent, no agent run cap but the task's."""
    commands = {n.removeprefix("hooks."): str(values[n] or "") for n in _hook_names()}
    hooks: HookSettings = dataclasses.replace(config.hooks, **commands)  # type: ignore[arg-type]
    notify: NotifySettings = dataclasses.replace(
        config.notify, command=str(values["notify.command"] or "")
    )
    caps: dict[str, Any] = {
        **{name: MIN_USD if values[name] is None else float(values[name]) for name in _USD_CAPS},
        **{name: 1 if values[name] is None else int(values[name]) for name in _COUNT_CAPS},
    }
    prices = {model: ModelPrice(**price) for model, price in (values["prices"] or {}).items()}
    agent = config.agent
    for key, narrowest in _PER_TABLE.items():
        agent = _with_per_table(agent, key, values[f"agent.{key}"] or {}, narrowest)
    return dataclasses.replace(
        config,
        test_command=str(values["test_command"] or ""),
        sandbox_env=tuple(values["sandbox_env"] or ()),
        sandbox_network=str(values["sandbox_network"] or "off"),
        agent_hosts=tuple(values["agent_hosts"] or ()),
        allow_unsandboxed=bool(values["allow_unsandboxed"]),
        prompts_dir=str(values["prompts_dir"] or config.prompts_dir),
        notify=notify,
        hooks=hooks,
        prices=prices,
        agent=agent,
        **caps,
    )
