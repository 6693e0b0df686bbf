"""Note titles as named events: "before the launch" needs a day for "the launch".

A tenant's short note titles, dated by their notes, name the events a question
can anchor to. The corpus keeps this map per tenant as notes come and go; the
query parser looks names up in it. Pure functions of their arguments.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, date, datetime

from footnote.text import STOPWORDS, normalize

__all__ = [
    "NOT_EVENTS",
    "TitledDay",
    "as_date",
    "event_key",
    "events_from_titled",
    "events_from_titles",
    "titled_day",
]

# Words that follow "before the"/"after the" without naming an event.
NOT_EVENTS = frozenset(
    (
        "day",
        "days",
        "week",
        "weekend",
        "month",
        "year",
        "quarter",
        "morning",
        "afternoon",
        "evening",
        "night",
        "time",
        "moment",
        "fact",
        "rest",
        "past",
        "future",
        "last",
        "next",
        "first",
        "same",
        "other",
        "previous",
        "deadline",
        "one",
        "two",
        "new",
        "old",
        "current",
    )
)

# Trailing words that make a note's title a record of an event, not its name:
# "Launch day", "Offsite recap" and "Q3 planning notes" date "the launch", "the offsite".
_EVENT_TITLE_TAIL = re.compile(
    r"(?<!\s)\s+(?:day|notes?|recap|retro(?:spective)?|review|summary|minutes|debrief|planning|plan)$"
)


@dataclass(frozen=True)
class TitledDay:
    """A note's title as an event name, read once when the note is indexed: the name,
    the name less a record's tail ("launch" of "Launch recap"), and the day."""

    key: str
    short: str
    day: date


def titled_day(title: str, created: datetime) -> TitledDay | None:
    """A note's title as an event name, or None: titles of more than five words are
    sentences, not event names."""
    key = event_key(title)
    if not key or len(key.split()) > 5 or not any(c.isalpha() for c in key):
        return None
    return TitledDay(key, _EVENT_TITLE_TAIL.sub("", key), as_date(created))


def events_from_titled(titled: Iterable[TitledDay]) -> dict[str, date]:
    """Event names a tenant's notes define: each short title, dated by its note.

    "before the launch" resolves when a note titled "Launch" (or "Launch day")
    exists; a name several notes carry takes the earliest, the day it first
    happened ("Launch recap" is written after it). A title that notes of different
    days carry as it is ("parkrun", "Weekly sync", "long run") names a series, not a
    moment: "at parkrun" is any of them, so it dates nothing and its words stay the
    question's.
    """
    titled = list(titled)
    days_titled: dict[str, set[date]] = {}
    for t in titled:
        days_titled.setdefault(t.key, set()).add(t.day)
    events: dict[str, date] = {}
    for t in titled:
        if len(days_titled[t.key]) > 1:
            continue  # a series: none of its notes dates the name, or the name less its tail
        for name in {t.key, t.short}:
            if name and name not in NOT_EVENTS and (name not in events or t.day < events[name]):
                events[name] = t.day
    return events


def events_from_titles(titled: Iterable[tuple[str, datetime]]) -> dict[str, date]:
    """``events_from_titled`` of (title, created) pairs."""
    return events_from_titled(
        found for title, created in titled if (found := titled_day(title, created)) is not None
    )


def event_key(name: str) -> str:
    """A name as a question names it: lowered, spaced once, without the stop words it
    opens with ("The Launch", "our offsite")."""
    named = " ".join(normalize(name).lower().split()).strip(" .,:;!?\"'").split(" ")
    while len(named) > 1 and named[0] in STOPWORDS:
        named = named[1:]
    return " ".join(named)


def as_date(when: date) -> date:
    if isinstance(when, datetime):
        return (when.astimezone(UTC) if when.tzinfo else when).date()
    return when
