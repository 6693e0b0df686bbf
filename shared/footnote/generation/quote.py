"""The offline answer: the lines of the best passages that support the question, quoted.

In production a language model writes answers from the sources (``adapters/
gemini_generator``). Offline, in every test and evaluation, and in production when the
model fails, the answer quotes the notes instead: under each quoted note's title and
date, the lines that carry the question's support, verbatim, each cited. Nothing is
paraphrased and no word of a note is changed, so every quoted line is supported by the
source it cites; beside a relative date ("next Tues") stands the day it means against
the note's own date.

Support is what retrieval measures of a whole passage, measured line by line: the share
of the question's terms a line holds, plus (with an embedder) the cosine of the line's
and the question's embeddings. No vocabulary of any language is read here.

Which passages: the sources come in retrieval's order; the first is quoted, and the
next ones only while their best line's support is close to the first's (a list or an
overview question admits more of them, as it needs several notes). A checklist or a
list is quoted as its items. The offline answer never declines on its own: whether the
notes hold an answer is retrieval's gate (``retrieval/retriever``), one rule for all.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from footnote.domain import Intent, QueryAnalysis, Source
from footnote.generation.citations import closed
from footnote.generation.prompt import NOT_ENOUGH, quote_note_text
from footnote.grounding import cosine
from footnote.ports import Embedder, Generator, Pieces
from footnote.temporal import TimeSpan, day_text, month_text, note_dates
from footnote.text import language_of_text, split_sentences, terms

MODEL_NAME = "quote-v1"

# About two passages, ~400 characters, for a question about one thing (measured in
# docs/quality.md: the answer note is first among the sources for most questions, and
# second for most of the rest).
PASSAGES = 2
ANSWER_CHARS = 400
# A list, a summary or a timeline needs the notes of a series: more passages, each a
# little shorter, and a list quoted whole.
LIST_PASSAGES = 5
LIST_ITEMS = 30
# A passage after the first is quoted when its best line's support is at least this
# share of the first passage's: one that merely shares the topic is left out.
NEXT_PASSAGE_SHARE = 0.8
# A line beside the best one is quoted when its support is at least this share of the
# best line's: the lines that carry the question, not the rest of the note.
LINE_SHARE = 0.5
# A line longer than this is quoted by its sentences (a paragraph written as one line).
LONG_LINE = 240

# A list item: a bullet, a number or a checkbox at the start of its line (markup, not words).
_ITEM = re.compile(r"^\s*(?:[-*•+]\s+(?:\[[ xX]?\]\s*)?|\d{1,3}[.)]\s+|\[[ xX]?\]\s*)\S")

Relevance = Callable[[str, Sequence[str]], list[float]]


@dataclass(frozen=True)
class Unit:
    """A quotable piece of a passage: a line, or a sentence of a long line."""

    text: str
    line: int  # index of its line in the passage
    start: int  # offset in the passage's text: the note's order
    item: bool  # a list item
    terms: frozenset[str] = frozenset()  # its search terms, what support is counted on
    support: float = 0.0


@dataclass(frozen=True)
class Quoted:
    """What is quoted of one source: its units, in the note's order."""

    source: Source
    units: tuple[Unit, ...]


def passage_units(source: Source) -> list[Unit]:
    """The passage's quotable units, its title line (shown in the heading) left out."""
    text = source.chunk.text
    title = source.chunk.title.strip()
    out: list[Unit] = []
    offset = 0
    for index, line in enumerate(text.split("\n")):
        start = offset
        offset += len(line) + 1
        stripped = line.strip()
        held = frozenset(terms(stripped))
        # (a line with no word to check, "---" or "ok!", supports nothing: the citation
        # check would withhold it)
        if not held or (index == 0 and title and stripped == title):
            continue
        item = bool(_ITEM.match(line))
        if len(stripped) <= LONG_LINE or item:
            out.append(Unit(stripped, index, start + line.index(stripped), item, held))
            continue
        for s, e in split_sentences(line):
            sentence = line[s:e]
            out.append(Unit(sentence, index, start + s, False, frozenset(terms(sentence))))
    return out


