"""The confinement snapshot's comparison: which control files changed (Ralph's own
exclude lines and other workers' worktrees apart), how they are put back, and which of
the checkout's untracked files changed."""

from __future__ import annotations

import os
from pathlib import Path

from ralph.git._guarded import (
    CheckoutFiles,
    Entry,
    changed_checkout,
    changed_control,
    checkout_files,
    control_files,
    restore,
)

CONFIG = Entry(b"[core]\n\tbare = false\n")


def test_a_new_hook_and_a_changed_config_are_changes():
    before = {"config": CONFIG, "hooks/pre-commit.sample": Entry(b"#!/bin/sh\n", 0o755)}
    after = {
        "config": Entry(CONFIG.data + b"\tfsmonitor = ./evil\n"),
        "hooks/pre-commit.sample": before["hooks/pre-commit.sample"],
        "hooks/post-checkout": Entry(b"#!/bin/sh\nevil\n", 0o755),
    }
    assert changed_control(before, after) == ["config", "hooks/post-checkout"]


def test_a_hook_made_executable_is_a_change():
    before = {"hooks/pre-push": Entry(b"#!/bin/sh\n", 0o644)}
    assert changed_control(before, {"hooks/pre-push": Entry(b"#!/bin/sh\n", 0o755)}) == [
        "hooks/pre-push"
    ]


def test_ralphs_own_exclude_lines_are_no_change_but_others_are():
    before = {"info/exclude": Entry(b"# git ls-files --others\n/worktrees/\n")}
    ralph = {"info/exclude": Entry(b"# git ls-files --others\n/worktrees/\n/.ralph/\n")}
    other = {"info/exclude": Entry(b"# git ls-files --others\n/worktrees/\n*.py\n")}
    rewritten = {"info/exclude": Entry(b"/.ralph/\n")}
    assert changed_control(before, ralph) == []
    assert changed_control({}, {"info/exclude": Entry(b"/.ralph/\n")}) == []
    assert changed_control(before, other) == ["info/exclude"]
    assert changed_control(before, rewritten) == ["info/exclude"]


def test_an_empty_config_worktree_appearing_is_a_sandbox_mount_point_not_a_change():
    # Claude Code's sandbox leaves one in another worker's run; an empty file sets nothing.
    empty = Entry(b"")
    assert changed_control({}, {"config.worktree": empty}) == []
    assert changed_control({}, {"config.worktree": Entry(b"[core]\n\tfsmonitor = x\n")}) == [
        "config.worktree"
    ]
    assert changed_control({"config.worktree": CONFIG}, {"config.worktree": empty}) == [
        "config.worktree"
    ]


def test_worktrees_added_or_removed_meanwhile_are_another_workers():
    mine = Entry(b"[core]\n")
    before = {"worktrees/GH-1/config.worktree": mine, "worktrees/GH-2/config.worktree": mine}
    after = {
        "worktrees/GH-1/config.worktree": Entry(b"[core]\n\thooksPath = /tmp\n"),
        "worktrees/GH-3/config.worktree": mine,
    }
    assert changed_control(before, after) == ["worktrees/GH-1/config.worktree"]


def test_restore_deletes_new_files_and_writes_back_changed_ones(tmp_path: Path):
    (tmp_path / "hooks").mkdir()
    (tmp_path / "config").write_bytes(CONFIG.data)
    before = control_files(tmp_path)
    (tmp_path / "config").write_text("[core]\n\tfsmonitor = ./evil\n")
    (tmp_path / "hooks" / "post-checkout").write_text("#!/bin/sh\nevil\n")
    (tmp_path / "info").mkdir()
    (tmp_path / "info" / "attributes").write_text("* filter=evil\n")
    changed = changed_control(before, control_files(tmp_path))
    assert changed == ["config", "hooks/post-checkout", "info/attributes"]

    restore(tmp_path, before, changed)
    assert (tmp_path / "config").read_bytes() == CONFIG.data
    assert not (tmp_path / "hooks" / "post-checkout").exists()
    assert not (tmp_path / "info" / "attributes").exists()
    assert changed_control(before, control_files(tmp_path)) == []


