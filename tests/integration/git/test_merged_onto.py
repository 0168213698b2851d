"""A merge train's prefix built with plumbing: each car merged onto the one before it,
on no branch, with the tree the real merge makes there."""

from __future__ import annotations

import pytest

from ralph.git import GitRepo

from ..conftest import GitProject
from ._counting import gits_started


def test_a_chain_of_merges_holds_each_car_and_lands_as_the_same_tree(project: GitProject):
    project.commit("first", {"a.py": "A = 1\n"}, "first")
    second = project.commit("second", {"b.py": "B = 1\n"}, "second")
    repo = GitRepo(project.path)
    base = repo.resolve("refs/heads/main")

    one = repo.merged_onto(base, "first", "one")
    assert one is not None
    two = repo.merged_onto(one, "second", "two")
    assert two is not None
    assert project.show(two, "a.py") == "A = 1"
    assert project.show(two, "b.py") == "B = 1"
    assert project.rev(f"{two}^2") == second  # a merge commit: the car's head its parent
    assert repo.resolve("refs/heads/main") == base  # nothing moved

    # Landing them as the host does gives the trees the chain tested.
    repo.merge("first", "main", "land first")
    assert repo.tree_of("refs/heads/main") == repo.tree_of(one)
    repo.merge("second", "main", "land second")
    assert repo.tree_of("refs/heads/main") == repo.tree_of(two)


def test_a_squashed_car_has_one_parent(project: GitProject):
    project.commit("first", {"a.py": "A = 1\n"}, "first")
    repo = GitRepo(project.path)
    base = repo.resolve("refs/heads/main")
    squashed = repo.merged_onto(base, "first", "squashed", squash=True)
    assert squashed is not None
    parents = repo.git("rev-list", "--parents", "-n", "1", squashed, what="parents").split()
    assert parents == [squashed, base]


def test_a_car_that_conflicts_with_those_before_it_is_none(project: GitProject):
    project.commit("first", {"a.py": "A = 1\n"}, "first")
    project.commit("other", {"a.py": "A = 2\n"}, "other")
    repo = GitRepo(project.path)
    one = repo.merged_onto(repo.resolve("refs/heads/main"), "first", "one")
    assert one is not None
    assert repo.merged_onto(one, "other", "two") is None


def test_a_car_landed_with_the_message_it_was_built_with_lands_the_commit_built(
    project: GitProject, monkeypatch: pytest.MonkeyPatch
):
    head = project.commit("first", {"a.py": "A = 1\n"}, "first")
    repo = GitRepo(project.path)
    base = repo.resolve("refs/heads/main")
    built = repo.merged_onto(base, head, "Merge first")
    assert built is not None

    started = gits_started(monkeypatch)
    landed = repo.merge(head, "main", "Merge first")

    # The very commit tested lands: nothing merged or made again, the branch moved.
    assert landed.commit == built
    assert repo.resolve("refs/heads/main") == built
    assert [args[0] for args in started if args[0] in ("merge-tree", "commit-tree")] == []


def test_a_car_landed_with_another_message_gets_a_commit_of_its_own(project: GitProject):
    head = project.commit("first", {"a.py": "A = 1\n"}, "first")
    repo = GitRepo(project.path)
    base = repo.resolve("refs/heads/main")
    built = repo.merged_onto(base, head, "Merge first (merge train)")
    assert built is not None

    landed = repo.merge(head, "main", "Merge first")

    assert landed.commit != built
    assert repo.tree_of(landed.commit) == repo.tree_of(built)
    message = repo.git("log", "-1", "--format=%B", landed.commit, what="read the message")
    assert message == "Merge first"


def test_a_built_car_already_on_the_base_is_already_merged(project: GitProject):
    head = project.commit("first", {"a.py": "A = 1\n"}, "first")
    repo = GitRepo(project.path)
    repo.merge(head, "main", "Merge first")
    base = repo.resolve("refs/heads/main")
    built = repo.merged_onto(base, head, "Merge first again")
    assert built is not None

    landed = repo.merge(head, "main", "Merge first again")

    assert landed.already_merged
    assert repo.resolve("refs/heads/main") == base


def test_a_merge_landed_before_others_is_known_on_the_base_without_git(
    project: GitProject, monkeypatch: pytest.MonkeyPatch
):
    first = project.commit("first", {"a.py": "A = 1\n"}, "first")
    second = project.commit("second", {"b.py": "B = 1\n"}, "second")
    other = project.commit("other", {"c.py": "C = 1\n"}, "other")
    repo = GitRepo(project.path)
    landed = repo.merge(first, "main", "Merge first").commit
    tip = repo.merge(second, "main", "Merge second").commit

    started = gits_started(monkeypatch)
    assert repo.is_ancestor(landed, tip)
    assert started == []  # the base moved from one to the other: Ralph's own moves
    # What the moves do not say is asked of git.
    assert not repo.is_ancestor(tip, landed)
    assert not repo.is_ancestor(other, tip)
    assert repo.is_ancestor(first, tip)
    assert [args[0] for args in started] == ["merge-base"] * 3


def _prune_unreferenced(project: GitProject) -> None:
    """What `git gc` does to what no ref holds once it is old enough (two weeks by
    default), at once."""
    project._git("reflog", "expire", "--expire=now", "--all")
    project._git("gc", "-q", "--prune=now")


def test_a_built_car_git_pruned_since_is_merged_again_not_refused(project: GitProject):
    head = project.commit("first", {"a.py": "A = 1\n"}, "first")
    repo = GitRepo(project.path)
    base = repo.resolve("refs/heads/main")
    built = repo.merged_onto(base, head, "Merge first")
    assert built is not None
    _prune_unreferenced(project)
    assert not project.has(f"{built}^{{commit}}")

    landed = repo.merge(head, "main", "Merge first")

    assert repo.resolve("refs/heads/main") == landed.commit
    assert project.show(landed.commit, "a.py") == "A = 1"


def test_a_merged_tree_git_pruned_since_is_merged_again(project: GitProject):
    head = project.commit("first", {"a.py": "A = 1\n"}, "first")
    project.commit("main", {"b.py": "B = 1\n"}, "meanwhile")  # a tree no ref holds
    repo = GitRepo(project.path)
    base = repo.resolve("refs/heads/main")
    assert repo.merges_onto(base, head)  # the tree made, and kept
    _prune_unreferenced(project)

    built = repo.merged_onto(base, head, "Merge first")

    assert built is not None
    assert project.show(built, "a.py") == "A = 1"
    assert project.show(built, "b.py") == "B = 1"
