"""The real services (indexing, re-indexing, retrieval, chat) over the in-memory stores,
with every model and index port on its Vertex AI adapter, aimed at the wire fake.
Proves the switch is configuration only, and that each failure degrades as promised:
Vector Search down → the in-memory index; Gemini down or slow → the quote
answer; ranking down → the retrieval order; each named in ``meta``."""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

import pytest

from footnote.adapters.memory_store import MemoryStore
from footnote.adapters.pubsub_queue import InlineQueue
from footnote.api import wire
from footnote.config import Settings
from footnote.dev.timeouts import scaled
from footnote.domain import Strategy
from footnote.errors import BackendUnavailable
from footnote.generation.quote import MODEL_NAME as QUOTE
from footnote.services.answering import folded
from footnote.services.chat import RagConfig
from footnote.services.indexing import Outcome
from footnote.services.reindexing import ReindexRequest, parse_request
from footnote.wiring import Container
from tests.factories import note
from tests.fakes.google_apis import FakeGoogleApis
from tests.fakes.vertex import INDEX, vertex_settings

# A reply this slow is the service hanging: the deadlines under test are far below it,
# and the bounds on how long a request took scale with the machine's load.
SLOW_REPLY_S = 40.0

NOTES = {
    "alice": [
        ("a1", "We chose Firestore for offline sync because it handles conflicts.", 2),
        ("a2", "Customer feedback: the onboarding flow is confusing.", 5),
        ("a3", "Weekly active users grew to 1,200 in October.", 20),
    ],
    "bob": [
        ("b1", "We chose Postgres for billing because of transactions.", 1),
    ],
}
QUESTION = "Which database did we choose for offline sync?"


def build(google: FakeGoogleApis, store: MemoryStore | None = None, **env: Any) -> Container:
    c = Container(vertex_settings(google, **env), **({"store": store} if store else {}))
    assert isinstance(c.queue, InlineQueue)

    def handler(message: Mapping[str, Any]) -> None:
        c.reindexing.handle(parse_request(message))

    c.queue.handler = handler
    return c


def fill(c: Container) -> None:
    for tenant, notes in NOTES.items():
        for nid, text, days_ago in notes:
            c.store.create_note(note(nid, text, tenant, days_ago=days_ago))
            assert c.indexing.index_note(nid).outcome is Outcome.INDEXED


def ask(c: Container, tenant: str = "alice", question: str = QUESTION) -> Mapping[str, Any]:
    return wire.chat(c.chat.chat(tenant, question, None, RagConfig()))


def restricts(datapoint: Mapping[str, Any]) -> dict[str, list[str]]:
    return {r["namespace"]: r.get("allowList", []) for r in datapoint.get("restricts", [])}


def test_the_production_flow_end_to_end(google: FakeGoogleApis) -> None:
    c = build(google)
    fill(c)
    body = ask(c)
    meta = body["meta"]
    assert meta["model"] == "gemini-2.5-flash" and meta["fallbacks"] == []
    assert meta["retrieval"]["strategy"] == Strategy.HYBRID and meta["retrieval"]["fallbacks"] == []
    assert "Firestore" in body["answer"] and body["citations"]
    assert {x["noteId"] for x in body["citations"]} <= {"a1", "a2", "a3"}

    # indexing: classified by Gemini, embedded as documents, upserted with restricts
    assert len(google.calls("generate")) >= 5  # 4 classifications + the answer
    upserted = [d for call in google.calls("upsert") for d in call.body["datapoints"]]
    owner = {nid: tenant for tenant, notes in NOTES.items() for nid, _, _ in notes}
    assert upserted and all(
        restricts(d)["tenant"] == [owner[d["datapointId"].rsplit("_", 1)[0]]]
        and restricts(d)["model"] == [c.embedder.model_id]
        for d in upserted
    )
    # the query: embedded as a query, sent with the tenant's restrict
    assert google.calls("predict")[-1].body["instances"][0]["task_type"] == "RETRIEVAL_QUERY"
    (find,) = google.calls("find")
    assert restricts(find.body["queries"][0]["datapoint"])["tenant"] == ["alice"]
    # bob asks the same and never sees alice's notes
    other = ask(c, "bob")
    assert {x["noteId"] for x in other["citations"]} <= {"b1"}
    assert restricts(google.calls("find")[-1].body["queries"][0]["datapoint"])["tenant"] == ["bob"]


