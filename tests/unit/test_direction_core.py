"""The pure parts of the direction judge: claim frames, effect figures, the rule reading of passages,
the exposure/outcome check and the verdict composed from them."""

from __future__ import annotations

import pytest

from lyra_core.direction.claim_frame import read_claim
from lyra_core.direction.figures import effect_figures, figures_way
from lyra_core.direction.lexicon import resolve, undesirable
from lyra_core.direction.passage import read_passage, states_no_finding
from lyra_core.direction.relevance import relevance
from lyra_core.direction.verdict import judge, passage_distribution


@pytest.mark.parametrize(
    "claim, direction, negated, exposure, outcome",
    [
        (
            "Aspirin reduces the risk of colorectal cancer.",
            "decrease",
            False,
            "Aspirin",
            "risk of colorectal cancer",
        ),
        (
            "Cigarette smoking increases the risk of lung cancer.",
            "increase",
            False,
            "Cigarette smoking",
            "risk of lung cancer",
        ),
        (
            "Metformin raises blood glucose in patients with type 2 diabetes.",
            "increase",
            False,
            "Metformin",
            "blood glucose",
        ),
        ("Metformin does not raise blood glucose.", "increase", True, "Metformin", "blood glucose"),
        (
            "Vitamin D supplementation has no effect on fracture risk.",
            "no_effect",
            False,
            "Vitamin D supplementation",
            "fracture risk",
        ),
        (
            "Regular use of aspirin is associated with lower risk of colorectal cancer.",
            "decrease",
            False,
            "Regular use of aspirin",
            "risk of colorectal cancer",
        ),
        (
            "Hip fracture risk is reduced by vitamin D supplementation.",
            "decrease",
            False,
            "vitamin D supplementation",
            "Hip fracture risk",
        ),
        (
            "Fasting glucose is lower with metformin than with placebo.",
            "decrease",
            False,
            "metformin",
            "Fasting glucose",
        ),
        (
            "Daily use of aspirin is associated with a significant reduction in the incidence of colorectal adenomas.",
            "decrease",
            False,
            "Daily use of aspirin",
            "incidence of colorectal adenomas",
        ),
        (
            "A meta-analysis of 3,000 patients in four trials showed that aspirin reduced the occurrence of advanced "
            "adenomas by 28%.",
            "decrease",
            False,
            "aspirin",
            "occurrence of advanced adenomas",
        ),
        (
            "Patients on drug A have lower mortality than patients on drug B.",
            "decrease",
            False,
            "drug A",
            "mortality",
        ),
        (
            "Obese people are more likely to develop type 2 diabetes.",
            "increase",
            False,
            "Obese people",
            "type 2 diabetes",
        ),
        (
            "Exercise improves depressive symptoms in older adults.",
            "decrease",
            False,
            "Exercise",
            "depressive symptoms",
        ),
        (
            "Exercise improves survival after breast cancer.",
            "increase",
            False,
            "Exercise",
            "survival after breast cancer",
        ),
        (
            "Taking 400mg of α-tocopheryl acetate does not prevent prostate cancer.",
            "decrease",
            True,
            "400mg of α-tocopheryl acetate",
            "prostate cancer",
        ),
        ("Tai chi protects against falls in older adults.", "decrease", False, "Tai chi", "falls"),
        (
            "CD44v6 is not associated with cancer stem cells.",
            "no_effect",
            False,
            "CD44v6",
            "cancer stem cells",
        ),
    ],
)
def test_an_effect_claim_is_read_into_exposure_outcome_and_direction(
    claim, direction, negated, exposure, outcome
):
    frame = read_claim(claim)
    assert (frame.direction, frame.negated, frame.exposure, frame.outcome) == (
        direction,
        negated,
        exposure,
        outcome,
    )


@pytest.mark.parametrize(
    "claim",
    [
        "RUNX is not expressed in skin tissue.",
        "The PPR MDA5 has twenty N-terminal CARD domains.",
        "One in two surgical randomized controlled trials are discontinued early.",
        "β-sheet opening occurs during pleurotolysin pore formation.",
    ],
)
def test_a_claim_about_something_else_than_an_effect_has_no_direction(claim):
    assert read_claim(claim).kind == "other" and read_claim(claim).direction is None


def test_the_value_of_an_outcome_turns_improves_into_a_direction():
    assert (
        undesirable("the risk of fracture") and undesirable("pain scores") and undesirable("adverse events")
    )
    assert (
        not undesirable("survival") and not undesirable("glycemic control") and not undesirable("weight loss")
    )
    assert resolve("better", "depressive symptoms") == "down" and resolve("better", "quality of life") == "up"
    assert resolve("worse", "memory") == "down" and resolve("worse", "pain") == "up"


