"""Feedback: the pure rules (patterns, multiplier, overlay) and applying them to a real store."""

from __future__ import annotations

import pytest

from fixtures.graphs import write_graph
from fixtures.tables import snapshot
from lyra_assets.ranking import ranking_weights, trust_weights
from lyra_core import domain_rules as dr
from lyra_core import feedback as fb
from lyra_core.scoring import DEFAULT_VOTE_WEIGHT
from lyra_resources.schema import FEEDBACK_TABLES, TABLES
from lyra_resources.store.lyra_store import LyraStore
from lyra_resources.store.relevance_signals import relevance_multipliers
from lyra_resources.web.domain_policy import DomainTrust
from lyra_tools import explore
from lyra_tools.feedback.apply import apply_feedback
from lyra_tools.feedback.results import FeedbackError
from lyra_tools.mcp.relevance_returns import ReturnsRecorder


def rows(store: LyraStore, table: str) -> list[dict]:
    return store.fetch_df(f"SELECT * FROM {table} ORDER BY {', '.join(TABLES[table].column_names)}").to_dict(
        "records"
    )


# -- pure rules ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "pattern",
    [
        "*",
        "**",
        "*.com",
        "*.org",
        "*.net",
        "*.gov",
        "*.edu",
        "*.co.jp",
        "com",
        "co.uk",
        "*.co.uk",
        "ac.uk",
        "*.go.jp",
        "com.au",
        "github.io",
        "*.*.com",
        "ex*ample.com",
        "exa mple.com",
        "",
        "-bad-.com",
    ],
)
def test_catch_all_tld_and_public_suffix_patterns_are_refused(pattern):
    with pytest.raises(dr.DomainPatternError):
        dr.validate_domain_pattern(pattern)


@pytest.mark.parametrize(
    "pattern",
    [
        "spam-site.com",
        "*.spam-site.com",
        "Example.CO.UK",
        "x.go.jp",
        "nih.gov",
        "example.gouv.fr",
        "*.uni.com.pl",
        "bucket.s3.amazonaws.com",
        "foo.github.io",
        "www.ck",
        "city.kawasaki.jp",
        "blocked.test",
        "1password.com",
    ],
)
def test_registrable_domains_and_their_subdomains_are_accepted(pattern):
    assert dr.validate_domain_pattern(pattern) == pattern.lower()


@pytest.mark.parametrize(
    "pattern",
    [
        "*.gouv.fr",
        "gouv.fr",
        "*.com.pl",
        "*.amazonaws.com",
        "amazonaws.com",
        "s3.amazonaws.com",
        "*.ac.be",
        "*.blogspot.com",
        "x.ck",
        "*.kawasaki.jp",  # wildcard rules of the list
        "1.2.3.4",
        "*.1.2.3.4",
        "127.1",
        "0x7f.1",
        "::1",
        "[2001:db8::1]",  # IP addresses, spelled several ways
        "in-addr.arpa",
        "*.in-addr.arpa",
        "4.3.2.1.in-addr.arpa",
        "ip6.arpa",
        "*.ip6.arpa",
        "arpa",
    ],
)
def test_public_suffixes_ip_addresses_and_reverse_dns_names_are_refused(pattern):
    with pytest.raises(dr.DomainPatternError):
        dr.validate_domain_pattern(pattern)
    with pytest.raises(
        ValueError, match=pattern.replace("*", r"\*").replace("[", r"\[")
    ):  # block and unblock
        fb.DomainRuleArgs(domain_pattern=pattern, reason="r")