def test_switching_backends_changes_only_the_adapters(google: FakeGoogleApis) -> None:
    offline = Container(
        Settings.model_validate(
            {"NOTE_STORE": "memory", "EMBEDDER": "hash", "REINDEX_QUEUE": "inline"}
        )
    )
    vertex = build(google)
    for c in (offline, vertex):
        fill(c)
        assert ask(c)["citations"]
    for part in ("indexing", "retriever", "chat", "reindexing", "store"):
        assert type(getattr(offline, part)) is type(getattr(vertex, part))
    for port in ("raw_embedder", "vector_index", "generator", "classifier"):
        assert type(getattr(offline, port)) is not type(getattr(vertex, port))


def test_deleting_a_note_removes_its_datapoints(google: FakeGoogleApis) -> None:
    c = build(google)
    fill(c)
    assert "a1_000" in google.datapoints(INDEX)
    c.store.delete_note("alice", "a1")
    assert c.indexing.index_note("a1").outcome is Outcome.REMOVED
    assert google.calls("remove")[-1].body["datapointIds"] == ["a1_000"]
    assert "a1_000" not in google.datapoints(INDEX)


@pytest.mark.parametrize("failure", ["5xx", "timeout"])
def test_vector_search_down_falls_back_to_the_memory_index(
    google: FakeGoogleApis, failure: str, caplog: pytest.LogCaptureFixture
) -> None:
    c = build(google, VECTOR_SEARCH_TIMEOUT_MS=200)
    fill(c)
    if failure == "5xx":
        google.fail("find", 503, times=None)
    else:
        google.delay("find", SLOW_REPLY_S)
    started = time.monotonic()
    body = ask(c)
    # the 200 ms deadline and the retries, not the slow reply (bounds scale with the load)
    assert time.monotonic() - started < min(scaled(6), SLOW_REPLY_S - 5)
    retrieval = body["meta"]["retrieval"]
    assert "vector_index_memory" in retrieval["fallbacks"]
    assert "vector_index_memory" in body["meta"]["fallbacks"]
    # still dense (exact search over the tenant's chunks), and the strategy says which index
    assert retrieval["strategy"] == Strategy.HYBRID_MEMORY_FALLBACK
    assert "Firestore" in body["answer"] and body["citations"]
    assert "using in-memory index" in caplog.text
    if failure == "5xx":
        assert len(google.calls("find")) == c.settings.google_retry_attempts


def test_unconfigured_vector_search_refuses_to_start(google: FakeGoogleApis) -> None:
    """VECTOR_INDEX=vertex without the index ids used to start and silently answer
    from one instance's memory; now the settings refuse, naming what is missing."""
    from pydantic import ValidationError

    with pytest.raises(ValidationError, match="VERTEX_INDEX_ENDPOINT, VERTEX_DEPLOYED_INDEX_ID"):
        build(google, VERTEX_INDEX_ENDPOINT="", VERTEX_DEPLOYED_INDEX_ID="")


def test_vector_search_429_is_retried_without_a_fallback(google: FakeGoogleApis) -> None:
    c = build(google)
    fill(c)
    google.fail("find", 429, times=2)
    body = ask(c)
    assert body["meta"]["fallbacks"] == [] and len(google.calls("find")) == 3


@pytest.mark.parametrize("failure", ["5xx", "timeout", "empty"])
def test_gemini_down_or_slow_answers_with_the_quote_answer(
    google: FakeGoogleApis, failure: str
) -> None:
    c = build(google, CHAT_TIMEOUT_MS=300)
    fill(c)
    if failure == "5xx":
        google.fail("generate", 500, times=None)
    elif failure == "timeout":
        google.delay("generate", SLOW_REPLY_S)
    else:  # a blocked or empty answer
        google.answer = lambda body: ""
    started = time.monotonic()
    body = ask(c)
    assert time.monotonic() - started < min(scaled(1.5), SLOW_REPLY_S - 5)
    assert body["meta"]["model"] == QUOTE
    assert body["meta"]["fallbacks"] == ["generator_quote"]
    assert "Firestore" in body["answer"] and body["citations"]


