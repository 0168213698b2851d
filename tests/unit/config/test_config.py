"""ralph.toml: found from any subdirectory, overridden by RALPH_* variables, and refused
with one clear sentence when a value is wrong."""

from __future__ import annotations

from pathlib import Path

import pytest

from ralph.config import CONFIG_FILE, GitHubSettings, find_config, load_config, render_config
from ralph.errors import ConfigError
from ralph.graph import ReviewMode


@pytest.fixture
def root(tmp_path):
    (tmp_path / CONFIG_FILE).write_text(render_config(repo="shop", base_branch="trunk"))
    (tmp_path / "src" / "deep").mkdir(parents=True)
    return tmp_path


def test_the_file_ralph_init_writes_loads_with_its_defaults(root):
    config = load_config(root, env={})
    assert (config.tracker, config.repo, config.base_branch) == ("local", "shop", "trunk")
    assert config.review_mode is ReviewMode.AUTO
    assert config.wip_limits == {}


def test_the_written_file_says_what_an_empty_model_means_and_how_to_choose_per_role(root):
    text = (root / CONFIG_FILE).read_text()
    assert '"default": the one Claude Code recommends for your account' in text
    assert "empty: Ralph's choice\n# per phase (triage haiku," in text
    assert '[agent.roles.validator] model = "haiku"' in text
    guide = (Path(__file__).parents[3] / "docs" / "agents.md").read_text()
    assert '`model = ""` (the default) takes each phase\'s model from this table' in guide
    assert '`model = "default"` leaves the choice to Claude Code' in guide
    assert '[agent.phases.plan]\nmodel = "opus"' in guide


def test_a_test_command_is_written_as_a_toml_string_that_loads_back(tmp_path):
    command = 'pytest -k "not slow" tests\\unit'
    (tmp_path / CONFIG_FILE).write_text(
        render_config(repo="shop", base_branch="main", test_command=command)
    )
    assert load_config(tmp_path, env={}).test_command == command


def test_the_nearest_file_is_found_from_a_subdirectory_and_sqlite_paths_follow_it(root):
    assert find_config(root / "src" / "deep") == root / CONFIG_FILE
    config = load_config(root / "src" / "deep", env={})
    assert config.resolved_store_url == f"sqlite:///{root}/.ralph/ralph.db"


def test_wip_limits_are_read_per_state(tmp_path):
    (tmp_path / CONFIG_FILE).write_text('[wip_limits]\n"In Progress" = 3\n')
    assert load_config(tmp_path, env={}).wip_limits == {"In Progress": 3}


def test_the_loop_runs_one_hero_root_at_a_time_unless_told_otherwise(root, tmp_path):
    config = load_config(root, env={})
    assert (config.mode, config.max_concurrent_roots, config.max_concurrent_agents) == (
        "hero",
        1,
        3,
    )
    assert config.max_concurrent_phases == {}
    (tmp_path / CONFIG_FILE).write_text(
        'mode = "team"\nmax_concurrent_roots = 2\n[max_concurrent_phases]\nimplement = 1\n'
    )
    config = load_config(tmp_path, env={"RALPH_MAX_CONCURRENT_AGENTS": "4"})
    assert (config.mode, config.max_concurrent_roots, config.max_concurrent_agents) == (
        "team",
        2,
        4,
    )
    assert config.max_concurrent_phases == {"implement": 1}


def test_serve_writes_no_hygiene_report_unless_given_hours_between_two(root, tmp_path):
    assert load_config(root, env={}).hygiene_interval == 0
    (tmp_path / CONFIG_FILE).write_text("hygiene_interval = 24\n")
    assert load_config(tmp_path, env={}).hygiene_interval == 24
    assert load_config(tmp_path, env={"RALPH_HYGIENE_INTERVAL": "0.5"}).hygiene_interval == 0.5


def test_environment_variables_override_the_file(root):
    env = {"RALPH_REVIEW_MODE": "skip", "RALPH_STORE_URL": "postgresql://db/x"}
    config = load_config(root, env=env)
    assert config.review_mode is ReviewMode.SKIP
    assert config.resolved_store_url == "postgresql://db/x"


