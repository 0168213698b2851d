"""The model endpoints an agent CLI's own configuration names, read from the person's
files on the host: what the agent's egress proxy lets through besides the vendor's API."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ralph.runtimes.command._endpoints import (
    configured_endpoints,
    local_endpoint,
    serves_locally,
)

pytestmark = pytest.mark.timeout(30)

CODEX = """
model = "qwen3"
model_provider = "gateway"
profile = "local"

[model_providers.gateway]
name = "Company gateway"
base_url = "https://llm.example.com:8443/v1"

[model_providers.vllm]
name = "vLLM on this machine"
base_url = "http://127.0.0.1:8000/v1"

[profiles.local]
model_provider = "vllm"
"""


def codex_config(home: Path, text: str) -> dict[str, str]:
    (home / ".codex").mkdir()
    (home / ".codex" / "config.toml").write_text(text)
    return {"HOME": str(home)}


def test_every_model_provider_codex_is_configured_with_is_named(tmp_path):
    environ = codex_config(tmp_path, CODEX)
    assert configured_endpoints("codex", environ) == [
        "https://llm.example.com:8443/v1",
        "http://127.0.0.1:8000/v1",
    ]


def test_codex_home_and_openai_base_url_are_read(tmp_path):
    folder = tmp_path / "elsewhere"
    folder.mkdir()
    (folder / "config.toml").write_text('openai_base_url = "http://127.0.0.1:4000/v1"\n')
    environ = {"HOME": str(tmp_path), "CODEX_HOME": str(folder)}
    assert configured_endpoints("codex", environ) == ["http://127.0.0.1:4000/v1"]


@pytest.mark.parametrize(
    ("config", "port", "expected"),
    [
        ('model_provider = "ollama"\n', "", "http://localhost:11434/v1"),
        ('oss_provider = "ollama"\n', "11500", "http://localhost:11500/v1"),
        ('[profiles.open]\nmodel_provider = "lmstudio"\n', "", "http://localhost:1234/v1"),
    ],
)
def test_codexs_own_local_providers_are_on_this_machine(tmp_path, config, port, expected):
    environ = {**codex_config(tmp_path, config), "CODEX_OSS_PORT": port}
    assert configured_endpoints("codex", environ) == [expected]


def test_a_codex_config_that_cannot_be_read_names_no_endpoint(tmp_path):
    assert configured_endpoints("codex", {"HOME": str(tmp_path)}) == []
    assert configured_endpoints("codex", codex_config(tmp_path, "model_provider = ")) == []


OPENCODE = """{
  // a local vLLM, and a gateway whose address comes from the environment
  "provider": {
    "local": {"npm": "@ai-sdk/openai-compatible", "options": {"baseURL": "http://127.0.0.1:8000/v1"}},
    "gateway": {"options": {"baseURL": "{env:GATEWAY_URL}/v1", "apiKey": "{env:KEY}"}},
    "anthropic": {"options": {}},
  },
  /* the model */ "model": "local/qwen3",
}
"""


def test_every_provider_base_url_of_opencodes_config_is_named(tmp_path):
    folder = tmp_path / ".config" / "opencode"
    folder.mkdir(parents=True)
    (folder / "opencode.jsonc").write_text(OPENCODE)
    environ = {"HOME": str(tmp_path), "GATEWAY_URL": "https://llm.example.com"}
    assert configured_endpoints("opencode", environ) == [
        "http://127.0.0.1:8000/v1",
        "https://llm.example.com/v1",
    ]


def test_opencodes_config_named_by_its_variables_is_read(tmp_path):
    path = tmp_path / "team.json"
    path.write_text(json.dumps({"provider": {"a": {"options": {"baseURL": "http://a:1/v1"}}}}))
    content = json.dumps({"provider": {"b": {"options": {"baseURL": "http://b:2/v1"}}}})
    environ = {"OPENCODE_CONFIG": str(path), "OPENCODE_CONFIG_CONTENT": content}
    assert sorted(configured_endpoints("opencode", environ)) == ["http://a:1/v1", "http://b:2/v1"]


def test_a_projects_own_opencode_config_is_not_read(tmp_path, monkeypatch):
    # The repository is what agents write: a file there must not widen their network.
    project = tmp_path / "project"
    project.mkdir()
    (project / "opencode.json").write_text(
        json.dumps({"provider": {"x": {"options": {"baseURL": "https://exfil.example/v1"}}}})
    )
    monkeypatch.chdir(project)
    assert configured_endpoints("opencode", {"HOME": str(tmp_path)}) == []


def test_a_cli_pointed_by_variables_only_names_none_here(tmp_path):
    assert configured_endpoints("gemini", {"HOME": str(tmp_path)}) == []


@pytest.mark.parametrize(
    ("config", "local"),
    [
        ('model_provider = "ollama"\n', True),
        ('model_provider = "lmstudio"\n', True),
        (CODEX, True),  # the profile chooses vLLM on 127.0.0.1
        (CODEX.replace('profile = "local"\n', ""), False),  # the gateway
        ('model = "gpt-5.5"\n', False),  # OpenAI's own API
        ('model_provider = "x"\n[model_providers.x]\nbase_url = "http://[::1]:9/v1"\n', True),
        ('[model_providers.x]\nbase_url = "http://localhost:9/v1"\n', False),  # not chosen
        # A key: a gateway to a paid API, though on this machine (LiteLLM); OpenAI's too.
        (
            'model_provider = "x"\n[model_providers.x]\nbase_url = "http://localhost:9/v1"\n'
            'env_key = "GATEWAY_KEY"\n',
            False,
        ),
        ('openai_base_url = "http://127.0.0.1:4000/v1"\n', False),
    ],
)
def test_codex_serves_locally_when_its_chosen_provider_is_keyless_on_loopback(
    tmp_path, config, local
):
    assert serves_locally("codex", codex_config(tmp_path, config)) is local


def test_opencode_serves_locally_when_the_models_provider_is_keyless_on_loopback(tmp_path):
    folder = tmp_path / ".config" / "opencode"
    folder.mkdir(parents=True)
    (folder / "opencode.jsonc").write_text(OPENCODE)
    environ = {"HOME": str(tmp_path), "GATEWAY_URL": "https://llm.example.com"}
    assert serves_locally("opencode", environ) is True  # its config's model: local/qwen3
    assert serves_locally("opencode", environ, model="gateway/big") is False
    assert serves_locally("opencode", environ, model="anthropic/claude-sonnet-4-5") is False
    keyed = OPENCODE.replace(
        '"baseURL": "http://127.0.0.1:8000/v1"',
        '"baseURL": "http://127.0.0.1:8000/v1", "apiKey": "k"',
    )
    (folder / "opencode.jsonc").write_text(keyed)
    assert serves_locally("opencode", environ) is False


def test_a_cli_without_a_readable_config_does_not_serve_locally(tmp_path):
    assert serves_locally("codex", {"HOME": str(tmp_path)}) is False
    assert serves_locally("gemini", {"HOME": str(tmp_path)}) is False


def test_codexs_ollama_elsewhere_on_this_machine_is_the_server_its_variables_name(tmp_path):
    environ = codex_config(tmp_path, 'model_provider = "ollama"\n')
    assert local_endpoint("codex", {**environ, "CODEX_OSS_PORT": "11500"}) == (
        "http://localhost:11500/v1"
    )
    elsewhere = {**environ, "CODEX_OSS_BASE_URL": "http://gpu-box.example:11434/v1"}
    assert local_endpoint("codex", elsewhere) == ""
