"""Where an agent CLI's own configuration sends its model's requests, when that is not
its vendor's API: a company gateway, Azure, a model server on the person's machine
(Ollama, vLLM, LM Studio). The agent's egress proxy lets exactly those ``host:port``
through, as it does the preset's API.

Read on the host, from the person's own files (never the project's: a repository is
what agents write, and a file there must not widen where agents may connect):

- Codex: ``config.toml`` in ``CODEX_HOME`` (``~/.codex``): every ``[model_providers.*]``
  ``base_url`` (a profile chooses among them), ``openai_base_url``, and the built-in
  local providers a ``model_provider`` or ``oss_provider`` names (Ollama on port 11434
  or ``CODEX_OSS_PORT``, LM Studio on 1234).
- opencode: ``OPENCODE_CONFIG``, ``OPENCODE_CONFIG_CONTENT`` and ``opencode.json`` /
  ``opencode.jsonc`` in ``~/.config/opencode``: every provider's ``options.baseURL``.

``serves_locally``: whether the provider the CLI's configuration chooses for its model
(Codex's provider, its profile's; the provider of opencode's model) is a model server
on this machine, where an open model is free (``Pricing.local``): a loopback address
reached without an API key, as Ollama, vLLM and LM Studio serve by default (a
provider with a key is a gateway to a paid API, if on this machine).

Gemini CLI (``GOOGLE_GEMINI_BASE_URL``, ``GOOGLE_VERTEX_BASE_URL``) and any other CLI
are pointed by variables, which the runtime reads from the agent's environment
(``*_BASE_URL``). A file that cannot be read names no endpoint: the proxy's refusal
then says which host to add to ``agent_hosts``."""

from __future__ import annotations

import ipaddress
import json
import re
import tomllib
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

from ralph.runtimes.command._cli_files import codex_home
from ralph.sandbox import host_port

__all__ = ["configured_endpoints", "local_endpoint", "serves_locally"]

#: Codex's built-in providers that serve on the person's own machine.
_CODEX_LOCAL = {"ollama": "http://localhost:{port}/v1", "lmstudio": "http://localhost:1234/v1"}
_OLLAMA_PORT = "11434"
#: A Codex provider's settings that give it a key.
_CODEX_KEYS = ("env_key", "experimental_bearer_token")
#: A JSON string, a comment, or a trailing comma (opencode reads JSON with comments).
_JSONC = re.compile(r'("(?:[^"\\]|\\.)*")|//[^\n]*|/\*.*?\*/|,(?=\s*[}\]])', re.DOTALL)
_ENV_REFERENCE = re.compile(r"\{env:([A-Za-z_][A-Za-z0-9_]*)\}")


