"""What a token can reach, as GitHub decides it: fine-grained and installation tokens
never see a user's board (GitHub answers as if there were none), and doctor checks what
each token may do (role, issues, archived, board open and writable), not only scopes."""

from __future__ import annotations

import pytest

from ralph.errors import GitHubAuthError
from ralph.github import GitHubClient, Pacer, PacingPolicy, Tokens
from ralph.github.fake import FakeGitHub
from ralph.tracker import check_board, set_up_board

CLASSIC = "ghp_classic"
FINE = "github_pat_11fine"
INSTALLATION = "ghs_installation"
USER_BOARD_LINE = "a user-owned board needs a classic token or OAuth token with the project scope"


def client_of(github: FakeGitHub, *tokens: str) -> GitHubClient:
    return GitHubClient(github, Tokens(*tokens), pacer=Pacer(PacingPolicy(mutation_interval=0)))


@pytest.fixture
def github() -> FakeGitHub:
    fake = FakeGitHub()
    for token in (CLASSIC, FINE, INSTALLATION):
        fake.add_token(token, "acme")
    fake.add_repository("acme/shop")
    set_up_board(client_of(fake, CLASSIC), "acme/shop")
    return fake


def checks_of(github: FakeGitHub, *tokens: str, project: int = 1) -> dict[str, tuple[bool, str]]:
    found = check_board(client_of(github, *tokens), "acme/shop", project=project)
    return {check.name: (check.ok, check.detail) for check in found}


@pytest.mark.parametrize("token", [FINE, INSTALLATION])
def test_doctor_says_a_user_board_needs_a_classic_token_instead_of_not_found(github, token):
    checks = checks_of(github, token)
    ok, detail = checks["project"]
    assert not ok
    assert USER_BOARD_LINE in detail
    assert "not found" not in detail
    assert checks["RALPH_GH_TOKEN scopes"] == (True, "not listed (the access checks below tell)")


def test_the_board_token_of_a_split_pair_is_the_one_named(github):
    _, detail = checks_of(github, CLASSIC, FINE)["project"]
    assert (
        f"acme is a user and RALPH_GH_PROJECT_TOKEN is a fine-grained token: {USER_BOARD_LINE}"
        == detail
    )


def test_init_with_a_fine_grained_token_on_a_user_board_says_so_and_creates_nothing(github):
    for project in (1, None):
        with pytest.raises(GitHubAuthError, match=USER_BOARD_LINE):
            set_up_board(client_of(github, FINE), "acme/shop", project=project)
    assert len(github.world.accounts["acme"].projects) == 1


def test_an_organisation_board_out_of_a_fine_grained_tokens_reach_names_the_permission(github):
    github.add_repository("bigco/shop", organization=True)
    found = check_board(client_of(github, FINE), "bigco/shop", project=3)
    ok, detail = {c.name: (c.ok, c.detail) for c in found}["project"]
    assert not ok
    assert "needs the organization permission Projects: read and write on bigco" in detail


def test_doctor_checks_what_the_token_may_do(github):
    checks = checks_of(github, CLASSIC)
    assert checks["token"] == (True, "authenticated as acme (classic token)")
    assert checks["repository access"][0]
    assert checks["issues"] == (True, "enabled")
    assert checks["project access"] == (True, "the token can edit the board")
    assert "repository open" not in checks
    assert "project open" not in checks


def test_doctor_names_each_capability_the_token_lacks(github):
    repository = github.repository("acme/shop")
    repository.roles["acme"] = "TRIAGE"
    repository.hasIssuesEnabled = False
    repository.isArchived = True
    board = github.world.accounts["acme"].projects[0]
    board.closed = True
    board.readers.add("acme")
    checks = checks_of(github, CLASSIC)
    failed = {name: detail for name, (ok, detail) in checks.items() if not ok}
    assert set(failed) == {
        "repository access",
        "repository open",
        "issues",
        "project open",
        "project access",
    }
    assert "role on acme/shop is triage; Ralph needs write access" in failed["repository access"]
    assert "turn them on in its settings" in failed["issues"]
    assert failed["project open"] == "project #1 is closed; reopen it"
