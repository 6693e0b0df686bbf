"""Benchmark readers: BEIR layout (retrieval) and HotpotQA layout (cited answers)."""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Document:
    doc_id: str
    title: str
    text: str


@dataclass(frozen=True)
class Question:
    qid: str
    text: str
    answers: tuple[str, ...] = ()
    gold_ids: tuple[str, ...] = ()


Qrels = dict[str, dict[str, int]]  # query id -> document id -> graded relevance


def _jsonl(path: Path) -> Iterator[dict[str, Any]]:
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                yield json.loads(line)


def read_documents(path: Path) -> list[Document]:
    """``corpus.jsonl`` or ``passages.jsonl``: ``_id``, ``title``, ``text``."""
    return [
        Document(str(row["_id"]), str(row.get("title") or ""), str(row.get("text") or ""))
        for row in _jsonl(path)
    ]


def read_beir_queries(path: Path) -> dict[str, str]:
    return {str(row["_id"]): str(row["text"]) for row in _jsonl(path)}


def read_qrels(path: Path) -> Qrels:
    """``query-id  corpus-id  score`` with a header line; score 0 means judged irrelevant."""
    qrels: Qrels = {}
    with path.open(encoding="utf-8") as handle:
        for row in csv.reader(handle, delimiter="\t"):
            if len(row) < 3 or row[0] == "query-id":
                continue
            qrels.setdefault(row[0], {})[row[1]] = int(row[2])
    return qrels


def read_hotpot_questions(path: Path) -> list[Question]:
    return [
        Question(
            str(row["_id"]),
            str(row["question"]),
            tuple(str(a) for a in row.get("answers") or ()),
            tuple(str(g) for g in row.get("gold_passage_ids") or ()),
        )
        for row in _jsonl(path)
    ]


@dataclass(frozen=True)
class BeirSet:
    documents: list[Document]
    queries: dict[str, str]
    qrels: Qrels


def load_beir(data_dir: Path, split: str) -> BeirSet:
    return BeirSet(
        read_documents(data_dir / "corpus.jsonl"),
        read_beir_queries(data_dir / "queries.jsonl"),
        read_qrels(data_dir / "qrels" / f"{split}.tsv"),
    )


@dataclass(frozen=True)
class HotpotSet:
    passages: list[Document]
    questions: list[Question]


def load_hotpot(data_dir: Path) -> HotpotSet:
    return HotpotSet(
        read_documents(data_dir / "passages.jsonl"),
        read_hotpot_questions(data_dir / "questions.jsonl"),
    )