def test_every_multi_label_public_suffix_is_refused_as_it_is_and_under_a_wildcard():
    """The whole bundled Public Suffix List, ICANN and private sections: every multi-label rule,
    as written (Unicode), IDNA-encoded, and with a '*.' in front, is refused; its exceptions are not."""
    from publicsuffixlist import encode_idn

    from lyra_core.public_suffixes import suffix_rules

    accepted, checked = [], {"icann": 0, "private": 0}
    for section, rules in suffix_rules().items():
        for rule in rules:
            if "." not in rule:
                continue
            if rule.startswith("!"):  # an exception names one registrable domain: it may be blocked
                assert dr.validate_domain_pattern(encode_idn(rule[1:])) == encode_idn(rule[1:])
                continue
            base = encode_idn(rule.removeprefix("*."))
            for pattern in {rule, base, f"*.{base}"}:
                checked[section] += 1
                try:
                    dr.validate_domain_pattern(pattern)
                except dr.DomainPatternError:
                    continue
                accepted.append(pattern)
    assert accepted == []
    assert checked["icann"] > 10_000 and checked["private"] > 6_000, checked


def test_clearing_a_rule_stored_before_the_check_is_still_possible():
    assert fb.DomainArgs(domain_pattern="*.gouv.fr").domain_pattern == "*.gouv.fr"
    with pytest.raises(ValueError, match="IP address"):
        fb.DomainArgs(domain_pattern="10.0.0.1")


def test_the_most_specific_rule_decides_a_domain():
    rules = [
        dr.DomainRule(id="r1", domain_pattern="example.com", decision="block"),
        dr.DomainRule(id="r2", domain_pattern="good.example.com", decision="unblock"),
        dr.DomainRule(id="r3", domain_pattern="*.other.org", decision="block"),
    ]
    assert dr.rule_for("www.example.com", rules).id == "r1"
    assert dr.rule_for("good.example.com", rules).id == "r2"
    assert dr.rule_for("a.good.example.com", rules).id == "r2"
    assert dr.rule_for("other.org", rules) is None and dr.rule_for("x.other.org", rules).id == "r3"
    assert set(dr.blocked_domains(["example.com", "good.example.com", "notexample.com"], rules)) == {
        "example.com"
    }


def test_relevance_multiplier_follows_seed_004():
    def m(**kw):
        return fb.relevance_multiplier(fb.RelevanceStats(**kw))

    assert m(returns=4, positive=3) == 1.0  # fewer than 5 returns: no adjustment
    assert m(returns=5) == 1.0  # returned but never judged: use rate 0.5
    assert m(returns=5, positive=1) == pytest.approx(1.6)  # 0.5 + 1.0 + 0.1
    assert m(returns=5, negative=1) == pytest.approx(0.35)  # 0.5 + 0 - 0.15
    assert m(returns=9, positive=1, negative=1) == pytest.approx(0.95)  # 0.5 + 0.5 + 0.1 - 0.15
    assert (
        m(returns=50, positive=10) == 1.7 and m(returns=50, negative=10) == 0.3
    )  # clamped, explicit capped at 3


def test_args_are_validated_per_action_with_specific_messages():
    assert (
        fb.parse_args("edge_correct", {"edge_id": "e_1", "correct_relation": "supports"}).correct_relation
        == "SUPPORTS"
    )
    cases = [
        ("edge_correct", {"edge_id": "e_1", "correct_relation": "maybe"}, "correct_relation: must be one of"),
        ("edge_correct", {"edge_id": 5, "correct_relation": "refutes"}, "args.edge_id"),
        ("claim_reject", {"claim_id": "c_1", "bogus": 1}, "args.bogus: unexpected argument"),
        ("claim_reject", {"claim_id": "c_1", "reason": "x" * 2001}, "args.reason"),
        ("domain_block", {"domain_pattern": "*.com", "reason": "tld"}, "forbidden"),
        ("domain_block", {"domain_pattern": "spam.com"}, "args.reason"),
        ("add_note", {"target_id": "c_1"}, "args.note"),
        ("rate_everything", {}, "unknown feedback action"),
    ]
    for action, args, message in cases:
        with pytest.raises(fb.FeedbackArgsError, match=message):
            fb.parse_args(action, args)


# -- applied to a store ----------------------------------------------------------------------------


