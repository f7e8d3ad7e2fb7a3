from lyra_core.fragments import fragment_id_for, make_fragments, split_sentences


def test_sentences_keep_abbreviations_decimals_and_initials_together():
    text = (
        "Smith et al. reported a 2.5-fold rise (p < 0.05). Doses, e.g. 800 IU, were tested. "
        "J. Doe disagreed! Was it real? Yes."
    )
    assert split_sentences(text) == [
        "Smith et al. reported a 2.5-fold rise (p < 0.05).",
        "Doses, e.g. 800 IU, were tested.",
        "J. Doe disagreed!",
        "Was it real?",
        "Yes.",
    ]


def test_windows_cover_every_sentence_with_stable_ids():
    text = "One is here. Two is here. Three is here. Four is here. Five is here."
    frags = make_fragments("pg_1", text, window=2, stride=2)
    covered = " ".join(f.text for f in frags)
    for n in ("One", "Two", "Three", "Four", "Five"):
        assert n in covered
    assert frags[-1].text.endswith("Five is here.")
    assert [f.position for f in frags] == list(range(len(frags)))
    again = make_fragments("pg_1", text, window=2, stride=2)
    assert [f.fragment_id for f in frags] == [f.fragment_id for f in again]
    assert frags[0].fragment_id == fragment_id_for("pg_1", frags[0].text)
    assert make_fragments("pg_2", text, window=2, stride=2)[0].fragment_id != frags[0].fragment_id


def test_short_text_is_one_fragment_and_empty_text_none():
    assert [f.text for f in make_fragments("p", "Only one sentence.", window=3, stride=1)] == [
        "Only one sentence."
    ]
    assert make_fragments("p", "   ") == []


def test_long_fragments_are_cut_at_a_word():
    frag = make_fragments("p", "word " * 500, max_chars=100)[0]
    assert len(frag.text) <= 100 and not frag.text.endswith(" ")
