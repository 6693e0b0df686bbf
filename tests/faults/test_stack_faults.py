"""Nothing lost when parts fail - against the running stack.

Faults are injected into the functions host through its test-only ``/_faults``
switch (footnote.dev.faults): the embedder, the vector index or the generator fail
or time out on demand.
"""

from __future__ import annotations

import base64
import json
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
import requests

from footnote.dev.stack import DEAD_LETTER_SUBSCRIPTION
from footnote.dev.timeouts import scaled
from tests.inproc import wait_for

emulator = pytest.mark.emulator


@contextmanager
def faults(stack: Any, spec: dict[str, Any]) -> Iterator[None]:
    r = requests.post(f"{stack.api_url}/_faults", json=spec, timeout=10)
    assert r.status_code == 200, r.text
    try:
        yield
    finally:
        requests.delete(f"{stack.api_url}/_faults", timeout=10).raise_for_status()


def _publish(stack: Any, payload: bytes) -> None:
    from google.cloud import pubsub_v1  # type: ignore[attr-defined]  # no stubs

    publisher = pubsub_v1.PublisherClient()
    topic = publisher.topic_path(stack.project, "footnote-reindex")
    publisher.publish(topic, payload).result(timeout=30)


def _status(user: Any, note_id: str) -> str:
    return str(user.call("GET", f"/notes/{note_id}").json()["indexStatus"])


@pytest.fixture(scope="module")
def indexed_user(stack: Any, new_user: Any) -> Any:
    user = new_user()
    ids = [
        user.add_note("We decided to use Firestore for storage because it syncs to mobile."),
        user.add_note("Launch metrics: 1,240 signups in week one, 38% activated."),
        user.add_note("Decision: the API runs on Cloud Functions; Cloud Run was the runner-up."),
    ]
    user.wait_indexed(*ids)
    user.ids = ids
    return user


@pytest.fixture(scope="module")
def new_user(client: Any) -> Any:  # module-scoped twin of tests/conftest.py's fixture
    from tests.conftest import User

    return lambda: User(client, f"faults-{uuid.uuid4().hex[:10]}@footnote.test")


CASES = [
    ("embedder-error", {"embedder": {"mode": "error"}}, "keyword_recency", {"embedder_down"}),
    (
        "embedder-timeout",
        {"embedder": {"mode": "timeout", "delay": 0.3}},
        "keyword_recency",
        {"embedder_down"},
    ),
    (
        "vector-index-error",
        {"vector_index": {"mode": "error"}},
        "hybrid_reranked_memory_fallback",
        {"vector_index_memory"},
    ),
    (
        "vector-index-timeout",
        {"vector_index": {"mode": "timeout", "delay": 0.3}},
        "hybrid_reranked_memory_fallback",
        {"vector_index_memory"},
    ),
    (
        "generator-error",
        {"generator": {"mode": "error"}},
        "hybrid_reranked",
        {"generator_quote"},
    ),
    (
        "generator-timeout",
        {"generator": {"mode": "timeout", "delay": 0.3}},
        "hybrid_reranked",
        {"generator_quote"},
    ),
    (
        "all-three",
        {
            "embedder": {"mode": "error"},
            "vector_index": {"mode": "error"},
            "generator": {"mode": "error"},
        },
        "keyword_recency",
        {"embedder_down", "generator_quote"},
    ),
]


@emulator
@pytest.mark.parametrize(("name", "spec", "strategy", "expected"), CASES, ids=[c[0] for c in CASES])
def test_a_failing_backend_still_answers_through_the_documented_fallback(
    stack: Any,
    indexed_user: Any,
    name: str,
    spec: dict[str, Any],
    strategy: str,
    expected: set[str],
) -> None:
    question = f"Why did we decide to use Firestore? ({name})"  # fresh text: no query cache hit
    with faults(stack, spec):
        r = indexed_user.call("POST", "/chat", json={"message": question})
        assert r.status_code == 200, r.text
        body = r.json()
        s = indexed_user.call("POST", "/search", json={"query": question})
        assert s.status_code == 200, s.text
        tripped = requests.get(f"{stack.api_url}/_faults", timeout=10).json()["tripped"]
    reachable = set(spec) - ({"vector_index"} if "embedder" in spec else set())  # no query vector
    assert reachable <= set(tripped), tripped  # the fault really fired
    meta = body["meta"]
    assert meta["retrieval"]["strategy"] == strategy
    assert expected <= set(meta["fallbacks"]), meta["fallbacks"]
    assert body["citations"], body  # still a cited answer
    assert all(c["noteId"] in indexed_user.ids for c in body["citations"])
    if "embedder" in spec or "vector_index" in spec:
        assert expected - {"generator_quote"} <= set(s.json()["meta"]["fallbacks"])


