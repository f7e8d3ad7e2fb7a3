"""The `nli_edges` asset (fragment → claim judgements) and the `claim_scores` asset (Bayesian scores of claims)."""

import warnings

import numpy as np
import pandas as pd
from dagster import (
    AssetExecutionContext,
    MetadataValue,
    Output,
    PreviewWarning,
    ResourceParam,
)

from lyra_assets import documents, sources
from lyra_assets.evidence.claims import claims as claims_asset
from lyra_assets.evidence.learned import learned_judgements
from lyra_assets.evidence.pairs import (
    addressing_fragments,
    adopted_claims,
    excluded_pages,
    findings_only,
    scoped_pairs,
    with_result_passages,
)
from lyra_assets.evidence.selection import selected_pairs
from lyra_assets.metadata import table_metadata
from lyra_assets.page_text import page_papers, page_texts
from lyra_assets.task_assets import TASK, task_table
from lyra_core.evidence import edge_id_for, select_pairs, with_addressing, with_required
from lyra_core.evidence_facts import design_columns, figures_shown
from lyra_core.hypothesis import HYPOTHESIS
from lyra_core.scoring import RELATIONS, VERDICTS, Evidence, ScoringRule, evidence_of, score_claim
from lyra_core.tasks import TaskOptions
from lyra_resources.models.content_cache import cached_judgements
from lyra_resources.models.direction_judge import DIRECTION, DirectionReader, EdgeJudgement, judge_triples
from lyra_resources.models.inference import NLI_RELATION, NliModel
from lyra_resources.models.label_model import LEARNED, LabelModel
from lyra_resources.models.local_models import LocalModels
from lyra_resources.models.nli_versions import active_version
from lyra_resources.progress import track
from lyra_resources.schema import CLAIM_SCORES, NLI_EDGES
from lyra_resources.settings.loading import LyraSettings
from lyra_resources.settings.pipeline import EvidenceSettings
from lyra_resources.store.generations import record_scoring_rule
from lyra_resources.store.lyra_store import LyraStore, TaskRecord
from lyra_resources.web.domain_policy import DomainTrust

# Partitioned asset checks are a preview feature of Dagster 1.13; Lyra relies on them knowingly.
warnings.filterwarnings("ignore", category=PreviewWarning, message=".*partitions_def on an AssetCheckSpec.*")


def judge_pairs(
    store: LyraStore,
    model: NliModel | DirectionReader,
    pairs: list[tuple[str, str]],
    log=None,
    name: str = "NLI",
) -> list[dict]:
    """A pair model's results (the cross-encoder's for (premise, claim), the direction reader's for
    (passage, question)), from the cache when the same texts were already judged by the same model
    version; only the rest reach the model."""

    def report(todo: int) -> None:
        if log:
            log.info(f"{name}: {len(pairs)} pairs, {len(pairs) - todo} from cache, {todo} to judge")

    def judge(todo: list[tuple[str, str]]) -> list:  # one model call per distinct pair
        predictions = []
        batch = 256
        model.load()  # before the clock starts: the rate shown is the model's
        with track(name, len(todo), "pairs") as tracker:  # the CLI shows count, rate and elapsed time
            for start in range(0, len(todo), batch):
                predictions += model.predict(todo[start : start + batch], on_batch=tracker.advance)
                if log:
                    log.info(f"{name} progress {min(start + batch, len(todo))}/{len(todo)}")
        return predictions

    return cached_judgements(store, model.version, pairs, judge, on_lookup=report) if pairs else []


