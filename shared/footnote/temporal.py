"""Time phrases, read one way: a question's window and a note's dates, in any language.

``read_times(text, anchor, language, ahead=...)`` is the one reader. It finds the time
phrases of ``text`` with ``dateparser`` (its ``search_dates`` and its per-language
vocabulary: month and weekday names, "last week", "la semana pasada", "letzte Woche",
"3 days ago", "hace 3 días") and returns each as a :class:`TimeSpan`: where it stands,
the calendar period it names (``python-dateutil``'s ``relativedelta`` does the
arithmetic) and the bound it is read with ("since", "before"...). Both sides call it:

* a question (:func:`question_window`) is read against the moment it is asked, with
  past readings preferred (notes are never written in the future): its spans intersect
  into one :class:`~footnote.domain.TimeWindow`;
* a note (:func:`note_dates`) is read against the day it was written, with future
  readings preferred ("next Tues", "Fri 21", "before Friday" name days ahead).

Everything is wall-clock time in the user's zone: callers pass ``anchor`` as the
user's local moment; spans are naive local datetimes, half-open ``[start, end)``.

What the reader adds to ``dateparser``: windows (a day, an ISO week, a month, a year),
a weekday written with a day number ("Fri 21", "Mon 19th": a month whose 21st is a
Friday; a parser's reading on another weekday is none), numbers that are not dates
("+ $8", "3 lemons"; a time of day: "09:12", "11am", "10 Uhr", "2-4pm"; hours after a
day, no year: "7 de junio 10-14 h"), bare month and
weekday names that are words ("you may go", "the March proposal": a name counts after
a preposition, or capitalised in a note, or in a note of a language that writes them in
lower case, "feb"), and the bound words of each language (``_BOUNDS``). Read from
dateparser's data by general rules, not phrase lists: a unit or relative word written
as its contraction or without accents ("wks", "tmrw", "manana"), a two-letter weekday
placed as a day ("bis Fr", "Sa 10 Uhr"), a day in digits in the locale's order ("5.12."),
a word that points written before "tomorrow" ("pasado mañana"), an article before
it ("por la mañana": a morning), a weekday written beside its day ("Montag, den 13.
April": that day), and a short month or weekday name that is a function word of the
language ("an die", "mit etwa acht": no Tuesday, no Wednesday the 8th). A count that
counts from another time ("a day later", "am Tag danach", "dos semanas antes") is read
from the day the text names before it, not from the anchor (``_counted_from_named``).

``dateparser`` is imported on first use: a process that reads no time pays nothing.
"""

from __future__ import annotations

import dataclasses
import re
import threading
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta, tzinfo
from functools import lru_cache
from itertools import pairwise
from typing import Any, Literal

from dateutil.relativedelta import relativedelta

from footnote.domain import TimeWindow
from footnote.text import in_order, stem, unaccented
from footnote.text import words as text_words

__all__ = [
    "DEFAULT_LANGUAGE",
    "TimeSpan",
    "calendar_words",
    "date_words",
    "day_text",
    "language_of",
    "note_dates",
    "question_window",
    "read_times",
    "supported_language",
    "weekday_names",
    "weekday_terms",
    "weekday_text",
    "weekdays_dated",
]

Bound = Literal["in", "since", "after", "before", "until"]
Grain = Literal["day", "week", "month", "year"]
DEFAULT_LANGUAGE = "en"

# The words that make a date a bound, by language: the only vocabulary of its own this
# module keeps (dateparser has no notion of "since"). "in" is every other preposition
# that introduces a date ("on Monday", "im März", "en marzo"): with it a bare month,
# weekday or year counts as a time rather than a word.
_BOUNDS: dict[str, dict[str, Bound]] = {
    "en": {
        "since": "since",
        "from": "in",
        "after": "after",
        "before": "before",
        "until": "until",
        "till": "until",
        "by": "until",
        "through": "until",
        "within": "until",
        "in": "in",
        "on": "in",
        "during": "in",
        "of": "in",
        "at": "in",
        "over": "in",
        "past": "since",
        "last": "since",
    },
    "es": {
        "desde": "since",
        "después": "after",
        "tras": "after",
        "antes": "before",
        "hasta": "until",
        "en": "in",
        "el": "in",
        "durante": "in",
        "de": "in",
        "del": "in",
        "últimos": "since",
        "últimas": "since",
    },
    "de": {
        "seit": "since",
        "ab": "since",
        "nach": "after",
        "vor": "before",
        "bis": "until",
        "binnen": "until",
        "innerhalb": "until",
        "im": "in",
        "in": "in",
        "am": "in",
        "an": "in",
        "während": "in",
        "letzten": "since",
    },
    "fr": {
        "depuis": "since",
        "après": "after",
        "avant": "before",
        "jusqu'à": "until",
        "en": "in",
        "le": "in",
        "pendant": "in",
        "de": "in",
        "du": "in",
    },
    "it": {
        "da": "since",
        "dopo": "after",
        "prima": "before",
        "fino": "until",
        "in": "in",
        "a": "in",
        "il": "in",
        "durante": "in",
        "di": "in",
    },
    "pt": {
        "desde": "since",
        "depois": "after",
        "antes": "before",
        "até": "until",
        "em": "in",
        "no": "in",
        "na": "in",
        "durante": "in",
        "de": "in",
    },
    "nl": {
        "sinds": "since",
        "na": "after",
        "voor": "before",
        "tot": "until",
        "in": "in",
        "op": "in",
        "tijdens": "in",
    },
}
SUPPORTED_LANGUAGES = frozenset(_BOUNDS)
# Languages that write month and weekday names in lower case ("feb", "martes", "juin"):
# a capital is no sign of a date in them.
_LOWERCASE_CALENDAR = frozenset({"es", "fr", "it", "pt", "nl"})
# The article a day's ordinal is written with after a bound word: "on the 28th".
_ARTICLES = {"en": frozenset({"the"})}
# Languages whose adjectives may follow their noun: "la semana próxima", "el lunes
# próximo", as "la próxima semana".
_ADJECTIVE_AFTER = frozenset({"es", "fr", "it", "pt"})
# What points forward in a relative clause after a unit or a weekday, where
# dateparser's data has no word for it: Spanish "la semana que viene", "el martes que
# viene" ("that comes": the next). A closed class per language, like the negation
# words; it is read as the language's own word for "next".
_COMING = {"es": (("que", "viene"), "próximo")}
# The "until" words that count ahead as the future's word does: "within 2 weeks",
# "binnen 2 Wochen", "innerhalb von 2 Wochen" (Spanish "dentro de" is dateparser's).
_WITHIN = frozenset({"within", "binnen", "innerhalb"})
# Of the "since" words, those that make a count rolling ("the past 3 days").
_ROLLING = {"en": ("past", "last"), "es": ("últimos", "últimas"), "de": ("letzten",)}
# "between March and May", "entre marzo y mayo", "zwischen März und Mai": a range's
# opening and joining words.
_RANGES = {
    "en": ({"between", "from"}, {"and", "to", "until", "till", "through"}),
    "es": ({"entre", "desde", "de"}, {"y", "a", "hasta"}),
    "de": ({"zwischen", "von", "vom"}, {"und", "bis", "zum"}),
    "fr": ({"entre", "de", "du"}, {"et", "à", "au"}),
}
# Of the joining words, those that join a range with no opening word ("Tue to Fri",
# "10 al 13 de junio", "Dienstag bis Freitag"); "and" joins two days, not a range.
_RANGE_ALONE = {
    "en": frozenset({"to", "until", "till", "through"}),
    "es": frozenset({"a", "al", "hasta"}),
    "de": frozenset({"bis"}),
    "fr": frozenset({"à", "au"}),
}

# A word, or an ISO date or month as one ("2024-01-10").
_WORD = re.compile(r"\d{4}-\d{1,2}(?:-\d{1,2})?(?![\d-])|[^\W_]+(?:['’][^\W_]+)?")
_ISO = re.compile(r"(\d{4})-(\d{1,2})(?:-(\d{1,2}))?(?![\d-])")
_YEAR = re.compile(r"(?:19|20|21)\d\d")
# How far from its anchor a date with no year written may lie: "Feb 29" is up to eight
# years back; a parser's "2110" for "10-2" is a number taken for a year. Only a phrase
# that counts from the anchor ("hace 20 años") lies further.
_YEARS_UNWRITTEN = 10


@dataclass(frozen=True)
class TimeSpan:
    """A time phrase of a text and the period it names (naive local time)."""

    start_pos: int
    end_pos: int
    text: str
    start: datetime | None  # the period's first moment; None: open before
    end: datetime | None  # exclusive; None: open after
    bound: Bound = "in"
    resolved: bool = True
    grain: Grain = "day"
    keep_words: bool = False  # an unknown event name still names the topic
    named: datetime | None = None  # the first moment of the period named, whatever the bound
    # the day a count of weeks or months from the anchor lands on, inside the period
    # ("in 3 wks" written on 20 March: the week of 6 April, 10 April exactly)
    exact: datetime | None = None

    @property
    def day(self) -> date | None:
        """The day a one-day span names ("before Friday": that Friday)."""
        if self.named is None or self.grain != "day":
            return None
        return self.named.date()


# --- language -----------------------------------------------------------------------


def supported_language(code: str | None) -> str | None:
    """``code``'s primary language ("es-MX" → "es") if the reader knows it, else None."""
    if not code:
        return None
    primary = code.strip().split("-")[0].split("_")[0].lower()
    return primary if primary in SUPPORTED_LANGUAGES else None


def language_of(accept_language: str | None) -> str:
    """The first supported language of an ``Accept-Language`` header, by its q-values;
    English when none is."""
    ranked: list[tuple[float, int, str]] = []
    for i, part in enumerate((accept_language or "")[:512].split(",")):
        tag, _, params = part.partition(";")
        q = 1.0
        if params.strip().startswith("q="):
            try:
                q = float(params.strip()[2:])
            except ValueError:
                q = 0.0
        if (lang := supported_language(tag)) is not None and q > 0:
            ranked.append((-q, i, lang))
    return min(ranked)[2] if ranked else DEFAULT_LANGUAGE


# --- vocabulary, from dateparser's data ----------------------------------------------

_MONTH_KEYS = (
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
)
_WEEKDAY_KEYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_UNIT_KEYS = ("day", "week", "month", "year")
_LOCK = threading.Lock()
_MAX_WORDS = 6


@dataclass(frozen=True)
class _Vocabulary:
    months: dict[str, int]  # every spelling, lowered, accents kept: 1-12
    weekdays: dict[str, int]  # Monday 0
    relative: frozenset[str]  # words of "last week", "ayer", "vor", "hace", "ago"...
    units: frozenset[str]


def _word(m: re.Match[str]) -> tuple[int, int, str]:
    """A word's span and folded form; a possessive's "'s" is no part of it ("this
    week's", "la semana")."""
    end = m.end()
    if m.group(0)[-2:].lower() in ("'s", "’s"):
        end -= 2
    return m.start(), end, _fold(m.string[m.start() : end])


