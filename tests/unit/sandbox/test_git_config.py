"""A git config file as confined processes see it: remote URLs without user names and
passwords, no credential helper, no extra HTTP header; everything else as written."""

from __future__ import annotations

from ralph.sandbox._git_config import sanitised_git_config, without_credentials

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


def test_credentials_are_taken_out_and_the_rest_kept():
    clean = without_credentials(PERSONS)
    assert "PLANTED" not in clean
    assert "helper" not in clean
    assert "\turl = https://github.com/acme/app.git\n" in clean
    assert "\tpushurl = https://github.com/acme/app.git\n" in clean
    assert '[url "https://gitlab.example/"]' in clean
    assert "\turl = ssh://git@git.example/acme/app.git\n" in clean  # a login, no secret
    assert "\tfetch = +refs/heads/*:refs/remotes/origin/*\n" in clean
    assert "[user]\n\tname = Me\n" in clean


def test_a_copy_is_made_only_of_a_file_holding_credentials(tmp_path):
    persons = tmp_path / "config"
    persons.write_text(PERSONS)
    copy = sanitised_git_config(persons)
    assert copy is not None
    assert copy.read_text() == without_credentials(PERSONS)
    assert persons.read_text() == PERSONS
    assert sanitised_git_config(copy) is None
    assert sanitised_git_config(tmp_path / "absent") is None
