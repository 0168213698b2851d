"""Ralph installs as ``ralph-delivery`` (``ralph`` on the package index is an unrelated
project): nothing Ralph ships tells a person to install ``ralph`` by that name, and the
version it reports is the distribution's."""

from __future__ import annotations

import re
from importlib.metadata import version
from pathlib import Path

import ralph
from ralph._distribution import DISTRIBUTION, install_hint

ROOT = Path(__file__).parents[2]
#: ``pip install 'ralph[claude]'``, ``"ralph==0.1.0"``, ``ralph>=``: the taken name.
TAKEN = re.compile(r"""(?<![\w.-])ralph(\[[\w,]+\]|[=<>~!]=)""")
SHIPPED = [
    *sorted((ROOT / "src" / "ralph").rglob("*.*")),
    *sorted((ROOT / ".claude-plugin").rglob("*.json")),
    ROOT / "Makefile",
]


def test_nothing_shipped_names_the_taken_distribution():
    texts = [p for p in SHIPPED if p.suffix in (".py", ".md", ".json", ".toml", "")]
    naming = [
        f"{path.relative_to(ROOT)}: {found}"
        for path in texts
        if path.is_file()
        for found in TAKEN.findall(path.read_text(encoding="utf-8"))
    ]
    assert naming == []


def test_the_version_is_the_distributions():
    assert DISTRIBUTION == "ralph-delivery"
    assert ralph.__version__ == version(DISTRIBUTION)


def test_an_extra_is_installed_with_make_install_which_has_claude_already():
    """Not ``pip install 'ralph-delivery[...]'``: the distribution is not on the index."""
    assert install_hint("claude") == "make install in a clone of Ralph"
    assert install_hint("otel") == "make install EXTRAS=claude,otel in a clone of Ralph"