@task_table(
    ins={
        "task": TASK,
        "claims": claims_asset,
        "fragments": documents.fragments,
        "pages": documents.pages,
        "claim_scope": sources.claim_scope_spec,
        "papers": sources.papers_spec,
    }
)
def nli_edges(
    context: AssetExecutionContext,
    task: TaskRecord,
    claims: pd.DataFrame,
    fragments: pd.DataFrame,
    pages: pd.DataFrame,
    claim_scope: pd.DataFrame,
    papers: pd.DataFrame,
    store: ResourceParam[LyraStore],
    models: LocalModels,
    trust: DomainTrust,
    settings: ResourceParam[LyraSettings],
) -> Output[pd.DataFrame]:
    """Fragment → claim edges: SUPPORTS, REFUTES or NEUTRAL, each with its reason.

    A claim about an effect is judged from its parts (docs/direction.md): the directions the claim
    and the fragment state, the fragment's figures, and whether the fragment (and its paper) is
    about the claim's exposure and outcome; any other claim by the NLI cross-encoder. Each edge
    also carries its paper's study design, the words that decided it and the study's size, read
    from the paper's title and text and the fragment (lyra_core.study_design).

    Each adopted claim meets only its `nli_top_k` most similar fragments that report a finding,
    never one of its own page (a verify task's claim meets fragments of its `claim_scope` papers
    only); the question's hypothesis about an effect also meets every finding fragment about its
    exposure and outcome (up to 60 pairs), and every passage that states a result in the 5 best-ranked
    papers, whatever its similarity and even where the finding gate dropped it (lyra_core.result_passages);
    such a passage the judge finds about the hypothesis's exposure and outcome is exempt from the
    `min_similarity` gate.
    Each edge keeps the model's probabilities; `edge_id` hashes task, fragment and claim,
    so it is stable. `source_trust_level` (the fragment's domain) and `target_trust_level` (the
    domain the claim came from) annotate the edge and never enter its scores.
    """
    task_id = context.partition_key
    cfg = settings.evidence
    claims = adopted_claims(claims)
    page_fragments = fragments[["page_id", "position", "text"]].copy()
    encode = models.cached_encoder(store)
    claim_vectors = encode(claims["text"].tolist()) if len(claims) else np.zeros((0, 1))
    fragment_vectors = encode(fragments["text"].tolist()) if len(fragments) else np.zeros((0, 1))
    every, every_vector = fragments, fragment_vectors
    fragments, fragment_vectors, not_findings = findings_only(fragments, fragment_vectors, cfg.min_finding)
    options = TaskOptions.model_validate(task.options)
    results: list[int] = []
    required: dict[int, list[int]] = {}
    if not options.is_verify:
        fragments, fragment_vectors, results = with_result_passages(
            fragments, fragment_vectors, every, every_vector, pages, papers
        )
    fragment_page = dict(zip(fragments["fragment_id"], fragments["page_id"], strict=True))
    paper_text = page_papers(pages, page_fragments)
    texts = page_texts(paper_text)
    if options.is_verify:
        chosen = scoped_pairs(
            task_id, options, claim_scope, pages, claims, fragments, claim_vectors, fragment_vectors, cfg
        )
    else:
        chosen = select_pairs(
            claim_vectors,
            fragment_vectors,
            fragments["page_id"].tolist(),
            excluded_pages(claims, fragment_page),
            cfg.nli_top_k,
        )
        chosen = with_addressing(
            chosen, claim_vectors, fragment_vectors, addressing_fragments(claims, fragments, texts)
        )
        required = {ci: results for ci, origin in enumerate(claims["origin"]) if origin == HYPOTHESIS}
        chosen = with_required(chosen, claim_vectors, fragment_vectors, required)

    domain_of_page = dict(zip(pages["page_id"], pages["domain"], strict=True))
    level_of_page = {page: trust.level(domain) for page, domain in domain_of_page.items()}
    claim_level = [
        level_of_page.get(fragment_page.get(f)) if isinstance(f, str) else None
        for f in claims["source_fragment_id"]
    ]

    active = active_version(store, models.nli_base_path)  # the version the learning loop activated
    nli = models.nli(active.adapter_path)
    reader = models.direction_reader()
    learned = models.label_model()
    picked: dict[tuple[int, int], float] = {}
    if learned:  # evidence.judge: learned — one reading per paper (docs/selector.md)
        flat, judged = learned_judgements(
            learned,
            claims["text"].tolist(),
            chosen,
            fragments,
            lambda pairs: rule_judgements(store, context, pairs, claims, fragments, texts, nli, reader, cfg),
        )
    else:
        selector = models.evidence_selector()
        if selector:  # evidence.selector: each paper read where the selector finds the finding
            chosen, picked = selected_pairs(selector, claims["text"].tolist(), chosen, fragments)
        flat = [(ci, fi, sim) for ci, pairs in enumerate(chosen) for fi, sim in pairs]
        judged = rule_judgements(store, context, flat, claims, fragments, texts, nli, reader, cfg)
    designs: dict[int, dict] = {}  # per fragment: its paper's design and size, read once for all its claims
    rows = []
    for (ci, fi, sim), result in zip(flat, judged, strict=True):
        fragment_id, claim_id = fragments["fragment_id"].iat[fi], claims["claim_id"].iat[ci]
        # off-topic text decides nothing: the judge's label stays in nli_label, the edge is NEUTRAL. A top
        # paper's result passage the judge found about the hypothesis's exposure and outcome is on topic,
        # however few words it shares ("the primary outcome occurred in 126 (10.0%) patients …")
        on_topic = sim >= cfg.min_similarity or (
            fi in required.get(ci, ()) and bool(result.exposure_matched) and bool(result.outcome_matched)
        )
        relation = result.relation if on_topic else "NEUTRAL"
        if fi not in designs:
            designs[fi] = design_columns(
                *paper_text.get(fragments["page_id"].iat[fi], ("", "")), fragments["text"].iat[fi]
            )
        design = designs[fi]
        rows.append(
            {
                "edge_id": edge_id_for(task_id, fragment_id, claim_id),
                "fragment_id": fragment_id,
                "claim_id": claim_id,
                "relation": relation,
                "nli_label": result.nli_label,
                "nli_confidence": float(result.confidence),
                "source_trust_level": level_of_page.get(fragments["page_id"].iat[fi]),
                "target_trust_level": claim_level[ci],
                "model_version": model_version(result.judged_by, nli, reader, learned),
                "similarity": sim,
                "page_id": fragments["page_id"].iat[fi],
                "p_supports": result.p_supports,
                "p_refutes": result.p_refutes,
                "p_neutral": result.p_neutral,
                "judged_by": result.judged_by,
                "claim_direction": result.claim_direction,
                "passage_direction": result.passage_direction,
                "effect_figures": figures_shown(
                    result.effect_figures,
                    design["effect_figures"],
                    outcome_read=result.judged_by == DIRECTION,
                ),
                "exposure_matched": result.exposure_matched,
                "outcome_matched": result.outcome_matched,
                "reason": (
                    result.reason
                    if relation == result.relation
                    else f"{result.reason} (NEUTRAL: the fragment is far from the claim, similarity {sim:.2f})"
                )
                + (
                    f"; read where the evidence selector finds the finding (p {picked[ci, fi]:.2f})"
                    if (ci, fi) in picked
                    else ""
                ),
                "study_design": design["study_design"],
                "design_cue": design["design_cue"],
                "sample_size": design["sample_size"],
            }
        )
    frame = pd.DataFrame(rows, columns=NLI_EDGES.data_columns).astype({"sample_size": "Int64"})
    counts = frame["relation"].value_counts().to_dict()
    preview = edges_preview(frame, claims, fragments)
    return Output(
        frame,
        metadata={
            **table_metadata(preview, ["claim", "fragment", "relation", "p_supports", "p_refutes"]),
            "relations": MetadataValue.json({r: int(counts.get(r, 0)) for r in RELATIONS}),
            "model_version": MetadataValue.text(nli.version),
            "fragments_not_findings": MetadataValue.int(not_findings),
            "neutral_by_similarity": MetadataValue.int(
                int(sum(r["relation"] == "NEUTRAL" and r["nli_label"] != "neutral" for r in rows))
            ),
        },
    )