@emulator
def test_indexer_failure_is_retried_marked_failed_and_swept(stack: Any, new_user: Any) -> None:
    user = new_user()
    with faults(stack, {"embedder": {"mode": "error"}}):
        ids = [
            user.add_note(f"Sweep test {i}: the quarterly budget review is on Tuesday {i}.")
            for i in range(5)
        ]
        wait_for(lambda: all(_status(user, i) == "failed" for i in ids), 60, "notes marked failed")
        # A delivery that fails answers 5xx, so Eventarc retries it (raise, don't swallow).
        from tests.faults.exactness import event_headers

        name = f"projects/{stack.project}/databases/(default)/documents/notes/{ids[0]}"
        import base64

        from google.events.cloud.firestore import Document, DocumentEventData

        body = base64.b64encode(
            DocumentEventData.serialize(DocumentEventData(value=Document(name=name)))
        )
        r = requests.post(
            f"{stack.api_url}/indexer/",
            data=body,
            timeout=30,
            headers=event_headers(stack.project, ids[0], "retry-1"),
        )
        assert r.status_code >= 500
    assert all(_status(user, i) == "failed" for i in ids)
    # The backend is back: one sweep message re-indexes every pending or failed note.
    job = f"sweep-{uuid.uuid4().hex[:8]}"
    _publish(stack, json.dumps({"scope": "unindexed", "jobId": job}).encode())
    wait_for(lambda: all(_status(user, i) == "indexed" for i in ids), 120, "sweep")
    answer = user.chat("When is the quarterly budget review?")
    assert {c["noteId"] for c in answer["citations"]} <= set(ids) and answer["citations"]


@emulator
def test_poison_reindex_message_is_dead_lettered_and_the_others_complete(
    stack: Any, new_user: Any, firestore_client: Any
) -> None:
    user = new_user()
    ids = [user.add_note(f"Dead-letter neighbour {i}: the llama is named Pablo.") for i in range(4)]
    user.wait_indexed(*ids)
    marker = uuid.uuid4().hex
    # One poison message: with several failing at once, the emulator (google-cloud-cli 528)
    # was seen to stop redelivering after 3 attempts and never dead-letter them. The other
    # poison shapes are covered in process by test_every_poison_shape_raises_for_redelivery.
    poison = [json.dumps({"scope": "galaxy", "marker": marker}).encode()]
    good_job = f"good-{marker[:8]}"
    base = f"http://127.0.0.1:{stack.ports.pubsub}/v1/projects/{stack.project}"
    for p in poison:  # one publish request each
        requests.post(
            f"{base}/topics/footnote-reindex:publish",
            timeout=30,
            json={"messages": [{"data": base64.b64encode(p).decode()}]},
        ).raise_for_status()
    time.sleep(1)
    _publish(
        stack,
        json.dumps(
            {"scope": "tenant", "tenantId": user.uid, "jobId": good_job, "force": True}
        ).encode(),
    )
    for note_id in ids[:2]:
        _publish(stack, json.dumps({"scope": "note", "noteId": note_id, "force": True}).encode())

    seen: dict[bytes, int] = {}
    deadline = time.monotonic() + 120
    while len(seen) < len(poison) and time.monotonic() < deadline:
        pulled = requests.post(
            f"{base}/subscriptions/{DEAD_LETTER_SUBSCRIPTION}:pull",
            json={"maxMessages": 50, "returnImmediately": True},
            timeout=30,
        ).json()
        ack = []
        for m in pulled.get("receivedMessages", []):
            ack.append(m["ackId"])
            data = base64.b64decode(m["message"].get("data", ""))
            if marker.encode() in data:
                seen[data] = int(
                    m["message"]
                    .get("attributes", {})
                    .get("CloudPubSubDeadLetterSourceDeliveryCount", "0")
                )
        if ack:
            requests.post(
                f"{base}/subscriptions/{DEAD_LETTER_SUBSCRIPTION}:acknowledge",
                json={"ackIds": ack},
                timeout=30,
            )
        time.sleep(1)
    assert set(seen) == set(poison), f"dead-lettered: {len(seen)} of {len(poison)}"
    assert all(count >= stack.max_delivery_attempts for count in seen.values()), seen
    job_ref = firestore_client.collection("reindexJobs").document(good_job)
    wait_for(lambda: job_ref.get().exists and job_ref.get().get("done"), 90, "good re-index job")
    assert job_ref.get().get("processed") == 4
    assert all(_status(user, i) == "indexed" for i in ids)


