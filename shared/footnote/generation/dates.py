"""Time phrases in a note, read against the date the note was written.

A note written on 8 May 2023 that says "yesterday" means 7 May 2023; "last
year" means 2022. ``resolve_phrases`` finds such phrases in a sentence and
says what each one means, at the precision the phrase has: a day for
"yesterday" or "last Saturday", a week for "last week", a month for "next
month", a year for "last year". Pure functions: no clock, no I/O.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from footnote.text import NUMBER_WORDS

_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
# The counts a note's own phrases use: up to ten (their values: footnote.text.NUMBER_WORDS).
_NUM = r"(?P<n>\d{1,2}|a\s+couple(?:\s+of)?|couple\s+of|a\s+few|few|an?|one|two|three|four|five|six|seven|eight|nine|ten)"
_UNIT = r"(?P<unit>days?|weeks?|wks?|months?|mos?|years?|yrs?)"
# the units as notes write them short ("8 wks", "3 mos")
_UNIT_NAMES = {"wk": "week", "mo": "month", "yr": "year"}
# "Sat 24 Jan" names its month: an absolute date (``has_absolute_date``), not "Sat 24".
_MONTH = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)"
# Full names in any case; the short forms capitalised ("Sat 24 Jan", "Tues"), or in
# lowercase as quick notes write them ("from fri", "mon 18th"): "mon", "tues", "thurs" and
# "fri" always, "sat", "wed" and "sun" (words too: "sat down", "sun cream") only after a
# word that leads a day or before a day of the month ("by sat", "sat 5th"); a thing done
# or booked is done on a day ("covid booster done sat"), a verb is no thing done.
_LEADS_DAY = (
    *("on", "by", "from", "until", "till", "next", "last", "this", "before", "after", "due"),
    *("done", "booked", "finished"),
)
_AFTER_LEAD = "|".join(f"(?<=\\b{w} )" for w in _LEADS_DAY)
_WD = (
    rf"(?P<wd>{'|'.join(_WEEKDAYS)}|(?-i:Mon|Tues?|Weds?|Thu(?:rs?)?|Fri|Sat|Sun)\b\.?|"
    r"(?-i:mon|tues?|thu(?:rs?)?|fri)\b\.?|"
    rf"(?:{_AFTER_LEAD})(?-i:sat|weds?|sun)\b\.?|"
    r"(?-i:sat|weds?|sun)(?=\s+(?:the\s+)?(?:[1-9]|[12]\d|3[01])(?:st|nd|rd|th)\b)|"
    # a day of the month, a part of the day or a time after it makes it the day ("sat
    # 20: grout", "-> wed 24", "sat night", "pick up vases sun 10am"), unless a pronoun
    # before it makes it a verb ("I sat night after night", "we sat 20 minutes")
    r"(?<!\bi )(?<!\bwe )(?<!\bhe )(?<!\bshe )(?<!\bthey )(?<!\byou )(?-i:sat|weds?|sun)"
    r"(?=\s+(?:night|morning|afternoon|evening|eve)\b|"
    r"\s+(?:[1-9]|[12]\d|3[01])(?![\d.,]|:\d|\s*(?:am|pm|h|hrs?|min|mins|minutes|km|k|kg|%|x)\b)|"
    r"\s+(?:[01]?\d(?::[0-5]\d)?\s*(?:am|pm)\b|[012]?\d:[0-5]\d\b)))"
)
# "next Tues (31st)", "last Sat 21st": the day of the month says which of the weekdays
_DOM_FOLLOWS = r"(?!\s*\(?\s*(?:the\s+)?(?:[1-9]|[12]\d|3[01])(?:st|nd|rd|th)\b)"

# "installer coming Fri 9-13h", "Sat 10–2pm": hours after a weekday, to an hour
_HOURS_TO = r"\s*[-–]\s*\d{1,2}(?::\d\d)?\s*(?:am|pm|h|hrs?)\b|\s*[-–]\s*\d{1,2}:\d\d"

_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (kind, re.compile(rf"\b{pattern}\b", re.IGNORECASE))
    for kind, pattern in (
        # "renews 12/1", "lease ends 5/31/27", "(done 22/9)", "Fri 10/24": a date in
        # numbers, day or month first as the writer's part of the world writes it. Without
        # a year only after a word that leads a date or a weekday: "4/5", "7/10", "60/40",
        # "12/12 sold" are ratings, scores and shares. A line of a schedule opening with
        # its date ("4/29: units 5–6") leads with it.
        (
            "numeric",
            r"(?:(?:(?P<lead>(?:on|by|due|until|till|from|before|after|since|sent|done|paid|"
            # ("moved dentist to 5/18"; not "reduce to 1/2")
            r"(?:moved|changed|pushed|postponed|rescheduled|shifted)\b[^\n.;]{0,30}?\bto|"
            r"renews?|renewed|ends?|ended|exp|expires?|expired|starts?|started|booked|dated|"
            r"w/c|week\s+of|(?:mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)[a-z]*)\.?,?\s+)|"
            r"(?<![^\n])(?=[0-3]?\d/[0-3]?\d\s*(?::|\s[-–]\s)))"
            r"(?P<a1>[0-3]?\d)/(?P<b1>[0-3]?\d)(?:/(?P<y1>\d{4}|\d{2}))?|"
            r"(?<![\d/.,:-])(?P<a2>[0-3]?\d)[/.](?P<b2>[0-3]?\d)[/.](?P<y2>\d{4}|\d{2}))"
            r"(?![\d/]|[.,]\d)",
        ),
        ("day_before_yesterday", r"the\s+day\s+before\s+yesterday"),
        ("day_after_tomorrow", r"(?:the\s+)?day\s+after\s+(?:tomorrow|tmrw|tmr|tmw)"),
        ("yesterday", r"yesterday|yday|last\s+night"),
        ("tomorrow", r"tomorrow|tmrw|tmr|tmw"),
        # "8 wks from today", "3 weeks from now": that day, counted from the day written
        # (and "3 wks today", "a week today": as British notes write it)
        ("from_now", rf"{_NUM}\s+{_UNIT}\s+(?:(?:from|after)\s+(?:today|now)|today)"),
        ("today", r"today|tonight|this\s+(?:morning|afternoon|evening)"),
        ("ago", rf"{_NUM}\s+{_UNIT}\s+ago"),
        ("in_n", rf"in\s+{_NUM}\s+{_UNIT}"),
        # "MOT runs out Tue 24 Mar. Booked in for the Sat before": a weekday counted from
        # the day named before it (read only with that day: ``resolve_phrases``)
        ("anchored_weekday", rf"the\s+{_WD}\s+(?P<side>before|after)\b"),
        # "away the 3rd thurs in april", "the last fri of june": that day of that month
        (
            "nth_weekday_of",
            rf"(?:the\s+)?(?P<n>1st|first|2nd|second|3rd|third|4th|fourth|last)\s+{_WD}\s+"
            rf"(?:in|of)\s+(?P<mon>{_MONTH}[a-z]*)\.?(?!\s*-?\d)",
        ),
        ("last_weekday", rf"(?:last|this\s+past)\s+{_WD}"),
        # "needs it by Thurs next week", "next week on Tues": that day of the week after
        # the one written in
        (
            "weekday_next_week",
            rf"{_WD}\s+(?:of\s+)?next\s+week|"
            rf"next\s+week(?:\s+on|,)?\s+{_WD.replace('?P<wd>', '?P<wd2>')}",
        ),
        ("next_weekday", rf"next\s+{_WD}{_DOM_FOLLOWS}"),
        # "pick up Fri 21": a weekday with its day of the month names one day, whichever
        # side of the day of writing it falls ("2-4pm", "21:50" are times, not days)
        (
            "weekday_day",
            # ("Sat 28th: 2 men" ends its day at the ordinal: its colon is no time's)
            rf"{_WD}(?:\s*\((?=\s*(?:[1-9]|[12]\d|3[01])(?:st|nd|rd|th)\b)\s*|\s+)(?:the\s+)?(?P<dom>[1-9]|[12]\d|3[01])(?:(?:st|nd|rd|th)(?!\w)|(?![\d.]|:\d))"
            rf"(?!\s*(?:am|pm|h|k|km|min)\b|\s*(?:of\s+)?{_MONTH}|{_HOURS_TO})",
        ),
        # "her bday is the 14th", "pay by the 30th": a day of the month, the first one
        # after the day of writing for what is coming, the last one before for a record
        # ("the 3rd floor", "the 2nd time" are no days)
        (
            "day_of_month",
            rf"the\s+(?P<dom>[1-9]|[12]\d|3[01])(?:st|nd|rd|th)\b(?!\s*(?:of\s+)?{_MONTH}|"
            r"\s+(?:floor|time|place|round|grade|year|week|day|edition|attempt|row|chapter|"
            r"century|anniversary|birthday|person|one|lap|set|draft|version|page|"
            r"of\s+(?:the|my|his|her|their|our|them|us)\b))",
        ),
        (
            "last_period",
            r"(?:last|this\s+past)\s+(?P<period>week|weekend|month|year|summer|winter)",
        ),
        ("next_period", r"next\s+(?P<period>week|weekend|month|year)"),
        ("this_period", r"this\s+(?P<period>week|weekend|month|year)"),
        ("weekday", rf"(?:on\s+)?{_WD}"),
        # "TÜV due in March", "we moved in June": a month without its day or year, the
        # next one for what is coming, the last one for a record ("March 14", "June 2027"
        # name their date themselves)
        (
            "month",
            rf"(?:in|by|before|until|till|from|since|during|(?:early|mid|late|end\s+of))\s+"
            rf"(?:early\s+|mid-?\s*|late\s+)?(?P<mon>{_MONTH}[a-z]*)\.?(?!\s*-?\d)",
        ),
    )
)


@dataclass(frozen=True)
class Resolved:
    phrase: str  # as written in the note
    meaning: str  # "7 May 2023", "the week before 9 June 2023", "2022"
    start: int
    end: int
    # before the day of writing, read backwards from it ("yesterday", "last Saturday",
    # "two weeks ago", "on Friday" in a record): the note records what happened then
    past: bool = False
    # What it means read back from the day of writing, when nothing in its sentence says
    # which way it reads ("Frost -3 on Monday"): a question asked in the past tense ("When
    # was the frost?") reads it so.
    read_back: str | None = None
    # What it means read ahead, when only a past tense in its sentence read it back ("took
    # the 21st", written on the 23rd, of the party's new day): a question asked of what is
    # to come ("When is the party?"), after that day, reads it so.
    read_ahead: str | None = None


_DAY_TEXT = re.compile(r"\b(\d{1,2}) ([A-Z][a-z]+) (\d{4})$")


def day_of(meaning: str) -> date | None:
    """The day a meaning names, when it names one ("Monday, 30 November 2026")."""
    found = _DAY_TEXT.search(meaning)
    if found is None or found[2].lower() not in _MONTH_NUMBER:
        return None
    return date(int(found[3]), _MONTH_NUMBER[found[2].lower()], int(found[1]))


_RANGE_WEEKDAY = r"(?:(?:mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)(?:day)?\.?\s+)?"
_NAMED_DAY = re.compile(
    # ("3-14 aug", "3rd to 5th May", "Feb 12-21 2027": the days from the first to the last)
    # (a weekday may stand before each day: "Mon 6 - Thu 9 Sept")
    rf"\b(?:(?:(?P<d0>[0-3]?\d)(?:st|nd|rd|th)?\s*(?:[-–]|to)\s*{_RANGE_WEEKDAY})?"
    rf"(?P<d1>[0-3]?\d)(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<m1>{_MONTH}[a-z]*)\.?|"
    rf"(?P<m2>{_MONTH}[a-z]*)\.?\s+(?P<d2>[0-3]?\d)(?:st|nd|rd|th)?"
    rf"(?:\s*[-–]\s*(?P<d3>[0-3]?\d)(?:st|nd|rd|th)?)?\b)(?:,?\s+(?P<y>(?:19|20)\d\d))?",
    re.IGNORECASE,
)


def named_days(text: str, written: date) -> list[date]:
    """The days the text names itself ("30 Nov", "Dec 2", "1 December 2026"), each in
    the year written, or else the one nearest the day of writing."""
    return [
        day for first, last in day_ranges(text, written) for day in dict.fromkeys((first, last))
    ]


def day_ranges(text: str, written: date) -> list[tuple[date, date]]:
    """The days the text names (``named_days``) as (first, last): one day is its own
    range; "3-14 aug" runs from the 3rd to the 14th."""
    found: list[tuple[date, date]] = []
    for m in _NAMED_DAY.finditer(text):
        if _negated(text, m.start()):
            continue
        # the pattern's month opens with one of _MONTH's three-letter names
        month = _MONTH_NUMBER[(m["m1"] or m["m2"]).lower()[:3]]
        years = [int(m["y"])] if m["y"] else _years_around(written)
        days = _days_in(years, month, int(m["d1"] or m["d2"]))
        if not days:
            continue
        day = min(days, key=lambda d: abs((d - written).days))
        first = last = day
        if m["d0"] and 0 < int(m["d0"]) < day.day:
            first = day.replace(day=int(m["d0"]))
        if m["d3"] and day.day < int(m["d3"]) <= calendar.monthrange(day.year, day.month)[1]:
            last = day.replace(day=int(m["d3"]))
        found.append((first, last))
    return found


def _years_around(written: date) -> list[int]:
    return [written.year - 1, written.year, written.year + 1]


def _days_in(years: list[int], month: int, dom: int) -> list[date]:
    """The ``dom``-th of ``month`` in each of ``years`` that has one."""
    if dom < 1:
        return []
    return [date(y, month, dom) for y in years if dom <= calendar.monthrange(y, month)[1]]


def day_text(d: date) -> str:
    """ "7 May 2023": day, month name, year — unambiguous in every locale."""
    return f"{d.day} {calendar.month_name[d.month]} {d.year}"


def month_text(d: date) -> str:
    return f"{calendar.month_name[d.month]} {d.year}"


def _add_months(d: date, months: int) -> date:
    index = d.year * 12 + d.month - 1 + months
    year, month = divmod(index, 12)
    return date(year, month + 1, 1)


def _number(raw: str) -> int:
    raw = re.sub(r"\s+", " ", raw.lower())
    return int(raw) if raw.isdigit() else NUMBER_WORDS.get(raw, 1)


# A bare weekday is ahead of the day of writing when a deadline word leads it ("before
# Friday", "by Friday", "due Friday", "this Friday") or its sentence speaks of what is
# still to come (a plan, an obligation, a future tense); otherwise it is the one just
# past ("we met on Friday").
_DEADLINE_BEFORE = re.compile(
    r"\b(?:before|by|until|till|due|this|coming|upcoming|on\s+or\s+before)\s+(?:on\s+)?$",
    re.IGNORECASE,
)
# A day something is moved to is its new date, still ahead: "parent evening moved to
# Thursday", "pushed to Fri", "rescheduled for Monday" (the verb is past, the day is not).
_MOVED_TO = re.compile(
    r"\b(?:moved|pushed|postponed|rescheduled|changed|bumped|shifted|delayed|put\s+off|"
    r"brought\s+forward)\s+(?:back\s+)?(?:to|till|until|for)\s+(?:next\s+)?(?:on\s+)?$",
    re.IGNORECASE,
)
_FUTURE = re.compile(
    r"\b(?:will|shall|won't|going\s+to|gonna|need(?:s|ed)?\s+to|have\s+to|has\s+to|must|"
    r"should|might|plan(?:s|ning)?\s+to|want\s+to|hop(?:e|es|ing)\s+to|todo|to-?do|deadline|remind(?:er)?|"
    r"schedule[ds]?|booked|appointment)\b|'ll\b",
    re.IGNORECASE,
)


# What makes a weekday recur: "every Wednesday", "each Monday", "every other Friday".
_EVERY = re.compile(r"\b(?:every|each)\s+(?:other\s+|second\s+)?(?:on\s+)?$", re.IGNORECASE)


# Days joined ("Mon + Wed", "Tue/Thu", "Mon, Wed and Fri") before a time of day:
# "A2 group, Mon + Wed 7-8:30pm" is when a class meets each week, not one Monday.
_ANY_WD = _WD.replace("(?P<wd>", "(?:")
_JOINED_DAYS = re.compile(
    rf"{_ANY_WD}(?:\s*(?:[+&/,]|and)\s*{_ANY_WD})+\.?\s+(?:at\s+)?\d{{1,2}}(?::\d\d)?\s*(?:-\s*\d{{1,2}}"
    r"(?::\d\d)?\s*)?(?:am|pm)?\b",
    re.IGNORECASE,
)


# "2nd Monday of every month", "the last Friday of the month": a day each month.
# ("2nd + 4th Thurs of the month": two days each month)
_NTH_WORD = r"1st|first|2nd|second|3rd|third|4th|fourth|last"
_NTH_WEEKDAY = re.compile(
    rf"\b(?P<n>{_NTH_WORD})(?:\s*(?:[+&/,]|and)\s*(?P<n2>{_NTH_WORD}))?\s+{_WD}\s+"
    r"(?:of\s+(?:every|each|the|a)|every|each)\s+month\b",
    re.IGNORECASE,
)
_NTH = {"1st": 1, "first": 1, "2nd": 2, "second": 2, "3rd": 3, "third": 3, "4th": 4, "fourth": 4}


def _nth_weekday(month: date, weekday: int, nth: str) -> date:
    """The ``nth`` ("2nd", "third", "last") ``weekday`` of ``month``'s month."""
    last = calendar.monthrange(month.year, month.month)[1]
    days = [
        month.replace(day=d)
        for d in range(1, last + 1)
        if month.replace(day=d).weekday() == weekday
    ]
    n = _NTH.get(nth.lower())
    return days[n - 1] if n is not None else days[-1]


