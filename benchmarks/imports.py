"""How fast an import makes notes searchable, against the physical limit here: the
embedder's own throughput on the same chunks, measured in the same run.

    python benchmarks/imports.py [--notes 1000] [--scifact ../shared/eval-data/scifact]
    python benchmarks/imports.py --stack [--notes 1000]   # through the local emulator stack
    python benchmarks/imports.py --parse-only --notes 5000  # the job's own speed and memory

An Obsidian vault of N notes is generated from SciFact abstracts (read from the
evaluation data, never committed), each with a created date spread over 2021-2023.
In process, MiniLM (the offline embedder, the local stack's): first the job alone
parses the zip and writes the notes (its speed and peak traced memory, no indexing);
then the import as deployed, in a fresh store: the job writes the notes and indexes
each page itself (one embedding call per page), then every note's trigger event is
delivered to the indexer (``index_note``), which should find nothing to do;
separately, the embedder embeds the chunks the indexer stored in batches of 64 with
nothing else around it. Printed: each phase, the embedding calls of the job and of
the trigger events, the import end to end, embedding alone, and their ratio.

With ``--stack`` the same vault goes the whole way on the local stack
(``footnote.dev.stack``, on free ports, in memory): ``POST /imports`` with the zip →
the accounts topic's push subscription → the worker's import job, writing notes to
the Firestore emulator, each page of them embedded by the job in one call and their
chunks written by it (MiniLM) → the emulator's Firestore trigger, one event per
note → the indexer, which finds each note indexed already. The clock runs from the upload until every
note's index state is ``indexed`` (counted in Firestore once a second), then a
``/search`` for a few notes' titles must find them. The stack is stopped, and the
benchmark's own process embeds the chunks the indexer stored (read back from
Firestore: the same texts), in batches of 64 and, as the trigger does, one note at
a time. Also printed: when the job finished, the indexing rate while it ran and
after, and the CPU seconds each process of the stack used.
"""

from __future__ import annotations

import argparse
import base64
import io
import json
import os
import sys
import time
import tracemalloc
import uuid
import zipfile
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any


