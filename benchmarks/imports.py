"""How fast an import makes notes searchable, against the physical limit here: the
embedder's own throughput on the same chunks, measured in the same run.

    python benchmarks/imports.py [--notes 1000] [--scifact ../shared/eval-data/scifact]

An Obsidian vault of N notes is generated from SciFact abstracts (read from the
evaluation data, never committed), each with a created date spread over 2021-2023.
In process, MiniLM (the offline embedder, the local stack's): the import job parses
the zip and writes the notes; the indexer then indexes each (what the Firestore
trigger does per note on the stack); separately, the embedder embeds the same chunks
in batches with nothing else around it. Printed: notes/s of each phase, the import
end to end, embedding alone, their ratio, and the job's peak traced memory.
"""

from __future__ import annotations

import argparse
import io
import json
import time
import tracemalloc
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
    args = parser.parse_args()

    from footnote.config import Settings
    from footnote.ingest.chunking import chunk_text
    from footnote.wiring import Container

    settings = Settings(
        NOTE_STORE="memory", EMBEDDER="local", VECTOR_INDEX="memory", GENERATOR="extractive",
        CLASSIFIER="rules", REINDEX_QUEUE="inline", QUOTA_NOTES_PER_DAY=0, QUOTA_STORED_CHARS=0,
    )  # fmt: skip
    c = Container(settings)
    data = vault(args.scifact / "corpus.jsonl", args.notes)
    c.embedder.embed_query("warm up the model")  # loading the model is not the import's cost

    tracemalloc.start()
    t0 = time.perf_counter()
    name = c.imports.upload("bench", "j1/vault.zip", data)
    c.imports.start("bench", "j1", name)
    job = c.imports.run("bench", "j1")
    parse_s = time.perf_counter() - t0
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert job.imported == args.notes, job

    store: Any = c.store  # the memory store: its notes are a dict
    note_ids = [n.id for n in store.notes.values() if n.tenant_id == "bench"]
    t1 = time.perf_counter()
    for note_id in note_ids:
        c.indexing.index_note(note_id)
    index_s = time.perf_counter() - t1

    texts = [
        piece.text
        for note_id in note_ids
        for piece in chunk_text(
            store.notes[note_id].text, settings.chunk_size, settings.chunk_overlap
        )
    ]
    raw = c.raw_embedder
    t2 = time.perf_counter()
    for i in range(0, len(texts), 64):
        raw.embed_documents(texts[i : i + 64])
    embed_s = time.perf_counter() - t2

    total = parse_s + index_s
    print(
        json.dumps(
            {
                "notes": args.notes,
                "chunks": len(texts),
                "importJobSeconds": round(parse_s, 2),
                "importJobNotesPerSecond": round(args.notes / parse_s, 1),
                "importJobPeakTracedMiB": round(peak / 2**20, 1),
                "indexingSeconds": round(index_s, 2),
                "endToEndNotesPerSecond": round(args.notes / total, 1),
                "embeddingAloneSeconds": round(embed_s, 2),
                "embeddingAloneNotesPerSecond": round(args.notes / embed_s, 1),
                "endToEndOverEmbedding": round(total / embed_s, 2),
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