def _fold(word: str) -> str:
    return unicodedata.normalize("NFC", word.lower().rstrip("."))


@lru_cache(maxsize=16)
def _info(language: str) -> dict[str, Any]:
    """dateparser's data for ``language`` (its month and weekday names, relative phrases,
    little words), read from the data module alone: constructing its Locale, or importing
    the ``dateparser`` package, costs hundreds of milliseconds on a cold process, and
    most phrases need neither."""
    import importlib.util
    from pathlib import Path

    with _LOCK:
        package = importlib.util.find_spec("dateparser")
        if package is None or package.origin is None:
            raise ImportError("dateparser is not installed")
        path = Path(package.origin).with_name("data") / "date_translation_data" / f"{language}.py"
        spec = importlib.util.spec_from_file_location(f"_dateparser_data_{language}", path)
        if spec is None or spec.loader is None:
            raise ImportError(f"dateparser has no data for {language!r}")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    return dict(module.info)


@lru_cache(maxsize=16)
def _vocabulary(language: str) -> _Vocabulary:
    info = _info(language)
    # two-letter spellings ("We", "Fr", "Lu") are words far more often than dates
    months = {
        _fold(w): i + 1
        for i, k in enumerate(_MONTH_KEYS)
        for w in _calendar_spellings(language, k)
        if len(w) > 2
    }
    weekdays = {
        _fold(w): i
        for i, k in enumerate(_WEEKDAY_KEYS)
        for w in _calendar_spellings(language, k)
        if len(w) > 2
    }
    units = {_fold(w) for k in _UNIT_KEYS for w in info.get(k, ())}
    relative: set[str] = set()
    for phrases in info.get("relative-type", {}).values():
        for phrase in phrases:
            relative.update(_fold(w) for w in _WORD.findall(phrase))
    for pattern in info.get("relative-type-regex", {}).values():
        for p in pattern:
            relative.update(_fold(w) for w in _WORD.findall(re.sub(r"\(.*?\)", " ", p)))
    relative.update(_fold(w) for k in ("ago", "in") for w in info.get(k, ()))
    # "a month ago", "hace un mes": the words the language counts one with
    relative.update(
        _fold(k)
        for rule in info.get("simplifications", ())
        for k, v in rule.items()
        if str(v).isdigit() and " " not in k
    )
    relative -= set(months) | set(weekdays) | {"d", "m", "s", "h", "a"}
    return _Vocabulary(months, weekdays, frozenset(relative), frozenset(units) - {"d", "m", "a"})


def _calendar_spellings(language: str, key: str) -> list[str]:
    """dateparser's spellings of a month or weekday (``key``: "tuesday"), but a short
    form that is a function word of the language (its stop words): German "die" and
    "mit" (short for Dienstag and Mittwoch) and Portuguese "ter" (terça) are an article,
    a preposition and "to have" far more often than a day ("das Angebot an die
    Bäckerei", "rechnet mit etwa acht Tagen": no Tuesday, no 8th of a Wednesday). A name
    written out is read whatever else it is ("May"); two-letter forms are weighed apart
    (``_two_letter_weekdays``)."""
    from footnote.text import stop_words

    spellings = list(_info(language).get(key, ()))
    full = max(spellings, key=len, default="")
    stopped = stop_words(language)
    return [w for w in spellings if w == full or unaccented(_fold(w)) not in stopped]


def calendar_words(language: str = DEFAULT_LANGUAGE) -> frozenset[str]:
    """Month and weekday names of ``language`` (lowered, every spelling): words that
    date a text rather than name what it is about."""
    v = _vocabulary(supported_language(language) or DEFAULT_LANGUAGE)
    return frozenset(v.months) | frozenset(v.weekdays)


def month_names(language: str = DEFAULT_LANGUAGE) -> dict[str, int]:
    """Every spelling of each month of ``language``, lowered: its number (1-12)."""
    return dict(_vocabulary(supported_language(language) or DEFAULT_LANGUAGE).months)


def weekday_names(language: str = DEFAULT_LANGUAGE) -> dict[str, int]:
    """Every spelling of each weekday of ``language``, lowered: Monday 0."""
    return dict(_vocabulary(supported_language(language) or DEFAULT_LANGUAGE).weekdays)


# --- periods ------------------------------------------------------------------------


def _floor(moment: datetime, grain: Grain) -> datetime:
    day = datetime.combine(moment.date(), time(0))
    if grain == "week":
        return day - timedelta(days=day.weekday())
    if grain == "month":
        return day.replace(day=1)
    if grain == "year":
        return day.replace(month=1, day=1)
    return day


_STEP = {
    "day": relativedelta(days=1),
    "week": relativedelta(weeks=1),
    "month": relativedelta(months=1),
    "year": relativedelta(years=1),
}


def _period(moment: datetime, grain: Grain) -> tuple[datetime, datetime]:
    start = _floor(moment, grain)
    return start, start + _STEP[grain]


# --- the reader -----------------------------------------------------------------------


def _settings(anchor: datetime, ahead: bool) -> dict[str, Any]:
    return {
        "RELATIVE_BASE": anchor,
        "PREFER_DATES_FROM": "future" if ahead else "past",
        "RETURN_TIME_AS_PERIOD": True,
        "STRICT_PARSING": False,
    }


# dateparser's canonical form of a relative phrase: "1 week ago", "in 2 day", "0 month ago"
_CANONICAL = re.compile(
    r"(in )?(?<!\d)(\d+) (second|minute|hour|day|week|fortnight|month|year)( ago)?"
)
_UNIT_GRAIN: dict[str, tuple[Grain, relativedelta]] = {
    "second": ("day", relativedelta()),
    "minute": ("day", relativedelta()),
    "hour": ("day", relativedelta(hours=1)),
    "day": ("day", relativedelta(days=1)),
    "week": ("week", relativedelta(weeks=1)),
    "fortnight": ("week", relativedelta(weeks=2)),
    "month": ("month", relativedelta(months=1)),
    "year": ("year", relativedelta(years=1)),
}


@lru_cache(maxsize=16)
def _relatives(language: str) -> tuple[dict[str, str], tuple[tuple[re.Pattern[str], str], ...]]:
    """The language's relative phrases ("la semana pasada": "1 week ago") and patterns
    ("hace (\\d+) días": "\\1 day ago"), from dateparser's data, in its canonical form."""
    info = _info(language)
    phrases = {
        " ".join(_fold(w) for w in _WORD.findall(p)): key
        for key, found in info.get("relative-type", {}).items()
        for p in found
        if _CANONICAL.fullmatch(key)
    }
    patterns = tuple(
        (re.compile(p.replace("++", "+").replace("*+", "*"), re.IGNORECASE), key)
        for key, found in info.get("relative-type-regex", {}).items()
        for p in found
    )
    return phrases, patterns


@lru_cache(maxsize=16)
def _directions(language: str) -> dict[str, int]:
    """Words of the language's relative phrases and the way they point: "next",
    "próximo", "nächste" +1; "last", "pasada", "letzte" -1; "this", "esta" 0."""
    out: dict[str, int] = {}
    for phrase, key in _relatives(language)[0].items():
        m = _CANONICAL.fullmatch(key)
        assert m is not None
        way = 1 if m[1] else (0 if m[2] == "0" else -1)
        for word in phrase.split():
            out[word] = way if out.get(word, way) == way else 2  # 2: both ways, no direction
    return {w: d for w, d in out.items() if d != 2 and w not in _vocabulary(language).units}


@lru_cache(maxsize=16)
def _postposed(language: str) -> frozenset[str]:
    """The words that point ("pasado", "pasada") which the language's relative phrases
    write after their unit ("el mes pasado", "la semana pasada"); no bound word. Before
    a word for tomorrow or yesterday one names the day past it: "pasado mañana" is the
    day after tomorrow, as "anteayer" is the day before yesterday."""
    units = _vocabulary(language).units
    directions = _directions(language)
    out = set()
    for phrase in _relatives(language)[0]:
        seen_unit = False
        for word in phrase.split():
            if seen_unit and directions.get(word) in (-1, 1):
                out.add(word)
            seen_unit = seen_unit or word in units
    return frozenset(out - _BOUNDS[language].keys() - _lone_relatives(language))


@lru_cache(maxsize=16)
def _determiners(language: str) -> frozenset[str]:
    """The words the language's relative phrases write right before a unit that point
    neither way: its articles and "this" ("la semana pasada", "esta semana", "diese
    Woche"). Before a word for tomorrow one makes it a noun: "la mañana" is the morning."""
    units = _vocabulary(language).units
    directions = _directions(language)
    out = set()
    for phrase in _relatives(language)[0]:
        words = phrase.split()
        for word, after in pairwise(words):
            if after in units and directions.get(word, 0) == 0 and word not in units:
                out.add(word)
    return frozenset(out)


def _unit_of(word: str, language: str) -> str | None:
    """The unit a word of ``language`` names ("días": "day"), if any."""
    info = _info(language)
    return next(
        (k for k in _UNIT_KEYS if any(_fold(w) == word for w in info.get(k, ()) if len(w) > 1)),
        None,
    )


@lru_cache(maxsize=16)
def _stemmed_phrases(language: str) -> dict[str, str]:
    """The language's relative phrases by their words' stems: a phrase inflected as the
    sentence needs ("am Freitag nächster Woche") is the phrase dateparser writes."""
    out: dict[str, str] = {}
    for phrase, key in _relatives(language)[0].items():
        found = phrase.split()
        if len(found) >= 2:
            out.setdefault(_stems(found, language), key)
    return out


def _stems(words: Sequence[str], language: str) -> str:
    return " ".join(stem(w, language) for w in words)


def _canonical(words: list[str], language: str) -> str | None:
    """The canonical form of a relative phrase, if ``words`` are one."""
    phrases, patterns = _relatives(language)
    joined = " ".join(words)
    if joined in phrases:
        return phrases[joined]
    if len(words) >= 2 and (inflected := _stemmed_phrases(language).get(_stems(words, language))):
        return inflected  # "nächster Woche", "nächsten Woche" as "nächste Woche"
    if (
        len(words) == 3
        and words[0] in _future_words(language)
        and (n := _count(words[1], language)) is not None
        and (unit := _unit_of(words[2], language)) is not None
    ):
        return f"in {n} {unit}"  # "en 15 días": the future's word, a count and a unit
    if language in _ADJECTIVE_AFTER and 2 <= len(words) <= 3:
        # "la semana próxima" as "la próxima semana": where an adjective may follow its
        # noun, the word that points may follow the unit (in its other gender too)
        way = _directions(language).get(words[-1])
        if way in (-1, 1) and words[-2] in _vocabulary(language).units:
            for phrase, key in phrases.items():
                found = phrase.split()
                if (
                    words[-2] in found
                    and (len(words) == 2 or words[0] in found)
                    and any(_directions(language).get(w) == way for w in found)
                ):
                    return key
    if len(words) == 2 and words[0] in _postposed(language):
        # "pasado mañana": a word that points, written before the day it points past
        one_day = phrases.get(words[1])
        if one_day in ("in 1 day", "1 day ago"):
            return one_day.replace("1", "2")
    digits = _simplified(words, language)
    for pattern, key in patterns:
        if (m := pattern.fullmatch(digits)) is not None:
            return m.expand(key.replace("\\1", "\\g<1>"))
    return None


