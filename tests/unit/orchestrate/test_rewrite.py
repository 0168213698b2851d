"""Graph rewrites, transition by transition: what a triage, a split, a group plan
becoming streams and a NEEDS_ITERATION verdict do to the stored graph."""

from __future__ import annotations

from ralph.graph import ReviewMode, Role, TaskGraph, TaskKind, TaskSpec, build_task_graph
from ralph.orchestrate import address_round, base_key, generation, iterate, regraph
from ralph.pipeline import GroupResult, IssueState, WorkStream, detect_position
from ralph.tasks import TaskStatus, open_store


def graph_for(states, *, streams=None, review_mode=ReviewMode.AUTO) -> TaskGraph:
    issues = [IssueState(n, f"#{n}", state, estimate, subs) for n, state, estimate, subs in states]
    group = GroupResult(tuple(i.number for i in issues), issues[0].number, len(issues) > 1)
    position = detect_position(issues, is_group=len(issues) > 1, group_primary=issues[0].number)
    return build_task_graph(position, group, review_mode=review_mode, streams=streams)


def stored(graph):
    store = open_store("memory://")
    run = store.create_run("r", root_issue=1)
    store.add_tasks(run.id, graph)
    return store, run


def run_task(store, run, key):
    """Claim and return the claim of the task with ``key`` (it must be claimable)."""
    task = next(t for t in store.list_tasks(run.id) if t.key == key)
    return store.claim_task(task.id, "w")


def keys(store, run, status):
    return [t.key for t in store.list_tasks(run.id, status=status)]


def test_generations_are_suffixes():
    assert base_key("plan:42~2") == "plan:42"
    assert generation("plan:42~3") == 3
    assert generation("plan:42") == 1


def test_after_a_triage_sizes_an_issue_M_it_is_split_first_and_the_chain_goes():
    store, run = stored(graph_for([(1, "Backlog", None, 0)]))
    claim = run_task(store, run, "triage:1")
    fresh = graph_for([(1, "Backlog", "M", 0)])  # triage said M: split it
    edit, _ = regraph(store.list_tasks(run.id), fresh, finished={claim.task_id})
    store.complete(claim, {}, edit=edit)
    assert keys(store, run, TaskStatus.PENDING) == ["split:1"]
    assert set(keys(store, run, TaskStatus.CANCELED)) == {
        "research:1",
        "plan:1",
        "review:1",
        "implement:1",
        "pr:1",
        "merge:1",
    }


def test_after_a_fast_tracked_triage_implementation_pr_and_merge_come_next():
    store, run = stored(graph_for([(1, "Backlog", None, 0)]))
    claim = run_task(store, run, "triage:1")
    fresh = graph_for([(1, "In Progress", "XS", 0)])  # fast-tracked: Ralph wrote the plan
    edit, _ = regraph(store.list_tasks(run.id), fresh, finished={claim.task_id})
    store.complete(claim, {}, edit=edit)
    assert keys(store, run, TaskStatus.PENDING) == ["implement:1~2", "pr:1~2", "merge:1~2"]
    implement = next(t for t in store.list_tasks(run.id) if t.key == "implement:1~2")
    assert not implement.deps  # claimable at once: no research, plan or review before it
    assert set(keys(store, run, TaskStatus.CANCELED)) == {
        "research:1",
        "plan:1",
        "review:1",
        "implement:1",
        "pr:1",
        "merge:1",
    }


def test_a_failed_fast_track_replaces_its_implementation_by_the_full_pipeline():
    store, run = stored(graph_for([(1, "In Progress", "XS", 0)]))
    claim = run_task(store, run, "implement:1")
    fresh = graph_for([(1, "Research Needed", "XS", 0)])  # the fall back moved it there
    edit, survives = regraph(store.list_tasks(run.id), fresh, replaceable={claim.task_id})
    assert not survives
    store.supersede(claim, edit)
    assert keys(store, run, TaskStatus.PENDING) == [
        "research:1",
        "plan:1",
        "review:1",
        "implement:1~2",
        "pr:1~2",
        "merge:1~2",
    ]
    assert set(keys(store, run, TaskStatus.CANCELED)) == {"implement:1", "pr:1", "merge:1"}


def test_after_a_split_the_sub_issues_get_their_whole_pipeline():
    store, run = stored(graph_for([(1, "Backlog", "M", 0)]))
    claim = run_task(store, run, "split:1")
    children = [(2, "Research Needed", "XS", 0), (3, "Research Needed", "S", 0)]
    edit, _ = regraph(store.list_tasks(run.id), graph_for(children), finished={claim.task_id})
    store.complete(claim, {}, edit=edit)
    pending = keys(store, run, TaskStatus.PENDING)
    assert pending[:3] == ["research:2", "research:3", "plan:2"]
    assert pending[-2:] == ["pr:2", "merge:2"]
    assert not keys(store, run, TaskStatus.CANCELED)


