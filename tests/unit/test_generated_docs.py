"""docs/cli.md and docs/configuration.md say what the code does: they are generated from
the command tree and the settings, and a change to either without `make docs` fails here."""

from __future__ import annotations

from pathlib import Path

import pytest

from ralph.cli._reference import generated_documents

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("name", sorted(generated_documents()))
def test_the_generated_document_is_current(name: str) -> None:
    written = (ROOT / name).read_text()
    assert written == generated_documents()[name], f"{name} is stale: run `make docs`"


def test_every_command_and_setting_is_documented() -> None:
    documents = generated_documents()
    for command in ("`ralph hero`", "`ralph issue new`", "`ralph tasks show`"):
        assert command in documents["docs/cli.md"]
    for setting in ("budget_run_usd", "RALPH_STORE_URL", "mutation_interval"):
        assert setting in documents["docs/configuration.md"]