def test_gemini_429_is_retried_without_a_fallback(google: FakeGoogleApis) -> None:
    c = build(google)
    fill(c)
    google.fail("generate", 429, times=1)
    body = ask(c)
    assert body["meta"]["model"] == "gemini-2.5-flash" and body["meta"]["fallbacks"] == []


def test_embeddings_down_at_query_time_fall_back_to_keywords(google: FakeGoogleApis) -> None:
    c = build(google)
    fill(c)
    google.fail("predict", 503, times=None)
    body = ask(c, question="Which database did we choose for offline sync, really?")
    assert "embedder_down" in body["meta"]["retrieval"]["fallbacks"]
    assert "Firestore" in body["answer"]


def test_the_ranking_stage_reorders_and_falls_back(google: FakeGoogleApis) -> None:
    # every candidate passes the gate, so several chunks reach the ranking stage
    c = build(google, RERANKER="vertex", RETRIEVAL_MIN_SIMILARITY=-1, RETRIEVAL_MIN_CONFIDENCE=0)
    fill(c)
    # the "model" ranks the records in reverse of the retrieval order
    google.rank_scores = lambda query, records: {r["id"]: i for i, r in enumerate(records)}
    question = "Tell me about the onboarding flow"
    body = ask(c, question=question)
    (call,) = google.calls("rank")
    assert call.body["query"] == question
    retrieved = [r["id"] for r in call.body["records"]]
    assert sorted(retrieved) == ["a1_000", "a2_000", "a3_000"]
    assert body["meta"]["fallbacks"] == [] and "rerankMs" in body["meta"]["timings"]
    # the ranked order is the order the generator sees
    prompt = "".join(p["text"] for p in google.calls("generate")[-1].body["contents"][0]["parts"])
    texts = {f"{nid}_000": text for notes in NOTES.values() for nid, text, _ in notes}
    positions = [prompt.index(texts[cid]) for cid in reversed(retrieved)]
    assert positions == sorted(positions)

    google.fail("rank", 503, times=None)
    failed = ask(c, question=question)
    assert "reranker_skipped" in failed["meta"]["fallbacks"]
    assert "reranker_skipped" in failed["meta"]["retrieval"]["fallbacks"]
    assert failed["citations"]  # the answer still comes, in retrieval order


def test_ranking_off_sends_nothing(google: FakeGoogleApis) -> None:
    c = build(google)
    fill(c)
    ask(c)
    assert google.calls("rank") == []


# -- model migration -------------------------------------------------------------------


def _reindex_all(c: Container) -> None:
    c.reindexing.start(ReindexRequest(scope="all"))


def test_a_model_change_reindexes_every_tenant_and_never_mixes(google: FakeGoogleApis) -> None:
    store = MemoryStore()
    old = build(google, store)
    fill(old)
    old_id = old.embedder.model_id
    assert old_id == "vertex:gemini-embedding-001:768"
    new = build(google, store, EMBEDDING_MODEL="text-embedding-005", REINDEX_PAGE_SIZE=2)
    new._built["term_stats"] = old.term_stats  # one Firestore collection in production
    new_id = new.embedder.model_id
    assert new_id == "vertex:text-embedding-005:768"

    # Before the re-index, the new model's queries never meet the old vectors: the
    # dense query is restricted to the new model, and the old chunks are found by
    # their words alone (their vectors withheld).
    google.requests.clear()
    before = ask(new)
    assert "embedding_model_mixed" in before["meta"]["retrieval"]["fallbacks"]
    assert before["citations"]
    finds = google.calls("find")
    assert finds
    for f in finds:
        for q in f.body["queries"]:
            if q["datapoint"].get("featureVector"):
                assert restricts(q["datapoint"])["model"] == [new_id]

    # Half-way (one note moved): the index holds both models, queries see only one.
    new.indexing.index_note("a1")
    models = {restricts(d_raw)["model"][0] for d_raw in _raw_datapoints(google)}
    assert models == {old_id, new_id}
    hits = new.vector_index.search(
        _query(new, "alice", "Which database did we choose for offline sync?")
    )
    assert [h.chunk_id for h in hits] == ["a1_000"]

    # One re-index request moves every tenant.
    google.requests.clear()
    _reindex_all(new)
    assert {c.embedding_model for t in NOTES for c in store.tenant_chunks(t)} == {new_id}
    assert {restricts(d)["model"][0] for d in _raw_datapoints(google)} == {new_id}
    assert {c.body["parameters"]["outputDimensionality"] for c in google.calls("predict")} == {768}
    assert all("text-embedding-005" in c.path for c in google.calls("predict"))

    after = ask(new)
    assert after["meta"]["retrieval"]["fallbacks"] == [] and after["citations"]
    finds = google.calls("find")
    assert finds and all(
        restricts(f.body["queries"][0]["datapoint"])["model"] == [new_id] for f in finds
    )