def _simplified(words: list[str], language: str) -> str:
    """ "hace un mes" as "hace 1 mes", "hace dos semanas" as "hace 2 semanas": the
    language's words for numbers as digits."""
    return " ".join(str(n) if (n := _count(w, language)) is not None else w for w in words)


def _own_reading(
    inside: list[str],
    month: int | None,
    weekday: int | None,
    language: str,
    anchor: datetime,
    ahead: bool,
) -> tuple[datetime, Grain] | None:
    """The common forms read from dateparser's data without its parser (whose first use
    compiles its time-zone and locale patterns, most of a second): relative phrases,
    a weekday with "next"/"last", a month with a day or a year. None: the parser reads
    it."""
    if (key := _canonical(inside, language)) is not None:
        m = _CANONICAL.fullmatch(key)
        if m is None:
            return None
        grain, step = _UNIT_GRAIN[m[3]]
        n = int(m[2])
        moment = anchor + step * n if m[1] else anchor - step * n
        return moment, grain
    today = datetime.combine(anchor.date(), time(0))
    vocab = _vocabulary(language)
    others = [w for w in inside if w not in vocab.weekdays and w not in vocab.months]
    if len(inside) - len(others) > 1 + (weekday is not None and month is not None):
        return None  # two months or two days ("March and May"): read one at a time
    if weekday is not None and month is None and len(others) == 1:
        way = _directions(language).get(others[0])
        if way is None:
            return None
        if way == 0:
            return today + timedelta(days=weekday - today.weekday()), "day"
        if way > 0:
            return today + timedelta(days=(weekday - today.weekday()) % 7 or 7), "day"
        return today - timedelta(days=(today.weekday() - weekday) % 7 or 7), "day"
    if month is None or weekday is not None:
        return None
    numbers = [int(w.rstrip(".")) for w in others if w.rstrip(".").isdecimal()]
    ordinals = [int(m[0]) for w in others if (m := re.match(r"\d{1,2}(?=\D)", w))]
    glue = _glue(language)
    if any(
        not w.rstrip(".").isdecimal() and w not in glue and not re.match(r"\d", w) for w in others
    ):
        return None  # a word the common forms do not have ("early", "end"): the parser's
    years = [n for n in numbers if 1900 <= n <= 2199]
    days = [n for n in numbers if 1 <= n <= 31] + ordinals
    if len(years) > 1 or len(days) > 1:
        return None
    grain = "day" if days else "month"
    day = days[0] if days else 1
    if years:
        candidates = [years[0]]
    else:
        # the nearest such day or month in the direction read (today's counts)
        this = anchor.year
        candidates = [this, this - 1] if not ahead else [this, this + 1]
    for year in candidates:
        try:
            moment = datetime(year, month, day)
        except ValueError:
            continue
        first = _floor(moment, grain)
        if years or (first <= today if not ahead else first + _STEP[grain] > today):
            return moment, grain
    return None


@lru_cache(maxsize=1024)
def _grain_of(
    phrase: str, language: str, anchor: datetime, ahead: bool
) -> tuple[datetime, Grain] | None:
    """The moment ``phrase`` names and the period it names it at (a day, a week...)."""
    from dateparser.date import DateDataParser

    data = DateDataParser(languages=[language], settings=_settings(anchor, ahead)).get_date_data(
        phrase
    )
    if data is None or data.date_obj is None:
        return None
    grain: Grain = data.period if data.period in ("day", "week", "month", "year") else "day"
    moment: datetime = data.date_obj.replace(tzinfo=None)
    return moment, grain


def read_times(
    text: str,
    anchor: datetime,
    language: str = DEFAULT_LANGUAGE,
    *,
    ahead: bool = False,
    events: Mapping[str, date] | None = None,
) -> list[TimeSpan]:
    """The time phrases of ``text`` read at ``anchor`` (the user's wall-clock moment),
    in order. ``ahead``: a bare weekday or month is the coming one (a note's plans),
    not the one just past (a question's). ``events`` date the names a bound may take
    ("before the launch")."""
    language = supported_language(language) or DEFAULT_LANGUAGE
    anchor = anchor.replace(tzinfo=None)
    vocab = _vocabulary(language)
    words = [(s, e, _spelled(w, language)) for s, e, w in map(_word, _WORD.finditer(text))]
    if not words:
        return []
    words = _coming(_short_weekdays(text, words, language), language)
    ranging = _RANGE_ALONE.get(language, frozenset())
    read = _Text(text, words, vocab, language, anchor, ahead)
    spans: list[TimeSpan] = []
    clock = _clock_words(text, words, language)
    for first, last in _runs(text, words, vocab, language, clock):
        i = first
        while i <= last:
            if words[i][2] in _glue(language) or (i > first and words[i][2] in ranging):
                i += 1  # a phrase starts on a word of its own, not on "and", "de", "of"
                continue
            # the longest phrase from word i that reads as a date; else start one word on
            for j in range(last, i - 1, -1):
                if j > i and (words[j][2] in _glue(language) or words[j][2] in ranging):
                    continue
                span = _day_range(read, i, j) or _day_of_month(read, i, j)
                if span is None and not any(w in ranging for _, _, w in words[i + 1 : j]):
                    # (a range word inside a phrase joins a range, or reads apart)
                    span = _weekday_of_week(read, i, j) or read.span(i, j)
                if span is not None:
                    spans.append(span)
                    i = j + 1
                    break
            else:
                i += 1
    spans.extend(_event_spans(text, words, language, events, spans))
    spans.sort(key=lambda s: s.start_pos)
    dated = weekdays_dated(text, _ranged(text, words, language, spans), language)
    return _counted_from_named(text, words, language, dated)


@dataclass(frozen=True)
class _Text:
    """A text being read, as its phrase readers share it: its words (as the reader
    spells them), the language and the moment it is read at."""

    text: str
    words: list[tuple[int, int, str]]
    vocab: _Vocabulary
    language: str
    anchor: datetime
    ahead: bool

    def span(self, first: int, last: int) -> TimeSpan | None:
        """Words ``first`` to ``last`` read as one phrase."""
        w = self.words
        return _span(
            self.text,
            w[first][0],
            w[last][1],
            w,
            self.vocab,
            self.language,
            self.anchor,
            self.ahead,
        )


def _coming(words: list[tuple[int, int, str]], language: str) -> list[tuple[int, int, str]]:
    """The words with the language's relative clause for "next" (``_COMING``) as one
    word: "el martes que viene" is read as "el martes próximo"."""
    found = _COMING.get(language)
    if found is None:
        return words
    (first, second), meaning = found
    out: list[tuple[int, int, str]] = []
    for word in words:
        if out and out[-1][2] == first and word[2] == second:
            out[-1] = (out[-1][0], word[1], meaning)
        else:
            out.append(word)
    return out


def _weekday_of_week(t: _Text, i: int, j: int) -> TimeSpan | None:
    """A weekday written beside a phrase that names a week is that weekday of that week:
    "Thursday next week", "Dienstag in zwei Wochen", "nächste Woche Donnerstag", "el
    jueves de la semana próxima". The week is read as the language reads it alone;
    read with the weekday, the pair would be a bare weekday ("next Thursday") and a
    stray word, or nothing."""
    text, words, vocab, language = t.text, t.words, t.vocab, t.language
    if j <= i:
        return None
    if words[i][2] in vocab.weekdays:
        weekday, first, last = vocab.weekdays[words[i][2]], i + 1, j
        if words[first][2] in _glue(language) and first < last:
            first += 1  # "of next week", "de la semana próxima"
    elif words[j][2] in vocab.weekdays:
        weekday, first, last = vocab.weekdays[words[j][2]], i, j - 1
    else:
        return None
    if not any(w in vocab.units for _, _, w in words[first : last + 1]):
        return None
    week = t.span(first, last)
    if week is None or week.grain != "week" or week.named is None or week.bound != "in":
        return None
    monday = _floor(week.exact or week.named, "week")
    day = monday + timedelta(days=weekday)
    return _bounded(text, words[i][0], words[j][1], day, day + _STEP["day"], "in", "day")


def _day_of_month(t: _Text, i: int, j: int) -> TimeSpan | None:
    """A day of the month written alone, where the language marks it as a day: "on the
    28th" (an ordinal after a bound word and an article), "am 28." (a number and a full
    stop after a bound word), "el día 28" (after the word for day). It is the nearest
    such day ahead of the anchor in a note, the nearest not after it in a question.
    Read as a number, a claim's "Friday 28 November" has no day of the note's to agree
    with."""
    text, words, vocab, language = t.text, t.words, t.vocab, t.language
    before = words[i - 1][2] if i > 0 else ""
    two_back = words[i - 2][2] if i > 1 else ""
    bounds = _BOUNDS[language]
    word = words[j][2]
    n = _day_of(word, language)
    if n is None:
        return None
    if j == i and not word.isdigit():
        # "on the 28th", "by the 3rd": an ordinal after a bound word and an article
        marked = before in _ARTICLES.get(language, ()) and two_back in bounds
    elif j == i and text.startswith(".", words[j][1]):
        # "am 28.", "bis 15.": a number and its full stop after a bound word
        marked = before in bounds and not text[words[j][1] + 1 : words[j][1] + 2].isdigit()
    elif j == i + 1 and word.isdigit() and words[i][2] in _day_words(language):
        marked = before in bounds  # "el día 28", "hasta el día 3" (not "cada día 3 veces")
    else:
        return None
    if not marked:
        return None
    after = [w for _, _, w in words[j + 1 : j + 3]]
    if any(
        w in vocab.months for w in after[: 2 if after[:1] and after[0] in _glue(language) else 1]
    ):
        return None  # "am 28. Februar", "el día 3 de marzo": the month's day, read with it
    bound: Bound = bounds.get(before, "in")
    if bound == "in" and two_back in bounds:
        bound = bounds[two_back]  # "hasta el día 3"
    today = datetime.combine(t.anchor.date(), time(0))
    first = today.replace(day=1)
    steps = [0, 1, 2] if t.ahead else [0, -1, -2]
    for step in steps:
        month = first + relativedelta(months=step)
        try:
            day = month.replace(day=n)
        except ValueError:
            continue
        if (day >= today) if t.ahead else (day <= today):
            return _bounded(text, words[i][0], words[j][1], day, day + _STEP["day"], bound, "day")
    return None