def scored(
    question: str,
    sources: Sequence[Source],
    relevance: Relevance | None,
    keywords: Sequence[str] = (),
) -> list[list[Unit]]:
    """Each source's units with their support for the question. ``keywords``: the
    question's terms as retrieval read them (initials the notes use included); without
    them, the question's own terms."""
    wanted = set(keywords or terms(question))
    per_source = [passage_units(s) for s in sources]
    flat = [u for units in per_source for u in units]
    similarity = relevance(question, [u.text for u in flat]) if relevance and flat else []
    out: list[list[Unit]] = []
    i = 0
    for units in per_source:
        row = []
        for u in units:
            overlap = len(wanted & u.terms) / len(wanted) if wanted else 0.0
            cosine = similarity[i] if similarity else 0.0
            row.append(replace(u, support=overlap + cosine))
            i += 1
        out.append(row)
    return out


def choose(
    question: str,
    sources: Sequence[Source],
    analysis: QueryAnalysis,
    relevance: Relevance | None = None,
) -> list[Quoted]:
    """The passages to quote and, of each, the units that carry the question's support."""
    if not sources:
        return []
    many = analysis.intent in (Intent.LIST, Intent.SUMMARY, Intent.TIMELINE)
    limit = LIST_PASSAGES if many else PASSAGES
    # (what a follow-up's "it" stands for is asked about too)
    units = scored(question, sources, relevance, (*analysis.keywords, *analysis.referents))
    best = [max((u.support for u in row), default=0.0) for row in units]
    # The first source is quoted first: retrieval's order (ranking passages by their best
    # line instead was measured worse, docs/quality.md).
    lead = 0
    chosen = [lead] + [
        i
        for i in range(len(sources))
        if i != lead and units[i] and best[lead] > 0 and best[i] >= NEXT_PASSAGE_SHARE * best[lead]
    ]
    chosen = [i for i in chosen if units[i]][:limit]
    budget = ANSWER_CHARS // max(1, len(chosen)) if not many else ANSWER_CHARS // 2
    return [Quoted(sources[i], tuple(_lines_of(units[i], budget))) for i in chosen]


def _lines_of(units: Sequence[Unit], budget: int) -> list[Unit]:
    """The best unit; a list it belongs to, whole; else the next best while they fit."""
    if not units:
        return []
    lead = max(units, key=lambda u: u.support)
    if lead.item or _heads_list(lead, units):
        return _the_list(lead, units)
    picked = [lead]
    used = len(lead.text)
    for u in sorted(units, key=lambda u: -u.support):
        if u is lead or used + len(u.text) > budget or u.support < LINE_SHARE * lead.support:
            continue
        picked.append(u)
        used += len(u.text)
    return sorted(picked, key=lambda u: u.start)


def _heads_list(lead: Unit, units: Sequence[Unit]) -> bool:
    """The unit is the line right above a list's first item (its heading)."""
    after = [u for u in units if u.line == lead.line + 1]
    return bool(after) and after[0].item and not lead.item


def _the_list(lead: Unit, units: Sequence[Unit]) -> list[Unit]:
    """The run of item lines around ``lead`` (or under it), with the line heading it."""
    by_line = {u.line: u for u in units}
    first = lead.line + 1 if not lead.item else lead.line
    while by_line.get(first - 1) is not None and by_line[first - 1].item:
        first -= 1
    last = first
    while by_line.get(last + 1) is not None and by_line[last + 1].item:
        last += 1
    items = [by_line[n] for n in range(first, last + 1) if n in by_line][:LIST_ITEMS]
    heading = by_line.get(first - 1)
    return ([heading] if heading is not None else []) + items


def render(quoted: Sequence[Quoted], now: datetime | None = None, language: str = "en") -> str:
    """Each quoted note under its title and date, its lines each cited; a relative date
    followed by the day it means. A claim's markers come before its closing mark, as the
    citation check writes them, so checking the answer leaves it as it is."""
    if not quoted:
        return NOT_ENOUGH
    blocks = []
    for q in quoted:
        cid = f"[{q.source.cid}]"
        written = q.source.chunk.created_at
        if now is not None and now.tzinfo is not None:
            written = written.astimezone(now.tzinfo)
        title = quote_note_text(q.source.chunk.title.strip())
        day = day_text(written.date(), language)
        lines = [closed(f"{title}, {day}:" if title else f"{day}:", cid)]
        # the note's dates are read in the language it is written in ("pasado mañana"
        # in a Spanish note, asked in English), and told in the reader's
        written_in = language_of_text(q.source.chunk.text, prior=language)
        for u in q.units:
            text = quote_note_text(u.text)
            lines.append(_cited(text, cid, _meanings(text, written, written_in, language)))
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def _meanings(
    line: str, written: datetime, written_in: str, language: str
) -> list[tuple[int, str]]:
    """What the line's dates mean against the note's date, each with where its phrase
    ends: "Friday, 27 November 2026" after "before Friday"; read in the note's language
    (``written_in``), told in the reader's. A date the line already writes out in full
    is not repeated."""
    said: list[tuple[int, str]] = []
    for span in note_dates(line, written.replace(tzinfo=None), written_in):
        meaning = _told(span, language)
        if meaning is None or meaning.lower() in line.lower() or any(m == meaning for _, m in said):
            continue
        phrase = span.text.strip()
        shown = meaning if meaning.lower().startswith(phrase.lower()) else f"{phrase}: {meaning}"
        said.append((span.end_pos, shown))
    return said


