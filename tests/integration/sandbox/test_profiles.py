"""The profiles Ralph confines with, read off real checkouts: what git needs to commit in
a worktree, and nothing of a main checkout's git directory or store."""

from __future__ import annotations

import os
from pathlib import Path

from ralph.git import GitRepo, Worktrees
from ralph.sandbox import agent_profile, git_commit_paths, profile_for_tests


def test_a_worktree_commits_into_the_objects_its_admin_dir_and_its_branch_folder(machine):
    git = machine.repo.path / ".git"
    assert git_commit_paths(machine.worktree) == (
        git / "objects",
        git / "worktrees" / "GH-1",
        git / "refs" / "heads" / "feature",
        git / "logs" / "refs" / "heads" / "feature",
    )


def test_a_missing_branch_folder_is_made_for_the_bind(machine):
    """A packed ref has no loose folder; bubblewrap can only bind what exists."""
    git = machine.repo.path / ".git"
    GitRepo(machine.repo.path).git("pack-refs", "--all", what="pack")
    assert not (git / "refs" / "heads" / "feature").exists()
    assert git / "refs" / "heads" / "feature" in git_commit_paths(machine.worktree)
    assert (git / "refs" / "heads" / "feature").is_dir()


def test_a_detached_scratch_checkout_gets_no_branch_folder(machine):
    git = machine.repo.path / ".git"
    with Worktrees(GitRepo(machine.repo.path)).scratch("plan-GH-1", "main") as scratch:
        assert git_commit_paths(scratch) == (git / "objects", git / "worktrees" / "plan-GH-1")


def test_a_main_checkout_or_a_plain_folder_gets_nothing_of_git(machine, tmp_path):
    assert git_commit_paths(machine.repo.path) == ()
    (tmp_path / "plain").mkdir()
    assert git_commit_paths(tmp_path / "plain") == ()


def test_a_main_checkout_as_workdir_keeps_its_git_dir_and_store_read_only(machine):
    profile = agent_profile(machine.repo.path, home=machine.home)
    assert machine.repo.path in profile.writable
    assert profile.protected == (machine.repo.path / ".git", machine.repo.path / ".ralph")


def test_the_agent_gets_a_home_of_its_own_and_network_the_tests_neither(machine, tmp_path):
    agent = agent_profile(machine.worktree, home=machine.home, own_home=tmp_path / "own")
    tests = profile_for_tests(machine.worktree, home=machine.home)
    assert (agent.home, agent.own_home) == (machine.home, tmp_path / "own")
    assert (tmp_path / "own" / ".cache").is_dir()
    assert (tests.home, tests.own_home) == (machine.home, None)  # empty
    assert agent.network is True
    assert tests.writable == (machine.worktree,)
    assert tests.network is False
    assert profile_for_tests(machine.worktree, home=machine.home, network=True).network
    for profile in (agent, tests):
        assert profile.hidden[:2] == (machine.home / ".ssh", machine.home / ".git-credentials")
        # The repository lives under /tmp here, which confined code gets privately (so
        # may this Python and its sources: a clone in /tmp shows them too).
        assert profile.readable[0] == machine.repo.path
        assert machine.home not in profile.readable


def test_a_worktrees_pointers_to_its_git_dir_stay_read_only(machine):
    admin = machine.repo.path / ".git" / "worktrees" / "GH-1"
    pointers = (machine.worktree / ".git", admin / "commondir", admin / "gitdir")
    assert agent_profile(machine.worktree, home=machine.home).protected == pointers
    # The tests cannot write the admin folder at all: only the worktree's own pointer.
    assert profile_for_tests(machine.worktree, home=machine.home).protected == pointers[:1]


def test_a_known_agent_cli_gets_a_copy_of_its_own_state_and_no_other(machine, tmp_path):
    for name in (".codex", ".claude"):
        (machine.home / name).mkdir()
        (machine.home / name / "auth.json").write_text(f"{name} login")
    (machine.home / ".codex" / "sessions").mkdir()  # past sessions: not copied
    own = tmp_path / "own"
    codex = tmp_path / "bin" / "codex"
    agent_profile(machine.worktree, home=machine.home, program=codex, own_home=own)
    assert (own / ".codex" / "auth.json").read_text() == ".codex login"
    assert not (own / ".codex" / "sessions").exists()
    assert not (own / ".claude").exists()  # only the agent's own
    # A command of the person's own gets none of them.
    other = tmp_path / "other"
    agent_profile(machine.worktree, home=machine.home, program=tmp_path / "x", own_home=other)
    assert [path.name for path in other.iterdir()] == [".cache"]


def test_files_an_agent_command_names_under_tmp_stay_readable(machine, tmp_path):
    script = tmp_path / "agents" / "builder.py"
    script.parent.mkdir()
    script.write_text("print('hi')\n")
    prompt = "/" + "a prompt passed as one argument " * 200  # no path, and too long for one
    profile = agent_profile(
        machine.worktree, home=machine.home, arguments=[str(script), prompt, "/x\0y", "-q"]
    )
    assert script in profile.readable
    assert not any(str(path).startswith("/a prompt") for path in profile.readable)


def test_tmp_itself_on_the_path_is_never_shown_again(machine, monkeypatch):
    # `python -m ralph` run from /tmp puts /tmp on sys.path; some PATHs hold it too.
    monkeypatch.setenv("PATH", f"/tmp:{os.environ['PATH']}")
    monkeypatch.syspath_prepend("/tmp")
    profile = profile_for_tests(machine.worktree, home=machine.home)
    assert Path("/tmp") not in profile.readable


def test_a_path_entry_inside_another_homes_toolchain_shows_the_whole_toolchain(
    machine, monkeypatch, tmp_path
):
    """pyenv's shim runs ``libexec/pyenv`` beside it: with the home it lives in hidden (the
    person's HOME is elsewhere), showing the shims alone left ``python3`` unable to start."""
    pyenv = tmp_path / "person" / ".pyenv"
    for folder in ("shims", "libexec", "versions"):
        (pyenv / folder).mkdir(parents=True)
    monkeypatch.setenv("PATH", f"{pyenv / 'shims'}{os.pathsep}/usr/bin")
    profile = profile_for_tests(machine.worktree, home=machine.home)
    assert pyenv.resolve() in profile.readable
    assert (tmp_path / "person").resolve() not in profile.readable
