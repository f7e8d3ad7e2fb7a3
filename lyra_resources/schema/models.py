"""Model outputs kept across tasks (embedding and NLI caches) and the NLI model versions."""

from __future__ import annotations

from lyra_resources.schema.columns import table

EMBEDDING_CACHE = table(
    "embedding_cache",
    "sentence embeddings by model and text hash, so unchanged text is never embedded twice",
    """
    model VARCHAR -- the embedding model's name or path (`models.embedder`)
    text_hash VARCHAR -- SHA-1 hex digest of the text's UTF-8 bytes
    vector FLOAT[] -- the text's sentence embedding, L2-normalised
    """,
    per_task=False,
)

NLI_CACHE = table(
    "nli_cache",
    "model results for text pairs by premise hash, hypothesis hash and model version (the cross-encoder's, "
    "and the direction reader's for its questions): unchanged pairs are never re-judged",
    """
    premise_hash VARCHAR -- SHA-1 hex digest of the premise (the fragment's text)
    hypothesis_hash VARCHAR -- SHA-1 hex digest of the hypothesis (the claim's text)
    model_version VARCHAR -- the NLI version that judged the pair (as `nli_edges.model_version`)
    label VARCHAR -- the model's label: entailment | contradiction | neutral (the reader: increased | decreased |
        -- no_difference | unrelated)
    confidence DOUBLE -- calibrated probability (0–1) of `label`
    probs JSON -- calibrated probability of each label: {"entailment": …, "contradiction": …, "neutral": …}
    """,
    per_task=False,
)

NLI_MODEL_VERSIONS = table(
    "nli_model_versions",
    "every NLI model version: the shipped base and each LoRA adapter trained from corrections, with "
    "the gate's figures side by side (held-out corrections, SNLI regression set) and its status "
    "(active / rejected / retired); exactly one is active",
    """
    version VARCHAR PRIMARY KEY -- `<model folder>@<weights hash>` for the base model, `+lora-v<N>` added for an adapter
    parent VARCHAR -- the version active when the adapter was trained, its gate's baseline; NULL for the base
    base_model VARCHAR -- path of the base model's folder
    adapter_path VARCHAR -- the LoRA adapter's folder; NULL for the base model
    created_at TIMESTAMP -- when the version was recorded
    status VARCHAR -- active (judges new edges; exactly one) | rejected (by the gate) | retired
    corrections_used INTEGER -- corrections (`nli_corrections`) trained on
    heldout_corrections INTEGER -- corrections held out for the gate, never trained on
    replay_pairs INTEGER -- SNLI pairs mixed into training so the model does not forget
    steps INTEGER -- optimiser steps of the training
    train_seconds DOUBLE -- training time in seconds
    heldout_before DOUBLE -- the parent's accuracy (0–1) on the held-out corrections
    heldout_after DOUBLE -- this version's accuracy (0–1) on the held-out corrections
    regression_before DOUBLE -- the parent's accuracy (0–1) on the SNLI regression set
    regression_after DOUBLE -- this version's accuracy (0–1) on the SNLI regression set
    decision VARCHAR -- the gate's reason in words, `; activated: <reason>` added at each activation
    activated_at TIMESTAMP -- when it last became active; NULL if never
    details JSON -- the training report, the gate's full figures and how many corrections were new
    """,
    per_task=False,
)
