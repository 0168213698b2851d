"""Setting up a Linear team for Ralph, and checking one (``ralph init``, ``ralph doctor``).

Ralph's 11 workflow states are the team's workflow states of the same names; setup
creates the missing ones, each with its type (``_mapping.STATE_TYPES``) and a position in
Ralph's order. It is idempotent and safe to kill: each state is looked up by name before
it is created, and a create whose answer was lost is looked for before it is sent again.
A team off the t-shirt estimate scale, or with one of Ralph's state names on a state of
the wrong type (a "Done" that is started), is refused before anything is written: Linear
cannot change a state's type, and Ralph would read such issues wrongly.

Labels are not made here, as on GitHub: ``_writes.label_ids`` makes one when an issue
first gets it.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from ralph.linear import (
    LinearAmbiguous,
    LinearAuthError,
    LinearClient,
    LinearError,
    LinearInvalid,
    LinearNotFound,
)
from ralph.linear import queries as q
from ralph.tracker._model import Check
from ralph.tracker.linear._mapping import STATE_TYPES, T_SHIRT, suitable_type
from ralph.workflow import STATE_ORDER, WorkflowState

__all__ = [
    "STATE_COLOURS",
    "LinearTeam",
    "TeamSetup",
    "check_team",
    "estimate_problem",
    "read_team",
    "set_up_team",
    "state_problems",
]

#: Ralph's states in the order setup gives them positions (the pipeline, then the two
#: outside it).
_ORDER: tuple[WorkflowState, ...] = (
    *STATE_ORDER,
    WorkflowState.HUMAN_NEEDED,
    WorkflowState.CANCELED,
)
_CLOSING = (WorkflowState.DONE, WorkflowState.CANCELED)
#: Linear's palette for each type (a state needs a colour).
STATE_COLOURS = {
    "backlog": "#bec2c8",
    "unstarted": "#e2e2e2",
    "started": "#f2c94c",
    "completed": "#5e6ad2",
    "canceled": "#95a2b3",
}


@dataclass(frozen=True)
class LinearTeam:
    id: str
    key: str
    name: str
    estimation: str
    #: The team's workflow states by name: (id, type).
    states: Mapping[str, tuple[str, str]] = field(default_factory=dict)

    def state_id(self, state: WorkflowState) -> str:
        """The id of Ralph's ``state`` on this team; LinearInvalid naming the fix if the
        team lacks it."""
        found = self.states.get(state.value)
        if found is None:
            raise LinearInvalid(
                f'team {self.key} has no "{state.value}" workflow state; run `ralph init '
                f"--linear {self.key}` to create Ralph's states"
            )
        return found[0]


@dataclass(frozen=True)
class TeamSetup:
    team: LinearTeam
    created_states: tuple[str, ...]


def _team_from(node: Mapping[str, Any]) -> LinearTeam:
    states = {s["name"]: (s["id"], s["type"]) for s in node["states"]["nodes"]}
    return LinearTeam(node["id"], node["key"], node["name"], node["issueEstimationType"], states)


def read_team(client: LinearClient, key: str) -> LinearTeam:
    """The team of key ``key``; LinearNotFound saying what to check when there is none
    the API key can see."""
    nodes = client.query(q.TEAM, {"key": key.upper()})["teams"]["nodes"]
    if not nodes:
        raise LinearNotFound(
            f"no Linear team with the key {key.upper()} (or the API key's user is not in it); "
            "check linear.team in ralph.toml: the prefix of the team's issue identifiers"
        )
    return _team_from(nodes[0])


def estimate_problem(team: LinearTeam) -> str | None:
    """Why the team's estimates cannot hold Ralph's, with the fix; None when they can."""
    if team.estimation == T_SHIRT:
        return None
    scale = "not used" if team.estimation == "notUsed" else f"on the {team.estimation} scale"
    return (
        f"team {team.key}'s estimates are {scale}; Ralph's are t-shirt sizes: choose "
        "Team settings → General → Estimates → T-Shirt"
    )


def state_problems(team: LinearTeam) -> dict[WorkflowState, str]:
    """Ralph's states the team has with a type that cannot stand for them, each with
    why and the fix."""
    problems = {}
    for state in _ORDER:
        found = team.states.get(state.value)
        if found is not None and not suitable_type(state, found[1]):
            wanted = STATE_TYPES[state] if state in _CLOSING else "an open type"
            problems[state] = (
                f'team {team.key}\'s "{state.value}" state is {found[1]}, Ralph needs '
                f"{wanted}: change it in Team settings → Workflow, or rename it and run "
                "setup again"
            )
    return problems


def set_up_team(client: LinearClient, key: str) -> TeamSetup:
    """Give the team Ralph's workflow states; refuse (LinearInvalid, nothing written) a
    team whose estimates or states cannot hold Ralph's."""
    team = read_team(client, key)
    problems = [why for why in (estimate_problem(team),) if why]
    problems += state_problems(team).values()
    if problems:
        raise LinearInvalid(problems[0])
    states = dict(team.states)
    created = []
    for position, state in enumerate(_ORDER):
        if state.value not in states:
            states[state.value] = _create_state(client, team, state, float(position))
            created.append(state.value)
    return TeamSetup(replace(team, states=states), tuple(created))


def _create_state(
    client: LinearClient, team: LinearTeam, state: WorkflowState, position: float
) -> tuple[str, str]:
    """``state`` made on the team: its (id, type). A lost answer is looked for by name
    before the state is sent again."""
    kind = STATE_TYPES[state]
    made = {
        "id": str(uuid.uuid4()),
        "teamId": team.id,
        "name": state.value,
        "type": kind,
        "color": STATE_COLOURS[kind],
        "position": position,
    }
    try:
        data = client.mutate(q.CREATE_WORKFLOW_STATE, {"input": made})
    except LinearAmbiguous:
        found = read_team(client, team.key).states.get(state.value)
        if found is not None:
            return found
        data = client.mutate(q.CREATE_WORKFLOW_STATE, {"input": made})
    node = data["workflowStateCreate"]["workflowState"]
    return node["id"], node["type"]


def check_team(client: LinearClient, key: str) -> list[Check]:
    """What ``ralph doctor`` reports: the API key, the team, its estimate scale and
    Ralph's 11 states. Each failing check says what to do."""
    try:
        viewer = client.viewer()
    except LinearAuthError as exc:
        return [
            Check(
                "Linear API key",
                False,
                f"Linear does not accept the API key ({exc}); create a personal API key "
                "(Settings → Security & access) and set RALPH_LINEAR_TOKEN to it",
            )
        ]
    who = viewer.get("email") or viewer.get("displayName") or ""
    checks = [Check("Linear API key", True, f"authenticated as {viewer['name']} ({who})")]
    try:
        team = read_team(client, key)
    except LinearError as exc:
        return [*checks, Check("team", False, str(exc))]
    checks.append(Check("team", True, f"{team.key} {team.name}"))
    why = estimate_problem(team)
    checks.append(Check("estimates", why is None, why or "t-shirt sizes (XS=1 S=2 M=3 L=5 XL=8)"))
    problems = state_problems(team)
    for state in _ORDER:
        found = team.states.get(state.value)
        if found is None:
            detail = (
                f'team {team.key} has no "{state.value}" state; run `ralph init --linear '
                f"{team.key}` to create Ralph's states"
            )
            checks.append(Check(f"state {state.value}", False, detail))
        else:
            ok = state not in problems
            checks.append(Check(f"state {state.value}", ok, found[1] if ok else problems[state]))
    return checks
