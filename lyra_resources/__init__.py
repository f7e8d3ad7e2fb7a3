"""Everything in Lyra that touches the outside world: the store, sources, models, settings."""