def rule_judgements(
    store: LyraStore,
    context: AssetExecutionContext,
    flat: list[tuple[int, int, float]],
    claims: pd.DataFrame,
    fragments: pd.DataFrame,
    texts: dict[str, str],
    nli: NliModel,
    reader: DirectionReader | None,
    cfg: EvidenceSettings,
) -> list[EdgeJudgement]:
    """The rules' judge on every chosen (claim, window): the direction judge where it reads the claim,
    the cross-encoder for the rest (or for all, with ``models.direction: off``)."""
    triples = [
        (claims["text"].iat[ci], fragments["text"].iat[fi], texts.get(fragments["page_id"].iat[fi], ""))
        for ci, fi, _ in flat
    ]
    if not reader:
        return [
            EdgeJudgement.from_cross_encoder(NLI_RELATION[r["label"]], r["probs"], "models.direction is off")
            for r in judge_pairs(store, nli, [(t[1], t[0]) for t in triples], context.log)
        ]
    return judge_triples(
        triples,
        read=lambda pairs: judge_pairs(store, reader, pairs, context.log, "direction"),
        nli=lambda pairs: judge_pairs(store, nli, pairs, context.log),
        unstated=cfg.unstated_direction,
        reader_min=cfg.reader_alone_min,
    )


def model_version(
    judged_by: str, nli: NliModel, reader: DirectionReader | None, learned: LabelModel | None
) -> str:
    if judged_by == LEARNED and learned:
        return learned.version
    return reader.version if judged_by == DIRECTION and reader else nli.version


