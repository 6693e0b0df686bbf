"""A bounded load test on loopback against the running stack: 50 concurrent clients
for 30 s on POST /chat and POST /notes. Zero errors, p50/p95 reported, and every
note saved under load indexed exactly once (one "indexed" outcome in the indexer's
log, one set of chunks)."""

from __future__ import annotations

import json
import os
import time
from collections import Counter
from typing import Any

import pytest
from benchmarks.load import run, sign_up

pytestmark = [pytest.mark.emulator, pytest.mark.slow]
CLIENTS = int(os.environ.get("FOOTNOTE_LOAD_CLIENTS", "50"))
DURATION = float(os.environ.get("FOOTNOTE_LOAD_SECONDS", "30"))


@pytest.mark.xfail(run=False, reason=(
    "not yet verified: likely hits the same replace_chunks transaction contention as "
    "tests/faults/test_exact_indexing_stack.py; run by hand with FOOTNOTE_LOAD_* or "
    "benchmarks/load.py once that is fixed."))
def test_fifty_clients_for_thirty_seconds(stack: Any, firestore_client: Any) -> None:
    from google.cloud.firestore_v1.base_query import FieldFilter

    tokens = sign_up(stack.client_env()["FIREBASE_AUTH_EMULATOR_HOST"], CLIENTS)
    result = run(stack.api_url, tokens, duration_s=DURATION, write_share=0.4)
    summary = result.summary()
    print("\nload:", json.dumps(summary))
    (stack.log_dir / "load-summary.json").write_text(json.dumps(summary, indent=2))
    assert result.errors == [], summary
    assert summary["chat"]["requests"] > 0 and summary["notes"]["requests"] > 0
    ids = set(result.note_ids)
    assert len(ids) == len(result.note_ids)

    # Every note saved under load gets indexed ...
    states = firestore_client.collection("indexState")
    deadline = time.monotonic() + 240
    pending = set(ids)
    while pending and time.monotonic() < deadline:
        for i in range(0, len(pending), 30):
            batch = list(pending)[i:i + 30]
            for snap in states.where(filter=FieldFilter("__name__", "in",
                                                        [states.document(n) for n in batch])).stream():
                if snap.get("status") == "indexed":
                    pending.discard(snap.id)
        if pending:
            time.sleep(1)
    assert not pending, f"{len(pending)} of {len(ids)} notes not indexed"
    # ... exactly once: one "indexed" outcome per note, one chunk set per note.
    outcomes: Counter[str] = Counter()
    for line in (stack.log_dir / "functions.log").read_text(errors="replace").splitlines():
        if line.startswith("{") and '"outcome":"indexed"' in line:
            entry = json.loads(line)
            if entry.get("noteId") in ids:
                outcomes[entry["noteId"]] += 1
    assert set(outcomes) == ids and set(outcomes.values()) == {1}, Counter(outcomes.values())
    chunks = Counter()
    for n in list(ids)[:200]:
        chunks[n] = len(list(firestore_client.collection("noteChunks")
                             .where(filter=FieldFilter("noteId", "==", n)).select([]).stream()))
    assert set(chunks.values()) == {1}, Counter(chunks.values())  # short notes: one chunk each
