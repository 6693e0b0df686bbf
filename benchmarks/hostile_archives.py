"""How long one hostile archive entry keeps the import worker busy, beside a benign
entry of the same size measured in the same run (issue 46's goal: no input under
1 MB busy for more than 2 s per entry).

    python benchmarks/hostile_archives.py [--runs 3] [--only probe] [--json out.json]

The three files of the issue 46 probe, at the probe's size and grown to about 1 MB:
a YAML alias bomb in front matter (aliases nine wide, eight deep: 423 bytes), a
heading line of spaces ("# a" + spaces + "x", which a backtracking heading pattern
read in cubic time), and a run of "[[" (quadratic in the old wikilink pattern).
The benign peer of each is a Markdown note of the same byte size: front matter,
a heading, paragraphs with wikilinks and tags.

Per entry, two figures: the reader alone (``read_archive``: decoding, front matter,
headings, tags, links, parts) and the import job without its indexer (the reader,
then tidying and writing each note to the in-memory store; embedding is the
indexer's and grows with the text, hostile or not, so it is left out). Each is the
least of three runs.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import time
from collections.abc import Callable


def yaml_alias_bomb(depth: int = 8) -> bytes:
    lines = ["---", 'a0: &a0 ["lol"]']
    lines += [f"a{i}: &a{i} [" + ",".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, depth + 1)]
    return "\n".join([*lines, f"title: *a{depth}", "---", "body"]).encode()


def heading(spaces: int) -> bytes:
    return ("# a" + " " * spaces + "x\nbody\n").encode()


def wikilinks(pairs: int) -> bytes:
    return ("# Wiki\n" + "[[" * pairs).encode()


def benign(size: int) -> bytes:
    """A note as people write them, cut to ``size`` bytes."""
    head = "---\ntitle: Garden plan\ncreated: 2023-03-14\ntags: [home, garden]\n---\n# Garden\n"
    paragraph = (
        "We moved the tomatoes next to the [[Fence|south fence]] and ordered seeds "
        "from the [[Suppliers#Local]] shop; the budget stays under 200 euros. #garden\n\n"
    )
    body = (head + paragraph * (size // len(paragraph) + 1)).encode()
    return body[:size]


CASES: list[tuple[str, Callable[[], bytes]]] = [
    ("yaml alias bomb (probe)", yaml_alias_bomb),
    ("heading of spaces (probe)", lambda: heading(2_500)),
    ("wikilink brackets (probe)", lambda: wikilinks(10_000)),
    ("heading of spaces, 1 MB", lambda: heading(1_000_000)),
    ("wikilink brackets, 1 MB", lambda: wikilinks(500_000)),
]


def least(runs: int, work: Callable[[bytes, str], object], data: bytes, name: str) -> float:
    best = float("inf")
    for _ in range(runs):
        started = time.perf_counter()
        work(data, name)
        best = min(best, time.perf_counter() - started)
    return best


def read_only(data: bytes, name: str) -> list[object]:
    from footnote.archives import read_archive

    return list(read_archive(io.BytesIO(data), name))


def job_only(data: bytes, name: str) -> object:
    """The import job as the worker runs it, in a fresh in-memory store, no indexer."""
    from footnote.config import Settings
    from footnote.services.imports import ImportService
    from footnote.wiring import Container

    settings = Settings(
        NOTE_STORE="memory", EMBEDDER="hash", VECTOR_INDEX="memory",
        REINDEX_QUEUE="inline", QUOTA_NOTES_PER_DAY=0, QUOTA_STORED_CHARS=0,
    )  # fmt: skip
    c = Container(settings)
    service = ImportService(c.settings, c.store, c.blobs, c.import_jobs, c.account_queue)
    service.start("bench", "j", service.upload("bench", f"j/{name}", data))
    job = service.run("bench", "j")
    assert job.status == "done", job
    return job


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--only", default="", help="the rows whose label holds this text")
    parser.add_argument("--json", help="also write the rows to this file")
    args = parser.parse_args()
    read_only(benign(1_000), "warm.md")  # the readers' libraries load once, not per row
    job_only(benign(1_000), "warm.md")
    rows = []
    print(f"{'entry':<28} {'bytes':>9} | {'read s':>7} {'benign':>7} | {'job s':>7} {'benign':>7}")
    for label, make in CASES:
        if args.only not in label:
            continue
        hostile = make()
        peer = benign(len(hostile))
        row = {
            "entry": label,
            "bytes": len(hostile),
            "readSeconds": least(args.runs, read_only, hostile, "hostile.md"),
            "benignReadSeconds": least(args.runs, read_only, peer, "benign.md"),
            "jobSeconds": least(args.runs, job_only, hostile, "hostile.md"),
            "benignJobSeconds": least(args.runs, job_only, peer, "benign.md"),
        }
        rows.append(row)
        print(
            f"{label:<28} {len(hostile):>9,} | {row['readSeconds']:>7.3f} "
            f"{row['benignReadSeconds']:>7.3f} | {row['jobSeconds']:>7.3f} "
            f"{row['benignJobSeconds']:>7.3f}",
            flush=True,
        )
    print(f"load average: {os.getloadavg()}")
    if args.json:
        with open(args.json, "w") as out:
            json.dump({"rows": rows, "loadAverage": os.getloadavg()}, out, indent=2)


if __name__ == "__main__":
    main()
