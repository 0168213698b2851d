"""Group detection: the conformance cases of docs/compatibility.md, with the fixed
answers for GD6 and GD9."""

from __future__ import annotations

from typing import Any

import pytest

from ralph.errors import DependencyCycle, IssueNotFound
from ralph.pipeline import IssueRelations, detect_group


class Board:
    """Issue relations keyed by number, with both sides of every edge filled in unless
    an edge is given as one-sided. Counts lookups."""

    def __init__(self):
        self.issues: dict[int, dict[str, Any]] = {}
        self.lookups: list[int] = []

    def _issue(self, number):
        return self.issues.setdefault(
            number, {"parent": None, "subs": [], "blocked_by": [], "blocking": []}
        )

    def epic(self, parent, *children):
        self._issue(parent)["subs"].extend(children)
        for child in children:
            self._issue(child)["parent"] = parent
        return self

    def blocks(self, blocker, blocked, *, one_sided=None):
        if one_sided != "blocked":
            self._issue(blocker)["blocking"].append(blocked)
        else:
            self._issue(blocker)
        if one_sided != "blocker":
            self._issue(blocked)["blocked_by"].append(blocker)
        else:
            self._issue(blocked)
        return self

    def lone(self, *numbers):
        for number in numbers:
            self._issue(number)
        return self

    def fetch(self, number):
        self.lookups.append(number)
        data = self.issues.get(number)
        if data is None:
            return None
        return IssueRelations(
            number,
            f"Issue {number}",
            data["parent"],
            data["subs"],
            data["blocked_by"],
            data["blocking"],
        )


def order(board, seed):
    result = detect_group(seed, board.fetch)
    return list(result.issues), result.primary, result.is_group


def test_gd1_a_standalone_issue_is_its_own_group():
    assert order(Board().lone(10), 10) == ([10], 10, False)


@pytest.mark.parametrize("seed", [11, 12, 13])
def test_gd2_siblings_in_dependency_order_without_the_parent(seed):
    board = Board().epic(10, 11, 12, 13).blocks(11, 12).blocks(12, 13)
    assert order(board, seed) == ([11, 12, 13], 11, True)


def test_gd3_an_epic_seed_is_not_a_member_of_its_group():
    assert order(Board().epic(10, 11, 12), 10) == ([11, 12], 11, True)


def test_gd4_dependencies_outrank_issue_numbers():
    board = Board().epic(10, 12, 11).blocks(12, 11)
    assert order(board, 11) == ([12, 11], 12, True)


def test_gd5_a_blocker_joins_the_group_first():
    assert order(Board().blocks(21, 20), 20) == ([21, 20], 21, True)


def test_gd6_dependencies_of_dependencies_are_found__fixed():
    board = Board().blocks(21, 20).blocks(22, 21)
    assert order(board, 20) == ([22, 21, 20], 22, True)


def test_gd7_a_blocker_of_a_sibling_is_ordered_by_number_among_roots():
    board = Board().epic(10, 11, 12).blocks(30, 12)
    assert order(board, 11) == ([11, 30, 12], 11, True)


def test_gd8_a_cycle_names_the_issues():
    board = Board().epic(10, 11, 12).blocks(11, 12).blocks(12, 11)
    with pytest.raises(DependencyCycle) as info:
        detect_group(11, board.fetch)
    assert info.value.issues == (11, 12)
    assert str(info.value).startswith(
        "Cycle detected in dependencies! Issues involved: #11, #12. "
        "These issues form a circular dependency chain."
    )


def test_a_cycle_names_only_the_issues_on_it_not_those_after_it():
    board = Board().lone(1, 2, 3, 4).blocks(1, 2).blocks(2, 3).blocks(3, 2).blocks(3, 4)
    with pytest.raises(DependencyCycle) as info:
        detect_group(1, board.fetch)
    assert info.value.issues == (2, 3)


def test_gd9_blocking_edges_known_only_to_the_blocker_order_the_group__fixed():
    board = Board().blocks(21, 20, one_sided="blocker")
    assert order(board, 21) == ([21, 20], 21, True)


def test_gd10_a_missing_seed_is_an_error():
    with pytest.raises(IssueNotFound, match="Issue #5 not found"):
        detect_group(5, Board().fetch)


def test_gd11_a_dependency_on_a_members_parent_is_never_added():
    board = Board().epic(10, 11, 12).blocks(10, 12)
    assert order(board, 11) == ([11, 12], 11, True)


def test_an_epic_reached_through_a_dependency_is_an_external_blocker():
    board = Board().epic(50, 51, 52).lone(1).blocks(50, 1)
    assert order(board, 1) == ([1], 1, False)


def test_dependencies_that_cannot_be_fetched_are_skipped():
    board = Board().lone(1)
    board.issues[1]["blocked_by"].append(99)
    assert order(board, 1) == ([1], 1, False)


def test_each_issue_is_fetched_once():
    board = Board().epic(10, 11, 12, 13).blocks(11, 12).blocks(12, 13).blocks(40, 13)
    detect_group(12, board.fetch)
    assert sorted(board.lookups) == sorted(set(board.lookups))


def test_issue_relations_from_dict_accepts_the_originals_keys():
    relations = IssueRelations.from_dict(
        {
            "number": 4,
            "title": "x",
            "parent": 1,
            "subIssues": [5],
            "blockedBy": [2],
            "blocking": [3],
        }
    )
    assert relations == IssueRelations(4, "x", 1, (5,), (2,), (3,))


class BoardReadTogether(Board):
    """A board that reads several issues in one request, counting the requests."""

    def __init__(self):
        super().__init__()
        self.requests: list[list[int]] = []

    def fetch_many(self, numbers):
        self.requests.append(list(numbers))
        return {n: found for n in numbers if (found := Board.fetch(self, n)) is not None}

    def fetch(self, number):
        self.requests.append([number])
        return super().fetch(number)


@pytest.mark.parametrize("seed", [10, 11, 13])
def test_an_epics_children_are_read_together_when_the_board_can(seed):
    board = BoardReadTogether().epic(10, 11, 12, 13, 14).blocks(12, 11).blocks(13, 14)
    alone = Board().epic(10, 11, 12, 13, 14).blocks(12, 11).blocks(13, 14)
    together = detect_group(seed, board.fetch, board.fetch_many)
    assert together == detect_group(seed, alone.fetch)
    others = [n for n in (11, 12, 13, 14) if n != seed]
    expected = [[10], others] if seed == 10 else [[seed], [10], others]
    assert board.requests == expected  # the seed, its parent, the rest together


def test_a_child_the_board_cannot_see_is_left_out_when_read_together():
    board = BoardReadTogether().epic(10, 11, 12)
    board.issues[10]["subs"].append(99)  # listed, but not readable
    assert detect_group(11, board.fetch, board.fetch_many).issues == (11, 12)