@pytest.mark.parametrize(
    "text, way",
    [
        ("lower risk of colorectal cancer (OR 0.69 [95% CI 0.64-0.74])", "down"),
        ("aspirin reduced colorectal cancer incidence (HR 0·63, 95% CI 0·35–1·13, p=0·12)", "none"),
        ("The hazard ratio for death was 1.45 (95% confidence interval, 1.10 to 1.91).", "up"),
        ("mean difference −2.3 mmHg (95% CI −3.1 to −1.5)", "down"),
        ("RR 1.02; 95% CI 0.91 to 1.15", "none"),
        ("mortality was 12% and 20% in the aspirin and placebo groups, respectively (p=0.003)", "down"),
        ("Recurrence occurred in 28% of the placebo group vs 38% of the drug group (P=0.01)", "up"),
        ("the proportion who developed complications (19.2 vs. 34.7%, p = 0.034) was smaller", None),
        # two figures with only a p-value of 0.05 or more: no difference, whichever arm is which
        (
            "Mean number of packed cells was 0.04 versus 0.09 in the two groups, respectively (p = 0.129).",
            "none",
        ),
        ("Average score was 2.9 ± 1.3 (F) versus 3.0 ± 1.3 (Z; p = NS).", "none"),
        ("the rate was 5.1 vs 6.3 (p = 0.21) at 6 months and 4.0 vs 7.2 (p = 0.003) at 12 months", None),
        ("the rate was 5.1 vs 6.3 (p < 0.001)", None),
        ("(RD −0.01; 95% CI -0.07 to 0.06)", "none"),
        (
            "(hazard ratio for the detection of a new polyp, 0.64; 95 percent confidence interval, 0.43 to 0.94)",
            "down",
        ),
        ("absolute risk difference 4.2 (95% CI 1.1 to 7.3)", "up"),
        # figures in parentheses follow the order in which the clause named the arms
        (
            "Time to first flatus in the drug group was shorter than in the control group (73.2 ± 15.6 vs 82.8 ± "
            "20.3 h,"
            " P = 0.038)",
            "down",
        ),
        (
            "CR was significantly higher in the drug group than in the standard therapy group (80.0% vs. 56.0%, P = "
            "0.018)",
            "up",
        ),
        (
            "A reduced mortality in the active group compared to the placebo group (98/221 vs. 120/222; P = 0.041)",
            "down",
        ),
        # signed changes keep their sign
        ("mean changes were −43.7% with the drug versus −6.1% with placebo (P≤0.005)", "down"),
    ],
)
def test_figures_show_a_direction_against_their_reference_or_the_comparator(text, way):
    assert figures_way(effect_figures(text, "aspirin" if "aspirin" in text else "drug")) == way


def test_or_in_running_text_is_not_an_odds_ratio():
    assert effect_figures("complications (46 vs. 99) or 19.2 of them") == []


@pytest.mark.parametrize(
    "passage, reported",
    [
        (
            "Compared with placebo, aspirin significantly reduced colorectal cancer incidence (p < 0.001).",
            "decreased",
        ),
        (
            "Colorectal cancer incidence was higher in the placebo group than in the aspirin group (p < 0.01).",
            "decreased",
        ),
        (
            "There was no significant difference in colorectal cancer incidence between aspirin and placebo.",
            "no_difference",
        ),
        ("Aspirin did not reduce colorectal cancer incidence.", "no_difference"),
    ],
)
def test_the_rule_reading_of_a_passage_is_relative_to_the_comparator(passage, reported):
    assert read_passage(passage, "aspirin", "colorectal cancer incidence").direction == reported


def test_aims_and_questions_state_no_finding():
    assert states_no_finding("We examined whether aspirin reduces colorectal cancer incidence.")
    assert states_no_finding("To determine whether statins lower mortality, we pooled 14 trials.")
    assert not states_no_finding("Aspirin reduced colorectal cancer incidence by 24%.")


def test_a_passage_votes_only_on_its_own_exposure_and_outcome():
    hip = relevance(
        "Statins", "cardiovascular mortality", "Statin use was associated with lower hip fracture risk."
    )
    assert hip.exposure_matched and not hip.outcome_matched
    deaths = relevance(
        "Statins", "cardiovascular mortality", "Cardiovascular deaths were fewer with statin therapy."
    )
    assert deaths.about_both
    in_title = relevance(
        "aspirin",
        "colorectal cancer",
        "The treatment group had fewer colorectal cancers.",
        "Aspirin for the prevention of colorectal adenomas",
    )
    assert in_title.about_both


