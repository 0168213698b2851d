"""One record of how sessions run: ralph.toml's settings with a command's options on
top, an option left out (None) keeping ralph.toml's."""

from __future__ import annotations

from pathlib import Path

import pytest

from ralph.config import BestOf, Config
from ralph.graph import ReviewMode
from ralph.orchestrate import Budget, Interrupt, SessionOptions

pytestmark = pytest.mark.timeout(30)


def _config(tmp_path: Path) -> Config:
    return Config(
        root=tmp_path,
        mode="team",
        review_mode=ReviewMode.INTERACTIVE,
        max_concurrent_roots=2,
        max_concurrent_agents=5,
        max_concurrent_phases={"implement": 1},
        budget_run_usd=4.0,
    )


def test_options_left_out_keep_the_projects_settings(tmp_path):
    options = SessionOptions.from_config(_config(tmp_path), max_roots=None, review_mode=None)
    assert (options.mode, options.review_mode) == ("team", ReviewMode.INTERACTIVE)
    assert (options.max_roots, options.max_agents) == (2, 5)
    assert options.phase_caps == {"implement": 1}
    assert options.budget == Budget(run_usd=4.0)
    assert options.best_of == BestOf()


def test_options_given_replace_the_projects_settings(tmp_path):
    interrupt = Interrupt()
    options = SessionOptions.from_config(
        _config(tmp_path), mode="hero", max_roots=3, wait=True, interrupt=interrupt
    )
    assert (options.mode, options.max_roots, options.wait) == ("hero", 3, True)
    assert options.interrupt is interrupt  # shared, so a signal stops every session
    assert options.max_agents == 5


def test_a_review_mode_given_by_name_is_the_review_mode():
    options = SessionOptions(review_mode="skip")  # type: ignore[arg-type]
    assert options.review_mode is ReviewMode.SKIP


def test_each_record_made_without_one_has_its_own_interrupt():
    assert SessionOptions().interrupt is not SessionOptions().interrupt


def test_the_first_signal_stops_new_work_and_the_second_hands_running_tasks_back():
    interrupt = Interrupt()
    assert interrupt.signal() is False
    assert interrupt.stopping.is_set()
    assert not interrupt.aborting.is_set()
    assert interrupt.signal() is True
    assert interrupt.aborting.is_set()


def test_a_signal_after_an_agent_stopped_the_session_hands_tasks_back():
    interrupt = Interrupt()
    interrupt.agent_unusable("the agent's login expired")
    assert interrupt.signal() is True
    assert interrupt.aborting.is_set()
