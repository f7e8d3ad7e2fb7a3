"""A task's question as Lyra judges it: yes/no questions become declarative hypotheses by rule."""

import json

import pytest

from fixtures.paths import SHARED_DATA
from lyra_core.hypothesis import FALLBACK, HYPOTHESIS, OPEN_QUESTION, RULE, is_yes_no, to_hypothesis

PUBMEDQA = SHARED_DATA / "nli_training" / "pubmedqa_pqal" / "ori_pqal.json"


@pytest.mark.parametrize(
    ("question", "hypothesis"),
    [
        (
            "Does vitamin D supplementation reduce fracture risk?",
            "Vitamin D supplementation reduces fracture risk.",
        ),
        (
            "Do mitochondria play a role in remodelling lace plant leaves during programmed cell death?",
            "Mitochondria play a role in remodelling lace plant leaves during programmed cell death.",
        ),
        (
            "Does exercise during pregnancy prevent postnatal depression?",
            "Exercise during pregnancy prevents postnatal depression.",
        ),
        (
            "Does increased use of private health care reduce the demand for NHS care?",
            "Increased use of private health care reduces the demand for NHS care.",
        ),
        (
            "Does the treatment of amblyopia normalise subfoveal choroidal thickness in amblyopic children?",
            "The treatment of amblyopia normalises subfoveal choroidal thickness in amblyopic children.",
        ),
        (
            "Does induction chemotherapy have a role in the management of nasopharyngeal carcinoma?",
            "Induction chemotherapy has a role in the management of nasopharyngeal carcinoma.",
        ),
        ("Did the reform reduce deaths?", "The reform reduced deaths."),
        ("Is it true that statins reduce myalgia?", "Statins reduce myalgia."),
        (
            "Measuring hospital mortality rates: are 30-day data enough?",
            "In measuring hospital mortality rates, 30-day data are enough.",
        ),
        (
            "Xanthogranulomatous cholecystitis: a premalignant condition?",
            "Xanthogranulomatous cholecystitis is a premalignant condition.",
        ),
        (
            "Multidisciplinary breast cancer clinics. Do they work?",
            "Multidisciplinary breast cancer clinics work.",
        ),
        (
            "Double balloon enteroscopy: is it efficacious and safe in a community setting?",
            "Double balloon enteroscopy is efficacious and safe in a community setting.",
        ),
        (
            "Diabetes mellitus among Swedish art glass workers--an effect of arsenic exposure?",
            "Diabetes mellitus among Swedish art glass workers is an effect of arsenic exposure.",
        ),
        (
            "Is allogeneic support not as effective as autologous support?",
            "Allogeneic support is not as effective as autologous support.",
        ),
        (
            "Is laparoscopic cholecystectomy safe and acceptable as a day case procedure?",
            "Laparoscopic cholecystectomy is safe and acceptable as a day case procedure.",
        ),
        (
            "Is distance to provider a barrier to care for medicaid patients?",
            "Distance to provider is a barrier to care for medicaid patients.",
        ),
        (
            "Is fetal gender associated with emergency department visits?",
            "Fetal gender is associated with emergency department visits.",
        ),
        (
            "Is the covering of the resection margin after distal pancreatectomy advantageous?",
            "The covering of the resection margin after distal pancreatectomy is advantageous.",
        ),
        (
            "Is there a correlation between androgens and sexual desire in women?",
            "There is a correlation between androgens and sexual desire in women.",
        ),
        (
            "Are the elderly with oropharyngeal carcinoma undertreated?",
            "The elderly with oropharyngeal carcinoma are undertreated.",
        ),
        (
            "Are women who are treated for hypothyroidism at risk for pregnancy complications?",
            "Women who are treated for hypothyroidism are at risk for pregnancy complications.",
        ),
        (
            "Are carriers of HNF4A mutations at reduced risk for diabetes?",
            "Carriers of HNF4A mutations are at reduced risk for diabetes.",
        ),
        ("Are smokers at an increased risk of stroke?", "Smokers are at an increased risk of stroke."),
        ("Are patients at a hospital more satisfied?", "Patients at a hospital are more satisfied."),
        ("Can PRISM predict length of PICU stay?", "PRISM can predict length of PICU stay."),
        (
            "Can patients be anticoagulated after intracerebral hemorrhage?",
            "Patients can be anticoagulated after intracerebral hemorrhage.",
        ),
        (
            "Should general practitioners call patients by their first names?",
            "General practitioners should call patients by their first names.",
        ),
        ("Will statins prevent dementia?", "Statins will prevent dementia."),
        ("Has the incidence of melanoma increased?", "The incidence of melanoma has increased."),
        ("Have statins reduced mortality in women?", "Statins have reduced mortality in women."),
        # verbs no list names, found by the sentence's structure
        ("Do smokers progress faster to COPD?", "Smokers progress faster to COPD."),
        (
            "Do patients on drug A do worse than patients on drug B?",
            "Patients on drug A do worse than patients on drug B.",
        ),
        (
            "Does metformin reverse liver damage caused by alcohol?",
            "Metformin reverses liver damage caused by alcohol.",
        ),
        (
            "Do children exposed to lead score lower on IQ tests?",
            "Children exposed to lead score lower on IQ tests.",
        ),
        ("Does tumour size predict survival?", "Tumour size predicts survival."),
        (
            "Can dobutamine stress echocardiography induce troponin elevation?",
            "Dobutamine stress echocardiography can induce troponin elevation.",
        ),
        ("Does alcohol use increase the risk of cancer?", "Alcohol use increases the risk of cancer."),
        ("Did patients undergo fewer reoperations?", "Patients underwent fewer reoperations."),
        ("Does the drug act faster than placebo?", "The drug acts faster than placebo."),
        (
            "Does patient position during liver surgery influence the risk of air embolism?",
            "Patient position during liver surgery influences the risk of air embolism.",
        ),
        (
            "Can the condition of lymph nodes help predict metastases?",
            "The condition of lymph nodes can help predict metastases.",
        ),
        (
            "Are behavioural risk factors to be blamed for hypertension?",
            "Behavioural risk factors are to be blamed for hypertension.",
        ),
        ("Can high-dose vitamin C really cure cancer?", "High-dose vitamin C can really cure cancer."),
        (
            "Are children exposed to lead at risk of lower IQ?",
            "Children exposed to lead are at risk of lower IQ.",
        ),
        (
            "Does Viral Co-Infection Influence the Severity of Acute Respiratory Infection?",
            "Viral Co-Infection Influences the Severity of Acute Respiratory Infection.",
        ),
        # a negative question asks about the positive claim; "not" inside the question is kept
        ("Doesn't aspirin increase the risk of bleeding?", "Aspirin increases the risk of bleeding."),
        ("Isn’t smoking a risk factor for stroke?", "Smoking is a risk factor for stroke."),
        ("Does metformin not reduce cancer risk?", "Metformin does not reduce cancer risk."),
        (
            "Are there any safe doses of alcohol in pregnancy?",
            "There are safe doses of alcohol in pregnancy.",
        ),
        ("Is fasting healthy, or not?", "Fasting is healthy."),
        ("does smoking cause lung cancer", "Smoking causes lung cancer."),
    ],
)
def test_yes_no_questions_become_hypotheses(question, hypothesis):
    parsed = to_hypothesis(question)
    assert (parsed.origin, parsed.hypothesis, parsed.reading) == (HYPOTHESIS, hypothesis, RULE)