def test_a_phrase_and_its_acronym_are_one_thing_and_general_words_match_nothing():
    cbt = relevance(
        "Cognitive behavioural therapy",
        "insomnia severity",
        "CBT significantly increased insomnia severity index scores compared with placebo.",
    )
    assert cbt.about_both
    assert relevance(
        "NSAIDs",
        "colorectal cancer",
        "Non-steroidal anti-inflammatory drug use lowered colorectal cancer risk.",
    ).about_both
    assert not relevance(
        "Cognitive behavioural therapy", "insomnia severity", "BMI rose with insomnia severity."
    ).exposure_matched
    # "risk" in "risk of stroke" does not make a colorectal cancer incidence sentence about stroke
    assert not relevance(
        "Antihypertensive treatment",
        "risk of stroke",
        "Antihypertensive drugs significantly reduced colorectal cancer incidence.",
    ).outcome_matched


@pytest.mark.parametrize(
    "passage, reported",
    [
        ("Falls were lower in the control group than in the tai chi group (p = 0.004).", "increased"),
        ("Falls were fewer with tai chi than with usual care (p = 0.004).", "decreased"),
        # a control word in another clause is no comparator named first (Evidence Inference: such flips were wrong)
        (
            "Compared with participants who viewed a video without risk information, participants who viewed the "
            "video with tai chi thought falls were lower (P=.03).",
            "decreased",
        ),
    ],
)
def test_only_a_comparator_arm_said_first_turns_the_words_round(passage, reported):
    assert read_passage(passage, "tai chi", "falls").direction == reported


def test_two_arms_significantly_apart_rule_out_no_difference():
    reading = read_passage(
        "Memory scores were 12% with sleep deprivation and 20% with placebo, respectively (p = 0.003).",
        "sleep deprivation",
        "memory scores",
    )
    split = {"increased": 0.05, "decreased": 0.45, "no_difference": 0.45, "unrelated": 0.05}
    assert passage_distribution(split, reading)["no_difference"] == 0.0


def test_where_the_reader_cannot_tell_up_from_down_significant_arms_say_which():
    reading = read_passage(
        "Memory scores were 12% with sleep deprivation and 20% with placebo, respectively (p = 0.003).",
        "sleep deprivation",
        "memory scores",
    )
    coin = {"increased": 0.5, "decreased": 0.47, "no_difference": 0.03, "unrelated": 0.0}
    sure = {"increased": 0.9, "decreased": 0.07, "no_difference": 0.03, "unrelated": 0.0}
    assert max(passage_distribution(coin, reading).items(), key=lambda kv: kv[1])[0] == "decreased"
    assert max(passage_distribution(sure, reading).items(), key=lambda kv: kv[1])[0] == "increased"


def _verdict(claim: str, passage: str, probs: dict[str, float]):
    frame = read_claim(claim)
    reading = read_passage(passage, frame.exposure, frame.outcome)
    return judge(
        frame,
        passage_distribution(probs, reading),
        reading,
        relevance(frame.exposure, frame.outcome, passage),
    )


LOWER = {"increased": 0.05, "decreased": 0.85, "no_difference": 0.05, "unrelated": 0.05}
NULL = {"increased": 0.05, "decreased": 0.05, "no_difference": 0.85, "unrelated": 0.05}


def test_the_verdict_follows_from_the_two_directions_with_its_reason():
    passage = (
        "Regular use of aspirin was associated with lower risk of colorectal cancer "
        "(OR 0.69 [95% CI 0.64-0.74])."
    )
    supports = _verdict("Aspirin reduces the risk of colorectal cancer.", passage, NULL)  # the figures decide
    assert supports.relation == "SUPPORTS" and supports.passage_direction == "decreased"
    assert "OR 0.69, 0.64–0.74" in supports.reason and supports.reason.endswith("→ supports")
    assert _verdict("Aspirin increases the risk of colorectal cancer.", passage, NULL).relation == "REFUTES"
    assert (
        _verdict("Aspirin does not reduce the risk of colorectal cancer.", passage, NULL).relation
        == "REFUTES"
    )
    null = "Colorectal cancer risk did not differ between aspirin and placebo."
    assert _verdict("Aspirin reduces the risk of colorectal cancer.", null, NULL).relation == "REFUTES"
    assert (
        _verdict("Aspirin has no effect on the risk of colorectal cancer.", null, NULL).relation == "SUPPORTS"
    )
    assert (
        _verdict("Aspirin does not reduce the risk of colorectal cancer.", null, NULL).relation == "SUPPORTS"
    )


def test_an_off_topic_passage_is_neutral_and_says_what_it_is_not_about():
    verdict = _verdict(
        "Statins reduce cardiovascular mortality.",
        "Statin use was associated with lower hip fracture risk.",
        LOWER,
    )
    assert verdict.relation == "NEUTRAL" and verdict.reason == "not about cardiovascular mortality → neutral"


