"""``lyra export``: a task's reviewed graph as files other tools read (:mod:`.formats`: BibTeX, RIS,
CSL-JSON, CSV, JSONL and the report as HTML), its papers as references written by their libraries
(:mod:`.references`)."""
