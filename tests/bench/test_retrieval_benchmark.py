"""Smoke run of benchmarks/retrieval.py on a few hundred chunks: every row printed,
every figure sane. The benchmark itself (10k and 100k chunks) stays out of the suite."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip(
    "faiss", reason="faiss-cpu is a benchmark-only dependency: pip install -e '.[bench]'"
)
pytest.importorskip(
    "hnswlib", reason="hnswlib is a benchmark-only dependency: pip install -e '.[bench]'"
)

ROOT = Path(__file__).resolve().parents[2]
EVAL_DATA = Path(os.environ.get("EVAL_DATA") or ROOT.parent / "shared" / "eval-data")
if not (EVAL_DATA / "scifact" / "corpus.jsonl").exists():
    pytest.skip(f"SciFact not found under {EVAL_DATA} (set EVAL_DATA)", allow_module_level=True)

pytestmark = pytest.mark.slow

ROWS = [
    "dense top-30 p50 / p95: Footnote",
    "FAISS IndexFlatIP",
    "hnswlib (M 16, ef 100)",
    "Footnote / FAISS flat, p50",
    "recall@30 vs float32 exact: hnswlib | Footnote float16",
    "BM25 top-30 p50 / p95: Footnote",
    "bm25s + argpartition",
    "Footnote / bm25s, p50",
    "top-30 overlap Footnote vs bm25s",
    "/search service p50",
    "/search service p95",
    "hybrid share | results per query",
    "first search after a write",
    "write + index of that note",
    "cold load: every chunk from the store",
    "cold load: from the snapshot, then search",
    "index memory: tracemalloc peak, full load",
    "process RSS peak | before 1st search",
    "build: Footnote | FAISS | hnswlib | bm25s",
]
GOAL_ROWS = {
    "Footnote / FAISS flat, p50",
    "Footnote / bm25s, p50",
    "/search service p50",
    "/search service p95",
    "first search after a write",
    "index memory: tracemalloc peak",
}


def _sane(p: dict[str, float]) -> None:
    assert 0 < p["p50"] <= p["p95"] < 5_000, p


def test_small_run_prints_every_row_with_sane_figures(tmp_path: Path) -> None:
    out = tmp_path / "bench.json"
    env = {**os.environ, "PYTHONPATH": str(ROOT / "shared"), "EVAL_DATA": str(EVAL_DATA)}
    run = subprocess.run(
        [
            sys.executable,
            str(ROOT / "benchmarks" / "retrieval.py"),
            "--chunks", "300",
            "--queries", "20",
            "--writes", "1",
            "--memory-queries", "3",
            "--json", str(out),
        ],
        capture_output=True, text=True, env=env, timeout=300, check=False,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-3000:]
    text = run.stdout
    assert "SciFact" in text and "seeded random unit vectors (seed 13), 384 dims" in text
    for row in ROWS:
        lines = [line for line in text.splitlines() if row in line]
        assert lines, f"row missing: {row}\n{text}"
        if row in GOAL_ROWS:
            assert re.search(r"(PASS|FAIL)$", lines[0]), lines[0]

    size = json.loads(out.read_text())["sizes"][0]
    assert 300 <= size["chunks"] < 340 and size["replicas"] == pytest.approx(1.0)
    dense, keyword = size["engines"]["dense"], size["engines"]["keyword"]
    for p in (*dense.values(), *keyword.values()):
        _sane(p)
    # Footnote's dense search is exact over float16 vectors (recall against float32
    # exact at least 0.99, the floor); hnswlib on 300 points with ef 100 nearly so.
    assert 0.99 <= dense["footnote"]["recall"] <= 1.0
    assert 0.9 <= dense["hnswlib"]["recall"] <= 1.0
    # The same tokens and parameters: bm25s finds (nearly) the same top 30.
    assert keyword["footnote"]["agreement"] >= 0.9

    svc = size["service"]
    assert svc["chunks"] == size["chunks"]
    _sane(svc["search"])
    assert svc["results_per_query"] > 0
    assert svc["strategies"].get("hybrid_reranked", 0) > 0
    assert 0 < svc["cold_ms"] < 60_000
    [write] = svc["after_write"]
    assert write["index_ms"] > 0 and 0 < write["search_ms"] < 60_000
    mem = svc["memory"]
    assert 0 < mem["traced_peak_mb"] < 500
    assert 0 < mem["rss_start_mb"] <= mem["rss_loaded_mb"] <= mem["rss_peak_mb"]


@pytest.mark.emulator
def test_firestore_run_counts_the_documents_each_search_reads(tmp_path: Path) -> None:
    """The benchmark starts its own Firestore emulator and counts what each search
    reads: a cold load reads every chunk, a warm search reads something but not the
    tenant, and the search after a write reads at least the tenant's version."""
    out = tmp_path / "bench.json"
    env = {**os.environ, "PYTHONPATH": str(ROOT / "shared"), "EVAL_DATA": str(EVAL_DATA)}
    run = subprocess.run(
        [
            sys.executable,
            str(ROOT / "benchmarks" / "retrieval.py"),
            "--chunks", "100",
            "--queries", "5",
            "--writes", "1",
            "--memory-queries", "1",
            "--firestore",
            "--firestore-chunks", "120",
            "--json", str(out),
        ],
        capture_output=True, text=True, env=env, timeout=600, check=False,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-3000:]
    assert re.search(r"documents read per query, warm and after a write: .*(PASS|FAIL)$",
                     run.stdout, re.MULTILINE), run.stdout  # fmt: skip
    fs = json.loads(out.read_text())["firestore"]
    assert 120 <= fs["chunks"] < 160
    # the cold load reads every chunk, plus at least the tenant's version document
    assert fs["cold_reads"] > fs["chunks"]
    assert 1 <= fs["warm_reads_max"] < fs["chunks"]
    [after] = fs["after_write"]
    assert after["reads"] >= 1 and after["search_ms"] > 0
    _sane(fs["search"])