def test_a_null_no_word_or_figure_states_does_not_refute():
    background = (
        "There is a lack of consensus about the balance of risks and benefits of aspirin for colorectal "
        "cancer, and the optimal dose requires further investigation."
    )
    assert _verdict("Aspirin reduces the risk of colorectal cancer.", background, NULL).relation == "NEUTRAL"
    stated = "Colorectal cancer risk did not differ between aspirin and placebo (p = 0.41)."
    assert _verdict("Aspirin reduces the risk of colorectal cancer.", stated, NULL).relation == "REFUTES"


def test_a_passage_that_states_no_direction_goes_to_the_cross_encoder_under_the_older_rule():
    from lyra_resources.models.direction_judge import UNSTATED, judge_triples

    claim = "Urokinase receptor signalling increases proteinuria in podocytes."
    stated = "Urokinase receptor signalling significantly increased proteinuria (p < 0.01)."
    unstated = "Here we show that urokinase receptor signalling in podocytes leads to proteinuria."
    off_topic = "Urokinase receptor signalling was studied in hepatocytes."
    reader = {
        "label": "decreased",
        "confidence": 0.9,
        "probs": {"increased": 0.03, "decreased": 0.9, "no_difference": 0.04, "unrelated": 0.03},
    }
    cross = {
        "label": "entailment",
        "confidence": 0.8,
        "probs": {"entailment": 0.8, "neutral": 0.15, "contradiction": 0.05},
    }
    asked: list = []
    judged = judge_triples(
        [(claim, stated, ""), (claim, unstated, ""), (claim, off_topic, "")],
        read=lambda pairs: [reader] * len(pairs),
        nli=lambda pairs: asked.extend(pairs) or [cross] * len(pairs),
        unstated="cross-encoder",
    )
    assert judged[0].judged_by == "direction"  # the words state it: the direction judge decides
    assert judged[1].judged_by == "cross-encoder" and judged[1].relation == "SUPPORTS"
    assert judged[1].reason.startswith(UNSTATED)
    assert judged[2].judged_by == "direction" and judged[2].relation == "NEUTRAL"  # the gate still stands
    assert asked == [(unstated, claim)]


@pytest.mark.parametrize(
    "reader_min, relation, reason",
    [
        (0.8, "REFUTES", "the direction reader reads a decrease (0.90); reports lower proteinuria"),
        (
            0.95,
            "NEUTRAL",
            "no direction read in words, figures or by the reader: not counted (the reader: a decrease, 0.90)",
        ),
    ],
)
def test_a_passage_that_states_no_direction_votes_only_as_the_reader_reads_it(reader_min, relation, reason):
    from lyra_resources.models.direction_judge import judge_triples

    claim = "Urokinase receptor signalling increases proteinuria in podocytes."
    unstated = "Here we show that urokinase receptor signalling in podocytes leads to proteinuria."
    reader = {
        "label": "decreased",
        "confidence": 0.9,
        "probs": {"increased": 0.03, "decreased": 0.9, "no_difference": 0.04, "unrelated": 0.03},
    }
    asked: list = []
    [edge] = judge_triples(
        [(claim, unstated, "")],
        read=lambda pairs: [reader] * len(pairs),
        nli=lambda pairs: asked.extend(pairs) or [],
        reader_min=reader_min,
    )
    assert edge.judged_by == "direction" and edge.relation == relation and edge.reason.startswith(reason)
    assert asked == []  # overlap decides nothing here


WINDOW = (
    "During the intervention, adverse events did not differ between aspirin and placebo groups. "
    "Aspirin substantially reduced cancer incidence in carriers of hereditary colorectal cancer."
)


def test_a_null_about_another_outcome_in_the_same_window_does_not_refute():
    from lyra_core.direction.relevance import outcome_sentences

    assert outcome_sentences("cancer incidence", WINDOW).startswith("Aspirin substantially reduced")
    assert outcome_sentences("adverse events", WINDOW).startswith("During the intervention")
    assert outcome_sentences("aspirin", WINDOW) == WINDOW  # named in every sentence: the whole window
    verdict = _verdict("Aspirin reduces cancer incidence.", WINDOW, LOWER)
    assert verdict.relation == "SUPPORTS" and "no difference" not in verdict.reason


def test_the_direction_reader_reads_the_sentences_that_name_the_outcome():
    from lyra_resources.models.direction_judge import judge_triples

    seen: list[tuple[str, str]] = []

    def read(pairs):
        seen.extend(pairs)
        return [{"label": "decreased", "confidence": 0.85, "probs": LOWER} for _ in pairs]

    judged = judge_triples([("Aspirin reduces cancer incidence.", WINDOW, "")], read, lambda pairs: [])
    assert seen[0][0].startswith("Aspirin substantially reduced") and "adverse" not in seen[0][0]
    assert judged[0].relation == "SUPPORTS"


