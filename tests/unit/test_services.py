"""Services over the in-memory adapters: indexing, re-indexing and chat fallbacks."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import pytest

from footnote.adapters.hash_embedder import HashEmbedder
from footnote.adapters.memory_jobs import MemoryJobStore
from footnote.adapters.memory_store import MemoryStore
from footnote.adapters.memory_vector_index import MemoryVectorIndex
from footnote.adapters.pubsub_queue import InlineQueue
from footnote.config import Settings
from footnote.domain import IndexState, IndexStatus, NoteChanges
from footnote.errors import BackendUnavailable, NotFound
from footnote.generation.prompt import NOT_ENOUGH
from footnote.ingest.classify import RuleClassifier
from footnote.ports import Generator, Pieces
from footnote.retrieval.corpus import CorpusCache
from footnote.retrieval.retriever import Retriever
from footnote.services.chat import NO_NOTES, ChatService, RagConfig
from footnote.services.indexing import IndexingService, Outcome
from footnote.services.reindexing import ReindexService, parse_request
from tests.factories import NOW, note


class BrokenEmbedder(HashEmbedder):
    def embed_query(self, text: str) -> list[float]:
        # What an embedder raises for a failed backend (errors.UPSTREAM_ERRORS).
        raise BackendUnavailable("embedding service down")


class World:
    def __init__(self, embedder: HashEmbedder | None = None, **settings: Any) -> None:
        self.settings = Settings(
            EMBEDDER="hash",
            NOTE_STORE="memory",
            REINDEX_QUEUE="inline",
            **{k.upper(): v for k, v in settings.items()},
        )
        self.store = MemoryStore()
        self.embedder = embedder or HashEmbedder()
        self.corpora = CorpusCache(self.store)
        index = MemoryVectorIndex(self.corpora)
        self.indexing = IndexingService(
            self.settings, self.store, self.store, self.embedder, RuleClassifier(), index
        )
        self.retriever = Retriever(self.settings, self.corpora, self.embedder, index)
        self.chat = ChatService(
            self.settings,
            self.retriever,
            _quote(),
            self.store,
            lambda: NOW,
            fallback=_quote(),
        )
        self.queue = InlineQueue()
        self.jobs = MemoryJobStore()
        self.reindex = ReindexService(
            self.indexing, self.store, self.store, self.jobs, self.queue, 2
        )

    def add(self, nid: str, text: str, tenant: str = "alice", days_ago: float = 0) -> None:
        self.store.create_note(note(nid, text, tenant, days_ago=days_ago))
        assert self.indexing.index_note(nid).outcome is Outcome.INDEXED


def _quote():
    from footnote.generation.quote import QuoteGenerator

    return QuoteGenerator()


def _cited(answer: str) -> set[str]:
    return set(re.findall(r"\[(N\d+)\]", answer))


def test_index_is_idempotent_and_writes_nothing_when_unchanged() -> None:
    w = World()
    w.add("n1", "We chose Firestore for sync. " * 40)
    version = w.store.tenant_version("alice")
    chunks = {c.chunk_id: c.text for c in w.store.tenant_chunks("alice")}
    for _ in range(3):
        assert w.indexing.index_note("n1").outcome is Outcome.UNCHANGED
    assert w.store.tenant_version("alice") == version
    assert {c.chunk_id: c.text for c in w.store.tenant_chunks("alice")} == chunks


def test_edit_replaces_chunks_and_delete_removes_them() -> None:
    w = World()
    w.add("n1", "Sentence one is here. " * 60)
    assert len(w.store.tenant_chunks("alice")) > 1
    w.store.update_note("alice", "n1", NoteChanges(text="Now it is short."), NOW)
    assert w.indexing.index_note("n1").outcome is Outcome.INDEXED
    assert [c.text for c in w.store.tenant_chunks("alice")] == ["Now it is short."]
    w.store.delete_note("alice", "n1")
    assert w.indexing.index_note("n1").outcome is Outcome.REMOVED
    assert w.store.tenant_chunks("alice") == []
    assert w.indexing.index_note("n1").outcome is Outcome.REMOVED  # a replayed delete


class Exploding(HashEmbedder):
    """An embedder whose document call raises ``error``."""

    def __init__(self, error: Exception) -> None:
        super().__init__()
        self.error = error

    def embed_documents(self, texts: Sequence[str], owner: str | None = None) -> list[list[float]]:
        raise self.error


class RecordingFails(MemoryStore):
    """A store that cannot write index states (its backend down, or a bug in it)."""

    def __init__(self, error: Exception) -> None:
        super().__init__()
        self.error = error

    def set_index_state(self, state: IndexState) -> None:
        raise self.error


def _indexing(w: World, store: MemoryStore) -> IndexingService:
    index = MemoryVectorIndex(CorpusCache(store))
    return IndexingService(w.settings, store, store, w.embedder, RuleClassifier(), index)


def test_failure_marks_the_note_failed_and_reraises() -> None:
    w = World(embedder=Exploding(BackendUnavailable("embedding service down")))
    w.store.create_note(note("n1", "text", "alice"))
    with pytest.raises(BackendUnavailable):
        w.indexing.index_note("n1")
    state = w.store.index_state("n1")
    assert state is not None
    assert (state.status, state.attempts, state.error) == (
        IndexStatus.FAILED,
        1,
        "BackendUnavailable",
    )
    assert w.store.unindexed_note_ids(None, 10) == ["n1"]


@pytest.mark.parametrize("bug", [TypeError("bug"), KeyError("bug"), AttributeError("bug")])
def test_a_bug_in_a_port_call_surfaces_and_is_not_recorded_as_the_notes_failure(
    bug: Exception,
) -> None:
    w = World(embedder=Exploding(bug))
    w.store.create_note(note("n1", "text", "alice"))
    with pytest.raises(type(bug)) as raised:
        w.indexing.index_note("n1")
    assert raised.value is bug
    state = w.store.index_state("n1")
    assert state is not None and (state.status, state.attempts, state.error) == (
        IndexStatus.PENDING,
        0,
        "",
    )
    assert w.store.unindexed_note_ids(None, 10) == ["n1"]  # the sweep still finds it


def test_a_store_that_cannot_record_the_failure_does_not_hide_it() -> None:
    down = BackendUnavailable("embedding service down")
    w = World(embedder=Exploding(down))
    store = RecordingFails(BackendUnavailable("firestore down"))
    store.create_note(note("n1", "text", "alice"))
    with pytest.raises(BackendUnavailable) as raised:
        _indexing(w, store).index_note("n1")
    assert raised.value is down
    assert raised.value.__notes__ == ["recording the failure of n1 failed: BackendUnavailable"]


def test_a_bug_in_recording_the_failure_surfaces_with_the_failure_as_its_context() -> None:
    down = BackendUnavailable("embedding service down")
    w = World(embedder=Exploding(down))
    bug = TypeError("bug in the store")
    store = RecordingFails(bug)
    store.create_note(note("n1", "text", "alice"))
    with pytest.raises(TypeError) as raised:
        _indexing(w, store).index_note("n1")
    assert raised.value is bug and raised.value.__context__ is down


def test_reindex_pages_through_a_tenant_and_survives_duplicate_messages() -> None:
    w = World()
    for i in range(5):
        w.add(f"n{i}", f"Note number {i} about gardening.")
    w.add("x1", "Another tenant's note.", tenant="bob")
    request = parse_request({"scope": "tenant", "tenantId": "alice", "jobId": "j1", "force": True})
    first = w.reindex.handle(request)
    assert (first.processed, first.next_cursor) == (2, "n1")
    duplicate = w.reindex.handle(request)  # the same first message again
    assert duplicate.skipped
    for message in list(w.queue.published):
        w.reindex.handle(parse_request(message))
    second = parse_request({**request.wire(), "cursor": "n1"})
    w.reindex.handle(second)
    third = parse_request({**request.wire(), "cursor": "n3"})
    done = w.reindex.handle(third)
    assert done.next_cursor is None
    job = w.jobs.get("j1")
    assert job is not None and job.done and job.processed == 5


def test_reindex_rejects_malformed_requests() -> None:
    from footnote.errors import BadEvent

    for bad in (
        {},
        {"scope": "tenant"},
        {"scope": "note"},
        {"scope": "galaxy"},
        {"scope": "all", "x": 1},
    ):
        with pytest.raises(BadEvent):
            parse_request(bad)


def test_chat_cites_matching_notes_and_every_marker_has_a_citation() -> None:
    w = World()
    w.add("fire", "We chose Firestore because it syncs in real time.")
    w.add("lunch", "Lunch on Tuesday was ramen.")
    out = w.chat.chat("alice", "Why did we choose Firestore?", None, RagConfig())
    assert out.meta.retrieval.strategy == "hybrid_reranked"
    assert out.citations[0].note_id == "fire"
    assert _cited(out.answer) == {c.cid for c in out.citations}


def test_chat_without_notes_says_so() -> None:
    w = World()
    out = w.chat.chat("alice", "anything?", None, RagConfig())
    assert out.answer == NO_NOTES and out.meta.retrieval.strategy == "none"
    assert out.citations == ()


def test_chat_abstains_when_nothing_matches() -> None:
    w = World()
    w.add("n1", "The cat sleeps on the sofa.")
    out = w.chat.chat("alice", "quarterly revenue projections for Brazil", None, RagConfig())
    assert out.answer == NOT_ENOUGH and out.citations == ()
    assert out.meta.retrieval.matched is False


def test_chat_falls_back_to_keywords_when_the_embedder_is_down() -> None:
    w = World()
    w.add("fire", "We chose Firestore because it syncs in real time.")
    w.retriever = Retriever(w.settings, w.corpora, BrokenEmbedder(), None)
    w.chat = ChatService(w.settings, w.retriever, _quote(), w.store, lambda: NOW, fallback=_quote())
    out = w.chat.chat("alice", "Why Firestore?", None, RagConfig())
    assert out.meta.retrieval.strategy == "keyword_recency"
    assert "embedder_down" in out.meta.fallbacks
    assert out.citations and out.citations[0].note_id == "fire"


def test_chat_falls_back_to_the_quote_answer_when_the_generator_fails() -> None:
    class Failing(Generator):
        model = "gemini-test"

        def execute(self, *a: object, **k: object) -> Pieces:
            raise TimeoutError("deadline exceeded")
            yield ""  # a generator function, as the port's execute is

    w = World()
    w.add("fire", "We chose Firestore because it syncs in real time.")
    w.chat = ChatService(
        w.settings,
        w.retriever,
        Failing(),
        w.store,
        lambda: NOW,
        fallback=_quote(),
    )
    out = w.chat.chat("alice", "Why did we choose Firestore?", None, RagConfig())
    assert "generator_quote" in out.meta.fallbacks
    assert out.citations[0].note_id == "fire"


def test_chat_never_crosses_tenants() -> None:
    w = World()
    w.add("secret", "Alice's secret: the vault code is 4521.", tenant="alice")
    w.add("bob1", "Bob likes hiking.", tenant="bob")
    out = w.chat.chat("bob", "What is the vault code?", None, RagConfig())
    assert all(c.note_id != "secret" for c in out.citations) and "4521" not in out.answer


def test_chat_records_turns_and_sources() -> None:
    w = World()
    w.add("fire", "We chose Firestore because it syncs in real time.")
    out = w.chat.chat("alice", "Why did we choose Firestore?", None, RagConfig())
    turns = w.chat.messages("alice", out.conversation_id)
    assert [t.role for t in turns] == ["user", "assistant"]
    assert w.chat.sources("alice", out.message_id) == out.citations
    with pytest.raises(NotFound):
        w.chat.messages("bob", out.conversation_id)
    with pytest.raises(NotFound):
        w.chat.chat("alice", "q", "no-such-conversation", RagConfig())


def test_include_citations_false_strips_markers() -> None:
    w = World()
    w.add("fire", "We chose Firestore because it syncs in real time.")
    out = w.chat.chat("alice", "Why Firestore?", None, RagConfig(include_citations=False))
    assert "[N" not in out.answer and out.citations == ()


def test_search_meta_reports_time_hints_it_could_not_resolve() -> None:
    world = World()
    world.add("n1", "We shipped the beta and fixed the login bug.")
    meta = world.chat.search("alice", "what did we fix before the launch?", 5).query
    assert meta.window is None
    assert meta.unresolved, meta


def test_the_wiring_gives_chat_its_fallback_generator() -> None:
    from footnote.generation.quote import QuoteGenerator
    from footnote.wiring import Container
    from tests.inproc import settings

    class Failing(Generator):
        model = "gemini-test"

        def execute(self, *a: object, **k: object) -> Pieces:
            raise TimeoutError("deadline exceeded")
            yield ""  # a generator function, as the port's execute is

    class Fallback(QuoteGenerator):
        model = "the-wired-fallback"

    c = Container(settings(), generator=Failing(), fallback_generator=Fallback())
    c.store.create_note(note("fire", "We chose Firestore because it syncs in real time."))
    assert c.indexing.index_note("fire").outcome is Outcome.INDEXED
    out = c.chat.chat("alice", "Why did we choose Firestore?", None, RagConfig())
    assert "generator_quote" in out.meta.fallbacks
    assert out.meta.model == "the-wired-fallback"


class RemovalFails(MemoryVectorIndex):
    """A vector index whose removals raise ``error``."""

    def __init__(self, corpora: CorpusCache, error: Exception) -> None:
        super().__init__(corpora)
        self.error = error

    def remove(self, tenant_id: str, chunk_ids: Sequence[str]) -> None:
        raise self.error


@pytest.mark.parametrize(
    ("error", "status", "kept"),
    [
        # the index down: the vectors left to remove are kept for the redelivery
        (BackendUnavailable("vector index down"), IndexStatus.FAILED, True),
        # a bug: it surfaces as itself, and nothing is recorded for it
        (TypeError("bug in the index"), IndexStatus.DELETED, False),
    ],
)
def test_a_failed_vector_removal_keeps_what_is_left_and_a_bug_surfaces(
    error: Exception, status: IndexStatus, kept: bool
) -> None:
    settings = Settings(EMBEDDER="hash", NOTE_STORE="memory", REINDEX_QUEUE="inline")
    store = MemoryStore()
    index = RemovalFails(CorpusCache(store), error)
    indexing = IndexingService(settings, store, store, HashEmbedder(), RuleClassifier(), index)
    text = " ".join(f"Sentence {k} about the pricing decision and the launch." for k in range(24))
    store.create_note(note("n1", text, "alice"))
    chunks = indexing.index_note("n1").chunk_count
    assert chunks > 1
    store.delete_note("alice", "n1")
    with pytest.raises(type(error)) as raised:
        indexing.index_note("n1")
    assert raised.value is error
    state = store.index_state("n1")
    assert state is not None and (state.status, state.chunk_count) == (status, chunks * kept)