def _day_of(word: str, language: str) -> int | None:
    """The day of the month a word writes ("28", "28th"), if it can be one."""
    n = _day_number(word, language)
    return int(n) if n is not None and len(n) <= 2 and 1 <= int(n) <= 31 else None


@lru_cache(maxsize=16)
def _day_words(language: str) -> frozenset[str]:
    """The language's words for a day ("día", "Tag"): "el día 28"."""
    return frozenset(w for w in _vocabulary(language).units if _unit_of(w, language) == "day")


def _day_range(t: _Text, i: int, j: int) -> TimeSpan | None:
    """Days a dash or a range word joins are one span, from the first to the last: "Oct
    23-24", "23-24 October", "del 10 al 13 de junio", "vom 10.6. bis 13.6.", "Thu-Fri",
    "nächsten Dienstag bis Freitag". A bare day number takes the other end's month, and
    a bare weekday that ends a range is the first such after its start, not the nearest
    to the text's day. Read apart, the end would be a stray number, a weekday of another
    week, or an "until" that opens the range before its start."""
    text, words, vocab, language = t.text, t.words, t.vocab, t.language
    if j - i < 1:
        return None
    joining = _RANGE_ALONE.get(language, frozenset())

    def joins(a: int) -> int | None:
        """Where the end starts, when word ``a`` ends the start and a dash or a range
        word joins it to what follows; None otherwise."""
        between = text[words[a][1] : words[a + 1][0]]
        if between.strip() in ("-", "–"):
            return a + 1
        if between.strip() in ("", ",", ".") and words[a + 1][2] in joining and a + 2 <= j:
            return a + 2 if _joined(text, words[a + 1][1], words[a + 2][0]) else None
        return None

    def read(first: int, last: int) -> datetime | None:
        """The day words ``first`` to ``last`` name (the end's range word, read as its
        bound, "bis 13. Juni", is the range's)."""
        span = t.span(first, last)
        if span is None or span.grain != "day":
            return None
        if span.bound != "in" and not (first > i and words[first - 1][2] in joining):
            return None
        return span.named

    for cut in range(i, j):
        at = joins(cut)
        if at is None:
            continue
        start: datetime | None
        end: datetime | None
        try:
            if at == j and (last_day := _day_of(words[j][2], language)) is not None:
                start = read(i, cut)  # "Oct 23-24": a day of the start's month
                end = start.replace(day=last_day) if start else None
            elif cut == i and (first_day := _day_of(words[i][2], language)) is not None:
                end = read(at, j)  # "23-24 October": a day of the end's month
                start = end.replace(day=first_day) if end else None
            elif at == j and words[j][2] in vocab.weekdays:
                start = read(i, cut)  # "Tue to Fri": the first Friday from the start
                weekday = vocab.weekdays[words[j][2]]
                end = start + timedelta(days=(weekday - start.weekday()) % 7) if start else None
            else:
                start, end = read(i, cut), read(at, j)  # "May 30-June 2"
        except ValueError:  # (no such day in the month)
            return None
        if start is None or end is None or end <= start:
            return None
        return _bounded(text, words[i][0], words[j][1], start, end + _STEP["day"], "in", "day")
    return None


# Words written after a count and a unit that place a time after (+1) or before (-1)
# another time the text names, not the moment it is written ("a day later", "2 Wochen
# vorher"). dateparser has no such notion: its English data reads "3 days before" and
# "3 days after" as "3 days ago" and "in 3 days" (its "ago" and "in" words) and "3 days
# later" as "in 3 days" (a simplification), counting from now, and its Spanish and German
# data have no word for either. So, beside the language's own "after"/"before" bound
# words (``_BOUNDS``: "after", "después", "nach"...) and the "later" of dateparser's
# English simplifications (``_counted_words``), this is a closed class of adverbs per
# language, like the grounder's negation words: no phrase is read, only whether a word
# after a unit points forward or back.
_FROM_ANOTHER_TIME: dict[str, dict[str, int]] = {
    "en": {"earlier": -1, "afterwards": 1},
    "es": {"siguiente": 1, "anterior": -1},
    "de": {
        "später": 1,
        "danach": 1,
        "darauf": 1,
        "früher": -1,
        "vorher": -1,
        "davor": -1,
        "zuvor": -1,
    },
}


@lru_cache(maxsize=16)
def _counted_words(language: str) -> tuple[dict[str, int], dict[str, int]]:
    """The words written after a count and a unit that count from another time than the
    anchor, and the way each points: adverbs ("later", "vorher", "siguiente"), which do
    wherever they stand; and the language's "after"/"before" bound words ("after",
    "después", "antes"), prepositions that do only where they end the clause ("the day
    after."; not "a day after the party", "the day before yesterday")."""
    adverbs = dict(_FROM_ANOTHER_TIME.get(language, {}))
    # dateparser's English "3 days later" → "in 3 day": the word after the unit
    for rule in _info(language).get("simplifications", ()):
        for pattern, value in rule.items():
            m = re.search(r"\)s\? ([^\W\d_]+)$", pattern)
            if m is not None and re.match(r"in \\1 \\2$", str(value)):
                adverbs[_fold(m[1])] = 1
    prepositions = {
        w: 1 if b == "after" else -1
        for w, b in _BOUNDS[language].items()
        if b in ("after", "before")
    }
    return adverbs, prepositions


def _counted_from_named(
    text: str, words: list[tuple[int, int, str]], language: str, spans: list[TimeSpan]
) -> list[TimeSpan]:
    """ "Mo 16.03. … am Tag danach", "Do 26.02. … 2 Wochen vorher", "Friday 6 March …
    a day later": a count of units (a unit alone, in its singular, is one: "the day
    after", "einen Tag später") followed by a word that counts from another time
    (``_counted_words``) names the day that far from the day the text names last before
    it (one counted so too: "Fr 6.3. … einen Tag später … zwei Tage später"), not from
    the anchor. With no day named before it (or a week or month named last) it names
    nothing."""
    adverbs, prepositions = _counted_words(language)
    if not any(w in adverbs or w in prepositions for _, _, w in words):
        return spans
    out = list(spans)
    for k in range(1, len(words)):
        s, e, w = words[k]
        way = adverbs.get(w)
        if way is None and w in prepositions and _no_word_after(text, e):
            way = prepositions[w]  # a preposition that ends its clause: "the day after."
        if way is None:
            continue
        unit_at = k - 1
        unit_word = words[unit_at][2]
        unit = _unit_of(unit_word, language)
        if unit is None or not _joined(text, words[unit_at][1], s):
            continue
        first = unit_at
        count = None
        if unit_at > 0 and _joined(text, words[unit_at - 1][1], words[unit_at][0]):
            count = _count(words[unit_at - 1][2], language)
            if count is not None:
                first = unit_at - 1
        if count is None:
            if not _singular(unit_word, language):
                continue  # "Tage später", "days later": how many is not written
            count = 1
        start, end = words[first][0], e
        if any(x.start_pos < end and start < x.end_pos for x in out):
            continue  # a phrase read already ("the day before yesterday")
        base = max((x for x in out if x.end_pos <= start), key=lambda x: x.end_pos, default=None)
        if base is None or base.day is None:
            continue
        _, step = _UNIT_GRAIN[unit]
        moment = datetime.combine(base.day, time(0)) + step * count * way
        out.append(_bounded(text, start, end, moment, moment + _STEP["day"], "in", "day"))
    out.sort(key=lambda x: x.start_pos)
    return out


def _no_word_after(text: str, end: int) -> bool:
    """No word follows position ``end`` on its line but past spaces: a mark, a line's
    end or the text's."""
    rest = text[end:]
    return _WORD.match(text, end + len(rest) - len(rest.lstrip(" \t"))) is None


def _singular(word: str, language: str) -> bool:
    """A unit's singular: the shortest of its spellings that others extend ("day" of
    "days", "Tag" of "Tage" and "Tagen", "semana" of "semanas"; one letter is an
    abbreviation)."""
    unit = _unit_of(word, language)
    spellings = [_fold(w) for w in _info(language).get(unit or "", ()) if len(w) > 1]
    return any(o != word and o.startswith(word) for o in spellings) and not any(
        o != word and word.startswith(o) for o in spellings
    )


def weekdays_dated(text: str, spans: Sequence[TimeSpan], language: str) -> list[TimeSpan]:
    """ "Montag, den 13. April", "el lunes, 13 de abril", "Monday, the 13th of April": a
    weekday written before a day, with nothing but punctuation and function words of
    the language between (", den", ", el", ", the"), names that day, not the nearest
    such weekday: the two are one span. Where the day falls on another weekday
    ("Dienstag, den 13. April" of a Monday) it is read as "Tuesday, 13 April" is in one
    phrase, in the nearest year it is a Tuesday, so a wrong weekday names another day;
    with a year written, both stay as read. ``spans``: positions in ``text``, in order
    (a caller that reads a text clause by clause joins its clauses' spans here)."""
    from footnote.text import stop_words

    language = supported_language(language) or DEFAULT_LANGUAGE
    weekdays = _vocabulary(language).weekdays
    stopped = stop_words(language)
    out: list[TimeSpan] = []
    for span in spans:
        prev = out[-1] if out else None
        if (
            prev is not None
            and _bare_weekday(prev, weekdays)
            and span.resolved
            and span.grain == "day"
            and span.named is not None
            and span.bound == "in"
            and any(c.isdigit() for c in span.text)
            and not any(_fold(w) in weekdays for w in _WORD.findall(span.text))
            and _function_gap(text[prev.end_pos : span.start_pos], stopped)
            and prev.named is not None
        ):
            day: datetime | None = span.named
            if prev.named.weekday() != span.named.weekday():
                # as "Tuesday, 13 April" in one phrase: the year it is that weekday (no
                # 13 April of the year read, which the day alone would agree with)
                written = _YEAR.search(span.text)
                day = (
                    None
                    if written
                    else _year_on_weekday(span.named, prev.named.weekday(), span.named)
                )
            if day is not None:
                out[-1] = _bounded(
                    text, prev.start_pos, span.end_pos, day, day + _STEP["day"], prev.bound, "day"
                )
                continue
        out.append(span)
    return out


def _year_on_weekday(moment: datetime, weekday: int, near: datetime) -> datetime | None:
    """ "Wed 4 Nov": the day of ``moment`` in the year, nearest ``near``, in which it is
    that weekday; None if no year within six does it."""
    agreeing = [
        moment + relativedelta(years=k)
        for k in range(-6, 7)
        if (moment + relativedelta(years=k)).weekday() == weekday
        and (moment + relativedelta(years=k)).day == moment.day
    ]
    return min(agreeing, key=lambda m: abs(m - near), default=None)


