"""Lyra's local models at inference time: where their weights live and which version each is, the
embedder, NLI, reranker and sentence-role models loaded once per process on the CPU, the judge of
(claim, passage) pairs, the NLI versions a home keeps, the content-hash cache of computed values,
the three-stage text ranking, and the optional local LLM. Training lives in ``lyra_training``; the
shipped weights stay in ``lyra_resources/model_weights/``."""
