"""Values that reach git or the file system are checked when ralph.toml is read: a NUL,
a name git refuses, a path too long to open, a nesting too deep for the parser. Each is
one line naming the setting, before any command starts (never a traceback from
``subprocess`` or ``pathlib`` in the middle of a run)."""

from __future__ import annotations

import pytest

from ralph.config import CONFIG_FILE, load_config
from ralph.errors import ConfigError


def refusal(tmp_path, text: str, env: dict[str, str] | None = None) -> str:
    (tmp_path / CONFIG_FILE).write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as refused:
        load_config(tmp_path, env=env or {})
    message = str(refused.value)
    assert "\n" not in message
    assert len(message) < 300  # a 100,000-character value is named, not repeated
    return message


@pytest.mark.parametrize(
    "name", ["a\\u0000b", "-main", "a..b", "a b", "main.lock", "a~1", "a:b", "/main", "main/"]
)
def test_a_base_branch_git_would_refuse_is_refused_naming_the_setting(tmp_path, name):
    message = refusal(tmp_path, f'base_branch = "{name}"\n')
    assert "base_branch" in message
    assert 'such as "main"' in message or "NUL" in message


def test_a_base_branch_from_the_environment_is_checked_the_same_way(tmp_path):
    message = refusal(tmp_path, "", {"RALPH_BASE_BRANCH": "a\x00b"})
    assert message.startswith("RALPH_BASE_BRANCH: ")


@pytest.mark.parametrize("name", ["main", "develop", "release/1.0", "feature/GH-5", "trunk_v2"])
def test_ordinary_branch_names_are_taken(tmp_path, name):
    (tmp_path / CONFIG_FILE).write_text(f'base_branch = "{name}"\n')
    assert load_config(tmp_path, env={}).base_branch == name


def test_a_prompts_dir_too_long_for_a_path_is_refused_with_its_length_not_its_text(tmp_path):
    message = refusal(tmp_path, f'prompts_dir = "{"x" * 100_000}"\n')
    assert message.endswith(
        "prompts_dir: a path of 100000 characters is too long; a path has at most 4096 "
        "characters and each name in it at most 255 bytes"
    )
    message = refusal(tmp_path, f'prompts_dir = "prompts/{"x" * 300}"\n')
    assert "prompts_dir: a path of 308 characters is too long" in message


def test_a_nul_in_any_text_setting_is_refused(tmp_path):
    message = refusal(tmp_path, 'test_command = "make\\u0000test"\n')
    assert message.endswith("test_command: the value contains a NUL character (\\u0000); remove it")


def test_an_array_nested_thousands_deep_is_one_line_not_a_recursion_error(tmp_path):
    message = refusal(tmp_path, "x = " + "[" * 5000 + "]" * 5000 + "\n")
    assert message.endswith(
        "arrays or tables are nested too deeply to read; no setting nests more than a few "
        "levels, so remove the nesting"
    )
