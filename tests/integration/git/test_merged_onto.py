"""A merge train's prefix built with plumbing: each car merged onto the one before it,
on no branch, with the tree the real merge makes there."""

from __future__ import annotations

from ralph.git import GitRepo

from ..conftest import GitProject


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
