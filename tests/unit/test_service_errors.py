"""Each service's errors derive from the shared bases, so entry points (exit codes, the
web's 503) name the bases alone and a new service needs no line there."""

from __future__ import annotations

import pytest

from ralph import errors
from ralph.cli._exits import EXIT_FAILED, EXIT_INPUT, exit_code
from ralph.linear import (
    LinearAmbiguous,
    LinearAuthError,
    LinearNotFound,
    LinearRateLimited,
    LinearUnavailable,
)

_SHARED = {
    errors.GitHubUnavailable: errors.ServiceUnavailable,
    errors.GitHubRateLimited: errors.ServiceRateLimited,
    errors.GitHubAuthError: errors.ServiceCredentialsRefused,
    errors.GitHubNotFound: errors.ServiceNotFound,
    LinearUnavailable: errors.ServiceUnavailable,
    LinearAmbiguous: errors.ServiceUnavailable,
    LinearRateLimited: errors.ServiceRateLimited,
    LinearAuthError: errors.ServiceCredentialsRefused,
    LinearNotFound: errors.ServiceNotFound,
}


@pytest.mark.parametrize(("error", "base"), list(_SHARED.items()), ids=lambda c: c.__name__)
def test_a_service_error_derives_from_its_shared_base(error: type, base: type) -> None:
    assert issubclass(error, base)


def test_what_a_service_did_not_answer_exits_1_and_a_refused_token_2() -> None:
    assert exit_code(LinearUnavailable("no answer")) == EXIT_FAILED
    assert exit_code(errors.GitHubRateLimited("limited")) == EXIT_FAILED
    assert exit_code(LinearAuthError("refused")) == EXIT_INPUT