def test_a_change_the_words_state_says_which_way_and_the_reader_weighs_it_against_no_difference():
    reading = read_passage(
        "Aspirin seems the most promising drug for preventing colorectal cancer.",
        "aspirin",
        "colorectal cancer",
    )
    wrong_way = {"increased": 0.63, "decreased": 0.23, "no_difference": 0.13, "unrelated": 0.01}
    mostly_null = {"increased": 0.05, "decreased": 0.1, "no_difference": 0.84, "unrelated": 0.01}
    assert max(passage_distribution(wrong_way, reading).items(), key=lambda kv: kv[1])[0] == "decreased"
    assert (
        passage_distribution(mostly_null, reading)["decreased"] < 0.2
    )  # the words move no mass from "no change"


@pytest.mark.parametrize(
    "passage, open_question",
    [
        (
            "There is a lack of consensus about the balance of risks and benefits of long-term aspirin use. The "
            "optimal "
            "dose requires further investigation.",
            True,
        ),
        ("The effect of aspirin on colorectal cancer incidence in the elderly remains unclear.", True),
        ("Aspirin reduced colorectal cancer incidence (HR 0.63). Further studies are needed.", False),
    ],
)
def test_a_passage_that_says_what_is_not_known_is_neutral(passage, open_question):
    from lyra_core.direction.verdict import judge_passage

    verdict = judge_passage(
        read_claim("Aspirin reduces colorectal cancer incidence."),
        passage,
        "Aspirin and colorectal cancer incidence",
        NULL,
    )
    assert (verdict.relation == "NEUTRAL" and "not yet known" in verdict.reason) == open_question


def test_a_plain_association_is_borne_out_either_way_and_refuted_by_no_difference():
    claim = "Crime is associated with over-the-counter pharmacy syringe sales."
    passage = (
        "Reported crime rates were negatively associated with OTC syringe sales (adjusted rate ratio: 0.89; "
        "95% confidence interval: 0.81, 0.99)."
    )
    assert (
        read_claim(claim).either_way
        and not read_claim("Obesity is associated with higher diabetes risk.").either_way
    )
    lower = _verdict(claim, passage, LOWER)
    assert lower.relation == "SUPPORTS" and lower.claim_direction == "association"
    assert "the claim says crime is associated with it → supports" in lower.reason
    null = _verdict(
        claim, "Crime rates did not differ with OTC syringe sales (RR 1.01; 95% CI 0.93 to 1.10).", NULL
    )
    assert null.relation == "REFUTES"


HIGHER = {"increased": 0.85, "decreased": 0.05, "no_difference": 0.05, "unrelated": 0.05}


@pytest.mark.parametrize(
    "claim, passage, read, asked, relation",
    [
        (
            "Vitamin A supplementation improves child survival.",
            "Vitamin A supplementation reduced child mortality by 24% (RR 0.76, 95% CI 0.69 to 0.83).",
            LOWER,
            "child mortality",
            "SUPPORTS",
        ),
        (
            "Vitamin A supplementation improves child survival.",
            "Deaths among children were more frequent with vitamin A supplementation than with placebo "
            "(RR 1.31, 95% CI 1.10 to 1.56).",
            HIGHER,
            "child mortality",
            "REFUTES",
        ),
        (
            "Beta blockers increase mortality after myocardial infarction.",
            "Survival after myocardial infarction was higher with beta blockers (HR 1.4, 95% CI 1.2 to 1.6).",
            HIGHER,
            "survival",
            "REFUTES",
        ),
        (
            "Beta blockers reduce mortality after myocardial infarction.",
            "Beta blockers improved survival after myocardial infarction.",
            HIGHER,
            "survival",
            "SUPPORTS",
        ),
        # both ends named: the passage's direction is read as it is, for the outcome the claim names
        (
            "Statins reduce mortality.",
            "Statins reduced mortality and improved event-free survival.",
            LOWER,
            "on mortality",
            "SUPPORTS",
        ),
    ],
)
def test_an_outcome_named_from_its_other_end_reverses_the_direction(claim, passage, read, asked, relation):
    from lyra_core.direction.verdict import judge_passage, reader_question_for

    frame = read_claim(claim)
    question = reader_question_for(frame, passage)
    assert asked in question  # the reader is asked about the outcome as the passage names it
    verdict = judge_passage(frame, passage, "", read)
    assert verdict.relation == relation, verdict.reason
    assert ("(higher" in verdict.reason or "(lower" in verdict.reason) == (asked != "on mortality")