def test_a_claimed_group_plan_that_matches_the_fresh_graph_survives_untouched():
    group = [(n, "Research Needed", "XS", 0) for n in (2, 3, 4)]
    store, run = stored(graph_for(group))
    for n in (2, 3, 4):
        store.complete(run_task(store, run, f"research:{n}"))
    claim = run_task(store, run, "plan:2")
    fresh = graph_for([(n, "Ready for Plan", "XS", 0) for n in (2, 3, 4)])
    edit, survives = regraph(store.list_tasks(run.id), fresh, replaceable={claim.task_id})
    assert survives
    assert not edit


def test_a_claimed_group_plan_is_replaced_by_one_chain_per_stream():
    group = [(n, "Research Needed", "XS", 0) for n in (2, 3, 4)]
    store, run = stored(graph_for(group))
    for n in (2, 3, 4):
        store.complete(run_task(store, run, f"research:{n}"))
    claim = run_task(store, run, "plan:2")
    streams = [WorkStream("stream-2-3", (2, 3), ("a.py",), 2), WorkStream("stream-4", (4,), (), 4)]
    fresh = graph_for([(n, "Ready for Plan", "XS", 0) for n in (2, 3, 4)], streams=streams)
    edit, survives = regraph(store.list_tasks(run.id), fresh, replaceable={claim.task_id})
    assert not survives
    store.supersede(claim, edit)
    assert store.get_task(claim.task_id).status is TaskStatus.CANCELED
    pending = keys(store, run, TaskStatus.PENDING)
    assert "plan:stream-2-3" in pending
    assert "plan:stream-4" in pending
    # Each stream's plan can start at once: research is done.
    claimable = {store.claim(run.id, "w", ["builder"]).task.key for _ in range(2)}
    assert claimable == {"plan:stream-2-3", "plan:stream-4"}


def test_work_that_ran_and_is_asked_for_again_is_dropped_with_what_waits_for_it():
    # Triage kept #1 in Backlog: planning again would triage it forever.
    store, run = stored(graph_for([(1, "Backlog", None, 0)]))
    claim = run_task(store, run, "triage:1")
    fresh = graph_for([(1, "Backlog", "XS", 0)])
    edit, _ = regraph(store.list_tasks(run.id), fresh, finished={claim.task_id})
    assert not edit.add
    store.complete(claim, {}, edit=edit)
    assert keys(store, run, TaskStatus.PENDING) == []


def test_work_done_after_the_tracker_was_read_still_counts_and_nothing_is_lost():
    # Triage of #2 ends while research of #3 finished between the tracker read (#3
    # still Research in Progress) and the store read (research:3 done).
    group = [
        (2, "Backlog", "XS", 0),
        (3, "Research Needed", "XS", 0),
        (4, "Research Needed", "XS", 0),
    ]
    store, run = stored(graph_for(group))
    store.complete(run_task(store, run, "research:3"))
    claim = run_task(store, run, "triage:2")
    stale = [
        (2, "Research Needed", "XS", 0),
        (3, "Research in Progress", "XS", 0),
        (4, "Research Needed", "XS", 0),
    ]
    edit, _ = regraph(store.list_tasks(run.id), graph_for(stale), finished={claim.task_id})
    store.complete(claim, {}, edit=edit)
    assert not keys(store, run, TaskStatus.CANCELED)
    pending = keys(store, run, TaskStatus.PENDING)
    assert pending == [
        "research:2",
        "research:4",
        "plan:2",
        "review:2",
        "implement:2",
        "implement:3",
        "implement:4",
        "pr:2",
        "merge:2",
    ]


def test_a_triage_that_changes_nothing_cancels_nothing():
    # Triages of #2 and #3 run together; #3's has moved its issue already when #2's ends
    # and plans again: research:3 keeps waiting for the triage still running.
    group = [(n, "Backlog", "XS", 0) for n in (2, 3, 4)]
    store, run = stored(graph_for(group))
    claim = run_task(store, run, "triage:2")
    run_task(store, run, "triage:3")
    fresh = graph_for(
        [(2, "Research Needed", "XS", 0), (3, "Research Needed", "XS", 0), (4, "Backlog", "XS", 0)]
    )
    edit, _ = regraph(store.list_tasks(run.id), fresh, finished={claim.task_id})
    assert not edit.cancel
    assert not edit.add
    store.complete(claim, {}, edit=edit)
    research = next(t for t in store.list_tasks(run.id) if t.key == "research:3")
    assert research.status is TaskStatus.PENDING
    assert [store.get_task(d).key for d in research.deps] == ["triage:3"]


def test_needs_iteration_adds_a_new_plan_and_review_and_moves_the_chain_behind_them():
    store, run = stored(graph_for([(2, "Ready for Plan", "XS", 0)]))
    store.complete(run_task(store, run, "plan:2"))
    claim = run_task(store, run, "review:2")
    edit = iterate(store.list_tasks(run.id), claim.task, reason="NEEDS_ITERATION")
    store.complete(claim, {"verdict": "NEEDS_ITERATION"}, edit=edit)
    assert keys(store, run, TaskStatus.PENDING) == [
        "plan:2~2",
        "review:2~2",
        "implement:2~2",
        "pr:2~2",
        "merge:2~2",
    ]
    assert set(keys(store, run, TaskStatus.CANCELED)) == {"implement:2", "pr:2", "merge:2"}
    # Nothing but the new plan can start.
    assert store.claim(run.id, "w", ["builder", "validator", "integrator"]).task.key == "plan:2~2"
    assert store.claim(run.id, "w", ["builder", "validator", "integrator"]) is None


