"""Retrieval on a BEIR-layout folder: every strategy through the Retriever ``/chat`` uses."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from footnote.config import Settings
from footnote.evaluation import metrics
from footnote.evaluation.bench import (
    QUESTIONS_ASKED,
    BenchContainer,
    Progress,
    doc_id,
    index_documents,
    stderr_progress,
)
from footnote.evaluation.config import EvaluationConfig
from footnote.evaluation.data import Qrels, load_beir
from footnote.query.analysis import analyze

TENANT = "eval-beir"
STRATEGIES = ("bm25", "dense", "weighted", "rrf", "default")
# Enough chunks that a query can rank 100 distinct documents (Recall@100).
CHUNK_DEPTH = 300


@dataclass(frozen=True)
class Scores:
    ndcg10: float
    recall10: float
    recall100: float
    mrr10: float
    p50_ms: float
    matched: float

    def as_json(self) -> dict[str, float]:
        return {
            "ndcg@10": round(self.ndcg10, 4),
            "recall@10": round(self.recall10, 4),
            "recall@100": round(self.recall100, 4),
            "mrr@10": round(self.mrr10, 4),
            "p50_ms": round(self.p50_ms, 2),
            "matched_rate": round(self.matched, 4),
        }


def score_runs(
    runs: dict[str, list[str]], qrels: Qrels, latencies: Sequence[float], matched: float
) -> Scores:
    """Mean metrics over the judged queries; a query with no run scores zero."""
    judged = [q for q in qrels if any(r > 0 for r in qrels[q].values())]
    ranking = {q: runs.get(q, []) for q in judged}
    return Scores(
        metrics.mean(metrics.ndcg_at(ranking[q], qrels[q], 10) for q in judged),
        metrics.mean(metrics.recall_at(ranking[q], qrels[q], 10) for q in judged),
        metrics.mean(metrics.recall_at(ranking[q], qrels[q], 100) for q in judged),
        metrics.mean(metrics.mrr_at(ranking[q], qrels[q], 10) for q in judged),
        metrics.percentile(latencies, 50),
        matched,
    )


def answerable_queries(qrels: Qrels, queries: dict[str, str], indexed: set[str]) -> list[str]:
    """Judged queries, in id order, whose relevant documents are all indexed.

    With the whole corpus that is every judged query; with ``--corpus-limit``
    (a quick, smaller run) a query whose answer was not indexed is left out
    rather than scored as a miss.
    """
    return sorted(
        q for q in qrels if q in queries and all(d in indexed for d, r in qrels[q].items() if r > 0)
    )


def deep_settings(settings: Settings) -> Settings:
    return settings.model_copy(
        update={"retrieval_top_k": max(settings.retrieval_top_k, CHUNK_DEPTH)}
    )


def evaluate_retrieval(
    data_dir: Path,
    split: str,
    settings: Settings,
    cache_dir: Path | None,
    limit: int | None = None,
    strategies: Sequence[str] = STRATEGIES,
    progress: Progress = stderr_progress,
    corpus_limit: int | None = None,
    evaluation: EvaluationConfig | None = None,
) -> dict[str, object]:
    data = load_beir(data_dir, split)
    documents = data.documents[:corpus_limit] if corpus_limit else data.documents
    qids = answerable_queries(data.qrels, data.queries, {d.doc_id for d in documents})
    if limit:
        qids = qids[:limit]
    qrels = {q: data.qrels[q] for q in qids}
    app = BenchContainer(deep_settings(settings), cache_dir, evaluation)
    progress(f"indexing {len(documents)} documents ({app.embedder.model_id})")
    index_documents(app, TENANT, documents, progress)

    results: dict[str, dict[str, float]] = {}
    for strategy in strategies:
        fusion = None if strategy == "default" else strategy
        runs: dict[str, list[str]] = {}
        latencies: list[float] = []
        matched = 0
        for q in qids:
            started = time.perf_counter()
            analysis = analyze(data.queries[q], QUESTIONS_ASKED)
            result = app.retriever.retrieve(TENANT, analysis, k=CHUNK_DEPTH, fusion_name=fusion)
            latencies.append((time.perf_counter() - started) * 1000)
            # /search shows nothing for a gated (unmatched) query; neither do we.
            if result.matched:
                matched += 1
                runs[q] = metrics.documents_in_order(doc_id(c.chunk.note_id) for c in result.chunks)
        scores = score_runs(runs, qrels, latencies, matched / len(qids) if qids else 0.0)
        results[strategy] = scores.as_json()
        progress(f"  {strategy:<9} {format_row(results[strategy])}")
    return {
        "dataset": str(data_dir),
        "split": split,
        "queries": len(qids),
        "documents": len(documents),
        "corpus_documents": len(data.documents),
        "embedding_model": app.embedder.model_id,
        "default_fusion": app.ranking.fusion,
        "chunk_size": settings.chunk_size,
        "chunk_overlap": settings.chunk_overlap,
        "strategies": results,
    }


def format_row(row: dict[str, float]) -> str:
    return "  ".join(f"{k}={v}" for k, v in row.items())


def format_table(report: dict[str, object]) -> str:
    strategies = report["strategies"]
    assert isinstance(strategies, dict)
    keys = ("ndcg@10", "recall@10", "recall@100", "mrr@10", "p50_ms", "matched_rate")
    lines = ["| strategy | " + " | ".join(keys) + " |", "|---" * (len(keys) + 1) + "|"]
    for name, row in strategies.items():
        lines.append(f"| {name} | " + " | ".join(str(row[k]) for k in keys) + " |")
    return "\n".join(lines)
