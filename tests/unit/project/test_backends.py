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
