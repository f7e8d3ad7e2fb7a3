"""Literature sources: the interface every source implements, the live academic APIs (Semantic
Scholar, OpenAlex) with their cache and politeness policy, the ``literature`` Dagster resource that
puts a task's local corpora and live sources together, and the lookups of identifiers found on
fetched pages."""
