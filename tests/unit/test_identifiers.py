from lyra_core.identifiers import (
    find_arxiv_ids,
    find_dois,
    find_pmids,
    normalize_arxiv_id,
    normalize_doi,
    normalize_pmid,
    normalize_title,
)
from lyra_core.papers import PaperRecord, canonicalize


def test_doi_forms_normalise_to_one_key():
    forms = [
        "10.1056/NEJMoa1109017",
        "https://doi.org/10.1056/nejmoa1109017",
        "doi: 10.1056/NEJMOA1109017.",
        "http://dx.doi.org/10.1056/NEJMoa1109017",
    ]
    assert {normalize_doi(f) for f in forms} == {"10.1056/nejmoa1109017"}
    assert normalize_doi("not a doi") is None
    # a bracket the DOI opened is part of it; sentence punctuation after it is not
    assert (
        normalize_doi("10.1061/(ASCE)1090-0241(2003)129:11(1054)")
        == "10.1061/(asce)1090-0241(2003)129:11(1054)"
    )
    assert find_dois("(see 10.1061/(ASCE)1090-0241(2003)129:11(1054)).") == [
        "10.1061/(asce)1090-0241(2003)129:11(1054)"
    ]


def test_pmid_and_arxiv_forms():
    assert normalize_pmid("PMID: 0012345") == "12345"
    assert normalize_pmid("https://pubmed.ncbi.nlm.nih.gov/12345/") == "12345"
    assert normalize_pmid("12a45") is None
    assert normalize_arxiv_id("arXiv:1706.03762v5") == "1706.03762"
    assert normalize_arxiv_id("https://arxiv.org/abs/hep-th/9901001v2") == "hep-th/9901001"
    assert normalize_arxiv_id("1706.03762") == "1706.03762"
    assert normalize_arxiv_id("hello") is None


def test_identifiers_found_in_free_text():
    text = (
        "See doi:10.1000/xyz123, also https://doi.org/10.1000/XYZ123 and (10.5555/abc.def). "
        "PMID: 998877; arXiv:2101.00001v2 and https://arxiv.org/pdf/2101.00002"
    )
    assert find_dois(text) == ["10.1000/xyz123", "10.5555/abc.def"]
    assert find_pmids(text) == ["998877"]
    assert find_arxiv_ids(text) == ["2101.00001", "2101.00002"]


def test_title_normalisation_folds_case_accents_and_markup():
    assert (
        normalize_title("Effects of <i>Vitamin D</i> on Bone: a Méta-Analysis!")
        == "effects of vitamin d on bone a meta analysis"
    )


def test_canonicalize_merges_by_any_shared_key_and_keeps_every_source():
    records = [
        PaperRecord(
            source="s2", source_id="a", title="Vitamin D and fracture risk in older adults", doi="10.1000/X"
        ),
        PaperRecord(
            source="openalex",
            source_id="W1",
            title="Vitamin D and Fracture Risk in Older Adults.",
            abstract="Longer abstract text here.",
            pmid="42",
        ),
        PaperRecord(source="local", source_id="z", title="Something else entirely, long enough", pmid="42"),
        PaperRecord(source="local", source_id="q", title="An unrelated paper on sleep and memory"),
    ]
    papers = canonicalize(records)
    assert len(papers) == 2
    merged = papers[0]
    assert merged.doi == "10.1000/x" and merged.pmid == "42"
    assert merged.sources == ["s2:a", "openalex:W1", "local:z"]
    assert merged.abstract == "Longer abstract text here."
    # ids are stable: the same inputs give the same paper ids
    assert [p.paper_id for p in canonicalize(records)] == [p.paper_id for p in papers]


def test_short_titles_alone_do_not_merge_papers():
    records = [
        PaperRecord(source="local", source_id="1", title="Editorial", doi="10.1000/a"),
        PaperRecord(source="local", source_id="2", title="Editorial", doi="10.1000/b"),
    ]
    assert len(canonicalize(records)) == 2


def test_untitled_corpus_records_without_identifiers_are_kept_apart():
    # BEIR-style corpora often leave `title` empty: such lines are papers, known by their corpus id
    records = [
        PaperRecord(source="local", source_id=str(i), title="", abstract=f"Finding number {i} of the trial.")
        for i in range(3)
    ] + [PaperRecord(source="local", source_id="x", title="", abstract=None)]
    papers = canonicalize(records)
    assert len(papers) == 3
    assert len({p.paper_id for p in papers}) == 3
    again = canonicalize(records[:1])
    assert again[0].paper_id == papers[0].paper_id  # stable across runs
