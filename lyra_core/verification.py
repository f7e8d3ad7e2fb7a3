"""The former name of :mod:`lyra_core.domain_trust` (domain trust from evidence), re-exported for
``lyra_assets.evidence.verification``, which still imports it; new code imports ``domain_trust``."""

from lyra_core.domain_trust import JudgedEdge, verify_domains

__all__ = ["JudgedEdge", "verify_domains"]
