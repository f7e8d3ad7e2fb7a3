"""Pure logic shared by Lyra's assets, resources and tools: no I/O, no Dagster."""
