"""Fail fast, fail clearly: settings that cannot work refuse to start with one line; a
bad event is acknowledged, never retried; a fallback takes the SDK's and the
network's errors and lets a bug surface as a bug."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from cloudevents.http import CloudEvent
from pydantic import ValidationError

from footnote import ports
from footnote.config import Settings, SettingsError, get_settings
from footnote.domain import Fallback, ScoredChunk
from footnote.errors import BackendUnavailable, BadEvent
from footnote.services.chat import RagConfig
from footnote.wiring import Container
from tests.factories import note
from tests.inproc import settings

VERTEX_IDS = {
    "VERTEX_INDEX": "projects/p/locations/l/indexes/1",
    "VERTEX_INDEX_ENDPOINT": "projects/p/locations/l/indexEndpoints/2",
    "VERTEX_DEPLOYED_INDEX_ID": "footnote",
}


# -- settings ---------------------------------------------------------------------------


@pytest.fixture
def environment(monkeypatch: pytest.MonkeyPatch) -> Any:
    """Set environment variables for get_settings(), whose cache is cleared around."""
    for name in ("K_SERVICE", "VECTOR_INDEX", "GOOGLE_CLOUD_PROJECT", *VERTEX_IDS):
        monkeypatch.delenv(name, raising=False)
    get_settings.cache_clear()
    yield monkeypatch.setenv
    get_settings.cache_clear()


def test_vertex_index_without_its_ids_refuses_to_start_with_one_line(environment: Any) -> None:
    environment("GOOGLE_CLOUD_PROJECT", "footnote-prod")
    environment("VECTOR_INDEX", "vertex")
    environment("VERTEX_INDEX", VERTEX_IDS["VERTEX_INDEX"])
    with pytest.raises(SettingsError) as refused:
        get_settings()
    message = str(refused.value)
    assert "\n" not in message
    assert "VECTOR_INDEX=vertex needs VERTEX_INDEX_ENDPOINT, VERTEX_DEPLOYED_INDEX_ID" in message
    for name, value in VERTEX_IDS.items():
        environment(name, value)
    get_settings.cache_clear()
    assert get_settings().vector_index == "vertex"


@pytest.mark.parametrize(
    ("env", "refused"),
    [
        ({"K_SERVICE": "footnote-api"}, True),  # deployed with the default project
        ({"K_SERVICE": "footnote-api", "GOOGLE_CLOUD_PROJECT": "demo-anything"}, True),
        ({"K_SERVICE": "footnote-api", "GOOGLE_CLOUD_PROJECT": "footnote-prod"}, False),
        ({}, False),  # locally the demo project is the emulators' project
    ],
)
def test_a_placeholder_project_refuses_to_start_outside_the_emulator(
    environment: Any, env: dict[str, str], refused: bool
) -> None:
    for name, value in env.items():
        environment(name, value)
    if refused:
        with pytest.raises(SettingsError, match=r"placeholder .* outside the emulator") as raised:
            get_settings()
        assert "\n" not in str(raised.value)
    else:
        assert get_settings().project_id == env.get("GOOGLE_CLOUD_PROJECT", "demo-footnote")


def test_settings_errors_are_validation_errors_for_direct_construction() -> None:
    with pytest.raises(ValidationError, match="VECTOR_INDEX=vertex needs"):
        Settings.model_validate({"VECTOR_INDEX": "vertex"})


# -- events -----------------------------------------------------------------------------


def _event(data: bytes) -> CloudEvent:
    return CloudEvent(
        {
            "id": "ev-1",
            "type": "google.cloud.firestore.document.v1.written",
            "source": "//firestore.googleapis.com/projects/demo-footnote/databases/(default)",
            "subject": "documents/notes/n1",
            "specversion": "1.0",
        },
        data,
    )


def test_an_undecodable_protobuf_is_a_bad_event() -> None:
    from footnote.adapters.firestore_events import decode

    with pytest.raises(BadEvent, match="not a Firestore DocumentEventData"):
        decode(_event(b"\x0a\xff\xff\xff"))  # a field tag, then a length past the end


def test_the_indexer_acknowledges_a_bad_event_and_logs_it(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    import footnote.wiring
    from footnote.entrypoints import handle_note_event

    monkeypatch.setattr(footnote.wiring, "_container", Container(settings()))
    with caplog.at_level(logging.ERROR, logger="footnote.functions"):
        handle_note_event(_event(b"\x0a\xff\xff\xff"))  # returned, not raised: acknowledged
    assert "dropping undecodable Firestore event" in caplog.text


# -- fallbacks ----------------------------------------------------------------------------


class Generator(ports.Generator):
    """A generator that fails with ``error`` (a stand-in for Gemini)."""

    model = "gemini-test"

    def __init__(self, error: Exception) -> None:
        self.error = error

    def execute(self, *a: object, **k: object) -> ports.Pieces:
        raise self.error
        yield ""  # a generator function, as the port's execute is


class Reranker:
    name = "test-ranker"

    def __init__(self, error: Exception) -> None:
        self.error = error

    def rerank(self, query: str, chunks: list[ScoredChunk]) -> list[ScoredChunk]:
        raise self.error


def _container(**parts: Any) -> Container:
    c = Container(settings(), **parts)
    for nid, text in (
        ("fire", "We chose Firestore because it syncs in real time."),
        ("pg", "We considered Postgres for the sync service but chose Firestore."),
    ):
        c.store.create_note(note(nid, text))
        c.indexing.index_note(nid)
    return c


def _ask(c: Container) -> Any:
    return c.chat.chat("alice", "Why did we choose Firestore?", None, RagConfig()).meta


@pytest.mark.parametrize(
    "error",
    [BackendUnavailable("Gemini: 503"), TimeoutError("deadline"), ConnectionError("reset")],
)
def test_the_generator_fallback_takes_sdk_and_network_errors(error: Exception) -> None:
    meta = _ask(_container(generator=Generator(error)))
    assert Fallback.GENERATOR_QUOTE in meta.fallbacks


@pytest.mark.parametrize("error", [TypeError("bug"), KeyError("bug"), AttributeError("bug")])
def test_a_generator_bug_surfaces(error: Exception) -> None:
    with pytest.raises(type(error)):
        _ask(_container(generator=Generator(error)))


def test_the_reranker_fallback_takes_network_errors_and_a_bug_surfaces() -> None:
    meta = _ask(_container(reranker=Reranker(OSError("unreachable"))))
    assert Fallback.RERANKER_SKIPPED in meta.fallbacks
    with pytest.raises(ZeroDivisionError):
        _ask(_container(reranker=Reranker(ZeroDivisionError())))


def test_the_google_adapters_turn_sdk_errors_into_backend_unavailable() -> None:
    from google.api_core.exceptions import ServiceUnavailable
    from google.genai.errors import ServerError

    from footnote.adapters.google_retry import unavailable_on_sdk_errors

    for sdk_error in (ServiceUnavailable("down"), ServerError(503, {"error": {}})):
        with pytest.raises(BackendUnavailable) as raised, unavailable_on_sdk_errors("call"):
            raise sdk_error
        assert raised.value.__cause__ is sdk_error
    with pytest.raises(KeyError), unavailable_on_sdk_errors("call"):
        raise KeyError("a bug is not an outage")
    with pytest.raises(TimeoutError), unavailable_on_sdk_errors("call"):
        raise TimeoutError("the network's errors pass as they are")


class _FailingClient:
    """A Firestore client whose every collection raises what ``fail`` makes."""

    def __init__(self, fail: Any) -> None:
        self.fail = fail

    def collection(self, name: str) -> Any:
        raise self.fail()


def _failing(fail: Any) -> Any:  # stands in for a google.cloud.firestore.Client
    return _FailingClient(fail)


def _exhausted_transaction() -> ValueError:
    """What the SDK raises when a transaction lost to other writers for all its attempts."""
    from google.api_core.exceptions import Aborted

    try:
        raise Aborted("contention")
    except Aborted as aborted:
        try:
            raise ValueError("Failed to commit transaction in 5 attempts.") from aborted
        except ValueError as exc:
            return exc


def test_the_firestore_adapters_raise_their_ports_errors_and_a_bug_passes() -> None:
    """What lets the indexer and imports catch ``errors.PORT_ERRORS`` alone."""
    from google.api_core.exceptions import ServiceUnavailable

    from footnote.adapters.firestore_chunks import FirestoreChunkStore
    from footnote.adapters.firestore_term_stats import FirestoreTermStats
    from footnote.domain import IndexState, IndexStatus
    from footnote.errors import PORT_ERRORS, Contention

    state = IndexState("n1", "alice", IndexStatus.PENDING)
    down = ServiceUnavailable("firestore down")
    store = FirestoreChunkStore(_failing(lambda: down))
    with pytest.raises(BackendUnavailable) as raised:
        store.set_index_state(state)
    assert raised.value.__cause__ is down
    with pytest.raises(BackendUnavailable):  # a method that yields: as it runs
        next(store.tenant_chunk_pages("alice"))
    with pytest.raises(BackendUnavailable):
        FirestoreTermStats(_failing(lambda: down)).read("alice")
    with pytest.raises(Contention):
        FirestoreChunkStore(_failing(_exhausted_transaction)).set_index_state(state)
    assert issubclass(Contention, PORT_ERRORS) and issubclass(BackendUnavailable, PORT_ERRORS)
    bug = KeyError("a bug is not an outage")
    with pytest.raises(KeyError) as passed:
        FirestoreChunkStore(_failing(lambda: bug)).set_index_state(state)
    assert passed.value is bug
    plain = ValueError("our own ValueError, no SDK cause")
    with pytest.raises(ValueError) as passed_too:
        FirestoreChunkStore(_failing(lambda: plain)).set_index_state(state)
    assert passed_too.value is plain
