"""A question read once: the :class:`QueryPlan` that retrieval and generation read.

``plan`` is the one place a question is read, and the one place a follow-up is
resolved. With a language model behind the ``Generator`` port, the model reads a
follow-up in one structured call (``read_question``: "When did she go there?" → "When
did Caroline go to the support group?", with the window, memory types, intent and
keywords it read), and what it read replaces the offline reading of its standalone
question (``with_model_reading``); without one (the offline quote generator), or when the
model fails, the follow-up is read offline with the question before it
(``follow_ups.with_previous``). A first question is read offline: a model call before
retrieval would add its round trip to every answer (docs/quality.md). Either way the
question is analysed once; an offline follow-up also reads the question it follows.

A follow-up is read in what was just said: its "it", "there" and "who" refer to the
passages the previous answer cited, so the plan carries them (``focus``) and retrieval
keeps them among the sources, the previous answer's lead first. A follow-up that
names someone ("What about Melanie?") has a subject of its own and carries none.
Once they are read, ``read_in`` keeps, of the words an offline follow-up inherited,
those they hold.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from footnote.domain import Fallback, MemoryType, ModelReading, QueryAnalysis, TimeWindow, Turn
from footnote.errors import UPSTREAM_ERRORS
from footnote.ports import Generator
from footnote.query.analysis import analyze
from footnote.query.follow_ups import (
    answer_names,
    as_stated,
    is_follow_up,
    names_someone,
    with_name_swapped,
    with_person_answered,
    with_previous,
)
from footnote.query.typed import as_written
from footnote.temporal import DEFAULT_LANGUAGE
from footnote.text import terms

log = logging.getLogger(__name__)

# Earlier turns (user and assistant) a language model sees with a follow-up.
HISTORY_TURNS = 6

History = tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class QueryPlan:
    """What a question asks, read once: retrieval reads ``analysis``, the generator
    is asked ``question`` with ``history``."""

    message: str  # as the user wrote it
    question: str  # what the generator is asked: standalone, for a follow-up
    analysis: QueryAnalysis
    follow_up: bool
    history: History = ()  # the conversation's last turns, (role, text), oldest first
    fallbacks: tuple[Fallback, ...] = ()  # REWRITE_SKIPPED when the model's rewrite failed
    # The chunk ids the previous answer cited, in its order, for a follow-up about what
    # it said: retrieval keeps them among the sources, the lead first. Empty for a
    # question read alone.
    focus: tuple[str, ...] = ()
    # The previous question's keywords an offline follow-up took on, after its own.
    inherited: tuple[str, ...] = ()


def plan(
    message: str,
    now: datetime,
    events: Mapping[str, date],
    earlier: Sequence[Turn] = (),
    rewriter: Generator | None = None,
    types: tuple[MemoryType, ...] = (),
    language: str = DEFAULT_LANGUAGE,
) -> QueryPlan:
    """Read ``message``, asked at ``now`` after the turns ``earlier`` (oldest first).

    ``events`` date the tenant's note titles ("the launch"). ``rewriter`` is the
    generator asked to make a follow-up standalone; None when nothing is retrieved
    (an answer without the notes), so no model is asked. ``types``, when given,
    replace the memory types the question names (the client's filter). ``language``
    is the user's: the question's time phrases and words are read in it.
    """
    history: History = tuple((t.role, t.text) for t in earlier[-HISTORY_TURNS:])
    reading, fallbacks = _model_reading(message, history, rewriter, now, language)
    if reading is not None:
        rewritten = reading.question
        analysis = with_model_reading(analyze(rewritten, now, events, language), reading, language)
        read = QueryPlan(message, rewritten, analysis, rewritten != message, history)
    else:
        read = _offline(message, now, events, earlier, history, language)
    if types:
        read = dataclasses.replace(read, analysis=dataclasses.replace(read.analysis, types=types))
    focus = _last_cited(earlier) if read.follow_up and not names_someone(message) else ()
    return dataclasses.replace(read, fallbacks=fallbacks, focus=focus)


def read_search(
    query: str, now: datetime, events: Mapping[str, date], language: str = DEFAULT_LANGUAGE
) -> QueryAnalysis:
    """A search's words, read as typed: a search is no question ("Kenta" is not "what's
    the Kenta", as a question is read offline) and has no conversation."""
    return analyze(query, now, events, language)


def _model_reading(
    message: str,
    history: History,
    rewriter: Generator | None,
    now: datetime,
    language: str,
) -> tuple[ModelReading | None, tuple[Fallback, ...]]:
    """The model's reading (None: none, read offline) and any fallback."""
    if rewriter is None:
        return None, ()
    try:
        reading = rewriter.read_question(message, history, now, language)
    except UPSTREAM_ERRORS as exc:
        log.warning("query rewrite failed (%s); reading the follow-up offline", type(exc).__name__)
        return None, (Fallback.REWRITE_SKIPPED,)
    if reading is None:
        return None, ()
    if not reading.question:
        reading = dataclasses.replace(reading, question=message)
    return reading, ()


def with_model_reading(
    analysis: QueryAnalysis, reading: ModelReading, language: str = DEFAULT_LANGUAGE
) -> QueryAnalysis:
    """The offline analysis of the model's standalone question, with what the model read
    in place of it: its window (its days, on the user's calendar), memory types, intent
    and keywords (stemmed as the notes are). What the model left empty stays as read."""
    changes: dict[str, Any] = {}
    if reading.first_day is not None or reading.last_day is not None:
        zone = analysis.now.tzinfo if analysis.now is not None else UTC
        first = reading.first_day
        after = reading.last_day + timedelta(days=1) if reading.last_day else None
        changes["window"] = TimeWindow(
            datetime.combine(first, time(0), zone) if first else None,
            datetime.combine(after, time(0), zone) if after else None,
            f"{first or ''}..{reading.last_day or ''}",
        )
    if reading.types:
        changes["types"] = reading.types
    if reading.intent is not None:
        changes["intent"] = reading.intent
    keywords = tuple(
        dict.fromkeys(terms(" ".join(reading.keywords), language=language, compounds=True))
    )
    if keywords:
        changes["keywords"] = keywords
    return dataclasses.replace(analysis, **changes) if changes else analysis


def _offline(
    message: str,
    now: datetime,
    events: Mapping[str, date],
    earlier: Sequence[Turn],
    history: History,
    language: str = DEFAULT_LANGUAGE,
) -> QueryPlan:
    """ "When did she go there?" is read with the question before it: its subject and
    time window carry over (and the names its answer gave), and the generator is asked
    both."""
    # "whats her number" is read as "what's her number" (``typed``); the plan keeps what
    # was typed as its message
    written = as_written(message, language)
    analysis = analyze(written, now, events, language)
    previous = _last_question(earlier)
    if previous is None or not is_follow_up(written, analysis):
        return QueryPlan(message, written, analysis, False, history)
    previous = as_written(previous, language)
    if (named := with_person_answered(written, previous, _last_answer(earlier))) is not None:
        # "what did i buy him?" after "who did I get for secret santa?" / "I got Tomás":
        # asked of Tomás
        written = named
        analysis = analyze(written, now, events, language)
    answered = answer_names(_last_answer(earlier), previous)
    merged = with_previous(analysis, analyze(previous, now, events, language), answered)
    if names_someone(written):
        # "and Ray's?" after "What's Linda's phone number?" asks the same of Ray
        question = with_name_swapped(written, previous) or written
    else:
        question = f"{written} ({previous})"
    inherited = tuple(k for k in merged.keywords if k not in analysis.keywords)
    return QueryPlan(message, question, merged, True, history, inherited=inherited)


def read_in(read: QueryPlan, stated: Collection[str]) -> QueryPlan:
    """The plan once the passages in focus are read (``stated``: their terms): of the
    words the follow-up inherited, only those they hold (``follow_ups.as_stated``).
    Retrieval read all of them; the generator reads these."""
    if not read.focus or not read.inherited:
        return read
    analysis = as_stated(read.analysis, read.inherited, stated)
    return read if analysis is read.analysis else dataclasses.replace(read, analysis=analysis)


def _last_cited(turns: Sequence[Turn]) -> tuple[str, ...]:
    """The chunk ids the conversation's most recent answer cited, in its order."""
    for t in reversed(turns):
        if t.role == "assistant":
            cited = (c.get("chunkId") for c in t.citations)
            return tuple(dict.fromkeys(c for c in cited if isinstance(c, str) and c))
    return ()


def _last_answer(turns: Sequence[Turn]) -> str:
    """The conversation's most recent answer ("" if none)."""
    return next((t.text for t in reversed(turns) if t.role == "assistant"), "")


def _last_question(turns: Sequence[Turn]) -> str | None:
    """The conversation's most recent user question, if any."""
    for t in reversed(turns):
        if t.role == "user":
            return t.text
    return None
