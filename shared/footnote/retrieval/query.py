"""Query analysis: keywords, a time window, an intent and memory-type filters.

``analyze(query, now, events=None)`` is a pure function of its arguments: no
clock, no network, no state. It reads the question a user asked of their notes
and returns a :class:`~footnote.domain.QueryAnalysis`.

Time semantics (everything in UTC; every window is half-open ``[start, end)``,
the way :meth:`TimeWindow.contains` and the corpus mask read it):

* A *day* runs 00:00 to 00:00 UTC. A *week* runs Monday 00:00 to the next
  Monday 00:00 (ISO weeks). Months, quarters and years are calendar periods.
* ``today``/``yesterday``/``this week``/``this month``/``this year``: the
  calendar period containing ``now`` (or the day before). ``last week``,
  ``last month``, ``last quarter``, ``last year``, ``last weekend``: the
  previous *calendar* period, so on Sunday 2026-11-22 "last week" is Monday
  2026-11-09 to Monday 2026-11-16.
* ``past week``/``the last week``/``past month``/``the past year`` and
  ``past 3 days``/``last 10 days``/``in the last two weeks``: rolling, from
  midnight of today minus that much (so "past 3 days" is the three full days
  before today plus today so far), open-ended.
* ``N days/weeks/months/years ago``: the calendar day, week, month or year
  that was N units back.
* A month name (``March``), a year (``2024``), a quarter (``Q3``), a weekday
  or ``June 5`` is a time hint only after a preposition (in, during, on, from,
  since, after, before, until, between ...), so "the March proposal" stays a
  keyword. Without a year it means the most recent one not in the future:
  "in December" asked in November 2026 is December 2025; "on Feb 29" picks
  the latest leap year. ISO dates (``2024-03-05``) count anywhere.
* ``early``/``mid``/``late`` X and ``the start``/``middle``/``end of`` X are
  thirds of X (whole days); with since/before/after/until, "the end of X" and
  "the start of X" are the moments X ends and starts.
* ``since X`` starts where X starts; ``after X`` starts where X ends;
  ``before X`` ends where X starts; ``until X`` ends where X ends;
  ``between X and Y`` / ``from X to Y`` spans both.
* ``before the launch``/``after the offsite``: an event anchor, looked up in
  ``events`` (name to the day it happened; e.g. built by the caller from note
  titles and dates). Unknown anchors, impossible dates (``2023-02-30``) and
  future references (``tomorrow``, ``next week``: notes are never written in
  the future) produce no window; they are listed in ``unresolved``.
* Several hints intersect ("in 2024 before the launch"). Hints that do not
  overlap keep the first window and list the rest as unresolved.

Time phrases are removed before keywords are extracted, so "last week" never
becomes the keyword "week"; an unresolved event name stays a keyword, since it
is the only signal left.
"""

from __future__ import annotations

import calendar
import copy
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta

from footnote.domain import Intent, MemoryType, QueryAnalysis, TimeWindow
from footnote.text import DECISION_VERBS, QUERY_FILLER, STOPWORDS, normalize, terms

__all__ = ["analyze", "is_follow_up", "with_previous"]

# Words that shape the analysis but say nothing about the topic.
_ANALYSIS_FILLER = frozenset(
    (
        "summarize",
        "summarise",
        "summarized",
        "summary",
        "summaries",
        "overview",
        "recap",
        "tldr",
        "tl",
        "dr",
        "timeline",
        "chronology",
        "chronological",
        "chronologically",
        "enumerate",
        "happen",
        "happened",
        "happening",
        "happens",
        "recent",
        "recently",
        "lately",
        "earlier",
        "ago",
        "evolve",
        "evolved",
        "evolution",
        "since",
    )
)
_KEYWORD_STOP = QUERY_FILLER | _ANALYSIS_FILLER

# -- vocabulary ----------------------------------------------------------------
_MONTHS = {
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
_WEEKDAYS = {
    name: i
    for i, name in enumerate(
        ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
    )
}
_NUMBERS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "thirteen": 13,
    "fourteen": 14,
    "fifteen": 15,
    "sixteen": 16,
    "seventeen": 17,
    "eighteen": 18,
    "nineteen": 19,
    "twenty": 20,
    "thirty": 30,
    "sixty": 60,
    "ninety": 90,
    "a couple of": 2,
    "couple of": 2,
    "a few": 3,
    "few": 3,
    "several": 5,
}


