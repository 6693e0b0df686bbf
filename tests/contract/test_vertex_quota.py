"""RESOURCE_EXHAUSTED from Vertex AI while indexing (issue 23): the embedding endpoint
and Vector Search upserts are quota-limited, and a note must never be marked failed or
dead-lettered because a quota said "slow down". Through the real SDKs (google-genai,
aiplatform_v1 over REST) against the wire fake, which answers 429 with the
RESOURCE_EXHAUSTED envelope as the services do.

- A quota that clears within ``GOOGLE_QUOTA_WAIT_S`` is waited out with capped
  exponential backoff and jitter, past ``GOOGLE_RETRY_ATTEMPTS``: the note is indexed.
- One that outlasts it raises ``QuotaExhausted`` (a ``BackendUnavailable``: the
  function raises, so Eventarc / Pub/Sub deliver again) and leaves the note pending,
  never failed; the redelivery, once the quota is back, indexes it exactly.
- Questions do not wait: a query embedding refused by its quota fails after the
  ordinary attempts and retrieval falls back to keywords.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from footnote.adapters.google_retry import RetryPolicy, is_quota_exhausted
from footnote.api import wire
from footnote.dev.timeouts import scaled
from footnote.domain import IndexStatus
from footnote.errors import BackendUnavailable, QuotaExhausted
from footnote.services.chat import RagConfig
from footnote.services.indexing import Outcome
from footnote.services.reindexing import parse_request
from footnote.wiring import Container
from tests.factories import note
from tests.fakes.google_apis import FakeGoogleApis
from tests.fakes.vertex import INDEX, vertex_settings

TEXT = "We chose Firestore for offline sync because it handles conflicts."
ATTEMPTS = 3  # GOOGLE_RETRY_ATTEMPTS in vertex_settings


def build(google: FakeGoogleApis, **env: Any) -> Container:
    c = Container(vertex_settings(google, **{"GOOGLE_QUOTA_WAIT_S": 20, **env}))
    assert c.settings.google_retry_attempts == ATTEMPTS
    return c


def state(c: Container, note_id: str) -> IndexStatus:
    found = c.store.index_state(note_id)
    assert found is not None
    return found.status


@pytest.mark.parametrize("route", ["predict", "upsert"])
def test_a_quota_that_clears_is_waited_out(google: FakeGoogleApis, route: str) -> None:
    c = build(google)
    c.store.create_note(note("a1", TEXT))
    times = ATTEMPTS + 3  # more refusals than the ordinary attempts allow
    google.fail(route, 429, times=times)
    assert c.indexing.index_note("a1").outcome is Outcome.INDEXED
    assert state(c, "a1") is IndexStatus.INDEXED
    assert len(google.calls(route)) == times + 1
    assert "a1_000" in google.datapoints(INDEX)


@pytest.mark.parametrize("route", ["predict", "upsert"])
def test_a_persistent_quota_hands_the_event_back_and_the_note_stays_pending(
    google: FakeGoogleApis, route: str
) -> None:
    # Long enough for more tries than the ordinary attempts however slow each call is
    # on a loaded machine (at 0.3 s a loaded CI made one call in the budget).
    c = build(google, GOOGLE_QUOTA_WAIT_S=scaled(2.0))
    c.store.create_note(note("a1", TEXT))
    google.fail(route, 429, times=None)
    started = time.monotonic()
    with pytest.raises(QuotaExhausted) as raised:
        c.indexing.index_note("a1")
    assert time.monotonic() - started < min(scaled(10), 50)
    # retriable: what the functions raise back to Eventarc / Pub/Sub, and what the
    # services' fallbacks treat as a dependency that is down
    assert isinstance(raised.value, BackendUnavailable)
    assert is_quota_exhausted(raised.value.__cause__)  # type: ignore[arg-type]
    assert len(google.calls(route)) > ATTEMPTS  # waited past the ordinary attempts
    found = c.store.index_state("a1")
    assert found is not None and found.status is IndexStatus.PENDING
    assert found.attempts == 0  # not counted as a failure
    assert "a1_000" not in google.datapoints(INDEX)

    # The re-index path (Pub/Sub) raises it too: the message is delivered again.
    with pytest.raises(QuotaExhausted):
        c.reindexing.handle(parse_request({"scope": "note", "noteId": "a1"}))
    assert state(c, "a1") is IndexStatus.PENDING

    # The quota comes back; the redelivered event indexes the note, datapoint included
    # (an upsert refused after the chunks were stored is redone, not skipped as
    # "unchanged").
    google.heal(route)
    assert c.indexing.index_note("a1").outcome is Outcome.INDEXED
    assert state(c, "a1") is IndexStatus.INDEXED
    assert set(google.datapoints(INDEX)) == {"a1_000"}
    assert [x.chunk_id for x in c.store.tenant_chunks("alice")] == ["a1_000"]


def test_other_errors_still_mark_the_note_failed(google: FakeGoogleApis) -> None:
    c = build(google)
    c.store.create_note(note("a1", TEXT))
    google.fail("upsert", 503, times=None)
    with pytest.raises(BackendUnavailable) as raised:  # the port's error, the 503 its cause
        c.indexing.index_note("a1")
    assert not isinstance(raised.value, QuotaExhausted)
    assert len(google.calls("upsert")) == ATTEMPTS
    assert state(c, "a1") is IndexStatus.FAILED


def test_a_question_does_not_wait_for_the_quota(google: FakeGoogleApis) -> None:
    c = build(google, GOOGLE_QUOTA_WAIT_S=60)
    c.store.create_note(note("a1", TEXT))
    assert c.indexing.index_note("a1").outcome is Outcome.INDEXED
    google.fail("predict", 429, times=None)
    started = time.monotonic()
    question = "Which database did we choose for offline sync?"
    body = wire.chat(c.chat.chat("alice", question, None, RagConfig()))
    assert time.monotonic() - started < min(scaled(20), 50)  # the attempts, not the 60 s wait
    assert "embedder_down" in body["meta"]["retrieval"]["fallbacks"]
    assert "Firestore" in body["answer"]  # found by its words
    assert len(google.calls("predict")) == 1 + ATTEMPTS  # the chunk, then the question's


# -- the backoff itself ---------------------------------------------------------------


class _Exhausted(Exception):
    code = 429


def _sleeps(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """Record google-api-core's sleeps instead of sleeping."""
    from google.api_core.retry import retry_base, retry_unary

    slept: list[float] = []

    class Clock:
        @staticmethod
        def sleep(seconds: float) -> None:
            slept.append(seconds)

        @staticmethod
        def monotonic() -> float:
            return sum(slept)

    monkeypatch.setattr(retry_unary, "time", Clock)
    monkeypatch.setattr(retry_base, "time", Clock)
    return slept


