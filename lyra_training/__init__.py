"""Training Lyra's models: the NLI cross-encoder, the claim verifier, LoRA adapters learned from
corrections and corpus-adapted rerankers, all through the one loop in :mod:`lyra_training.loop`.

Layer: imports ``lyra_core`` and ``lyra_resources`` (where the trained models are loaded and used
for inference); imported by ``lyra_assets``, ``lyra_tools``, the benchmarks and the tests.
"""
