"""The plugin folder is one copy: the package ships it, the repository's marketplace
points at it, and what it declares matches the code (roles' tools, hook events, the MCP
server, all run through its launcher). Claude Code's own validator runs on them in
tests/integration/plugin/test_claude_plugin_validate.py."""

from __future__ import annotations

import json
from pathlib import Path

from ralph.artifacts import parse_frontmatter
from ralph.mcp import SERVER_NAME
from ralph.plugin import HOOK_EVENTS, PLUGIN_NAME, plugin_path
from ralph.workflow import PHASE_SPECS

REPOSITORY = Path(__file__).resolve().parents[3]
PLUGIN = plugin_path()


def frontmatter(path: Path) -> dict[str, object]:
    return parse_frontmatter(path.read_text())[0]


def test_the_marketplace_entry_resolves_to_the_packaged_plugin_folder():
    marketplace = json.loads((REPOSITORY / ".claude-plugin" / "marketplace.json").read_text())
    (entry,) = [p for p in marketplace["plugins"] if p["name"] == PLUGIN_NAME]
    assert entry["source"].startswith("./")
    assert (REPOSITORY / entry["source"]).resolve() == PLUGIN
    manifest = json.loads((PLUGIN / ".claude-plugin" / "plugin.json").read_text())
    assert manifest["name"] == PLUGIN_NAME


#: How the plugin runs ``ralph``: through its launcher, which finds the installed one.
LAUNCHER = "${CLAUDE_PLUGIN_ROOT}/bin/ralph"


def test_the_mcp_server_is_ralph_mcp_under_the_servers_own_name():
    servers = json.loads((PLUGIN / ".mcp.json").read_text())["mcpServers"]
    assert servers == {SERVER_NAME: {"command": "sh", "args": [LAUNCHER, "mcp"]}}


def test_every_hook_runs_ralph_hook_for_an_event_it_answers():
    hooks = json.loads((PLUGIN / "hooks" / "hooks.json").read_text())["hooks"]
    commands = {
        event: [h["command"] for group in groups for h in group["hooks"]]
        for event, groups in hooks.items()
    }
    assert commands == {
        claude: [f'sh "{LAUNCHER}" hook {name}'] for name, claude in HOOK_EVENTS.items()
    }


def test_each_role_agent_has_the_tools_its_phases_give_it():
    for role in ("analyst", "builder", "validator"):
        expected = {tool for s in PHASE_SPECS if s.role == role for tool in s.tools}
        agent = frontmatter(PLUGIN / "agents" / f"ralph-{role}.md")
        assert agent["name"] == f"ralph-{role}"
        assert set(str(agent["tools"]).split(", ")) == expected, role
    # The integrator's phases run without an agent: its agent runs them through ralph.
    integrator = frontmatter(PLUGIN / "agents" / "ralph-integrator.md")
    assert not any(s.tools for s in PHASE_SPECS if s.role == "integrator")
    assert "Bash" in str(integrator["tools"])


def test_each_phase_skill_runs_its_phase_inside_a_hook_context():
    skills = {p.parent.name: p.read_text() for p in (PLUGIN / "skills").glob("*/SKILL.md")}
    for spec in PHASE_SPECS:
        if not spec.uses_agent:
            continue
        skill = f"ralph-{spec.command_name.replace('_', '-')}"  # skill names take hyphens
        text = skills[skill]
        assert frontmatter(PLUGIN / "skills" / skill / "SKILL.md")["name"] == skill
        assert f"ralph hook context set {spec.name} N" in text
        assert f"ralph run {spec.name} N" in text
        assert "ralph hook context clear" in text
    assert "ralph status" in skills["ralph-status"]
    assert "ralph doctor" in skills["ralph-setup"]
    assert "ralph plugin check" in skills["ralph-setup"]


def test_the_long_skills_start_their_run_in_the_background_and_follow_it():
    """A hero or team run outlasts Claude Code's Bash time limit (2 minutes, 10 at most)."""
    for skill, command in (("ralph-hero", "ralph hero $ARGUMENTS"), ("ralph-team", "ralph team N")):
        text = (PLUGIN / "skills" / skill / "SKILL.md").read_text()
        assert f"{command} --background" in text, skill
        assert "ralph runs show R --json" in text, skill
        assert "report.needsPerson" in text, skill
        assert "Bash(sleep *)" in str(
            frontmatter(PLUGIN / "skills" / skill / "SKILL.md")["allowed-tools"]
        )


#: The original's interactive skills, each with the command it runs (a person can run the
#: same without Claude) and the hook context it sets, if any.
INTERACTIVE_SKILLS = {
    "draft-idea": ("ralph idea new", None),
    "form-idea": ("ralph idea form", None),
    "research-codebase": ("ralph research N --done", None),
    "create-plan": ("ralph plan N --done", "plan"),
    "iterate-plan": ("ralph plan iterate N --feedback", "plan"),
    "implement-plan": ("ralph implement N --interactive --step-done", "implement"),
}


def test_each_interactive_skill_runs_the_command_a_person_would():
    for name, (command, phase) in INTERACTIVE_SKILLS.items():
        skill = PLUGIN / "skills" / name / "SKILL.md"
        text = skill.read_text()
        assert frontmatter(skill)["name"] == name
        assert command in text, name
        if phase is not None:
            assert f"ralph hook context set {phase} N" in text, name
            assert "ralph hook context clear" in text, name
