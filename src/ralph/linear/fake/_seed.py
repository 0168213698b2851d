"""A team of the size teams have, put straight into the fake's workspace (no requests,
so 10,000 issues take a second): most issues closed long ago, the open ones in the
team's open states, epics with children, blocking relations and labels, as a Linear
team that has been used for a few years looks."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from ralph.linear.fake._linear import FakeLinear
from ralph.linear.fake._model import Issue, IssueLabel, IssueRelation, Team

__all__ = ["SeededTeam", "seed_team"]

_USUAL = ("Backlog", "Todo", "In Progress")
_LABELS = ("bug", "feature", "chore", "docs", "security", "performance")
#: One issue in ``_EPIC_EVERY`` is an epic of the next ``_CHILDREN``; one in
#: ``_BLOCK_EVERY`` blocks the next; one in ``_ARCHIVED_EVERY`` closed ones is archived.
_EPIC_EVERY = 20
_CHILDREN = 5
_BLOCK_EVERY = 10
_ARCHIVED_EVERY = 20
#: The share of the team's issues closed in the last month.
_RECENT_SHARE = 0.03


@dataclass(frozen=True)
class SeededTeam:
    team: Team
    issues: int
    open: int
    archived: int
    relations: int


def _stamp(when: datetime) -> str:
    return when.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def seed_team(
    fake: FakeLinear, key: str, size: int, *, open_share: float = 0.15, now: float | None = None
) -> SeededTeam:
    """``size`` issues on the team of ``key`` (which exists), the last ``open_share`` of
    them open (most in Backlog, Todo or In Progress), the rest closed (Done, one in ten
    Canceled), 3% of all in the last month, the others more than a year before ``now``;
    numbered after the team's existing issues."""
    workspace = fake.workspace
    with workspace.lock:
        team = workspace.team(key)
        opened = [s for s in team.state_list if s.type in ("backlog", "unstarted", "started")]
        # Most open issues wait in the team's usual states; one in 50 is in another
        # (Ralph's pipeline states, once Ralph is set up on the team).
        usual = [s for s in opened if s.name in _USUAL] or opened
        other = [s for s in opened if s not in usual] or usual
        done = next(s for s in team.state_list if s.type == "completed")
        canceled = next(s for s in team.state_list if s.type == "canceled")
        labels = [_label(fake, team, name) for name in _LABELS]
        users = workspace.users
        start = datetime.fromtimestamp(now if now is not None else fake.clock(), UTC)
        first_open = size - int(size * open_share)
        made: list[Issue] = []
        archived = relations = 0
        for i in range(size):
            is_open = i >= first_open
            if is_open:
                state = other[i // 50 % len(other)] if i % 50 == 0 else usual[i % len(usual)]
            else:
                state = canceled if i % 10 == 9 else done
            if is_open:
                age = timedelta(days=3 + (size - i) * 0.2)
            elif i >= first_open - size * _RECENT_SHARE:  # closed in the last month
                age = timedelta(days=1 + (first_open - i) % 29)
            else:
                age = timedelta(days=400 + size - i)
            created = _stamp(start - age - timedelta(days=30))
            issue = Issue(
                workspace.new_id(),
                team,
                next(team.counter),
                f"Issue {i}: {_LABELS[i % len(_LABELS)]} in module {i % 97}",
                state,
                created,
                _stamp(start - age),
                description=f"What issue {i} is about.\n\nSteps, context and links.",
                estimate=float((1, 2, 3, 5, 8)[i % 5]) if i % 3 else None,
                priority=float(i % 5),
                assignee=users[i % len(users)] if users and i % 4 == 0 else None,
                label_list=[
                    labels[i % len(labels)],
                    *([labels[(i + 2) % 6]] if i % 5 == 0 else []),
                ],
            )
            if not is_open and i % _ARCHIVED_EVERY == 7:
                issue.archivedAt = issue.updatedAt
                archived += 1
            epic = i - i % _EPIC_EVERY
            if i % _EPIC_EVERY and i - epic <= _CHILDREN and epic < len(made):
                issue.parent = made[epic]
                made[epic].child_list.append(issue)
            if i % _BLOCK_EVERY == 1 and made:
                blocker = made[-1]
                relation = IssueRelation(workspace.new_id(), "blocks", blocker, issue)
                blocker.relation_list.append(relation)
                issue.inverse_list.append(relation)
                workspace.relations[relation.id] = relation
                relations += 1
            made.append(issue)
            team.issue_list.append(issue)
            workspace.issues[issue.id] = issue
        return SeededTeam(team, size, size - first_open, archived, relations)


def _label(fake: FakeLinear, team: Team, name: str) -> IssueLabel:
    for label in team.label_list:
        if label.name == name:
            return label
    return fake.add_label(name, team)
