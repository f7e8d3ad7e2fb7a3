"""The domain trust policy (config/domains.yaml) and source verification rules."""

import os
import subprocess
import sys
import time

import pytest

from fixtures.paths import REPO
from lyra_core.domain_trust import JudgedEdge, verify_domains
from lyra_core.scoring import Evidence, bayesian_score
from lyra_resources.store.lyra_store import LyraStore
from lyra_resources.web.domain_policy import (
    REPO_POLICY,
    DomainPolicy,
    DomainTrust,
    PolicyError,
    TrustLevel,
    parse_policy,
    policy_at,
)

POLICY = """
default_trust_level: unverified
domains:
  - {domain: nature.com, trust_level: academic}
  - {domain: wikipedia.org, trust_level: low, qps: 0.5}
  - {domain: spam.example, trust_level: unverified}
suffix_rules:
  - {suffix: .gov, trust_level: government}
  - {suffix: .gov.uk, trust_level: government}
  - {suffix: .ac.uk, trust_level: academic}
user_overrides:
  - {domain: spam.example, trust_level: blocked, reason: ads only}
  - {domain: blog.nature.com, trust_level: trusted, reason: "editorial blog, not papers"}
"""


@pytest.fixture
def policy(tmp_path):
    path = tmp_path / "domains.yaml"
    path.write_text(POLICY)
    return DomainPolicy(path)


def test_precedence_overrides_then_domains_then_suffixes_then_default(policy):
    assert policy.trust_level("www.nature.com") == TrustLevel.ACADEMIC
    assert policy.trust_level("blog.nature.com") == TrustLevel.TRUSTED  # override beats the parent domain
    assert policy.trust_level("spam.example") == TrustLevel.BLOCKED  # override beats the listed level
    assert policy.trust_level("en.wikipedia.org") == TrustLevel.LOW
    assert policy.trust_level("data.cdc.gov") == TrustLevel.GOVERNMENT
    assert policy.trust_level("www.ox.ac.uk") == TrustLevel.ACADEMIC
    assert policy.trust_level("some.blog") == TrustLevel.UNVERIFIED
    assert policy.weight(TrustLevel.GOVERNMENT) == 0.95 and policy.weight(TrustLevel.BLOCKED) == 0.0
    assert policy.politeness("en.wikipedia.org").qps == 0.5


def test_the_shipped_policy_is_valid():
    shipped = DomainPolicy(REPO_POLICY)
    assert shipped.last_error is None
    assert shipped.trust_level("en.wikipedia.org") == TrustLevel.LOW
    assert shipped.trust_level("doi.org") == TrustLevel.PRIMARY


def test_a_bad_file_names_the_line():
    with pytest.raises(PolicyError, match=r"domains.yaml:4: domains.1.trust_level"):
        parse_policy(
            "domains:\n  - {domain: a.org, trust_level: academic}\n"
            "  # a comment\n  - {domain: b.org, trust_level: superb}\n"
        )
    with pytest.raises(PolicyError, match=r"domains.yaml:3: not valid YAML"):
        parse_policy("domains:\n  - {domain: a.org, trust_level: [\n")


def test_hot_reload_and_the_last_good_policy_stays(policy):
    assert policy.trust_level("example.org") == TrustLevel.UNVERIFIED

    def bump() -> None:
        os.utime(policy.path, ns=(time.time_ns(), time.time_ns() + 1_000_000_000))

    policy.path.write_text(POLICY + "  - {domain: example.org, trust_level: trusted, reason: reviewed}\n")
    bump()
    assert policy.trust_level("example.org") == TrustLevel.TRUSTED and policy.last_error is None
    policy.path.write_text(POLICY.replace("academic}", "academik}"))
    bump()
    assert policy.trust_level("example.org") == TrustLevel.TRUSTED  # the previous good policy
    assert (
        "academik" not in str(policy.policy) and "domains.yaml:4: domains.0.trust_level" in policy.last_error
    )
    assert "running on the last good policy" in policy.last_error
    policy.path.unlink()  # a vanished file keeps the last good policy too
    assert policy.trust_level("spam.example") == TrustLevel.BLOCKED and "not found" in policy.last_error