def test_a_dimension_change_is_refused_by_the_index(google: FakeGoogleApis) -> None:
    """A new dimension needs a new Vector Search index (infra: embedding_dimension);
    the old index refuses the vectors and the note is marked failed, not mixed."""
    store = MemoryStore()
    fill(build(google, store))
    new = build(google, store, EMBEDDING_DIMENSION=256)
    with pytest.raises(BackendUnavailable) as raised:  # the port's error, the API's 400 its cause
        new.indexing.index_note("a1")
    assert getattr(raised.value.__cause__, "code", None) == 400
    state = store.index_state("a1")
    assert state is not None and state.status.value == "failed"


def _raw_datapoints(google: FakeGoogleApis) -> list[dict[str, Any]]:
    return [
        {
            "restricts": [
                {"namespace": ns, "allowList": sorted(allow)}
                for ns, (allow, _deny) in p.restricts.items()
            ]
        }
        for p in google.datapoints(INDEX).values()
    ]


def _query(c: Container, tenant: str, text: str):
    from footnote.ports import VectorQuery

    return VectorQuery(tenant, c.embedder.embed_query(text), 10)


@pytest.mark.parametrize("stream", [False, True])
def test_check_grounding_checks_each_sentence_once_per_chat(
    google: FakeGoogleApis, stream: bool
) -> None:
    c = build(google, GROUNDER="vertex")
    fill(c)
    # a faithful sentence, and one with the wrong number: the model wrote both, citing N1
    google.answer = lambda body: (
        "We chose Firestore for offline sync [N1]. It handles conflicts [N1]. "
        "Weekly active users grew to 9,000 in October [N1]."
    )
    google.grounding_scores = lambda claim, facts: [0.0 if "9,000" in claim else 0.9] * len(facts)
    indexed = len(google.calls("generate"))  # the notes' classifications
    if stream:
        out = folded(c.chat.chat_stream("alice", QUESTION, None, RagConfig()))
    else:
        out = c.chat.chat("alice", QUESTION, None, RagConfig())
    assert "Firestore" in out.answer and "9,000" not in out.answer
    assert all(cit.support == 0.9 for cit in out.citations)
    # each sentence was sent once, streamed or not, whatever validated it after
    claims = [call.body["answerCandidate"] for call in google.calls("check")]
    assert sorted(claims) == sorted(
        [
            "We chose Firestore for offline sync.",
            "It handles conflicts.",
            "Weekly active users grew to 9,000 in October.",
        ]
    )
    # the answer, and at most one strict regeneration
    assert len(google.calls("generate")) - indexed + len(google.calls("stream")) <= 2
    assert out.meta.fallbacks == ()


def test_check_grounding_down_checks_the_answer_offline(google: FakeGoogleApis) -> None:
    c = build(google, GROUNDER="vertex")
    fill(c)
    google.fail("check", 503, times=None)
    body = ask(c)
    assert body["citations"] and "grounding_local" in body["meta"]["fallbacks"]