@pytest.mark.parametrize(
    ("question", "hypothesis"),
    [
        ("Does birth weight affect school performance?", "Birth weight affect school performance."),
        ("Does smoking cause weight gain?", "Smoking cause weight gain."),
        ("Does drug dose matter?", "Drug dose matter."),  # "dose" or "matter"
        ("Will the new drug change practice?", "The new drug change practice."),
        ("Did the sugar tax change purchasing habits?", "The sugar tax change purchasing habits."),
    ],
)
def test_a_question_with_two_readings_is_judged_as_itself_without_its_auxiliary(question, hypothesis):
    # "weight" or "affect" could each be the verb: the hypothesis stays the question's own words
    assert to_hypothesis(question) == to_hypothesis(question).model_copy(
        update={"origin": HYPOTHESIS, "hypothesis": hypothesis, "reading": FALLBACK}
    )


@pytest.mark.parametrize(
    "question",
    [
        "What causes migraine?",
        "How does exercise affect sleep?",
        "Why do statins cause myalgia?",
        "Which drugs reduce fracture risk?",
        "vitamin D and fracture risk",
        "Is?",
        "Vitamin D and fractures: what do trials show?",
    ],
)
def test_open_questions_and_topics_stay_open(question):
    assert to_hypothesis(question).origin == OPEN_QUESTION
    assert to_hypothesis(question).hypothesis is None and to_hypothesis(question).reading == OPEN_QUESTION


@pytest.mark.skipif(not PUBMEDQA.exists(), reason="PubMedQA labelled set not in this checkout")
def test_pubmedqa_yes_no_questions_read_as_sentences():
    questions = [v["QUESTION"] for v in json.loads(PUBMEDQA.read_text()).values()]
    yes_no = [q for q in questions if is_yes_no(q)]  # every question opening with an auxiliary
    parsed = [to_hypothesis(q) for q in yes_no]
    assert len(yes_no) >= 650 and all(p.origin == HYPOTHESIS and p.hypothesis for p in parsed)
    assert sum(p.reading == RULE for p in parsed) >= 0.97 * len(yes_no)
    for p in parsed:  # a sentence: no question mark, no auxiliary left at the front, capitalised
        if p.hypothesis:
            first = next(
                c for c in p.hypothesis if c.isascii() and c.isalnum()
            )  # "99mTc…", "30-day…" open with a digit
            assert (
                p.hypothesis.endswith(".")
                and "?" not in p.hypothesis
                and (first.isdigit() or first.isupper())
            )
            assert p.hypothesis.split()[0].lower() not in ("does", "do", "is", "are", "can", "should")