def _bare_weekday(span: TimeSpan, weekdays: Mapping[str, int]) -> bool:
    """A span that names a weekday and no day number ("Montag", "on Monday")."""
    return (
        span.resolved
        and span.grain == "day"
        and span.named is not None
        and not any(c.isdigit() for c in span.text)
        and any(_fold(w) in weekdays for w in _WORD.findall(span.text))
    )


def _function_gap(gap: str, stopped: frozenset[str]) -> bool:
    """Text between two phrases of one date: a comma or a dash and the language's
    function words (", den ", ", el ", " the "), on one line."""
    found = _WORD.findall(gap)
    return (
        "\n" not in gap
        and len(found) <= 2
        and all(unaccented(_fold(w)) in stopped for w in found)
        and not _WORD.sub("", gap).strip(" ,-–")
    )


def _ranged(
    text: str, words: list[tuple[int, int, str]], language: str, spans: list[TimeSpan]
) -> list[TimeSpan]:
    """ "between March and May 2024": two spans a range's words join become one, the
    first read as the latest such period not after the second."""
    opening, joining = _RANGES.get(language, (set(), set()))
    out: list[TimeSpan] = []
    for span in spans:
        if out and span.named is not None and (prev := out[-1]).named is not None:
            gap = [w for s, e, w in words if prev.end_pos <= s and e <= span.start_pos]
            before = [w for s, e, w in words if e <= prev.start_pos]
            first_word = next((w for s, e, w in words if s >= prev.start_pos), "")
            if (
                len(gap) == 1
                and gap[0] in joining
                and ((before and before[-1] in opening) or first_word in opening)
                and prev.bound in ("in", "since")
            ):
                first = prev.named
                while first > span.named:
                    first -= relativedelta(years=1)
                end = max(span.end or span.named, (prev.end or first) - (prev.named - first))
                label = _label(text, prev.start_pos, span.end_pos)
                out[-1] = TimeSpan(
                    prev.start_pos,
                    span.end_pos,
                    label,
                    first,
                    end,
                    "in",
                    True,
                    prev.grain,
                    named=first,
                )
                continue
        out.append(span)
    return out


def _runs(
    text: str,
    words: list[tuple[int, int, str]],
    vocab: _Vocabulary,
    language: str,
    clock: frozenset[int] = frozenset(),
) -> list[tuple[int, int]]:
    """Runs of words that may be a date (calendar and relative words, numbers, and the
    little words the language writes between them: "de", "of"), as word indices. Only
    these reach dateparser, so a text with no such word costs no parse. A word of a
    clock time (``clock``) ends a run: "Mon 19th 09:12" is Monday the 19th."""
    bounds = _BOUNDS[language]
    glue = _glue(language)
    ranging = _RANGE_ALONE.get(language, frozenset())

    rolling = _ROLLING.get(language, ())
    pertain = frozenset(_fold(w) for w in _info(language).get("pertain") or ())

    def datey(w: str, inner: bool = False, at: int = -1) -> bool:
        if at in clock:
            return False
        if w in bounds and w not in rolling and not inner:
            return False
        return (
            w in vocab.months
            or w in vocab.weekdays
            or w in vocab.relative
            or w in vocab.units
            or (w[:1].isdigit() and not _NO_DATE_PART.fullmatch(w))
        )

    def counted(i: int) -> bool:
        """A count word before a unit ("a month ago", "dos semanas"): the run starts at
        it, though alone it is no time word ("a", "an")."""
        return (
            i + 1 < len(words)
            and words[i + 1][2] in vocab.units
            and _joined(text, words[i][1], words[i + 1][0])
            and _count(words[i][2], language) is not None
        )

    runs: list[tuple[int, int]] = []
    i = 0
    while i < len(words):
        if not datey(words[i][2], at=i) and not counted(i):
            i += 1
            continue
        j = i
        while j + 1 < len(words) and _joined(text, words[j][1], words[j + 1][0]):
            if (
                datey(words[j + 1][2], inner=True, at=j + 1)
                and (
                    datey(words[j + 1][2], at=j + 1)
                    or (j + 2 < len(words) and datey(words[j + 2][2], at=j + 2))
                )
            ) or counted(j + 1):  # ("hace dos semanas": a count word before its unit)
                j += 1
            elif (
                j + 2 < len(words)
                and words[j + 1][2] in ranging
                and datey(words[j + 2][2], at=j + 2)
                and _joined(text, words[j + 1][1], words[j + 2][0])
            ):
                j += 2  # "Tue to Fri", "10 al 13 de junio": one run, read as a range
            elif (
                j + 2 < len(words)
                and words[j + 1][2] in glue
                # a preposition opens a date of its own ("Midterm 2 on Nov 19", "Fri 21
                # at 10"); "of", "de" join a date's parts ("5th of May", "21 de marzo")
                and (words[j + 1][2] not in bounds or words[j + 1][2] in pertain)
                and (datey(words[j + 2][2], at=j + 2) or counted(j + 2))
                and _joined(text, words[j + 1][1], words[j + 2][0])
            ):
                j += 2
            else:
                break
        # a date is a few words: a longer run is read in pieces of at most _MAX_WORDS
        for k in range(i, j + 1, _MAX_WORDS):
            runs.append((k, min(j, k + _MAX_WORDS - 1)))
        i = j + 1
    return runs


# A number of three digits, or of five and more, is no day, month or year: an amount
# beside a month is the month's ("ab Januar 195 € im Monat").
_NO_DATE_PART = re.compile(r"\d{3}|\d{5,}")


# "09:12", "17:45", "9.30" after a colon-less hour is no date: only the colon form
_CLOCK = re.compile(r"(?<![\d:])\d{1,2}:\d{2}(?::\d{2})?(?![\d:])")


def _clock_words(text: str, words: list[tuple[int, int, str]], language: str) -> frozenset[int]:
    """The words of ``text`` that write a time of day, never part of a date: a clock
    time ("09:12", "17:45"), an hour with the language's am/pm word ("11am", "9 pm"),
    or an hour followed by a word dateparser skips around a time that is no function
    word of the language (German "10 Uhr")."""
    if not any(c.isdigit() for c in text):
        return frozenset()
    spans = [m.span() for m in _CLOCK.finditer(text)]
    out = {i for i, (s, e, _) in enumerate(words) if any(a <= s and e <= b for a, b in spans)}
    marks = _hour_marks(language)
    for i, (_, _, w) in enumerate(words):
        m = re.fullmatch(r"(\d{1,2})([^\W\d]+)", w)
        if m is not None and m[2] in marks[0]:
            out.add(i)  # "11am"
        elif (
            w.isdigit()
            and len(w) <= 2
            and i + 1 < len(words)
            and words[i + 1][2] in (marks[0] - _BOUNDS[language].keys()) | marks[1]
            and _joined(text, words[i][1], words[i + 1][0])
        ):
            out.add(i)  # "9 pm", "10 Uhr"
    for i in range(len(words) - 2, -1, -1):
        # "2-4pm", "6–10pm": the hour a range of hours starts with
        if (
            i + 1 in out
            and words[i][2].isdigit()
            and len(words[i][2]) <= 2
            and text[words[i][1] : words[i + 1][0]].strip() in ("-", "–")
        ):
            out.add(i)
    return frozenset(out)


@lru_cache(maxsize=16)
def _hour_marks(language: str) -> tuple[frozenset[str], frozenset[str]]:
    """The language's am/pm words ("am", "pm"), and the words dateparser skips that follow
    an hour: of its skip words, those of three letters or more that are no function word
    of the language and no bound ("uhr"; not "und", "the", "at")."""
    from footnote.text import stop_words

    info = _info(language)
    ampm = frozenset(_fold(w) for k in ("am", "pm") for w in info.get(k, ()) if w.isalpha())
    stopped = stop_words(language)
    after = frozenset(
        _fold(w)
        for w in info.get("skip", ())
        if len(w) >= 3
        and w.isalpha()
        and _fold(w) not in stopped
        and _fold(w) not in _BOUNDS[language]
    )
    return ampm, after


# A day written in digits: "5.12.", "26.3.", "5.12.2026", "12/5/2026"
_DIGIT_DAY = re.compile(r"(\d{1,2})([./])(\d{1,2})(?:\2(\d{4}|\d{2}))?(\.?)")


def _digit_day(
    text: str,
    start: int,
    end: int,
    inside: list[str],
    vocab: _Vocabulary,
    language: str,
    anchor: datetime,
    ahead: bool,
) -> tuple[datetime, int] | None:
    """A day written in digits, in the language's order of day and month (dateparser's
    ``date_order``), and where it ends: with its year ("5.12.2026", "12/5/2026"), or,
    where the day comes first, as day and month with a full stop after each ("5.12.",
    "Do 26.3."; "5.12" alone is a time or an amount), or with a slash where no share or
    score reads it ("20/06", "12/25"). A weekday before it agrees."""
    weekdays = [vocab.weekdays[w] for w in inside if w in vocab.weekdays]
    if len(inside) - len(weekdays) not in (2, 3) or len(weekdays) > 1:
        return None
    if weekdays and inside[0] not in vocab.weekdays:
        return None
    first_digit = next(i for i in range(start, end) if text[i].isdigit())
    if text[start:first_digit].strip(" ,") and not weekdays:
        return None
    m = _DIGIT_DAY.match(text, first_digit)
    if m is None or m.end(4 if m[4] else 3) != end:
        return None
    if text[m.end() : m.end() + 1].isalnum() or (first_digit and text[first_digit - 1] in ".,:/"):
        return None  # "5.12.3", "v1.2.", "1.5.12": no day
    order = str(_info(language).get("date_order", "MDY"))
    if order not in ("DMY", "MDY"):
        return None
    a, b = int(m[1]), int(m[3])
    day, month = (a, b) if order == "DMY" else (b, a)
    if m[4]:
        year = int(m[4]) + (2000 if len(m[4]) == 2 else 0)
        years = [year]
    elif (m[2] == "." and m[5] and order == "DMY") or (
        # "el 20/06", "on 12/25": a slash between a day past 12 or a zero-padded number
        # and a month is a day; "3/4" and "12/5" may be a share or a score
        m[2] == "/" and (day > 12 or m[1].startswith("0") or m[3].startswith("0"))
    ):
        this = anchor.year
        years = [this, this + 1, this - 1] if ahead else [this, this - 1, this + 1]
    else:
        return None
    today = datetime.combine(anchor.date(), time(0))
    for year in years:
        try:
            moment = datetime(year, month, day)
        except ValueError:
            return None
        if weekdays and moment.weekday() != weekdays[0]:
            continue
        if m[4] or weekdays or (moment >= today if ahead else moment <= today):
            return moment, m.end()
    return None


def _day_number(word: str, language: str) -> str | None:
    """The digits of a number word: "21", or "19th", "22nd" (digits and an ending
    dateparser's data skips in the language, its ordinal suffixes). Decimal digits only:
    "²" is a digit to ``str.isdigit`` but no number ``int`` reads."""
    if word.isdecimal():
        return word
    m = re.fullmatch(r"(\d{1,2})([^\W\d]{1,2})", word)
    if m is not None and m[2] in _glue(language):
        return m[1]
    return None


