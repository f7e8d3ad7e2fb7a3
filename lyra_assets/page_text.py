"""A page's whole text, rebuilt from its fragments: where a claim's or a passage's exposure is named."""

import pandas as pd

from lyra_core.fragments import split_sentences
from lyra_resources.store.lyra_store import LyraStore


def page_papers(store: LyraStore, task_id: str, fragments: pd.DataFrame) -> dict[str, tuple[str, str]]:
    """Each page's title and text, its fragments' sentences in order with the windows' overlap
    read once: the paper a passage's design and size are read from."""
    titles = dict(store.fetch_df("SELECT page_id, title FROM pages WHERE task_id = ?", [task_id])
                  .itertuples(index=False, name=None))
    papers = {}
    for page_id, group in fragments.sort_values(["page_id", "position"]).groupby("page_id"):
        sentences = dict.fromkeys(s for text in group["text"] for s in split_sentences(text))
        papers[page_id] = (titles.get(page_id) or "", " ".join(sentences))
    return papers


def page_texts(papers: dict[str, tuple[str, str]]) -> dict[str, str]:
    """Each page's title and text in one string: where a results sentence's exposure is named."""
    return {page_id: f"{title} {text}" for page_id, (title, text) in papers.items()}