def test_without_a_file_the_error_points_at_ralph_init(tmp_path):
    with pytest.raises(ConfigError, match="run `ralph init`"):
        load_config(tmp_path, env={})


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('colour = "blue"', "unknown setting 'colour'; known settings: "),
        ("pol_seconds = 5", "unknown setting 'pol_seconds'; did you mean 'poll_seconds'?"),
        ("[merge]\nwait_second = 5", "unknown setting merge.wait_second; did you mean merge.wait"),
        ("[agent]\nmodle = 'x'", "unknown setting 'modle'; did you mean 'model'?"),
        ("[agent.phases.reserch]", "unknown phase; did you mean research?"),
        ('review_mode = "sometimes"', "expected one of auto, interactive, skip"),
        (
            "budget_run_usd = -1",
            "budget_run_usd: -1 is not valid; expected a finite number >= 0.01, or 0 for no cap",
        ),
        ("budget_run_usd = nan", "budget_run_usd: nan is not valid; expected a finite number"),
        ("budget_day_usd = inf", "budget_day_usd: inf is not valid; expected a finite number"),
        ("budget_task_usd = true", "budget_task_usd: True is not valid"),
        (
            '[wip_limits]\n"In Progress" = -3',
            "In Progress: -3 is not valid; expected a whole number",
        ),
        ('[wip_limits]\n"In Progress" = 2.7', "In Progress: 2.7 is not valid; expected a whole"),
        ('tracker = "asana"', "tracker 'asana' is unknown"),
        ('code_host = "gitea"', "code_host 'gitea' is unknown; use one of local, github, gitlab"),
        ('code_host = "github"', r"GitHub \(tracker or code_host\) needs github.owner"),
        ('repo = "my repo"', "must be letters"),
        ("tracker = ", "not valid TOML"),
        ('[wip_limits]\n"Doing" = 3', "'Doing' is not a workflow state"),
        ('[wip_limits]\n"In Progress" = "many"', "'many' is not valid; expected a whole number"),
        ('mode = "swarm"', 'expected "hero" or "team"'),
        ("max_concurrent_roots = 0", "max_concurrent_roots: 0 is not valid; expected a whole"),
        ("max_concurrent_agents = 1.5", "max_concurrent_agents: 1.5 is not valid"),
        ("[max_concurrent_phases]\nmerge = 1", "'merge' is not a phase an agent does"),
        ("[max_concurrent_phases]\nimplement = 0", "implement: 0 is not valid"),
        ("hygiene_interval = -1", "hygiene_interval: -1 is not valid; expected a finite number"),
        ('hygiene_interval = "daily"', "hygiene_interval: 'daily' is not valid"),
    ],
)
def test_bad_values_are_named_with_what_is_expected(tmp_path, text, message):
    (tmp_path / CONFIG_FILE).write_text(text + "\n")
    with pytest.raises(ConfigError, match=message):
        load_config(tmp_path, env={})


def test_a_settings_file_that_is_not_utf8_is_named_with_the_fix(tmp_path):
    (tmp_path / CONFIG_FILE).write_bytes(b'base_branch = "ma\xffin"\n')
    with pytest.raises(ConfigError, match=r"ralph.toml is not UTF-8 text \(byte 17\); save it"):
        load_config(tmp_path, env={})


def test_a_bad_environment_value_names_the_variable(root):
    with pytest.raises(ConfigError, match="RALPH_BUDGET_DAY_USD"):
        load_config(root, env={"RALPH_BUDGET_DAY_USD": "lots"})


def test_escalate_to_takes_github_handles_and_writes_each_with_its_at(tmp_path):
    (tmp_path / "ralph.toml").write_text('escalate_to = "alice, @acme/leads"\n')
    assert load_config(tmp_path, env={}).escalate_to == "@alice @acme/leads"
    (tmp_path / "ralph.toml").write_text('escalate_to = "al ice!"\n')
    with pytest.raises(ConfigError, match="'ice!' is not a GitHub handle"):
        load_config(tmp_path, env={})


def test_the_sandbox_settings_default_to_no_network_and_no_unconfined_runs(root):
    config = load_config(root, env={})
    assert (config.sandbox_network, config.allow_unsandboxed) == ("off", False)
    text = (root / CONFIG_FILE).read_text()
    assert 'sandbox_network = "off"' in text
    assert "allow_unsandboxed = false" in text


def test_the_sandbox_settings_are_read_from_the_file_and_the_environment(tmp_path):
    (tmp_path / CONFIG_FILE).write_text('sandbox_network = "on"\nallow_unsandboxed = true\n')
    config = load_config(tmp_path, env={})
    assert (config.sandbox_network, config.allow_unsandboxed) == ("on", True)
    env = {"RALPH_SANDBOX_NETWORK": "off", "RALPH_ALLOW_UNSANDBOXED": "false"}
    config = load_config(tmp_path, env=env)
    assert (config.sandbox_network, config.allow_unsandboxed) == ("off", False)


