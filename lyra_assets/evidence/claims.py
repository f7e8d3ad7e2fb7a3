"""The `claims` asset: what the top-ranked fragments claim, plus the claims the user states."""

import numpy as np
import pandas as pd
from dagster import AssetExecutionContext, MetadataValue, Output, ResourceParam

from lyra_assets import documents, ranking
from lyra_assets.metadata import table_metadata
from lyra_assets.page_text import page_papers, page_texts
from lyra_assets.task_assets import TASK, task_table
from lyra_core.claims import ExtractorConfig, claim_id_for, extract_claims
from lyra_core.evidence import ClaimCandidate, MergedClaim, adoption, dedupe_claims
from lyra_core.hypothesis import HYPOTHESIS, ParsedQuestion
from lyra_core.question_parts import QuestionParts, addresses_question, read_question
from lyra_core.relevance import TermWeights, claim_relevance, term_weights
from lyra_core.sections import strip_labels
from lyra_core.tasks import TaskOptions
from lyra_resources.models.claim_roles import CUE_SCORE, RULE_SCORE, claim_role_model
from lyra_resources.models.llm import LlmError, OllamaLlm
from lyra_resources.models.local_models import LocalModels
from lyra_resources.schema import CLAIMS
from lyra_resources.settings.loading import LyraSettings
from lyra_resources.store.lyra_store import LyraStore, TaskRecord

LOCAL_EXTRACTOR = "local-rules"
QUESTION_RULES = "question-rules"
# Candidates need one finding cue; the sentence-role model then decides (see keep_findings).
EXTRACTOR = ExtractorConfig(min_score=CUE_SCORE)


def top_fragments(ranking: pd.DataFrame, fragments: pd.DataFrame, limit: int) -> pd.DataFrame:
    """The ``limit`` best-ranked fragments, best first, with ``place``: where in its page the
    fragment stands (0 near the start, 1 near the end), a cue the sentence-role model reads."""
    last = fragments.groupby("page_id")["position"].max().rename("last")
    ranked = ranking.loc[ranking["final_rank"].notna(), ["fragment_id", "final_rank"]]
    ranked = ranked.sort_values("final_rank", kind="stable").head(limit)
    top = ranked.merge(
        fragments[["fragment_id", "page_id", "text", "sections", "position"]], on="fragment_id"
    )
    top = top.merge(last, left_on="page_id", right_index=True)
    top["place"] = (top["position"] + 0.5) / (top["last"] + 1)
    return top[["fragment_id", "page_id", "text", "sections", "place"]].reset_index(drop=True)


def candidates_from(
    fragments: pd.DataFrame, question: str, llm: OllamaLlm, log
) -> tuple[list[ClaimCandidate], str]:
    """Claims of each fragment: the LLM's when it is reachable, else the local extractor's."""
    use_llm, reason = llm.available()
    method = reason if use_llm else LOCAL_EXTRACTOR
    if not use_llm:
        log.info(f"claim extraction: local extractor ({reason})")
    out: list[ClaimCandidate] = []
    for frag in fragments.itertuples(index=False):
        if use_llm:
            try:
                texts = [strip_labels(t) for t in llm.extract_claims(question, frag.text)]
                out.extend(
                    ClaimCandidate(
                        text=t,
                        origin="extracted",
                        extractor=f"ollama:{llm.model}",
                        fragment_id=frag.fragment_id,
                        page_id=frag.page_id,
                        score=3.0,
                    )
                    for t in texts
                )
                continue
            except LlmError as exc:  # one bad answer costs one fragment's LLM claims, not the task
                log.warning(f"LLM extraction failed for {frag.fragment_id}, local extractor used: {exc}")
        out.extend(
            ClaimCandidate(
                text=c.text,
                origin="extracted",
                extractor=LOCAL_EXTRACTOR,
                fragment_id=frag.fragment_id,
                page_id=frag.page_id,
                score=c.score,
                features=c.features,
                position=getattr(frag, "place", None),
            )
            for c in extract_claims(frag.text, EXTRACTOR, _labels(getattr(frag, "sections", None)))
        )
    return out, method


def _labels(sections) -> list[str] | None:
    """A fragment's section labels as a list (None for a fragment stored before they were kept)."""
    return (
        None if sections is None or (isinstance(sections, float) and np.isnan(sections)) else list(sections)
    )