# A weekday that comes back every week: "every Thurs", "Fridays", "delivers Tue/Thu/Sat",
# "deliveries now Mon, Wed, Fri".
_PLURAL_WD = re.compile(r"\b(mon|tues|wednes|thurs|fri|satur|sun)days\b", re.IGNORECASE)
_WEEKLY = re.compile(
    rf"\b(?:every|each)\s+(?:other\s+)?{_ANY_WD}|{_PLURAL_WD.pattern}|"
    rf"{_ANY_WD}(?:\s*(?:[+&/,]|and)\s*{_ANY_WD})+",
    re.IGNORECASE,
)


_THE = re.compile(r"\bthe\s+$", re.IGNORECASE)
_COUNTED_FROM = re.compile(r"\s+(?:after|before)\s+(?:the\s+)?[a-z]", re.IGNORECASE)


def _line_of(m: re.Match[str]) -> str:
    text = m.string
    end = text.find("\n", m.end())
    return text[text.rfind("\n", 0, m.start()) + 1 : end if end >= 0 else len(text)]


def _weekly(m: re.Match[str]) -> bool:
    """The weekday is one of days joined before a time of day (``_JOINED_DAYS``)."""
    return any(j.start() <= m.start() < j.end() for j in _JOINED_DAYS.finditer(m.string))


