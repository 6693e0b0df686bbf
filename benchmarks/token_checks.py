"""What checking revocation costs per request: ID-token verification against the
Auth emulator without the account check, with it on every request (writes), and
with the per-instance cache (reads within AUTH_REVOCATION_CACHE_S).

    python benchmarks/token_checks.py            # starts the emulators itself

The emulator answers on loopback; Firebase Auth in production is a network round
trip, so the account check costs more there, which is why reads reuse it.
"""

from __future__ import annotations

import json
import os
import time
import uuid
from collections.abc import Callable

from benchmarks.load import percentiles


def timed(verify: Callable[[], object], n: int) -> dict[str, float]:
    latencies = []
    for _ in range(n):
        t0 = time.perf_counter()
        verify()
        latencies.append((time.perf_counter() - t0) * 1000)
    return percentiles(latencies)


def main() -> None:
    from footnote.adapters.firebase_auth import FirebaseTokenVerifier
    from footnote.dev.demo import DemoClient
    from footnote.dev.prerequisites import Ports
    from footnote.dev.stack import Stack

    stack = Stack(Ports.free())
    stack.start(with_functions=False)
    try:
        os.environ.update(stack.client_env())
        auth = stack.client_env()["FIREBASE_AUTH_EMULATOR_HOST"]
        token = DemoClient("", auth, stack.project).sign_up(
            f"tokens-{uuid.uuid4().hex[:8]}@footnote.test"
        )
        plain = FirebaseTokenVerifier(stack.project)
        checked = FirebaseTokenVerifier(stack.project, revocation_cache_s=60)
        plain.verify(token), checked.verify(token, fresh=True)  # warm up both apps
        report = {
            "withoutAccountCheck": timed(lambda: plain.verify(token), 200),
            "accountCheckEveryRequest (writes)": timed(
                lambda: checked.verify(token, fresh=True), 200
            ),
            "cachedAccountCheck (reads)": timed(lambda: checked.verify(token), 200),
        }
        print(json.dumps(report, indent=2))
    finally:
        stack.stop()


if __name__ == "__main__":
    main()