def keep_findings(
    candidates: list[ClaimCandidate], vectors: np.ndarray
) -> tuple[list[ClaimCandidate], np.ndarray, int]:
    """Drop the local extractor's candidates the sentence-role model reads as background, aims or
    methods; each kept one records its finding probability among its features. User claims and an
    LLM's claims pass as they are."""
    if not candidates:
        return candidates, vectors, 0
    roles = claim_role_model()
    local = [i for i, c in enumerate(candidates) if c.extractor == LOCAL_EXTRACTOR]
    if not roles.reads(vectors):  # another embedder: the extractor's rules alone decide
        keep = [
            i for i, c in enumerate(candidates) if c.extractor != LOCAL_EXTRACTOR or c.score >= RULE_SCORE
        ]
        return [candidates[i] for i in keep], vectors[keep], len(candidates) - len(keep)
    probs = dict(
        zip(
            local,
            roles.probabilities(
                [candidates[i].text for i in local], vectors[local], [candidates[i].position for i in local]
            ),
            strict=True,
        )
    )
    keep = [i for i in range(len(candidates)) if probs.get(i, 1.0) >= roles.weights.threshold]
    kept = []
    for i in keep:
        c = candidates[i]
        kept.append(
            c.model_copy(update={"features": [*c.features, f"finding:{probs[i]:.2f}"]}) if i in probs else c
        )
    return kept, vectors[keep], len(candidates) - len(keep)


def hypothesis_claim(
    task_id: str,
    question: str,
    parsed: ParsedQuestion,
    query_vector: np.ndarray,
    encode,
    weights: TermWeights,
    cosine_weight: float,
) -> dict | None:
    """The row of the question's own hypothesis (origin ``hypothesis``, always adopted; ``parsed``
    is the question's reading), judged by ``nli_edges`` like a user's claim; None for an open
    question. Its id is kept apart from a user claim of the same words, so both stand."""
    if parsed.origin != HYPOTHESIS or not parsed.hypothesis:
        return None
    vector = encode([parsed.hypothesis])[0]
    cosine = np.array([vector @ query_vector])
    relevance = claim_relevance(question, [parsed.hypothesis], cosine, weights, cosine_weight)
    return {
        "claim_id": claim_id_for(task_id, f"{HYPOTHESIS}: {parsed.hypothesis}"),
        "text": parsed.hypothesis,
        "origin": HYPOTHESIS,
        "extractor": QUESTION_RULES,
        "source_fragment_id": None,
        "adoption_status": "adopted",
        "also_in_fragments": [],
        "relevance": float(relevance[0]),
        "extraction_score": 0.0,
        "features": [],
    }


def addressing(
    pages: pd.DataFrame, fragments: pd.DataFrame, parts: QuestionParts | None, merged: list[MergedClaim]
) -> list[bool | None]:
    """Whether each claim addresses the question's exposure and outcome, its exposure looked for in
    the claim and in the title and text of the pages it was extracted from; None for every claim
    when the question names no such pair."""
    if parts is None:
        return [None] * len(merged)
    texts = page_texts(page_papers(pages, fragments))
    papers = [" ".join(texts.get(page, "") for page in m.pages) for m in merged]
    return addresses_question(parts, [m.head.text for m in merged], papers)


def claims_frame(task_id: str, merged, statuses: list[str], relevance: np.ndarray) -> pd.DataFrame:
    rows = []
    for m, status, rel in zip(merged, statuses, relevance, strict=True):
        rows.append(
            {
                "claim_id": claim_id_for(task_id, m.head.text),
                "text": m.head.text,
                "origin": m.head.origin,
                "extractor": m.head.extractor,
                "source_fragment_id": m.head.fragment_id,
                "adoption_status": status,
                "also_in_fragments": m.also_in,
                "relevance": float(rel),
                "extraction_score": m.head.score,
                "features": m.head.features,
            }
        )
    frame = pd.DataFrame(rows, columns=CLAIMS.data_columns)
    return frame.drop_duplicates("claim_id").sort_values(
        ["adoption_status", "relevance"], ascending=[True, False]
    )


