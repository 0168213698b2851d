"""Git configuration as confined processes see it: git's own reading of every level,
includes followed and continued values whole, written back flat without user names and
passwords in URLs, credential helpers or extra HTTP headers; everything else as
written. The files it was read from are hidden."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from ralph.sandbox._git_config import flattened_git_configs

PERSONS = """[core]
\tbare = false
[remote "origin"]
\turl = https://x-access-token:ghs_PLANTED@github.com/acme/app.git
\tpushurl = https://ghp_PLANTEDALONE@github.com/acme/app.git
\tfetch = +refs/heads/*:refs/remotes/origin/*
[remote "mirror"]
\turl = ssh://git@git.example/acme/app.git
[url "https://oauth2:glpat-PLANTED@gitlab.example/"]
\tinsteadOf = https://gitlab.example/
[credential "https://github.com"]
\thelper = !gh auth git-credential
[http "https://github.com/"]
\textraheader = AUTHORIZATION: basic PLANTEDHEADER
[user]
\tname = Me
"""


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    path = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(path)], check=True, timeout=30)
    return path


@pytest.fixture
def home(tmp_path: Path) -> Path:
    path = tmp_path / "home"
    path.mkdir()
    return path


def seen(repo: Path, home: Path) -> tuple[dict[Path, str], tuple[Path, ...]]:
    """What is shown in place of each file, and what is hidden."""
    configs = flattened_git_configs(
        repo, home=home, repository=repo / ".git" / "config", environ={"PATH": "/usr/bin:/bin"}
    )
    return {path: copy.read_text() for copy, path in configs.replaced}, configs.hidden


def git_reads(config: str, key: str) -> str:
    """What git reads as ``key`` in the file text ``config``."""
    line = ["git", "config", "--file", "-", "--get-all", key]
    return subprocess.run(line, input=config, capture_output=True, text=True, timeout=30).stdout


def test_credentials_are_taken_out_and_the_rest_kept(repo, home):
    (repo / ".git" / "config").write_text(PERSONS)
    shown, _ = seen(repo, home)
    clean = shown[repo / ".git" / "config"]
    assert "PLANTED" not in clean
    assert "helper" not in clean
    assert git_reads(clean, "remote.origin.url") == "https://github.com/acme/app.git\n"
    assert git_reads(clean, "remote.origin.pushurl") == "https://github.com/acme/app.git\n"
    assert git_reads(clean, "url.https://gitlab.example/.insteadof") == "https://gitlab.example/\n"
    # A login name alone is no secret.
    assert git_reads(clean, "remote.mirror.url") == "ssh://git@git.example/acme/app.git\n"
    assert git_reads(clean, "remote.origin.fetch") == "+refs/heads/*:refs/remotes/origin/*\n"
    assert git_reads(clean, "user.name") == "Me\n"
    assert git_reads(clean, "core.bare") == "false\n"
    assert (repo / ".git" / "config").read_text() == PERSONS  # the person's is untouched


def test_a_file_an_include_names_is_flattened_in_without_its_credentials_and_hidden(
    repo, home, tmp_path
):
    included = tmp_path / "included"
    included.write_text('[remote "incl"]\n\turl = https://incuser:PLANTEDINCLUDE0012@h/x.git\n')
    conditional = tmp_path / "conditional"
    conditional.write_text("[http]\n\textraHeader = Authorization: Bearer PLANTEDIF\n")
    with (repo / ".git" / "config").open("a") as config:
        config.write(f"[include]\n\tpath = {included}\n")
        config.write(f'[includeIf "gitdir:{repo}/"]\n\tpath = {conditional}\n')
    shown, hidden = seen(repo, home)
    clean = shown[repo / ".git" / "config"]
    assert "PLANTED" not in clean
    assert "include" not in clean.lower()
    assert git_reads(clean, "remote.incl.url") == "https://h/x.git\n"
    assert {included, conditional} <= set(hidden)


def test_a_url_continued_over_two_lines_is_read_whole(repo, home):
    with (repo / ".git" / "config").open("a") as config:
        config.write(
            '[remote "o"]\n\tpushurl = https://u:GITCONTPLANTED\\\n0004@127.0.0.1:9/x.git\n'
        )
    shown, _ = seen(repo, home)
    clean = shown[repo / ".git" / "config"]
    assert "PLANTED" not in clean
    assert "0004" not in clean
    assert git_reads(clean, "remote.o.pushurl") == "https://127.0.0.1:9/x.git\n"


def test_the_global_and_xdg_levels_become_one_file_in_the_home(repo, home):
    (home / ".config" / "git").mkdir(parents=True)
    xdg = home / ".config" / "git" / "config"
    xdg.write_text("[user]\n\tname = Xdg\n[credential]\n\thelper = store\n")
    (home / ".gitconfig").write_text("[user]\n\temail = me@example.com\n")
    shown, hidden = seen(repo, home)
    flat = shown[home / ".gitconfig"]
    assert git_reads(flat, "user.name") == "Xdg\n"
    assert git_reads(flat, "user.email") == "me@example.com\n"
    assert "helper" not in flat
    assert xdg in hidden


def test_where_git_cannot_read_the_configuration_every_file_is_hidden(tmp_path, home):
    configs = flattened_git_configs(
        tmp_path, home=home, repository=tmp_path / "config", environ={"PATH": "/nonexistent"}
    )
    assert configs.replaced == ()
    assert set(configs.hidden) == {home / ".gitconfig", tmp_path / "config"}


def test_a_reading_is_kept_until_a_file_it_came_from_changes(repo, home, tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(home))
    included = tmp_path / "included"
    included.write_text("[user]\n\tname = First\n")
    with (repo / ".git" / "config").open("a") as config:
        config.write(f"[include]\n\tpath = {included}\n")

    def name() -> str:
        configs = flattened_git_configs(repo, home=home, repository=repo / ".git" / "config")
        shown = {path: copy for copy, path in configs.replaced}
        return git_reads(shown[repo / ".git" / "config"].read_text(), "user.name")

    assert name() == "First\n"
    assert name() == "First\n"
    included.write_text("[user]\n\tname = Second one\n")  # another size: seen at once
    assert name() == "Second one\n"


def test_a_worktree_config_takes_only_its_own_lines_never_a_file_it_includes(repo, home, tmp_path):
    """config.worktree lies in the agent's reach: an include written there would have
    any file of the host (~/.pypirc, read as config) flattened into what the agent sees."""
    pypirc = home / ".pypirc"
    pypirc.write_text("[pypi]\n\tpassword = pypi-PLANTEDPYPI\n")
    subprocess.run(
        ["git", "-C", str(repo), "config", "extensions.worktreeConfig", "true"], check=True
    )
    worktree_config = repo / ".git" / "config.worktree"
    worktree_config.write_text(f"[core]\n\tsparseCheckout = true\n[include]\n\tpath = {pypirc}\n")
    configs = flattened_git_configs(
        repo,
        home=home,
        repository=repo / ".git" / "config",
        worktree=worktree_config,
        environ={"PATH": "/usr/bin:/bin", "HOME": str(home)},
    )
    shown = "".join(copy.read_text() for copy, _ in configs.replaced)
    assert "PLANTEDPYPI" not in shown
    assert "sparsecheckout" in shown.lower()
