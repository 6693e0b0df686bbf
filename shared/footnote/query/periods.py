"""Calendar periods in UTC, each a half-open ``[start, end)`` of datetimes.

The arithmetic the time-phrase reader resolves to: a day, an ISO week, a month,
a quarter, a year, and month steps that clamp to the month's last day.
"""

from __future__ import annotations

import calendar
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta


@dataclass(frozen=True)
class Period:
    """What an anchor names: ``end`` is None for rolling ("past 3 days") periods."""

    start: datetime
    end: datetime | None
    edge: datetime | None = None  # "the end of March": since/before/after/until use this moment


class Unresolvable(Exception):
    """A time phrase that names no usable period (bad date, unknown event)."""


def midnight(d: date) -> datetime:
    return datetime.combine(d, time(0), tzinfo=UTC)


def day_period(d: date) -> Period:
    return Period(midnight(d), midnight(d + timedelta(days=1)))


def week_period(d: date) -> Period:
    monday = d - timedelta(days=d.weekday())
    return Period(midnight(monday), midnight(monday + timedelta(days=7)))


def month_period(year: int, month: int) -> Period:
    nxt = date(year + 1, 1, 1) if month == 12 else date(year, month + 1, 1)
    return Period(midnight(date(year, month, 1)), midnight(nxt))


def quarter_period(year: int, q: int) -> Period:
    start = month_period(year, 3 * q - 2)
    end = month_period(year, 3 * q)
    return Period(start.start, end.end)


def year_period(year: int) -> Period:
    return Period(midnight(date(year, 1, 1)), midnight(date(year + 1, 1, 1)))


def add_months(d: date, months: int) -> date:
    index = d.year * 12 + d.month - 1 + months
    year, month = divmod(index, 12)
    month += 1
    return date(year, month, min(d.day, calendar.monthrange(year, month)[1]))


def checked_date(year: int, month: int, day: int) -> date:
    try:
        return date(year, month, day)
    except ValueError as exc:
        raise Unresolvable from exc


def latest_date(today: date, month: int, day: int) -> date:
    """The most recent ``month``/``day`` not after ``today`` (Feb 29 finds a leap year)."""
    if not 1 <= day <= calendar.monthrange(2000, month)[1]:  # 2000 is a leap year
        raise Unresolvable
    year = today.year if (month, day) <= (today.month, today.day) else today.year - 1
    while not calendar.isleap(year) and (month, day) == (2, 29):
        year -= 1
    return date(year, month, day)
