"""Exact indexing against the running stack: 500 notes written through the API
(creates, edits, deletes), each Firestore event delivered three times - once by
the emulator's real trigger and twice more replayed to the indexer, shuffled and
concurrent with the writes. Afterwards Firestore holds exactly the chunks a fresh
index of the final notes would: same ids, texts, terms, vectors; no orphans, no
duplicates, every note's index state "indexed" with the final content hash."""

from __future__ import annotations

import base64
import random
import time
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
import requests
from google.events.cloud.firestore import Document, DocumentEventData

from footnote.adapters.cached_embedder import cache_key
from footnote.adapters.firestore_store import FirestoreStore
from footnote.ingest.classify import RuleClassifier
from footnote.ingest.pipeline import prepare
from footnote.text import terms
from tests.faults.exactness import event_headers, stored_notes, tenant_docs
from tests.faults.test_exact_indexing import text

pytestmark = pytest.mark.emulator
MODEL = "local:all-MiniLM-L6-v2:384"


def _replay(stack: Any, session: requests.Session, note_id: str, kind: str, event_id: str) -> None:
    name = f"projects/{stack.project}/databases/(default)/documents/notes/{note_id}"
    data = DocumentEventData(
        value=Document(name=name) if kind != "deleted" else None,
        old_value=Document(name=name) if kind != "created" else None,
    )
    body = base64.b64encode(DocumentEventData.serialize(data))
    # Eventarc redelivers an event its function answered 5xx (the indexer raises on
    # a transient failure, e.g. contention on the note's chunks); so does this test.
    for attempt in range(5):
        r = session.post(
            f"{stack.api_url}/indexer/",
            data=body,
            timeout=120,
            headers=event_headers(stack.project, note_id, event_id),
        )
        if r.status_code < 500:
            break
        time.sleep(0.5 * 2**attempt)
    assert r.status_code == 200, r.text


def _wait_quiet(
    firestore_client: Any,
    uid: str,
    expected_hash: dict[str, str],
    deleted: set[str],
    timeout: float = 240,
) -> None:
    deadline = time.monotonic() + timeout
    wrong: list[str] = []
    while time.monotonic() < deadline:
        states = {s.id: s.to_dict() for s in tenant_docs(firestore_client, "indexState", uid)}
        wrong = [
            i
            for i, h in expected_hash.items()
            if states.get(i, {}).get("status") != "indexed" or states[i].get("contentHash") != h
        ]
        wrong += [i for i in deleted if states.get(i, {}).get("status") not in ("deleted",)]
        if not wrong:
            return
        time.sleep(1)
    raise AssertionError(f"{len(wrong)} notes not settled, e.g. {wrong[:3]}")


