"""Who may reach the board: loopback needs no token, anything else a token no one could
guess, and a CSRF token matches only its own cookie."""

from __future__ import annotations

import pytest

from ralph.errors import InvalidInput
from ralph.web import check_token, is_loopback
from ralph.web._security import csrf_matches, new_csrf_token


@pytest.mark.parametrize("host", ["127.0.0.1", "127.1.2.3", "::1", "localhost"])
def test_loopback_addresses_reach_this_machine_only(host: str) -> None:
    assert is_loopback(host)


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.168.1.2", "example.com", "", "10.0.0.1"])
def test_every_other_address_may_be_reached_from_elsewhere(host: str) -> None:
    assert not is_loopback(host)


@pytest.mark.parametrize(
    "token", ["", "short", "x" * 15, "has a space 0123456789", "semi;colon;0123456789", "é" * 20]
)
def test_a_token_that_guards_nothing_is_refused(token: str) -> None:
    with pytest.raises(InvalidInput):
        check_token(token)


def test_a_generated_token_is_accepted() -> None:
    import secrets

    token = secrets.token_urlsafe(24)
    assert check_token(token) == token


def test_a_csrf_token_matches_only_the_same_one() -> None:
    token = new_csrf_token()
    assert csrf_matches(token, token)
    assert not csrf_matches(token, new_csrf_token())
    assert not csrf_matches(None, token)
    assert not csrf_matches("", "")