def test_agent_hosts_are_read_as_host_and_port(tmp_path):
    (tmp_path / CONFIG_FILE).write_text(
        'agent_hosts = ["LLM.example.com", "http://127.0.0.1:4000/v1", "proxy.example:8443"]\n'
    )
    assert load_config(tmp_path, env={}).agent_hosts == (
        "llm.example.com:443",
        "127.0.0.1:4000",
        "proxy.example:8443",
    )
    (tmp_path / CONFIG_FILE).write_text('agent_hosts = ["host:99999"]\n')
    with pytest.raises(ConfigError, match="'host:99999' is not a host; write host:port"):
        load_config(tmp_path, env={})


def test_sandbox_env_names_the_variables_passed_on_in_the_file_or_the_environment(tmp_path):
    (tmp_path / CONFIG_FILE).write_text('sandbox_env = ["JAVA_HOME", "GOPATH"]\n')
    assert load_config(tmp_path, env={}).sandbox_env == ("JAVA_HOME", "GOPATH")
    config = load_config(tmp_path, env={"RALPH_SANDBOX_ENV": "JAVA_HOME, M2_HOME"})
    assert config.sandbox_env == ("JAVA_HOME", "M2_HOME")


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (
            'sandbox_network = "maybe"',
            'sandbox_network: \'maybe\' is not valid; expected "off" or "on"',
        ),
        ("sandbox_network = true", 'sandbox_network: True is not valid; expected "off" or "on"'),
        (
            'allow_unsandboxed = "yes"',
            "allow_unsandboxed: 'yes' is not valid; expected true or false",
        ),
        ("allow_unsandboxed = 1", "allow_unsandboxed: 1 is not valid; expected true or false"),
        (
            "sandbox_env = 3",
            'sandbox_env: 3 is not valid; expected a list of variable names, such as ["JAVA_HOME"]',
        ),
        ('sandbox_env = ["A=B"]', "sandbox_env: 'A=B' is not an environment variable name"),
    ],
)
def test_bad_sandbox_settings_are_refused_in_one_line(tmp_path, line, message):
    (tmp_path / CONFIG_FILE).write_text(line + "\n")
    with pytest.raises(ConfigError) as refusal:
        load_config(tmp_path, env={})
    assert str(refusal.value) == f"{tmp_path / CONFIG_FILE}: {message}"


def test_a_bad_sandbox_variable_is_refused_naming_it(root):
    with pytest.raises(ConfigError, match=r"^RALPH_ALLOW_UNSANDBOXED: 'yes' is not valid"):
        load_config(root, env={"RALPH_ALLOW_UNSANDBOXED": "yes"})


def test_the_merge_settings_default_to_checks_locally_and_approval_on_github(root, tmp_path):
    config = load_config(root, env={})
    assert (config.merge_policy, config.merge_method, config.max_fix_rounds) == ("checks", "", 2)
    assert config.review_code is False
    board = tmp_path / "board"
    board.mkdir()
    (board / CONFIG_FILE).write_text(
        render_config(
            repo="shop",
            base_branch="main",
            tracker=GitHubSettings(owner="a", repo="shop", project=1),
        )
    )
    assert load_config(board, env={}).merge_policy == "approval"
    (board / CONFIG_FILE).write_text(
        (board / CONFIG_FILE).read_text().replace('merge_policy = "approval"\n', "")
    )
    assert load_config(board, env={}).merge_policy == "approval"
    assert load_config(board, env={"RALPH_MERGE_POLICY": "manual"}).merge_policy == "manual"


def test_the_merge_settings_are_read_from_the_file_and_the_environment(tmp_path):
    (tmp_path / CONFIG_FILE).write_text(
        'merge_policy = "approval"\nmerge_method = "squash"\nmax_fix_rounds = 3\n'
        "review_code = true\n"
    )
    config = load_config(tmp_path, env={})
    assert (config.merge_policy, config.merge_method, config.max_fix_rounds) == (
        "approval",
        "squash",
        3,
    )
    assert config.review_code is True
    env = {
        "RALPH_MERGE_POLICY": "checks",
        "RALPH_MERGE_METHOD": "rebase",
        "RALPH_MAX_FIX_ROUNDS": "1",
        "RALPH_REVIEW_CODE": "false",
    }
    config = load_config(tmp_path, env=env)
    assert (config.merge_policy, config.merge_method, config.max_fix_rounds) == (
        "checks",
        "rebase",
        1,
    )
    assert config.review_code is False


