"""Settings reach a service through its record in ``config/_services.py``: a service
with no field on Config of its own (every new one) has its parsed table in
``Config.services``, read by ``settings_of``."""

from __future__ import annotations

import pytest

from ralph.config import CONFIG_FILE, SERVICES, GitHubSettings, LinearSettings, _config, load_config
from ralph.errors import ConfigError

pytestmark = pytest.mark.timeout(30)

_LINEAR = 'tracker = "linear"\n[linear]\nteam = "eng"\n'


def test_a_service_without_a_field_of_its_own_is_read_from_its_table(tmp_path, monkeypatch):
    monkeypatch.setattr(_config, "_SERVICE_FIELDS", frozenset())
    (tmp_path / CONFIG_FILE).write_text(_LINEAR)
    config = load_config(tmp_path, env={})
    assert config.services["linear"] == LinearSettings(team="ENG")
    assert config.settings_of(LinearSettings).team == "ENG"
    assert config.linear == LinearSettings()  # no field filled: the record's table is
    assert config.settings_of(GitHubSettings) == GitHubSettings()


def test_a_service_without_a_field_of_its_own_is_still_checked(tmp_path, monkeypatch):
    monkeypatch.setattr(_config, "_SERVICE_FIELDS", frozenset())
    (tmp_path / CONFIG_FILE).write_text('tracker = "linear"\n')
    with pytest.raises(ConfigError, match=r"linear\.team"):
        load_config(tmp_path, env={})


def test_github_and_linear_keep_their_fields(tmp_path):
    (tmp_path / CONFIG_FILE).write_text(_LINEAR)
    config = load_config(tmp_path, env={})
    assert config.linear is config.settings_of(LinearSettings)
    assert not {"github", "linear"} & set(config.services)


def test_every_record_names_its_own_table_and_a_role():
    for name, service in SERVICES.items():
        assert service.name == name
        assert service.tracker or service.code_host, name
        assert service.parse(None, "ralph.toml", {}) == service.settings()
