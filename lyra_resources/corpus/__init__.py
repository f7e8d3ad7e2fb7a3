"""Local corpora: papers read from files on disk (BibTeX, JSON and JSONL records), which files a
corpus path may read and how their bytes become text, the canonical rows they become, and their
offline search with BM25 and the three-stage ranking."""