def test_quota_backoff_is_capped_exponential_with_jitter(monkeypatch: pytest.MonkeyPatch) -> None:
    slept = _sleeps(monkeypatch)
    policy = RetryPolicy(attempts=3, initial_s=1.0, max_s=8.0, quota_wait_s=120.0)
    calls = 0

    def refused_then_ok() -> str:
        nonlocal calls
        calls += 1
        if calls <= 12:
            raise _Exhausted("RESOURCE_EXHAUSTED")
        return "ok"

    assert policy.call("embed", refused_then_ok, wait_out_quota=True) == "ok"
    assert len(slept) == 12
    caps = [min(8.0, 1.0 * 2**n) for n in range(12)]
    assert all(0 <= s <= cap for s, cap in zip(slept, caps, strict=True))
    assert len(set(slept)) > 1  # jittered, not a fixed ladder
    assert max(slept) > 1.0  # and it grew past the first cap


def test_quota_budget_spent_raises_quota_exhausted(monkeypatch: pytest.MonkeyPatch) -> None:
    slept = _sleeps(monkeypatch)
    policy = RetryPolicy(attempts=3, initial_s=1.0, max_s=8.0, quota_wait_s=30.0)

    def refused() -> None:
        raise _Exhausted("RESOURCE_EXHAUSTED")

    with pytest.raises(QuotaExhausted, match="RESOURCE_EXHAUSTED"):
        policy.call("upsert", refused, wait_out_quota=True)
    assert sum(slept) <= 30.0 and len(slept) >= ATTEMPTS
    # without wait_out_quota (a query) a 429 counts as any retryable error
    slept.clear()
    with pytest.raises(_Exhausted):
        policy.call("find", refused)
    assert len(slept) == 2


