"""``ralph init --github``, ``ralph doctor`` and ``ralph status`` against a fake GitHub
over HTTP, as a person would run them."""

from __future__ import annotations

from ralph.tracker import FIELDS


def fields_of(fake, number=1):
    project = fake.world.accounts["acme"].projects[number - 1]
    return {f.name: [o["name"] for o in f.option_list] for f in project.field_list}


def test_init_creates_the_board_with_ralphs_fields_and_writes_ralph_toml(served, project):
    result = served.ralph("init", "--github", "acme/shop", cwd=project.path)
    assert result.returncode == 0, result.stderr
    assert "Created project #1 Ralph Workflow" in result.stdout
    assert "Created fields: Workflow State, Priority, Estimate" in result.stdout
    assert "Linked acme/shop to the project" in result.stdout
    assert 'Board view "Ralph Kanban" with Workflow State as its columns' in result.stdout
    fields = fields_of(served.fake)
    for name, options in FIELDS.items():
        assert fields[name] == [o[0] for o in options]
    project_ = served.fake.world.accounts["acme"].projects[0]
    colours = {
        o["name"]: (o["color"], o["description"]) for o in project_.field_list[2].option_list
    }
    assert colours["Backlog"] == ("GRAY", "Awaiting triage")
    toml = (project.path / "ralph.toml").read_text()
    assert 'tracker = "github"' in toml
    assert 'owner = "acme"' in toml
    assert "project = 1" in toml
    assert "ghp_" not in toml  # tokens stay in the environment


def test_init_again_changes_nothing(served, project):
    served.ralph("init", "--github", "acme/shop", cwd=project.path)
    before = (project.path / "ralph.toml").read_text()
    served.fake.requests.clear()
    again = served.ralph("init", "--github", "acme/shop", cwd=project.path)
    assert again.returncode == 0, again.stderr
    assert "Found project #1" in again.stdout
    assert "Created fields" not in again.stdout
    assert (project.path / "ralph.toml").read_text() == before
    assert len(served.fake.world.accounts["acme"].projects) == 1
    assert not [r for r in served.fake.requests if r.mutation]


def test_init_completes_a_board_that_lacks_a_field(served, project):
    board = served.fake.add_project("acme", "Our board")
    result = served.ralph("init", "--github", "acme/shop", "--project", "1", cwd=project.path)
    assert result.returncode == 0, result.stderr
    assert f"Found project #{board.number} Our board" in result.stdout
    assert set(FIELDS) <= set(fields_of(served.fake))


def test_init_with_a_wrong_project_number_says_so_and_writes_nothing(served, project):
    result = served.ralph("init", "--github", "acme/shop", "--project", "9", cwd=project.path)
    assert result.returncode == 2
    assert len(result.stderr.splitlines()) == 1
    assert "project #9 of acme not found" in result.stderr
    assert "Traceback" not in result.stderr
    assert not (project.path / "ralph.toml").exists()


def test_init_without_a_token_explains_which_variable_to_set(served, project):
    result = served.ralph("init", "--github", "acme/shop", cwd=project.path, env=served.env(None))
    assert result.returncode == 2
    assert "set RALPH_GH_TOKEN" in result.stderr
    assert len(result.stderr.splitlines()) == 1


def test_init_with_a_bad_repository_name_is_refused(served, project):
    result = served.ralph("init", "--github", "shop", cwd=project.path)
    assert result.returncode == 2
    assert "is not OWNER/REPO" in result.stderr