def test_edge_correct_overlays_the_label_and_records_one_training_sample(store, graph):
    edge = graph.edges[("falls", "meta")]  # the model said NEUTRAL 0.66
    falls = graph.claims["falls"]
    result = apply_feedback(
        store,
        graph.task_id,
        "edge_correct",
        {"edge_id": edge, "correct_relation": "supports", "reason": "the trial found fewer falls"},
    )
    assert result.changed and result.edge.human_corrected and result.edge.model_relation == "NEUTRAL"
    assert result.claim.supporting_count == 1 and result.claim.recomputed  # immediate reflection
    [sample] = rows(store, "nli_corrections")
    assert {
        k: sample[k]
        for k in (
            "edge_id",
            "task_id",
            "predicted_label",
            "predicted_confidence",
            "correct_label",
            "reason",
            "sample_weight",
        )
    } == {
        "edge_id": edge,
        "task_id": graph.task_id,
        "predicted_label": "NEUTRAL",
        "predicted_confidence": 0.66,
        "correct_label": "SUPPORTS",
        "reason": "the trial found fewer falls",
        "sample_weight": 1.0,
    }
    assert sample["premise"].startswith("We pooled 11") and sample["hypothesis"].startswith(
        "Vitamin D reduces falls"
    )
    assert sample["applied_in_version"] is None and sample["corrected_at"] is not None

    ev = explore.claim_evidence(store, falls, graph.task_id)
    [item] = ev.evidence.supports
    assert item.edge_id == edge and item.nli_confidence == 1.0 and item.human_corrected
    assert item.model_relation == "NEUTRAL"
    # the corrected edge is its paper's one vote: α = 1 + vote_weight × 1.0
    assert (
        ev.score.recomputed and ev.score.alpha == 1 + DEFAULT_VOTE_WEIGHT and ev.score.verdict == "supported"
    )  # one study, however sure

    # the same label again is a review only; a confirmation of the model's label writes no sample
    again = apply_feedback(
        store, graph.task_id, "edge_correct", {"edge_id": edge, "correct_relation": "SUPPORTS"}
    )
    assert not again.changed and len(rows(store, "nli_corrections")) == 1
    other = graph.edges[("falls", "whi")]
    confirm = apply_feedback(
        store, graph.task_id, "edge_correct", {"edge_id": other, "correct_relation": "neutral"}
    )
    assert not confirm.changed and not confirm.edge.human_corrected
    assert len(rows(store, "nli_corrections")) == 1
    reviews = {r["edge_id"]: r for r in rows(store, "edge_reviews")}
    assert reviews[other]["human_corrected"] is False and reviews[edge]["human_corrected"] is True
    summary = explore.evidence_summary(store, graph.task_id)
    assert (summary.statistics.human_reviewed_edges, summary.statistics.human_corrected_edges) == (2, 1)

    # back to the model's label: the unused sample is withdrawn
    back = apply_feedback(
        store, graph.task_id, "edge_correct", {"edge_id": edge, "correct_relation": "neutral"}
    )
    assert back.changed and "withdrawn" in back.outcome and rows(store, "nli_corrections") == []
    assert len(rows(store, "feedback_events")) == 4


def test_rejected_claims_are_hidden_until_restored(store, graph):
    hip = graph.claims["hip"]
    apply_feedback(store, graph.task_id, "claim_reject", {"claim_id": hip, "reason": "too vague"})
    claims = explore.claims_by_topic(store, graph.task_id, "t_fracture")
    assert hip not in [c.claim_id for c in claims.claims] and claims.total == 2
    shown = explore.claims_by_topic(store, graph.task_id, "t_fracture", include_rejected=True)
    assert [c.rejected for c in shown.claims if c.claim_id == hip] == [True]
    summary = explore.evidence_summary(store, graph.task_id)
    assert summary.statistics.total_claims == 3 and summary.statistics.rejected_claims == 1
    assert summary.statistics.refutes_edges == 2  # the rejected claim's REFUTES edge leaves with it
    assert hip not in [c.claim_id for c in explore.find_contradictions(store, graph.task_id).contradictions]
    assert not apply_feedback(store, graph.task_id, "claim_reject", {"claim_id": hip}).changed
    restored = apply_feedback(store, graph.task_id, "claim_restore", {"claim_id": hip})
    assert restored.changed and explore.claims_by_topic(store, graph.task_id, "t_fracture").total == 3


