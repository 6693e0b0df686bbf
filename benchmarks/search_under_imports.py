"""/search latency on the local stack while hostile archives import, beside the same
figures with no import running, measured in the same run (issue 46's goal: /search
p95 under 500 ms while they import).

    python benchmarks/search_under_imports.py [--notes 400] [--seconds 20] [--json out.json]

The local stack (``footnote.dev.stack``: the emulators and the functions host, which
serves the API and runs the worker's import jobs, as ``make dev`` does) starts on
free ports, in memory. A searcher (one account with a few dozen indexed notes) sends
``POST /search`` one request after another, its queries in turn, for three phases:

- before: no import running, for ``--seconds``;
- during: another account imports, all at once, the files of ``hostile_archives.py``
  (the issue's YAML alias bomb, heading of spaces and run of "[[" at the probe's
  size, and the heading and brackets grown to about 1 MB) and a normal vault of
  ``--notes`` Markdown notes (~1 KB each); the phase lasts until every import has
  finished;
- after: no import running again, for ``--seconds`` (the machine's load may have
  moved meanwhile; the peer is the two idle phases).

Printed per phase: requests, errors, p50, p95 and the slowest /search in ms; per
import, its status, notes imported and seconds to finish; and the load average.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import threading
import time
import uuid
import zipfile
from typing import Any

from benchmarks.hostile_archives import CASES
from benchmarks.load import percentiles

QUERIES = [
    "When does the ferry leave?",
    "garden budget",
    "What did Dana say about pricing?",
    "boiler service",
    "notes about the launch",
]
TOPICS = ["ferry", "garden", "pricing", "boiler", "launch", "budget", "dentist", "roof"]


def searcher_notes(count: int) -> list[str]:
    return [
        f"Note {i} about the {TOPICS[i % len(TOPICS)]}: we agreed on step {i} "
        f"and Dana will follow up on the {TOPICS[(i + 3) % len(TOPICS)]} next week."
        for i in range(count)
    ]


def normal_vault(notes: int) -> bytes:
    """A Markdown vault of ``notes`` notes of about 1 KB, each with front matter."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
        for i in range(notes):
            topic = TOPICS[i % len(TOPICS)]
            paragraph = (
                f"Meeting {i} on the {topic}: we moved the deadline by {i % 9 + 1} days, "
                f"asked [[People/Dana]] for a quote and logged it under #{topic}.\n\n"
            )
            body = paragraph * 7
            z.writestr(
                f"Vault/{topic}/note-{i:05d}.md",
                f"---\ntitle: {topic.title()} {i}\ncreated: 2023-0{i % 9 + 1}-1{i % 9}\n---\n"
                f"# {topic.title()} {i}\n{body}",
            )
    return buffer.getvalue()


class Searcher(threading.Thread):
    """Sends /search one request after another until stopped; the latencies of the
    current phase."""

    def __init__(self, client: Any, token: str) -> None:
        super().__init__(daemon=True)
        self._client = client
        self._token = token
        self._lock = threading.Lock()
        self._phase: list[float] = []
        self._errors: list[str] = []
        self._halt = threading.Event()

    def run(self) -> None:
        i = 0
        while not self._halt.is_set():
            started = time.perf_counter()
            try:
                r = self._client.call(
                    "POST", "/search", self._token, json={"query": QUERIES[i % len(QUERIES)]}
                )
                error = None if r.status_code == 200 else f"{r.status_code} {r.text[:120]}"
            except Exception as exc:  # a timeout or a dropped connection counts as an error
                error = repr(exc)[:120]
            elapsed = (time.perf_counter() - started) * 1000
            with self._lock:
                self._phase.append(elapsed)
                if error:
                    self._errors.append(error)
            i += 1

    def take(self) -> tuple[list[float], list[str]]:
        """The latencies and errors since the last call, and start a new phase."""
        with self._lock:
            latencies, errors = self._phase, self._errors
            self._phase, self._errors = [], []
        return latencies, errors

    def stop(self) -> None:
        self._halt.set()
        self.join(timeout=120)


