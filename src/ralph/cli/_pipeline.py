"""``ralph pipeline ...``: the pure pipeline algorithms on JSON files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import RenderableType

from ralph.cli._console import Console
from ralph.cli._documents import load_board, load_ownership, load_position_input
from ralph.cli._echo import echo
from ralph.cli._render import (
    render_graph,
    render_group,
    render_plan,
    render_position,
    render_streams,
)
from ralph.graph import ReviewMode

__all__ = ["pipeline_app"]

pipeline_app = typer.Typer(
    name="pipeline",
    help="Pipeline analysis on JSON snapshots: position, groups, work streams, task graphs.",
    no_args_is_help=True,
)

FileArg = Annotated[
    Path, typer.Argument(help="JSON file to read.", show_default=False, metavar="FILE.json")
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON for machines.")]
ReviewOpt = Annotated[
    ReviewMode | None,
    typer.Option(
        "--review-mode",
        help="How plans are approved (overrides the file's reviewMode; default auto).",
        case_sensitive=False,
    ),
]


def _emit(as_json: bool, data: dict[str, Any], rendering: RenderableType) -> None:
    if as_json:
        echo(json.dumps(data, indent=2))
    else:
        Console().print(rendering)


@pipeline_app.command("position")
def position_command(file: FileArg, as_json: JsonOpt = False) -> None:
    """Where issues stand in the pipeline.

    FILE.json: {"issues": [{"number", "title", "workflowState", "estimate",
    "subIssueCount"}], "isGroup": bool, "groupPrimary": int}.
    """
    from ralph.pipeline import detect_position

    document = load_position_input(file)
    position = detect_position(
        document.issues, is_group=document.is_group, group_primary=document.group_primary
    )
    _emit(as_json, position.to_dict(), render_position(position))


@pipeline_app.command("streams")
def streams_command(file: FileArg, as_json: JsonOpt = False) -> None:
    """Independent work streams of a group, from the files each issue will modify.

    FILE.json: {"issues": [{"number", "files": [...], "blockedBy": [...]}]}.
    """
    from ralph.pipeline import detect_work_streams

    result = detect_work_streams(load_ownership(file))
    _emit(as_json, result.to_dict(), render_streams(result))


@pipeline_app.command("graph")
def graph_command(file: FileArg, review_mode: ReviewOpt = None, as_json: JsonOpt = False) -> None:
    """The whole task graph from the issues' position to the merge.

    FILE.json: as for `position`, in implementation order, optionally with
    "reviewMode" (auto | interactive | skip) and "streams": [{"issues": [...]}].
    """
    from ralph.graph import build_task_graph
    from ralph.pipeline import detect_position

    document = load_position_input(file)
    position = detect_position(
        document.issues, is_group=document.is_group, group_primary=document.group_primary
    )
    mode = review_mode or document.review_mode or ReviewMode.AUTO
    graph = build_task_graph(position, document.group, review_mode=mode, streams=document.streams)
    _emit(as_json, graph.to_dict(), render_graph(graph))


@pipeline_app.command("group")
def group_command(file: FileArg, as_json: JsonOpt = False) -> None:
    """The group a seed issue belongs to, in implementation order.

    FILE.json: {"seed": int, "issues": [{"number", "parent", "subIssues", "blockedBy",
    "blocking"}]}.
    """
    from ralph.pipeline import detect_group

    board = load_board(file)
    group = detect_group(board.seed, board.relations.get)
    _emit(as_json, group.to_dict(), render_group(group))


@pipeline_app.command("analyze")
def analyze_command(file: FileArg, review_mode: ReviewOpt = None, as_json: JsonOpt = False) -> None:
    """Everything at once for a board snapshot: group, position, streams, task graph.

    FILE.json: {"seed": int, "reviewMode": str, "issues": [{"number", "title",
    "workflowState", "estimate", "parent", "subIssues", "blockedBy", "blocking",
    "files"}]}.
    """
    from ralph.graph import plan_pipeline
    from ralph.pipeline import suggest_roster

    board = load_board(file)
    plan = plan_pipeline(
        board.seed,
        board.relations.get,
        board.states,
        review_mode=review_mode or board.review_mode or ReviewMode.AUTO,
        files=board.files,
    )
    roster = suggest_roster(plan.position, plan.streams)
    _emit(as_json, plan.to_dict(), render_plan(plan, roster))
