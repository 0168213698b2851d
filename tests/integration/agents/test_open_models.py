"""Open models on the person's own machine: Codex and opencode configured, as a person
configures them for Ollama (docs/agents.md), to a model server on 127.0.0.1 (here the fake of its
OpenAI-compatible API), take an XS issue from Backlog to Done with ``ralph hero``,
confined, their one way out the egress proxy that lets that server through. The
tokens are counted in the ledger and cost nothing: a model served on this machine
without a price is free, so a dollar cap does not stop on an unknown cost."""

from __future__ import annotations

import dataclasses
import json
import shlex
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from ralph.config import load_config
from ralph.demo._sample import FAREWELL
from ralph.project import open_project
from ralph.sandbox import probe

from ..conftest import git
from ._clis import CLIS
from ._models import FAREWELL_CODE, model
from .test_presets_end_to_end import show, use

pytestmark = [
    pytest.mark.slow,
    pytest.mark.timeout(300),
    pytest.mark.skipif(not probe().available, reason=probe().reason),
]

BODY = f"Add `farewell` to the core module.\n\n{FAREWELL}\n"
#: Ollama's names for the models, which no price table knows.
CODEX_MODEL = "gpt-oss:20b"
OPENCODE_MODEL = "qwen3-coder:30b"


GUIDE = Path(__file__).parents[3] / "docs" / "agents.md"


def _guides(language: str) -> str:
    """The first ``language`` block of the guide's section on open models."""
    section = GUIDE.read_text().split("### Open models on your own machine", 1)[1]
    return section.split(f"```{language}\n", 1)[1].split("```", 1)[0]


def codex_for_ollama(home: Path, api: Any) -> dict[str, str]:
    """~/.codex/config.toml as docs/agents.md shows it (Codex's own Ollama provider), on
    the fake's port in place of Ollama's 11434."""
    (home / ".codex").mkdir(parents=True, exist_ok=True)
    text = _guides("toml") + "check_for_update_on_startup = false\n"
    assert f'model = "{CODEX_MODEL}"' in text
    (home / ".codex" / "config.toml").write_text(text)
    return {"HOME": str(home), "CODEX_OSS_PORT": str(urlsplit(api.url).port)}


def opencode_for_ollama(home: Path, api: Any) -> dict[str, str]:
    """~/.config/opencode/opencode.json as docs/agents.md shows it, the fake's address
    in place of Ollama's."""
    text = _guides("json").replace("http://localhost:11434/v1", api.base_url)
    assert api.base_url in text
    assert json.loads(text)["model"] == f"ollama/{OPENCODE_MODEL}"
    (home / ".config" / "opencode").mkdir(parents=True, exist_ok=True)
    (home / ".config" / "opencode" / "opencode.json").write_text(text)
    return {"HOME": str(home), "OPENCODE_DISABLE_MODELS_FETCH": "1"}


def _written(path: str, content: str) -> str:
    folder, file = shlex.quote(str(Path(path).parent)), shlex.quote(path)
    return f"mkdir -p {folder} && cat > {file} <<'DOC'\n{content}DOC"


def _edited(path: str, old: str, new: str) -> str:
    script = (
        f"import pathlib\np = pathlib.Path({path!r})\n"
        f"p.write_text(p.read_text().replace({old!r}, {new!r}))\n"
    )
    return f"python3 - <<'PY'\n{script}PY"


#: Codex offers an open model no apply_patch tool (only its shell): files through it.
CODEX_OPEN = dataclasses.replace(
    CLIS["codex"],
    write=lambda path, content: CLIS["codex"].shell(_written(path, content)),
    edit=lambda path, old, new: CLIS["codex"].shell(_edited(path, old, new)),
)
DIALECTS = {"codex": CODEX_OPEN, "opencode": CLIS["opencode"]}
PERSONS_CONFIG = {"codex": codex_for_ollama, "opencode": opencode_for_ollama}


@pytest.fixture(params=sorted(PERSONS_CONFIG))
def local_cli(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def test_an_open_model_on_this_machine_takes_an_issue_to_done_free_with_its_tokens_counted(
    ralph, local_cli, start_api, agent_env, agent_home, monkeypatch
):
    cli = DIALECTS[local_cli]
    api = start_api(cli, model(cli))
    assert api.base_url.startswith("http://127.0.0.1:")
    environment = {**agent_env(cli, api), **PERSONS_CONFIG[local_cli](agent_home, api)}
    use(ralph, monkeypatch, environment, f'preset = "{local_cli}"\n')
    # A dollar cap: an unknown cost would stop the run after its first agent.
    text = ralph.config.read_text().replace("budget_run_usd = 0\n", "budget_run_usd = 5\n", 1)
    ralph.config.write_text(text)
    ralph("issue", "new", "Add a farewell", "--body", BODY, "--estimate", "XS")
    code, out, err = ralph("hero", "1")
    assert code == 0, out + err
    assert show(ralph, 1)["workflowState"] == "Done", out + err
    assert git(ralph.repo.path, "show", "main:greet/core.py") + "\n" == FAREWELL_CODE, out + err
    # Confined (ralph.toml allows no run without the sandbox): the proxy let it through.
    assert "allow_unsandboxed = false" in ralph.config.read_text()
    assert "not an allowed host" not in out + err
    assert "unknown" not in out + err
    assert len(api.turns) >= 3
    with open_project(load_config(ralph.repo.path)) as project:
        spent = project.store.spend()
    assert spent.tokens > 0
    assert spent.usd == 0.0
    code, out, err = ralph("runs", "show", "--json")
    assert code == 0, out + err
    report = json.loads(out)["report"]
    assert (report["costUsd"], report["costKnown"]) == (0.0, True)


def test_doctor_says_a_cli_on_a_model_server_of_this_machine_needs_no_key(
    ralph, agent_home, monkeypatch
):
    for name in ("OPENAI_API_KEY", "CODEX_API_KEY", "CODEX_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(agent_home))
    (agent_home / ".codex").mkdir()
    (agent_home / ".codex" / "config.toml").write_text(_guides("toml"))
    use(ralph, monkeypatch, {}, 'preset = "codex"\n')
    _, out, err = ralph("doctor")  # its exit code is the sandbox's and the other keys'
    said = " ".join(out.split())
    assert (
        "✓ agent codex: a model server on this machine (http://localhost:11434/v1): "
        "needs no key" in said
    ), out + err
    assert "✗ agent codex" not in said
