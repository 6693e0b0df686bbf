"""SciFact (or any BEIR folder) through the real Vertex Vector Search code path,
against the wire fake, beside the in-memory path — nDCG@10 for each.

    python benchmarks/vertex_fake_eval.py ../shared/eval-data/scifact --split train
    python benchmarks/vertex_fake_eval.py ../shared/eval-data/scifact --embedder hash --limit 200

Indexing runs through the production wiring (``VECTOR_INDEX=vertex``): the
IndexingService writes chunks to the in-memory store, records each note's BM25
term statistics (the count-min sketch Firestore keeps) and upserts hybrid
datapoints (dense + sparse) with the aiplatform_v1 SDK over REST into
``tests/fakes/google_apis.py``. Each query then makes one ``search_hybrid`` call.

Rows:
- ``memory``: the shipped in-memory Retriever, default fusion (the reference).
- ``memory-lists``: the same fusion, gating and MMR as below, fed the in-memory
  dense and BM25 lists (checks that this script's pipeline is the retriever's).
- ``vertex-local``: the two neighbour lists from Vector Search, fused here with the
  shipped z-score hybrid fusion, gated and diversified with the neighbours' vectors.
- ``vertex-exact-idf``: the same with exact df (no sketch) for the query's IDF.
- ``vertex-rrf-a{alpha}``: the service fuses (``rrf.alpha``); one list.

Benchmark notes share one creation date, so recency never takes part (as in
``footnote eval retrieval``). Candidate depth is the harness's 300 per list.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "shared"))
sys.path.insert(0, str(ROOT))

from tests.fakes.google_apis import FakeGoogleApis  # noqa: E402
from tests.fakes.vertex import vertex_settings  # noqa: E402

from footnote.adapters.memory_store import MemoryStore  # noqa: E402
from footnote.adapters.memory_term_stats import MemoryTermStats  # noqa: E402
from footnote.adapters.vertex_vector_index import VertexVectorIndex  # noqa: E402
from footnote.domain import Hit  # noqa: E402
from footnote.evaluation import metrics  # noqa: E402
from footnote.evaluation.bench import (  # noqa: E402
    DEFAULT_CACHE_DIR,
    QUESTIONS_ASKED,
    BenchContainer,
    doc_id,
    index_documents,
    stderr_progress,
)
from footnote.evaluation.data import load_beir  # noqa: E402
from footnote.evaluation.retrieval import (  # noqa: E402
    CHUNK_DEPTH,
    answerable_queries,
    deep_settings,
    score_runs,
)
from footnote.ports import HybridQuery, Neighbor  # noqa: E402
from footnote.query.analysis import analyze  # noqa: E402
from footnote.retrieval import fusion  # noqa: E402
from footnote.retrieval.gating import confidence  # noqa: E402
from footnote.retrieval.mmr import mmr  # noqa: E402
from footnote.retrieval.retriever import Retriever  # noqa: E402
from footnote.retrieval.sparse import NoteTerms, chunk_terms  # noqa: E402
from footnote.retrieval.variant import SHIPPED  # noqa: E402

TENANT = "eval-beir"


def ranked(
    dense: Sequence[Neighbor],
    keyword: Sequence[Neighbor],
    qvec: np.ndarray,
    settings: object,
    fused_order: bool = False,
) -> tuple[list[str], bool]:
    """The retriever's stages over neighbour lists: fuse, gate by cosine, MMR."""
    s = settings
    vectors = {n.chunk_id: n.vector for n in [*dense, *keyword] if n.vector is not None}
    if fused_order:
        fused = fusion.weighted(
            {"vector": [Hit(n.chunk_id, n.score) for n in dense]}, {"vector": 1.0}, 0.0
        )
    else:
        rankings = {
            "vector": [Hit(n.chunk_id, n.score) for n in dense],
            "keyword": [Hit(n.chunk_id, n.score) for n in keyword],
        }
        alpha = s.hybrid_alpha  # type: ignore[attr-defined]
        fused = fusion.convex(
            rankings,
            {"vector": alpha, "keyword": 1.0 - alpha},
            SHIPPED.hybrid_normalise,
        )
    ids = [f.chunk_id for f in fused if f.chunk_id in vectors]
    sims = {cid: float(np.dot(vectors[cid], qvec)) for cid in ids}
    relevant = [cid for cid in ids if sims[cid] >= s.min_similarity]  # type: ignore[attr-defined]
    if not relevant:
        return [], False
    by_id = {f.chunk_id: f for f in fused}
    pool = relevant[: s.retrieval_top_k]  # type: ignore[attr-defined]
    matrix = np.array([vectors[cid] for cid in pool], dtype=np.float32)
    order = mmr(
        [by_id[cid].score for cid in pool],
        matrix,
        CHUNK_DEPTH,
        s.mmr_lambda,  # type: ignore[attr-defined]
        s.near_duplicate_threshold,  # type: ignore[attr-defined]
    )
    picked = [pool[i] for i in order]
    matched = confidence([sims[c] for c in picked]) >= s.min_confidence  # type: ignore[attr-defined]
    return picked, matched


