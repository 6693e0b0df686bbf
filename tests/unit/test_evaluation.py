"""The evaluation harness: metrics on hand-computed cases, and both commands end to end
on tiny benchmark folders written here (hash embedder: no model, no network)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from footnote.adapters.cached_embedder import CachedEmbedder
from footnote.adapters.disk_embedding_cache import SqliteEmbeddingCache
from footnote.adapters.hash_embedder import HashEmbedder
from footnote.cli import main
from footnote.evaluation import metrics
from footnote.evaluation.answers import abstention_subset, evaluate_answers, withheld_passages
from footnote.evaluation.bench import eval_settings
from footnote.evaluation.data import Question
from footnote.evaluation.retrieval import STRATEGIES, evaluate_retrieval

# -- metrics -------------------------------------------------------------------------


def test_ndcg_binary_relevance_by_hand() -> None:
    # one of two relevant documents, at rank 2: (1/log2 3) / (1 + 1/log2 3)
    expected = (1 / math.log2(3)) / (1 + 1 / math.log2(3))
    assert metrics.ndcg_at(["a", "b", "c"], {"b": 1, "d": 1}) == pytest.approx(expected)
    assert metrics.ndcg_at(["b", "d"], {"b": 1, "d": 1}) == pytest.approx(1.0)
    assert metrics.ndcg_at(["x"], {"b": 0}) == 0.0  # nothing relevant judged


def test_ndcg_graded_relevance_uses_linear_gain() -> None:
    assert metrics.ndcg_at(["x", "y"], {"x": 2, "y": 1}) == pytest.approx(1.0)
    swapped = (1 + 2 / math.log2(3)) / (2 + 1 / math.log2(3))
    assert metrics.ndcg_at(["y", "x"], {"x": 2, "y": 1}) == pytest.approx(swapped)


def test_ndcg_cuts_at_k() -> None:
    ranking = [f"d{i}" for i in range(10)] + ["hit"]
    assert metrics.ndcg_at(ranking, {"hit": 1}, k=10) == 0.0
    assert metrics.ndcg_at(ranking, {"hit": 1}, k=11) == pytest.approx(1 / math.log2(12))


def test_recall_and_mrr_by_hand() -> None:
    rel = {"b": 1, "d": 1, "z": 0}
    assert metrics.recall_at(["a", "b", "c"], rel, 10) == 0.5
    assert metrics.recall_at(["a", "b", "c"], rel, 1) == 0.0
    assert metrics.recall_at(["d", "b"], rel, 2) == 1.0
    assert metrics.mrr_at(["a", "z", "d"], rel, 10) == pytest.approx(1 / 3)
    assert metrics.mrr_at(["a", "c"], rel, 10) == 0.0


def test_documents_ranked_at_their_best_chunk() -> None:
    assert metrics.documents_in_order(["n1", "n2", "n1", "n3", "n2"]) == ["n1", "n2", "n3"]


def test_percentile_interpolates_like_numpy() -> None:
    assert metrics.percentile([4.0, 1.0, 3.0, 2.0], 50) == 2.5
    assert metrics.percentile([7.0], 50) == 7.0
    assert metrics.percentile([], 50) == 0.0


def test_answer_match_is_on_whole_normalised_words() -> None:
    assert metrics.contains_answer("It is the Kansas Song [N1].", ["Kansas Song"])
    assert metrics.contains_answer("Founded in 1865.", ["the 1865"])
    assert not metrics.contains_answer("The Kansas Songs are old.", ["Kansas Song"])
    assert not metrics.contains_answer("anything", [""])


def test_citation_recall_and_precision() -> None:
    assert metrics.citation_recall(["a", "x"], ["a", "b"]) == 0.5
    assert metrics.citation_precision(["a", "x", "y", "b"], ["a", "b"]) == 0.5
    assert metrics.citation_precision([], ["a"]) is None


# -- disk embedding cache -----------------------------------------------------------------


def test_disk_cache_survives_a_new_process_and_keys_by_model(tmp_path: Path) -> None:
    path = tmp_path / "e.sqlite"
    first = CachedEmbedder(
        HashEmbedder("hash:a:16", 16), SqliteEmbeddingCache(path), per_owner=False
    )
    vectors = first.embed_documents(["alpha beta", "gamma"])
    again = CachedEmbedder(
        HashEmbedder("hash:a:16", 16), SqliteEmbeddingCache(path), per_owner=False
    )
    assert np.allclose(again.embed_documents(["gamma", "alpha beta"]), vectors[::-1], atol=1e-6)
    assert again.misses == 0
    other_model = CachedEmbedder(
        HashEmbedder("hash:b:16", 16), SqliteEmbeddingCache(path), per_owner=False
    )
    other_model.embed_documents(["gamma"])
    assert other_model.misses == 1


# -- end to end on tiny folders -----------------------------------------------------------

BEIR_DOCS = [
    ("d1", "Aspirin and heart attacks", "Daily aspirin lowers the risk of a first heart attack."),
    ("d2", "Vitamin D", "Vitamin D deficiency is common in northern winters."),
    ("d3", "Coffee", "Coffee drinking is associated with lower liver cirrhosis risk."),
    ("d4", "Sleep", "Short sleep duration increases obesity risk in children."),
    ("d5", "Exercise", "Aerobic exercise improves memory in older adults."),
    ("d6", "", "Zinc supplements shorten the common cold by about a day."),
]
BEIR_QUERIES = [
    ("q1", "Aspirin reduces heart attack risk."),
    ("q2", "Coffee protects the liver from cirrhosis."),
    ("q3", "Zinc shortens colds."),
    ("q9", "A query without judgments is not scored."),
]
BEIR_QRELS = [("q1", "d1", 1), ("q2", "d3", 1), ("q3", "d6", 1), ("q3", "d2", 0)]


def write_beir(root: Path) -> Path:
    (root / "qrels").mkdir(parents=True)
    (root / "corpus.jsonl").write_text(
        "".join(json.dumps({"_id": i, "title": t, "text": x}) + "\n" for i, t, x in BEIR_DOCS)
    )
    (root / "queries.jsonl").write_text(
        "".join(json.dumps({"_id": i, "text": x}) + "\n" for i, x in BEIR_QUERIES)
    )
    (root / "qrels" / "dev.tsv").write_text(
        "query-id\tcorpus-id\tscore\n" + "".join(f"{q}\t{d}\t{s}\n" for q, d, s in BEIR_QRELS)
    )
    return root


HOTPOT_PASSAGES = [
    ("p1", "Lawrence, Kansas", "Lawrence is home to the main campus of the University of Kansas."),
    ("p2", "Kansas Song", "The Kansas Song is the fight song of the University of Kansas."),
    ("p3", "Ada Lovelace", "Ada Lovelace wrote the first published computer program in 1843."),
    ("p4", "Analytical Engine", "The Analytical Engine was designed by Charles Babbage."),
    ("p5", "Mount Fuji", "Mount Fuji is the highest volcano in Japan at 3776 metres."),
    ("p6", "Honshu", "Honshu is the island on which Mount Fuji stands."),
    ("p7", "Danube", "The Danube river flows through Vienna and Budapest."),
    ("p8", "Vienna", "Vienna is the capital city of Austria on the Danube."),
]
HOTPOT_QUESTIONS = [
    ("h1", "What is the fight song of the University of Kansas?", ["Kansas Song"], ["p1", "p2"]),
    (
        "h2",
        "Who designed the Analytical Engine that Ada Lovelace programmed?",
        ["Charles Babbage"],
        ["p3", "p4"],
    ),
    (
        "h3",
        "On which island does Mount Fuji, the highest volcano in Japan, stand?",
        ["Honshu"],
        ["p5", "p6"],
    ),
    ("h4", "Which river flows through Vienna, the capital of Austria?", ["Danube"], ["p7", "p8"]),
]


def write_hotpot(root: Path) -> Path:
    root.mkdir(parents=True)
    (root / "passages.jsonl").write_text(
        "".join(json.dumps({"_id": i, "title": t, "text": x}) + "\n" for i, t, x in HOTPOT_PASSAGES)
    )
    (root / "questions.jsonl").write_text(
        "".join(
            json.dumps({"_id": i, "question": q, "answers": a, "gold_passage_ids": g}) + "\n"
            for i, q, a, g in HOTPOT_QUESTIONS
        )
    )
    return root


def test_retrieval_harness_end_to_end(tmp_path: Path) -> None:
    data = write_beir(tmp_path / "beir")
    report: dict[str, Any] = evaluate_retrieval(
        data, "dev", eval_settings(embedder="hash"), tmp_path / "cache", progress=lambda _: None
    )
    assert report["queries"] == 3  # only queries with judgments
    strategies = report["strategies"]
    assert set(strategies) == set(STRATEGIES)
    for row in strategies.values():
        assert set(row) >= {"ndcg@10", "recall@10", "recall@100", "mrr@10", "p50_ms"}
        assert all(0.0 <= row[k] <= 1.0 for k in ("ndcg@10", "recall@10", "recall@100", "mrr@10"))
    # the fixture's queries share words with exactly one relevant abstract each
    assert strategies["bm25"]["mrr@10"] == pytest.approx(1.0)
    assert strategies["default"]["recall@10"] == pytest.approx(1.0)
    assert (tmp_path / "cache" / "embeddings.sqlite").exists()


def test_retrieval_command_writes_the_json_shape(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("EMBEDDER", "hash")
    data = write_beir(tmp_path / "beir")
    out = tmp_path / "out" / "r.json"
    code = main(
        [
            "eval",
            "retrieval",
            str(data),
            "--split",
            "dev",
            "--json",
            str(out),
            "--limit",
            "2",
            "--strategies",
            "bm25,default",
            "--no-cache",
        ]
    )
    assert code == 0
    report = json.loads(out.read_text())
    assert report["queries"] == 2
    assert set(report["strategies"]) == {"bm25", "default"}


def test_abstention_subset_is_fixed_and_withholds_only_unshared_gold() -> None:
    questions = [Question(f"q{i}", "x", (), (f"g{i}", "shared")) for i in range(10)]
    subset = abstention_subset(questions)
    assert subset == abstention_subset(list(reversed(questions)))
    assert len(subset) == 5
    held = withheld_passages(questions, subset)
    assert held == {f"g{q[1:]}" for q in subset}


def test_answers_harness_end_to_end(tmp_path: Path) -> None:
    data = write_hotpot(tmp_path / "hotpot")
    report: dict[str, Any] = evaluate_answers(
        data, eval_settings(embedder="hash"), tmp_path / "cache", progress=lambda _: None
    )
    keys = (
        "answer_recall",
        "citation_recall",
        "citation_precision",
        "validated_share",
        "abstention_rate",
        "answered_rate",
    )
    assert all(0.0 <= report[k] <= 1.0 for k in keys)
    assert report["questions"] == 4 and report["abstention_questions"] == 2
    assert report["withheld_passages"] == 4
    assert report["answer_recall"] > 0
    assert report["citation_precision"] > 0
    assert report["validated_share"] == 1.0  # the quote generator only quotes notes


# -- evaluation variants (what production never changes) ------------------------------


def test_evaluation_config_reads_variants_from_eval_variables(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from pydantic import ValidationError

    from footnote.evaluation.config import EvaluationConfig
    from footnote.retrieval.variant import SHIPPED

    assert EvaluationConfig().ranking == SHIPPED  # unset: what ships
    monkeypatch.setenv("EVAL_RANKING__FUSION", "rrf")
    monkeypatch.setenv("EVAL_RANKING__BM25_METHOD", "bm25l")
    config = EvaluationConfig()
    assert (config.ranking.fusion, config.ranking.bm25_method) == ("rrf", "bm25l")
    assert config.ranking.feedback_terms == SHIPPED.feedback_terms  # the rest as shipped
    monkeypatch.setenv("EVAL_RANKING__FUSION", "best")
    with pytest.raises(ValidationError):
        EvaluationConfig()


def test_production_settings_hold_no_evaluation_variant() -> None:
    from footnote.config import Settings
    from footnote.retrieval.variant import RankingVariant

    assert not set(RankingVariant.model_fields) & set(Settings.model_fields)


def test_the_bench_container_wires_the_variant_it_is_given(tmp_path: Path) -> None:
    from footnote.evaluation.bench import BenchContainer, index_documents
    from footnote.evaluation.config import EvaluationConfig
    from footnote.evaluation.data import load_beir
    from footnote.generation.quote import QuoteGenerator
    from footnote.retrieval.variant import RankingVariant

    data = load_beir(write_beir(tmp_path / "beir"), "dev")
    variant = EvaluationConfig(ranking=RankingVariant(bm25_method="bm25l"))
    app = BenchContainer(eval_settings(embedder="hash"), None, variant)
    index_documents(app, "t", data.documents, lambda _: None)
    assert app.corpora.get("t").bm25.method == "bm25l"
    shipped = BenchContainer(eval_settings(embedder="hash"), None)
    index_documents(shipped, "t", data.documents, lambda _: None)
    assert shipped.corpora.get("t").bm25.method == "lucene"
    assert isinstance(shipped.generator, QuoteGenerator)
    assert shipped.generator._relevance is not None


def test_retrieval_command_reports_the_variants_default_fusion(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("EMBEDDER", "hash")
    monkeypatch.setenv("EVAL_RANKING__FUSION", "rrf")
    data = write_beir(tmp_path / "beir")
    out = tmp_path / "r.json"
    args = ["eval", "retrieval", str(data), "--split", "dev", "--json", str(out), "--no-cache"]
    assert main([*args, "--strategies", "rrf,default"]) == 0
    report = json.loads(out.read_text())
    assert report["default_fusion"] == "rrf"
    rows = report["strategies"]
    drop = lambda row: {k: v for k, v in row.items() if k != "p50_ms"}  # noqa: E731
    assert drop(rows["default"]) == drop(rows["rrf"])