@pytest.mark.parametrize(
    "claim, passage, read, asked, relation",
    [
        # weight loss is less obesity: less diabetes with weight loss is more with obesity
        (
            "Obesity increases the risk of type 2 diabetes.",
            "Weight loss reduced the incidence of type 2 diabetes by 58% (HR 0.42, 95% CI 0.30 to 0.58).",
            LOWER,
            "effect of weight loss versus",
            "SUPPORTS",
        ),
        (
            "Cigarette smoking increases the risk of myocardial infarction.",
            "Smoking cessation lowered the risk of myocardial infarction within two years.",
            LOWER,
            "effect of smoking cessation versus",
            "SUPPORTS",
        ),
        (
            "Physical inactivity does not affect the risk of coronary heart disease.",
            "Physical activity was associated with a lower risk of coronary heart disease (RR 0.73, 95% CI 0.66 to "
            "0.80).",
            LOWER,
            "effect of physical activity versus",
            "REFUTES",
        ),
        # both ends at once: weight loss lowering deaths is obesity lowering survival
        (
            "Obesity reduces survival after breast cancer.",
            "Weight loss after diagnosis reduced deaths after breast cancer (HR 0.70, 95% CI 0.55 to 0.89).",
            LOWER,
            "effect of weight loss versus control on mortality",
            "SUPPORTS",
        ),
        # the other end only as who was studied, or both ends named: read as it is
        (
            "Vitamin D supplementation reduces fracture risk.",
            "In women with vitamin D deficiency, vitamin D supplementation reduced fracture risk (RR 0.80, 95% CI "
            "0.70 to 0.92).",
            LOWER,
            "effect of Vitamin D supplementation versus",
            "SUPPORTS",
        ),
        (
            "Cigarette smoking increases the risk of lung cancer.",
            "Smoking raised the risk of lung cancer, and smoking cessation lowered it.",
            HIGHER,
            "effect of Cigarette smoking versus",
            "SUPPORTS",
        ),
    ],
)
def test_an_exposure_named_from_its_other_end_reverses_the_direction(claim, passage, read, asked, relation):
    from lyra_core.direction.verdict import judge_passage, reader_question_for
    from lyra_core.direction.wording import in_sentence

    frame = read_claim(claim)
    assert asked in reader_question_for(frame, passage)  # the reader is asked about what the passage names
    verdict = judge_passage(frame, passage, "", read)
    assert verdict.relation == relation, verdict.reason
    renamed = "effect of " + frame.exposure + " " not in asked + " "
    named = in_sentence(frame.exposure)  # as a reason writes it inside its sentence
    assert (f"with {named}" not in verdict.reason.split(";")[0].split(" (")[0]) == renamed, verdict.reason


@pytest.mark.parametrize(
    "passage, side_by_side",
    [
        # two outcomes of something else, or who was studied: not the effect of one on the other
        (
            "A 1-cent-per-ounce tax on sugar-sweetened beverages would prevent 240,000 cases of obesity and type 2 "
            "diabetes over 10 years.",
            True,
        ),
        ("Adults with obesity, hypertension and type 2 diabetes were randomised to the programme.", True),
        ("The prevalence of type 2 diabetes and obesity rose in children from 1990 to 2010.", True),
        (
            "The 20% tax was anticipated to reduce overweight and obesity prevalence by 3.0% (95% CI 1.6%-5.9%) and "
            "type 2 diabetes incidence by 1.6% (95% CI 1.2%-1.9%).",
            True,
        ),
        (
            "We modelled caloric intake, body mass index (BMI), and diabetes incidence, and overweight/obesity "
            "prevalence, and type 2 diabetes incidence among adults facing a 20% excise tax.",
            True,
        ),
        (
            "In mouse models of type 2 diabetes and obesity, low SIK2 activity was associated with increased p300 "
            "activity. Inhibiting p300 may help in treating hepatic steatosis in obesity and type 2 diabetes.",
            True,
        ),
        # related by the passage, or one named apart from the other
        ("Obesity increased the risk of type 2 diabetes (OR 2.5, 95% CI 2.0 to 3.1).", False),
        ("The association between obesity and type 2 diabetes was stronger in women.", False),
        (
            "Obesity and type 2 diabetes were strongly associated in both sexes (OR 3.1, 95% CI 2.4 to 4.0).",
            False,
        ),
        (
            "Rates of obesity and type 2 diabetes rose, and obese adults had a threefold higher risk of type 2 "
            "diabetes.",
            False,
        ),
        ("Obesity-related type 2 diabetes became more common.", False),
    ],
)
def test_an_exposure_listed_beside_the_outcome_is_not_its_effect(passage, side_by_side):
    from lyra_core.direction.verdict import judge_passage

    frame = read_claim("Obesity increases the risk of type 2 diabetes.")
    verdict = judge_passage(frame, passage, "", LOWER if "prevent" in passage else HIGHER)
    assert (verdict.relation == "NEUTRAL" and "side by side" in verdict.reason) == side_by_side, (
        verdict.reason
    )