def test_500_notes_three_deliveries_each_shuffled_equal_a_fresh_index(
    stack: Any, new_user: Any, firestore_client: Any
) -> None:
    user = new_user()
    rng = random.Random(6)
    sessions = [requests.Session() for _ in range(6)]
    events: list[tuple[str, str]] = []

    def call(i: int, method: str, path: str, **kw: Any) -> Any:
        for _attempt in range(5):
            r = sessions[i % len(sessions)].request(
                method,
                f"{stack.api_url}{path}",
                headers={"Authorization": f"Bearer {user.token}"},
                timeout=120,
                **kw,
            )
            # Two edits of one note can meet: the loser gets 503 contention with
            # Retry-After (nothing stored) and a client retries, as this one does.
            if r.status_code != 503:
                break
            assert r.json()["error"]["code"] == "contention", r.text
            time.sleep(float(r.headers["Retry-After"]))
        assert r.status_code in (200, 201, 204), r.text
        return r

    texts = [text(random.Random(i), f"S{i}") for i in range(500)]
    with ThreadPoolExecutor(max_workers=6) as pool:
        ids = list(
            pool.map(
                lambda i: call(i, "POST", "/notes", json={"text": texts[i]}).json()["id"],
                range(500),
            )
        )
    events += [(i, "created") for i in ids]
    edited = rng.sample(ids, 150)
    deleted = set(
        rng.sample([i for i in ids if i not in edited], 60)
    )  # a PATCH after a DELETE is a 404
    changes = (
        [("PATCH", i) for i in edited]
        + [("PATCH", i) for i in edited[:40]]
        + [("DELETE", i) for i in deleted]
    )
    rng.shuffle(changes)
    first_wave = [(n, k, f"r{j}") for j in range(2) for n, k in events]
    rng.shuffle(first_wave)

    def change(item: tuple[int, tuple[str, str]]) -> tuple[str, str]:
        j, (method, note_id) = item
        if method == "PATCH":
            call(
                j,
                "PATCH",
                f"/notes/{note_id}",
                json={"text": text(random.Random(j + 10_000), f"P{j}")},
            )
            return note_id, "updated"
        call(j, "DELETE", f"/notes/{note_id}")
        return note_id, "deleted"

    with ThreadPoolExecutor(max_workers=8) as pool:
        # Replays of the creates race with the edits and deletes that follow them.
        replays = [
            pool.submit(_replay, stack, sessions[k % 6], n, kind, f"{eid}-{k}")
            for k, (n, kind, eid) in enumerate(first_wave)
        ]
        later = list(pool.map(change, enumerate(changes)))
        for f in replays:
            f.result()
    second_wave = [(n, k, f"s{j}") for j in range(2) for n, k in later]
    rng.shuffle(second_wave)
    with ThreadPoolExecutor(max_workers=6) as pool:
        list(
            pool.map(
                lambda a: _replay(stack, sessions[a[0] % 6], a[1][0], a[1][1], f"{a[1][2]}-{a[0]}"),
                enumerate(second_wave),
            )
        )

    final = stored_notes(firestore_client, user.uid)
    assert len(final) == 500 - len(deleted)
    prepared = {n.id: prepare(n, MODEL, 450, 75) for n in final}
    _wait_quiet(
        firestore_client, user.uid, {i: p.content_hash for i, p in prepared.items()}, deleted
    )

    classifier = RuleClassifier()
    expected = {}
    for n in final:
        kind = (n.type or classifier.classify(n.text)).value
        for d in prepared[n.id].drafts:
            expected[f"{n.id}_{d.position:03d}"] = (
                n.id,
                user.uid,
                d.position,
                d.text,
                tuple(terms(d.text)),
                kind,
                MODEL,
            )
    stored = [s.to_dict() for s in tenant_docs(firestore_client, "noteChunks", user.uid)]
    got = {
        d["chunkId"]: (
            d["noteId"],
            d["tenantId"],
            d["position"],
            d["text"],
            tuple(d["terms"]),
            d["memoryType"],
            d["embeddingModel"],
        )
        for d in stored
    }
    assert len(got) == len(stored), "duplicate chunk documents"
    assert got == expected
    orphans = [c for c in stored if c["noteId"] in deleted]
    assert not orphans
    per_note: dict[str, int] = defaultdict(int)
    for c in stored:
        per_note[c["noteId"]] += 1
    assert all(per_note[n.id] == len(prepared[n.id].drafts) for n in final)
    # Every vector is the embedding of the chunk's *final* text (never a stale one).
    # (read through the cache's adapter: it stores a vector packed, not as a list)
    cache = FirestoreStore(firestore_client)
    for c in rng.sample(stored, 150):
        # (the cache is per user since account deletion: its entries are personal data)
        key = cache_key(MODEL, c["text"], user.uid)
        cached = cache.get_many([key])
        assert key in cached
        assert [round(x, 6) for x in c["embedding"]] == [round(x, 6) for x in cached[key]]
    # And the running API's corpus (what vector, keyword and recency search read) matches.
    hits = call(0, "POST", "/search", json={"query": "decision budget launch", "k": 50}).json()[
        "results"
    ]
    assert hits and all(h["chunkId"] in expected for h in hits)
