"""Model outputs kept across tasks (embedding and NLI caches) and the NLI model versions."""

from __future__ import annotations

from lyra_resources.schema.columns import table

EMBEDDING_CACHE = table(
    "embedding_cache",
    "sentence embeddings by model and text hash, so unchanged text is never embedded twice",
    """
    model VARCHAR
    text_hash VARCHAR
    vector FLOAT[]
    """,
    per_task=False,
)

NLI_CACHE = table(
    "nli_cache",
    "NLI results by premise hash, hypothesis hash and model version: unchanged pairs are never re-judged",
    """
    premise_hash VARCHAR
    hypothesis_hash VARCHAR
    model_version VARCHAR
    label VARCHAR
    confidence DOUBLE
    probs JSON
    """,
    per_task=False,
)

NLI_MODEL_VERSIONS = table(
    "nli_model_versions",
    "every NLI model version: the shipped base and each LoRA adapter trained from corrections, with "
    "the gate's figures side by side (held-out corrections, SNLI regression set) and its status "
    "(active / rejected / retired); exactly one is active",
    """
    version VARCHAR PRIMARY KEY
    parent VARCHAR
    base_model VARCHAR
    adapter_path VARCHAR
    created_at TIMESTAMP
    status VARCHAR
    corrections_used INTEGER
    heldout_corrections INTEGER
    replay_pairs INTEGER
    steps INTEGER
    train_seconds DOUBLE
    heldout_before DOUBLE
    heldout_after DOUBLE
    regression_before DOUBLE
    regression_after DOUBLE
    decision VARCHAR
    activated_at TIMESTAMP
    details JSON
    """,
    per_task=False,
)
