"""A verify task's results as its tables hold them (``lyra verify``): each claim's stored score, how
many papers were in its scope, and its strongest SUPPORTS and REFUTES edge with the passage and the
paper behind it."""

from __future__ import annotations

import pandas as pd

from lyra_resources.store.lyra_store import LyraStore


def edge_columns(store: LyraStore) -> set[str]:
    return set(
        store.fetch_df("SELECT column_name FROM information_schema.columns WHERE table_name = 'nli_edges'")[
            "column_name"
        ]
    )


def strongest_edges(store: LyraStore, task_id: str) -> pd.DataFrame:
    """Per claim and side, the SUPPORTS and REFUTES edge of highest probability (the class's own
    ``p_supports`` / ``p_refutes`` where the table has them, else ``nli_confidence``); ties by edge id."""
    cols = edge_columns(store)  # edges judged before those columns existed have them null
    p_sup = "coalesce(e.p_supports, e.nli_confidence)" if "p_supports" in cols else "e.nli_confidence"
    p_ref = "coalesce(e.p_refutes, e.nli_confidence)" if "p_refutes" in cols else "e.nli_confidence"
    reason = "e.reason" if "reason" in cols else "NULL"
    return store.fetch_df(
        "SELECT claim_id, relation, edge_id, probability, text, paper_id, title, sources, reason FROM (SELECT *, "
        "row_number() OVER (PARTITION BY claim_id, relation ORDER BY probability DESC, edge_id) AS nth FROM ("
        "SELECT e.claim_id, e.relation, e.edge_id, "
        f"CASE e.relation WHEN 'SUPPORTS' THEN {p_sup} ELSE {p_ref} END AS probability, "
        f"f.text, pg.paper_id, coalesce(p.title, pg.title) AS title, p.sources, {reason} AS reason FROM nli_edges e "
        "JOIN fragments f ON f.task_id = e.task_id AND f.fragment_id = e.fragment_id "
        "JOIN pages pg ON pg.task_id = f.task_id AND pg.page_id = f.page_id "
        "LEFT JOIN papers p ON p.task_id = pg.task_id AND p.paper_id = pg.paper_id "
        "WHERE e.task_id = ? AND e.relation IN ('SUPPORTS', 'REFUTES')) AS judged) AS ranked WHERE nth = 1",
        [task_id],
    )


def claim_scores(store: LyraStore, task_id: str) -> pd.DataFrame:
    """The task's claim scores, indexed by claim id."""
    return store.fetch_df(
        "SELECT claim_id, verdict, confidence, uncertainty, controversy, evidence_count "
        "FROM claim_scores WHERE task_id = ?",
        [task_id],
    ).set_index("claim_id")


def scope_sizes(store: LyraStore, task_id: str) -> pd.Series:
    """How many papers each claim's scope held, by claim id."""
    return store.fetch_df(
        "SELECT claim_id, count(*) AS n FROM claim_scope WHERE task_id = ? GROUP BY claim_id", [task_id]
    ).set_index("claim_id")["n"]
