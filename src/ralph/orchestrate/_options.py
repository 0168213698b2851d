"""How sessions run: one record of what ``ralph hero``, ``team``, ``loop``, ``serve`` and
``worker`` were told (ralph.toml's settings with the command's options on top), made
once by the command and passed unchanged to the loop or the service, each root's
session, its lead and its workers; and the ``Interrupt`` they all stop on."""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ralph.config import BestOf, Config
from ralph.graph import ReviewMode
from ralph.orchestrate._budget import Budget
from ralph.tasks import Event, Run

__all__ = ["Interrupt", "Observer", "SessionOptions"]

#: Given a run's new events, from the thread of the session that runs it.
Observer = Callable[[Run, Sequence[Event]], None]


class Interrupt:
    """Ctrl-C, SIGTERM and SIGHUP (a closed terminal): the first stops new claims and lets
    running tasks finish; the second hands running tasks back to the store and ends the
    session at once. A worker whose task only a person can let go on (NeedsPerson) stops
    the session the first way, saying why."""

    def __init__(self) -> None:
        self.stopping = threading.Event()
        self.aborting = threading.Event()
        #: What only a person can clear ("" after a signal).
        self.unusable = ""
        # Counted by one call into C: a second signal's handler can run inside the
        # first's (Python runs handlers between bytecodes), and a check-then-set here
        # would let both count as the first.
        self._signals = itertools.count()

    def signal(self) -> bool:
        """A signal taken: True when it hands running tasks back (the second, or any
        after the session already stopped for an unusable agent)."""
        aborts = next(self._signals) > 0 or bool(self.unusable)
        if aborts:
            self.aborting.set()
        self.stopping.set()
        return aborts

    def agent_unusable(self, reason: str) -> None:
        self.unusable = self.unusable or reason
        self.stopping.set()


@dataclass(frozen=True)
class SessionOptions:
    """The defaults below are ralph.toml's own; ``from_config`` reads the project's.
    ``interrupt`` and ``observer`` are shared, not copied: every session of a loop stops
    on the one interrupt and reports to the one observer."""

    #: hero or team: the crew each root of a loop or the service gets, and the run's mode.
    mode: str = "hero"
    review_mode: ReviewMode = ReviewMode.AUTO
    #: Agent attempts per phase before escalating.
    attempts: int = 2
    #: The only phases whose tasks run (``ralph loop --only``); None: every phase.
    phases: frozenset[str] | None = None
    #: Keep going while tasks wait for a person (``--wait``), instead of ending.
    wait: bool = False
    #: Attempts per implementation of a new run (a resumed run keeps its own).
    best_of: BestOf = field(default_factory=BestOf)
    budget: Budget = field(default_factory=Budget)
    #: The repository whose holds stop claims ("": any).
    repo: str = ""
    #: Roots side by side (``ralph loop``, ``ralph serve``), and agents across them all.
    max_roots: int = 1
    max_agents: int = 3
    #: At most this many agents of a phase at once, across the roots.
    phase_caps: Mapping[str, int] = field(default_factory=dict)
    #: A team session's most workers in all (0: as the machine suits) and per role: its
    #: roster grows with its queues within them.
    max_team_workers: int = 0
    role_caps: Mapping[str, int] = field(default_factory=dict)
    interrupt: Interrupt = field(default_factory=Interrupt)
    observer: Observer | None = None

    def __post_init__(self) -> None:
        # "auto" as well as ReviewMode.AUTO: the run's config stores the value.
        object.__setattr__(self, "review_mode", ReviewMode(self.review_mode))

    @classmethod
    def from_config(cls, config: Config, **given: Any) -> SessionOptions:
        """ralph.toml's settings with ``given`` on top; an option given as None keeps
        ralph.toml's (a command's option left out)."""
        settled = cls(
            mode=config.mode,
            review_mode=ReviewMode(config.review_mode),
            best_of=config.agent.best_of_for("implement"),
            budget=Budget.from_config(config),
            repo=config.repo,
            max_roots=config.max_concurrent_roots,
            max_agents=config.max_concurrent_agents,
            phase_caps=dict(config.max_concurrent_phases),
            max_team_workers=config.max_team_workers,
            role_caps=dict(config.max_role_workers),
        )
        return replace(settled, **{name: v for name, v in given.items() if v is not None})