def _weekday(raw: str) -> int:
    short = raw.lower().rstrip(".")[:3]
    return next(i for i, d in enumerate(_WEEKDAYS) if d.startswith(short))


# The word before a bare weekday: a verb in -ing ("arriving Thursday", "flying Sunday")
# or a modal speaks of what is coming.
_COMING_VERB = re.compile(r"\b\w+ing\s+(?:on\s+)?$|\b(?:will|'ll|shall)\s+\w+\s+(?:on\s+)?$", re.I)


_PAST_ING = re.compile(r"\b(?:went|was|were|been|had|did)\s+\w+ing\s+(?:on\s+)?$", re.I)


_SENTENCE_END = re.compile(r"[.?!\n]|\s[–—-]\s")


def _looks_ahead(m: re.Match[str]) -> bool:
    # A sentence that tells what happened ("we met on Friday", "ran 10k Sat") looks back;
    # one with no past in it is a plan or a note to self ("go Sat morning w/ the trailer",
    # "consent forms go out Fri"), written before the day it names.
    cued = _cued_ahead(m)
    return True if cued is None else cued


def _cued_ahead(m: re.Match[str]) -> bool | None:
    """Ahead when a word before the phrase or its sentence's future says so; None when
    only the sentence's lack of a past tense would (``_sentence_ahead``)."""
    text = m.string
    lead = text[max(0, m.start() - 24) : m.start()]
    if _DEADLINE_BEFORE.search(lead) or _MOVED_TO.search(lead):
        return True
    if _COMING_VERB.search(lead) and not _PAST_ING.search(lead):
        return True
    # (its sentence: a question or an aside after a dash is one of its own, "emailed the
    # library – they might have a Zoom in Oct? asked Leah": the Zoom is to come)
    before = list(_SENTENCE_END.finditer(text, 0, m.start()))
    start = before[-1].end() if before else 0
    after = _SENTENCE_END.search(text, m.end())
    sentence = text[start : after.start() if after else len(text)]
    if _FUTURE.search(sentence):
        return True
    if _PAST_TENSE.search(sentence):
        return False
    return None  # no tense: a plan ("go Sat w/ the trailer") or a log ("Frost -3 on Monday")


