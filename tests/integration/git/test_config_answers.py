"""Who signs Ralph's commits and whether a remote exists are asked of git once, then
kept while git's config files stay as they were: a change to any of them (the
repository's, the person's global one) is seen at the next question."""

from __future__ import annotations

import subprocess
import threading
import time
from pathlib import Path

import pytest

from ralph.git import GitRepo
from tests.integration.git._counting import gits_started


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, timeout=30)


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> GitRepo:
    """A repository with no identity anywhere git looks: its own config, a global one
    of the test's, no system one."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(home / ".gitconfig"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for role in ("AUTHOR", "COMMITTER"):
        for field in ("NAME", "EMAIL"):
            monkeypatch.delenv(f"GIT_{role}_{field}", raising=False)
    (home / ".gitconfig").write_text("")
    path = tmp_path / "repo"
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    return GitRepo(path)


FALLBACK = {
    "GIT_AUTHOR_NAME": "Ralph",
    "GIT_AUTHOR_EMAIL": "ralph@localhost",
    "GIT_COMMITTER_NAME": "Ralph",
    "GIT_COMMITTER_EMAIL": "ralph@localhost",
}


def test_without_an_identity_ralph_signs_and_asks_git_once(repo: GitRepo, monkeypatch):
    assert repo.identity_env() == FALLBACK
    started = gits_started(monkeypatch)
    for _ in range(3):
        assert repo.identity_env() == FALLBACK
        assert GitRepo(repo.path).identity_env() == FALLBACK  # a new GitRepo, same files
    assert started == []


def test_a_name_set_in_the_repository_after_the_first_look_is_seen(repo: GitRepo):
    assert repo.identity_env() == FALLBACK
    git(repo.path, "config", "user.name", "Pat")
    git(repo.path, "config", "user.email", "pat@example.com")
    assert repo.identity_env() == {}
    git(repo.path, "config", "--unset", "user.email")
    assert repo.identity_env() == {
        "GIT_AUTHOR_EMAIL": "ralph@localhost",
        "GIT_COMMITTER_EMAIL": "ralph@localhost",
    }


def test_a_changed_global_config_is_seen(repo: GitRepo, tmp_path: Path):
    assert repo.identity_env() == FALLBACK
    (tmp_path / "home" / ".gitconfig").write_text(
        "[user]\n\tname = Pat\n\temail = pat@example.com\n"
    )
    assert repo.identity_env() == {}


def test_a_global_config_file_named_anew_is_read(repo: GitRepo, tmp_path, monkeypatch):
    assert repo.identity_env() == FALLBACK
    other = tmp_path / "other.gitconfig"
    other.write_text("[user]\n\tname = Pat\n\temail = pat@example.com\n")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(other))
    assert repo.identity_env() == {}


def test_an_identity_in_ralphs_environment_is_not_overridden(repo: GitRepo, monkeypatch):
    monkeypatch.setenv("GIT_AUTHOR_NAME", "Someone")
    assert "GIT_AUTHOR_NAME" not in repo.identity_env()


def test_a_config_that_includes_another_file_is_asked_of_git_each_time(
    repo: GitRepo, tmp_path: Path, monkeypatch
):
    included = tmp_path / "identity.gitconfig"
    included.write_text("")
    git(repo.path, "config", "include.path", str(included))
    assert repo.identity_env() == FALLBACK
    # The included file is not among those watched: its change must still be seen.
    included.write_text("[user]\n\tname = Pat\n\temail = pat@example.com\n")
    assert repo.identity_env() == {}


def test_a_remote_added_after_the_first_look_is_seen(repo: GitRepo, tmp_path: Path):
    assert not repo.has_remote()
    git(repo.path, "remote", "add", "origin", str(tmp_path / "elsewhere.git"))
    assert repo.has_remote()
    assert not repo.has_remote("upstream")
    git(repo.path, "remote", "remove", "origin")
    assert not repo.has_remote()


def test_whether_a_remote_exists_is_asked_of_git_once(repo: GitRepo, tmp_path, monkeypatch):
    git(repo.path, "remote", "add", "origin", str(tmp_path / "elsewhere.git"))
    assert repo.has_remote()
    started = gits_started(monkeypatch)
    for _ in range(3):
        assert GitRepo(repo.path).has_remote()
    assert started == []


def test_a_remote_of_a_linked_worktrees_repository_is_seen_there(repo: GitRepo, tmp_path):
    git(
        repo.path,
        "-c",
        "user.name=A",
        "-c",
        "user.email=a@b.c",
        "commit",
        "-q",
        "--allow-empty",
        "-m",
        "1",
    )
    git(repo.path, "worktree", "add", "-q", "-b", "side", str(tmp_path / "side"))
    linked = GitRepo(tmp_path / "side")
    assert not linked.has_remote()
    git(repo.path, "remote", "add", "origin", str(tmp_path / "elsewhere.git"))
    assert linked.has_remote()


def test_threads_asking_while_a_remote_is_added_all_see_it_once_added(
    repo: GitRepo, tmp_path: Path
):
    added = threading.Event()
    stop = threading.Event()
    wrong: list[str] = []

    def ask() -> None:
        while not stop.is_set():
            after = added.is_set()
            if after and not GitRepo(repo.path).has_remote():
                wrong.append("a question asked after the remote was added missed it")

    askers = [threading.Thread(target=ask) for _ in range(3)]
    for asker in askers:
        asker.start()
    try:
        for n in range(3):
            git(repo.path, "remote", "add", f"r{n}", str(tmp_path / "elsewhere.git"))
        git(repo.path, "remote", "add", "origin", str(tmp_path / "elsewhere.git"))
        added.set()
        time.sleep(0.5)
    finally:
        stop.set()
        for asker in askers:
            asker.join(timeout=30)
    assert not any(asker.is_alive() for asker in askers)
    assert wrong == []
    assert repo.has_remote()