def test_grpc_resource_exhausted_is_a_quota_error() -> None:
    import grpc
    from google.api_core import exceptions

    assert is_quota_exhausted(exceptions.from_grpc_status(grpc.StatusCode.RESOURCE_EXHAUSTED, "q"))
    assert is_quota_exhausted(exceptions.ResourceExhausted("quota"))
    assert is_quota_exhausted(exceptions.TooManyRequests("quota"))
    assert not is_quota_exhausted(exceptions.ServiceUnavailable("down"))
    assert not is_quota_exhausted(exceptions.InvalidArgument("bad"))


def test_a_deleted_notes_vectors_refused_by_the_quota_are_removed_on_redelivery(
    google: FakeGoogleApis,
) -> None:
    """The chunks go first (in Firestore), then the vectors: a removal the quota
    refuses must not leave the vectors behind once the store has forgotten them."""
    c = build(google, GOOGLE_QUOTA_WAIT_S=0.3)
    c.store.create_note(note("a1", " ".join([TEXT] * 12)))  # several chunks
    assert c.indexing.index_note("a1").outcome is Outcome.INDEXED
    vectors = {cid for cid in google.datapoints(INDEX) if cid.startswith("a1_")}
    assert len(vectors) > 1
    c.store.delete_note("alice", "a1")
    google.fail("remove", 429, times=None)
    with pytest.raises(QuotaExhausted):
        c.indexing.index_note("a1")
    assert state(c, "a1") is IndexStatus.PENDING
    assert vectors <= set(google.datapoints(INDEX))
    google.heal("remove")
    result = c.indexing.index_note("a1")
    assert result.outcome is Outcome.REMOVED and result.removed == len(vectors)
    assert not set(google.datapoints(INDEX)) & vectors
    assert state(c, "a1") is IndexStatus.DELETED
    assert c.indexing.index_note("a1").outcome is Outcome.REMOVED  # a late replay: nothing


def _vault(count: int) -> bytes:
    import io
    import zipfile

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        for i in range(count):
            body = f"---\ntitle: Note {i}\ncreated: 2023-03-0{1 + i}T09:00:00Z\n---\n{TEXT} ({i})\n"
            z.writestr(f"v/n{i}.md", body)
    return buffer.getvalue()


def _import(c: Container, job_id: str, count: int) -> Any:
    name = c.imports.upload("t-imp", f"{job_id}/vault.zip", _vault(count))
    c.imports.start("t-imp", job_id, name)
    return c.imports.run("t-imp", job_id)


def test_an_import_on_vector_search_upserts_each_page_and_waits_out_no_quota_it_cannot(
    google: FakeGoogleApis,
) -> None:
    """With Vector Search the vectors live outside Firestore, so the job writes its
    notes pending and indexes each by the trigger's own write, upserts included; a
    quota that outlasts the wait leaves the rest pending for their trigger events
    (never failed), and the job still finishes."""
    c = build(google, GOOGLE_QUOTA_WAIT_S=0.3, QUOTA_NOTES_PER_DAY=0, QUOTA_STORED_CHARS=0)
    done = _import(c, "j1", 3)
    assert (done.status, done.imported) == ("done", 3)
    notes = [n for n in c.store.notes.values() if n.tenant_id == "t-imp"]  # type: ignore[attr-defined]
    assert {state(c, n.id) for n in notes} == {IndexStatus.INDEXED}
    assert {f"{n.id}_000" for n in notes} <= set(google.datapoints(INDEX))

    google.fail("upsert", 429, times=None)
    more = _import(c, "j2", 5)  # the same three notes (duplicates) and two new ones
    assert (more.status, more.imported, more.duplicates) == ("done", 2, 3)
    fresh = [n for n in c.store.notes.values() if n.tenant_id == "t-imp" and n not in notes]  # type: ignore[attr-defined]
    assert {state(c, n.id) for n in fresh} == {IndexStatus.PENDING}
    google.heal("upsert")
    for n in fresh:  # their trigger events, once the quota is back
        assert c.indexing.index_note(n.id).outcome is Outcome.INDEXED
    assert {f"{n.id}_000" for n in fresh} <= set(google.datapoints(INDEX))
