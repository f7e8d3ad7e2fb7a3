"""A page's whole text, rebuilt from its fragments: where a claim's or a passage's exposure is named."""

import pandas as pd

from lyra_core.fragments import split_sentences


def page_papers(pages: pd.DataFrame, fragments: pd.DataFrame) -> dict[str, tuple[str, str]]:
    """Each page's title and text, its fragments' sentences in order with the windows' overlap
    read once: the paper a passage's design and size are read from."""
    titles = dict(zip(pages["page_id"], pages["title"], strict=True))
    papers = {}
    for page_id, group in fragments.sort_values(["page_id", "position"]).groupby("page_id"):
        sentences = dict.fromkeys(s for text in group["text"] for s in split_sentences(text))
        papers[page_id] = (titles.get(page_id) or "", " ".join(sentences))
    return papers


def page_texts(papers: dict[str, tuple[str, str]]) -> dict[str, str]:
    """Each page's title and text in one string: where a results sentence's exposure is named."""
    return {page_id: f"{title} {text}" for page_id, (title, text) in papers.items()}