@pytest.mark.parametrize(
    "passage, exposure, direction",
    [
        # "cause" as a noun states no change: the comparison does
        (
            "Deaths from any cause were lower in participants receiving chemotherapy than in controls (p = 0.01).",
            "chemotherapy",
            "decreased",
        ),
        (
            "The causes of death were similar with chemotherapy and with observation.",
            "chemotherapy",
            "no_difference",
        ),
        ("Smoking causes death in most patients.", "smoking", "increased"),
        # a digit that ends a name between two arms' figures ("omega-3", "COVID-19") leaves the arms readable
        (
            "Triglycerides were 12% with omega-3 supplementation and 20% with placebo, respectively (p = 0.003).",
            "omega-3 supplementation",
            "decreased",
        ),
        (
            "Admissions were 31% with the COVID-19 vaccine and 22% with placebo (p < 0.01).",
            "COVID-19 vaccine",
            "increased",
        ),
        # "one or more", "3 or fewer" bound a count: no change is stated by them
        ("One or more adenomas were found in 17 percent of patients in the aspirin group.", "aspirin", None),
        ("Deaths among patients with 3 or fewer visits were recorded for aspirin.", "aspirin", None),
        ("Patients with 3 or more visits had lower mortality with aspirin.", "aspirin", "decreased"),
    ],
)
def test_passage_words_that_look_like_a_direction_or_a_figure_but_are_not(passage, exposure, direction):
    assert read_passage(passage, exposure, "mortality").direction == direction


@pytest.mark.parametrize(
    "outcome, passage, matched",
    [
        (
            "risk of type 2 diabetes",
            "Obesity in pregnancy raised the incidence of type 1 diabetes in offspring.",
            False,
        ),
        ("risk of type 2 diabetes", "Obesity was associated with type 2 diabetes (OR 2.1).", True),
        ("risk of type 2 diabetes", "Type 1 and type 2 diabetes were both more frequent with obesity.", True),
        ("risk of type 2 diabetes", "Obesity was associated with diabetes (OR 2.1).", True),
        (
            "stage III colon cancer recurrence",
            "Recurrence of stage I colon cancer was lower with aspirin.",
            False,
        ),
        (
            "stage III colon cancer recurrence",
            "Recurrence of stage III colon cancer was lower with aspirin.",
            True,
        ),
    ],
)
def test_a_passage_about_another_kind_of_the_outcome_is_not_about_it(outcome, passage, matched):
    assert relevance("obesity aspirin", outcome, passage).outcome_matched == matched


@pytest.mark.parametrize(
    "outcome, passage, matched",
    [
        # the words of risk name no outcome: the risk of something else is not the claim's outcome
        ("incidence of stroke", "Aspirin lowered the risk of death (HR 0.80, 0.70-0.92).", False),
        (
            "occurrence of advanced adenomas",
            "Aspirin use was associated with lower risk of colorectal cancer (OR 0.69, 0.64-0.74).",
            False,
        ),
        ("odds of hospital admission", "The hazard of death was lower with aspirin.", False),
        ("incidence of stroke", "Strokes were fewer with aspirin (HR 0.78).", True),
        # an adenoma is a precursor, not a cancer: neither stands for the other
        (
            "colorectal cancer incidence",
            "The relative risk of any recurrent adenoma with aspirin was 0.65.",
            False,
        ),
        (
            "incidence of colorectal adenomas",
            "The relative risk of any recurrent adenoma with aspirin was 0.65.",
            True,
        ),
        ("colorectal cancer incidence", "Aspirin reduced the incidence of colorectal carcinoma.", True),
    ],
)
def test_an_outcome_is_named_by_what_it_is_not_by_the_words_of_risk(outcome, passage, matched):
    assert relevance("aspirin", outcome, passage).outcome_matched == matched


@pytest.mark.parametrize(
    "passage, matched",
    [
        # who was studied, not what happened to them
        (
            "Women with type 2 diabetes had a modestly elevated incidence of breast cancer (HR 1.17), independent of "
            "obesity.",
            False,
        ),
        (
            "Exercise capacity predicted mortality among male veterans with type 2 diabetes and obesity.",
            False,
        ),
        (
            "Diabetic patients achieving <5 METs were 70% more likely to die (1.70 [1.13-2.54]). There was a strong "
            "inverse association between exercise capacity and mortality in men with documented diabetes.",
            False,
        ),
        ("Patients with newly diagnosed type 2 diabetes and obesity were enrolled.", False),
        ("In mouse models of type 2 diabetes and obesity, low SIK2 activity was found.", False),
        ("Among diabetic patients, obesity doubled mortality.", False),
        ("Remission of type 2 diabetes was related to weight loss in obese adults (P < .001).", False),
        (
            "Obese adults lost 20% of weight at 2 years. Remission of type 2 diabetes was related to weight loss.",
            False,
        ),
        # the outcome itself
        ("Obesity was associated with type 2 diabetes (OR 2.1).", True),
        ("Obese women were more often diagnosed with type 2 diabetes than lean women.", True),
        ("The proportion of patients with type 2 diabetes was higher among obese participants.", True),
        (
            "Among men with diabetes, BMI predicted mortality. Obesity raised the risk of type 2 diabetes.",
            True,
        ),
    ],
)
def test_a_passage_that_names_the_outcome_only_as_who_was_studied_is_not_about_it(passage, matched):
    assert relevance("Obesity", "risk of type 2 diabetes", passage).outcome_matched == matched