def run(
    name: str,
    qids: Sequence[str],
    ask: Callable[[str], tuple[list[str], bool]],
    qrels: dict,  # type: ignore[type-arg]
    note_of: Callable[[str], str],
) -> dict[str, float]:
    runs: dict[str, list[str]] = {}
    latencies: list[float] = []
    matched = 0
    for q in qids:
        started = time.perf_counter()
        chunk_ids, ok = ask(q)
        latencies.append((time.perf_counter() - started) * 1000)
        if ok:
            matched += 1
            runs[q] = metrics.documents_in_order(doc_id(note_of(c)) for c in chunk_ids)
    scores = score_runs(runs, qrels, latencies, matched / len(qids) if qids else 0.0).as_json()
    stderr_progress(f"  {name:<18} " + "  ".join(f"{k}={v}" for k, v in scores.items()))
    return scores


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data_dir", type=Path)
    parser.add_argument("--split", default="train")
    parser.add_argument("--embedder", default="local", choices=["local", "hash"])
    parser.add_argument("--limit", type=int, default=None, help="first N judged queries")
    parser.add_argument(
        "--alphas", default="0.5", help="service RRF alphas to measure, comma-separated"
    )
    parser.add_argument("--cache-dir", type=Path, default=DEFAULT_CACHE_DIR)
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--skip-memory", action="store_true", help="skip the in-memory row")
    parser.add_argument(
        "--no-exact-idf", action="store_true", help="skip the exact-df row (saves a pass)"
    )
    parser.add_argument(
        "--check-pipeline",
        action="store_true",
        help="also run memory-lists (this script's stages over the in-memory lists)",
    )
    args = parser.parse_args(argv)

    data = load_beir(args.data_dir, args.split)
    qids = answerable_queries(data.qrels, data.queries, {d.doc_id for d in data.documents})
    if args.limit:
        qids = qids[: args.limit]
    qrels = {q: data.qrels[q] for q in qids}
    report: dict[str, object] = {
        "dataset": str(args.data_dir),
        "split": args.split,
        "queries": len(qids),
    }

    with FakeGoogleApis() as fake:
        settings = deep_settings(
            vertex_settings(
                fake,
                EMBEDDER=args.embedder,
                GENERATOR="quote",
                CLASSIFIER="rules",
                # quality, not latency, is measured: a loaded machine must not time out
                VECTOR_SEARCH_TIMEOUT_MS=120_000,
            )
        )
        app = BenchContainer(settings, args.cache_dir)
        index = app.vector_index
        assert isinstance(index, VertexVectorIndex), type(index)
        started = time.perf_counter()
        stderr_progress(
            f"indexing {len(data.documents)} documents into the fake ({app.embedder.model_id})"
        )
        index_documents(app, TENANT, data.documents, stderr_progress)
        report["index_s"] = round(time.perf_counter() - started, 1)
        report["datapoints"] = len(next(iter(fake.indexes.values())))
        report["embedding_model"] = app.embedder.model_id
        store = app.store
        assert isinstance(store, MemoryStore), type(store)  # NOTE_STORE=memory
        note_of = lambda cid: store.chunks[cid].note_id  # noqa: E731

        memory = Retriever(settings, app.corpora, app.embedder, None)
        corpus = app.corpora.get(TENANT)
        cache: dict[str, tuple[np.ndarray, tuple[str, ...]]] = {}

        def analysed(q: str) -> tuple[np.ndarray, tuple[str, ...]]:
            if q not in cache:
                analysis = analyze(data.queries[q], QUESTIONS_ASKED)
                vec = np.asarray(app.embedder.embed_query(analysis.normalized), dtype=np.float32)
                cache[q] = (vec, tuple(analysis.keywords))
            return cache[q]

        def ask_memory(q: str) -> tuple[list[str], bool]:
            analysis = analyze(data.queries[q], QUESTIONS_ASKED)
            result = memory.retrieve(TENANT, analysis, k=CHUNK_DEPTH)
            return [c.chunk.chunk_id for c in result.chunks], result.matched

        def ask_memory_lists(q: str) -> tuple[list[str], bool]:
            vec, keywords = analysed(q)
            mask = corpus.mask(None, ())
            # An ndarray is what similarities() wants; Sequence[float] is the port's type.
            dense = corpus.vector_hits(vec, settings.retrieval_top_k, mask)  # type: ignore[arg-type]
            keyword = corpus.keyword_hits(keywords, settings.retrieval_top_k, mask)
            row = corpus.by_id
            as_n = lambda hits: [  # noqa: E731
                Neighbor(h.chunk_id, h.score, 0.0, tuple(corpus.matrix[row[h.chunk_id]]))
                for h in hits
            ]
            return ranked(as_n(dense), as_n(keyword), vec, settings)

        def ask_vertex(
            target: VertexVectorIndex, fused_order: bool = False
        ) -> Callable[[str], tuple[list[str], bool]]:
            def ask(q: str) -> tuple[list[str], bool]:
                vec, keywords = analysed(q)
                hits = target.search_hybrid(
                    HybridQuery(
                        TENANT,
                        app.embedder.model_id,
                        vec.tolist(),
                        keywords,
                        settings.retrieval_top_k,
                    )
                )
                return ranked(hits.dense, hits.keyword, vec, settings, fused_order)

            return ask

        rows: dict[str, dict[str, float]] = {}
        if not args.skip_memory:
            rows["memory"] = run("memory", qids, ask_memory, qrels, note_of)
        if args.check_pipeline:
            rows["memory-lists"] = run("memory-lists", qids, ask_memory_lists, qrels, note_of)
        rows["vertex-local"] = run("vertex-local", qids, ask_vertex(index), qrels, note_of)

        exact = MemoryTermStats()
        by_note: dict[str, list] = {}  # type: ignore[type-arg]
        for c in store.chunks.values():
            if c.tenant_id == TENANT:
                by_note.setdefault(c.note_id, []).append(c)
        for note_id, chunks in by_note.items():
            exact.record(TENANT, note_id, None, NoteTerms.of(chunk_terms(c) for c in chunks))
        exact_index = VertexVectorIndex.from_settings(settings, term_stats=exact)
        if not args.no_exact_idf:
            rows["vertex-exact-idf"] = run(
                "vertex-exact-idf", qids, ask_vertex(exact_index), qrels, note_of
            )
        for alpha in [float(a) for a in args.alphas.split(",") if a]:
            service = VertexVectorIndex.from_settings(
                settings, term_stats=app.term_stats, fusion="service", rrf_alpha=alpha
            )
            name = f"vertex-rrf-a{alpha}"
            rows[name] = run(name, qids, ask_vertex(service, fused_order=True), qrels, note_of)
        report["strategies"] = rows
        term_stats = app.term_stats
        assert term_stats is not None
        sketch_stats = term_stats.statistics(TENANT)
        exact_stats = exact.statistics(TENANT)
        assert isinstance(exact_stats.df, Mapping)  # exact: no sketch
        report["stats"] = {
            "chunks": exact_stats.docs,
            "sketch_docs": sketch_stats.docs,
            "vocabulary": len(dict(exact_stats.df)),
            "sketch": f"{settings.term_stats_sketch_width}x{settings.term_stats_sketch_depth}",
            "df_overestimated_terms": sum(
                1 for t, n in dict(exact_stats.df).items() if sketch_stats.df_of(t) != n
            ),
        }
    print(json.dumps(report, indent=2))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
