"""The registries a project opens its tracker and code host from name the same kinds
as the settings accept: a kind added to one and not the other fails here, not at run
time."""

from __future__ import annotations

import pytest

from ralph.config import _config
from ralph.project import _backends

pytestmark = pytest.mark.timeout(30)


def test_every_tracker_the_settings_accept_has_an_opener():
    assert set(_backends.TRACKERS) == set(_config.TRACKERS)


def test_every_code_host_the_settings_accept_has_an_opener():
    assert set(_backends.CODE_HOSTS) == set(_config.CODE_HOSTS)


def test_every_service_has_one_backend_that_opens_what_its_settings_say_it_holds():
    from ralph.config import SERVICES

    assert set(_backends.BACKENDS) == {"local", *SERVICES}
    for name, service in SERVICES.items():
        backend = _backends.BACKENDS[name]
        assert backend.name == name
        assert (backend.open_tracker is not None) == service.tracker, name
        assert (backend.open_code_host is not None) == service.code_host, name
        assert backend.set_up is not None, f"ralph init --{name} has no set-up"
