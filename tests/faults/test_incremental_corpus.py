"""The in-memory corpus is patched, never rebuilt, and always equals a fresh build.

Notes are written, edited and deleted through the real API and indexer between
queries; after every step, every ranking the corpus serves (dense, keyword with
and without feedback, recency, every mask) is compared with a corpus built from
scratch over the chunks the store holds, and the refresh is checked to have read
only the changed notes' chunks.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from footnote.adapters.hash_embedder import HashEmbedder
from footnote.domain import MemoryType, TimeWindow
from footnote.retrieval.bm25 import Feedback
from footnote.retrieval.corpus import CorpusLoad, build_corpus
from footnote.text import terms
from tests.inproc import Harness

WORDS = (
    "firestore launch pricing churn onboarding budget tomato ferry passport invoice "
    "migration latency index vector search keyword recency decision metric signup "
    "review payment provider march friday weekly standup roadmap design hiring"
).split()


def _text(rng: random.Random) -> str:
    sentences = []
    for _ in range(rng.randint(1, 12)):
        words = rng.choices(WORDS, k=rng.randint(4, 14))
        sentences.append(" ".join(words).capitalize() + ".")
    if rng.random() < 0.3:
        sentences.append("We decided to ship it.")
    return " ".join(sentences)


def _assert_same(patched, fresh, rng: random.Random) -> None:
    assert set(patched.by_id) == set(fresh.by_id)
    assert len(patched) == len(fresh)
    assert patched.events == fresh.events
    assert patched.earliest_created() == fresh.earliest_created()
    assert patched.model_ids == fresh.model_ids
    embedder = HashEmbedder()
    windows = [None, TimeWindow(fresh_start(fresh), None)]
    for _ in range(6):
        question = " ".join(rng.choices(WORDS, k=rng.randint(1, 4)))
        query_terms = terms(question)
        vector = embedder.embed_query(question)
        for window in windows:
            for types in ((), (MemoryType.DECISION,)):
                pm, fm = patched.mask(window, types), fresh.mask(window, types)
                assert pm.sum() == fm.sum()
                everything = len(fresh)  # every masked row, for near-tie checks below
                for name, p_hits, f_all in (
                    (
                        "dense",
                        patched.vector_hits(vector, 30, pm),
                        fresh.vector_hits(vector, everything, fm),
                    ),
                    (
                        "keyword",
                        patched.keyword_hits(query_terms, 30, pm),
                        fresh.keyword_hits(query_terms, everything, fm),
                    ),
                    (
                        "feedback",
                        patched.keyword_hits(query_terms, 30, pm, Feedback(3, 3, 0.5)),
                        fresh.keyword_hits(query_terms, everything, fm, Feedback(3, 3, 0.5)),
                    ),
                    ("recency", patched.recent_hits(30, pm), fresh.recent_hits(everything, fm)),
                ):
                    _assert_same_ranking(
                        name, p_hits, f_all[:30], {h.chunk_id: h.score for h in f_all}
                    )


def _assert_same_ranking(name, p_hits, f_hits, fresh_scores) -> None:
    """The same ranking up to float rounding.

    A matrix-vector product may round a row's dot product differently by one ulp
    depending on where the row sits in the matrix, so two chunks with equal
    vectors (a repeated sentence) can swap between a patched and a fresh corpus.
    Anything else -- a missing, extra, stale or misplaced chunk -- fails.
    """
    p_ids = [h.chunk_id for h in p_hits]
    assert len(p_ids) == len(f_hits) and len(set(p_ids)) == len(p_ids), name
    np.testing.assert_allclose(
        [h.score for h in p_hits], [h.score for h in f_hits], rtol=1e-5, atol=1e-6, err_msg=name
    )
    for position, (chunk_id, expected) in enumerate(zip(p_ids, f_hits, strict=True)):
        if chunk_id == expected.chunk_id:
            continue
        assert chunk_id in fresh_scores, (name, position, chunk_id)
        assert abs(fresh_scores[chunk_id] - expected.score) <= 1e-6 + 1e-5 * abs(expected.score), (
            name,
            position,
            chunk_id,
            expected,
        )


def fresh_start(corpus):
    from datetime import UTC, datetime

    earliest = corpus.earliest_created() or 0.0
    return datetime.fromtimestamp(earliest + 1, UTC)


@pytest.mark.parametrize("seed", [1, 2])
def test_a_patched_corpus_answers_exactly_like_one_built_from_scratch(seed: int) -> None:
    rng = random.Random(seed)
    h = Harness()
    loads: list[CorpusLoad] = []
    # a small compaction threshold is not needed: edits below accumulate removed rows
    h.container.corpora._on_load = lambda tenant, load: loads.append(load)
    live: list[str] = []
    for _ in range(40):  # a notebook to start from, indexed, then loaded once
        note_id = h.add_note("alice", _text(rng), title=rng.choice(["Launch", "", "Weekly"]))
        h.container.indexing.index_note(note_id)
        live.append(note_id)
    h.container.corpora.get("alice")
    assert loads and loads[-1].full
    for _step in range(60):
        roll = rng.random()
        if roll < 0.4 or not live:
            note_id = h.add_note("alice", _text(rng))
            live.append(note_id)
        elif roll < 0.75:
            note_id = rng.choice(live)
            r = h.call("PATCH", f"/notes/{note_id}", "alice", json={"text": _text(rng)})
            assert r.status_code == 200
        else:
            note_id = live.pop(rng.randrange(len(live)))
            assert h.call("DELETE", f"/notes/{note_id}", "alice").status_code == 204
        h.container.indexing.index_note(note_id)
        if rng.random() < 0.2:  # another tenant's writes never reach alice's corpus
            other = h.add_note("bob", _text(rng))
            h.container.indexing.index_note(other)
        loads.clear()
        patched = h.container.corpora.get("alice")
        # Only the changed note's chunks were read: no full load after the first.
        assert loads and not any(load.full for load in loads), loads
        expected_chunks = [c for c in h.store.chunks.values() if c.note_id == note_id]
        assert sum(load.chunks for load in loads) == len(expected_chunks)
        assert sum(load.notes for load in loads) == 1
        fresh = build_corpus(
            [c for c in h.store.chunks.values() if c.tenant_id == "alice"],
            bm25_params=patched.bm25,
        )
        _assert_same(patched, fresh, rng)


def test_compaction_keeps_results_and_reclaims_removed_rows() -> None:
    rng = random.Random(7)
    h = Harness()
    ids = [h.add_note("alice", _text(rng)) for _ in range(30)]
    for note_id in ids:
        h.container.indexing.index_note(note_id)
    corpus = h.container.corpora.get("alice")
    for _ in range(15):  # many edits: removed rows pile up until a compaction
        for note_id in ids:
            h.call("PATCH", f"/notes/{note_id}", "alice", json={"text": _text(rng)})
            h.container.indexing.index_note(note_id)
        corpus = h.container.corpora.get("alice")
    assert corpus.rows - len(corpus) <= max(256, 0.25 * corpus.rows) + len(corpus)
    assert corpus.rows < 15 * len(corpus)  # removed rows were reclaimed along the way
    fresh = build_corpus([c for c in h.store.chunks.values() if c.tenant_id == "alice"])
    _assert_same(corpus, fresh, rng)


def test_a_deleted_note_is_never_cited_even_before_the_indexer_runs() -> None:
    h = Harness()
    keep = h.add_note("alice", "The ferry timetable changes next spring.")
    secret = h.add_note("alice", "The launch date moved to March 14 because review is late.")
    for note_id in (keep, secret):
        h.container.indexing.index_note(note_id)
    asked = h.call("POST", "/chat", "alice", json={"message": "When is the launch?"}).get_json()
    assert secret in {c["noteId"] for c in asked["citations"]}
    assert h.call("DELETE", f"/notes/{secret}", "alice").status_code == 204
    # No indexer run: the delete itself must take the note out of every answer.
    for question in ("When is the launch?", "March 14 launch review"):
        answer = h.call("POST", "/chat", "alice", json={"message": question}).get_json()
        assert secret not in {c["noteId"] for c in answer["citations"]}, answer
        found = h.call("POST", "/search", "alice", json={"query": question}).get_json()
        assert secret not in {r["noteId"] for r in found["results"]}, found


def test_an_edited_note_is_never_cited_with_its_old_text() -> None:
    h = Harness()
    note_id = h.add_note("alice", "The launch date moved to March 14 because review is late.")
    h.container.indexing.index_note(note_id)
    r = h.call("PATCH", f"/notes/{note_id}", "alice", json={"text": "Launch is now in May."})
    assert r.status_code == 200
    found = h.call("POST", "/search", "alice", json={"query": "March 14 launch"}).get_json()
    assert all("March 14" not in r["text"] for r in found["results"]), found
    h.container.indexing.index_note(note_id)
    found = h.call("POST", "/search", "alice", json={"query": "launch"}).get_json()
    assert [r["text"] for r in found["results"]] == ["Launch is now in May."]


class _CountingStore:
    """Counts the chunk documents each store call returns (what a refresh reads)."""

    def __init__(self, inner) -> None:
        self.inner = inner
        self.read: dict[str, int] = {}

    def __getattr__(self, name: str):
        attr = getattr(self.inner, name)
        if name not in ("chunks_of_notes", "tenant_chunk_pages", "notes_changed_since"):
            return attr

        def counted(*a, **kw):
            out = attr(*a, **kw)
            if name == "tenant_chunk_pages":
                out = [page for page in out]
                self.read[name] = self.read.get(name, 0) + sum(len(p) for p in out)
            else:
                self.read[name] = self.read.get(name, 0) + len(out or [])
            return out

        return counted


def test_a_refresh_reads_only_the_changed_notes_chunks(each_store) -> None:
    # On both stores; Firestore in the project no function watches: in the stack's own
    # project the indexer reacted to these writes too, and a refresh re-read its notes.
    chunk_store = each_store
    import uuid

    from footnote.domain import IndexState, IndexStatus, NoteChanges
    from footnote.ingest.pipeline import build_chunks, prepare
    from footnote.retrieval.corpus import CorpusCache
    from tests.factories import NOW, note

    rng = random.Random(3)
    tenant = f"t-{uuid.uuid4().hex[:8]}"
    embedder = HashEmbedder()

    def index(n):
        prepared = prepare(n, embedder.model_id, 450, 75)
        vectors = embedder.embed_documents([d.text for d in prepared.drafts])
        chunks = build_chunks(prepared, MemoryType.NOTE, vectors, embedder.model_id)
        state = IndexState(n.id, n.tenant_id, IndexStatus.INDEXED, prepared.content_hash)
        assert chunk_store.replace_chunks(n, chunks, state) is not None
        return chunks

    notes = [chunk_store.create_note(note(f"{tenant}-{i}", _text(rng), tenant)) for i in range(40)]
    for n in notes:
        index(n)
    counting = _CountingStore(chunk_store)
    cache = CorpusCache(counting)
    corpus = cache.get(tenant)
    total = len(chunk_store.tenant_chunks(tenant))
    assert counting.read == {"tenant_chunk_pages": total}  # cold: everything, once
    # One note edited and re-indexed: the refresh reads that note's chunks and one
    # change-log entry, nothing else.
    counting.read.clear()
    edit = chunk_store.update_note(tenant, notes[5].id, NoteChanges(text=_text(rng)), NOW)
    new_chunks = index(edit.after)
    corpus = cache.get(tenant)
    assert counting.read == {"notes_changed_since": 1, "chunks_of_notes": len(new_chunks)}
    counting.read.clear()
    assert cache.get(tenant) is corpus and counting.read == {}  # nothing moved: no reads
    fresh = build_corpus(chunk_store.tenant_chunks(tenant))
    _assert_same(corpus, fresh, rng)


def test_removed_rows_never_look_like_a_model_migration() -> None:
    h = Harness()
    note_id = h.add_note("alice", "The launch date moved to March 14.")
    other = h.add_note("alice", "The ferry timetable changes next spring.")
    for n in (note_id, other):
        h.container.indexing.index_note(n)
    h.container.corpora.get("alice")  # loaded, so the edit below is a patch
    r = h.call("PATCH", f"/notes/{note_id}", "alice", json={"text": "Launch is now in May."})
    assert r.status_code == 200
    h.container.indexing.index_note(note_id)  # the old row stays until a compaction
    corpus = h.container.corpora.get("alice")
    assert corpus.rows > len(corpus)
    assert corpus.model_ids == {h.container.embedder.model_id}
    found = h.call("POST", "/search", "alice", json={"query": "launch"}).get_json()
    assert "embedding_model_mixed" not in found["meta"]["fallbacks"], found["meta"]


def test_an_emptied_corpus_takes_the_vector_size_of_its_next_chunks() -> None:
    """Every note deleted, then a note embedded by a model with another vector size:
    the patch gives the empty corpus that size, and the new note is found by vector."""
    from dataclasses import replace

    from footnote.adapters.memory_store import MemoryStore
    from footnote.domain import IndexState, IndexStatus
    from footnote.retrieval.corpus import CorpusCache
    from tests.factories import chunk, note

    store = MemoryStore()
    loads: list[CorpusLoad] = []
    cache = CorpusCache(store, on_load=lambda tenant, load: loads.append(load))
    old = store.create_note(note("a", "We chose Firestore.", "t"))
    old_chunk = chunk("a_000", old.text, "t")
    store.replace_chunks(old, [old_chunk], IndexState("a", "t", IndexStatus.INDEXED))
    assert cache.get("t").dimension == len(old_chunk.embedding) != 2
    assert store.delete_note("t", "a")
    store.remove_chunks("a", IndexState("a", "t", IndexStatus.DELETED))
    assert len(cache.get("t")) == 0  # patched to empty, keeping its old size
    new = store.create_note(note("b", "The launch is in March.", "t"))
    small = replace(chunk("b_000", new.text, "t"), embedding=(0.6, 0.8), embedding_model="m2")
    store.replace_chunks(new, [small], IndexState("b", "t", IndexStatus.INDEXED))
    corpus = cache.get("t")
    assert corpus.dimension == 2
    assert loads[-1].full is False  # patched, not loaded again
    hits = corpus.vector_hits((0.6, 0.8), 5, corpus.mask(None, ()))
    # (vectors are held in float16: a unit vector's self-similarity is 1 within 1e-3)
    assert [h.chunk_id for h in hits] == ["b_000"] and abs(hits[0].score - 1.0) < 1e-3
