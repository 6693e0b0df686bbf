"""The offline generator: answers with the best-supported sentences of the sources.

It never writes a word that is not in a note, so every sentence it emits is
supported by the source it cites.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from footnote.domain import Draft, Intent, QueryAnalysis, Source
from footnote.generation.prompt import NOT_ENOUGH, quote_note_text
from footnote.text import QUERY_FILLER, sentences, terms

MODEL_NAME = "extractive-v1"


@dataclass(frozen=True)
class _Candidate:
    text: str
    cid: str
    source_rank: int
    position: int
    score: float


def select_sentences(
    question_terms: Sequence[str], sources: Sequence[Source], limit: int
) -> list[_Candidate]:
    wanted = set(question_terms)
    candidates: list[_Candidate] = []
    for rank, source in enumerate(sources):
        title = _clean(source.chunk.title).rstrip(".!?").lower()
        for position, sentence in enumerate(sentences(source.chunk.text)):
            clean = _clean(sentence)
            # The indexed text starts with the note's title; a title is a label, not a claim.
            if len(clean) < 12 or (title and clean.rstrip(".!?").lower() == title):
                continue
            have = set(terms(clean))
            overlap = len(wanted & have) / len(wanted) if wanted else 0.0
            # Query-term coverage first; earlier (better-ranked) sources break ties.
            score = overlap + 0.25 / (1 + rank) + (0.02 if position == 0 else 0.0)
            candidates.append(_Candidate(clean, source.cid, rank, position, score))
    candidates.sort(key=lambda c: (-c.score, c.source_rank, c.position))
    chosen: list[_Candidate] = []
    seen: set[str] = set()
    for c in candidates:
        key = c.text.lower()
        if key in seen:
            continue
        seen.add(key)
        chosen.append(c)
        if len(chosen) >= limit:
            break
    return chosen


def compose(question: str, sources: Sequence[Source], analysis: QueryAnalysis) -> str:
    if not sources:
        return NOT_ENOUGH
    limit = 5 if analysis.intent in (Intent.LIST, Intent.SUMMARY, Intent.TIMELINE) else 3
    question_terms = list(analysis.keywords) or terms(question, QUERY_FILLER)
    chosen = select_sentences(question_terms, sources, limit)
    if not chosen:
        return NOT_ENOUGH
    if analysis.intent is Intent.TIMELINE:
        by_date = {s.cid: s.chunk.created_at for s in sources}
        chosen.sort(key=lambda c: (by_date[c.cid], c.position))
    else:
        chosen.sort(key=lambda c: (c.source_rank, c.position))
    lines = [_cite(c.text, c.cid) for c in chosen]
    if analysis.intent in (Intent.LIST, Intent.TIMELINE):
        return "\n".join(f"- {line}" for line in lines)
    return " ".join(lines)


def _clean(sentence: str) -> str:
    text = quote_note_text(sentence)
    text = re.sub(r"^\s*(?:[-*•]|\d+[.)])\s+", "", text)  # list bullets
    return re.sub(r"\s+", " ", text).strip()


def _cite(sentence: str, cid: str) -> str:
    end = sentence[-1] if sentence[-1:] in ".!?" else "."
    return f"{sentence.rstrip('.!?').rstrip()} [{cid}]{end}"


class ExtractiveGenerator:
    model = MODEL_NAME

    def generate(
        self, question: str, sources: Sequence[Source], analysis: QueryAnalysis, strict: bool
    ) -> Draft:
        return Draft(compose(question, sources, analysis), self.model)

    def stream(
        self, question: str, sources: Sequence[Source], analysis: QueryAnalysis
    ) -> Iterator[str]:
        yield compose(question, sources, analysis)