def _told(span: TimeSpan, language: str) -> str | None:
    """A date span as a person reads it, at its own precision."""
    # ("before Friday" is open before it: the day it names is what it means)
    moment = span.named or span.start
    if not span.resolved or moment is None:
        return None
    first = moment.date()
    if span.exact is not None:  # "in 3 wks": the day it lands on, not its week or month
        return day_text(span.exact.date(), language)
    if span.grain == "year":
        return str(first.year)
    if span.grain == "month":
        return month_text(first, language)
    # a week or a range of days by its first and last day, in no language's words ("la
    # semana que viene: 14 diciembre 2026 – 20 diciembre 2026", "Oct 23-24")
    if span.grain == "week":
        last = first + timedelta(days=6)
    elif span.start is not None and span.end is not None and (span.end - span.start).days > 1:
        first, last = span.start.date(), (span.end - timedelta(days=1)).date()
    else:
        return day_text(first, language)
    return f"{day_text(first, language)} – {day_text(last, language)}"


def _cited(line: str, cid: str, meanings: Sequence[tuple[int, str]]) -> str:
    """Every sentence of the line with its marker (a sentence left uncited would be
    withheld by the citation check), the days its relative dates mean before its
    closing mark."""
    spans = split_sentences(line) or [(0, len(line))]
    out = []
    for n, (s, e) in enumerate(spans):
        sentence = line[s:e]
        last = n == len(spans) - 1
        own = [m for end, m in meanings if s < end <= e or (last and end > e)]
        if own:
            body = sentence.rstrip(".!?:")
            sentence = f"{body} ({'; '.join(own)}){sentence[len(body) :]}"
        out.append(closed(sentence, cid))
    return line[: spans[0][0]] + " ".join(out)


def compose(
    question: str,
    sources: Sequence[Source],
    analysis: QueryAnalysis,
    relevance: Relevance | None = None,
) -> str:
    """The quote answer's text (``NOT_ENOUGH`` only when there is nothing to quote)."""
    return render(choose(question, sources, analysis, relevance), analysis.now, analysis.language)


def embedding_relevance(embedder: Embedder) -> Relevance:
    """Cosine of the question's and each line's embedding (the retrieval embedder)."""

    def score(question: str, texts: Sequence[str]) -> list[float]:
        q = embedder.embed_query(question)
        return [cosine(q, v) for v in embedder.embed_documents(list(texts))]

    return score


class QuoteGenerator(Generator):
    """The offline generator: the notes' own lines, quoted and cited. It has no language
    model, so it keeps the port's ``rewrite_question`` (follow-ups are read offline) and
    ignores ``strict`` and ``history``."""

    model = MODEL_NAME

    def __init__(self, embedder: Embedder | None = None) -> None:
        # Without an embedder (the fallback while a remote model is failing), support is
        # the question's terms alone.
        self._relevance = embedding_relevance(embedder) if embedder is not None else None

    def execute(
        self,
        question: str,
        sources: Sequence[Source],
        analysis: QueryAnalysis,
        strict: bool,
        history: Sequence[tuple[str, str]],
        stream: bool,
    ) -> Pieces:
        """In one piece, or line by line as a streaming client expects; the pieces are
        cut from the one text, so a streamed answer is the plain one."""
        text = compose(question, sources, analysis, self._relevance)
        if not stream:
            yield text
            return
        cuts = {len(text)}
        line_start = 0
        for line in text.split("\n"):
            cuts.update(line_start + start for start, _ in split_sentences(line)[1:])
            line_start += len(line) + 1
            cuts.add(line_start)
        start = 0
        for cut in sorted(c for c in cuts if 0 < c <= len(text)):
            yield text[start:cut]
            start = cut