def test_domain_block_hides_evidence_and_shows_in_status(store, graph):
    user = graph.claims["user"]
    before = explore.claim_evidence(store, user, graph.task_id).score
    result = apply_feedback(
        store, graph.task_id, "domain_block", {"domain_pattern": "spam-site.com", "reason": "advertising"}
    )
    assert result.rule.task_domains_blocked == ["spam-site.com"]
    ev = explore.claim_evidence(store, user, graph.task_id)
    assert ev.hidden_blocked == 1 and len(ev.evidence.supports) == 1
    assert (
        ev.score.recomputed and ev.score.confidence < before.confidence
    )  # the 0.95 blog edge no longer counts
    status = explore.task_status(store, graph.task_id, with_dagster=False)
    [entry] = status.blocked_domains
    assert entry.domain == "spam-site.com" and entry.cause_ids == [result.rule.rule_id] and entry.can_restore
    assert entry.original_trust_level == "unverified" and "domain_clear_override" in entry.restore_via
    assert explore.evidence_summary(store, graph.task_id).blocked_domains == ["spam-site.com"]

    assert not apply_feedback(
        store, graph.task_id, "domain_block", {"domain_pattern": "spam-site.com", "reason": "again"}
    ).changed
    unblock = apply_feedback(
        store, graph.task_id, "domain_unblock", {"domain_pattern": "spam-site.com", "reason": "ok"}
    )
    assert unblock.rule.task_domains_blocked == []
    cleared = apply_feedback(
        store, graph.task_id, "domain_clear_override", {"domain_pattern": "spam-site.com"}
    )
    assert not cleared.rule.is_active
    rules = rows(store, "domain_override_rules")
    assert [(r["decision"], r["is_active"]) for r in sorted(rules, key=lambda r: r["created_at"])] == [
        ("block", False),
        ("unblock", False),
    ]
    events = [
        (e["action"], e["decision"])
        for e in sorted(rows(store, "domain_override_events"), key=lambda e: e["created_at"])
    ]
    assert events == [
        ("domain_block", "block"),
        ("domain_unblock", "unblock"),
        ("domain_clear_override", "unblock"),
    ]
    with pytest.raises(FeedbackError, match="no active block or unblock rule"):
        apply_feedback(store, graph.task_id, "domain_clear_override", {"domain_pattern": "spam-site.com"})


def test_relevance_signals_feed_the_ranking_weights(store, graph):
    fragment = graph.fragments[("meta", 1)]
    claim = graph.claims["user"]
    recorder = ReturnsRecorder(store, interval_s=60)
    for _ in range(5):  # shown five times with the claim's evidence
        recorder.add(
            graph.task_id, [fragment, graph.fragments[("whi", 0)], fragment], claim, "Vitamin D prevents…"
        )
    assert recorder.flush() == 10 and recorder.flush() == 0
    result = apply_feedback(
        store, graph.task_id, "fragment_useful", {"fragment_id": fragment, "claim_id": claim}
    )
    assert result.relevance.returns == 5 and result.relevance.multiplier == 1.6
    bad = graph.fragments[("whi", 0)]
    apply_feedback(
        store, graph.task_id, "flag_irrelevant", {"fragment_id": bad, "reason": "about kidney stones"}
    )
    signals = store.fetch_df(
        "SELECT signal, query_id, query FROM relevance_signals WHERE signal <> 'returned' ORDER BY signal"
    ).to_dict("records")
    assert signals[0] == {
        "signal": "explicit_negative",
        "query_id": graph.task_id,
        "query": store.get_task(graph.task_id).query,
    }
    assert signals[1]["query_id"] == claim and signals[1]["query"].startswith(
        "Vitamin D prevents all fractures"
    )
    assert relevance_multipliers(store, graph.task_id) == {
        fragment: pytest.approx(1.6),
        bad: pytest.approx(0.35),
    }
    fragments = store.read_partition("fragments", graph.task_id)
    pages = store.read_partition("pages", graph.task_id)
    trust = DomainTrust()
    weights = dict(
        zip(
            fragments["fragment_id"],
            ranking_weights(store, graph.task_id, fragments, pages, trust),
            strict=True,
        )
    )
    domain_part = dict(
        zip(fragments["fragment_id"], trust_weights(store, fragments, pages, trust), strict=True)
    )
    assert weights[fragment] == pytest.approx(1.6 * domain_part[fragment])
    assert weights[bad] == pytest.approx(0.35 * domain_part[bad])
    assert all(weights[f] == domain_part[f] for f in weights if f not in (fragment, bad))


