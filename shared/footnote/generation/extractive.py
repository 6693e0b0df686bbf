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
from footnote.text import DECISION_VERBS, QUERY_FILLER, STOPWORDS, sentences, terms

MODEL_NAME = "extractive-v1"
# Share of the question's content terms the quoted sentences must cover together;
# below it the notes are about something else and we say so instead of guessing.
# 0.5, not more: stemming misses irregular forms (decision verbs are matched as a
# class, other verbs are not), so a stricter floor turns away real answers (0.6 and
# 0.7 measured in docs/quality.md).
MIN_COVERAGE = 0.5
# A factual answer quotes at most this many sentences (plus one linked note).
FACTUAL_SENTENCES = 3
# ... from at most this many notes: a third note that adds a question word is
# more often a same-topic neighbour than a source (HotpotQA: precision 0.707 with
# 3 notes, 0.764 with 2, citation recall 0.785 vs 0.765).
FACTUAL_NOTES = 2
# Notes named by a quoted sentence (by title) join the answer: the second hop.
MAX_LINKED = 1
# A note whose title the question names is what the question is about: its
# sentences get this bonus over others with the same share of question terms.
NAMED_TITLE_BONUS = 0.25
# A capitalised first word is a name only if it is not one of these openers.
_OPENERS = frozenset(
    {
        "summarize",
        "summarise",
        "describe",
        "explain",
        "compare",
        "name",
        "list",
        "who",
        "what",
        "which",
        "when",
        "where",
        "why",
        "how",
        "is",
        "are",
        "was",
        "were",
        "did",
        "do",
        "does",
    }
)
# Dates are matched against a note's date, not its text.
_CALENDAR = frozenset(
    {
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
        "monday",
        "tuesday",
        "wednesday",
        "thursday",
        "friday",
        "saturday",
        "sunday",
    }
)
_TOKEN = re.compile(r"[^\W_]+(?:['’][^\W_]+)*|[^\w\s]")


@dataclass(frozen=True)
class _Candidate:
    text: str
    cid: str
    source_rank: int
    position: int
    score: float
    terms: frozenset[str] = frozenset()


def decision_terms(question: str, question_terms: Sequence[str]) -> frozenset[str]:
    """The question's terms that are decision verbs ("choos" in "Why did we choose X?")."""
    found = {t for m in DECISION_VERBS.finditer(question) for t in terms(m.group(0))}
    return frozenset(found & set(question_terms))


def candidates(
    question_terms: Sequence[str],
    sources: Sequence[Source],
    named: frozenset[str] = frozenset(),
    decided: frozenset[str] = frozenset(),
) -> list[_Candidate]:
    """Every quotable sentence of the sources, scored by query-term coverage.

    ``named``: citation ids of the notes whose title the question names.
    ``decided``: the question's decision verbs, which any sentence recording a
    decision covers, whatever verb it uses.
    """
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
            if decided and DECISION_VERBS.search(clean):
                have |= decided
            overlap = len(wanted & have) / len(wanted) if wanted else 0.0
            # Query-term coverage first; earlier (better-ranked) sources break ties.
            score = overlap + 0.25 / (1 + rank) + (0.02 if position == 0 else 0.0)
            if source.cid in named:
                score += NAMED_TITLE_BONUS
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
    question_terms: Sequence[str],
    sources: Sequence[Source],
    limit: int,
    named: frozenset[str] = frozenset(),
    decided: frozenset[str] = frozenset(),
) -> list[_Candidate]:
    """Sentences that together cover the question, each adding terms the others lack.

    A factual question is answered by the few sentences that jointly match it;
    a sentence that repeats covered terms adds a citation, not an answer, and
    every extra citation is one more chance to cite a note that is not the source.
    They come from at most ``FACTUAL_NOTES`` notes, preferring notes the question
    names (``named``), plus one note a quoted sentence names.
    """
    wanted = set(question_terms)
    pool = candidates(question_terms, sources, named, decided)
    if not pool:
        return []
    chosen = [pool[0]]
    notes = {pool[0].cid}
    covered = set(pool[0].terms & wanted)
    while len(chosen) < limit:
        best, best_value = None, 0.0
        for c in pool:
            if c.cid not in notes and len(notes) >= FACTUAL_NOTES:
                continue
            gain = len((c.terms & wanted) - covered) / len(wanted) if wanted else 0.0
            value = (
                gain + 0.25 / (1 + c.source_rank) + (NAMED_TITLE_BONUS if c.cid in named else 0.0)
            )
            if gain > 0 and c not in chosen and value > best_value:
                best, best_value = c, value
        if best is None:
            break
        chosen.append(best)
        notes.add(best.cid)
        covered |= best.terms & wanted
    if wanted and len(covered) / len(wanted) < MIN_COVERAGE:
        return []
    return chosen + linked_notes(chosen, pool, sources, named)