def test_doctor_passes_on_a_board_made_by_init(served, project):
    served.ralph("init", "--github", "acme/shop", cwd=project.path)
    # the simulated agents need no key: only the board is checked here
    result = served.ralph("doctor", "--agent", "scripted", cwd=project.path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "✓ token: authenticated as acme" in result.stdout
    assert "✓ field Workflow State: 11 options" in result.stdout


def test_doctor_names_a_missing_scope(served, project):
    served.ralph("init", "--github", "acme/shop", cwd=project.path)
    served.fake.add_token("repo-only", "acme", scopes="repo")
    result = served.ralph("doctor", cwd=project.path, env=served.env("repo-only"))
    assert result.returncode == 1
    assert "✗ RALPH_GH_TOKEN scopes: the token lacks the project scope" in result.stdout


def test_doctor_names_a_missing_field_and_how_to_add_it(served, project):
    served.ralph("init", "--github", "acme/shop", cwd=project.path)
    board = served.fake.world.accounts["acme"].projects[0]
    board.field_list = [f for f in board.field_list if f.name != "Estimate"]
    result = served.ralph("doctor", cwd=project.path)
    assert result.returncode == 1
    assert (
        '✗ field Estimate: project #1 has no "Estimate" field; run `ralph init --github '
        "acme/shop --project 1` to add it" in result.stdout
    )


def test_doctor_names_a_wrong_project_number(served, project):
    served.ralph("init", "--github", "acme/shop", cwd=project.path)
    env = served.env(RALPH_GH_PROJECT_NUMBER="7")
    result = served.ralph("doctor", cwd=project.path, env=env)
    assert result.returncode == 1
    assert "✗ project: project #7 of acme not found" in result.stdout


def test_status_and_issues_work_on_the_board(served, project):
    served.ralph("init", "--github", "acme/shop", cwd=project.path)
    made = served.ralph("issue", "new", "Add login", "--estimate", "S", cwd=project.path)
    assert made.returncode == 0, made.stderr
    status = served.ralph("status", cwd=project.path)
    assert status.returncode == 0, status.stderr
    assert "1 issue" in status.stdout
    assert "1 issues" not in status.stdout
    shop = served.fake.repository("acme/shop")
    assert [i.title for i in shop.issue_list] == ["Add login"]


def test_init_never_rewrites_a_ralph_toml_that_names_another_tracker(served, project):
    local = served.ralph("init", cwd=project.path)
    assert local.returncode == 0, local.stderr
    before = (project.path / "ralph.toml").read_text()
    result = served.ralph("init", "--github", "acme/shop", cwd=project.path)
    assert result.returncode == 2
    assert len(result.stderr.splitlines()) == 1
    assert 'set tracker = "github" and a [github] table with owner = "acme"' in result.stderr
    assert (project.path / "ralph.toml").read_text() == before


def test_init_reports_missing_options_and_leaves_a_board_in_use_untouched(served, project):
    board = served.fake.add_project("acme", "Our board")
    from ralph.github.fake._model import Field, Issue, Item

    states = Field(board, "Workflow State", [{"name": "Backlog"}, {"name": "Done"}])
    board.field_list.append(states)
    shop = served.fake.repository("acme/shop")
    issue = Issue(shop, shop.next_number(), "In use", "", "acme")
    shop.issue_list.append(issue)
    item = Item(board, issue)
    board.item_list.append(item)
    issue.items.append(item)
    item.values[states.id] = states.option_list[0]["id"]
    before = [dict(o) for o in states.option_list]

    result = served.ralph("init", "--github", "acme/shop", "--project", "1", cwd=project.path)

    assert result.returncode == 0, result.stderr
    assert '"Workflow State" lacks the options Research Needed' in result.stdout
    assert states.option_list == before
    assert item.values[states.id] == before[0]["id"]  # the item is still in Backlog
    doctor = served.ralph("doctor", cwd=project.path)
    assert doctor.returncode == 1
    assert '✗ field Workflow State: "Workflow State" lacks the options Research Needed' in (
        doctor.stdout
    )
    assert "add them to the field on project #1 (its settings on GitHub)" in doctor.stdout


def test_init_on_a_board_with_a_same_named_field_of_another_type_says_so_in_one_line(
    served, project
):
    from ralph.github.fake._model import Field

    board = served.fake.add_project("acme", "Ralph Workflow")
    board.field_list.append(Field(board, "Estimate", None))  # say, a number field
    result = served.ralph("init", "--github", "acme/shop", cwd=project.path)
    assert result.returncode != 0
    assert len(result.stderr.splitlines()) == 1
    assert '"Estimate" of another type than single-select' in result.stderr
    assert not [r for r in served.fake.requests if r.name == "CreateField"]


def test_init_links_a_board_of_another_owner_on_a_best_effort_basis(served, project):
    from ralph.github.fake import ScriptedFault

    served.fake.add_project("acme-org", "Ralph Workflow")
    refused = {"data": None, "errors": [{"type": "FORBIDDEN", "message": "not allowed"}]}
    served.fake.script(ScriptedFault("LinkRepository", body=refused))
    env = served.env(RALPH_GH_PROJECT_OWNER="acme-org")
    result = served.ralph("init", "--github", "acme/shop", cwd=project.path, env=env)
    assert result.returncode == 0, result.stderr
    assert "Found project #1 Ralph Workflow" in result.stdout
    (warning,) = [line for line in result.stderr.splitlines() if "could not link" in line]
    assert "Warning: could not link acme/shop to project #1 of acme-org" in warning
    assert "project = 1" in (project.path / "ralph.toml").read_text()


def test_doctor_with_a_fine_grained_token_on_a_user_board_says_what_token_it_needs(served, project):
    served.ralph("init", "--github", "acme/shop", cwd=project.path)
    token = "github_pat_11AAAAAAA0fine_grained_secret"
    served.fake.add_token(token, "acme")
    result = served.ralph("doctor", cwd=project.path, env=served.env(token))
    assert result.returncode == 1
    assert "✓ token: authenticated as acme (fine-grained token)" in result.stdout
    assert (
        "✗ project: acme is a user and RALPH_GH_TOKEN is a fine-grained token: a user-owned "
        "board needs a classic token or OAuth token with the project scope" in result.stdout
    )
    assert token not in result.stdout + result.stderr


def test_titles_read_from_github_are_shown_as_written(served, project, ralph_cli, monkeypatch):
    for name, value in served.env().items():
        monkeypatch.setenv(name, value)
    monkeypatch.chdir(project.path)
    assert ralph_cli("init", "--github", "acme/shop")[0] == 0
    title = "[wip] Fix [/] the [bold]thing"
    assert ralph_cli("issue", "new", title) == (0, f"Created #1: {title} [Backlog]\n", "")
    # retitled on GitHub by anyone who may edit issues there
    served.fake.repository("acme/shop").issue_list[0].title = "[debug-auto] Fix [/] close"
    for command in (("issue", "list"), ("issue", "show", "1")):
        code, out, err = ralph_cli(*command)
        assert code == 0, err
        assert "[debug-auto] Fix [/] close" in out
