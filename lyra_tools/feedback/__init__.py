"""Feedback given by a person (``lyra feedback``) or an agent (MCP's feedback tool): ``apply`` validates
and applies one call in one transaction and rewrites the reports it changes, ``actions`` holds what each
action does inside that transaction, ``results`` what a call answers."""
