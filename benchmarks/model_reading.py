"""What a model's reading of the question costs a /chat: first questions (read offline,
one model call) beside follow-ups (read by the model, two calls), over the wire-level
fake of the Google APIs with a realistic delay per generate call.

    python benchmarks/model_reading.py [--delay 0.6] [--questions 8]

The real google-genai client talks to tests/fakes/google_apis.py; each generate call
waits ``--delay`` seconds (Gemini Flash answers a short structured reading in about
0.4-0.8 s). The offline reading's own time is the ``analyzeMs`` stage of a first
question. Printed: p50 of each, and the model calls counted at the wire.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

from tests.fakes.google_apis import FakeGoogleApis
from tests.fakes.vertex import vertex_settings
from tests.inproc import Harness

from footnote.adapters.gemini_generator import GeminiGenerator


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--delay", type=float, default=0.6)
    parser.add_argument("--questions", type=int, default=8)
    args = parser.parse_args()
    with FakeGoogleApis() as google:
        h = Harness()
        h.container._built["generator"] = GeminiGenerator.from_settings(vertex_settings(google))
        for text in (
            "Caroline joined the LGBTQ support group downtown in May.",
            "Melanie painted a lake sunrise for the kitchen.",
            "Dentist moved to Tues 3pm, bring the referral letter.",
        ):
            h.add_note("alice", text)
        h.index_all()
        google.delay("generate", args.delay)
        first_ms: list[float] = []
        follow_ms: list[float] = []
        analyze_ms: list[float] = []
        first_calls: list[int] = []
        follow_calls: list[int] = []
        for _ in range(args.questions):
            google.requests.clear()
            t = time.perf_counter()
            first = h.call(
                "POST", "/chat", "alice", json={"message": "Which group did Caroline join?"}
            )
            first_ms.append((time.perf_counter() - t) * 1000)
            first_calls.append(len(google.calls("generate")))
            reply = first.get_json()
            analyze_ms.append(reply["meta"]["timings"].get("analyzeMs", 0.0))
            google.requests.clear()
            body = {"message": "When did she join it?", "conversationId": reply["conversationId"]}
            t = time.perf_counter()
            h.call("POST", "/chat", "alice", json=body)
            follow_ms.append((time.perf_counter() - t) * 1000)
            follow_calls.append(len(google.calls("generate")))
    print(
        json.dumps(
            {
                "generate_delay_s": args.delay,
                "first_question_p50_ms": round(statistics.median(first_ms), 1),
                "follow_up_p50_ms": round(statistics.median(follow_ms), 1),
                "model_reading_adds_ms": round(
                    statistics.median(follow_ms) - statistics.median(first_ms), 1
                ),
                "offline_reading_p50_ms": round(statistics.median(analyze_ms), 2),
                "generate_calls_first": max(first_calls),
                "generate_calls_follow_up": max(follow_calls),
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