# A verb in the past tense: regular (-ed) or one of the common irregular ones.
_PAST_TENSE = re.compile(
    r"\b(?:\w{2,}ed|went|was|were|had|did|ran|met|got|came|saw|took|made|said|told|gave|"
    r"bought|found|left|felt|thought|sent|brought|ate|drank|wrote|spoke|began|won|lost|"
    r"paid|sold|kept|slept|swam|rode|drove|flew|fell|broke|caught|taught|heard|held|"
    r"knew|led|meant|stood|understood|wore|forgot|hung|"
    r"spent|built|lent|threw|grew|drew|chose|rang|sang|woke|done|been|gone)\b",
    re.IGNORECASE,
)


def _meaning(
    kind: str,
    m: re.Match[str],
    written: date,
    month_first: bool = False,
    ahead: bool | None = None,
) -> str | None:
    """What the phrase means; ``ahead`` overrides the reading of its sentence for a bare
    weekday, day of the month or month."""
    looks_ahead = _looks_ahead(m) if ahead is None else ahead
    if kind == "numeric":
        return _numeric(m, written, month_first)
    if kind == "day_before_yesterday":
        return day_text(written - timedelta(days=2))
    if kind == "yesterday":
        return day_text(written - timedelta(days=1))
    if kind == "tomorrow":
        return day_text(written + timedelta(days=1))
    if kind == "day_after_tomorrow":
        return day_text(written + timedelta(days=2))
    if kind == "today":
        return day_text(written)
    if kind == "from_now":
        n = _number(m["n"])
        unit = m["unit"].lower().rstrip("s")
        unit = _UNIT_NAMES.get(unit, unit)
        if unit in ("day", "week"):
            return day_text(written + timedelta(days=n * (7 if unit == "week" else 1)))
        if unit == "month":
            moved = _add_months(written, n)
            last = calendar.monthrange(moved.year, moved.month)[1]
            return day_text(moved.replace(day=min(written.day, last)))
        return day_text(written.replace(year=written.year + n))
    if kind in ("ago", "in_n"):
        n = _number(m["n"]) * (-1 if kind == "ago" else 1)
        unit = m["unit"].lower().rstrip("s")
        unit = _UNIT_NAMES.get(unit, unit)
        if unit == "day":
            return day_text(written + timedelta(days=n))
        if unit == "week":
            side = "before" if n < 0 else "after"
            count = abs(n)
            counted = f"{count} week{'s' if count > 1 else ''} {side} {day_text(written)}"
            if n > 0:
                # "chase in 2 wks" is a day to act on: the day, and how it was counted
                return f"{day_text(written + timedelta(weeks=n))} ({counted})"
            return counted
        if unit == "month":
            return month_text(_add_months(written, n))
        return str(written.year + n)
    if kind == "weekday_day":
        if _weekly(m):
            return None  # "Mon + Wed 7-8:30pm": the hours of a weekly class
        # (a past tense elsewhere in the line is no sign: "confirmed Sat 28th" is to come;
        # a line with no tense is a plan: "pick up sat 21st 10am", written on 1 March, is
        # 21 March, though 21 February was a Saturday too)
        ahead = _looks_ahead(m)
        if re.search(r"\bnext\s+$", m.string[: m.start()], re.IGNORECASE):
            # "next Tues (31st)": the coming Tuesday or the one after, whichever is the
            # 31st; neither (a slip, written on 28 November), the coming one
            wd = _weekday(m["wd"])
            coming = written + timedelta(days=(wd - written.weekday()) % 7 or 7)
            day = next(
                (d for d in (coming, coming + timedelta(days=7)) if d.day == int(m["dom"])),
                coming,
            )
            return f"{_WEEKDAYS[wd].capitalize()}, {day_text(day)}"
        return _weekday_day(_weekday(m["wd"]), int(m["dom"]), written, ahead)
    if kind == "day_of_month":
        return _day_of_month(int(m["dom"]), written, looks_ahead)
    if kind == "month":
        return _month(m["mon"], written, looks_ahead)
    if kind == "nth_weekday_of":
        month = _month(m["mon"], written, looks_ahead)
        first = day_of(f"1 {month}") if month else None
        if first is None:
            return None
        wd = _weekday(m["wd"])
        return f"{_WEEKDAYS[wd].capitalize()}, {day_text(_nth_weekday(first, wd, m['n']))}"
    if kind == "weekday" and (
        _EVERY.search(m.string, 0, m.start())
        or _weekly(m)
        or any(r.start() <= m.start() < r.end() for r in _NTH_WEEKDAY.finditer(m.string))
        # "spelling test every friday, list comes home mon": a day of the routine its
        # line states
        or _WEEKLY.search(_line_of(m))
        # "the tues after labor day": counted from a day the note does not date
        or (_THE.search(m.string, 0, m.start()) and _COUNTED_FROM.match(m.string, m.end()))
    ):
        return None  # "every Wednesday 6pm": a weekly time, no one day (quoted as written)
    if kind == "weekday_next_week":
        wd = _weekday(m["wd"] or m["wd2"])
        monday = written + timedelta(days=7 - written.weekday())
        return f"{_WEEKDAYS[wd].capitalize()}, {day_text(monday + timedelta(days=wd))}"
    if kind in ("last_weekday", "next_weekday", "weekday"):
        wd = _weekday(m["wd"])
        name = _WEEKDAYS[wd].capitalize()
        if kind == "next_weekday" or (kind == "weekday" and looks_ahead):
            # "before Friday", "due Friday", "we'll meet on Friday": the first one after
            # the day of writing.
            forward = (wd - written.weekday()) % 7 or 7
            return f"{name}, {day_text(written + timedelta(days=forward))}"
        back = (written.weekday() - wd) % 7 or 7  # "last Saturday", "on Saturday": the one before
        return f"{name}, {day_text(written - timedelta(days=back))}"
    period = m["period"].lower()
    if kind == "last_period":
        if period in ("week", "weekend"):
            return f"the {period} before {day_text(written)}"
        if period == "month":
            return month_text(_add_months(written, -1))
        if period in ("summer", "winter"):
            return f"{period} {written.year - 1 if period == 'summer' and written.month < 6 else written.year}"
        return str(written.year - 1)
    if kind == "next_period":
        if period in ("week", "weekend"):
            return f"the {period} after {day_text(written)}"
        if period == "month":
            return month_text(_add_months(written, 1))
        return str(written.year + 1)
    if period in ("week", "weekend"):
        return f"the {period} of {day_text(written)}"
    if period == "month":
        return month_text(written)
    return str(written.year)