def linked_notes(
    chosen: Sequence[_Candidate],
    pool: Sequence[_Candidate],
    sources: Sequence[Source],
    named: frozenset[str] = frozenset(),
) -> list[_Candidate]:
    """The best sentence of a note whose title a chosen sentence names.

    "founded by Henry J. Kaiser" makes the note titled "Henry J. Kaiser" the
    next hop of the answer, even when it shares few words with the question.
    A note the question itself names is no next hop: it had its chance to be
    chosen for what it says (measured: 1 source in 12 such links).
    """
    quoted = " ".join(c.text.lower() for c in chosen)
    cited = {c.cid for c in chosen} | set(named)
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


def name_phrases(question: str, analysis: QueryAnalysis | None = None) -> list[tuple[str, ...]]:
    """What the question names: runs of capitalised words or numbers, as stemmed terms.

    "Who founded Kaiser Ventures in 1941?" names ("kaiser", "ventur") and ("1941",).
    A capitalised first word counts unless it is a question word or command
    ("Why", "Summarize"); month and day names, and numbers and the words of the
    time phrase when the question has a date window ("in Q3"), are left to the
    date filter. A question without a
    lowercase word (TITLE CASE, CAPITALS) names nothing: its capitals say nothing.
    """
    tokens = _TOKEN.findall(question)
    if not any(t[:1].islower() for t in tokens):
        return []
    window = analysis.window if analysis is not None else None
    dated = set(_TOKEN.findall(window.label.lower())) if window is not None else set()
    phrases: list[tuple[str, ...]] = []
    run: list[str] = []

    def flush() -> None:
        while run and not run[-1][:1].isalnum():
            run.pop()
        phrase = tuple(terms(" ".join(run)))
        if phrase and phrase not in phrases:
            phrases.append(phrase)
        run.clear()

    for i, token in enumerate(tokens):
        low = token.lower()
        name = token[:1].isupper() or token[:1].isdigit()
        if token == "I" or low in _CALENDAR:
            name = False
        if i == 0 and low in _OPENERS | STOPWORDS | QUERY_FILLER:
            name = False
        if window is not None and (token[:1].isdigit() or low in dated):
            name = False  # "in Q3 2025" became the date window
        if name:
            run.append(token)
        elif run and token in "-–'’":
            run.append(token)  # "All-Star", "Rabat-Salé"
        else:
            flush()
    flush()
    return phrases


def missing_names(
    question: str, sources: Sequence[Source], analysis: QueryAnalysis | None = None
) -> list[tuple[str, ...]]:
    """Names of the question that no source (text or title) contains, as a phrase.

    Notes on the same topic share the question's common words; only the names
    tell whether they are about the thing asked. A name found nowhere means the
    notes cannot answer, whatever else they share with the question.
    """
    texts = [terms(s.chunk.text) for s in sources] + [terms(s.chunk.title) for s in sources]
    return [
        p for p in name_phrases(question, analysis) if not any(_has_phrase(t, p) for t in texts)
    ]


def titles_named(question: str, sources: Sequence[Source]) -> frozenset[str]:
    """Citation ids of the sources whose note title the question contains."""
    asked = terms(question)
    return frozenset(
        s.cid
        for s in sources
        if (title := tuple(terms(s.chunk.title))) and _has_phrase(asked, title)
    )


def _has_phrase(seq: Sequence[str], phrase: tuple[str, ...]) -> bool:
    n = len(phrase)
    return any(tuple(seq[i : i + n]) == phrase for i in range(len(seq) - n + 1))


def compose(question: str, sources: Sequence[Source], analysis: QueryAnalysis) -> str:
    if not sources or missing_names(question, sources, analysis):
        return NOT_ENOUGH
    limit = (
        5
        if analysis.intent in (Intent.LIST, Intent.SUMMARY, Intent.TIMELINE)
        else FACTUAL_SENTENCES
    )
    question_terms = list(analysis.keywords) or terms(question, QUERY_FILLER)
    if analysis.intent in (Intent.LIST, Intent.SUMMARY, Intent.TIMELINE):
        chosen = select_sentences(question_terms, sources, limit)
    else:
        chosen = select_covering(
            question_terms,
            sources,
            limit,
            titles_named(question, sources),
            decision_terms(question, question_terms),
        )
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
