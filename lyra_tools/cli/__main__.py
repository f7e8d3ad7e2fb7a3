"""``python -m lyra_tools.cli``: the ``lyra`` console script."""

from lyra_tools.cli.entry_point import main

main()