@lru_cache(maxsize=16)
def _lowercase_names(language: str) -> frozenset[str]:
    """The month and weekday spellings dateparser's data writes in lower case."""
    info = _info(language)
    return frozenset(
        _fold(w) for k in (*_MONTH_KEYS, *_WEEKDAY_KEYS) for w in info.get(k, ()) if w == w.lower()
    )


@lru_cache(maxsize=16)
def _two_letter_weekdays(language: str) -> dict[str, str]:
    """The weekdays dateparser's data spells in two letters ("sa", "di", "fr"), each by
    its full name, but those that are function words of the language ("we", "do", "so")."""
    from footnote.text import stop_words

    info = _info(language)
    stopped = stop_words(language)
    out: dict[str, str] = {}
    for key in _WEEKDAY_KEYS:
        full = _fold(max(info.get(key, (key,)), key=len))
        for w in info.get(key, ()):
            if len(w) == 2 and w.isalpha() and _fold(w) not in stopped:
                out[_fold(w)] = full
    return out


def _short_weekdays(
    text: str, words: list[tuple[int, int, str]], language: str
) -> list[tuple[int, int, str]]:
    """A weekday written in two letters is a word as often as a day ("Tu", "Fr"): it
    is read as the day, spelled out, where it is capitalised and the text places it
    as one: after a bound or a word that points ("bis Fr", "nächsten Di", "am Sa"),
    or before a number ("Sa 10 Uhr", "Fr 21")."""
    short = _two_letter_weekdays(language)
    if not short:
        return words
    bounds = _BOUNDS[language]
    directions = _directions(language)
    out = list(words)
    for i, (s, e, w) in enumerate(words):
        if w not in short or not text[s].isupper():
            continue
        prev = words[i - 1][2] if i > 0 else ""
        after = words[i + 1] if i + 1 < len(words) else None
        placed = (prev in bounds or prev in directions) and _joined(text, words[i - 1][1], s)
        numbered = (
            after is not None and after[2][:1].isdigit() and text[e : after[0]].strip(" ,") == ""
        )
        if placed or numbered:
            out[i] = (s, e, short[w])
    return out


def _phrase(text: str, start: int, end: int, words: list[tuple[int, int, str]]) -> str:
    """``text[start:end]``, with each word the reader spells out written as spelled
    ("in 12 wks": "in 12 weeks"), for dateparser to read."""
    out, at = [], start
    for s, e, w in words:
        if start <= s and e <= end and w != _fold(text[s:e]):
            out += [text[at:s], w]
            at = e
    return "".join([*out, text[at:end]])


@lru_cache(maxsize=4096)
def _spelled(word: str, language: str) -> str:
    """The word of dateparser's vocabulary for ``language`` that ``word`` writes short or
    without its accents, else ``word``: "manana" is "mañana", "sabado" "sábado"; and a
    unit or relative word written as its contraction (three letters or more, half its
    own at least, its first and last kept and no vowel between; naming one thing):
    "wks" is "weeks", "tmrw" "tomorrow", "yrs" "years", not "sms" "semanas". A word's
    start is no contraction: "über" is no "übermorgen", "pasa" no "pasado"; except a
    weekday's, of four letters or more: "Thurs" is Thursday."""
    vocab = _vocabulary(language)
    if (
        len(word) < 3
        or not word.isalpha()
        or word in vocab.months
        or word in vocab.weekdays
        or word in vocab.relative
        or word in vocab.units
        or word in _glue(language)
        or word in _BOUNDS[language]
    ):
        return word
    known = _spellings(language)
    bare = unaccented(word)
    if bare in known[0]:
        return known[0][bare]
    if language in _INFLECTED and len(word) >= 4:
        # "nächster", "nächsten", "letzter", "próximas": the relative word as the sentence
        # inflects it (its stem is the vocabulary word's)
        found = _relative_by_stem(language).get(stem(word, language))
        if found is not None and _inflects(bare, unaccented(found)):
            return found
    if len(bare) >= _WEEKDAY_START:
        # a weekday's start ("Thurs", "Wedn", "juev"): the one weekday it begins
        begun = {i: w for w, i in vocab.weekdays.items() if unaccented(w).startswith(bare)}
        if len(begun) == 1:
            return next(iter(begun.values()))
    inner = bare[1:-1]
    if any(c in _VOWELS for c in inner):
        return word
    meanings: dict[object, str] = {}
    for full, meaning in known[1].items():
        if len(full) <= len(word):
            continue
        plain = unaccented(full)
        if (
            2 * len(word) >= len(full)
            and plain[0] == bare[0]
            and plain[-1] == bare[-1]
            and in_order(inner, plain[1:-1])
        ):
            meanings.setdefault(meaning, full)
    return next(iter(meanings.values())) if len(meanings) == 1 else word


_VOWELS = frozenset("aeiouy")
# Languages whose adjectives take endings: a relative word is read by its stem there.
_INFLECTED = frozenset({"de", "es", "fr", "it", "pt"})


def _inflects(word: str, base: str) -> bool:
    """``word`` is ``base`` with another ending: all but base's last letter kept, at
    most two letters more ("nächster" of "nächste"; not "nach", nor "pasar" of
    "pasada")."""
    keep = len(base) - 1
    return word[:keep] == base[:keep] and 0 <= len(word) - keep <= 3


@lru_cache(maxsize=16)
def _relative_by_stem(language: str) -> dict[str, str]:
    """The words that point in the language's phrases of a unit ("nächste Woche", "la
    próxima semana") by their stem, where one stem names one word (not "morgen", a day
    of its own: "morgens" is in the mornings)."""
    directions = _directions(language)
    units = _vocabulary(language).units
    by: dict[str, set[str]] = {}
    for phrase in _relatives(language)[0]:
        found = phrase.split()
        if not any(w in units for w in found):
            continue
        for w in found:
            if w in directions and len(w) >= 4:
                by.setdefault(stem(w, language), set()).add(w)
    return {k: min(v) for k, v in by.items() if len({directions[w] for w in v}) == 1}


# The letters a weekday's start is written with at least, where the language's own
# abbreviations are shorter ("Thurs" for Thursday; "Thu" is dateparser's).
_WEEKDAY_START = 4


@lru_cache(maxsize=16)
def _spellings(language: str) -> tuple[dict[str, str], dict[str, object]]:
    """The language's month, weekday, unit and relative words by their unaccented form,
    where that differs ("manana": "mañana"); and the unit and relative words (no count
    words, none of the little words) by what each names: a unit's key, else the way the
    word points ("next" +1), else the word."""
    vocab = _vocabulary(language)
    every = set(vocab.months) | set(vocab.weekdays) | vocab.relative | vocab.units
    by_bare: dict[str, str] = {}
    for w in sorted(every):
        bare = unaccented(w)
        if bare != w and bare not in every:
            by_bare[bare] = w if by_bare.get(bare, w) == w else ""
    info = _info(language)
    directions = _directions(language)
    meanings: dict[str, object] = {}
    for w in sorted((vocab.relative | vocab.units) - _count_words(language) - _glue(language)):
        if len(w) < 3 or not w.isalpha() or w in _BOUNDS[language]:
            continue
        unit = next((k for k in _UNIT_KEYS if any(_fold(x) == w for x in info.get(k, ()))), None)
        meanings[w] = unit or (("way", directions[w]) if w in directions else w)
    return {k: v for k, v in by_bare.items() if v}, meanings


@lru_cache(maxsize=4096)
def _count(word: str, language: str) -> int | None:
    """The number ``word`` counts: "3", dateparser's count words ("a", "un"), else the
    language's number words as text2num reads them ("two", "quince", "zwei"); None for
    any other word ("²" is a digit to ``str.isdigit``, no number)."""
    if word.isdecimal():
        return int(word)
    table = _count_table(language)
    if word in table:
        return table[word]
    if not word.isalpha():
        return None
    try:
        from text_to_num import text2num

        return int(text2num(word, language))
    except (ImportError, ValueError, KeyError):
        return None


@lru_cache(maxsize=16)
def _count_table(language: str) -> dict[str, int]:
    """dateparser's words for numbers in ``language``, by the number each is."""
    return {
        _fold(k): int(v)
        for rule in _info(language).get("simplifications", ())
        for k, v in rule.items()
        if str(v).isdigit() and " " not in k
    }


@lru_cache(maxsize=16)
def _future_words(language: str) -> frozenset[str]:
    """The words ``language`` writes a time ahead with ("in 3 days", "en 3 días")."""
    return frozenset(_fold(w) for w in _info(language).get("in", ()) if " " not in w)


@lru_cache(maxsize=16)
def _count_words(language: str) -> frozenset[str]:
    """The words ``language`` counts with in a time phrase ("a", "two", "un", "zwei"):
    dateparser's simplifications to a number."""
    return frozenset(_count_table(language))


@lru_cache(maxsize=16)
def _glue(language: str) -> frozenset[str]:
    """Words a date is written with between its parts ("5 de marzo", "the 5th of May")."""
    info = _info(language)
    return frozenset(
        _fold(w)
        for w in (*info.get("skip", ()), *info.get("pertain", ()))
        if w.strip(" ,-./;'@[]|，")
    )


def _joined(text: str, end: int, start: int) -> bool:
    """Two words are one phrase when only spaces, a comma or a dash part them."""
    gap = text[end:start]
    return len(gap) <= 3 and all(c in " ,-/." for c in gap)


def _span(
    text: str,
    start: int,
    end: int,
    words: list[tuple[int, int, str]],
    vocab: _Vocabulary,
    language: str,
    anchor: datetime,
    ahead: bool,
) -> TimeSpan | None:
    phrase = _phrase(text, start, end, words)
    inside = [w for s, e, w in words if start <= s and e <= end]
    preceding = [(s, w) for s, e, w in words if e <= start]
    before = [w for _, w in preceding]
    bounds = _BOUNDS[language]
    prep = before[-1] if before else ""
    bound: Bound = bounds.get(prep, "in")
    # "antes del viernes", "in the past 3 days": the bound word may stand two words back
    if (
        len(before) >= 2
        and before[-2] in bounds
        and bounds[before[-2]] != "in"
        and bound == "in"
        and (prep in bounds or prep in _glue(language))
    ):
        prep, bound = before[-2], bounds[before[-2]]
    if (
        bound == "since"
        and prep in _ROLLING.get(language, ())
        and _count(inside[0], language) is None
    ):
        bound = "in"  # "past"/"last"/"últimos" before a count is rolling; "last week" is not

    # the bound word is part of the phrase ("since Monday"): no keyword of the question
    lead = (
        next((p for p, w in reversed(preceding[-2:]) if w == prep), start)
        if prep in bounds
        else start
    )
    span = _span_of(
        text, start, end, phrase, inside, before, prep, bound, words, vocab, language, anchor, ahead
    )
    if span is None or lead == start:
        return span
    return dataclasses.replace(span, start_pos=lead, text=_label(text, lead, span.end_pos))


