"""A run's task graph as SVG: a column per depth (a task sits one column right of the
deepest task it waits for), tasks in creation order within a column (canceled ones last:
a re-plan's replaced tasks are history, not the work), an edge from each dependency,
colours by status and the critical path drawn heavier. A long pipeline wraps into bands
of a few columns, so the graph fits a laptop's screen instead of scrolling sideways.
Plain data in, markup out (escaped: task subjects carry issue titles)."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from html import escape

from ralph.orchestrate import TaskLine

__all__ = ["GraphLayout", "layout_graph", "render_svg"]

NODE_WIDTH = 200
NODE_HEIGHT = 46
COLUMN_GAP = 56
ROW_GAP = 14
MARGIN = 12
#: Columns in one band: 5 × 200 px and their gaps fit the page at 1366 px.
BAND_COLUMNS = 5
BAND_GAP = 30
#: Characters of a subject shown on its node (the full one is in its tooltip).
SUBJECT_CHARS = 28


@dataclass(frozen=True)
class Placed:
    line: TaskLine
    #: Its depth: how many tasks it waits for in a chain.
    column: int
    row: int
    #: Where its band starts.
    top: int = MARGIN

    @property
    def x(self) -> int:
        return MARGIN + (self.column % BAND_COLUMNS) * (NODE_WIDTH + COLUMN_GAP)

    @property
    def y(self) -> int:
        return self.top + self.row * (NODE_HEIGHT + ROW_GAP)


@dataclass(frozen=True)
class GraphLayout:
    nodes: tuple[Placed, ...]
    #: (dependency id, task id) pairs, both placed.
    edges: tuple[tuple[int, int], ...]
    width: int
    height: int


def layout_graph(lines: Sequence[TaskLine], deps: Mapping[int, Sequence[int]]) -> GraphLayout:
    """``lines`` in creation order (which is topological); ``deps``: task id -> the ids
    it waits for."""
    column: dict[int, int] = {}
    for line in lines:
        before = [column[d] for d in deps.get(line.id, ()) if d in column]
        column[line.id] = max(before, default=-1) + 1
    shown = sorted(lines, key=lambda line: line.status == "canceled")
    rows: dict[int, int] = {}
    row: dict[int, int] = {}
    for line in shown:
        col = column[line.id]
        rows[col] = rows.get(col, -1) + 1
        row[line.id] = rows[col]
    columns = max(column.values(), default=-1) + 1
    tops = _band_tops(rows, columns)
    nodes = tuple(
        Placed(line, column[line.id], row[line.id], tops[column[line.id] // BAND_COLUMNS])
        for line in lines
    )
    edges = tuple((d, line.id) for line in lines for d in deps.get(line.id, ()) if d in column)
    wide = min(columns, BAND_COLUMNS)
    return GraphLayout(
        nodes,
        edges,
        width=2 * MARGIN + wide * NODE_WIDTH + max(wide - 1, 0) * COLUMN_GAP,
        height=tops[-1] - BAND_GAP + MARGIN if columns else 2 * MARGIN,
    )


def _band_tops(rows: Mapping[int, int], columns: int) -> list[int]:
    """The y of each band's top, and past the last one where a next band would start."""
    tops = [MARGIN]
    for start in range(0, columns, BAND_COLUMNS):
        tallest = max(rows[c] for c in range(start, min(start + BAND_COLUMNS, columns))) + 1
        tops.append(tops[-1] + tallest * NODE_HEIGHT + (tallest - 1) * ROW_GAP + BAND_GAP)
    return tops


def _edge_path(a: Placed, b: Placed) -> str:
    """A curve to a task to the right; to one wrapped onto a later band, a path down the
    gap after ``a``, left along the gap above ``b``'s band, and into ``b``."""
    x1, y1 = a.x + NODE_WIDTH, a.y + NODE_HEIGHT // 2
    x2, y2 = b.x, b.y + NODE_HEIGHT // 2
    if x2 > x1:
        bend = (x2 - x1) // 2
        return f"M{x1},{y1} C{x1 + bend},{y1} {x2 - bend},{y2} {x2},{y2}"
    # Within the margins, so the graph is no wider than its bands.
    right, left, gap = x1 + MARGIN // 2, x2 - MARGIN // 2, b.top - BAND_GAP // 2
    return f"M{x1},{y1} H{right} V{gap} H{left} V{y2} H{x2}"


def _seconds(value: float) -> str:
    if not value:
        return ""
    if value < 60:
        return f"{value:.1f}s"
    minutes, rest = divmod(int(value), 60)
    return f"{minutes}m{rest:02d}s"


def _caption(line: TaskLine) -> str:
    parts = [line.status, _seconds(line.seconds)]
    if line.attempts > 1:
        parts.append(f"{line.attempts} tries")
    if line.cost_usd:
        parts.append(f"${line.cost_usd:.2f}")
    return " · ".join(p for p in parts if p)


def render_svg(layout: GraphLayout, critical: Collection[str]) -> str:
    """The SVG element; ``critical``: the keys of the tasks on the critical path."""
    by_id = {node.line.id: node for node in layout.nodes}
    on_path = {node.line.id for node in layout.nodes if node.line.key in critical}
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="task-graph" '
        f'width="{layout.width}" height="{layout.height}" '
        f'viewBox="0 0 {layout.width} {layout.height}" role="img" '
        f'aria-label="Task graph, {len(layout.nodes)} tasks">'
    ]
    for source, target in layout.edges:
        hot = " critical" if source in on_path and target in on_path else ""
        out.append(f'<path class="edge{hot}" d="{_edge_path(by_id[source], by_id[target])}"/>')
    for node in layout.nodes:
        line = node.line
        hot = " critical" if line.id in on_path else ""
        subject = line.subject
        shown = subject if len(subject) <= SUBJECT_CHARS else subject[: SUBJECT_CHARS - 1] + "…"
        out.append(
            f'<g class="task status-{escape(line.status)}{hot}" id="task-{line.id}" '
            f'data-key="{escape(line.key)}" data-status="{escape(line.status)}">'
            f"<title>{escape(subject)} ({escape(line.status)})</title>"
            f'<a href="#row-{line.id}">'
            f'<rect x="{node.x}" y="{node.y}" width="{NODE_WIDTH}" height="{NODE_HEIGHT}" '
            f'rx="6"/>'
            f'<text x="{node.x + 8}" y="{node.y + 19}" class="subject">{escape(shown)}</text>'
            f'<text x="{node.x + 8}" y="{node.y + 36}" class="caption">'
            f"{escape(_caption(line))}</text></a></g>"
        )
    out.append("</svg>")
    return "".join(out)
