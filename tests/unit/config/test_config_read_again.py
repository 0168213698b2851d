"""ralph.toml read again as it was, with the same variables, gives the configuration
already made (a command reads it twice: ``project.settle_settings``); an edit or another
variable gives a new one."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest

from ralph.config import CONFIG_FILE, load_config, render_config

pytestmark = pytest.mark.timeout(30)


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    parsed: list[str] = []
    real = tomllib.loads

    def counting(text: str, **options: Any) -> dict[str, Any]:
        parsed.append(text)
        return real(text, **options)

    monkeypatch.setattr(tomllib, "loads", counting)
    return parsed


def test_the_same_file_and_variables_are_parsed_once(tmp_path: Path, parses: list[str]) -> None:
    (tmp_path / CONFIG_FILE).write_text(render_config(repo="shop", base_branch="main"))
    first = load_config(tmp_path, env={"HOME": "/home/a"})
    assert load_config(tmp_path, env={"HOME": "/home/a"}) is first
    assert len(parses) == 1


def test_an_edit_or_another_variable_is_read_anew(tmp_path: Path, parses: list[str]) -> None:
    path = tmp_path / CONFIG_FILE
    path.write_text(render_config(repo="shop", base_branch="main"))
    assert load_config(tmp_path, env={}).repo == "shop"
    path.write_text(render_config(repo="shoe", base_branch="main"))  # same size, maybe same mtime
    assert load_config(tmp_path, env={}).repo == "shoe"
    assert load_config(tmp_path, env={"RALPH_REPO": "shed"}).repo == "shed"
    assert load_config(tmp_path, env={}).repo == "shoe"
    assert len(parses) == 4