def _span_of(
    text: str,
    start: int,
    end: int,
    phrase: str,
    inside: list[str],
    before: list[str],
    prep: str,
    bound: Bound,
    words: list[tuple[int, int, str]],
    vocab: _Vocabulary,
    language: str,
    anchor: datetime,
    ahead: bool,
) -> TimeSpan | None:
    bounds = _BOUNDS[language]
    if (
        len(inside) == 2
        and inside[1] in vocab.units
        and _count(inside[0], language) is not None
        and (prep in _future_words(language) or prep in _WITHIN)
    ):
        # "in 1 week", "in a week", "en dos días": the future's word before a count
        # is the phrase's ("1 week" alone names no time); "within 2 weeks" counts ahead
        # as "in 2 weeks" does, up to the day it lands on
        ahead_word = "in" if "in" in _future_words(language) else min(_future_words(language))
        inside = [ahead_word if prep in _WITHIN else prep, *inside]
    names = [w for w in inside if w in vocab.months or w in vocab.weekdays]
    relative = any(w in vocab.relative for w in inside)
    # "19th", "22nd": a day number too, written with the language's ordinal ending
    numbers = [n for w in inside if (n := _day_number(w, language)) is not None]
    iso = _ISO.search(phrase)
    if _hour_after_day(text, start, end, words, vocab, language):
        return None  # "7 de junio 10-14 h": the day is read without the hours after it

    if iso is not None:
        if iso.start() > 0 or phrase[iso.end() :].strip():
            return None  # a longer phrase around a date: the date alone is read
        return _iso_span(text, start, iso, bound)
    if numbers and not relative and not any(w in vocab.months for w in inside):
        digits = _digit_day(text, start, end, inside, vocab, language, anchor, ahead)
        if digits is not None:
            return _bounded(
                text, start, digits[1], digits[0], digits[0] + _STEP["day"], bound, "day"
            )
    if not names and not relative:
        # numbers alone: a year ("in 2023"; in a question also "was habe ich 2023
        # notiert", not "the 2024 budget" nor "2023 €"), else no date ("3 lemons")
        if len(numbers) == 1 and _YEAR.fullmatch(numbers[0]):
            year = int(numbers[0])
            num_pos = text.index(numbers[0], start)
            around = text[max(0, num_pos - 2) : num_pos] + text[num_pos + 4 : num_pos + 6]
            bare = (
                not ahead
                and prep not in _glue(language)
                and year <= anchor.year
                and not any(unicodedata.category(c) == "Sc" or c == "%" for c in around)
            )
            if prep in bounds or bare:
                s = datetime(year, 1, 1)
                return _bounded(text, num_pos, num_pos + 4, s, s + _STEP["year"], bound, "year")
        return None
    if names and not relative and not numbers:
        # a bare month or weekday is a word ("the March proposal", "you may go") unless
        # a preposition introduces it, or (in a note) it is capitalised
        written = text[start:end]
        opening, joining = _RANGES.get(language, ((), ()))
        # "en marzo", "próximo martes", "between March and June"
        introduced = prep in bounds or prep in vocab.relative or prep in opening or prep in joining
        # where the language writes them in lower case, case says nothing: a note's name
        # is a date when it is one of the language's own spellings (dateparser's data
        # writes them in lower case; "Set" for September is a variant's) naming one
        # thing (Spanish "mar" is March and Tuesday)
        lowercase = language in _LOWERCASE_CALENDAR and all(
            w in _lowercase_names(language) and not (w in vocab.months and w in vocab.weekdays)
            for w in names
        )
        if not introduced and not (ahead and (written[:1].isupper() or lowercase)):
            return None
    if relative and not names and not numbers and not any(w in vocab.units for w in inside):
        # "today", "yesterday", "ayer", "gestern" stand alone; a stray "in", "ago", "last"
        # or "next" names nothing
        if len(inside) == 1 and inside[0] in _lone_relatives(language):
            if before and before[-1] in _determiners(language):
                return None  # "por la mañana", "esta mañana", "diesen Morgen": a morning
        elif len(inside) <= 1:
            return None

    weekday = next((vocab.weekdays[w] for w in inside if w in vocab.weekdays), None)
    month = next((vocab.months[w] for w in inside if w in vocab.months), None)
    day_numbers = [int(n) for n in numbers if len(n) <= 2 and 1 <= int(n) <= 31]
    if (
        weekday is not None
        and month is None
        and len(day_numbers) == 1
        and not relative
        and inside[0] in vocab.weekdays  # "Fri 21", "Mon 19th"; not "Isla's 9th, Sat"
    ):
        found = _weekday_with_day(anchor, weekday, day_numbers[0], ahead)
        if found is None:
            return None
        return _bounded(text, start, end, found, found + _STEP["day"], bound, "day")
    if weekday is not None and not numbers and not relative:
        today = datetime.combine(anchor.date(), time(0))
        shift = (weekday - today.weekday()) % 7 if ahead else -((today.weekday() - weekday) % 7)
        day = today + timedelta(days=shift)
        return _bounded(text, start, end, day, day + _STEP["day"], bound, "day")

    read = _own_reading(inside, month, weekday, language, anchor, ahead)
    if read is None and bound == "since" and prep in _ROLLING.get(language, ()):
        # "the past 3 days", "los últimos 3 días": that many units back
        unit = _unit_of(inside[-1], language)
        count = _count(inside[0], language)
        if unit is not None and len(inside) == 2 and count is not None:
            grain_, step = _UNIT_GRAIN[unit]
            read = anchor - step * count, grain_
    if read is None and (names or (numbers and not relative)):
        # the parser reads what the common forms do not, if it names a month or a day;
        # relative words alone that are none of the language's phrases ("one-year-old")
        # are no date
        read = _grain_of(phrase, language, anchor, ahead)
    if read is None:
        return None
    moment, grain = read
    if numbers and not names and not relative:
        return None
    # Only a phrase that counts from the anchor ("hace 20 años") reads a year far off
    # without writing it; the little words a date is written with are relative words
    # too in some languages (Spanish "de", of "dentro de"), and count nothing.
    counts_from_anchor = any(w in vocab.relative and w not in _glue(language) for w in inside)
    if (
        not counts_from_anchor
        and not any(_YEAR.fullmatch(n) for n in numbers)
        and abs(moment.year - anchor.year) > _YEARS_UNWRITTEN
    ):
        return None  # the parser took a number for a year ("Sat 10/25 10-2": 2110)
    if (
        weekday is not None
        and month is None
        and numbers
        and not relative
        and (grain != "day" or moment.weekday() != weekday)
    ):
        return None  # "Sat 10/25 10-2", "9th, Sat": the parser's reading is no such weekday
    if weekday is not None and month is not None and grain == "day" and moment.weekday() != weekday:
        agreeing = _year_on_weekday(moment, weekday, anchor)
        if agreeing is None or any(_YEAR.fullmatch(n) for n in numbers):
            return None
        moment = agreeing
    if (
        bound == "since"
        and _count(inside[0], language) is not None
        and prep in _ROLLING.get(language, ())
    ):
        # "the past 3 days": from that day on
        s = _floor(moment, "day")
        return TimeSpan(
            start, end, _label(text, start, end), s, None, "since", True, grain, named=s
        )
    s, e = _period(moment, grain)
    if (
        month is not None
        and grain == "month"
        and not ahead
        and s > anchor
        and not any(_YEAR.fullmatch(n) for n in numbers)
    ):
        s, e = s - _STEP["year"], e - _STEP["year"]
    span = _bounded(text, start, end, s, e, bound, grain)
    counted = numbers or any(_count(w, language) is not None for w in inside)
    if relative and counted and grain in ("week", "month"):
        # "in 3 wks" from 20 March: the week of 6 April, landing on 10 April
        span = dataclasses.replace(span, exact=_floor(moment, "day"))
    return span


def _hour_after_day(
    text: str,
    start: int,
    end: int,
    words: list[tuple[int, int, str]],
    vocab: _Vocabulary,
    language: str,
) -> bool:
    """A number of one or two digits written after a day and a month ("7 de junio 10",
    "7 June 10 hrs") that a dash joins to another number ("10-14": a range) or that a
    word of the hours follows ("20 h", "10 hrs"): it counts hours, it is no year, and a
    phrase that takes it (``start``..``end``) is no date. A number right after the
    month is its day ("June 10-14")."""
    month = day = False
    hours = _hour_words(language)
    for _, e, w in (x for x in words if start <= x[0] and x[1] <= end):
        number = _day_number(w, language)
        if w in vocab.months:
            month = True
        elif number is not None and len(number) <= 2 and month and day and w.isdigit():
            following = next((x for x in words if x[0] >= e), None)
            if re.match(r"\s?[-–]\s?\d", text[e:]) or (
                following is not None and following[2] in hours and _joined(text, e, following[0])
            ):
                return True
        elif number is not None and len(number) <= 2:
            day = True
    return False


@lru_cache(maxsize=16)
def _hour_words(language: str) -> frozenset[str]:
    """The words that follow a number of hours: the language's spellings of "hour"
    ("h", "hrs", "Std"), its am/pm words and the words dateparser skips after an hour
    ("Uhr")."""
    ampm, after = _hour_marks(language)
    return frozenset(_fold(w) for w in _info(language).get("hour", ())) | ampm | after


@lru_cache(maxsize=16)
def _lone_relatives(language: str) -> frozenset[str]:
    """Relative words that are a date on their own ("today", "ayer", "gestern")."""
    info = _info(language)
    return frozenset(
        _fold(p)
        for key, phrases in info.get("relative-type", {}).items()
        if key.split()[-2:] in (["day", "ago"],)
        or key.startswith("in 1 day")
        or key.startswith("in 2 day")
        for p in phrases
        if " " not in p
    )


def _weekday_with_day(anchor: datetime, weekday: int, day: int, ahead: bool) -> datetime | None:
    """ "Fri 21": the nearest month, in the direction read, whose ``day`` is that weekday."""
    first = datetime.combine(anchor.date(), time(0)).replace(day=1)
    for i in range(15):
        month: datetime = first + relativedelta(months=i if ahead else -i)
        try:
            candidate = month.replace(day=day)
        except ValueError:
            continue
        if candidate.weekday() != weekday:
            continue
        if ahead and candidate.date() < anchor.date() - timedelta(days=7):
            continue
        if not ahead and candidate.date() > anchor.date():
            continue
        return candidate
    return None


