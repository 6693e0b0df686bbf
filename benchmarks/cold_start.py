"""API cold start and offline /chat latency: a fresh process, from its start to the first
``POST /chat`` served, then the p50 of the questions after it.

    python benchmarks/cold_start.py [--runs 5] [--source shared]

Each run is a new Python process on the in-process harness (tests/inproc.py: memory
store, hash embedder, extractive generator): it imports the API, writes three notes,
indexes them and asks a question that names a time ("what did I write last week?"), so
the time reader's first use is on the measured path. ``--source`` is the ``shared``
folder to import footnote from, so two trees (before and after a change) are measured
in the same run on the same machine; the figures are printed side by side.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

_CHILD = r"""
import json, sys, time
from tests.inproc import Harness
h = Harness()
for text in ("Dentist moved to Tues 3pm", "Picked up the bike: new chain, 96 EUR",
             "Offer for Kaiser bakery out by Friday"):
    h.add_note("bench", text)
h.index_all()
h.ask("bench", "what did I write last week?")
first = time.time()
laps = []
for q in ("what did I write yesterday?", "when is the dentist?", "how much was the bike?",
          "what is due before Friday?", "what did I note in March 2023?") * 4:
    t = time.perf_counter()
    h.ask("bench", q)
    laps.append((time.perf_counter() - t) * 1000)
print(json.dumps({"first": first, "laps": laps}))
"""


def one_run(source: Path) -> tuple[float, list[float]]:
    env = {
        **os.environ,
        "PYTHONPATH": f"{source}{os.pathsep}{ROOT}",
        "HF_HUB_OFFLINE": "1",
    }
    started = time.time()
    out = subprocess.run(
        [sys.executable, "-c", _CHILD],
        env=env,
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
        timeout=300,
    )
    result = json.loads(out.stdout.strip().splitlines()[-1])
    return (result["first"] - started) * 1000, result["laps"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--source", type=Path, action="append", default=[])
    args = parser.parse_args()
    sources = args.source or [ROOT / "shared"]
    firsts: dict[Path, list[float]] = {source: [] for source in sources}
    laps: dict[Path, list[float]] = {source: [] for source in sources}
    for _ in range(args.runs):
        for source in sources:  # interleaved: a busy machine weighs on each tree alike
            first, lap = one_run(source)
            firsts[source].append(first)
            laps[source].extend(lap)
    figures = {
        str(source): {
            "cold_start_to_first_chat_ms_median": round(statistics.median(firsts[source]), 1),
            "cold_start_ms_min": round(min(firsts[source]), 1),
            "chat_p50_ms": round(statistics.median(laps[source]), 2),
        }
        for source in sources
    }
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