def test_seed_000_actions_are_recorded_as_events(store, graph):
    apply_feedback(
        store,
        graph.task_id,
        "flag_missing",
        {
            "page_id": graph.pages["whi"],
            "missing_text": "Table 2 shows wrist fractures",
            "location_hint": "results",
        },
    )
    for target in (graph.task_id, graph.claims["hip"], graph.edges[("hip", "whi")], graph.pages["meta"]):
        apply_feedback(
            store, graph.task_id, "add_note", {"target_id": target, "note": "check the 2023 follow-up"}
        )
    events = rows(store, "feedback_events")
    assert sorted(e["action"] for e in events) == ["add_note"] * 4 + ["flag_missing"]
    assert all(e["task_id"] == graph.task_id and e["applied_to_training"] is False for e in events)


def test_bad_feedback_leaves_the_store_unchanged(store, graph):
    before = snapshot(store)
    bad = [
        (
            graph.task_id,
            "edge_correct",
            {"edge_id": "e_0000000000000000", "correct_relation": "supports"},
            "no edge",
        ),
        (graph.task_id, "claim_reject", {"claim_id": "c_unknown"}, "no claim"),
        ("task_nope", "claim_reject", {"claim_id": graph.claims["hip"]}, "no task"),
        (graph.task_id, "fragment_useful", {"fragment_id": "f_unknown"}, "no fragment"),
        (
            graph.task_id,
            "fragment_useful",
            {"fragment_id": graph.fragments[("meta", 0)], "claim_id": "c_x"},
            "no claim",
        ),
        (graph.task_id, "flag_missing", {"page_id": "pg_x", "missing_text": "text"}, "no page"),
        (graph.task_id, "add_note", {"target_id": "zzz", "note": "n"}, "is not the task id"),
        (graph.task_id, "domain_block", {"domain_pattern": "*", "reason": "all"}, "forbidden"),
        (graph.task_id, "domain_block", {"domain_pattern": "co.uk", "reason": "all"}, "public suffix"),
        (
            graph.task_id,
            "domain_block",
            {"domain_pattern": "*.gouv.fr", "reason": "all"},
            "public suffix 'gouv.fr'",
        ),
        (graph.task_id, "domain_unblock", {"domain_pattern": "93.184.216.34", "reason": "ip"}, "IP address"),
        (graph.task_id, "add_note", {"target_id": graph.task_id, "note": "x" * 20_000}, "bytes"),
        (graph.task_id, "claim_reject", ["not", "a", "dict"], "args must be an object"),
    ]
    for task_id, action, args, message in bad:
        with pytest.raises(FeedbackError, match=message):
            apply_feedback(store, task_id, action, args)
    assert snapshot(store) == before


def test_corrections_survive_a_rematerialization(store, graph):
    edge = graph.edges[("hip", "whi")]  # model: REFUTES 0.81
    apply_feedback(store, graph.task_id, "edge_correct", {"edge_id": edge, "correct_relation": "neutral"})
    apply_feedback(store, graph.task_id, "claim_reject", {"claim_id": graph.claims["none"]})
    overlay_before = {t: rows(store, t) for t in FEEDBACK_TABLES}
    # a re-run: every per-task table replaced, a new NLI model relabels one other edge
    write_graph(store, graph.task_id, relabel={("falls", "meta"): ("SUPPORTS", 0.7)})
    assert {t: rows(store, t) for t in FEEDBACK_TABLES} == overlay_before
    ev = explore.claim_evidence(store, graph.claims["hip"], graph.task_id)
    assert [i.edge_id for i in ev.evidence.neutral if i.human_corrected] == [edge]
    assert ev.evidence.refutes == [] and ev.score.refuting_count == 0 and ev.score.recomputed
    assert graph.claims["none"] not in [
        c.claim_id for c in explore.claims_by_topic(store, graph.task_id, "t_fracture").claims
    ]
    falls = explore.claim_evidence(store, graph.claims["falls"], graph.task_id)
    assert falls.evidence.supports[0].nli_confidence == 0.7 and not falls.evidence.supports[0].human_corrected