def _iso_span(text: str, offset: int, m: re.Match[str], bound: Bound) -> TimeSpan | None:
    year, month = int(m[1]), int(m[2])
    try:
        if m[3]:
            s = datetime(year, month, int(m[3]))
            return _bounded(
                text, offset + m.start(), offset + m.end(), s, s + _STEP["day"], bound, "day"
            )
        s = datetime(year, month, 1)
    except ValueError:
        return TimeSpan(offset + m.start(), offset + m.end(), m[0], None, None, bound, False)
    return _bounded(
        text, offset + m.start(), offset + m.end(), s, s + _STEP["month"], bound, "month"
    )


def _label(text: str, start: int, end: int) -> str:
    return " ".join(text[start:end].split())


def _bounded(
    text: str, start: int, end: int, s: datetime, e: datetime, bound: Bound, grain: Grain
) -> TimeSpan:
    """The span as its bound reads it: since X starts where X starts, after X where it
    ends; before X ends where X starts, until X where it ends."""
    label = _label(text, start, end)
    first, last = {
        "since": (s, None),
        "after": (e, None),
        "before": (None, s),
        "until": (None, e),
    }.get(bound, (s, e))
    return TimeSpan(start, end, label, first, last, bound, True, grain, named=s)


def _event_spans(
    text: str,
    words: list[tuple[int, int, str]],
    language: str,
    events: Mapping[str, date] | None,
    found: list[TimeSpan],
) -> list[TimeSpan]:
    """ "before the launch", "nach dem Umzug": a bound followed (within two words) by an
    event a note title dates. A bound, an article and a name no title dates is recorded
    unresolved, its words kept: the client can say the filter was not applied."""
    keys = {_fold(" ".join(_WORD.findall(name))): day for name, day in (events or {}).items()}
    keys = {k: v for k, v in keys.items() if k}
    longest = max((len(k.split()) for k in keys), default=0)
    bounds = _BOUNDS[language]
    glue = _glue(language)
    out: list[TimeSpan] = []
    for i, (_, _, w) in enumerate(words):
        if w not in bounds or (bounds[w] == "in" and w not in _DURING):
            continue
        if any(f.start_pos <= words[i][0] < f.end_pos for f in found):
            continue
        span = _event_after(text, words, i, keys, longest, bounds[w], found)
        if span is None and i + 2 < len(words) and words[i + 1][2] in glue:
            name = words[i + 2]
            vocab = _vocabulary(language)
            if (
                name[2].isalpha()
                and name[2] not in glue
                and name[2] not in bounds
                and name[2] not in vocab.units
                and name[2] not in vocab.relative
            ):
                label = _label(text, words[i][0], name[1])
                span = TimeSpan(
                    words[i][0], name[1], label, None, None, bounds[w], False, "day", True
                )
        if span is not None:
            out.append(span)
    return out


_DURING = frozenset(("during", "durante", "während", "pendant"))


def _event_after(
    text: str,
    words: list[tuple[int, int, str]],
    i: int,
    keys: Mapping[str, date],
    longest: int,
    bound: Bound,
    found: list[TimeSpan],
) -> TimeSpan | None:
    for skip in (1, 2):
        for n in range(longest, 0, -1):
            chunk = words[i + skip : i + skip + n]
            if len(chunk) < n:
                continue
            key = " ".join(c[2] for c in chunk)
            if key in keys:
                s_pos, e_pos = words[i][0], chunk[-1][1]
                if any(f.start_pos < e_pos and s_pos < f.end_pos for f in found):
                    return None
                day = datetime.combine(_as_date(keys[key]), time(0))
                return _bounded(text, s_pos, e_pos, day, day + _STEP["day"], bound, "day")
    return None


def _as_date(value: date | datetime) -> date:
    return value.date() if isinstance(value, datetime) else value


# --- a question's window ---------------------------------------------------------------


def question_window(
    question: str,
    now: datetime,
    language: str = DEFAULT_LANGUAGE,
    events: Mapping[str, date] | None = None,
) -> tuple[TimeWindow | None, list[str], list[TimeSpan]]:
    """The window of time ``question`` asks about as of ``now`` (timezone-aware: its zone
    is the user's), the phrases that named no usable window, and every span read.

    A span that starts after today is unresolved: notes are never written in the
    future, so "next week" or "tomorrow" is a word of a plan a note states."""
    if now.tzinfo is None or now.utcoffset() is None:
        raise ValueError("now must be timezone-aware")
    zone = now.tzinfo
    local = now.replace(tzinfo=None)
    spans = read_times(question, local, language, ahead=False, events=events)
    tomorrow = datetime.combine(local.date() + timedelta(days=1), time(0))
    read: list[TimeSpan] = []
    for s in spans:
        if s.resolved and s.start is not None and s.start >= tomorrow:
            # "this Saturday" is a word of the plan a note states ("Sat 28 Mar v Rovers"):
            # its day is searched for; "tomorrow" or "next week" says nothing a note writes
            named = any(w.lower() in calendar_words(language) for w in _WORD.findall(s.text))
            s = dataclasses.replace(s, start=None, end=None, resolved=False, keep_words=named)
        read.append(s)
    window, unresolved = _intersect(read, zone)
    return window, unresolved, read


def _intersect(spans: list[TimeSpan], zone: tzinfo | None) -> tuple[TimeWindow | None, list[str]]:
    unresolved = [s.text for s in spans if not s.resolved]
    start: datetime | None = None
    end: datetime | None = None
    labels: list[str] = []
    # A date written with its year first: where two phrases cannot both hold ("last
    # Friday on 23 January, 2022" asked in November), the one the asker wrote out
    # states the time, not the one read against the moment of asking.
    for s in sorted(spans, key=lambda s: not _YEAR.search(s.text)):
        if not s.resolved:
            continue
        new_start = max((t for t in (start, s.start) if t is not None), default=None)
        new_end = min((t for t in (end, s.end) if t is not None), default=None)
        if labels and new_start is not None and new_end is not None and new_start >= new_end:
            unresolved.append(s.text)  # disjoint from what came before: keep the first
            continue
        start, end = new_start, new_end
        labels.append(s.text)
    if not labels:
        return None, unresolved
    zone = zone or UTC
    return (
        TimeWindow(
            None if start is None else start.replace(tzinfo=zone),
            None if end is None else end.replace(tzinfo=zone),
            " & ".join(labels),
        ),
        unresolved,
    )


# --- a note's dates ---------------------------------------------------------------------


def note_dates(
    text: str, written: datetime | date, language: str = DEFAULT_LANGUAGE
) -> list[TimeSpan]:
    """The dates ``text`` names, read as a note written on ``written`` (its local day):
    "next Tues", "Fri 21", "before Friday" are the days ahead they name."""
    moment = written if isinstance(written, datetime) else datetime.combine(written, time(12))
    return read_times(text, moment.replace(tzinfo=None), language, ahead=True)


@lru_cache(maxsize=8)
def _month_names_in(language: str) -> tuple[str, ...]:
    """Each month's full name in ``language``, January first (dateparser's data)."""
    info = _info(language)
    return tuple(max(info.get(k, (k,)), key=len) for k in _MONTH_KEYS)


@lru_cache(maxsize=8)
def _weekday_names_in(language: str) -> tuple[str, ...]:
    info = _info(language)
    return tuple(max(info.get(k, (k,)), key=len) for k in _WEEKDAY_KEYS)


def weekday_text(weekday: int, language: str = DEFAULT_LANGUAGE) -> str:
    """A weekday's full name (Monday 0), lowered, as ``weekday_names`` spells it."""
    code = supported_language(language) or DEFAULT_LANGUAGE
    return _fold(_weekday_names_in(code)[weekday])


def day_text(d: date, language: str = DEFAULT_LANGUAGE) -> str:
    """ "7 May 2023", "7 mayo 2023": day, month name, year, unambiguous in every locale."""
    if (supported_language(language) or DEFAULT_LANGUAGE) == DEFAULT_LANGUAGE:
        import calendar

        return f"{d.day} {calendar.month_name[d.month]} {d.year}"
    return f"{d.day} {_month_names_in(supported_language(language) or DEFAULT_LANGUAGE)[d.month - 1]} {d.year}"


def month_text(d: date, language: str = DEFAULT_LANGUAGE) -> str:
    """ "May 2023", "mayo 2023": a month as a person names it."""
    code = supported_language(language) or DEFAULT_LANGUAGE
    return f"{_month_names_in(code)[d.month - 1]} {d.year}"


def date_words(
    written: datetime | date,
    text: str = "",
    language: str = DEFAULT_LANGUAGE,
    spans: Sequence[TimeSpan] | None = None,
) -> str:
    """The note's date, and the dates its phrases name, as words: a claim "9 January
    2026" drawn from a note of 5 January that says "before Friday" is supported by it
    (citation checks read these words with the note's text). ``spans``: the text's
    dates, when the caller has read them already."""
    day = written.date() if isinstance(written, datetime) else written
    lang = supported_language(language) or DEFAULT_LANGUAGE
    named = []
    if spans is None:
        spans = note_dates(text, day, lang) if text else []
    for span in spans:
        if span.named is None:
            continue
        first = span.named.date()
        if span.grain == "year":  # "last year": "2022"
            named.append(str(first.year))
        elif span.grain == "month":  # "last month": "April 2023"
            named.append(f"{_month_names_in(lang)[first.month - 1].capitalize()} {first.year}")
        else:  # a day, or the week's first day
            named.append(f"{day_text(first, lang)} {first.isoformat()}")
    weekday = _weekday_names_in(lang)[day.weekday()].capitalize()
    return " ".join([day_text(day, lang), weekday, day.isoformat(), *named]).strip()


@lru_cache(maxsize=8)
def weekday_spellings(language: str = DEFAULT_LANGUAGE) -> dict[str, int]:
    """Every spelling dateparser knows of each weekday in ``language``, two-letter ones
    too ("Sa", "Di"), lowered and without a full stop: Monday 0. Where a note's day is
    not read as a date, a word of it may still name a weekday ("Training Sa 10 Uhr")."""
    info = _info(supported_language(language) or DEFAULT_LANGUAGE)
    return {_fold(w): i for i, k in enumerate(_WEEKDAY_KEYS) for w in info.get(k, ())}


def weekday_terms(text: str) -> list[str]:
    """The weekdays ``text`` writes short ("Wed – dentist", "Thurs" -> "wednesday",
    "thursday"), read word by word: indexed beside the words as written, so a question
    naming the day ("What am I doing on Wednesday?") finds the plan. A short form is
    three letters or more that begin one working day's name (the time reader's
    vocabulary); "sat" and "sun" are words as often as days."""
    days = [weekday_text(day) for day in range(_SATURDAY)]
    out: list[str] = []
    for w in text_words(text):
        if len(w) < _SHORT_DAY or not w.isalpha():
            continue
        named = [full for full in days if full.startswith(w) and full != w]
        if len(named) == 1:
            out.append(stem(named[0]))
    return out


_SATURDAY = 5
_SHORT_DAY = 3  # "tu", "we" and "fr" are words
