"""Ranking and answer metrics, trec_eval conventions (linear gain, judged-relevant = score > 0)."""

from __future__ import annotations

import math
import re
import string
from collections.abc import Iterable, Mapping, Sequence


def documents_in_order(note_ids: Iterable[str]) -> list[str]:
    """Document ranking from a chunk ranking: each document at its best chunk's rank."""
    return list(dict.fromkeys(note_ids))


def ndcg_at(ranking: Sequence[str], relevance: Mapping[str, int], k: int = 10) -> float:
    ideal = sorted((r for r in relevance.values() if r > 0), reverse=True)[:k]
    if not ideal:
        return 0.0
    dcg = sum(relevance.get(d, 0) / math.log2(i + 2) for i, d in enumerate(ranking[:k]))
    idcg = sum(r / math.log2(i + 2) for i, r in enumerate(ideal))
    return dcg / idcg


def recall_at(ranking: Sequence[str], relevance: Mapping[str, int], k: int) -> float:
    relevant = {d for d, r in relevance.items() if r > 0}
    if not relevant:
        return 0.0
    return len(relevant & set(ranking[:k])) / len(relevant)


def mrr_at(ranking: Sequence[str], relevance: Mapping[str, int], k: int = 10) -> float:
    for i, d in enumerate(ranking[:k]):
        if relevance.get(d, 0) > 0:
            return 1.0 / (i + 1)
    return 0.0


def percentile(values: Sequence[float], q: float) -> float:
    """Linear-interpolated percentile (numpy's default), q in [0, 100]."""
    if not values:
        return 0.0
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q / 100
    low = math.floor(pos)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (pos - low)


def mean(values: Iterable[float]) -> float:
    items = list(values)
    return sum(items) / len(items) if items else 0.0


def normalize_answer(text: str) -> str:
    """SQuAD/HotpotQA normalisation: lower case, no punctuation, articles or extra spaces."""
    text = text.lower()
    text = "".join(ch for ch in text if ch not in set(string.punctuation))
    text = re.sub(r"\b(a|an|the)\b", " ", text)
    return " ".join(text.split())


def contains_answer(answer: str, gold: Iterable[str]) -> bool:
    """A gold answer string appears in the answer, compared on whole normalised words."""
    said = f" {normalize_answer(answer)} "
    return any(g and f" {g} " in said for g in (normalize_answer(x) for x in gold))


def citation_recall(cited: Iterable[str], gold: Iterable[str]) -> float:
    wanted = set(gold)
    return len(wanted & set(cited)) / len(wanted) if wanted else 0.0


def citation_precision(cited: Iterable[str], gold: Iterable[str]) -> float | None:
    """Share of the cited documents that are gold; None when nothing was cited."""
    named = set(cited)
    return len(named & set(gold)) / len(named) if named else None
