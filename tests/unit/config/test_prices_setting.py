"""``[prices."MODEL"]`` in ralph.toml: read into the config, bad values refused in one
line naming the setting."""

from __future__ import annotations

import pytest

from ralph.config import ModelPrice, load_config
from ralph.errors import ConfigError

pytestmark = pytest.mark.timeout(30)


def config_with(tmp_path, table: str):
    (tmp_path / "ralph.toml").write_text('tracker = "local"\n' + table)
    return load_config(tmp_path, env={})


def test_a_models_price_is_read_with_cached_and_cache_write_defaulting_to_input(tmp_path):
    config = config_with(
        tmp_path,
        '[prices."gpt-5-codex"]\ninput = 1.25\ncached_input = 0.125\ncache_write = 0\n'
        "output = 10\n"
        '[prices."local/llm"]\ninput = 2\noutput = 4\n',
    )
    assert config.prices == {
        "gpt-5-codex": ModelPrice(input=1.25, cached_input=0.125, cache_write=0.0, output=10.0),
        "local/llm": ModelPrice(input=2.0, cached_input=2.0, cache_write=2.0, output=4.0),
    }
    assert config_with(tmp_path, "").prices == {}


@pytest.mark.parametrize(
    ("table", "said"),
    [
        ('[prices."m"]\ninput = -1\noutput = 1\n', 'prices."m".input: -1 is not valid'),
        ('[prices."m"]\ninput = "cheap"\noutput = 1\n', "prices.\"m\".input: 'cheap' is not"),
        ('[prices."m"]\ninput = nan\noutput = 1\n', 'prices."m".input: nan is not valid'),
        ('[prices."m"]\ninput = 1\n', 'prices."m" needs output'),
        ('[prices."m"]\ninput = 1\noutput = 1\ncached = 0\n', 'prices."m".cached is unknown'),
        ('[prices."m"]\ninput = 1\noutput = 1e9\n', 'prices."m".output: 1000000000.0 is too'),
        ("prices = 3\n", "[prices] must be a table"),
        ("[prices]\nm = 3\n", 'prices."m" must be a table'),
    ],
)
def test_a_bad_price_is_one_line_naming_the_setting(tmp_path, table, said):
    with pytest.raises(ConfigError) as refused:
        config_with(tmp_path, table)
    message = str(refused.value)
    assert said in message
    assert "\n" not in message