def test_a_correction_names_the_part_the_direction_judge_misread(store, graph):
    edge = graph.edges[
        ("falls", "meta")
    ]  # "Vitamin D reduces falls": as the direction judge would have judged it
    with store.connect() as conn:
        conn.execute(
            "UPDATE nli_edges SET judged_by = 'direction', claim_direction = 'decrease' WHERE edge_id = ?",
            [edge],
        )
    result = apply_feedback(
        store,
        graph.task_id,
        "edge_correct",
        {"edge_id": edge, "correct_relation": "supports", "wrong_part": "passage-direction"},
    )
    assert "passage direction was misread" in result.outcome and "reports decreased" in result.outcome
    [sample] = rows(store, "nli_corrections")
    assert (sample["wrong_part"], sample["direction_label"]) == ("passage_direction", "decreased")
    assert rows(store, "edge_reviews")[0]["wrong_part"] == "passage_direction"
    from lyra_training.direction_data import correction_pairs

    [pair] = correction_pairs([sample])
    assert pair.label == "decreased" and pair.hypothesis == "effect of Vitamin D versus control on falls"

    cross = graph.edges[("falls", "whi")]  # judged by the cross-encoder: it read no parts to be wrong about
    before = snapshot(store)
    with pytest.raises(FeedbackError, match="judged by the cross-encoder; leave wrong_part out"):
        apply_feedback(
            store,
            graph.task_id,
            "edge_correct",
            {"edge_id": cross, "correct_relation": "refutes", "wrong_part": "exposure"},
        )
    with pytest.raises(FeedbackError, match="must be one of claim_direction"):
        apply_feedback(
            store,
            graph.task_id,
            "edge_correct",
            {"edge_id": edge, "correct_relation": "refutes", "wrong_part": "the vibes"},
        )
    assert snapshot(store) == before


@pytest.mark.parametrize(
    "claim_direction, relation, reported",
    [
        ("increase", "SUPPORTS", "increased"),
        ("decrease", "SUPPORTS", "decreased"),
        ("no_effect", "SUPPORTS", "no_difference"),
        ("not_increase", "REFUTES", "increased"),
        ("increase", "REFUTES", None),  # a decrease or no difference alike
        ("decrease", "NEUTRAL", None),
        (None, "SUPPORTS", None),
    ],
)
def test_a_reviewers_relation_fixes_the_passage_direction_only_where_one_direction_gives_it(
    claim_direction, relation, reported
):
    from lyra_core.direction.verdict import direction_of_correction

    assert direction_of_correction(claim_direction, relation) == reported


def test_a_correction_rescores_its_claim_under_the_rule_the_run_scored_under(
    store, graph, monkeypatch, tmp_path
):
    from lyra_core.scoring import ScoringRule
    from lyra_resources.store.generations import open_generation, publish_generation, record_scoring_rule

    open_generation(store, graph.task_id, "run-1")
    record_scoring_rule(store, "run-1", ScoringRule(vote_weight=2.0))
    publish_generation(store, graph.task_id, "run-1")
    # the settings file changes after the run: views still score as the run did
    settings = tmp_path / "settings.yaml"
    settings.write_text("evidence:\n  vote_weight: 7.0\n")
    monkeypatch.setenv("LYRA_SETTINGS", str(settings))
    edge, falls = graph.edges[("falls", "meta")], graph.claims["falls"]
    apply_feedback(store, graph.task_id, "edge_correct", {"edge_id": edge, "correct_relation": "supports"})
    score = explore.claim_evidence(store, falls, graph.task_id).score
    assert score.recomputed and score.alpha == 1 + 2.0