def _alternation(words: Iterable[str]) -> str:
    """Longest first, so "march" wins over "mar"; spaces match any whitespace."""
    escaped = (re.escape(w).replace(r"\ ", r"\s+") for w in words)
    return "|".join(sorted(escaped, key=len, reverse=True))


_MON = rf"(?P<mon>{_alternation(_MONTHS)})\b\.?"
_WD = rf"(?P<wd>{_alternation(_WEEKDAYS)})\b"
_NUM = rf"(?P<n>\d{{1,3}}|{_alternation(_NUMBERS)})"
_UNIT = r"(?P<unit>hours?|days?|nights?|weeks?|fortnights?|months?|quarters?|years?)\b"
_YEAR = r"(?P<y>(?:19|20|21)\d\d)(?!\d)"
_DAY = r"(?P<d>[0-3]?\d)(?!\d)(?:st|nd|rd|th)?\b"


def _c(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


# Forms that are time hints wherever they stand.
_REL_DAY_BEFORE = _c(r"the\s+day\s+before\s+yesterday\b")
_REL_TODAY = _c(r"(?:earlier\s+)?today\b|this\s+(?:morning|afternoon|evening)\b|tonight\b")
_REL_YESTERDAY = _c(r"yesterday\b")
_REL_ROLLING = _c(rf"(?:the\s+)?(?:last|past|previous|prior)\s+{_NUM}\s+{_UNIT}")
_REL_AGO = _c(rf"{_NUM}\s+{_UNIT}\s+ago\b")
_REL_PERIOD = _c(
    r"(?P<the>the\s+)?(?P<which>this|current|last|past|previous|prior)\s+"
    r"(?P<period>week|weekend|month|quarter|year)\b"
)
_REL_WEEKDAY = _c(rf"(?P<which>this|last|previous)\s+{_WD}")
_REL_MONTH = _c(rf"(?P<which>this|last)\s+{_MON}(?!\s*\d)")
_ISO_DATE = _c(r"(?P<y>\d{4})[-/.](?P<m>\d{1,2})[-/.](?P<d>\d{1,2})(?!\d)")
_ISO_MONTH = _c(r"(?P<y>\d{4})-(?P<m>\d{1,2})(?![\d-])")
_FUTURE = _c(
    r"(?:the\s+day\s+after\s+)?tomorrow\b|next\s+(?:week|weekend|month|quarter|year|"
    + _alternation(_WEEKDAYS)
    + r")\b|later\s+this\s+(?:week|month|year)\b"
)

# Forms that are time hints only after a preposition.
_MONTH_DAY = _c(rf"{_MON}\s*{_DAY}(?:,?\s+{_YEAR})?")
_DAY_MONTH = _c(rf"(?:the\s+)?{_DAY}\s+(?:of\s+)?{_MON}(?:,?\s+{_YEAR})?")
_MONTH_YEAR = _c(rf"{_MON},?\s+{_YEAR}")
_MONTH_ONLY = _c(_MON)
_QUARTER = _c(rf"q(?P<q>[1-4])\b(?:\s+{_YEAR})?")
_YEAR_ONLY = _c(_YEAR)
_WEEKDAY_ONLY = _c(_WD)

_PREPOSITION = _c(
    r"(?P<prep>since|as\s+of|after|later\s+than|before|prior\s+to|earlier\s+than|until|till|"
    r"til|up\s+to|through|by|in|during|on|at|from|within|over|around)\s+"
)
_PREP_KIND = {
    "since": "since",
    "as of": "since",
    "after": "after",
    "later than": "after",
    "before": "before",
    "prior to": "before",
    "earlier than": "before",
    "until": "until",
    "till": "until",
    "til": "until",
    "up to": "until",
    "through": "until",
    "by": "until",
}  # every other preposition means "in"
_EVENT_PREPS = frozenset({"since", "after", "before", "until", "during"})
_RANGE_START = _c(r"(?:between|from)\s+")
_RANGE_JOIN = _c(r"\s*(?:and|to|until|till|through|-|–|—)\s*")
_PART_OF = _c(
    r"(?:the\s+)?(?P<part>end|start|beginning|middle)\s+of\s+(?:the\s+(?P<this>week|month|quarter|year)\b)?"
    r"|(?P<part2>early|mid|late)[\s-]+"
)
# Words that follow "before the"/"after the" without naming an event.
_NOT_EVENTS = frozenset(
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
_UNKNOWN_EVENT = _c(r"(?:the|our)\s+(?P<name>[a-z][\w'-]*(?:\s+[a-z][\w'-]*){0,3})")
_WORD_START = _c(r"(?<!\w)\w")
_CITATION_MARKER = _c(r"\[\s*n\s*\d+\s*\]")

# -- intent and type cues --------------------------------------------------------
_INTENT_CUES: tuple[tuple[Intent, re.Pattern[str]], ...] = (
    (
        Intent.SUMMARY,
        _c(
            r"\b(?:summari[sz]\w*|summary|summaries|overview|recap\w*|tl;?dr|sum\s+up|"
            r"catch\s+me\s+up|brief\s+me|highlights|gist|what\s+(?:has\s+|have\s+)?happened)\b"
        ),
    ),
    (
        Intent.LIST,
        _c(
            r"\b(?:list|enumerate|all\s+(?:the|my|our|of)|what\s+are\s+(?:all\s+)?(?:the|my|our)|"
            r"which\s+\w+(?:\s+\w+){0,3}?\s+(?:have|has|had|are|were))\b"
        ),
    ),
    (
        Intent.DECISION,
        _c(DECISION_VERBS.pattern + r"|\bwhy\s+(?:did|do|are|were)\s+(?:we|i)\b"),
    ),
    (
        Intent.TIMELINE,
        _c(
            r"\b(?:timeline|chronolog\w*|history\s+of|evolv\w*|evolution|over\s+time|"
            r"progress(?:ion)?\s+of|how\s+(?:did|has|have)\s+(?:\w+\s+){1,6}?"
            r"(?:change[ds]?|develop(?:ed)?|progress(?:ed)?|grow|grown)|"
            r"when\s+(?:did|was|were|is|are|do|does|will|have|has|had)|^\W*when)\b"
        ),
    ),
)
_TYPE_CUES: tuple[tuple[MemoryType, re.Pattern[str]], ...] = (
    (MemoryType.DECISION, _c(r"\b(?:decisions|decision\s+log)\b")),
    (MemoryType.METRIC, _c(r"\b(?:metrics?|kpis?|stats|statistics)\b")),
    (
        MemoryType.FEEDBACK,
        _c(
            r"\b(?:feedback|complaints?|testimonials?|what\s+(?:did\s+|do\s+)?(?:the\s+|our\s+)?"
            r"(?:customers|users|clients|investors)\s+(?:say|said|think|thought))\b"
        ),
    ),
    (
        MemoryType.TASK,
        _c(
            r"\b(?:tasks|to-?dos?|to\s+do\s+list|action\s+items?|follow[- ]?ups|open\s+items|"
            r"next\s+steps|what\s+(?:do|should)\s+i\s+(?:need\s+to|have\s+to)\s+do)\b"
        ),
    ),
    (MemoryType.RESEARCH, _c(r"\b(?:research|studies|papers|findings|literature|experiments?)\b")),
)


# -- periods ----------------------------------------------------------------------
@dataclass(frozen=True)
class _Period:
    """What an anchor names: ``end`` is None for rolling ("past 3 days") periods."""

    start: datetime
    end: datetime | None
    edge: datetime | None = None  # "the end of March": since/before/after/until use this moment


@dataclass(frozen=True)
class _Hint:
    start_pos: int
    end_pos: int
    label: str
    start: datetime | None = None
    end: datetime | None = None
    resolved: bool = True
    keep_words: bool = False  # an unknown event name still says something about the topic


class _Unresolvable(Exception):
    """A time phrase that names no usable period (bad date, unknown event)."""


def _midnight(d: date) -> datetime:
    return datetime.combine(d, time(0), tzinfo=UTC)


def _day(d: date) -> _Period:
    return _Period(_midnight(d), _midnight(d + timedelta(days=1)))


def _week(d: date) -> _Period:
    monday = d - timedelta(days=d.weekday())
    return _Period(_midnight(monday), _midnight(monday + timedelta(days=7)))


def _month(year: int, month: int) -> _Period:
    nxt = date(year + 1, 1, 1) if month == 12 else date(year, month + 1, 1)
    return _Period(_midnight(date(year, month, 1)), _midnight(nxt))


def _quarter(year: int, q: int) -> _Period:
    start = _month(year, 3 * q - 2)
    end = _month(year, 3 * q)
    return _Period(start.start, end.end)


def _year(year: int) -> _Period:
    return _Period(_midnight(date(year, 1, 1)), _midnight(date(year + 1, 1, 1)))


def _add_months(d: date, months: int) -> date:
    index = d.year * 12 + d.month - 1 + months
    year, month = divmod(index, 12)
    month += 1
    return date(year, month, min(d.day, calendar.monthrange(year, month)[1]))


def _number(raw: str) -> int:
    raw = re.sub(r"\s+", " ", raw)
    return int(raw) if raw.isdigit() else _NUMBERS[raw]


def _unit(raw: str) -> tuple[str, int]:
    """Canonical unit and multiplier: fortnights are two weeks, quarters three months."""
    unit = raw.rstrip("s")
    return {"night": ("day", 1), "fortnight": ("week", 2), "quarter": ("month", 3)}.get(
        unit, (unit, 1)
    )


class _Context:
    def __init__(self, now: datetime, events: Mapping[str, date] | None) -> None:
        self.now = now
        self.today = now.date()
        self.events: dict[str, date] = {}
        for name, when in (events or {}).items():
            key = _event_key(name)
            if key:
                self.events[key] = _as_date(when)
        self.event_re = (
            _c(rf"(?:(?:the|our)\s+)?(?P<ev>{_alternation(self.events)})(?!\w)")
            if self.events
            else None
        )

    def as_of(self, moment: datetime) -> _Context:
        """The same context with ``moment`` as the reference for year-less dates."""
        other = copy.copy(self)
        other.now = moment
        other.today = moment.date()
        return other

    # anchors valid anywhere ------------------------------------------------------
    def relative(self, s: str, pos: int) -> tuple[_Period, int] | None:
        for pattern, build in self._relative_rules:
            m = pattern.match(s, pos)
            if m:
                return build(self, m), m.end()
        m = _ISO_DATE.match(s, pos)
        if m:
            return _day(_checked_date(int(m["y"]), int(m["m"]), int(m["d"]))), m.end()
        m = _ISO_MONTH.match(s, pos)
        if m and 1 <= int(m["m"]) <= 12 and _has_time_context(s, pos):
            return _month(int(m["y"]), int(m["m"])), m.end()
        return None

    def _rolling(self, m: re.Match[str]) -> _Period:
        unit, mult = _unit(m["unit"])
        n = _number(m["n"]) * mult
        today = self.today
        if unit == "hour":
            return _Period(self.now - timedelta(hours=n), None)
        if unit == "day":
            return _Period(_midnight(today - timedelta(days=n)), None)
        if unit == "week":
            return _Period(_midnight(today - timedelta(weeks=n)), None)
        months = n if unit == "month" else 12 * n
        return _Period(_midnight(_add_months(today, -months)), None)

    def _ago(self, m: re.Match[str]) -> _Period:
        unit, mult = _unit(m["unit"])
        n = _number(m["n"]) * mult
        today = self.today
        if unit == "hour":
            return _day((self.now - timedelta(hours=n)).date())
        if unit == "day":
            return _day(today - timedelta(days=n))
        if unit == "week":
            return _week(today - timedelta(weeks=n))
        if unit == "month" and mult == 3:  # "two quarters ago"
            back = _add_months(today, -n)
            return _quarter(back.year, (back.month - 1) // 3 + 1)
        if unit == "month":
            back = _add_months(today, -n)
            return _month(back.year, back.month)
        return _year(today.year - n)

    def _period(self, m: re.Match[str]) -> _Period:
        which, period, today = m["which"], m["period"], self.today
        if which == "past" or (which == "last" and m["the"] and period != "weekend"):
            # "the past month", "the last year": rolling, not the calendar period
            return self._rolling_one(period)
        back = which in ("last", "previous", "prior")
        if period == "week":
            return _week(today - timedelta(weeks=1) if back else today)
        if period == "weekend":
            monday = _week(today - timedelta(weeks=1) if back else today).start
            return _Period(monday + timedelta(days=5), monday + timedelta(days=7))
        if period == "month":
            d = _add_months(today, -1) if back else today
            return _month(d.year, d.month)
        if period == "quarter":
            d = _add_months(today, -3) if back else today
            return _quarter(d.year, (d.month - 1) // 3 + 1)
        return _year(today.year - 1 if back else today.year)

    def _rolling_one(self, period: str) -> _Period:
        today = self.today
        if period in ("week", "weekend"):
            return _Period(_midnight(today - timedelta(weeks=1)), None)
        months = {"month": 1, "quarter": 3, "year": 12}[period]
        return _Period(_midnight(_add_months(today, -months)), None)

    def _last_weekday(self, m: re.Match[str]) -> _Period:
        wd, today = _WEEKDAYS[m["wd"]], self.today
        if m["which"] == "this":
            return _day(today - timedelta(days=today.weekday() - wd))
        back = (today.weekday() - wd) % 7 or 7  # strictly before today
        return _day(today - timedelta(days=back))

    def _last_month_name(self, m: re.Match[str]) -> _Period:
        month, today = _MONTHS[m["mon"]], self.today
        if m["which"] == "this":
            return _month(today.year, month)
        year = today.year if month < today.month else today.year - 1
        return _month(year, month)

    _relative_rules: tuple[
        tuple[re.Pattern[str], Callable[[_Context, re.Match[str]], _Period]], ...
    ] = (
        (_REL_DAY_BEFORE, lambda c, m: _day(c.today - timedelta(days=2))),
        (_REL_TODAY, lambda c, m: _day(c.today)),
        (_REL_YESTERDAY, lambda c, m: _day(c.today - timedelta(days=1))),
        (_REL_ROLLING, lambda c, m: c._rolling(m)),
        (_REL_AGO, lambda c, m: c._ago(m)),
        (_REL_PERIOD, lambda c, m: c._period(m)),
        (_REL_WEEKDAY, lambda c, m: c._last_weekday(m)),
        (_REL_MONTH, lambda c, m: c._last_month_name(m)),
    )

    def _part_of(self, s: str, pos: int) -> tuple[_Period, int] | None:
        """ "the end of March", "early 2024", "the start of the month": thirds of a period.

        "end of"/"start of" also name an edge, which since/before/after/until use.
        """
        m = _PART_OF.match(s, pos)
        if not m:
            return None
        whole: tuple[_Period, int] | None
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
            return _Period(end - third, end, end if part == "end" else None), after
        if part in ("middle", "mid"):
            return _Period(start + third, end - third), after
        return _Period(start, start + third, None if part == "early" else start), after

    # anchors valid after a preposition --------------------------------------------
    def anchor(self, s: str, pos: int) -> tuple[_Period, int] | None:
        found = self.relative(s, pos) or self._part_of(s, pos)
        if found:
            return found
        today = self.today
        m = _MONTH_DAY.match(s, pos) or _DAY_MONTH.match(s, pos)
        if m:
            month, day = _MONTHS[m["mon"]], int(m["d"])
            if m["y"]:
                return _day(_checked_date(int(m["y"]), month, day)), m.end()
            return _day(_latest_date(today, month, day)), m.end()
        m = _MONTH_YEAR.match(s, pos)
        if m:
            return _month(int(m["y"]), _MONTHS[m["mon"]]), m.end()
        m = _MONTH_ONLY.match(s, pos)
        if m:
            month = _MONTHS[m["mon"]]
            year = today.year if month <= today.month else today.year - 1
            return _month(year, month), m.end()
        m = _QUARTER.match(s, pos)
        if m:
            q = int(m["q"])
            if m["y"]:
                return _quarter(int(m["y"]), q), m.end()
            current = (today.month - 1) // 3 + 1
            return _quarter(today.year if q <= current else today.year - 1, q), m.end()
        m = _YEAR_ONLY.match(s, pos)
        if m:
            return _year(int(m["y"])), m.end()
        m = _WEEKDAY_ONLY.match(s, pos)
        if m:
            back = (today.weekday() - _WEEKDAYS[m["wd"]]) % 7  # today counts
            return _day(today - timedelta(days=back)), m.end()
        if self.event_re is not None:
            m = self.event_re.match(s, pos)
            if m:
                return _day(self.events[_event_key(m["ev"])]), m.end()
        return None


def _checked_date(year: int, month: int, day: int) -> date:
    try:
        return date(year, month, day)
    except ValueError as exc:
        raise _Unresolvable from exc


def _latest_date(today: date, month: int, day: int) -> date:
    """The most recent ``month``/``day`` not after ``today`` (Feb 29 finds a leap year)."""
    if not 1 <= day <= calendar.monthrange(2000, month)[1]:  # 2000 is a leap year
        raise _Unresolvable
    year = today.year if (month, day) <= (today.month, today.day) else today.year - 1
    while not calendar.isleap(year) and (month, day) == (2, 29):
        year -= 1
    return date(year, month, day)


def _has_time_context(s: str, pos: int) -> bool:
    """``2024-03`` is a month only after a preposition; bare it may be an id."""
    return bool(
        re.search(r"(?:since|after|before|until|in|during|on|from|between|and|to)\s+$", s[:pos])
    )


# Trailing words that make a note's title a record of an event, not its name:
# "Launch day", "Offsite recap" and "Q3 planning notes" date "the launch", "the offsite".
_EVENT_TITLE_TAIL = _c(
    r"\s+(?:day|notes?|recap|retro(?:spective)?|review|summary|minutes|debrief|planning|plan)$"
)


def events_from_titles(titled: Iterable[tuple[str, datetime]]) -> dict[str, date]:
    """Event names a tenant's notes define: each short title, dated by its note.

    "before the launch" resolves when a note titled "Launch" (or "Launch day")
    exists; a name several notes carry takes the earliest, the day it first
    happened. Titles of more than five words are sentences, not event names.
    """
    events: dict[str, date] = {}
    for title, created in titled:
        key = _event_key(title)
        if not key or len(key.split()) > 5 or not re.search(r"[a-z]", key):
            continue
        day = _as_date(created)
        for name in {key, _EVENT_TITLE_TAIL.sub("", key)}:
            if name and name not in _NOT_EVENTS and (name not in events or day < events[name]):
                events[name] = day
    return events


def _event_key(name: str) -> str:
    key = re.sub(r"\s+", " ", normalize(name).lower()).strip(" .,:;!?\"'")
    return re.sub(r"^(?:the|our)\s+", "", key)


def _as_date(when: date) -> date:
    if isinstance(when, datetime):
        return (when.astimezone(UTC) if when.tzinfo else when).date()
    return when


# -- scanning ---------------------------------------------------------------------
def _scan(s: str, ctx: _Context) -> list[_Hint]:
    hints: list[_Hint] = []
    pos = 0
    while True:
        m = _WORD_START.search(s, pos)
        if m is None:
            return hints
        start = m.start()
        try:
            hint = _hint_at(s, start, ctx)
        except (_Unresolvable, OverflowError, ValueError):
            hint = _bad_hint_at(s, start, ctx)
        if hint is None:
            word_end = re.compile(r"\w*").match(s, start)
            pos = word_end.end() if word_end else start + 1
        else:
            hints.append(hint)
            pos = max(hint.end_pos, start + 1)


def _hint_at(s: str, pos: int, ctx: _Context) -> _Hint | None:
    # between X and Y / from X to Y
    m = _RANGE_START.match(s, pos)
    if m:
        first = ctx.anchor(s, m.end())
        if first:
            join = _RANGE_JOIN.match(s, first[1])
            second = ctx.anchor(s, join.end()) if join else None
            if second:
                a, b = first[0], second[0]
                if a.start > b.start and b.end is not None:
                    # "from June to March", "from March to May 2024": the first end
                    # is the latest such period not after the second one
                    again = ctx.as_of(b.end - timedelta(days=1)).anchor(s, m.end())
                    a = again[0] if again else a
                start = min(a.start, b.start)
                end = None if a.end is None or b.end is None else max(a.end, b.end)
                return _Hint(pos, second[1], s[pos : second[1]], start, end)
    # preposition + anchor
    m = _PREPOSITION.match(s, pos)
    if m:
        prep = re.sub(r"\s+", " ", m["prep"])
        kind = _PREP_KIND.get(prep, "in")
        event_kind = kind if kind != "in" else ("during" if prep == "during" else "")
        found = ctx.anchor(s, m.end())
        if found:
            period, end_pos = found
            return _apply(kind, period, pos, end_pos, s)
        if event_kind in _EVENT_PREPS:
            unknown = _UNKNOWN_EVENT.match(s, m.end())
            if unknown:
                name_words: list[str] = []
                if unknown["name"].split()[0] in _NOT_EVENTS:
                    return None
                for w in unknown["name"].split():
                    if w in STOPWORDS or w in _KEYWORD_STOP:
                        break
                    name_words.append(w)
                if name_words:
                    label = f"{s[pos : m.end()]}{s[m.end() : unknown.start('name')]}{' '.join(name_words)}"
                    name_end = unknown.start("name") + len(" ".join(name_words))
                    return _Hint(
                        pos, name_end, re.sub(r"\s+", " ", label), resolved=False, keep_words=True
                    )
    # forms that need no preposition
    found = ctx.relative(s, pos)
    if found:
        return _apply("in", found[0], pos, found[1], s)
    m = _FUTURE.match(s, pos)
    if m:
        return _Hint(pos, m.end(), s[pos : m.end()], resolved=False)
    return None


def _bad_hint_at(s: str, pos: int, ctx: _Context) -> _Hint | None:
    """A phrase that looked like a date but is not one ("on 2023-02-30", "June 31")."""
    prep = _PREPOSITION.match(s, pos)
    at = prep.end() if prep else pos
    for pattern in (_ISO_DATE, _MONTH_DAY, _DAY_MONTH):
        m = pattern.match(s, at)
        if m and (prep or pattern is _ISO_DATE):
            return _Hint(pos, m.end(), s[pos : m.end()], resolved=False)
    return None


def _apply(kind: str, p: _Period, start_pos: int, end_pos: int, s: str) -> _Hint:
    label = re.sub(r"\s+", " ", s[start_pos:end_pos])
    if p.edge is not None and kind != "in":  # "before the end of March": the moment itself
        p = _Period(p.edge, p.edge)
    if kind == "since":
        return _Hint(start_pos, end_pos, label, p.start, None)
    if kind == "after":
        if p.end is None:  # "after the past 3 days" names no moment
            return _Hint(start_pos, end_pos, label, resolved=False)
        return _Hint(start_pos, end_pos, label, p.end, None)
    if kind == "before":
        return _Hint(start_pos, end_pos, label, None, p.start)
    if kind == "until":
        if p.end is None:
            return _Hint(start_pos, end_pos, label, resolved=False)
        return _Hint(start_pos, end_pos, label, None, p.end)
    return _Hint(start_pos, end_pos, label, p.start, p.end)


def _window(hints: list[_Hint]) -> tuple[TimeWindow | None, list[str]]:
    unresolved = [h.label for h in hints if not h.resolved]
    start: datetime | None = None
    end: datetime | None = None
    labels: list[str] = []
    for h in hints:
        if not h.resolved:
            continue
        new_start = max((t for t in (start, h.start) if t is not None), default=None)
        new_end = min((t for t in (end, h.end) if t is not None), default=None)
        if labels and new_start is not None and new_end is not None and new_start >= new_end:
            unresolved.append(h.label)  # disjoint from what came before: keep the first
            continue
        start, end = new_start, new_end
        labels.append(h.label)
    if not labels:
        return None, unresolved
    return TimeWindow(start, end, " & ".join(labels)), unresolved


def _intent(s: str) -> Intent:
    for intent, cue in _INTENT_CUES:
        if cue.search(s):
            return intent
    return Intent.FACTUAL


def _types(s: str) -> tuple[MemoryType, ...]:
    found = {t for t, cue in _TYPE_CUES if cue.search(s)}
    return tuple(t for t in MemoryType if t in found)


def analyze(query: str, now: datetime, events: Mapping[str, date] | None = None) -> QueryAnalysis:
    """Keywords, time window, intent and type filters of ``query`` as of ``now``.

    ``now`` must be timezone-aware; it is read in UTC. ``events`` maps event
    names ("launch", "the offsite") to the day they happened, so that "before
    the launch" can become a window; without it such anchors are unresolved.
    """
    if now.tzinfo is None or now.utcoffset() is None:
        raise ValueError("now must be timezone-aware")
    now = now.astimezone(UTC)
    normalized = re.sub(r"\s+", " ", normalize(query)).strip()
    lowered = normalized.lower().replace("’", "'")

    hints = _scan(lowered, _Context(now, events))
    window, unresolved = _window(hints)

    rest = list(lowered)
    for h in hints:
        if not h.keep_words:
            rest[h.start_pos : h.end_pos] = " " * (h.end_pos - h.start_pos)
    # "[N7]" names a citation of an earlier answer, not words to look for: a note
    # quoting a forged marker must not match on it.
    content = _CITATION_MARKER.sub(" ", "".join(rest))
    keywords = tuple(dict.fromkeys(terms(content, _KEYWORD_STOP)))

    return QueryAnalysis(
        original=query,
        normalized=normalized,
        keywords=keywords,
        intent=_intent(lowered),
        window=window,
        types=_types(lowered),
        unresolved=tuple(unresolved),
    )


# -- follow-ups in a conversation ---------------------------------------------------
_FOLLOW_UP_OPENER = _c(
    r"^\W*(?:and|but|also|so|then|what\s+about|how\s+about|and\s+what|what\s+else|"
    r"after\s+that|before\s+that|anything\s+else)\b"
)
_BACK_REFERENCE = _c(
    r"\b(?:he|she|they|him|her|them|his|hers|their|theirs|it|its|that|those|these|"
    r"there|then|the\s+same)\b"
)
_CAPITALISED = re.compile(r"(?<!^)(?<![.?!]\s)\b[A-Z][a-z]+")


def names_someone(text: str) -> bool:
    """A capitalised word after the first: a name ("What about Melanie?")."""
    return any(
        w.lower() not in _MONTHS and w.lower() not in _WEEKDAYS
        for w in _CAPITALISED.findall(normalize(text).strip())
    )


def is_follow_up(message: str, analysis: QueryAnalysis) -> bool:
    """An elliptical or back-referring question that needs the previous one to be read.

    "And in June?", "What about Melanie?", "When did she go there?" are; a
    question naming its own subject with several content words is not.
    """
    text = normalize(message).strip()
    lowered = text.lower()
    if _FOLLOW_UP_OPENER.search(lowered):
        return True
    names_something = names_someone(text)
    if _BACK_REFERENCE.search(lowered) and not names_something:
        return True
    return len(analysis.keywords) <= 1 and not names_something


def with_previous(current: QueryAnalysis, previous: QueryAnalysis) -> QueryAnalysis:
    """A follow-up keeps its own words and window, and inherits the previous question's
    subject (its keywords, after its own) and its time window when it names none.

    "What about Melanie?" after "What did Caroline paint?" swaps the person:
    a follow-up that names someone drops the names of the previous question.
    """
    inherited = previous.keywords
    if names_someone(current.original):
        dropped = set(terms(" ".join(_CAPITALISED.findall(normalize(previous.original)))))
        inherited = tuple(k for k in inherited if k not in dropped)
    keywords = tuple(dict.fromkeys((*current.keywords, *inherited)))
    # The text the retriever embeds becomes standalone too: the follow-up, then the
    # question it follows (without its names, when the follow-up names someone else).
    context = previous.normalized
    if names_someone(current.original):
        context = _CAPITALISED.sub(" ", context)
    return QueryAnalysis(
        original=current.original,
        normalized=re.sub(r"\s+", " ", f"{current.normalized} {context}").strip(),
        keywords=keywords,
        intent=current.intent,
        window=current.window or previous.window,
        types=current.types or previous.types,
        unresolved=current.unresolved,
    )
