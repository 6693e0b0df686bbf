"""A bounded load test on loopback: N concurrent clients for D seconds against
``POST /chat`` and ``POST /notes``; reports errors and p50/p95 latency per endpoint.

    python benchmarks/load.py                       # starts the local stack itself
    python benchmarks/load.py --url http://127.0.0.1:8080 --auth 127.0.0.1:9099

Each client is a thread with its own HTTP session and its own user (a tenant);
it alternates chat questions and new notes (``--write-share`` of the requests
are notes). tests/load/test_load.py runs it against the test stack and checks
that every note it saved was indexed exactly once.
"""

from __future__ import annotations

import argparse
import json
import statistics
import threading
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

import requests

QUESTIONS = [
    "What did we decide about the deploy window?",
    "Which metrics did we record?",
    "Summarize my notes from this week",
    "Why did we choose Firestore?",
    "What are my open tasks?",
    "What did the investor say?",
]


@dataclass
class Result:
    latencies: dict[str, list[float]] = field(default_factory=lambda: {"chat": [], "notes": []})
    errors: list[str] = field(default_factory=list)
    note_ids: list[str] = field(default_factory=list)
    duration_s: float = 0.0
    clients: int = 0

    def summary(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "clients": self.clients,
            "durationS": round(self.duration_s, 1),
            "errors": len(self.errors),
            "errorSamples": self.errors[:5],
        }
        for name, values in self.latencies.items():
            out[name] = {"requests": len(values), **percentiles(values)}
        total = sum(len(v) for v in self.latencies.values())
        out["requestsPerSecond"] = round(total / self.duration_s, 1) if self.duration_s else 0.0
        return out


def percentiles(values: list[float]) -> dict[str, float]:
    if not values:
        return {"p50Ms": 0.0, "p95Ms": 0.0, "maxMs": 0.0}
    ordered = sorted(values)
    q = (
        statistics.quantiles(ordered, n=100, method="inclusive")
        if len(ordered) > 1
        else ordered * 99
    )
    return {"p50Ms": round(q[49], 1), "p95Ms": round(q[94], 1), "maxMs": round(ordered[-1], 1)}


def run(
    api_url: str,
    tokens: list[str],
    duration_s: float = 30.0,
    write_share: float = 0.4,
    timeout_s: float = 60.0,
) -> Result:
    result = Result(clients=len(tokens))
    lock = threading.Lock()
    start = threading.Barrier(len(tokens) + 1)
    deadline = [0.0]

    def client(index: int, token: str) -> None:
        session = requests.Session()
        headers = {"Authorization": f"Bearer {token}"}
        start.wait()
        i = 0
        while time.monotonic() < deadline[0]:
            write = (i * 7 + index) % 10 < write_share * 10
            t0 = time.perf_counter()
            try:
                if write:
                    r = session.post(
                        f"{api_url}/notes",
                        headers=headers,
                        timeout=timeout_s,
                        json={
                            "text": f"Load note {index}-{i}: we decided the deploy window is {i % 12 + 1} pm "
                            f"and recorded {i * 3} signups."
                        },
                    )
                    ok = r.status_code == 201
                else:
                    r = session.post(
                        f"{api_url}/chat",
                        headers=headers,
                        timeout=timeout_s,
                        json={"message": QUESTIONS[(index + i) % len(QUESTIONS)]},
                    )
                    ok = r.status_code == 200 and "answer" in r.json()
                elapsed = (time.perf_counter() - t0) * 1000
                with lock:
                    if ok:
                        result.latencies["notes" if write else "chat"].append(elapsed)
                        if write:
                            result.note_ids.append(r.json()["id"])
                    else:
                        result.errors.append(f"{r.status_code} {r.text[:200]}")
            except requests.RequestException as exc:
                with lock:
                    result.errors.append(f"{type(exc).__name__}: {exc}"[:200])
            i += 1

    threads = [
        threading.Thread(target=client, args=(n, t), daemon=True) for n, t in enumerate(tokens)
    ]
    for t in threads:
        t.start()
    began = time.monotonic()
    deadline[0] = began + duration_s
    start.wait()
    for t in threads:
        t.join(timeout=duration_s + timeout_s + 30)
    result.duration_s = time.monotonic() - began
    return result


def baseline(api_url: str, clients: int, duration_s: float) -> dict[str, Any]:
    """The same number of clients on ``GET /healthz`` (no token check, no work): what
    the functions host and loopback cost by themselves, measured in the same run."""
    latencies: list[float] = []
    errors = 0
    lock = threading.Lock()
    deadline = time.monotonic() + duration_s

    def client() -> None:
        nonlocal errors
        session = requests.Session()
        while time.monotonic() < deadline:
            t0 = time.perf_counter()
            ok = session.get(f"{api_url}/healthz", timeout=30).status_code == 200
            with lock:
                if ok:
                    latencies.append((time.perf_counter() - t0) * 1000)
                else:
                    errors += 1

    threads = [threading.Thread(target=client, daemon=True) for _ in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return {
        "requests": len(latencies),
        "errors": errors,
        **percentiles(latencies),
        "requestsPerSecond": round(len(latencies) / duration_s, 1),
    }


def sign_up(auth_host: str, count: int) -> list[str]:
    from footnote.dev.demo import DemoClient

    client = DemoClient("", auth_host, "demo-footnote")
    return [client.sign_up(f"load-{uuid.uuid4().hex[:10]}@footnote.test") for _ in range(count)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", help="API base URL (default: start the local stack)")
    parser.add_argument("--auth", help="Auth emulator host:port (with --url)")
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--duration", type=float, default=30.0)
    parser.add_argument("--write-share", type=float, default=0.4)
    parser.add_argument(
        "--baseline-seconds",
        type=float,
        default=10.0,
        help="first load GET /healthz this long, as the baseline (0: skip)",
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
        tokens = sign_up(auth, args.clients)
        report: dict[str, Any] = {}
        if args.baseline_seconds > 0:
            report["baselineHealthz"] = baseline(url, args.clients, args.baseline_seconds)
        report["load"] = result = run(url, tokens, args.duration, args.write_share).summary()
        print(json.dumps(report, indent=2))
        if "baselineHealthz" in report:
            base = report["baselineHealthz"]["p50Ms"] or 1.0
            print(
                f"p50 over the /healthz baseline: chat x{result['chat']['p50Ms'] / base:.1f}, "
                f"notes x{result['notes']['p50Ms'] / base:.1f}"
            )
    finally:
        if stack is not None:
            stack.stop()


if __name__ == "__main__":
    main()
