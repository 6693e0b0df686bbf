"""Query analysis: keywords, a time window, an intent and memory-type filters.

``analyze(query, now, events=None)`` is a pure function of its arguments: no
clock, no network, no state. It reads the question a user asked of their notes
and returns a :class:`~footnote.domain.QueryAnalysis`. Each job lives in its own
module, and this one keeps every public name importable from here:

* :mod:`~footnote.temporal`: the time phrases and the window they ask about, in
  the user's language (the same reader reads a note's dates);
* :mod:`~footnote.query.intents`: intent and memory-type cues;
* :mod:`~footnote.query.title_events`: note titles as events ("the launch");
* :mod:`~footnote.query.follow_ups`: follow-up questions in a conversation.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import date, datetime
from itertools import pairwise

from footnote.domain import MemoryType, QueryAnalysis
from footnote.query.follow_ups import is_follow_up, names_someone, with_previous
from footnote.query.intents import KEYWORD_STOP, intent_of, types_of
from footnote.query.title_events import NOT_EVENTS, events_from_titles
from footnote.temporal import DEFAULT_LANGUAGE, TimeSpan, calendar_words, question_window
from footnote.text import (
    QUERY_FILLER,
    STOPWORDS,
    function_words,
    language_of_text,
    normalize,
    terms,
    word_spans,
    words,
)

__all__ = ["analyze", "events_from_titles", "is_follow_up", "names_someone", "with_previous"]

# "Who's Dad's PSW these days?": how things stand, which a note need not say (it says
# "New PSW = Grace", not "these days"; "days" is no word of the question). ("Now" stays:
# notes write it of a change, "Kacper is the Snowman now".)
_AS_IT_STANDS = re.compile(r"\b(?:these\s+days|nowadays|at\s+present)\b")
_CITATION_MARKER = re.compile(r"\[\s*n\s*\d+\s*\]")
# "Show me my todos", "can you show us…": a command to show, opening the question (only
# stop words and filler before it), is no word of the topic; "What did I win at the
# show?" asks about one.
_COMMANDS = frozenset(("show",))
# "How many items are still unticked on my TODO list?": what of a to-do list is open or
# done is read off its boxes ("[ ]", "[x]"), not searched for: no note says "unticked".
_CHECKBOX_STATE = frozenset(
    terms("open unticked ticked unchecked checked undone done outstanding remaining left finished")
)


def analyze(
    query: str,
    now: datetime,
    events: Mapping[str, date] | None = None,
    language: str = DEFAULT_LANGUAGE,
) -> QueryAnalysis:
    """Keywords, time window, intent and type filters of ``query`` as of ``now``.

    ``now`` must be timezone-aware; it is read in its own time zone (the user's):
    "today" and "last week" are the user's calendar days, not UTC's. ``events`` maps event
    names ("launch", "the offsite") to the day they happened, so that "before
    the launch" can become a window; without it such anchors are unresolved.
    ``language`` is the user's: the one the time phrases are read in
    (:mod:`footnote.temporal`).
    """
    normalized = " ".join(normalize(query).split())
    lowered = normalized.lower().replace("’", "'")
    # Each bound of the window is the wall-clock time in the user's zone, which also
    # places it right across a daylight-saving change.
    # The question is read in the language it is written in: the reader's unless its
    # words say otherwise (a Spanish reader's "What did I write last week?")
    written = language_of_text(normalized, prior=language)
    window, unresolved, hints = question_window(lowered, now, written, events)
    # "after the fact", "during the rest": no event; nothing to report unresolved
    no_event = {
        h.text
        for h in hints
        if h.keep_words and not h.resolved and h.text.split()[-1] in NOT_EVENTS
    }
    hints = [h for h in hints if h.text not in no_event]
    unresolved = [u for u in unresolved if u not in no_event]

    rest = list(lowered)
    for h in hints:
        if not h.keep_words:
            rest[h.start_pos : h.end_pos] = " " * (h.end_pos - h.start_pos)
    # "[N7]" names a citation of an earlier answer, not words to look for: a note
    # quoting a forged marker must not match on it.
    content = _CITATION_MARKER.sub(" ", "".join(rest))
    content = _without_command(content)
    content = _AS_IT_STANDS.sub(" ", content)
    keywords, readings = _read_words(content, written, language)
    if (dimension := dimension_terms(lowered)) is not None:
        keywords = tuple(dict.fromkeys((*keywords, *sorted(dimension[1]))))
    types = types_of(lowered)
    if types and _names_something(normalized, hints, written):
        # "What feedback did Mr Patel give me?": a question naming someone or something is
        # searched by the name, not held to what a rule classified each note as ("obs
        # feedback", Mr Patel's, was typed a plain note)
        types = ()
    if MemoryType.TASK in types:
        keywords = tuple(k for k in keywords if k not in _CHECKBOX_STATE) or keywords

    return QueryAnalysis(
        original=query,
        normalized=normalized,
        keywords=keywords,
        intent=intent_of(lowered),
        window=window,
        types=types,
        unresolved=tuple(unresolved),
        now=now,
        language=language,
        readings=readings,
    )


def _read_words(
    content: str, written: str, language: str
) -> tuple[tuple[str, ...], tuple[tuple[str, ...], ...]]:
    """The question's keywords, read in the language it is ``written`` in, and its other
    readings.

    A reading stops the words of a language the question may be in (the reader's or
    the one it is written in; its short stop words as notes are indexed, or all its
    function words: "cuándo", "welche") and stems the rest as notes in the reader's
    language, the question's, or of no clear language (:data:`DEFAULT_LANGUAGE`, what
    indexing reads them as) are stemmed. A Spanish reader's "What are my todos?" is
    English; their "¿Qué dijo Maria?" is Spanish, and its "maria" is what an English
    note holds, not the Spanish stem "mari"."""
    keywords = tuple(dict.fromkeys(terms(content, KEYWORD_STOP, written, compounds=True)))
    readings: dict[tuple[str, ...], None] = {}
    for stopped_as in dict.fromkeys((written, language)):
        for stop in (KEYWORD_STOP, KEYWORD_STOP | function_words(stopped_as)):
            for stemmed_as in dict.fromkeys((stopped_as, written, language, DEFAULT_LANGUAGE)):
                read = tuple(
                    dict.fromkeys(terms(content, stop, stopped_as, stemmed_as, compounds=True))
                )
                if read and read != keywords:
                    readings[read] = None
    return keywords, tuple(readings)


def _names_something(question: str, hints: list[TimeSpan], language: str) -> bool:
    """The question names someone or something outside its time phrases: a capitalised
    word after the first ("Mr Patel", "Firestore"); not "I", an acronym ("TODO",
    "KPIs") or a month or day ("my January TODO list")."""
    calendar = calendar_words(language)
    return any(
        w[:1].isupper()
        and w[1:2].islower()
        and w.lower() not in calendar
        and not any(h.start_pos <= start < h.end_pos for h in hints)
        for start, _, w in word_spans(question)[1:]
    )


def _without_command(content: str) -> str:
    """``content`` less the command it opens with (``_COMMANDS``)."""
    for start, end, w in word_spans(content):
        if w in _COMMANDS:
            return f"{content[:start]} {content[end:]}"
        if w not in STOPWORDS and w not in QUERY_FILLER:
            break
    return content


# "How tall is he?" over "weight 11.6kg, height 86cm": the dimension a "how <adjective>"
# question asks about, which notes name by its noun (searched for too, and read by the
# offline answer as saying the adjective).
_DIMENSIONS = {
    "tall": "height",
    "high": "height",
    "heavy": "weight weighs weighed",
    "big": "size",
    "large": "size",
    "wide": "width",
    "deep": "depth",
}


def dimension_terms(question: str) -> tuple[frozenset[str], frozenset[str]] | None:
    """The terms of the adjective a "how tall/heavy/big…" question asks with, and of the
    nouns naming that dimension ("tall": "height"); None for any other question."""
    said = words(question)
    adjective = next(
        (b for a, b in pairwise(said) if a == "how" and b in _DIMENSIONS),
        None,
    )
    if adjective is None:
        return None
    return frozenset(terms(adjective)), frozenset(terms(_DIMENSIONS[adjective]))
