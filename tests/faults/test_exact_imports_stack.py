"""Exact indexing of an import against the running stack (the in-process scenario is
test_exact_imports.py). A 40-note vault is posted to the API; the job, pushed by the
Pub/Sub emulator to the worker, crashes right after writing a note (before its page
is saved: ``footnote.dev.faults``' ``import_job``) and is redelivered by Pub/Sub; a
duplicate of its message is published while it runs and another after it is done.
Every note's ``created`` event reaches the indexer once through the emulator's real
trigger and twice more replayed, shuffled, while the job runs. Afterwards Firestore
holds one note per file with its own date, and exactly the chunks a fresh index of
those notes would have; every note is indexed with its final content hash."""

from __future__ import annotations

import random
import time
from collections import Counter
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import pytest
import requests

from footnote.dev.stack import ACCOUNTS_TOPIC
from footnote.ingest.classify import RuleClassifier
from footnote.ingest.pipeline import prepare
from footnote.services.imports import message
from footnote.text import terms
from tests.faults.exactness import stored_notes, tenant_docs
from tests.faults.test_exact_imports import vault
from tests.faults.test_exact_indexing_stack import MODEL, _replay, _wait_quiet
from tests.inproc import wait_for

pytestmark = pytest.mark.emulator
NOTES = 40


def test_an_import_crashed_and_redelivered_on_the_stack_indexes_exactly(
    stack: Any, new_user: Any, firestore_client: Any
) -> None:
    user = new_user()
    rng = random.Random(23)
    data, dates = vault(rng, NOTES)
    faults = f"{stack.api_url}/_faults"
    requests.delete(faults, timeout=30).raise_for_status()
    requests.post(faults, json={"import_job": {"after": 17}}, timeout=30).raise_for_status()
    try:
        r = user.call(
            "POST", "/imports?name=vault.zip", data=data,
            headers={"Content-Type": "application/zip"},
        )  # fmt: skip
        assert r.status_code == 202, r.text
        job_id = r.json()["id"]
        sessions = [requests.Session() for _ in range(4)]
        replayed: set[str] = set()
        futures: list[Future[None]] = []
        report: dict[str, Any] = {}
        duplicated = False
        with ThreadPoolExecutor(max_workers=4) as pool:

            def replay_new() -> None:
                fresh = [n.id for n in stored_notes(firestore_client, user.uid)]
                fresh = [i for i in fresh if i not in replayed]
                replayed.update(fresh)
                twice = [(i, k) for i in fresh for k in range(2)]
                rng.shuffle(twice)
                for n, (note_id, k) in enumerate(twice):
                    futures.append(
                        pool.submit(
                            _replay,
                            stack,
                            sessions[n % 4],
                            note_id,
                            "created",
                            f"imp-{note_id}-{k}",
                        )
                    )

            def finished() -> bool:
                nonlocal duplicated
                replay_new()
                state = requests.get(faults, timeout=30).json()
                if not duplicated and state["tripped"].get("import_job"):
                    # the crashed delivery is redelivered by Pub/Sub; a duplicate races it
                    stack.publish(ACCOUNTS_TOPIC, message(user.uid, job_id))
                    duplicated = True
                report.update(user.call("GET", f"/imports/{job_id}").json())
                return report["status"] in ("done", "failed", "cancelled")

            wait_for(finished, timeout=300, what="the import job", interval=0.5)
            stack.publish(ACCOUNTS_TOPIC, message(user.uid, job_id))  # a late duplicate
            replay_new()
            for f in futures:
                f.result()
        assert duplicated, requests.get(faults, timeout=30).json()
    finally:
        requests.delete(faults, timeout=30)

    assert report["status"] == "done", report
    assert (report["found"], report["failed"]) == (NOTES, 0), report
    assert report["imported"] + report["duplicates"] == NOTES, report

    final = stored_notes(firestore_client, user.uid)
    assert Counter(n.title for n in final) == Counter(dates.keys())
    assert all(n.created_at == dates[n.title] for n in final)
    prepared = {n.id: prepare(n, MODEL, 450, 75) for n in final}
    _wait_quiet(firestore_client, user.uid, {i: p.content_hash for i, p in prepared.items()}, set())
    time.sleep(1)  # a late duplicate of the job finds it done and writes nothing
    assert len(stored_notes(firestore_client, user.uid)) == NOTES

    classifier = RuleClassifier()
    expected = {
        f"{n.id}_{d.position:03d}": (
            n.id, d.position, d.text, tuple(terms(d.text)),
            (n.type or classifier.classify(n.text)).value, MODEL,
        )
        for n in final
        for d in prepared[n.id].drafts
    }  # fmt: skip
    stored = [s.to_dict() for s in tenant_docs(firestore_client, "noteChunks", user.uid)]
    got = {
        d["chunkId"]: (
            d["noteId"], d["position"], d["text"], tuple(d["terms"]),
            d["memoryType"], d["embeddingModel"],
        )
        for d in stored
    }  # fmt: skip
    assert len(got) == len(stored), "duplicate chunk documents"
    assert got == expected