BROKEN = POLICY.replace("trust_level: academic}", "trust_level: academik}")


def test_a_broken_file_never_loads_as_an_empty_policy(tmp_path):
    """Fail closed: an empty policy would lift the block on spam.example and demote doi.org."""
    path = tmp_path / "domains.yaml"
    path.write_text(BROKEN)
    with pytest.raises(PolicyError, match=r"domains.yaml:4: domains.0.trust_level"):
        DomainPolicy(path)
    with pytest.raises(PolicyError, match=r"domains.yaml:4: "):
        policy_at(path)
    with pytest.raises(PolicyError, match=r"domains.yaml:4: "):
        DomainTrust(path=str(path)).setup_for_execution(None)  # a Dagster run stops at resource setup
    with pytest.raises(PolicyError, match="not found"):
        DomainPolicy(tmp_path / "missing.yaml")
    path.write_text(POLICY)  # nothing was cached: the fixed file is read at the next call
    assert policy_at(path).trust_level("spam.example") == TrustLevel.BLOCKED


def test_lyra_run_stops_on_a_broken_policy_with_one_line_and_no_task(tmp_path):
    path = tmp_path / "domains.yaml"
    path.write_text(BROKEN)
    home = tmp_path / "home"
    env = {
        **os.environ,
        "LYRA_DOMAINS": str(path),
        "COLUMNS": "400",  # no wrapping of the line
        "PYTHONPATH": str(REPO),
    }
    done = subprocess.run(
        [sys.executable, "-m", "lyra_tools.cli", "run", "vitamin D and fractures", "--home", str(home)],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    output = (done.stdout + done.stderr).strip()
    assert done.returncode != 0, output
    assert f"{path}:4: domains.0.trust_level" in output and len(output.splitlines()) <= 3, output
    assert not (home / "lyra.duckdb").exists() or LyraStore.at(home).list_tasks() == []


def edge(eid, rel, src, src_level, tgt, tgt_level, claim="c1"):
    return JudgedEdge(
        edge_id=eid,
        claim_id=claim,
        relation=rel,
        source_domain=src,
        source_level=src_level,
        target_domain=tgt,
        target_level=tgt_level,
    )


def by_domain(decisions):
    return {d.domain: d for d in decisions}


def test_academic_against_academic_is_a_controversy_and_both_stay():
    d = by_domain(
        verify_domains(
            [edge("e1", "REFUTES", "nature.com", "academic", "nejm.org", "academic")],
            {"nature.com": "academic", "nejm.org": "academic"},
        )
    )
    assert d["nature.com"].status == d["nejm.org"].status == "PENDING"
    assert "controversy" in d["nejm.org"].reason and d["nejm.org"].cause_ids == ["e1"]
    assert d["nejm.org"].trust_level == "academic"


def test_high_against_low_rejects_the_low_side_without_blocking_it():
    d = by_domain(
        verify_domains(
            [edge("e1", "REFUTES", "nature.com", "academic", "blog.example", "unverified")],
            {"nature.com": "academic", "blog.example": "unverified"},
        )
    )
    assert d["blog.example"].status == "REJECTED" and d["blog.example"].trust_level == "unverified"
    assert d["nature.com"].status == "UNCHANGED"


def test_low_against_low_rejects_both_and_a_high_rejection_rate_blocks():
    edges = [
        edge(f"e{i}", "REFUTES", "nature.com", "academic", "spam.example", "unverified", claim=f"c{i}")
        for i in range(2)
    ]
    edges += [
        edge("s1", "SUPPORTS", "nature.com", "academic", "spam.example", "unverified", claim="c9"),
        edge("e9", "REFUTES", "a.blog", "low", "b.blog", "unverified", claim="c8"),
    ]
    d = by_domain(
        verify_domains(
            edges,
            {"nature.com": "academic", "spam.example": "unverified", "a.blog": "low", "b.blog": "unverified"},
        )
    )
    assert d["spam.example"].status == "BLOCKED" and d["spam.example"].trust_level == "blocked"
    assert d["spam.example"].cause_ids == ["e0", "e1"] and d["spam.example"].rejection_rate == pytest.approx(
        2 / 3, abs=1e-3
    )
    # one contradiction alone never blocks (fewer than min_judgements)
    assert d["a.blog"].status == d["b.blog"].status == "REJECTED"


def test_trusted_and_above_are_never_demoted():
    edges = [
        edge(f"e{i}", "REFUTES", "who.int", "government", "reuters.com", "trusted", claim=f"c{i}")
        for i in range(5)
    ]
    d = by_domain(verify_domains(edges, {"who.int": "government", "reuters.com": "trusted"}))
    assert d["reuters.com"].status == "REJECTED" and d["reuters.com"].trust_level == "trusted"
    assert "never demoted" in d["reuters.com"].reason


def test_two_independent_sources_promote_unverified_to_low():
    edges = [
        edge("s1", "SUPPORTS", "nature.com", "academic", "new.example", "unverified"),
        edge("s2", "SUPPORTS", "nejm.org", "academic", "new.example", "unverified", claim="c2"),
    ]
    d = by_domain(verify_domains(edges[:1], {"new.example": "unverified"}))
    assert d["new.example"].status == "UNCHANGED"
    d = by_domain(verify_domains(edges, {"new.example": "unverified"}))
    assert d["new.example"].status == "VERIFIED" and d["new.example"].trust_level == "low"
    assert d["new.example"].corroborating_domains == ["nature.com", "nejm.org"]
    assert sorted(d["new.example"].cause_ids) == ["s1", "s2"]


def test_user_overrides_are_never_changed_by_verification():
    edges = [
        edge(f"e{i}", "REFUTES", "nature.com", "academic", "mine.example", "unverified", claim=f"c{i}")
        for i in range(4)
    ]
    d = by_domain(verify_domains(edges, {"mine.example": "unverified"}, overridden={"mine.example"}))
    assert d["mine.example"].status == "UNCHANGED" and d["mine.example"].overridden


def test_trust_never_changes_a_claims_confidence():
    evidence = [
        Evidence(relation="SUPPORTS", nli_confidence=0.9, page_id="p1"),
        Evidence(relation="REFUTES", nli_confidence=0.6, page_id="p2"),
    ]
    before = bayesian_score(evidence)
    verify_domains([edge("e1", "REFUTES", "nature.com", "academic", "x.example", "unverified")], {})
    assert bayesian_score(evidence) == before


def test_ranking_weights_follow_the_policy_and_user_blocks(tmp_path):
    import pandas as pd

    from lyra_assets.ranking import trust_weights
    from lyra_resources.store.lyra_store import LyraStore
    from lyra_resources.web.domain_policy import DomainTrust
    from lyra_tools.feedback.apply import apply_feedback

    store = LyraStore.at(tmp_path / "home")
    task = store.create_task("q")
    pages = pd.DataFrame(
        {"page_id": ["p1", "p2", "p3"], "domain": ["doi.org", "en.wikipedia.org", "spam.example"]}
    )
    fragments = pd.DataFrame({"fragment_id": ["f1", "f2", "f3"], "page_id": ["p1", "p2", "p3"]})
    trust = DomainTrust()
    assert trust_weights(store, fragments, pages, trust).tolist() == [1.0, 0.4, 0.3]
    apply_feedback(store, task.id, "domain_block", {"domain_pattern": "spam.example", "reason": "ads"})
    assert trust_weights(store, fragments, pages, trust).tolist() == [1.0, 0.4, 0.0]