def _numeric(m: re.Match[str], written: date, month_first: bool) -> str | None:
    """ "12/1" in a note written in October: 1 December (month first) or 12 January; the
    next one if it is coming, the last one if it was, unless a year is written."""
    a, b = int(m["a1"] or m["a2"]), int(m["b1"] or m["b2"])
    year = m["y1"] or m["y2"]
    if a > 12 or (b <= 12 and not month_first):
        dom, month = a, b
    else:
        month, dom = a, b
    if not (1 <= month <= 12 and dom >= 1):
        return None
    if year:
        written_in = _days_in([int(year) + (2000 if len(year) == 2 else 0)], month, dom)
        return day_text(written_in[0]) if written_in else None
    ahead = _numeric_ahead(m)
    days = _days_in(_years_around(written), month, dom)
    # the one on the side the sentence reads within half a year, else the nearest one
    sided = [d for d in days if (d >= written) == ahead and abs((d - written).days) <= 183]
    found = sided or days
    if not found:
        return None
    return day_text(min(found, key=lambda d: abs((d - written).days)))


# The word leading a date in numbers says which side of the day of writing it is on:
# "renews 12/1", "due 3/4" are coming; "sent 28/7", "done 22/9" are records.
_AHEAD_LEAD = re.compile(
    r"^(?:by|due|until|till|before|renews?|ends?|expires?|starts?|booked)\b", re.I
)
_PAST_LEAD = re.compile(r"^(?:sent|done|paid|renewed|ended|expired|started|since)\b", re.I)