@emulator
def test_restarting_firestore_mid_ingest_loses_no_note(stack: Any, new_user: Any) -> None:
    """Clients keep saving notes while the Firestore emulator goes down and comes back
    (trigger registration, in-flight events and indexer transactions are lost with it).
    Every note the API acknowledged exists afterwards, and after one sweep every note
    is indexed.

    The emulator keeps its data only in memory, so the restart exports it and imports
    it again; the clients pause just for the export-and-stop step (a gate) so that no
    write is acknowledged between the snapshot and the stop - production Firestore is
    durable, the emulator is not."""
    user = new_user()
    acked: list[str] = []
    errors: list[int] = []
    failures: list[str] = []
    gate = threading.Condition()
    state = {"writers": 0, "frozen": False}
    stop = threading.Event()
    # Bounded: the notes/day quota (1,000) is per user, and writers that ran on past
    # a failed test into later ones were seen to reach it.
    most = 400

    def writer(w: int) -> None:
        session = requests.Session()
        i = 0
        while not stop.is_set() and len(acked) < most:
            with gate:
                if not gate.wait_for(lambda: not state["frozen"] or stop.is_set(), 120):
                    failures.append(f"writer {w}: the gate stayed shut")
                    return
                if stop.is_set():
                    return
                state["writers"] += 1
            try:
                r = session.post(
                    f"{stack.api_url}/notes",
                    timeout=scaled(30),
                    headers={"Authorization": f"Bearer {user.token}"},
                    json={"text": f"Bulk note {w}-{i}: the deploy window is at {i} pm."},
                )
                if r.status_code == 201:
                    acked.append(r.json()["id"])
                    i += 1
                else:
                    errors.append(r.status_code)
                    if r.status_code not in (500, 503):
                        failures.append(f"writer {w}: {r.status_code} {r.text[:200]}")
                        return
                    time.sleep(0.2)
            except requests.RequestException:
                errors.append(0)
                time.sleep(0.2)
            finally:
                with gate:
                    state["writers"] -= 1
                    gate.notify_all()

    threads = [threading.Thread(target=writer, args=(w,), daemon=True) for w in range(4)]
    for t in threads:
        t.start()
    try:
        wait_for(lambda: len(acked) >= 30 or bool(failures), 60, "ingest under way")
        with gate:
            state["frozen"] = True
            gate.wait_for(lambda: state["writers"] == 0, scaled(60))
            assert state["writers"] == 0, "a write did not finish before the snapshot"
            try:
                snapshot = stack.stop_firestore(snapshot=True)
            finally:
                state["frozen"] = False
                gate.notify_all()
        during = len(acked)
        time.sleep(2)  # Firestore is down: writes fail or wait; the clients retry
        stack.start_firestore(snapshot)
        wait_for(
            lambda: len(acked) >= min(during + 30, most) or bool(failures),
            120,
            "ingest resumes after the restart",
        )
    finally:
        # The writers never outlive the test: each stops before its next request,
        # and one request lasts at most its (scaled) timeout.
        stop.set()
        with gate:
            gate.notify_all()
        for t in threads:
            t.join(timeout=scaled(45))
        if not stack.alive("firestore"):  # a failure mid-restart: the next tests need it
            stack.start_firestore()
    assert not [t for t in threads if t.is_alive()], "writer threads still running"
    assert not failures, failures
    assert len(acked) == len(set(acked))
    # Every acknowledged note is there ...
    wait_for(lambda: user.call("GET", "/healthz").status_code == 200, 30, "api")
    listed: set[str] = set()
    cursor = None
    while True:
        params = {"limit": 100, **({"cursor": cursor} if cursor else {})}
        page = user.call("GET", "/notes", params=params).json()
        listed |= {n["id"] for n in page["notes"]}
        cursor = page["cursor"]
        if not cursor:
            break
    assert set(acked) <= listed, f"{len(set(acked) - listed)} acknowledged notes lost"
    # ... and after one sweep, every note is indexed.
    _publish(
        stack,
        json.dumps({"scope": "unindexed", "jobId": f"restart-{uuid.uuid4().hex[:8]}"}).encode(),
    )
    pending = set(listed)

    def settled() -> bool:
        for note_id in list(pending):
            if _status(user, note_id) == "indexed":
                pending.discard(note_id)
        return not pending

    wait_for(settled, 180, f"sweep after restart ({len(pending)} pending)", interval=1)


@pytest.mark.parametrize(
    "data",
    [
        b"not json at all",
        b"[1, 2]",
        b'{"scope": "galaxy"}',
        b'{"scope": "note"}',
        b'{"scope": "tenant"}',
        b'{"scope": "all", "extra": 1}',
        b"\xff\xfe",
        b"",
    ],
)
def test_every_poison_shape_raises_for_redelivery(
    data: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The re-indexer raises (so Pub/Sub redelivers, then dead-letters) - never swallows."""
    import footnote.wiring
    from footnote.entrypoints import handle_reindex_message
    from tests.inproc import Harness

    monkeypatch.setattr(footnote.wiring, "_container", Harness().container)
    from footnote.errors import BadEvent

    event = {"message": {"data": base64.b64encode(data).decode(), "messageId": "1"}}

    class Event:
        def __init__(self, d: Any) -> None:
            self.data = d

    with pytest.raises(BadEvent):
        # A stand-in for the CloudEvent: the handler reads only ``.data``.
        handle_reindex_message(Event(event))  # type: ignore[arg-type]
