"""The marketplace ``ralph plugin install`` writes: the packaged plugin at Ralph's
version with the ralph to run recorded beside its launcher, a catalog naming it, in
Ralph's data folder, replaced whole on every install."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from ralph.plugin import (
    MARKETPLACE_NAME,
    PLUGIN_NAME,
    marketplace_folder,
    plugin_path,
    this_ralph,
    write_marketplace,
)

RALPH = Path("/opt/ralph/bin/ralph")


def files(root: Path) -> dict[Path, bytes]:
    return {
        p.relative_to(root): p.read_bytes()
        for p in root.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }


def test_it_holds_the_packaged_plugin_running_the_recorded_ralph_at_ralphs_version(tmp_path):
    folder = write_marketplace(tmp_path / "market", RALPH, "1.2.3")
    plugin = folder / PLUGIN_NAME
    assert (plugin / "bin" / "ralph-path").read_text() == f"{RALPH}\n"
    assert os.access(plugin / "bin" / "ralph", os.X_OK)
    manifest = json.loads((plugin / ".claude-plugin" / "plugin.json").read_text())
    assert (manifest["name"], manifest["version"]) == (PLUGIN_NAME, "1.2.3")
    shipped, written = files(plugin_path()), files(plugin)
    assert written.keys() - shipped.keys() == {Path("bin/ralph-path")}
    assert [p for p in shipped if written[p] != shipped[p]] == [Path(".claude-plugin/plugin.json")]
    catalog = json.loads((folder / ".claude-plugin" / "marketplace.json").read_text())
    assert catalog["name"] == MARKETPLACE_NAME
    assert [(p["name"], p["source"]) for p in catalog["plugins"]] == [
        (PLUGIN_NAME, f"./{PLUGIN_NAME}")
    ]


def test_writing_it_again_replaces_it_whole(tmp_path):
    folder = write_marketplace(tmp_path / "market", RALPH, "1.2.3")
    (folder / PLUGIN_NAME / "stale.txt").write_text("from an older Ralph")
    write_marketplace(folder, Path("/elsewhere/ralph"), "1.2.4")
    assert not (folder / PLUGIN_NAME / "stale.txt").exists()
    assert (folder / PLUGIN_NAME / "bin" / "ralph-path").read_text() == "/elsewhere/ralph\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["market"]  # no staging left


def test_it_lives_in_ralphs_data_folder():
    assert marketplace_folder({"XDG_DATA_HOME": "/data", "HOME": "/home/me"}) == Path(
        "/data/ralph/claude-marketplace"
    )
    assert marketplace_folder({"HOME": "/home/me"}) == Path(
        "/home/me/.local/share/ralph/claude-marketplace"
    )


def test_the_ralph_it_records_is_the_console_script_beside_this_interpreter():
    beside = Path(sys.executable).parent / "ralph"
    assert beside.is_file()  # the test environment is an installed one
    assert this_ralph() == beside.absolute()
