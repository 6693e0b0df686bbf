import itertools

import pytest

from footnote.ingest.chunking import chunk_id, chunk_text
from footnote.text import sentences, split_sentences, terms

SENTENCE = "Sentence number {i} talks about topic {i} in some detail."


def _doc(n: int) -> str:
    return " ".join(SENTENCE.format(i=i) for i in range(n))


def test_chunk_id_is_zero_padded() -> None:
    assert chunk_id("abc", 7) == "abc_007"


def test_short_text_is_one_chunk() -> None:
    chunks = chunk_text("Just one sentence.", 450, 75)
    assert [c.text for c in chunks] == ["Just one sentence."]


def test_empty_text_has_no_chunks() -> None:
    assert chunk_text("   ", 450, 75) == []


def test_chunks_respect_size_and_keep_sentences_whole() -> None:
    text = _doc(40)
    chunks = chunk_text(text, 200, 60)
    assert len(chunks) > 5
    for c in chunks:
        assert len(c.text) <= 200
        assert c.text == text[c.start : c.end]
        assert c.text.startswith("Sentence number") and c.text.endswith("detail.")


def test_consecutive_chunks_overlap_by_whole_sentences() -> None:
    chunks = chunk_text(_doc(40), 200, 60)
    for a, b in itertools.pairwise(chunks):
        assert b.start < a.end, "each chunk starts inside the previous one"
        assert a.end - b.start <= 60


def test_every_sentence_lands_in_some_chunk() -> None:
    text = _doc(25)
    joined = " ".join(c.text for c in chunk_text(text, 180, 40))
    for s in sentences(text):
        assert s in joined


def test_overlong_sentence_is_split_at_word_boundaries() -> None:
    text = " ".join(f"word{i}" for i in range(300))  # no sentence end at all
    chunks = chunk_text(text, 100, 20)
    assert len(chunks) > 10
    for c in chunks:
        assert len(c.text) <= 100
        assert not c.text.startswith(" ") and "word" in c.text
    assert chunks[-1].text.endswith("word299")


def test_overlap_must_be_smaller_than_size() -> None:
    with pytest.raises(ValueError):
        chunk_text("x", 50, 50)


def test_positions_are_sequential() -> None:
    assert [c.position for c in chunk_text(_doc(30), 150, 30)] == list(
        range(len(chunk_text(_doc(30), 150, 30)))
    )


def test_sentence_split_handles_abbreviations_and_lists() -> None:
    text = "We met Dr. Smith on Monday. E.g. the plan works.\n- first item\n- second item"
    got = [text[s:e] for s, e in split_sentences(text)]
    assert got[0] == "We met Dr. Smith on Monday."
    assert "- first item" in got and "- second item" in got


def test_a_title_abbreviated_in_any_language_ends_no_sentence() -> None:
    text = "Transferencia al Sr. Gómez hecha. Cita con la Dra. Ruiz el lunes. Hr. Wagner kommt."
    assert sentences(text) == [
        "Transferencia al Sr. Gómez hecha.",
        "Cita con la Dra. Ruiz el lunes.",
        "Hr. Wagner kommt.",
    ]
    # nor does a list item's number
    assert sentences("1. Anmeldung beim Amt\n2. Bank") == ["1. Anmeldung beim Amt", "2. Bank"]
    assert sentences("1.  A") == ["1.  A"]


def test_terms_are_stemmed_content_words() -> None:
    assert terms("The decisions we decided about APIs") == ["decis", "decid", "api"]
    assert "the" not in terms("the THE The")