def _numeric_ahead(m: re.Match[str]) -> bool:
    lead = m["lead"] or ""
    if _AHEAD_LEAD.match(lead):
        return True
    if _PAST_LEAD.match(lead):
        return False
    return _looks_ahead(m)


def _month_first(written: datetime | date) -> bool:
    """Dates in numbers are written month first in the Americas' US-style zones ("12/1"
    is 1 December in New York, 12 January in London). The zone is the writer's."""
    zone = written.tzinfo if isinstance(written, datetime) else None
    key = str(getattr(zone, "key", "") or "")
    return key.startswith(("America/", "US/")) and not key.startswith(_DAY_FIRST_AMERICAS)


# Zones of the Americas that write the day first (most of Latin America; Brazil).
_DAY_FIRST_AMERICAS = (
    "America/Sao_Paulo",
    "America/Argentina",
    "America/Buenos_Aires",
    "America/Bogota",
    "America/Lima",
    "America/Santiago",
    "America/Mexico_City",
    "America/Caracas",
    "America/Montevideo",
)


def _anchored(m: re.Match[str], said_before: str, written: date) -> str | None:
    """ "the Sat before" after "Tue 24 Mar": the Saturday before the last day named ahead
    of it; None when none is (then it is read as a weekday alone)."""
    named = named_days(said_before, written)
    if not named:
        return None
    anchor, wd = named[-1], _weekday(m["wd"])
    if m["side"].lower() == "before":
        day = anchor - timedelta(days=(anchor.weekday() - wd) % 7 or 7)
    else:
        day = anchor + timedelta(days=(wd - anchor.weekday()) % 7 or 7)
    return f"{_WEEKDAYS[wd].capitalize()}, {day_text(day)}"


