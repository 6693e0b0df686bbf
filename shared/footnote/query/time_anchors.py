"""What a time phrase names: the vocabulary and the anchors of a question's dates.

:class:`Context` reads one anchor at a position of the lowered question ("last
week", "March 5", "Q3 2024", "the end of the month", "the launch") and returns
the :class:`~footnote.query.periods.Period` it names as of ``now``. How
anchors combine with prepositions into a window is
:mod:`footnote.query.time_window`.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Iterable, Mapping
from datetime import date, datetime, timedelta

from footnote.query.periods import (
    Period,
    add_months,
    checked_date,
    day_period,
    latest_date,
    midnight,
    month_period,
    quarter_period,
    week_period,
    year_period,
)
from footnote.query.title_events import as_date, event_key
from footnote.text import NUMBER_WORDS

__all__ = ["DAY_MONTH", "ISO_DATE", "MONTHS", "MONTH_DAY", "WEEKDAYS", "Context", "alternation"]

MONTHS = {
    "jan": 1,
    "january": 1,
    "feb": 2,
    "february": 2,
    "mar": 3,
    "march": 3,
    "apr": 4,
    "april": 4,
    "may": 5,
    "jun": 6,
    "june": 6,
    "jul": 7,
    "july": 7,
    "aug": 8,
    "august": 8,
    "sep": 9,
    "sept": 9,
    "september": 9,
    "oct": 10,
    "october": 10,
    "nov": 11,
    "november": 11,
    "dec": 12,
    "december": 12,
}
WEEKDAYS = {
    name: i
    for i, name in enumerate(
        ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
    )
}
# "a couple" without "of" is not read in questions ("a couple days ago" stays words).
_NUMBERS = {word: n for word, n in NUMBER_WORDS.items() if word != "a couple"}


def alternation(words: Iterable[str]) -> str:
    """Longest first, so "march" wins over "mar"; spaces match any whitespace."""
    escaped = (re.escape(w).replace(r"\ ", r"\s+") for w in words)
    return "|".join(sorted(escaped, key=len, reverse=True))


_MON = rf"(?P<mon>{alternation(MONTHS)})\b\.?"
_WD = rf"(?P<wd>{alternation(WEEKDAYS)})\b"
_NUM = rf"(?P<n>\d{{1,3}}|{alternation(_NUMBERS)})"
_UNIT = r"(?P<unit>hours?|days?|nights?|weeks?|fortnights?|months?|quarters?|years?)\b"
_YEAR = r"(?P<y>(?:19|20|21)\d\d)(?!\d)"
_DAY = r"(?P<d>[0-3]?\d)(?!\d)(?:st|nd|rd|th)?\b"


# Forms that are time hints wherever they stand.
_REL_DAY_BEFORE = re.compile(r"the\s+day\s+before\s+yesterday\b")
_REL_TODAY = re.compile(r"(?:earlier\s+)?today\b|this\s+(?:morning|afternoon|evening)\b|tonight\b")
_REL_YESTERDAY = re.compile(r"yesterday\b")
_REL_ROLLING = re.compile(rf"(?:the\s+)?(?:last|past|previous|prior)\s+{_NUM}\s+{_UNIT}")
_REL_AGO = re.compile(rf"{_NUM}\s+{_UNIT}\s+ago\b")
_REL_PERIOD = re.compile(
    r"(?P<the>the\s+)?(?P<which>this|current|last|past|previous|prior)\s+"
    r"(?P<period>week|weekend|month|quarter|year)\b"
)
_REL_WEEKDAY = re.compile(rf"(?P<which>this|last|previous)\s+{_WD}")
_REL_MONTH = re.compile(rf"(?P<which>this|last)\s+{_MON}(?!\s*\d)")
ISO_DATE = re.compile(r"(?P<y>\d{4})[-/.](?P<m>\d{1,2})[-/.](?P<d>\d{1,2})(?!\d)")
_ISO_MONTH = re.compile(r"(?P<y>\d{4})-(?P<m>\d{1,2})(?![\d-])")

# Holidays on a fixed day of the calendar, by their words ("new year's eve" read as
# "new years eve").
_HOLIDAYS = {
    **dict.fromkeys(("christmas", "xmas", "christmas day", "xmas day"), (12, 25)),
    **dict.fromkeys(("christmas eve", "xmas eve"), (12, 24)),
    "boxing day": (12, 26),
    **dict.fromkeys(("new years eve", "new year eve", "nye"), (12, 31)),
    **dict.fromkeys(("new year", "new years", "new years day", "new year day"), (1, 1)),
    "halloween": (10, 31),
    **dict.fromkeys(("valentine", "valentines", "valentines day", "valentine day"), (2, 14)),
}
_HOLIDAY = re.compile(
    r"(?:the\s+)?(?:(?:christmas|xmas)(?:\s+(?:day|eve))?|boxing\s+day|"
    r"new\s+year(?:['’]?s)?(?:\s+(?:eve|day))?|nye|halloween|valentine(?:['’]?s)?(?:\s+day)?)\b"
)


_BOUND = re.compile(r"\b(?:before|after|until|till|since|by)\s+$")


def _holiday(phrase: str) -> tuple[int, int]:
    words = re.sub(r"['’]", "", phrase).split()
    return _HOLIDAYS[" ".join(words[1:] if words[0] == "the" else words)]


# Forms that are time hints only after a preposition.
MONTH_DAY = re.compile(rf"{_MON}\s*{_DAY}(?:,?\s+{_YEAR})?")
DAY_MONTH = re.compile(rf"(?:the\s+)?{_DAY}\s+(?:of\s+)?{_MON}(?:,?\s+{_YEAR})?")
_MONTH_YEAR = re.compile(rf"{_MON},?\s+{_YEAR}")
_MONTH_ONLY = re.compile(_MON)
_QUARTER = re.compile(rf"q(?P<q>[1-4])\b(?:\s+{_YEAR})?")
_YEAR_ONLY = re.compile(_YEAR)
_WEEKDAY_ONLY = re.compile(_WD)
_WEEKDAY_COMMA = re.compile(r"\.?,?\s+(?=\S)")
_PART_OF = re.compile(
    r"(?:the\s+)?(?P<part>end|start|beginning|middle)\s+of\s+(?:the\s+(?P<this>week|month|quarter|year)\b)?"
    r"|(?P<part2>early|mid|late)[\s-]+"
)


def _number(raw: str) -> int:
    raw = re.sub(r"\s+", " ", raw)
    return int(raw) if raw.isdigit() else _NUMBERS[raw]


def _unit(raw: str) -> tuple[str, int]:
    """Canonical unit and multiplier: fortnights are two weeks, quarters three months."""
    unit = raw.rstrip("s")
    return {"night": ("day", 1), "fortnight": ("week", 2), "quarter": ("month", 3)}.get(
        unit, (unit, 1)
    )


class Context:
    def __init__(self, now: datetime, events: Mapping[str, date] | None) -> None:
        self.now = now
        self.today = now.date()
        self.events: dict[str, date] = {}
        for name, when in (events or {}).items():
            key = event_key(name)
            if key:
                self.events[key] = as_date(when)
        self.event_re = (
            re.compile(rf"(?:(?:the|our)\s+)?(?P<ev>{alternation(self.events)})(?!\w)")
            if self.events
            else None
        )

    def as_of(self, moment: datetime) -> Context:
        """The same context with ``moment`` as the reference for year-less dates."""
        other = copy.copy(self)
        other.now = moment
        other.today = moment.date()
        return other

    # anchors valid anywhere ------------------------------------------------------
    def relative(self, s: str, pos: int) -> tuple[Period, int] | None:
        for pattern, build in self._relative_rules:
            m = pattern.match(s, pos)
            if m:
                return build(self, m), m.end()
        m = ISO_DATE.match(s, pos)
        if m:
            return day_period(checked_date(int(m["y"]), int(m["m"]), int(m["d"]))), m.end()
        m = _ISO_MONTH.match(s, pos)
        if m and 1 <= int(m["m"]) <= 12 and _has_time_context(s, pos):
            return month_period(int(m["y"]), int(m["m"])), m.end()
        return None

    def _rolling(self, m: re.Match[str]) -> Period:
        unit, mult = _unit(m["unit"])
        n = _number(m["n"]) * mult
        today = self.today
        if unit == "hour":
            return Period(self.now - timedelta(hours=n), None)
        if unit == "day":
            return Period(midnight(today - timedelta(days=n)), None)
        if unit == "week":
            return Period(midnight(today - timedelta(weeks=n)), None)
        months = n if unit == "month" else 12 * n
        return Period(midnight(add_months(today, -months)), None)

    def _ago(self, m: re.Match[str]) -> Period:
        unit, mult = _unit(m["unit"])
        n = _number(m["n"]) * mult
        today = self.today
        if unit == "hour":
            return day_period((self.now - timedelta(hours=n)).date())
        if unit == "day":
            return day_period(today - timedelta(days=n))
        if unit == "week":
            return week_period(today - timedelta(weeks=n))
        if unit == "month" and mult == 3:  # "two quarters ago"
            back = add_months(today, -n)
            return quarter_period(back.year, (back.month - 1) // 3 + 1)
        if unit == "month":
            back = add_months(today, -n)
            return month_period(back.year, back.month)
        return year_period(today.year - n)

    def _period(self, m: re.Match[str]) -> Period:
        which, period, today = m["which"], m["period"], self.today
        if which == "past" or (which == "last" and m["the"] and period != "weekend"):
            # "the past month", "the last year": rolling, not the calendar period
            return self._rolling_one(period)
        back = which in ("last", "previous", "prior")
        if period == "week":
            return week_period(today - timedelta(weeks=1) if back else today)
        if period == "weekend":
            monday = week_period(today - timedelta(weeks=1) if back else today).start
            return Period(monday + timedelta(days=5), monday + timedelta(days=7))
        if period == "month":
            d = add_months(today, -1) if back else today
            return month_period(d.year, d.month)
        if period == "quarter":
            d = add_months(today, -3) if back else today
            return quarter_period(d.year, (d.month - 1) // 3 + 1)
        return year_period(today.year - 1 if back else today.year)

    def _rolling_one(self, period: str) -> Period:
        today = self.today
        if period in ("week", "weekend"):
            return Period(midnight(today - timedelta(weeks=1)), None)
        months = {"month": 1, "quarter": 3, "year": 12}[period]
        return Period(midnight(add_months(today, -months)), None)

    def _last_weekday(self, m: re.Match[str]) -> Period:
        wd, today = WEEKDAYS[m["wd"]], self.today
        if m["which"] == "this":
            return day_period(today - timedelta(days=today.weekday() - wd))
        back = (today.weekday() - wd) % 7 or 7  # strictly before today
        return day_period(today - timedelta(days=back))

    def _last_month_name(self, m: re.Match[str]) -> Period:
        month, today = MONTHS[m["mon"]], self.today
        if m["which"] == "this":
            return month_period(today.year, month)
        year = today.year if month < today.month else today.year - 1
        return month_period(year, month)

    _relative_rules: tuple[
        tuple[re.Pattern[str], Callable[[Context, re.Match[str]], Period]], ...
    ] = (
        (_REL_DAY_BEFORE, lambda c, m: day_period(c.today - timedelta(days=2))),
        (_REL_TODAY, lambda c, m: day_period(c.today)),
        (_REL_YESTERDAY, lambda c, m: day_period(c.today - timedelta(days=1))),
        (_REL_ROLLING, lambda c, m: c._rolling(m)),
        (_REL_AGO, lambda c, m: c._ago(m)),
        (_REL_PERIOD, lambda c, m: c._period(m)),
        (_REL_WEEKDAY, lambda c, m: c._last_weekday(m)),
        (_REL_MONTH, lambda c, m: c._last_month_name(m)),
    )

    def _part_of(self, s: str, pos: int) -> tuple[Period, int] | None:
        """ "the end of March", "early 2024", "the start of the month": thirds of a period.

        "end of"/"start of" also name an edge, which since/before/after/until use.
        """
        m = _PART_OF.match(s, pos)
        if not m:
            return None
        whole: tuple[Period, int] | None
        if m["this"]:
            current = _REL_PERIOD.match(f"this {m['this']}")
            assert current is not None
            whole = (self._period(current), m.end())
        else:
            whole = self.anchor(s, m.end())
        if whole is None or whole[0].end is None:
            return None
        start, end, after = whole[0].start, whole[0].end, whole[1]
        third = timedelta(days=max(1, (end - start).days // 3))
        part = m["part"] or m["part2"]
        if part in ("end", "late"):
            return Period(end - third, end, end if part == "end" else None), after
        if part in ("middle", "mid"):
            return Period(start + third, end - third), after
        return Period(start, start + third, None if part == "early" else start), after

    # anchors valid after a preposition --------------------------------------------
    def anchor(self, s: str, pos: int) -> tuple[Period, int] | None:
        found = self.relative(s, pos) or self._part_of(s, pos)
        if found:
            return found
        today = self.today
        m = MONTH_DAY.match(s, pos) or DAY_MONTH.match(s, pos)
        if m:
            month, day = MONTHS[m["mon"]], int(m["d"])
            if m["y"]:
                return day_period(checked_date(int(m["y"]), month, day)), m.end()
            return day_period(latest_date(today, month, day)), m.end()
        m = _MONTH_YEAR.match(s, pos)
        if m:
            return month_period(int(m["y"]), MONTHS[m["mon"]]), m.end()
        m = _MONTH_ONLY.match(s, pos)
        if m:
            month = MONTHS[m["mon"]]
            year = today.year if month <= today.month else today.year - 1
            return month_period(year, month), m.end()
        m = _QUARTER.match(s, pos)
        if m:
            q = int(m["q"])
            if m["y"]:
                return quarter_period(int(m["y"]), q), m.end()
            current = (today.month - 1) // 3 + 1
            return quarter_period(today.year if q <= current else today.year - 1, q), m.end()
        m = _YEAR_ONLY.match(s, pos)
        if m:
            return year_period(int(m["y"])), m.end()
        m = _WEEKDAY_ONLY.match(s, pos)
        if m and (dated := _WEEKDAY_COMMA.match(s, m.end())):
            # "Saturday Oct 10", "Sat, 10 October": the date names the day
            found = self.anchor(s, dated.end())
            if (
                found
                and found[0].end is not None
                and found[0].end - found[0].start <= timedelta(days=1)
            ):
                return found
        if m:
            back = (today.weekday() - WEEKDAYS[m["wd"]]) % 7  # today counts
            return day_period(today - timedelta(days=back)), m.end()
        m = _HOLIDAY.match(s, pos)
        if m and _BOUND.search(s, 0, pos):
            # "before xmas": the day itself, not the day a note titled "xmas plan" was
            # written (a title names an event only the notes can date). Only as a bound:
            # what happened "during Halloween" is told in the days around it, of a year
            # the question does not say.
            month, day = _holiday(m[0])
            return day_period(latest_date(today, month, day)), m.end()
        if self.event_re is not None:
            m = self.event_re.match(s, pos)
            if m:
                return day_period(self.events[event_key(m["ev"])]), m.end()
        return None


def _has_time_context(s: str, pos: int) -> bool:
    """``2024-03`` is a month only after a preposition; bare it may be an id."""
    return bool(
        re.search(r"(?:since|after|before|until|in|during|on|from|between|and|to)\s+$", s[:pos])
    )
