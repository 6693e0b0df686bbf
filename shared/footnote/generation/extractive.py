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
# Share of the question's content terms the quoted sentences must cover together;
# below it the notes are about something else and we say so instead of guessing.
# 0.5, not more: stemming misses irregular forms ("choose" / "chose"), so a
# stricter floor turns away real answers (0.6 and 0.7 measured in docs/quality.md).
MIN_COVERAGE = 0.5
# A factual answer quotes at most this many sentences (plus one linked note).
FACTUAL_SENTENCES = 3
# Notes named by a quoted sentence (by title) join the answer: the second hop.
MAX_LINKED = 1


@dataclass(frozen=True)
class _Candidate:
    text: str
    cid: str
    source_rank: int
    position: int
    score: float
    terms: frozenset[str] = frozenset()


def candidates(question_terms: Sequence[str], sources: Sequence[Source]) -> list[_Candidate]:
    """Every quotable sentence of the sources, scored by query-term coverage."""
    wanted = set(question_terms)
    out: list[_Candidate] = []
    for rank, source in enumerate(sources):
        title = _clean(source.chunk.title).rstrip(".!?").lower()
        for position, sentence in enumerate(sentences(source.chunk.text)):
            clean = _clean(sentence)
            # The indexed text starts with the note's title; a title is a label, not a claim.
            if len(clean) < 12 or (title and clean.rstrip(".!?").lower() == title):
                continue
            have = frozenset(terms(clean))
            overlap = len(wanted & have) / len(wanted) if wanted else 0.0
            # Query-term coverage first; earlier (better-ranked) sources break ties.
            score = overlap + 0.25 / (1 + rank) + (0.02 if position == 0 else 0.0)
            out.append(_Candidate(clean, source.cid, rank, position, score, have))
    out.sort(key=lambda c: (-c.score, c.source_rank, c.position))
    return out


def select_sentences(
    question_terms: Sequence[str], sources: Sequence[Source], limit: int
) -> list[_Candidate]:
    """The best-scoring distinct sentences, up to ``limit`` (lists, summaries, timelines)."""
    chosen: list[_Candidate] = []
    seen: set[str] = set()
    for c in candidates(question_terms, sources):
        key = c.text.lower()
        if key in seen:
            continue
        seen.add(key)
        chosen.append(c)
        if len(chosen) >= limit:
            break
    return chosen


def select_covering(
    question_terms: Sequence[str], sources: Sequence[Source], limit: int
) -> list[_Candidate]:
    """Sentences that together cover the question, each adding terms the others lack.

    A factual question is answered by the few sentences that jointly match it;
    a sentence that repeats covered terms adds a citation, not an answer, and
    every extra citation is one more chance to cite a note that is not the source.
    """
    wanted = set(question_terms)
    pool = candidates(question_terms, sources)
    if not pool:
        return []
    chosen = [pool[0]]
    covered = set(pool[0].terms & wanted)
    while len(chosen) < limit:
        best, best_value = None, 0.0
        for c in pool:
            gain = len((c.terms & wanted) - covered) / len(wanted) if wanted else 0.0
            value = gain + 0.25 / (1 + c.source_rank)
            if gain > 0 and c not in chosen and value > best_value:
                best, best_value = c, value
        if best is None:
            break
        chosen.append(best)
        covered |= best.terms & wanted
    if wanted and len(covered) / len(wanted) < MIN_COVERAGE:
        return []
    return chosen + linked_notes(chosen, pool, sources)


def linked_notes(
    chosen: Sequence[_Candidate], pool: Sequence[_Candidate], sources: Sequence[Source]
) -> list[_Candidate]:
    """The best sentence of a note whose title a chosen sentence names.

    "founded by Henry J. Kaiser" makes the note titled "Henry J. Kaiser" the
    next hop of the answer, even when it shares few words with the question.
    """
    quoted = " ".join(c.text.lower() for c in chosen)
    cited = {c.cid for c in chosen}
    out: list[_Candidate] = []
    for source in sources:
        if len(out) >= MAX_LINKED:
            break
        title = source.chunk.title.strip().lower()
        if source.cid in cited or len(title) < 4:
            continue
        if not re.search(rf"(?<!\w){re.escape(title)}(?!\w)", quoted):
            continue
        best = next((c for c in pool if c.cid == source.cid), None)
        if best is not None:
            out.append(best)
            cited.add(source.cid)
    return out


def compose(question: str, sources: Sequence[Source], analysis: QueryAnalysis) -> str:
    if not sources:
        return NOT_ENOUGH
    limit = 5 if analysis.intent in (Intent.LIST, Intent.SUMMARY, Intent.TIMELINE) else FACTUAL_SENTENCES
    question_terms = list(analysis.keywords) or terms(question, QUERY_FILLER)
    if analysis.intent in (Intent.LIST, Intent.SUMMARY, Intent.TIMELINE):
        chosen = select_sentences(question_terms, sources, limit)
    else:
        chosen = select_covering(question_terms, sources, limit)
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