def phase_row(
    name: str, latencies: list[float], errors: list[str], seconds: float
) -> dict[str, Any]:
    return {
        "phase": name,
        "seconds": round(seconds, 1),
        "requests": len(latencies),
        "errors": len(errors),
        "errorSamples": errors[:3],
        **percentiles(latencies),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", type=int, default=400, help="notes in the normal vault")
    parser.add_argument("--seconds", type=float, default=20, help="each idle phase")
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args()

    from footnote.dev.demo import DemoClient
    from footnote.dev.prerequisites import Ports
    from footnote.dev.stack import Stack
    from footnote.dev.timeouts import scaled

    stack = Stack(
        Ports.free(),
        extra_env={
            "QUOTA_NOTES_PER_DAY": "0",
            "QUOTA_STORED_CHARS": "0",
            "QUOTA_SEARCH_PER_MINUTE": "0",
            "LOG_LEVEL": "WARNING",
        },
    )
    stack.start()
    searcher: Searcher | None = None
    try:
        os.environ.update(stack.client_env())
        client = DemoClient(
            stack.api_url, stack.client_env()["FIREBASE_AUTH_EMULATOR_HOST"], stack.project
        )
        reader = client.sign_up(f"searcher-{uuid.uuid4().hex[:8]}@footnote.test")
        ids = []
        for text in searcher_notes(40):
            r = client.call("POST", "/notes", reader, json={"text": text})
            r.raise_for_status()
            ids.append(r.json()["id"])
        client.wait_indexed(reader, ids, timeout=600)
        for query in QUERIES * 2:  # the tenant's index loaded, the model warm
            client.call("POST", "/search", reader, json={"query": query}).raise_for_status()

        files = [(f"hostile-{i}.md", label, make()) for i, (label, make) in enumerate(CASES)]
        files.append(("vault.zip", f"normal vault, {args.notes} notes", normal_vault(args.notes)))
        importer = client.sign_up(f"importer-{uuid.uuid4().hex[:8]}@footnote.test")

        searcher = Searcher(client, reader)
        searcher.start()
        rows = []
        time.sleep(args.seconds)
        rows.append(phase_row("before: no import", *searcher.take(), args.seconds))

        started = time.perf_counter()
        jobs = []
        for name, label, data in files:
            r = client.call(
                "POST", "/imports", importer, params={"name": name}, data=data,
                headers={"Content-Type": "application/octet-stream"},
            )  # fmt: skip
            assert r.status_code == 202, r.text
            jobs.append({"id": r.json()["id"], "file": label, "bytes": len(data), "seconds": None})
        deadline = time.monotonic() + scaled(3600)
        while any(j["seconds"] is None for j in jobs) and time.monotonic() < deadline:
            for job in jobs:
                if job["seconds"] is None:
                    report = client.call("GET", f"/imports/{job['id']}", importer).json()
                    if report["status"] not in ("queued", "running"):
                        job.update(
                            seconds=round(time.perf_counter() - started, 1),
                            status=report["status"],
                            imported=report["imported"],
                            failed=report["failed"],
                        )
            time.sleep(0.5)
        during = time.perf_counter() - started
        rows.append(phase_row("during: 6 imports", *searcher.take(), during))

        time.sleep(args.seconds)
        rows.append(phase_row("after: no import", *searcher.take(), args.seconds))
    finally:
        try:
            if searcher is not None:
                searcher.stop()
        finally:
            stack.stop()

    print(
        f"{'/search':<20} {'s':>6} {'requests':>8} {'errors':>6} {'p50 ms':>8} {'p95 ms':>8} {'max ms':>8}"
    )
    for row in rows:
        print(
            f"{row['phase']:<20} {row['seconds']:>6.1f} {row['requests']:>8} {row['errors']:>6} "
            f"{row['p50Ms']:>8.1f} {row['p95Ms']:>8.1f} {row['maxMs']:>8.1f}"
        )
    print(f"\n{'import':<30} {'bytes':>9} {'status':>8} {'notes':>6} {'s':>7}")
    for job in jobs:
        print(
            f"{job['file']:<30} {job['bytes']:>9,} {job.get('status', 'unfinished'):>8} "
            f"{job.get('imported', 0):>6} {job['seconds'] or float('nan'):>7.1f}"
        )
    print(f"load average: {os.getloadavg()}")
    if args.json:
        with open(args.json, "w") as out:
            json.dump(
                {"phases": rows, "imports": jobs, "loadAverage": os.getloadavg()}, out, indent=2
            )


if __name__ == "__main__":
    main()
