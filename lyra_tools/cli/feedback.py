"""``lyra feedback``: the MCP ``feedback`` tool's actions from the command line."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from lyra_core.validation import JsonTextError, load_json
from lyra_resources.store.lyra_store import StoreError
from lyra_tools.cli.common import HomeOption, console, fail, open_store

app = typer.Typer(
    help="Correct the graph and send relevance signals, as the MCP `feedback` tool does.",
    no_args_is_help=True,
)


def _apply_feedback(home: Path | None, task_id: str, action: str, payload: dict) -> None:
    from lyra_tools.feedback.apply import apply_feedback
    from lyra_tools.feedback.results import FeedbackError

    try:
        result = apply_feedback(open_store(home, create=False), task_id, action, payload)
    except (FeedbackError, StoreError) as exc:
        raise fail(str(exc)) from exc
    console.print_json(result.model_dump_json())


@app.command("apply")
def feedback_apply(
    task_id: Annotated[str, typer.Argument(help="the task the feedback is about")],
    action: Annotated[
        str,
        typer.Argument(
            help="edge_correct, claim_reject, claim_restore, domain_block, "
            "domain_unblock, domain_clear_override, fragment_useful, "
            "fragment_not_useful, flag_irrelevant, flag_missing, add_note"
        ),
    ],
    args: Annotated[
        str,
        typer.Argument(
            help='the action\'s arguments as JSON, e.g. \'{"edge_id": "e_…", '
            '"correct_relation": "supports", "reason": "…"}\''
        ),
    ] = "{}",
    home: HomeOption = None,
) -> None:
    """Submit any feedback action with its arguments as JSON."""
    try:
        payload = load_json(args)
    except JsonTextError as exc:
        raise fail(f"arguments are {exc}") from None
    if not isinstance(payload, dict):
        raise fail("arguments must be a JSON object")
    _apply_feedback(home, task_id, action, payload)


@app.command("edge-correct")
def feedback_edge_correct(
    task_id: Annotated[str, typer.Argument(help="the task the edge belongs to")],
    edge_id: Annotated[str, typer.Argument(help="the edge to correct (get_claim_evidence lists them)")],
    relation: Annotated[
        str, typer.Argument(help="supports, refutes or neutral: what the fragment really says")
    ],
    reason: Annotated[str | None, typer.Option(help="why (kept with the correction)")] = None,
    wrong_part: Annotated[
        str | None,
        typer.Option(
            "--wrong-part",
            help="for an edge of the direction judge: the part it misread (claim_direction, "
            "passage_direction, exposure, outcome, figures)",
        ),
    ] = None,
    home: HomeOption = None,
) -> None:
    """Correct one edge's relation; a changed label is a training sample for the next NLI adapter (and,
    with --wrong-part passage_direction, for the direction reader)."""
    payload = {"edge_id": edge_id, "correct_relation": relation.lower()}
    if reason:
        payload["reason"] = reason
    if wrong_part:
        payload["wrong_part"] = wrong_part
    _apply_feedback(home, task_id, "edge_correct", payload)