@task_table(
    ins={
        "task": TASK,
        "fragment_ranking": ranking.fragment_ranking,
        "fragments": documents.fragments,
        "pages": documents.pages,
    }
)
def claims(
    context: AssetExecutionContext,
    task: TaskRecord,
    fragment_ranking: pd.DataFrame,
    fragments: pd.DataFrame,
    pages: pd.DataFrame,
    store: ResourceParam[LyraStore],
    models: LocalModels,
    llm: OllamaLlm,
    settings: ResourceParam[LyraSettings],
) -> Output[pd.DataFrame]:
    """Claims of the task: extracted from its top-ranked fragments, or stated by the user.

    `extractor` says how a claim was extracted: by Ollama when a server is reachable, otherwise
    by Lyra's local finding extractor; the user's own claims have origin `user`. Near-identical
    claims are merged, keeping every source fragment; the most relevant are `adopted` for
    judgement, the rest stay as `not_adopted`. When the question names its exposure and outcome
    ("What are the effects of exercise on depression?"), only a claim that addresses both is
    adopted: it names the outcome, and it or its paper the exposure. A yes/no question adds its declarative hypothesis
    (origin `hypothesis`, adopted), which `task_answer` reads its verdict from. A verify task
    extracts nothing: its claims are the user's, all adopted.
    """
    cfg = settings.evidence
    options = TaskOptions.model_validate(task.options)
    if options.is_verify:  # a verify task judges the user's claims only: nothing to extract
        top, candidates, method = top_fragments(fragment_ranking, fragments, 0), [], "none (verify task)"
    else:
        top = top_fragments(fragment_ranking, fragments, cfg.claim_fragments)
        candidates, method = candidates_from(top, task.query, llm, context.log)
    user_claims = [c.claim for c in options.verify_claims] or options.claims
    candidates += [ClaimCandidate(text=c, origin="user", extractor="user", score=10.0) for c in user_claims]

    encode = models.cached_encoder(store)
    texts = [c.text for c in candidates]
    vectors = encode(texts) if texts else np.zeros((0, 1))
    candidates, vectors, dropped = keep_findings(candidates, vectors)
    merged = dedupe_claims(candidates, vectors, cfg.dedup_threshold)
    query_vector = encode([task.query])[0]
    # Relevance: cosine to the question mixed with coverage of its terms, weighted by their rarity
    # among this task's fragments (lyra_core.relevance; bench/claim_relevance.py measures it).
    weights = term_weights(top["text"])
    cosines = np.array([float(vectors[m.index] @ query_vector) for m in merged])
    relevance = claim_relevance(
        task.query, [m.head.text for m in merged], cosines, weights, cfg.relevance_cosine_weight
    )
    # an open question's answer is its claims: a lower bar than for claims beside a hypothesis
    reading = read_question(task.query)  # its hypothesis and parts: one parse, shared by the steps
    open_question = reading.parsed.origin != HYPOTHESIS and not options.is_verify
    # a question that names its exposure and outcome adopts only the claims about both
    addresses = addressing(pages, fragments, None if options.is_verify else reading.parts, merged)
    statuses = adoption(
        merged,
        relevance,
        cfg.max_claims,
        cfg.min_relevance_open if open_question else cfg.min_relevance,
        addresses,
    )
    frame = claims_frame(task.id, merged, statuses, relevance)
    if not options.is_verify:  # a question's hypothesis: the row task_answer reads its verdict from
        row = hypothesis_claim(
            task.id, task.query, reading.parsed, query_vector, encode, weights, cfg.relevance_cosine_weight
        )
        if row is not None:
            head = pd.DataFrame([row], columns=CLAIMS.data_columns)
            frame = head if frame.empty else pd.concat([head, frame], ignore_index=True)
    adopted = int((frame["adoption_status"] == "adopted").sum())
    context.log.info(
        f"{len(candidates)} candidate claims ({dropped} background/methods sentences dropped) → "
        f"{len(frame)} after merging, {adopted} adopted"
    )
    return Output(
        frame,
        metadata={
            **table_metadata(frame, ["text", "origin", "adoption_status", "relevance"], width=120),
            "extractor": MetadataValue.text(method),
            "candidates": MetadataValue.int(len(candidates)),
            "dropped_as_not_findings": MetadataValue.int(dropped),
            "adopted": MetadataValue.int(adopted),
            "source_fragments": MetadataValue.int(len(top)),
        },
    )
