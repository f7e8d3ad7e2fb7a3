"""Lyra reads every Evidence Inference abstract whole, with or without section labels."""

from lyra_training.selector_data import read_ei_abstract as read_abstract


def test_an_abstract_without_section_labels_is_read_after_its_title(shared_data):
    folder = shared_data / "nli_training" / "evidence_inference" / "abstracts"
    title, abstract = read_abstract(folder / "PMC5982050.abst")
    assert title.startswith("Evaluation of a Pilot School-Based Physical Activity")
    assert (
        abstract.startswith("Schools are key environments") and "Skelmersdale" not in abstract.split(".")[0]
    )


def test_a_labelled_abstract_keeps_its_title_whole_and_drops_the_labels(shared_data):
    folder = shared_data / "nli_training" / "evidence_inference" / "abstracts"
    labelled = next(p for p in sorted(folder.glob("*.abst")) if "\nABSTRACT" in p.read_text(errors="replace"))
    title, abstract = read_abstract(labelled)
    assert title and abstract and "ABSTRACT" not in abstract and "TITLE" not in title
