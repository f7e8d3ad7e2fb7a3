"""A claim's subject is a noun phrase, never a clause fragment ("… are at", "… is effective at"), and the
forms claims use for risk, susceptibility, regulation and a denied impact are read
(lyra_core/direction/claim_patterns.py, claim_frame.py). Claims: SciFact train and Evidence Inference
train prompts, as written there."""

import pytest

from lyra_core.direction.claim_frame import read_claim

# (claim, kind, direction, exposure, outcome)
READ = [
    (
        "Carriers of HNF4A mutations are at reduced risk for diabetes.",
        "effect",
        "decrease",
        "Carriers of HNF4A mutations",
        "risk for diabetes",
    ),
    (
        "Students who perform poorly in the early years of medical school are at increased risk for "
        "professional misconduct later in their careers.",
        "effect",
        "increase",
        "Students who perform poorly in the early years of medical school",
        "risk for professional misconduct later in their careers",
    ),
    (
        "There is no increased risk of hypospadias with clomiphene.",
        "effect",
        "no_effect",
        "clomiphene",
        "hypospadias",
    ),
    (
        "Self-advocacy training is effective at decreasing homelessness.",
        "effect",
        "decrease",
        "Self-advocacy training",
        "homelessness",
    ),
    (
        "Input from  mental and physical health care professionals is not effective at decreasing homelessness.",
        "effect",
        "no_effect",
        "Input from mental and physical health care professionals",
        "homelessness",
    ),
    (
        "An M2-like phenotype in brown adipose tissue macrophages is quickly induced by cold exposure.",
        "effect",
        "increase",
        "cold exposure",
        "M2-like phenotype in brown adipose tissue macrophages",
    ),
    (
        "Mutant mice lacking SVCT2 have severely reduced ascorbic acid levels in both brain and adrenals.",
        "effect",
        "decrease",
        "Mutant mice lacking SVCT2",
        "ascorbic acid levels in both brain and adrenals",
    ),
    (
        "Rising temperatures caused by global warming lowers the risk of dengue fever transmission.",
        "effect",
        "decrease",
        "Rising temperatures caused by global warming",
        "risk of dengue fever transmission",
    ),
    (
        "work support intervention aimed at enhancing return-to-work reduces Return-to-work rates compared "
        "with usual care.",
        "effect",
        "decrease",
        "work support intervention aimed at enhancing return-to-work",
        "Return-to-work rates",
    ),
    (
        "Aged patients are more susceptible to ischaemia/reperfusion injury.",
        "effect",
        "increase",
        "Aged patients",
        "ischaemia/reperfusion injury",
    ),
    (
        "Chinese individuals with TT homozygosity in the MTHFR gene are less vulnerable to strokes caused by "
        "low levels of folate intake.",
        "effect",
        "decrease",
        "Chinese individuals with TT homozygosity in the MTHFR gene",
        "strokes caused by low levels of folate intake",
    ),
    (
        "PKG-la does not have a large impact on expression of pain hypersensitivity in PGK-la knockout mice.",
        "effect",
        "no_effect",
        "PKG-la",
        "expression of pain hypersensitivity",
    ),
    (
        "Monoclonal antibody targeting of N-cadherin encourages metastasis.",
        "effect",
        "increase",
        "Monoclonal antibody targeting of N-cadherin",
        "metastasis",
    ),
    (
        "MICAL redox enzymes regulate actin dynamics.",
        "association",
        "increase",
        "MICAL redox enzymes",
        "actin dynamics",
    ),
    (
        "Pro-inflammatory cytokines are up regulated during tumor development.",
        "effect",
        "increase",
        "tumor development",
        "Pro-inflammatory cytokines",
    ),
    # "regulates" is an effect of no stated direction, as "affects" is (SciFact 5-fold, judge gated /
    # oracle: 0.567 / 0.611 without it, 0.572 / 0.622 with it)
    (
        "GATA3 regulates self-renewal capacity in bone marrow hematopoietic stem cells.",
        "association",
        "increase",
        "GATA3",
        "self-renewal capacity in bone marrow hematopoietic stem cells",
    ),
    # a bracket glued to a name is part of it ("Lp(a)", "25(OH)D")
    (
        "PCSK9 inhibitors decrease plasma Lp(a) levels.",
        "effect",
        "decrease",
        "PCSK9 inhibitors",
        "plasma Lp(a) levels",
    ),
    (
        "buccal spray increases 25(OH)D concentration compared with control.",
        "effect",
        "increase",
        "buccal spray",
        "25(OH)D concentration",
    ),
    # a noun phrase may end in a capitalised "On" or in "only"
    (
        "continuous glucose monitoring (CGM) Sensor On reduces events of severe hypoglycaemia compared with "
        "continuous glucose monitoring (CGM) Sensor Off arm.",
        "effect",
        "decrease",
        "continuous glucose monitoring (CGM) Sensor On",
        "events of severe hypoglycaemia",
    ),
    (
        "lightwand only is associated with higher successful tracheal intubation attempts.",
        "effect",
        "increase",
        "lightwand only",
        "successful tracheal intubation attempts",
    ),
]


@pytest.mark.parametrize(("claim", "kind", "direction", "exposure", "outcome"), READ)
def test_the_subject_is_a_noun_phrase_and_the_claim_s_form_is_read(claim, kind, direction, exposure, outcome):
    frame = read_claim(claim)
    assert (frame.kind, frame.direction, frame.exposure, frame.outcome) == (
        kind,
        direction,
        exposure,
        outcome,
    )


@pytest.mark.parametrize(
    "claim",
    [
        # a direction verb read as a participle ("strokes caused by …", "EAM induced with …") or after a
        # subject ending in a preposition ("… antibiotics after prolonged exposure") is no claim of an effect
        "Bacteria become more resistant to antibiotics after prolonged exposure.",
        "Mice without IFN-γ or its receptor are highly susceptible to EAM induced with α-MyHC/CFA.",
        "Incidence of heart failure increased by 10% in women since 1979.",
        # "harming themselves" is what is counted, not a verb with an outcome
        "The risk of female prisoners harming themselves is ten times that of male prisoners.",
    ],
)
def test_a_fragment_of_a_clause_is_never_the_exposure(claim):
    frame = read_claim(claim)
    assert frame.kind == "other", frame