def test_a_hooks_folder_swapped_for_a_link_is_put_back_with_its_modes(tmp_path: Path):
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    (hooks / "pre-commit").write_text("#!/bin/sh\nmine\n")
    (hooks / "pre-commit").chmod(0o755)
    before = control_files(tmp_path)
    elsewhere = tmp_path.parent / f"{tmp_path.name}-evil"
    elsewhere.mkdir()
    (elsewhere / "post-checkout").write_text("evil\n")
    for child in hooks.iterdir():
        child.unlink()
    hooks.rmdir()
    os.symlink(elsewhere, hooks)
    changed = changed_control(before, control_files(tmp_path))
    assert changed == ["hooks", "hooks/pre-commit"]

    restore(tmp_path, before, changed)
    assert not hooks.is_symlink()
    assert (hooks / "pre-commit").read_text() == "#!/bin/sh\nmine\n"
    assert (hooks / "pre-commit").stat().st_mode & 0o777 == 0o755
    assert (elsewhere / "post-checkout").exists()  # a link is removed, never followed


def test_submodules_control_files_are_covered(tmp_path: Path):
    module = tmp_path / "modules" / "lib" / "x"
    (module / "hooks").mkdir(parents=True)
    (module / "HEAD").write_text("ref: refs/heads/main\n")
    (module / "config").write_text("[core]\n")
    (module / "hooks" / "post-merge").write_text("evil\n")
    found = set(control_files(tmp_path))
    assert found == {"modules/lib/x/config", "modules/lib/x/hooks/post-merge"}


def test_gits_own_server_info_is_no_control_file(tmp_path: Path):
    (tmp_path / "info").mkdir()
    (tmp_path / "info" / "refs").write_text("abc\trefs/heads/main\n")
    (tmp_path / "info" / "exclude").write_text("")
    assert set(control_files(tmp_path)) == {"info/exclude"}


def _tree(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


def test_ignored_files_written_added_or_removed_are_changes(tmp_path: Path):
    _tree(tmp_path, {".env": "A=1\n", "build/out.o": "x", "src/app.py": "tracked\n"})
    tracked = frozenset({"src/app.py"})
    before = checkout_files(tmp_path, tracked)
    assert set(before.files) == {".env", "build/out.o"}
    (tmp_path / ".env").write_text("A=2 and longer\n")
    (tmp_path / "build" / "out.o").unlink()
    _tree(tmp_path, {".ralph/notes.txt": "hi", "src/app.py": "changed, but the status's\n"})
    after = checkout_files(tmp_path, tracked)
    assert changed_checkout(before, after) == [".env", ".ralph/notes.txt", "build/out.o"]


def test_the_live_store_and_skipped_folders_are_left_out(tmp_path: Path):
    _tree(
        tmp_path,
        {
            ".ralph/ralph.db": "",
            ".ralph/ralph.db-wal": "",
            ".ralph/ralph.db-shm": "",
            ".ralph/scratch/research-GH-1/doc.md": "",
            "worktrees/GH-1/x.py": "",
            ".git/config": "",
            ".ralph/backup/old.db": "",
        },
    )
    found = checkout_files(tmp_path, frozenset(), skip={".git", "worktrees", ".ralph/scratch"})
    assert set(found.files) == {".ralph/backup/old.db"}  # only Ralph's live files are left out


def test_files_git_tracked_at_either_time_are_no_change_here():
    before = CheckoutFiles({"new.py": (1, 1, 1, 1)}, frozenset({"gone.py"}))
    after = CheckoutFiles({"gone.py": (1, 2, 3, 4)}, frozenset({"new.py"}))
    assert changed_checkout(before, after) == []


def test_a_walk_over_budget_leaves_the_depths_out_of_both_snapshots(tmp_path: Path):
    _tree(tmp_path, {".env": "A=1\n", **{f"node_modules/p{i}/index.js": "x" for i in range(50)}})
    before = checkout_files(tmp_path, frozenset(), budget=10)
    assert ".env" in before.files
    assert before.unwalked
    assert all(name.startswith("node_modules/") for name in before.unwalked)
    # The agent adds files ahead of the left-out folders: the later walk reads on.
    _tree(tmp_path, {f"aaa/{i}.txt": "x" for i in range(20)})
    after = checkout_files(tmp_path, frozenset(), budget=None, unwalked=before.unwalked)
    assert changed_checkout(before, after) == [f"aaa/{i}.txt" for i in sorted(range(20), key=str)]