def vault(corpus: Path, notes: int) -> bytes:
    buffer = io.BytesIO()
    start = datetime(2021, 1, 1, tzinfo=UTC)
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z, corpus.open() as rows:
        for i, line in enumerate(rows):
            if i >= notes:
                break
            doc = json.loads(line)
            created = start + timedelta(hours=17 * i)
            title = doc["title"].replace('"', "'")[:120]
            body = f'---\ntitle: "{title}"\ncreated: {created.isoformat()}\n---\n{doc["text"]}\n'
            z.writestr(f"Vault/{doc['_id']}.md", body)
    return buffer.getvalue()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", type=int, default=1000)
    parser.add_argument("--scifact", type=Path, default=Path("../shared/eval-data/scifact"))
    parser.add_argument(
        "--stack", action="store_true", help="through the local emulator stack (free ports)"
    )
    parser.add_argument(
        "--parse-only",
        action="store_true",
        help="in process: only the job without its indexer (speed, peak traced memory)",
    )
    parser.add_argument(
        "--no-per-note",
        action="store_true",
        help="with --stack: skip embedding the chunks a note at a time (only batches of 64)",
    )
    parser.add_argument(
        "--log-level",
        default="WARNING",
        help="the stack's LOG_LEVEL; INFO logs each trigger event, which --stack then sums up",
    )
    args = parser.parse_args()
    if args.stack:
        print(
            json.dumps(
                stack_run(
                    vault(args.scifact / "corpus.jsonl", args.notes),
                    args.notes,
                    args.log_level,
                    per_note=not args.no_per_note,
                ),
                indent=2,
            )
        )
        return

    from footnote.config import Settings
    from footnote.services.imports import ImportService
    from footnote.wiring import Container

    def container() -> Container:
        settings = Settings(
            NOTE_STORE="memory", EMBEDDER="local", VECTOR_INDEX="memory", GENERATOR="quote",
            CLASSIFIER="rules", REINDEX_QUEUE="inline", QUOTA_NOTES_PER_DAY=0,
            QUOTA_STORED_CHARS=0,
        )  # fmt: skip
        return Container(settings)

    data = vault(args.scifact / "corpus.jsonl", args.notes)

    # The job's own cost, parsing the zip and writing the notes, with its memory:
    # the job without its indexer (every note left to the trigger).
    bare = container()
    parse_only = ImportService(
        bare.settings, bare.store, bare.blobs, bare.import_jobs, bare.account_queue
    )
    tracemalloc.start()
    t0 = time.perf_counter()
    parse_only.start("bench", "j0", parse_only.upload("bench", "j0/vault.zip", data))
    job = parse_only.run("bench", "j0")
    parse_s = time.perf_counter() - t0
    # What stays traced at the end is mostly the in-memory store's notes (the
    # archive's size); the peak above it is the job's own working memory.
    retained, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert job.imported == args.notes, job
    if args.parse_only:
        print(
            json.dumps(
                {
                    "notes": args.notes,
                    "zipBytes": len(data),
                    "parseAndWriteSeconds": round(parse_s, 2),
                    "parseAndWriteNotesPerSecond": round(args.notes / parse_s, 1),
                    "parseAndWritePeakTracedMiB": round(peak / 2**20, 1),
                    "retainedTracedMiB": round(retained / 2**20, 1),
                    "peakAboveRetainedMiB": round((peak - retained) / 2**20, 1),
                    "loadAverage": os.getloadavg(),
                },
                indent=2,
            )
        )
        return

    # The import as deployed: the job embeds each page of notes in one call and
    # writes their chunks; then every note's trigger event (index_note) is delivered.
    c = container()
    c.embedder.embed_query("warm up the model")  # loading the model is not the import's cost
    raw: Any = c.raw_embedder
    calls = {"n": 0}
    embed_documents = raw.embed_documents

    def counted(*a: Any, **kw: Any) -> Any:
        calls["n"] += 1
        return embed_documents(*a, **kw)

    raw.embed_documents = counted
    t1 = time.perf_counter()
    name = c.imports.upload("bench", "j1/vault.zip", data)
    c.imports.start("bench", "j1", name)
    job = c.imports.run("bench", "j1")
    job_s = time.perf_counter() - t1
    assert job.imported == args.notes, job
    job_calls = calls["n"]
    store: Any = c.store  # the memory store: its notes and chunks are dicts
    note_ids = [n.id for n in store.notes.values() if n.tenant_id == "bench"]
    t2 = time.perf_counter()
    outcomes: dict[str, int] = {}
    for note_id in note_ids:
        outcome = c.indexing.index_note(note_id).outcome.value
        outcomes[outcome] = outcomes.get(outcome, 0) + 1
    trigger_s = time.perf_counter() - t2
    trigger_calls = calls["n"] - job_calls
    assert all(store.index_state(i).status.value == "indexed" for i in note_ids)
    raw.embed_documents = embed_documents

    # Embedding alone: the very chunks the indexer stored (titles included), in
    # batches of 64, with nothing else around it.
    by_note: dict[str, list[tuple[int, str]]] = {}
    for chunk in store.chunks.values():
        by_note.setdefault(chunk.note_id, []).append((chunk.position, chunk.text))
    texts = [t for chunks in by_note.values() for _, t in sorted(chunks)]
    t3 = time.perf_counter()
    for i in range(0, len(texts), 64):
        embed_documents(texts[i : i + 64])
    embed_s = time.perf_counter() - t3

    total = job_s + trigger_s
    print(
        json.dumps(
            {
                "notes": args.notes,
                "chunks": len(texts),
                "parseAndWriteSeconds": round(parse_s, 2),
                "parseAndWriteNotesPerSecond": round(args.notes / parse_s, 1),
                "parseAndWritePeakTracedMiB": round(peak / 2**20, 1),
                "peakAboveRetainedMiB": round((peak - retained) / 2**20, 1),
                "importJobSeconds": round(job_s, 2),
                "importJobEmbeddingCalls": job_calls,
                "triggerEventsSeconds": round(trigger_s, 2),
                "triggerEventOutcomes": outcomes,
                "triggerEventEmbeddingCalls": trigger_calls,
                "endToEndSeconds": round(total, 2),
                "endToEndNotesPerSecond": round(args.notes / total, 1),
                "embeddingAloneSeconds": round(embed_s, 2),
                "embeddingAloneNotesPerSecond": round(args.notes / embed_s, 1),
                "endToEndOverEmbedding": round(total / embed_s, 2),
                "loadAverage": os.getloadavg(),
            },
            indent=2,
        )
    )


# -- through the local stack ---------------------------------------------------------


