"""A follow-up is read in what was just said: the passages the previous answer cited.

"Which florist did we go with?" → "Wildroot … [N1]", then "what's the price?": the
price meant is Wildroot's, though another florist's note says "price" more often.
The plan carries the cited chunk ids (``focus``), retrieval keeps them among the
sources with the previous answer's lead first, and the generator's preference for
the first source then answers from it.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from typing import Any

import numpy as np
import pytest

from footnote.adapters.hash_embedder import HashEmbedder
from footnote.config import Settings
from footnote.domain import Chunk, Hit, Note, Turn
from footnote.generation.quote import QuoteGenerator
from footnote.query.analysis import analyze, is_follow_up, with_previous
from footnote.query.follow_ups import as_stated
from footnote.query.plan import plan, read_in
from footnote.retrieval import pipeline
from footnote.retrieval.candidates import CandidateRequest, Candidates, with_chunks
from footnote.retrieval.retriever import Retriever
from footnote.services.results import ChatOutcome, RagConfig
from footnote.text import terms
from footnote.wiring import Container
from tests.factories import NOW, chunk
from tests.inproc import Harness, settings

S = Settings(EMBEDDER="hash", NOTE_STORE="memory", REINDEX_QUEUE="inline")
Q = [1.0, 0.0]

FLORISTS = [
    ("Florist: going with Wildroot, loose meadow style. Quote 4,200 euros.", 5),
    (
        "Florist: Petal and Stem, classic roses. Quote 3,100 euros. "
        "Price includes delivery and price of the arch.",
        4,
    ),
]


def _turns(*cited: str) -> list[Turn]:
    """A question and an answer citing the chunk ids ``cited``, in that order."""
    asked = Turn("m1", "c1", "alice", "user", "Which florist did we go with?", NOW)
    records = tuple(
        {"cid": f"N{i + 1}", "noteId": c.split("_")[0], "chunkId": c} for i, c in enumerate(cited)
    )
    answered = Turn("m2", "c1", "alice", "assistant", "Wildroot [N1].", NOW, records)
    return [asked, answered]


# -- the plan ---------------------------------------------------------------------------
def test_a_follow_up_carries_the_passages_the_previous_answer_cited_in_its_order() -> None:
    read = plan("how much was it?", NOW, {}, _turns("wild_000", "notes_002"))
    assert read.follow_up
    assert read.focus == ("wild_000", "notes_002")


def test_only_a_follow_up_about_what_was_said_carries_them() -> None:
    earlier = _turns("wild_000")
    # a new person is a new subject
    assert plan("What about Melanie?", NOW, {}, earlier).focus == ()
    # a question that stands alone, in the same conversation
    alone = plan(
        "Which caterer quoted the vegetarian menu for the wedding dinner?", NOW, {}, earlier
    )
    assert not alone.follow_up and alone.focus == ()
    # the same words with no conversation behind them
    assert plan("how much was it?", NOW, {}).focus == ()
    # an answer that cited nothing (it declined) gives nothing to read in
    assert plan("how much was it?", NOW, {}, _turns()).focus == ()


def test_a_bare_name_asks_the_previous_question_of_that_person() -> None:
    asked = Turn("m1", "c1", "alice", "user", "What's Linda's phone number?", NOW)
    answered = Turn("m2", "c1", "alice", "assistant", "Linda Ortiz 414-555-0142 [N1].", NOW)
    read = plan("and Ray's?", NOW, {}, [asked, answered])
    assert read.follow_up and read.question == "What's Ray's phone number?"
    painted = Turn("m1", "c1", "alice", "user", "What did Caroline paint?", NOW)
    assert plan("What about Melanie?", NOW, {}, [painted]).question == "What did Melanie paint?"
    # an owner stands for an owner, a person for a person
    kindergarten = Turn("m1", "c1", "alice", "user", "Who ran Juno's puppy class?", NOW)
    assert plan("and Adolescent Manners?", NOW, {}, [kindergarten]).question == (
        "and Adolescent Manners?"
    )
    # a follow-up saying more than a name is read as asked
    assert plan("and Ray's shifts?", NOW, {}, [asked, answered]).question == "and Ray's shifts?"


def test_a_model_rewritten_follow_up_carries_them_too() -> None:
    class Rewriter(QuoteGenerator):
        def rewrite_question(self, message: str, history: Sequence[tuple[str, str]]) -> str:
            return "How much does the florist cost?"

    read = plan("how much was it?", NOW, {}, _turns("wild_000"), Rewriter())
    assert read.question == "How much does the florist cost?" and read.focus == ("wild_000",)


# -- the ranking ------------------------------------------------------------------------
def _found(vectors: dict[str, list[float]]) -> Candidates:
    ids = list(vectors)
    ranked = sorted(ids, key=lambda c: -float(np.dot(vectors[c], Q)))
    return Candidates(
        keyword=[],
        vector=[Hit(c, float(np.dot(vectors[c], Q))) for c in ranked],
        row={c: i for i, c in enumerate(ids)},
        vectors=np.array([vectors[c] for c in ids], dtype=np.float32),
        comparable=np.array([True] * len(ids)),
    )


def test_the_lead_is_picked_first_whatever_its_support_and_the_rest_by_their_score() -> None:
    found = _found(
        {"best": [1.0, 0.0], "good": [0.9, 0.436], "said": [0.3, 0.954], "aside": [0.0, 1.0]}
    )
    plain = pipeline.rank(found, Q, 4, "hybrid", S)
    assert [p.chunk_id for p in plain.picks] == ["best", "good", "said"]  # "aside": no support
    ranking = pipeline.rank(found, Q, 4, "hybrid", S, focus=["said", "aside"])
    # the lead above everything; the answer's other citation where its score places it,
    # here last: a wrong second citation is not promoted over what this question finds
    assert [p.chunk_id for p in ranking.picks] == ["said", "best", "good", "aside"]
    assert all("focus" in p.sources for p in ranking.picks if p.chunk_id in ("said", "aside"))
    assert ranking.picks[3].similarity == pytest.approx(0.0)
    # another citation that outscores the lead goes before it
    ranking = pipeline.rank(found, Q, 4, "hybrid", S, focus=["aside", "said"])
    assert [p.chunk_id for p in ranking.picks] == ["said", "aside", "best", "good"]


def test_a_chunk_no_list_found_becomes_a_candidate_with_its_stored_vector() -> None:
    said = chunk("said_000", "Quote 4,200 euros.")
    dim = len(said.embedding)
    found = Candidates(
        row={"best": 0},
        vectors=np.eye(1, dim, dtype=np.float32),
        comparable=np.array([True]),
    )
    extended = with_chunks(found, [said], said.embedding_model)
    assert extended.row == {"best": 0, "said_000": 1} and bool(extended.comparable[1])
    assert np.allclose(extended.vectors[1], said.embedding)
    # a vector another model made is kept apart: never compared with the query's
    other = with_chunks(found, [said], "another-model")
    assert not bool(other.comparable[1])
    assert with_chunks(extended, [said], said.embedding_model) is extended  # known already
    # with no candidates at all (a window that hides everything), it is the only one
    alone = with_chunks(Candidates(), [said], said.embedding_model)
    assert alone.row == {"said_000": 0} and alone.vectors.shape == (1, dim)


def test_a_near_duplicate_of_the_focus_is_not_picked_again() -> None:
    found = _found({"said": [1.0, 0.0], "copy": [1.0, 0.0], "other": [0.8, 0.6]})
    ranking = pipeline.rank(found, Q, 3, "hybrid", S, focus=["said"])
    assert [p.chunk_id for p in ranking.picks] == ["said", "other"]


# -- the retriever, over a tenant's corpus ----------------------------------------------
def _world(notes: list[tuple[str, int]]) -> Harness:
    h = Harness()
    for i, (text, days_ago) in enumerate(notes):
        when = NOW - timedelta(days=days_ago)
        h.store.create_note(Note(f"n{i}", "alice", text, when, when))
    h.index_all()
    return h


def test_the_retriever_reads_the_focus_first_even_when_the_words_find_other_notes() -> None:
    h = _world(
        [
            ("Boiler serviced, next service due in March.", 9),
            *FLORISTS,
            ("Arch price confirmed today.", 0),
        ]
    )
    retriever = h.container.retriever
    analysis = analyze("what's the price of the arch?", NOW)
    plain = retriever.retrieve("alice", analysis)
    assert "n0" not in [c.chunk.note_id for c in plain.chunks]
    focused = retriever.retrieve("alice", analysis, focus=["n0_000"])
    assert focused.chunks[0].chunk.note_id == "n0"
    # a follow-up about another period reads that period's notes, not the old one
    dated = analyze("what's the price of the arch today?", NOW)
    assert dated.window is not None
    elsewhere = retriever.retrieve("alice", dated, focus=["n0_000"])
    assert [c.chunk.note_id for c in elsewhere.chunks] == ["n3"]


class IndexLike:
    """A source that answers like a managed index: only its neighbours are candidates,
    and any chunk of the tenant is read by id."""

    name = "vertex"

    def __init__(self) -> None:
        self.found = chunk("deck_000", "Pitch deck v3: the market slide needs a bottom-up TAM.")
        self.said = chunk("round_000", "Raising 1.5M, Sofia is in for 50k.", days_ago=2)

    def candidates(self, request: CandidateRequest) -> Candidates:
        vector = np.asarray(self.found.embedding, dtype=np.float32)
        return Candidates(
            keyword=[Hit("deck_000", 2.0)],
            vector=[Hit("deck_000", 0.9)],
            row={"deck_000": 0},
            vectors=vector.reshape(1, -1),
            comparable=np.array([True]),
        )

    def read(self, tenant_id: str, chunk_ids: Sequence[str]) -> dict[str, Chunk]:
        known = {c.chunk_id: c for c in (self.found, self.said)}
        return {cid: known[cid] for cid in chunk_ids if cid in known}


def test_any_source_reads_the_focus_through_its_port() -> None:
    retriever = Retriever.over(S, HashEmbedder(), [IndexLike()])
    analysis = analyze("what does the market slide need?", NOW)
    assert [c.chunk.chunk_id for c in retriever.retrieve("alice", analysis).chunks] == ["deck_000"]
    focused = retriever.retrieve("alice", analysis, focus=["round_000", "gone_000"])
    # the lead first; a cited chunk since deleted ("gone") is simply not there
    assert [c.chunk.chunk_id for c in focused.chunks] == ["round_000", "deck_000"]
    assert "focus" in focused.chunks[0].sources


# -- a conversation, end to end ---------------------------------------------------------
def _ask(h: Harness, message: str, conversation: str | None = None) -> dict[str, Any]:
    return h.ask("alice", message, conversation)


def test_a_follow_up_is_answered_from_the_note_the_previous_answer_cited() -> None:
    h = _world(FLORISTS)
    first = _ask(h, "Which florist did we go with?")
    assert [c["noteId"] for c in first["citations"]] == ["n0"], first["answer"]
    follow = _ask(h, "what's the price?", first["conversationId"])
    assert follow["meta"]["followUp"] is True
    # the note in focus is quoted first
    assert follow["citations"][0]["noteId"] == "n0", follow["answer"]
    assert "4,200" in follow["answer"].split("\n\n")[0], follow["answer"]


@pytest.mark.parametrize("streamed", [False, True])
def test_plain_and_streamed_follow_ups_read_the_same_focus(streamed: bool) -> None:
    app = Container(settings(), clock=lambda: NOW)
    for i, (text, days_ago) in enumerate(FLORISTS):
        when = NOW - timedelta(days=days_ago)
        app.store.create_note(Note(f"n{i}", "alice", text, when, when))
        app.indexing.index_note(f"n{i}")
    first = app.chat.chat("alice", "Which florist did we go with?", None, RagConfig())
    if streamed:
        *_, out = app.chat.chat_stream(
            "alice", "what's the price?", first.conversation_id, RagConfig()
        )
    else:
        out = app.chat.chat("alice", "what's the price?", first.conversation_id, RagConfig())
    assert isinstance(out, ChatOutcome)
    assert "4,200" in out.answer and out.citations[0].note_id == "n0", out.answer


# -- the words a follow-up inherits, as the passages in focus state them -----------------
LUCCA = "Lucca: dinner for 2, 148 euros incl. tip, booked for 8pm."


def test_inherited_words_the_cited_passage_does_not_hold_are_dropped_its_own_kept() -> None:
    own = analyze("and what time was the table booked for?", NOW)
    previous = analyze("How much did the anniversary dinner at Lucca cost?", NOW)
    merged = with_previous(own, previous)
    inherited = tuple(k for k in merged.keywords if k not in own.keywords)
    assert "anniversari" in inherited and "cost" in inherited
    stated = as_stated(merged, inherited, set(terms(LUCCA)))
    # the follow-up's own words stay, even those the passage lacks ("time", "tabl")
    assert stated.keywords == (*own.keywords, "dinner", "lucca")
    assert stated.window == merged.window and stated.normalized == merged.normalized
    # nothing read in focus: nothing dropped
    assert as_stated(merged, inherited, set()) is merged


def test_a_plan_is_read_in_its_focus_only_for_an_offline_follow_up() -> None:
    earlier = _turns("n0_000")
    earlier[0] = Turn(
        "m1", "c1", "alice", "user", "How much did the anniversary dinner at Lucca cost?", NOW
    )
    read = plan("and what time was the table booked for?", NOW, {}, earlier)
    assert read.focus == ("n0_000",) and "anniversari" in read.inherited
    assert "anniversari" not in read_in(read, set(terms(LUCCA))).analysis.keywords
    alone = plan("and what time was the table booked for?", NOW, {})
    assert read_in(alone, set(terms(LUCCA))) is alone


@pytest.mark.parametrize("streamed", [False, True])
def test_a_follow_up_is_not_held_to_the_words_its_note_never_used(streamed: bool) -> None:
    app = Container(settings(), clock=lambda: NOW)
    notes = [LUCCA, "Mia opens the shop on Tuesdays.", "Dentist on Friday at 9am."]
    for i, text in enumerate(notes):
        when = NOW - timedelta(days=i + 1)
        app.store.create_note(Note(f"n{i}", "alice", text, when, when))
        app.indexing.index_note(f"n{i}")
    first = app.chat.chat(
        "alice", "How much did the anniversary dinner at Lucca cost?", None, RagConfig()
    )
    assert "148 euros" in first.answer
    # "anniversary" and "cost" were the asker's words, not the note's: without them the
    # note's one sentence covers the follow-up ("booked", "dinner", "Lucca")
    message = "and what time was the table booked for?"
    if streamed:
        *_, out = app.chat.chat_stream("alice", message, first.conversation_id, RagConfig())
    else:
        out = app.chat.chat("alice", message, first.conversation_id, RagConfig())
    assert isinstance(out, ChatOutcome)
    assert "8pm" in out.answer and [c.note_id for c in out.citations] == ["n0"], out.answer


def test_the_elliptical_follow_ups_people_ask_are_read_as_follow_ups() -> None:
    for message in ("against who?", "how much was it?", "when did it get delivered?"):
        assert is_follow_up(message, analyze(message, NOW)), message


def test_a_follow_ups_it_is_what_the_previous_answer_named() -> None:
    # One note holds both florists: the passage in focus is the same for either price,
    # and "how much was it?" shares no word with the chosen one's line. The name the
    # answer gave ("Camélia") is what "it" stands for.
    app = Container(settings(), clock=lambda: NOW)
    text = (
        "Flor de Lis: €5,800, very classic, lots of roses\n"
        "Atelier Camélia: €4,900, wild and seasonal\n"
        "→ Going w/ Camélia, fits the brief"
    )
    written = NOW - timedelta(days=2)
    app.store.create_note(Note("n0", "alice", text, written, written, title="Florist comparison"))
    app.indexing.index_note("n0")
    first = app.chat.chat("alice", "Which florist did we go with?", None, RagConfig())
    assert "Camélia" in first.answer
    follow = app.chat.chat("alice", "how much was it?", first.conversation_id, RagConfig())
    # "it" is the florist the answer named: her lines are quoted, the other's not
    assert "Camélia" in follow.answer and "Flor de Lis" not in follow.answer, follow.answer
    # a follow-up that names its own subject inherits no names from the answer
    other = plan("what about Flor de Lis?", NOW, {}, _turns("n0_000"))
    assert "camélia" not in other.analysis.keywords