@pytest.mark.parametrize(
    "claim, exposure, outcome",
    [
        (
            "Patient position during liver surgery influences the risk of venous air embolism.",
            "Patient position during liver surgery",
            "risk of venous air embolism",
        ),
        ("Sleep quality is influenced by caffeine intake.", "caffeine intake", "Sleep quality"),
        (
            "Antiepileptic drug prescriptions have changed following the FDA suicidality warning.",
            "FDA suicidality warning",
            "Antiepileptic drug prescriptions",
        ),
        (
            "Hepatitis G virus is involved in cryptogenic chronic liver disease.",
            "Hepatitis G virus",
            "cryptogenic chronic liver disease",
        ),
        (
            "There is a role for fondaparinux in perioperative bridging.",
            "fondaparinux",
            "perioperative bridging",
        ),
        ("Vitamin D plays a key role in bone health.", "Vitamin D", "bone health"),
    ],
)
def test_an_effect_of_no_stated_direction_is_borne_out_either_way(claim, exposure, outcome):
    frame = read_claim(claim)
    assert frame.either_way and (frame.exposure, frame.outcome) == (exposure, outcome)


@pytest.mark.parametrize(
    "claim",
    [
        "Gene expression changes in cancer cells.",
        "The changes in mortality were significant.",
        "Bone density is not affected by vitamin D supplementation.",
        "Anthrax spores remain deadly until affected areas are decontaminated.",
        "In the UK, drowning affects boys and girls equally.",
        "Mitochondria play a trivial role in calcium homeostasis.",
    ],
)
def test_change_words_that_are_not_an_effect_claim_are_not_read_as_one(claim):
    assert not read_claim(claim).either_way


def test_a_null_finding_refutes_an_effect_of_no_stated_direction_and_a_change_bears_it_out():
    claim = "Patient position during liver surgery influences the risk of venous air embolism."
    null = _verdict(
        claim,
        "The effect on venous pressures caused by the change in patient position during liver "
        "surgery does not affect the risk of venous air embolism.",
        NULL,
    )
    assert null.relation == "REFUTES" and null.passage_direction == "no_difference"
    assert "the claim says patient position during liver surgery affects it → refutes" in null.reason
    lower = _verdict(
        claim,
        "The head-up position lowered the risk of venous air embolism during liver surgery "
        "(OR 0.40, 95% CI 0.21-0.77).",
        LOWER,
    )
    assert lower.relation == "SUPPORTS"


def test_a_null_phrase_beside_the_outcome_outweighs_a_direction_word_said_of_something_else():
    reading = read_passage(
        "The rise in venous pressure caused by head-up tilt does not appear to affect the risk of "
        "venous air embolism.",
        "head-up tilt",
        "risk of venous air embolism",
    )
    assert reading.direction == "no_difference"
    assert (
        read_passage(
            "E2 pretreatment does not appear to improve IVF outcomes in poor responders.",
            "E2 pretreatment",
            "IVF outcomes",
        ).direction
        == "no_difference"
    )


@pytest.mark.parametrize(
    "claim, passage, instead",
    [
        (
            "Vitamin D deficiency increases fracture risk.",
            "Vitamin D supplementation did not reduce fracture risk (RR 1.03, 95% CI 0.91 to 1.16).",
            "vitamin D supplementation",
        ),
        (
            "Vitamin D supplementation reduces falls in older adults.",
            "Vitamin D deficiency was associated with more falls in older adults (OR 1.4, 95% CI 1.1 to 1.8).",
            "vitamin D deficiency",
        ),
        (
            "Vitamin D supplementation reduces fracture risk.",
            "Vitamin D insufficiency and deficiency exacerbate osteoporosis, cause osteomalacia, and increase the risk "
            "of skeletal fractures.",
            "vitamin D insufficiency",
        ),
    ],
)
def test_a_nutrients_status_is_no_vote_on_its_supplementation_nor_the_reverse(claim, passage, instead):
    from lyra_core.direction.verdict import judge_passage

    verdict = judge_passage(read_claim(claim), passage, "", HIGHER)
    assert verdict.relation == "NEUTRAL"
    assert (
        verdict.reason.startswith(f"speaks of {instead}, not of ") and "indirect evidence" in verdict.reason
    )