def edges_preview(edges: pd.DataFrame, claims: pd.DataFrame, fragments: pd.DataFrame) -> pd.DataFrame:
    """The edges with their claim's and fragment's text, the most decisive first."""
    texts = edges.merge(
        claims[["claim_id", "text"]].rename(columns={"text": "claim"}), on="claim_id", how="left"
    )
    texts = texts.merge(
        fragments[["fragment_id", "text"]].rename(columns={"text": "fragment"}), on="fragment_id", how="left"
    )
    decisive = texts[["p_supports", "p_refutes"]].max(axis=1)
    return texts.assign(decisive=decisive).sort_values("decisive", ascending=False, kind="stable")


def scores_frame(
    claims: pd.DataFrame, edges: pd.DataFrame, use_bayesian: bool, rule: ScoringRule | None = None
) -> pd.DataFrame:
    """One score per adopted claim, from its edges alone (a claim with none keeps the prior)."""
    by_claim: dict[str, list[Evidence]] = {}
    for edge in edges.to_dict("records"):
        by_claim.setdefault(edge["claim_id"], []).append(evidence_of(edge))
    rule = rule or ScoringRule()
    method = "bayesian" if use_bayesian else "legacy"
    rows = [
        {
            "claim_id": cid,
            **score_claim(by_claim.get(cid, []), use_bayesian, rule).model_dump(),
            "method": method,
        }
        for cid in claims["claim_id"]
    ]
    return pd.DataFrame(rows, columns=CLAIM_SCORES.data_columns)


@task_table(ins={"nli_edges": nli_edges, "claims": claims_asset})
def claim_scores(
    context: AssetExecutionContext,
    nli_edges: pd.DataFrame,
    claims: pd.DataFrame,
    store: ResourceParam[LyraStore],
    settings: ResourceParam[LyraSettings],
) -> Output[pd.DataFrame]:
    """Bayesian score and verdict of every adopted claim.

    Each claim starts from Beta(1, 1), updated by each paper's vote (its strongest SUPPORTS or
    REFUTES edge's calibrated probability, times `evidence.vote_weight`) or, with
    `evidence.aggregation: edges`, by every edge; confidence, uncertainty, controversy and the
    verdict follow. Domain trust never enters.
    """
    claims = adopted_claims(claims)[["claim_id", "text"]]
    cfg = settings.evidence
    frame = scores_frame(claims, nli_edges, cfg.use_bayesian_confidence, cfg.scoring_rule())
    record_scoring_rule(store, context.run.run_id, cfg.scoring_rule())  # views re-score corrections under it
    verdicts = frame["verdict"].value_counts().to_dict()
    preview = frame.merge(claims, on="claim_id", how="left").sort_values(
        "confidence", ascending=False, kind="stable"
    )
    preview["confidence ± uncertainty"] = [
        f"{c:.3f} ± {u:.3f}" for c, u in zip(preview["confidence"], preview["uncertainty"], strict=True)
    ]
    return Output(
        frame,
        metadata={
            **table_metadata(preview, ["text", "verdict", "confidence ± uncertainty", "evidence_count"]),
            "verdicts": MetadataValue.json({v: int(verdicts.get(v, 0)) for v in VERDICTS}),
        },
    )
