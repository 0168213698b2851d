"""ralph.toml's spending caps, prices and fallback agents are guarded settings: a merge
Ralph made without a person that lifts a cap (0 is no cap), lowers a price or names a
fallback agent is refused, the accepted values stay in force and the run's first lines
and ``ralph doctor`` say so; a person's own commit changing them is accepted. Real git,
SQLite, real ``ralph`` processes with the simulated agents."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ralph.config import load_config
from ralph.project import open_project

from ..conftest import GitProject, RalphCli, git, ralph_process
from ..notify.test_guarded_settings import DECISION, merged_by_ralph_alone
from ..phases.test_control_files_held import diff_of

pytestmark = pytest.mark.timeout(240)

CAP = "budget_run_tokens = 1500"
PRICE = '\n[prices."gpt-5-codex"]\ninput = 1.25\noutput = 10\n'
CHEAP = '\n[prices."gpt-5-codex"]\ninput = 0\noutput = 0\n'
NO_FALLBACK = "fallback_agents = []"
FALLBACK = 'fallback_agents = ["codex"]'
RUN_CAP = "\nmax_usd = 0\n"  # [agent]'s: 0 leaves budget_task_usd the cap
NO_RUN_CAP = "\nmax_usd = 10000\n"
REFUSED = (
    "by a merge Ralph made without a person: refused, `{was}` stays in force; commit the "
    "change yourself to accept it"
)


@pytest.fixture
def repo(tmp_path: Path, ralph_cli: RalphCli, monkeypatch: pytest.MonkeyPatch) -> GitProject:
    """A project whose person committed a run token cap and a price."""
    project = GitProject(tmp_path / "project")
    monkeypatch.chdir(project.path)
    assert ralph_cli("init")[0] == 0
    toml = project.path / "ralph.toml"
    toml.write_text(toml.read_text().replace("budget_run_tokens = 0", CAP) + PRICE)
    git(project.path, "add", "-A")
    git(project.path, "commit", "-qm", "Set up Ralph")
    return project


def in_force(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[int, float, tuple[str, ...], float | None]:
    """The run token cap, the price's output, implement's fallback agents and its agent
    run's dollar cap a run of ralph.toml's own agents would have (``RALPH_AGENT`` would
    leave no fallback)."""
    with monkeypatch.context() as own:
        own.delenv("RALPH_AGENT", raising=False)
        with open_project(load_config(repo)) as project:
            config = project.config
    price = config.prices["gpt-5-codex"].output
    implement = config.agent.for_phase("implement")
    return (
        config.budget_run_tokens,
        price,
        config.agent.fallbacks_for("implement"),
        implement.max_usd,
    )


def test_a_cap_ralph_lifted_alone_stays_in_force_and_is_said(
    repo: GitProject, ralph_cli: RalphCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    toml = (repo.path / "ralph.toml").read_text()
    merged_by_ralph_alone(repo, ralph_cli, monkeypatch, toml.replace(CAP, "budget_run_tokens = 0"))
    change = diff_of(repo.path, "NOTES.md", "notes\n")
    assert ralph_cli("issue", "new", "Add notes", "-e", "XS", "--body", change)[0] == 0
    env = {"RALPH_AGENT": "scripted", "RALPH_SCRIPTED_TOKENS": "1000"}
    done = ralph_process("hero", "3", cwd=repo.path, env=env)
    assert done.returncode == 1, done.stdout + done.stderr
    assert (
        "ralph.toml's budget_run_tokens changed since the last run: `1500` → `0`, "
        + REFUSED.format(was=1500)
    ) in done.stderr
    assert "#3 held: budget — the run's token cap: 2,000 of 1,500 tokens" in done.stdout
    budget = ralph_process("budget", "--json", cwd=repo.path)
    caps = {cap["setting"]: cap for cap in json.loads(budget.stdout)["caps"]}
    assert caps["budget_run_tokens"]["cap"] == 1500
    doctor = ralph_process("doctor", cwd=repo.path)
    assert "budget_run_tokens changed since the last run" in doctor.stdout


def test_a_price_lowered_a_fallback_named_and_a_run_cap_lifted_by_ralph_alone_are_refused(
    repo: GitProject, ralph_cli: RalphCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    toml = (repo.path / "ralph.toml").read_text()
    new_toml = toml.replace(PRICE, CHEAP).replace(NO_FALLBACK, FALLBACK)
    merged_by_ralph_alone(repo, ralph_cli, monkeypatch, new_toml.replace(RUN_CAP, NO_RUN_CAP))
    assert in_force(repo.path, monkeypatch) == (1500, 10.0, (), 0.0)
    doctor = ralph_process("doctor", cwd=repo.path)
    assert "ralph.toml's prices changed since the last run: `{" in doctor.stdout
    assert "agent.fallback_agents changed since the last run" in doctor.stdout
    assert "agent.max_usd changed since the last run" in doctor.stdout
    assert doctor.stdout.count("by a merge Ralph made without a person: refused") == 3


def test_a_persons_own_commit_of_caps_prices_and_fallbacks_is_accepted_and_said(
    repo: GitProject, ralph_cli: RalphCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert ralph_cli("issue", "new", "Needs a decision", "-e", "XS", "--body", DECISION)[0] == 0
    assert ralph_cli("hero", "1")[0] == 1  # records what is accepted
    toml = (repo.path / "ralph.toml").read_text()
    new_toml = (
        toml.replace(CAP, "budget_run_tokens = 0")
        .replace(PRICE, CHEAP)
        .replace(NO_FALLBACK, FALLBACK)
    )
    (repo.path / "ralph.toml").write_text(new_toml)
    git(repo.path, "commit", "-qam", "No cap, a cheaper price, a fallback")
    assert ralph_cli("issue", "new", "Another", "-e", "XS", "--body", DECISION)[0] == 0
    code, _, err = ralph_cli("hero", "2")
    assert code == 1
    for name in ("budget_run_tokens", "prices", "agent.fallback_agents"):
        assert f"ralph.toml's {name} changed since the last run" in err
    assert err.count("(a person's change: accepted)") == 3
    assert in_force(repo.path, monkeypatch) == (0, 0.0, ("codex",), 0.0)