def _table(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _codex(environ: Mapping[str, str]) -> Iterator[Any]:
    folder = codex_home(environ)
    if folder is None:
        return
    config = tomllib.loads((folder / "config.toml").read_text(encoding="utf-8"))
    providers = _table(config.get("model_providers"))
    yield from (_table(p).get("base_url") for p in providers.values())
    layers = [config, *(_table(p) for p in _table(config.get("profiles")).values())]
    for layer in layers:
        yield layer.get("openai_base_url")
    chosen = {layer.get(key) for layer in layers for key in ("model_provider", "oss_provider")}
    for name, url in _CODEX_LOCAL.items():
        if name in chosen and name not in providers:
            yield url.format(port=environ.get("CODEX_OSS_PORT") or _OLLAMA_PORT)


def _jsonc(text: str) -> Any:
    return json.loads(_JSONC.sub(lambda m: m.group(1) or "", text))


def _opencode_configs(environ: Mapping[str, str]) -> Iterator[Any]:
    if environ.get("OPENCODE_CONFIG_CONTENT"):
        yield _jsonc(environ["OPENCODE_CONFIG_CONTENT"])
    paths = [Path(environ["OPENCODE_CONFIG"])] if environ.get("OPENCODE_CONFIG") else []
    config_home = environ.get("XDG_CONFIG_HOME") or (
        str(Path(environ["HOME"]) / ".config") if environ.get("HOME") else ""
    )
    if config_home:
        folder = Path(config_home) / "opencode"
        paths += [folder / name for name in ("opencode.json", "opencode.jsonc", "config.json")]
    for path in paths:
        if path.is_file():
            yield _jsonc(path.read_text(encoding="utf-8"))


def _opencode(environ: Mapping[str, str]) -> Iterator[Any]:
    for config in _opencode_configs(environ):
        for provider in _table(_table(config).get("provider")).values():
            url = _table(_table(provider).get("options")).get("baseURL")
            if isinstance(url, str):
                # opencode fills {env:NAME} from its environment.
                yield _ENV_REFERENCE.sub(lambda m: environ.get(m.group(1), ""), url)


_READERS: dict[str, Callable[[Mapping[str, str]], Iterator[Any]]] = {
    "codex": _codex,
    "opencode": _opencode,
}


def configured_endpoints(cli: str, environ: Mapping[str, str]) -> list[str]:
    """The model endpoints (URLs) ``cli``'s own configuration names, in the person's
    environment ``environ``; none when it names none or cannot be read."""
    reader = _READERS.get(cli)
    if reader is None:
        return []
    try:
        return [url for url in reader(environ) if isinstance(url, str) and url]
    except (OSError, ValueError):  # no config, or not TOML/JSON: nothing to allow
        return []


def _codex_chosen(environ: Mapping[str, str], model: str) -> Iterator[Any]:
    """The keyless endpoint Codex's config chooses: its active profile's provider over
    its own (OpenAI's needs its key)."""
    folder = codex_home(environ)
    if folder is None:
        return
    config = tomllib.loads((folder / "config.toml").read_text(encoding="utf-8"))
    profile = _table(_table(config.get("profiles")).get(str(config.get("profile", ""))))
    chosen = profile.get("model_provider") or config.get("model_provider")
    if not isinstance(chosen, str):
        return
    provider = _table(_table(config.get("model_providers")).get(chosen))
    if provider and not any(provider.get(key) for key in _CODEX_KEYS):
        yield provider.get("base_url")
    elif not provider and chosen == "ollama" and environ.get("CODEX_OSS_BASE_URL"):
        yield environ["CODEX_OSS_BASE_URL"]
    elif not provider and chosen in _CODEX_LOCAL:
        yield _CODEX_LOCAL[chosen].format(port=environ.get("CODEX_OSS_PORT") or _OLLAMA_PORT)


def _opencode_chosen(environ: Mapping[str, str], model: str) -> Iterator[Any]:
    """The base URL of the provider of opencode's model (``provider/model``: Ralph's
    model, else its config's), when it is reached without a key."""
    configs = [_table(config) for config in _opencode_configs(environ)]
    named = model or next((c["model"] for c in configs if isinstance(c.get("model"), str)), "")
    provider, slash, _ = named.partition("/")
    if not slash:
        return
    for config in configs:
        options = _table(_table(_table(config.get("provider")).get(provider)).get("options"))
        url = options.get("baseURL")
        if isinstance(url, str):
            if not options.get("apiKey"):
                yield _ENV_REFERENCE.sub(lambda m: environ.get(m.group(1), ""), url)
            return


_CHOSEN: dict[str, Callable[[Mapping[str, str], str], Iterator[Any]]] = {
    "codex": _codex_chosen,
    "opencode": _opencode_chosen,
}


def _loopback(url: str) -> bool:
    found = host_port(url)
    if found is None:
        return False
    if found[0] == "localhost":
        return True
    try:
        return ipaddress.ip_address(found[0]).is_loopback
    except ValueError:  # a name, not an address: not known to be this machine
        return False


def local_endpoint(cli: str, environ: Mapping[str, str], model: str = "") -> str:
    """The model server on this machine ``cli``'s configuration in the person's
    environment ``environ`` sends ``model``'s requests to (its configured model's, when
    ""): a keyless loopback URL; "" when it sends them elsewhere."""
    reader = _CHOSEN.get(cli)
    if reader is None:
        return ""
    try:
        urls = [url for url in reader(environ, model) if isinstance(url, str) and url]
    except (OSError, ValueError):  # no config, or not TOML/JSON: the vendor's API
        return ""
    return urls[0] if urls and all(_loopback(url) for url in urls) else ""


def serves_locally(cli: str, environ: Mapping[str, str], model: str = "") -> bool:
    """Whether ``local_endpoint`` finds a model server on this machine."""
    return bool(local_endpoint(cli, environ, model))