def test_each_iteration_takes_the_next_generation():
    store, run = stored(graph_for([(2, "Ready for Plan", "XS", 0)]))
    for expected in ("plan:2~2", "plan:2~3"):
        store.complete(store.claim(run.id, "w", ["builder"]))
        review = store.claim(run.id, "w", ["validator"])
        store.complete(review, {}, edit=iterate(store.list_tasks(run.id), review.task))
        assert keys(store, run, TaskStatus.PENDING)[0] == expected


def test_a_re_plan_being_claimed_is_the_plan_the_fresh_graph_asks_for():
    store, run = stored(graph_for([(2, "Ready for Plan", "XS", 0)]))
    store.complete(store.claim(run.id, "w", ["builder"]))
    review = store.claim(run.id, "w", ["validator"])
    store.complete(review, {}, edit=iterate(store.list_tasks(run.id), review.task))
    claim = store.claim(run.id, "w", ["builder"])
    assert claim.task.key == "plan:2~2"
    fresh = graph_for([(2, "Ready for Plan", "XS", 0)])
    edit, survives = regraph(store.list_tasks(run.id), fresh, replaceable={claim.task_id})
    assert survives
    assert not edit


def in_review(*, review_code: bool = False) -> TaskGraph:
    issues = [IssueState(1, "#1", "In Review", "XS", 0)]
    position = detect_position(issues, is_group=False, group_primary=1)
    return build_task_graph(
        position, GroupResult((1,), 1, False), review_mode="auto", review_code=review_code
    )


def test_an_address_round_replaces_the_merge_with_address_then_merge_again():
    store, run = stored(in_review())
    claim = run_task(store, run, "merge:1")
    edit = address_round(store.list_tasks(run.id), claim.task, reason="changes requested")
    store.supersede(claim, edit)
    tasks = {t.key: t for t in store.list_tasks(run.id)}
    assert tasks["merge:1"].status is TaskStatus.CANCELED
    address, merge = tasks["address:1"], tasks["merge:1~2"]
    assert (address.kind, address.role, address.issues) == ("address", "builder", (1,))
    assert address.subject == "Address PR feedback for GH-1"
    assert address.metadata["command"] == "address"
    assert address.deps == ()
    assert merge.deps == (address.id,)
    assert (merge.subject, merge.metadata["command"]) == ("Merge PR for GH-1", "merge")
    assert store.claim(run.id, "w", ["integrator"]) is None  # the merge waits for the fix
    assert store.claim(run.id, "w", ["builder"]).task_id == address.id


def test_a_second_round_takes_the_next_generation_and_keeps_the_serial_key():
    store, run = stored(in_review())
    spec = next(iter(in_review()))
    assert spec.kind == "merge"
    for round_ in (1, 2):
        merge = next(
            t for t in store.list_tasks(run.id, status=TaskStatus.PENDING) if t.kind == "merge"
        )
        claim = store.claim_task(merge.id, "w")
        store.supersede(claim, address_round(store.list_tasks(run.id), claim.task))
        address = next(
            t for t in store.list_tasks(run.id, status=TaskStatus.PENDING) if t.kind == "address"
        )
        store.complete(store.claim_task(address.id, "w"))
        assert base_key(address.key) == "address:1"
        assert generation(address.key) == round_
    live = [t.key for t in store.list_tasks(run.id, status=TaskStatus.PENDING)]
    assert live == ["merge:1~3"]


def test_with_code_review_the_new_merge_waits_for_a_review_of_the_fix():
    store, run = stored(in_review(review_code=True))
    assert [t.key for t in store.list_tasks(run.id)] == ["code_review:1", "merge:1"]
    store.complete(run_task(store, run, "code_review:1"))
    claim = run_task(store, run, "merge:1")
    store.supersede(claim, address_round(store.list_tasks(run.id), claim.task, code_review=True))
    tasks = {t.key: t for t in store.list_tasks(run.id)}
    assert tasks["code_review:1~2"].deps == (tasks["address:1"].id,)
    assert tasks["code_review:1~2"].role == "validator"
    assert tasks["merge:1~2"].deps == (tasks["code_review:1~2"].id,)


def test_what_waited_for_the_merge_waits_for_the_new_one():
    store, run = stored(in_review())
    after = TaskSpec(
        key="after:1",
        kind=TaskKind.MERGE,
        role=Role.INTEGRATOR,
        issues=(1,),
        subject="Merge PR for GH-9",
        active_form="x",
        deps=("merge:1",),
    )
    store.add_tasks(run.id, [after])
    claim = run_task(store, run, "merge:1")
    store.supersede(claim, address_round(store.list_tasks(run.id), claim.task))
    tasks = {t.key: t for t in store.list_tasks(run.id)}
    assert tasks["after:1"].status is TaskStatus.CANCELED
    assert tasks["after:1~2"].deps == (tasks["merge:1~2"].id,)
