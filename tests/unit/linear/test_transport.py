"""How the key travels and where it goes."""

from __future__ import annotations

from ralph.linear import DEFAULT_API_URL, api_url, authorization


def test_an_api_key_is_sent_bare():
    assert authorization("lin_api_abc123") == "lin_api_abc123"


def test_an_oauth_token_is_sent_as_a_bearer_token():
    assert authorization("lin_oauth_abc123") == "Bearer lin_oauth_abc123"
    assert authorization("Bearer xyz") == "Bearer xyz"


def test_the_endpoint_is_linears_unless_the_environment_says_otherwise():
    assert api_url({}) == DEFAULT_API_URL == "https://api.linear.app/graphql"
    assert api_url({"RALPH_LINEAR_API_URL": " http://127.0.0.1:9/graphql "}) == (
        "http://127.0.0.1:9/graphql"
    )
