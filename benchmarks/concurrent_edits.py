"""Concurrent writers on one note: N PATCH requests at once against the local stack
(real Firestore emulator, the indexer reacting to every write); prints each round's
statuses and latencies and the p50/p95/max over all rounds.

    python benchmarks/concurrent_edits.py                  # starts the local stack itself
    python benchmarks/concurrent_edits.py --url http://127.0.0.1:8080 --auth 127.0.0.1:9099
    python benchmarks/concurrent_edits.py --if-match       # each writer sends the ETag it read

A write is lost when it was answered 200 and yet the final text is none of the
texts answered 200 (the final text must be one of the successful writes).
"""

from __future__ import annotations

import argparse
import json
import threading
import time
import uuid
from collections import Counter
from typing import Any

import requests

from benchmarks.load import percentiles


def one_round(
    url: str, token: str, writers: int, if_match: bool, timeout_s: float, method: str = "PATCH"
) -> dict[str, Any]:
    auth = {"Authorization": f"Bearer {token}"}
    created = requests.post(f"{url}/notes", json={"text": "start"}, headers=auth, timeout=60)
    created.raise_for_status()
    note_id = created.json()["id"]
    etag = created.headers.get("ETag")
    barrier = threading.Barrier(writers)
    results: list[tuple[int, float, str]] = []
    lock = threading.Lock()

    def writer(i: int) -> None:
        text = f"writer {i} {uuid.uuid4().hex[:6]}"
        headers = dict(auth)
        if if_match and etag:
            headers["If-Match"] = etag
        session = requests.Session()
        barrier.wait()
        t0 = time.perf_counter()
        try:
            r = session.request(
                method,
                f"{url}/notes/{note_id}",
                json={"text": text} if method == "PATCH" else None,
                headers=headers,
                timeout=timeout_s,
            )
            status = r.status_code
        except requests.RequestException:
            status = 0
        ms = (time.perf_counter() - t0) * 1000
        with lock:
            results.append((status, ms, text))

    threads = [threading.Thread(target=writer, args=(i,)) for i in range(writers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    final = requests.get(f"{url}/notes/{note_id}", headers=auth, timeout=60).json()["text"]
    won = {text for status, _, text in results if status == 200}
    return {
        "statuses": dict(Counter(status for status, _, _ in results)),
        "latenciesMs": [round(ms, 1) for _, ms, _ in results],
        "finalIsAWrite": final in won,
        "lost": bool(won) and final not in won,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", help="API base URL (default: start the local stack)")
    parser.add_argument("--auth", help="Auth emulator host:port (with --url)")
    parser.add_argument("--writers", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--if-match", action="store_true", help="send If-Match with the ETag")
    parser.add_argument("--timeout", type=float, default=60.0)
    parser.add_argument(
        "--baseline",
        action="store_true",
        help="first as many concurrent GETs of the note: what the host answers reads in",
    )
    args = parser.parse_args()
    stack = None
    if args.url:
        url, auth = args.url.rstrip("/"), args.auth or "127.0.0.1:9099"
    else:
        from footnote.dev.prerequisites import Ports
        from footnote.dev.stack import Stack

        stack = Stack(Ports.free())
        stack.start()
        url, auth = stack.api_url, f"127.0.0.1:{stack.ports.auth}"
    try:
        from footnote.dev.demo import DemoClient

        token = ""
        for _ in range(60):  # the Auth emulator may still be starting
            try:
                token = DemoClient("", auth, "demo-footnote").sign_up(
                    f"edits-{uuid.uuid4().hex[:10]}@footnote.test"
                )
                break
            except requests.ConnectionError:
                time.sleep(0.5)
        report: dict[str, Any] = {}
        if args.baseline:
            reads = [
                one_round(url, token, args.writers, False, args.timeout, "GET")
                for _ in range(args.rounds)
            ]
            report["baselineGet"] = percentiles([ms for r in reads for ms in r["latenciesMs"]])
        rounds = [
            one_round(url, token, args.writers, args.if_match, args.timeout)
            for _ in range(args.rounds)
        ]
        latencies = [ms for r in rounds for ms in r["latenciesMs"]]
        statuses: Counter[int] = Counter()
        for r in rounds:
            statuses.update({int(k): v for k, v in r["statuses"].items()})
        report |= {
            "writers": args.writers,
            "rounds": args.rounds,
            "ifMatch": args.if_match,
            "statuses": dict(sorted(statuses.items())),
            **percentiles(latencies),
            "roundsWithLostWrite": sum(r["lost"] for r in rounds),
            "perRound": [
                {"statuses": r["statuses"], "maxMs": max(r["latenciesMs"])} for r in rounds
            ],
        }
        print(json.dumps(report, indent=2))
    finally:
        if stack is not None:
            stack.stop()


if __name__ == "__main__":
    main()
