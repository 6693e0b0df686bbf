"""Query analysis (minimal placeholder until the full table-driven version lands)."""

from __future__ import annotations

import re
from datetime import datetime

from footnote.domain import Intent, QueryAnalysis
from footnote.text import QUERY_FILLER, terms


def analyze(query: str, now: datetime) -> QueryAnalysis:
    normalized = re.sub(r"\s+", " ", query).strip()
    keywords = tuple(dict.fromkeys(terms(normalized, QUERY_FILLER)))
    lowered = normalized.lower()
    intent = Intent.FACTUAL
    if re.search(r"\b(decide|decision|chose|choose)\b", lowered):
        intent = Intent.DECISION
    elif re.search(r"\b(list|all)\b", lowered):
        intent = Intent.LIST
    return QueryAnalysis(query, normalized, keywords, intent)
