"""Ralph ships no other project's API definition: the fakes of GitHub and Linear execute
against a copy of the published schema they are pointed at, and one given none, or a
file that is not that schema, says in one line which file it needs and where it is
published."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from ralph.errors import ConfigError
from ralph.github.fake import FakeGitHub
from ralph.linear.fake import FakeLinear
from tests.published import DEFINITIONS

ROOT = Path(__file__).resolve().parents[2]

LINEAR_ADVICE = (
    "the fake Linear needs Linear's published GraphQL schema: set RALPH_LINEAR_SCHEMA to a "
    "copy of schema.graphql from github.com/linear/linear (packages/sdk/src/schema.graphql)"
)
GITHUB_ADVICE = (
    "the fake GitHub needs GitHub's published GraphQL schema: set RALPH_GITHUB_SCHEMA to a "
    "copy of schema.graphql from the npm package @octokit/graphql-schema (15.26.1), with the "
    "issue-dependencies extension (issue-dependencies.graphql) beside it"
)
#: A GraphQL schema or an OpenAPI document, plain or compressed.
DEFINITION_FILE = re.compile(
    r"\.(graphql|gql|graphqls)(\.gz)?$|(openapi|swagger)[^/]*\.(json|ya?ml)(\.gz)?$",
    re.IGNORECASE,
)


def test_no_api_definition_is_committed():
    tracked = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.splitlines()
    assert [path for path in tracked if DEFINITION_FILE.search(path)] == []


def test_the_suite_points_the_fakes_at_the_copies_beside_the_repository():
    assert all(path.is_file() for path in DEFINITIONS.values()), DEFINITIONS


def test_a_fake_linear_given_no_schema_says_which_file_and_where_it_is_published(
    monkeypatch: pytest.MonkeyPatch,
):
    monkeypatch.delenv("RALPH_LINEAR_SCHEMA")
    with pytest.raises(ConfigError) as refused:
        FakeLinear()
    assert str(refused.value) == LINEAR_ADVICE


def test_a_fake_github_given_no_schema_says_which_file_and_where_it_is_published(
    monkeypatch: pytest.MonkeyPatch,
):
    monkeypatch.delenv("RALPH_GITHUB_SCHEMA")
    with pytest.raises(ConfigError) as refused:
        FakeGitHub()
    assert str(refused.value) == GITHUB_ADVICE


def test_a_path_that_is_no_file_is_named(tmp_path: Path):
    with pytest.raises(ConfigError) as refused:
        FakeLinear(schema=tmp_path / "missing.graphql")
    assert str(refused.value) == f"{tmp_path / 'missing.graphql'} is not a file; {LINEAR_ADVICE}"


def test_a_file_that_is_not_the_schema_is_named(tmp_path: Path):
    wrong = tmp_path / "schema.graphql"
    wrong.write_text("<html>Not Found</html>\n")
    with pytest.raises(ConfigError) as refused:
        FakeLinear(schema=wrong)
    (line,) = str(refused.value).splitlines()
    assert line.startswith(f"{wrong} is not Linear's published GraphQL schema (Syntax Error")
    assert line.endswith(LINEAR_ADVICE)


def test_github_s_schema_without_the_dependencies_extension_beside_it_is_named(
    tmp_path: Path,
):
    alone = tmp_path / "schema.graphql"
    shutil.copyfile(DEFINITIONS["RALPH_GITHUB_SCHEMA"], alone)
    with pytest.raises(ConfigError) as refused:
        FakeGitHub(schema=alone)
    assert str(refused.value) == (
        f"{tmp_path / 'issue-dependencies.graphql'} is missing; {GITHUB_ADVICE}"
    )
    # A server without issue dependencies needs only GitHub's own file.
    assert FakeGitHub(schema=alone, dependencies=False).schema.get_type("Issue") is not None


def test_a_schema_given_directly_wins_over_the_variable(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
):
    monkeypatch.setenv("RALPH_LINEAR_SCHEMA", str(tmp_path / "elsewhere.graphql"))
    fake = FakeLinear(schema=DEFINITIONS["RALPH_LINEAR_SCHEMA"])
    assert fake.schema.get_type("Issue") is not None
