"""``ralph init --github --actions``: the GitHub Actions workflows that run ``ralph sync``
when a person closes or reopens an issue or merges a pull request. actionlint cannot be
installed from PyPI here (its wrapper downloads a binary at build time), so the files
are held to the workflow schema's rules: they parse as YAML, run on the events GitHub
sends for those actions, each job runs on a runner with steps that either use an action
or run a command, every expression reads a context GitHub has, and every secret they
read is documented in their header."""

from __future__ import annotations

import re
from importlib.metadata import version
from pathlib import Path
from typing import Any

import pytest
import yaml
from packaging.requirements import Requirement

from ralph.project._actions import ACTIONS_SECRETS

WORKFLOWS = Path(".github") / "workflows"
#: The contexts a workflow's expressions may read (GitHub's docs, "Contexts").
CONTEXTS = {
    "github",
    "env",
    "vars",
    "job",
    "jobs",
    "steps",
    "runner",
    "secrets",
    "strategy",
    "matrix",
    "needs",
    "inputs",
}
#: The top-level keys of a workflow (the workflow schema's properties).
TOP_LEVEL = {"name", "run-name", "on", "permissions", "env", "defaults", "concurrency", "jobs"}
JOB_KEYS = {
    "name",
    "needs",
    "permissions",
    "runs-on",
    "environment",
    "concurrency",
    "outputs",
    "env",
    "defaults",
    "if",
    "steps",
    "timeout-minutes",
    "strategy",
    "continue-on-error",
    "container",
    "services",
}
STEP_KEYS = {
    "id",
    "if",
    "name",
    "uses",
    "run",
    "working-directory",
    "shell",
    "with",
    "env",
    "continue-on-error",
    "timeout-minutes",
}


def load(path: Path) -> dict[str, Any]:
    data = yaml.safe_load(path.read_text())
    # YAML 1.1 reads the key ``on`` as True; GitHub reads it as "on".
    data["on"] = data.pop(True)
    return dict(data)


def check_schema(data: dict[str, Any], text: str) -> None:
    assert set(data) <= TOP_LEVEL
    assert data["name"]
    for job in data["jobs"].values():
        assert set(job) <= JOB_KEYS
        assert job["runs-on"] == "ubuntu-latest"
        assert 1 <= job["timeout-minutes"] <= 360
        for step in job["steps"]:
            assert set(step) <= STEP_KEYS, step
            assert ("uses" in step) != ("run" in step), step
            if "uses" in step:
                assert re.fullmatch(r"[\w.-]+/[\w.-]+@v\d+", step["uses"]), step
    expressions = re.findall(r"\$\{\{(.*?)\}\}", text)
    assert expressions
    assert text.count("${{") == len(expressions) == text.count("}}")
    for expression in expressions:
        for context in re.findall(r"(?<![\w.'])([a-z_]+)\.", expression):
            assert context in CONTEXTS, expression
    read = set(re.findall(r"secrets\.(\w+)", text))
    assert read == set(ACTIONS_SECRETS)
    header = text.split("\nname:")[0]
    for secret in read:
        assert f"#   {secret}: " in header
    for variable in set(re.findall(r"vars\.(\w+)", text)):
        assert f" {variable}, " in header


def check_install_step(job: dict[str, Any]) -> None:
    """Ralph is installed from a requirement pip understands: this release of the
    distribution unless the repository variable RALPH_PACKAGE names another."""
    (step,) = (s for s in job["steps"] if s.get("name") == "Install Ralph")
    assert step["run"] == 'python -m pip install "$RALPH_PACKAGE"'
    default = f"ralph-delivery[postgres]=={version('ralph-delivery')}"
    assert step["env"]["RALPH_PACKAGE"] == f"${{{{ vars.RALPH_PACKAGE || '{default}' }}}}"
    requirement = Requirement(default)
    assert (requirement.name, requirement.extras) == ("ralph-delivery", {"postgres"})


def test_init_writes_the_sync_workflows(served, project):
    made = served.ralph("init", "--github", "acme/shop", "--actions", cwd=project.path)
    assert made.returncode == 0, made.stderr
    assert "Wrote .github/workflows/ralph-sync-issue.yml" in made.stdout
    assert "RALPH_GH_TOKEN" in made.stdout
    issue_file = project.path / WORKFLOWS / "ralph-sync-issue.yml"
    issue = load(issue_file)
    check_schema(issue, issue_file.read_text())
    assert issue["on"]["issues"]["types"] == ["closed", "reopened"]
    assert "workflow_dispatch" in issue["on"]
    (job,) = issue["jobs"].values()
    check_install_step(job)
    run = job["steps"][-1]["run"]
    assert "ralph db migrate" in run
    assert 'ralph sync issue "$ISSUE"' in run
    assert job["steps"][-1]["env"]["ISSUE"] == "${{ github.event.issue.number || inputs.issue }}"
    pr_file = project.path / WORKFLOWS / "ralph-sync-pr.yml"
    pr = load(pr_file)
    check_schema(pr, pr_file.read_text())
    assert pr["on"]["pull_request"]["types"] == ["closed"]
    (job,) = pr["jobs"].values()
    assert "github.event.pull_request.merged == true" in job["if"]
    check_install_step(job)
    assert 'ralph sync pr "$PULL_REQUEST"' in job["steps"][-1]["run"]


def test_an_existing_workflow_is_never_rewritten(served, project):
    mine = project.path / WORKFLOWS / "ralph-sync-pr.yml"
    mine.parent.mkdir(parents=True)
    mine.write_text("name: mine\n")
    made = served.ralph("init", "--github", "acme/shop", "--actions", cwd=project.path)
    assert made.returncode == 0, made.stderr
    assert "Kept (it exists) .github/workflows/ralph-sync-pr.yml" in made.stdout
    assert mine.read_text() == "name: mine\n"
    assert (project.path / WORKFLOWS / "ralph-sync-issue.yml").exists()


@pytest.mark.parametrize("args", [("init", "--actions")])
def test_actions_without_a_github_board_is_one_line_and_writes_nothing(ralph_cli, project, args):
    code, _, err = ralph_cli(*args, str(project.path))
    assert code == 2
    assert err.strip().count("\n") == 0
    assert "--github OWNER/REPO --actions" in err
    assert not (project.path / ".github").exists()
    assert not (project.path / "ralph.toml").exists()


def test_ralph_sync_on_a_github_board_as_the_workflow_runs_it(served, project):
    made = served.ralph("init", "--github", "acme/shop", cwd=project.path)
    assert made.returncode == 0, made.stderr
    filed = served.ralph("issue", "new", "Login", "--state", "In Progress", cwd=project.path)
    assert filed.returncode == 0, filed.stderr
    issue = served.fake.repository("acme/shop").issue_list[0]
    issue.state, issue.stateReason = "CLOSED", "NOT_PLANNED"  # closed in GitHub's UI
    first = served.ralph("sync", "issue", "1", cwd=project.path)
    assert first.returncode == 0, first.stderr
    assert "#1: In Progress -> Canceled (closed as not planned)." in first.stdout
    again = served.ralph("sync", "issue", "1", cwd=project.path)
    assert "nothing to sync" in again.stdout
    missing = served.ralph("sync", "pr", "99", cwd=project.path)
    assert missing.returncode == 2
    assert missing.stderr.strip() == "ralph: error: Pull request #99 not found"
