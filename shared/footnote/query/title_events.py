"""Note titles as named events: "before the launch" needs a day for "the launch".

A tenant's short note titles, dated by their notes, name the events a question
can anchor to. The corpus keeps this map per tenant as notes come and go; the
query parser looks names up in it. Pure functions of their arguments.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import UTC, date, datetime

from footnote.text import normalize

__all__ = ["NOT_EVENTS", "as_date", "event_key", "events_from_titles"]

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
    r"\s+(?:day|notes?|recap|retro(?:spective)?|review|summary|minutes|debrief|planning|plan)$"
)


def events_from_titles(titled: Iterable[tuple[str, datetime]]) -> dict[str, date]:
    """Event names a tenant's notes define: each short title, dated by its note.

    "before the launch" resolves when a note titled "Launch" (or "Launch day")
    exists; a name several notes carry takes the earliest, the day it first
    happened ("Launch recap" is written after it). A title that notes of different
    days carry as it is ("parkrun", "Weekly sync", "long run") names a series, not a
    moment: "at parkrun" is any of them, so it dates nothing and its words stay the
    question's. Titles of more than five words are sentences, not event names.
    """
    dated = []
    days_titled: dict[str, set[date]] = {}
    for title, created in titled:
        key = event_key(title)
        if not key or len(key.split()) > 5 or not re.search(r"[a-z]", key):
            continue
        dated.append((key, as_date(created)))
        days_titled.setdefault(key, set()).add(dated[-1][1])
    events: dict[str, date] = {}
    for key, day in dated:
        if len(days_titled[key]) > 1:
            continue  # a series: none of its notes dates the name, or the name less its tail
        for name in {key, _EVENT_TITLE_TAIL.sub("", key)}:
            if name and name not in NOT_EVENTS and (name not in events or day < events[name]):
                events[name] = day
    return events


def event_key(name: str) -> str:
    key = re.sub(r"\s+", " ", normalize(name).lower()).strip(" .,:;!?\"'")
    return re.sub(r"^(?:the|our)\s+", "", key)


def as_date(when: date) -> date:
    if isinstance(when, datetime):
        return (when.astimezone(UTC) if when.tzinfo else when).date()
    return when
