"""A GitHub client from a project's settings and the environment's tokens."""

from __future__ import annotations

from collections.abc import Mapping

from ralph.config import TOKEN_VARIABLES, GitHubSettings, env_value
from ralph.errors import ConfigError
from ralph.github import (
    GitHubClient,
    HttpTransport,
    Pacer,
    PacingPolicy,
    SharedPacing,
    Tokens,
    Transport,
    pacing_dir,
)

__all__ = ["github_client", "github_tokens"]


def github_tokens(env: Mapping[str, str]) -> Tokens:
    """The tokens from the environment; ConfigError saying how to set one if none is."""
    repo = next((env_value(env, name) for name in TOKEN_VARIABLES if env_value(env, name)), "")
    if not repo:
        raise ConfigError(
            "no GitHub token: set RALPH_GH_TOKEN to a token with the repo and project "
            "scopes (a classic token also needs read:org for organisation boards)"
        )
    return Tokens(repo=repo, board=env_value(env, "RALPH_GH_PROJECT_TOKEN"))


def github_client(
    settings: GitHubSettings, env: Mapping[str, str], *, transport: Transport | None = None
) -> GitHubClient:
    """A client of ``settings.url`` with the environment's tokens, mutations spaced by
    ``settings.mutation_interval`` (``transport`` replaces HTTPS, for tests)."""
    tokens = github_tokens(env)
    # One pacer per token across this user's processes (workers, agents' MCP servers,
    # ralph status): GitHub counts its limits per token, not per process.
    shared = SharedPacing.for_token(pacing_dir(env), settings.url, tokens.repo)
    return GitHubClient(
        transport or HttpTransport(settings.url),
        tokens,
        pacer=Pacer(PacingPolicy(mutation_interval=settings.mutation_interval), shared=shared),
    )
