"""The tunable settings of the pipeline: one pydantic section per concern (``pipeline``: the
pipeline's own steps; ``services``: what it talks to), ``LyraSettings`` holding them all, and
``load_settings`` reading them from ``config/settings.yaml`` or ``$LYRA_SETTINGS`` (``loading``).
Where Lyra keeps its files is :mod:`lyra_resources.home`; the environment variables that win over
the file are read by :mod:`lyra_resources.environment`."""
