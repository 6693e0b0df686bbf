"""German compounds indexed and searched with their parts (footnote.proper_nouns's
tagger, read by footnote.text.terms for keyword search)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from footnote.proper_nouns import compound_parts
from footnote.query.analysis import analyze
from footnote.text import indexed_length, stem, terms
from tests.factories import NOW
from tests.unit.test_services import World

ROOT = Path(__file__).resolve().parents[2]


def test_a_compound_s_parts_drop_the_linking_morpheme_and_keep_their_endings() -> None:
    assert compound_parts("Steuernachzahlung", "de") == ("steuer", "nachzahlung")
    assert compound_parts("Küchenabbau", "de") == ("küche", "abbau")  # küche + n + abbau
    # "Liefertermin": liefer + term + in (an ending), read as liefer + termin
    assert compound_parts("Liefertermin", "de") == ("liefer", "termin")
    assert compound_parts("Nachzahlung", "de") == ()  # one part: nothing to add
    assert compound_parts("Steuernachzahlung", "en") == ()  # no tagger for English


def test_keyword_terms_of_german_text_hold_a_long_word_s_parts_beside_it() -> None:
    whole, *parts = (stem(w, "de") for w in ("steuernachzahlung", "steuer", "nachzahlung"))
    for text in ("Die Steuernachzahlung kommt.", "die steuernachzahlung kommt"):
        found = terms(text, language="de", compounds=True)
        assert found[:3] == [whole, *parts], text
    assert terms("Die Steuernachzahlung kommt.", language="de") == [whole, stem("kommt", "de")]
    # short words, acronyms and words of inner capitals are left whole
    assert terms("Haustür", language="de", compounds=True) == [stem("haustur", "de")]
    assert len(terms("STEUERNACHZAHLUNG BahnCardFahrt", language="de", compounds=True)) == 2


def test_english_and_spanish_text_never_load_the_tagger() -> None:
    """Only German text is decompounded: indexing and asking in English or Spanish
    neither imports HanTa nor reads its model (~0.3 s, and memory)."""
    script = """
import sys
from footnote.query.analysis import analyze
from footnote.text import terms
from tests.factories import NOW
from tests.unit.test_services import World

w = World()
w.add("n1", "The Thanksgiving groceries: cranberries, sweetpotatoes, breadcrumbs.")
w.add("n2", "La reunión de vecinos es el jueves; hay que pagar la derrama.")
for question, language in (("What were the Thanksgiving groceries?", "en"),
                           ("¿Cuándo es la reunión de vecinos?", "es")):
    w.retriever.retrieve("alice", analyze(question, NOW, language=language))
assert terms("Counterproductive Housekeeping", compounds=True) == terms(
    "Counterproductive Housekeeping")
assert "HanTa" not in sys.modules, "HanTa was imported"
"""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join((str(ROOT / "shared"), str(ROOT)))}
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-2000:]


def test_a_compound_s_parts_lengthen_no_chunk_and_weigh_less_than_words() -> None:
    """Lucene's "discount overlaps": a part sits where its compound is, so BM25 does
    not count it in the chunk's length (a note of compounds would otherwise lose weight
    on its other words); and a part found weighs less than the word written alone."""
    from footnote.retrieval.sparse import NoteTerms, document_weights, term_id

    text = "Steuerbescheid ist da: Nachzahlung bis April"
    stored = terms(text, language="de", compounds=True, parts_marked=True)
    plain = terms(text, language="de")
    assert len(stored) > len(plain) and indexed_length(stored) == len(plain)
    assert NoteTerms.of([stored]).length == len(plain)

    w = World()
    w.add("n1", text)
    corpus = w.retriever.corpus("alice")
    assert corpus is not None
    assert corpus.lengths[corpus.by_id["n1_000"]] == len(plain)

    def weight(words: list[str], term: str) -> float:
        return document_weights(words, avgdl=6.0, k1=1.2, b=0.75).as_dict()[term_id(term)]

    nachzahl, bescheid = stem("nachzahlung", "de"), stem("bescheid", "de")
    assert weight(stored, nachzahl) == weight(plain, nachzahl)  # as long as without parts
    assert weight(stored, bescheid) < weight([*plain, bescheid], bescheid)


def test_a_note_writing_the_asked_words_alone_outscores_one_compounding_them() -> None:
    """ "Wie viele Schlüssel hat Jonas bei der Übergabe bekommen?" (the everyday set's
    umzug q12): the note titled "Schlüsselübergabe" (the plan) holds both words as
    parts, the answer writes them alone. At a part's full weight the plan's BM25 was
    the higher, and it was the first source."""
    w = World()
    w.add("n1", "Schlüsselübergabe Osterstr.\nMi 1.4. 16:00 mit Fr. Kessler, Jonas fährt hin")
    w.add(
        "n2",
        "Übergabe Osterstr.\nJonas: alles ok. 3 Schlüssel Haustür/Whg, 1 Briefkasten, "
        "1 Keller\nStrom 24.113,6 kWh, Wasser kalt 318,2 m³\nMängel: Kratzer Parkett Flur",
    )
    w.add("n3", "Brandt hat die Hoffmanns genommen!! Mietende jetzt 30.4.")
    question = "Wie viele Schlüssel hat Jonas bei der Übergabe bekommen?"
    corpus = w.retriever.corpus("alice")
    assert corpus is not None
    bm25 = corpus.keyword_scores(analyze(question, NOW, language="de").keywords)
    assert bm25[corpus.by_id["n2_000"]] > bm25[corpus.by_id["n1_000"]] > 0