def group_cpu_seconds(pgid: int) -> float:
    """User + system CPU seconds of every live process in a process group (/proc)."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        # after the name: state ppid pgrp session ... utime(12) stime(13), 0-based from state
        if int(fields[2]) == pgid:
            total += (int(fields[11]) + int(fields[12])) / tick
    return total


def group_peak_rss_mib(pgid: int) -> float:
    """The largest resident-set high-water mark (VmHWM) of the live processes in a
    process group: the functions host's peak memory so far, model included."""
    peak = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if int((entry / "stat").read_text().rsplit(")", 1)[1].split()[2]) != pgid:
                continue
            status = (entry / "status").read_text()
        except (OSError, IndexError, ValueError):
            continue
        for line in status.splitlines():
            if line.startswith("VmHWM:"):
                peak = max(peak, int(line.split()[1]))  # kB
    return round(peak / 1024, 1)


def trigger_events(log: Path) -> dict[str, Any]:
    """What the indexer logged per trigger event (LOG_LEVEL=INFO): outcomes, and the
    time each took inside ``index_note``."""
    outcomes: dict[str, int] = {}
    elapsed: list[float] = []
    for line in log.read_text(errors="replace").splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if isinstance(entry, dict) and "outcome" in entry and "noteId" in entry:
            outcomes[entry["outcome"]] = outcomes.get(entry["outcome"], 0) + 1
            if entry["outcome"] == "indexed":
                elapsed.append(float(entry.get("elapsedMs", 0.0)))
    elapsed.sort()
    return {
        "outcomes": outcomes,
        "indexedMsMedian": elapsed[len(elapsed) // 2] if elapsed else None,
        "indexedMsSum": round(sum(elapsed)),
    }


def stack_run(
    data: bytes, notes: int, log_level: str = "WARNING", per_note: bool = True
) -> dict[str, Any]:
    from google.cloud import firestore
    from google.cloud.firestore_v1.base_query import FieldFilter

    from footnote.dev.demo import DemoClient
    from footnote.dev.prerequisites import Ports
    from footnote.dev.stack import Stack
    from footnote.dev.timeouts import scaled

    stack = Stack(
        Ports.free(),
        extra_env={"QUOTA_NOTES_PER_DAY": "0", "QUOTA_STORED_CHARS": "0", "LOG_LEVEL": log_level},
    )
    stack.start()
    try:
        os.environ.update(stack.client_env())
        client = DemoClient(
            stack.api_url, stack.client_env()["FIREBASE_AUTH_EMULATOR_HOST"], stack.project
        )
        db = firestore.Client(project=stack.project)

        # Warm up the indexer (MiniLM loads on its first note) with another account:
        # loading the model is not the import's cost.
        warm = client.sign_up(f"warm-{uuid.uuid4().hex[:8]}@footnote.test")
        created = client.call("POST", "/notes", warm, json={"text": "Warm up the indexer."})
        created.raise_for_status()
        client.wait_indexed(warm, [created.json()["id"]], timeout=300)

        token = client.sign_up(f"bench-{uuid.uuid4().hex[:8]}@footnote.test")
        claims = token.split(".")[1]
        uid = json.loads(base64.urlsafe_b64decode(claims + "=" * (-len(claims) % 4)))["user_id"]
        states = db.collection("indexState").where(filter=FieldFilter("tenantId", "==", uid))
        indexed: Any = states.where(filter=FieldFilter("status", "==", "indexed"))

        def count_indexed() -> int:
            result: Any = indexed.count().get()
            return int(result[0][0].value)

        procs = {name: proc.pid for name, proc in stack._procs.items()}
        cpu_before = {name: group_cpu_seconds(pid) for name, pid in procs.items()}
        # The worker runs the job in the functions host: its peak before the import
        # (model loaded, one note indexed) and after it.
        host_peak_before = group_peak_rss_mib(procs["functions"])
        t0 = time.perf_counter()
        started = client.call(
            "POST", "/imports", token, params={"name": "vault.zip"}, data=data,
            headers={"Content-Type": "application/octet-stream"},
        )  # fmt: skip
        assert started.status_code == 202, started.text
        job = started.json()
        job_s: float | None = None
        samples: list[tuple[float, int]] = []
        deadline = time.monotonic() + scaled(3600)
        while True:
            now = time.perf_counter() - t0
            if job_s is None:
                job = client.call("GET", f"/imports/{job['id']}", token).json()
                if job["status"] not in ("queued", "running"):
                    job_s = now
                    assert job["status"] == "done" and job["imported"] == notes, job
            done = count_indexed()
            if not samples or int(now) // 60 > int(samples[-1][0]) // 60:
                print(f"{now:7.0f} s: {done} indexed, job {job['status']}", file=sys.stderr)
            samples.append((now, done))
            if done >= notes and job_s is not None:
                break
            if time.monotonic() > deadline:
                raise TimeoutError(f"{done} of {notes} notes indexed after {now:.0f} s")
            time.sleep(1.0)
        total_s = samples[-1][0]
        host_peak_after = group_peak_rss_mib(procs["functions"])
        cpu = {
            name: round(group_cpu_seconds(pid) - cpu_before[name], 1) for name, pid in procs.items()
        }

        # Searchable: a few notes found by their titles through /search. The first search
        # loads the tenant's corpus into the API's memory (every chunk, its vector
        # included, read from the emulator): timed apart, and given the time it takes.
        listed = client.notes(token)
        found = 0
        probes = listed[:: max(1, len(listed) // 5)][:5]
        first_search_s: float | None = None
        for note in probes:
            t_search = time.perf_counter()
            r = client.call(
                "POST", "/search", token, json={"query": note["title"], "k": 8},
                timeout=scaled(900) if first_search_s is None else scaled(60),
            )  # fmt: skip
            if first_search_s is None:
                first_search_s = time.perf_counter() - t_search
            r.raise_for_status()
            found += note["id"] in {hit["noteId"] for hit in r.json()["results"]}
        assert found == len(probes), f"only {found} of {len(probes)} notes found by title"

        by_note: dict[str, list[tuple[int, str]]] = {}
        for doc in (
            db.collection("noteChunks").where(filter=FieldFilter("tenantId", "==", uid)).stream()
        ):
            d = doc.to_dict() or {}
            by_note.setdefault(d["noteId"], []).append((int(d["position"]), str(d["text"])))
        note_chunks = [[text for _, text in sorted(chunks)] for chunks in by_note.values()]
    finally:
        stack.stop()
    events = trigger_events(stack.log_dir / "functions.log") if log_level == "INFO" else None

    # The physical limit, in the same run, with the stack stopped: the indexer's model
    # embedding the very chunks it stored.
    from footnote.config import Settings
    from footnote.wiring import Container

    raw = Container(Settings(NOTE_STORE="memory", EMBEDDER="local")).raw_embedder
    raw.embed_query("warm up the model")
    texts = [t for chunks in note_chunks for t in chunks]
    t1, c1 = time.perf_counter(), time.process_time()
    for i in range(0, len(texts), 64):
        raw.embed_documents(texts[i : i + 64])
    embed_s, embed_cpu = time.perf_counter() - t1, time.process_time() - c1
    per_note_s = per_note_cpu = None
    if per_note:
        t2, c2 = time.perf_counter(), time.process_time()
        for chunks in note_chunks:
            raw.embed_documents(chunks)
        per_note_s, per_note_cpu = time.perf_counter() - t2, time.process_time() - c2

    during = [(t, n) for t, n in samples if job_s is not None and t <= job_s]
    at_job = during[-1] if during else (0.0, 0)
    return {
        "mode": "stack",
        "notes": notes,
        "chunks": len(texts),
        "importJobSeconds": round(job_s or 0.0, 1),
        "indexedWhenJobDone": at_job[1],
        "uploadToAllIndexedSeconds": round(total_s, 1),
        "endToEndNotesPerSecond": round(notes / total_s, 2),
        "indexingNotesPerSecondWhileJobRan": round(at_job[1] / at_job[0], 2) if at_job[0] else None,
        "indexingNotesPerSecondAfterJob": (
            round((notes - at_job[1]) / (total_s - at_job[0]), 2) if total_s > at_job[0] else None
        ),
        "searchProbesFound": f"{found}/{len(probes)}",
        "firstSearchSeconds": round(first_search_s or 0.0, 1),
        "embeddingAloneSeconds": round(embed_s, 1),
        "embeddingAloneNotesPerSecond": round(notes / embed_s, 2),
        "embeddingAloneCpuSeconds": round(embed_cpu, 1),
        **(
            {
                "embeddingOneNoteAtATimeNotesPerSecond": round(notes / per_note_s, 2),
                "embeddingOneNoteAtATimeCpuSeconds": round(per_note_cpu or 0.0, 1),
            }
            if per_note_s
            else {}
        ),
        "endToEndOverEmbedding": round(total_s / embed_s, 2),
        "stackCpuSeconds": cpu,
        "functionsHostPeakRssMiBBeforeAndAfter": [host_peak_before, host_peak_after],
        # notes indexed at the first count of each minute since the upload
        "indexedByMinute": list({int(t) // 60: n for t, n in reversed(samples)}.values())[::-1],
        "loadAverage": os.getloadavg(),
        **({"triggerEvents": events} if events else {}),
    }


if __name__ == "__main__":
    main()