def test_a_merge_train_takes_five_unless_told_otherwise(tmp_path):
    (tmp_path / CONFIG_FILE).write_text("")
    assert load_config(tmp_path, env={}).merge_batch == 5
    (tmp_path / CONFIG_FILE).write_text("merge_batch = 8\n")
    assert load_config(tmp_path, env={}).merge_batch == 8
    assert load_config(tmp_path, env={"RALPH_MERGE_BATCH": "1"}).merge_batch == 1


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("max_fix_rounds = 0", "max_fix_rounds: 0 is not valid; expected a whole number >= 1"),
        ("max_fix_rounds = -2", "max_fix_rounds: -2 is not valid; expected a whole number >= 1"),
        ("max_fix_rounds = 1.5", "max_fix_rounds: 1.5 is not valid; expected a whole number >= 1"),
        ("merge_batch = 0", "merge_batch: 0 is not valid; expected a whole number >= 1"),
        (
            'merge_policy = "sometimes"',
            "merge_policy: 'sometimes' is not valid; expected one of checks, approval, manual",
        ),
        (
            'merge_method = "octopus"',
            "merge_method: 'octopus' is not valid; expected one of merge, squash, rebase "
            '(or "" for the first the repository allows)',
        ),
        ("review_code = 1", "review_code: 1 is not valid; expected true or false"),
        ('research_web = "yes"', "research_web: 'yes' is not valid; expected true or false"),
    ],
)
def test_bad_merge_settings_are_refused_in_one_line(tmp_path, line, message):
    (tmp_path / CONFIG_FILE).write_text(line + "\n")
    with pytest.raises(ConfigError) as refusal:
        load_config(tmp_path, env={})
    assert str(refusal.value) == f"{tmp_path / CONFIG_FILE}: {message}"


def test_a_bad_merge_variable_is_refused_naming_it(root):
    with pytest.raises(ConfigError, match=r"^RALPH_MAX_FIX_ROUNDS: '0' is not valid"):
        load_config(root, env={"RALPH_MAX_FIX_ROUNDS": "0"})


def test_the_fast_track_is_on_by_default_and_a_setting_or_variable_turns_it_off(tmp_path):
    (tmp_path / CONFIG_FILE).write_text("")
    assert load_config(tmp_path, env={}).fast_track is True
    assert load_config(tmp_path, env={"RALPH_FAST_TRACK": "false"}).fast_track is False
    (tmp_path / CONFIG_FILE).write_text(
        'fast_track = false\nshared_paths = ["src/db/", "*.lock"]\n'
    )
    config = load_config(tmp_path, env={})
    assert (config.fast_track, config.shared_paths) == (False, ("src/db/", "*.lock"))
    env = {"RALPH_SHARED_PATHS": "infra/ ci/*.yml"}
    assert load_config(tmp_path, env=env).shared_paths == ("infra/", "ci/*.yml")


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (
            'fast_track = "sometimes"',
            "fast_track: 'sometimes' is not valid; expected true or false",
        ),
        (
            "shared_paths = [1]",
            "shared_paths: [1] is not valid; expected a list of paths or globs, such as "
            '["src/db/", "*.lock"]',
        ),
        (
            'shared_paths = ["src/.."]',
            "shared_paths: 'src/..' is not a path inside the repository; write it relative "
            'to the repository, such as "src/db/"',
        ),
        (
            'shared_paths = ["/etc"]',
            "shared_paths: '/etc' is not a path inside the repository; write it relative "
            'to the repository, such as "src/db/"',
        ),
    ],
)
def test_bad_fast_track_settings_are_refused_in_one_line(tmp_path, line, message):
    (tmp_path / CONFIG_FILE).write_text(line + "\n")
    with pytest.raises(ConfigError) as refusal:
        load_config(tmp_path, env={})
    assert str(refusal.value) == f"{tmp_path / CONFIG_FILE}: {message}"


def test_research_may_use_the_web_only_when_the_person_says_so(root):
    assert load_config(root, env={}).research_web is False
    assert load_config(root, env={"RALPH_RESEARCH_WEB": "true"}).research_web is True
    with pytest.raises(ConfigError, match=r"^RALPH_RESEARCH_WEB: 'sure' is not valid"):
        load_config(root, env={"RALPH_RESEARCH_WEB": "sure"})


def test_the_code_host_is_the_trackers_own_kind_unless_set(tmp_path):
    (tmp_path / CONFIG_FILE).write_text('tracker = "local"\n')
    assert load_config(tmp_path, env={}).code_host_kind == "local"
    github = '[github]\nowner = "acme"\nrepo = "shop"\nproject = 1\n'
    (tmp_path / CONFIG_FILE).write_text(f'tracker = "local"\ncode_host = "github"\n{github}')
    config = load_config(tmp_path, env={})
    assert (config.tracker, config.code_host_kind) == ("local", "github")