def _weekday_day(wd: int, dom: int, written: date, ahead: bool) -> str | None:
    """ "Fri 21" in a note of Tuesday 18 November: Friday 21 November — of the months
    around the day of writing, the nearest where the 21st is a Friday; for a phrase said
    to look ahead (``ahead``: "pay by Weds 25th"), the nearest still to come: Wednesday
    25 March, written on 6 March, though 25 February was one too."""

    def on_weekday(shifts: Iterable[int]) -> list[date]:
        found = []
        for shift in shifts:
            first = _add_months(written, shift)
            if dom <= calendar.monthrange(first.year, first.month)[1]:
                day = first.replace(day=dom)
                if day.weekday() == wd:
                    found.append(day)
        return found

    found = on_weekday((0, 1, -1, 2, -2))
    if ahead:
        # the first still to come, however far: "we can set up fri 12th", written on 1
        # February, is Friday 12 June (no Friday falls on a 12th from March to May)
        found = [d for d in found if d >= written] or on_weekday(range(3, 12))[:1] or found
    if not found:
        return None
    day = min(found, key=lambda d: abs((d - written).days))
    return f"{_WEEKDAYS[wd].capitalize()}, {day_text(day)}"


# "March", "Mar", "Sept": a month's number ("Marching" is none).
_MONTH_NUMBER = {
    **{name.lower(): i for i, name in enumerate(calendar.month_name) if i},
    **{abbr.lower(): i for i, abbr in enumerate(calendar.month_abbr) if i},
    "sept": 9,
}


