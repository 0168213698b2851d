"""``ralph init``'s services take their roles from their records: the one that holds no
code has the issues, the other the pull requests; a kind with no set-up is refused."""

from __future__ import annotations

import pytest

from ralph.errors import ConfigError
from ralph.project._init import _roles

pytestmark = pytest.mark.timeout(30)


def test_one_service_holds_the_issues() -> None:
    assert _roles({"github": "acme/shop"}) == ("github", "")
    assert _roles({"linear": "ENG"}) == ("linear", "")
    assert _roles({}) == ("", "")


def test_of_two_the_one_that_holds_no_code_has_the_issues_whatever_the_order() -> None:
    assert _roles({"github": "acme/shop", "linear": "ENG"}) == ("linear", "github")
    assert _roles({"linear": "ENG", "github": "acme/shop"}) == ("linear", "github")


def test_a_kind_without_a_set_up_is_refused_in_one_line() -> None:
    with pytest.raises(ConfigError, match="cannot set up 'local'"):
        _roles({"local": "x"})
    with pytest.raises(ConfigError, match="cannot set up 'asana'"):
        _roles({"asana": "PROJ"})


def test_of_two_that_both_hold_code_code_host_names_the_one_with_the_pull_requests() -> None:
    both = {"gitlab": "acme/app", "github": "acme/shop"}
    assert _roles(both, "github") == ("gitlab", "github")
    assert _roles(both, "gitlab") == ("github", "gitlab")
    assert _roles({"linear": "ENG", "gitlab": "acme/app"}) == ("linear", "gitlab")
    with pytest.raises(ConfigError, match=r"both hold code; .* --code-host"):
        _roles(both)
    with pytest.raises(ConfigError, match="--code-host linear names no service given"):
        _roles(both, "linear")
    with pytest.raises(ConfigError, match="linear holds no pull requests"):
        _roles({"linear": "ENG", "gitlab": "acme/app"}, "linear")