def _month(name: str, written: date, ahead: bool) -> str | None:
    """ "in March" in a note of November 2026: March 2027 if it is coming, March 2026 if
    it was; the month of writing is itself either way."""
    number = _MONTH_NUMBER.get(name.lower())
    if number is None:
        return None
    shift = (number - written.month) % 12
    if not ahead and shift:
        shift -= 12
    return month_text(_add_months(written, shift))


def _day_of_month(dom: int, written: date, ahead: bool) -> str | None:
    """ "the 14th" in a note of 5 March: 14 March if it is coming, 14 February if it
    was; a month without that day is skipped ("the 31st" after 30 April: 31 May)."""
    step = 1 if ahead else -1
    month = written.replace(day=1)
    for _ in range(3):
        if dom <= calendar.monthrange(month.year, month.month)[1]:
            day = month.replace(day=dom)
            if (day >= written) if ahead else (day <= written):
                return day_text(day)
        month = _add_months(month, step)
    return None


_PAST_KINDS = frozenset({"day_before_yesterday", "yesterday", "ago", "last_weekday", "last_period"})


def resolve_phrases(text: str, written: datetime | date, before: str = "") -> list[Resolved]:
    """Relative time phrases of ``text`` with what they mean for a note written on
    ``written``. ``before``: the note's text before ``text``, whose last named day is what
    "the Sat before" counts from."""
    day = written.date() if isinstance(written, datetime) else written
    month_first = _month_first(written)
    found: list[Resolved] = []
    taken: list[tuple[int, int]] = []
    for kind, pattern in _PATTERNS:
        for m in pattern.finditer(text):
            if any(m.start() < e and s < m.end() for s, e in taken) or _negated(text, m.start()):
                continue
            if kind == "anchored_weekday":
                meaning = _anchored(m, f"{before} {text[: m.start()]}", day)
            else:
                meaning = _meaning(kind, m, day, month_first)
            if meaning is None:
                continue
            past = kind in _PAST_KINDS or (
                kind in ("weekday", "day_of_month", "month") and not _looks_ahead(m)
            )
            start = m.start()
            read_back = None
            cued = _cued_ahead(m) if kind in ("weekday", "day_of_month", "month") else True
            if cued is None:
                read_back = _meaning(kind, m, day, month_first, ahead=False)
            read_ahead = None
            if cued is False and kind in ("weekday", "day_of_month"):
                read_ahead = _meaning(kind, m, day, month_first, ahead=True)
            if kind == "numeric":
                past = not m["y1"] and not m["y2"] and not _numeric_ahead(m)
                # the date itself, after its leading word ("by 12/1" is a deadline)
                start = m.start("a1") if m["a1"] else m.start()
            found.append(Resolved(m.group(0), meaning, start, m.end(), past, read_back, read_ahead))
            taken.append((m.start(), m.end()))
    found.sort(key=lambda r: r.start)
    return found


# "not june", "not the 21st", "not on Friday": a day the writer rules out
_NOT_THE_DAY = re.compile(r"\bnot\s+(?:the\s+|on\s+|in\s+)?$", re.IGNORECASE)


def _negated(text: str, start: int) -> bool:
    """The date at ``start`` is one the text says is not the day ("… not june")."""
    return bool(_NOT_THE_DAY.search(text[max(0, start - 12) : start]))


def date_words(written: datetime | date, text: str = "") -> str:
    """The note's date, and what the note's relative phrases mean, as words.

    A claim "7 May 2023" drawn from a note of 8 May 2023 that says "yesterday"
    is supported by that note: citation checks read these words with the text.
    """
    day = written.date() if isinstance(written, datetime) else written
    meanings = " ".join(r.meaning for r in resolve_phrases(text, day)) if text else ""
    return f"{day_text(day)} {_WEEKDAYS[day.weekday()]} {day.isoformat()} {meanings}".strip()
