"""Grounding: whether a cited source states what a sentence of an answer claims.

A claim keeps its citation when the source supports it (its support score reaches the
grounder's threshold). This module is the pure core of the offline grounder, and the
memo through which an answer's sentences are each checked once:

The claim and each source are read in the language each is written in
(``language_of_text``, the reader's language as the prior).

* **What must agree** (``disagreement``): every number or amount the claim states is
  one the source states (number words as digits, by text2num), and a number written
  before a word the source counts too is one of the source's counts of it ("16 units"
  where it counts "18 units"); every date it names is one the source names, read by
  the project's date reader (``footnote.temporal``) against the note's date, so
  "Friday 9 January" agrees with "before Friday" in a note of 5 January; every name it
  gives (a capitalised word inside the sentence, not an acronym; in German, which
  capitalises its nouns too, a word a tagger reads as a proper noun) occurs in the source
  or is what an abbreviation there stands for ("pg": Postgres), none is a name only the
  answer's other sources give, and no clause names someone the source's restating
  clause does not where that clause names another person; and no clause negates what
  the source states plainly, or states plainly what it negates. A disagreement is no
  support.
* **What it says** (``support``): the larger of the share of the claim's content terms
  the source holds (stemmed as the claim's language, or the note's) and the embedding
  similarity of the claim to the source's best line, mapped onto [0, 1]. A claim citing
  several sources is also checked against what they state together.

No phrase of any language is read, beyond the closed class of negation words below
(per language, as stop words are). What this cannot see is the limit of a check
without a model: a detail added in new words ("not-in-note"), a reversal without a
negation word, a fact of another note phrased like this one's. Production asks the
Vertex AI Check Grounding API (``adapters.vertex_grounder``).

``LocalGrounder`` is the offline grounder (the port's offline implementation, as the
quote generator is the generator's): it reads each source's facts once (an LRU keyed
by the passage) and embeds the claim and the source's lines only when the terms alone
do not already show full support (a quoted line does).
"""

from __future__ import annotations

import logging
import math
import re
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field, fields, replace
from datetime import date, datetime, timedelta, tzinfo
from difflib import SequenceMatcher
from functools import lru_cache
from itertools import pairwise

from dateutil.relativedelta import relativedelta

from footnote import proper_nouns
from footnote.domain import Source
from footnote.errors import UPSTREAM_ERRORS
from footnote.ports import Embedder, Grounder
from footnote.temporal import (
    TimeSpan,
    calendar_words,
    date_words,
    month_names,
    note_dates,
    supported_language,
    weekday_names,
    weekday_spellings,
    weekdays_dated,
)
from footnote.text import (
    abbreviated,
    in_order,
    language_of_text,
    stop_words,
    terms,
    unaccented,
    words,
)

log = logging.getLogger(__name__)

# Negation words, per language: a closed class like the stop words (no phrase is read;
# a claim is compared with its source only on whether each negates).
NEGATIONS: dict[str, frozenset[str]] = {
    "en": frozenset("not no never none nobody nothing neither nor without cannot nowhere".split()),
    "es": frozenset("no nunca jamas ni sin ningun ninguno ninguna nada nadie tampoco".split()),
    "de": frozenset(
        "nicht kein keine keinen keinem keiner keines nie niemals ohne nichts niemand weder".split()
    ),
    "fr": frozenset("ne pas jamais aucun aucune sans rien personne ni".split()),
    "it": frozenset("non mai nessuno nessuna niente nulla senza ne".split()),
    "pt": frozenset("nao nunca jamais nenhum nenhuma nada ninguem sem nem".split()),
    "nl": frozenset("niet geen nooit niemand niets zonder noch".split()),
}
# English writes a negation into the verb ("didn't"); the word reader keeps it whole.
_CONTRACTED_NOT = ("n't", "n’t")

# A number as written: digits, with the separators of amounts, decimals and times.
_NUMBER = re.compile(r"(\d+(?:[.,:]\d+)*)(k(?![^\W\d_]))?", re.IGNORECASE)
# A word as written, with its case (names are told by it).
_CASED_WORD = re.compile(r"(?<![^\W_])[^\W\d_][^\W_]*")  # (whole: "KX7M2Q" is one word)
# Where a clause ends: a negation's reach ("Stage 6, not 10:00 anymore" negates the time).
_CLAUSE_END = re.compile(
    # (a full stop after a day, an initial or a short abbreviation ends no clause:
    # "am 24. Februar", "Dr. Albrecht", "9 a.m. Central Time")
    # (each mark is tried once, so a run of "!!!!" reads in linear time)
    # (a lowercase word of two letters is no title: "bin am 3.11. nicht da. Petra …")
    # (a clock time, an amount's sign or a bracket is no day: "de 6:00 a 12:00. Contrato
    # …", "nicht (Dienst). Kassenprüfung …")
    r"[;,!?()](?=\s|$)|(?<=[^\W\d_]{3})\.(?=\s|$)|(?<=\b[^\W\d_A-ZÀ-Þ]{2})\.(?=\s|$)"
    r"|(?<=\d:\d\d)\.(?=\s|$)|(?<=[%€$£¥)])\.(?=\s|$)"
    r"|\n|\s[–—-]{1,3}>?\s|->"
)
# A similarity below FLOOR says nothing; at CEILING and above it is full support.
SIMILARITY_FLOOR = 0.35
SIMILARITY_CEILING = 0.75


@dataclass(frozen=True)
class SourceFacts:
    """What a source states that a claim must agree with (read once per source)."""

    text: str  # the passage with its title
    lines: tuple[str, ...]  # its clauses
    line_terms: tuple[frozenset[str], ...]  # each clause's terms
    terms: frozenset[str]
    numbers: frozenset[str]
    words: frozenset[str]  # lowered, unaccented: where a name is looked up
    days: frozenset[date]  # the note's day, and the days its phrases name
    weekdays_named: frozenset[int]  # the weekdays a word of it names, by any spelling
    months_named: frozenset[int]  # the months a word of it names, by any spelling ("feb")
    digit_dates: frozenset[tuple[int, int]]  # days it writes in digits: (day, month)
    periods: tuple[tuple[date, date], ...]  # the spans its phrases name ([first, after))
    written: date
    negated_terms: frozenset[str]  # the terms it negates ("not on exam: eigenvalues")
    plain_terms: frozenset[str]  # the terms it states unnegated somewhere
    names: frozenset[str]  # its words capitalised inside a sentence: whom it names
    short_forms: frozenset[str]  # its abbreviations: "CT", "pg", "RR. HH." as "rrhh"
    # the numbers it writes before each word ("18 units am": units -> 18): what it counts
    counted: dict[str, frozenset[str]] = field(default_factory=dict, hash=False, compare=False)
    language: str = "en"  # the language it is written in: its terms are that language's
    reader: str = "en"  # the reader's language, in which an answer writes its dates
    # the words of its names that stand last or alone: a title ("Prof", "Aunt") only
    # ever stands before a name, and is no one's name
    named_alone: frozenset[str] = frozenset()
    acronyms: frozenset[str] = frozenset()  # its short forms written in capitals: "PT"
    full_names: frozenset[tuple[str, ...]] = frozenset()  # its names of several words
    # the spans of days and weeks its phrases name ("Oct 23-24", "before Fri", "by end
    # of next week"): a day in one is one it names; a month or a year ("Oct lunch")
    # names none of its days
    day_periods: tuple[tuple[date, date], ...] = ()


# The grains of a period whose days a claim may name: a range of days, a week ("by end
# of next week": Friday 21 November); not a month, whose day a note that names only
# the month never states.
_DAYS_OF = frozenset({"day", "week"})


def source_facts(source: Source, language: str, zone: tzinfo | None = None) -> SourceFacts:
    chunk = source.chunk
    text = chunk.titled_text
    written = chunk.created_at.astimezone(zone) if zone else chunk.created_at
    # read in the language it is written in (the reader's, unless it is plainly
    # another): its dates, negations and terms are that language's
    lang = supported_language(language_of_text(text, prior=language)) or "en"
    reader = supported_language(language) or "en"
    days = {written.date()}
    periods, day_periods = [], []
    spans = note_dates(text, written.replace(tzinfo=None), lang)
    for span in spans:
        if span.named is not None and span.grain == "day":
            days.add(span.named.date())
        if span.exact is not None:  # "in 3 wks": the day it lands on
            days.add(span.exact.date())
            # (and no other day of its week or month: "Kontrolle in 3 Monaten" written
            # on 24 March is 24 June, not the 23rd; a claim naming the month agrees)
        else:
            if span.start is not None and span.end is not None:
                period = (span.start.date(), span.end.date())
            elif span.named is not None:  # "from Oct", "before Friday": the period it names
                period = (span.named.date(), span.named.date() + timedelta(days=1))
            else:
                continue
            periods.append(period)
            if span.grain in _DAYS_OF:
                day_periods.append(period)
    # whom another claim's name may belong to (not read where nouns are capitalised,
    # whose claims are not checked for others' names)
    runs = [
        run
        for line in (text.splitlines() if lang not in _NOUNS_CAPITALISED else ())
        for run in claim_names(line, lang, initial=True)
    ]
    digits = with_digits(text, lang)  # (its number words as digits: "three hrs")
    numbers = set(_numbers(digits))
    for day in days:
        numbers.add(str(day.year))
    # the days its phrases name are numbers it states ("pasado mañana": 13, however the
    # answer writes the month); the day it was written is not ("£20" in a note of the 20th)
    numbers.update(str(day.day) for day in days - {written.date()})
    numbers.update(str(first.year) for first, _ in periods)  # "last yr" is 2025
    units = tuple(u.strip() for u in _CLAUSE_END.split(text) if u.strip())
    unit_terms = tuple(frozenset(terms(u, language=lang)) for u in units)
    negations = [negated(unit, lang) for unit in units]
    short_forms, acronyms = _short_forms(text)  # ("RR. HH." as "rrhh")
    return SourceFacts(
        text,
        units or (text,),
        unit_terms or (frozenset(terms(text, language=lang)),),
        # its terms, with its dates written out ("11 March 2026" heads a quoted note)
        frozenset(
            terms(
                f"{text}\n{digits}\n{date_words(written, text, lang, spans)}",
                language=lang,
            )
        )
        # and in the reader's language: a quote answer heads a Spanish note "7 December"
        | frozenset(terms(date_words(written, text, reader, spans), language=reader)),
        frozenset(numbers),
        frozenset(w for word in words(text) for w in (word, word.split("'")[0])),
        frozenset(days),
        _named(text, weekday_spellings(lang), lang),
        _named(text, month_names(lang), lang),
        frozenset(
            pair
            for m in _DIGIT_DATE.finditer(text)
            for pair in ((int(m[1]), int(m[2])), (int(m[2]), int(m[1])))
        ),
        tuple(periods),
        written.date(),
        frozenset().union(*negations),
        frozenset().union(*(t - n for t, n in zip(unit_terms, negations, strict=True))),
        frozenset(w for run in runs for w in run),
        frozenset(form for form in short_forms if form not in stop_words(lang)),
        _counted(digits, lang),
        lang,
        reader,
        frozenset(run[-1] for run in runs),
        acronyms,
        frozenset(run for run in runs if len(run) > 1),
        tuple(day_periods),
    )


# A word that may abbreviate a name: two to five letters ("pg", "CT"), or a run of
# dotted initials ("RR. HH.", "U.S.").
_SHORT_FORM = re.compile(
    r"(?<![^\W_])(?:[^\W\d_]{1,3}\.\s?){2,}|(?<![^\W_])[^\W\d_]{2,5}(?![^\W_])"
)


def _short_forms(text: str) -> tuple[frozenset[str], frozenset[str]]:
    """The words of ``text`` that may abbreviate a name, joined and lowered ("RR. HH.":
    "rrhh"): written in capitals ("CT", "LDS", "RR. HH."), or else without a vowel
    ("pg", "hr"); and those of them written in capitals. A short word in lower case that
    has a vowel is a word of the language to be read as itself ("ab", "dad", "mom"),
    whatever names its letters fall in."""
    forms, capitals = set(), set()
    for m in _SHORT_FORM.finditer(text):
        form = "".join(words(m.group(0)))
        if m.group(0).replace(".", "").replace(" ", "").isupper():
            capitals.add(form)
        elif _VOWELS & set(unaccented(form)):
            continue
        forms.add(form)
    return frozenset(forms), frozenset(capitals)


_VOWELS = frozenset("aeiouy")


def joined(every: Sequence[SourceFacts]) -> SourceFacts:
    """What several sources state together (the first one's day anchors the claim's
    dates)."""
    together: dict[str, object] = {}
    for name in (f.name for f in fields(SourceFacts)):
        values = [getattr(f, name) for f in every]
        if isinstance(values[0], frozenset):
            together[name] = frozenset().union(*values)
        elif isinstance(values[0], tuple):
            together[name] = tuple(x for value in values for x in value)
        elif isinstance(values[0], dict):
            keys = {k for value in values for k in value}
            together[name] = {k: frozenset().union(*(v.get(k, ()) for v in values)) for k in keys}
        else:
            together[name] = values[0]
    together["text"] = "\n".join(f.text for f in every)
    return SourceFacts(**together)  # type: ignore[arg-type]


# A day written in digits: "5.12.", "12/5", "05.12.2026".
_DIGIT_DATE = re.compile(r"(?<![\d.,:/])(\d{1,2})[./](\d{1,2})(?![\d,:])")


def _named(text: str, spellings: dict[str, int], language: str) -> frozenset[int]:
    """What the words of ``text`` name by ``spellings`` (weekdays, months), stop words
    aside (German "die", "mit" are no weekdays)."""
    stopped = stop_words(language)
    return frozenset(
        spellings[w]
        for w in (t.lower() for t in _CASED_WORD.findall(text))
        if w in spellings and "".join(words(w)) not in stopped
    )


# The languages text2num reads number words in ("five days" is "5 days").
_NUMBER_WORD_LANGUAGES = frozenset({"en", "es", "de", "fr", "pt", "nl", "it", "da"})


@lru_cache(maxsize=4096)
def with_digits(text: str, language: str) -> str:
    """``text`` with its number words written as digits ("three hours" as "3 hours",
    "tablas del siete" as "tablas del 7"), by text2num, so a number agrees however it
    is written. One and zero stay words: "one of them", "ein Tisch" count nothing."""
    if language not in _NUMBER_WORD_LANGUAGES:
        return text
    from text_to_num import alpha2digit

    try:
        converted = str(alpha2digit(text, language, threshold=2))
    except ValueError:  # (text2num refuses what it cannot read; the words stay)
        return text
    if converted == text:
        return text
    # keep each run of words text2num replaced only if it now reads 2 or more: it
    # reads "halb eins ein Tisch" as "halb 1 1 Tisch"
    before, after = text.split(), converted.split()
    out: list[str] = []
    for op, a, b, c, d in SequenceMatcher(None, before, after, autojunk=False).get_opcodes():
        pairs = (
            zip(before[a:b], after[c:d], strict=True)
            if b - a == d - c
            else [(" ".join(before[a:b]), " ".join(after[c:d]))]
        )
        for old, new in pairs:
            small = op != "equal" and any(_reads_below_two(n) for n in new.split())
            out.append(old if small else new)
    return " ".join(out)


def _reads_below_two(word: str) -> bool:
    digits = word.strip(",.;:!?()")
    return digits.isdigit() and int(digits) < 2


# A number and the word right after it ("18 units", "€160 powder", "3 Tage").
# (possessive, and never inside a number: a run of digits reads in linear time)
_COUNT = re.compile(
    r"(?<![\d.,:])(\d++(?:[.,:]\d++)*+)(k(?![^\W\d_]))?\s?([^\W\d_]+)", re.IGNORECASE
)


def _counts(text: str, language: str) -> list[tuple[str, frozenset[str]]]:
    """Each number written right before a content word: the word, and the number in
    each of its readings ("18 units": ("unit", {"18"}))."""
    return [
        (term, frozenset(_numbers(m.group(1) + (m.group(2) or ""))))
        for m in _COUNT.finditer(text)
        for term in terms(m.group(3), language=language)
    ]


def _counted(text: str, language: str) -> dict[str, frozenset[str]]:
    """Each content word written right after a number, and all the numbers written
    before it."""
    out: dict[str, frozenset[str]] = {}
    for term, numbers in _counts(text, language):
        out[term] = out.get(term, frozenset()) | numbers
    return out


def _numbers(text: str) -> list[str]:
    """Each number of ``text`` in its readings: "1,200" as 1200, "1,5" as 1.5, "7:30" as
    7 and 30 too, "20:30" as 8:30 too, "3k" as 3000, "3.120,00" as 3120 (a claim may
    write an amount or a time another way)."""
    out = []
    for m in _NUMBER.finditer(text):
        raw = m.group(1)
        parts = re.split(r"[.,:]", raw)
        values = [raw, str(int("".join(parts))), *(str(int(p)) for p in parts)]
        if len(parts) > 2 and not parts[-1].strip("0"):
            values += _numbers(raw[: -len(parts[-1]) - 1])  # (its zero cents: "3.120,00")
        if len(parts) == 2:
            values.append(f"{int(parts[0])}.{parts[1].rstrip('0') or '0'}")  # decimal comma
            hour = int(parts[0])
            if ":" in raw and 12 < hour < 24:  # a 24-hour time, as a 12-hour clock reads it
                values += [f"{hour - 12}:{parts[1]}", str(hour - 12)]
        if m.group(2):  # thousands, as notes shorten them
            values.append(str(round(float(values[-1] if len(parts) == 2 else values[1]) * 1000)))
        out.extend(values)
    return out


def negated(text: str, language: str) -> frozenset[str]:
    """The terms ``text`` negates: those within a few words of a negation word (after
    it; in German and Dutch, whose negation follows the verb, on both sides). Empty:
    nothing is negated."""
    cues = NEGATIONS.get(language, NEGATIONS["en"])
    scoped: list[str] = []
    # a negation reaches no word past its clause's end ("kann Samstag nicht (Dienst).
    # Kassenprüfung verschoben"); a comma parts a list it may negate whole ("no nuts,
    # dairy or eggs")
    # (nor into a bracketed aside: "13:00 geht doch nicht (Doppelbuchung)" gives the
    # reason, it does not negate it)
    for clause in (
        part for _, whole in _clauses(text, commas=False) for part in _ASIDE.split(whole)
    ):
        tokens = [t.lower() for t in _HYPHENATED.findall(clause)]
        for i, token in enumerate(tokens):
            # a hyphenated word is one ("no-show" negates nothing); English writes a
            # negation into its verb ("didn't")
            word = "".join(words(token))
            contracted = language == "en" and token.endswith(_CONTRACTED_NOT)
            if word in cues or contracted:
                before = tokens[max(0, i - _SCOPE_BEFORE) : i] if language in _VERB_FINAL else []
                scoped += before + tokens[i + 1 : i + 1 + _SCOPE] + ([token] if contracted else [])
    return frozenset(terms(" ".join(scoped), language=language))


_SCOPE = 3  # words a negation reaches
_ASIDE = re.compile(r"\s\(")  # where a bracketed aside opens
_SCOPE_BEFORE = 2  # in German and Dutch, the verb (and its adverb) before it
_VERB_FINAL = frozenset({"de", "nl"})
_HYPHENATED = re.compile(r"[^\W_]+(?:[-'’][^\W_]+)*")


# Languages that capitalise every noun: a capital inside a sentence names no one there.
_NOUNS_CAPITALISED = frozenset({"de"})


def claim_names(
    claim: str, language: str, initial: bool = False, reader: str | None = None
) -> list[tuple[str, ...]]:
    """The names a claim gives, each a run of words capitalised inside a sentence (not
    its first word, unless ``initial``; not a month or weekday of its language or the
    ``reader``'s, not a stop word), lowered and unaccented: "Kim Osei" is ("kim",
    "osei"). In a language that capitalises its nouns, the words a tagger reads as
    proper nouns, wherever they stand (``footnote.proper_nouns``); none where no
    tagger reads it."""
    if language in _NOUNS_CAPITALISED:
        if not proper_nouns.tagged(language):
            return []
        named = proper_nouns.proper_nouns(claim, language)
        initial = True
    calendar = calendar_words(language) | (calendar_words(reader) if reader else frozenset())
    stopped = stop_words(language)
    runs: list[list[str]] = []
    start, last_end = True, -2
    for m in _CASED_WORD.finditer(claim):
        word = m.group(0)
        if _titles(claim, m):
            start = False  # (the name after it is one, first in its sentence or not)
            continue  # a title's abbreviation ("Dr.", "Sra.") is no one's name
        before = claim[max(0, m.start() - 2) : m.start()]
        ended = any(c in before for c in "!?:\n") or (
            "." in before and not abbreviated(claim[: m.start()])
        )
        if (start or ended) and not initial:
            start = False
            continue
        start = False
        if language in _NOUNS_CAPITALISED and m.start() not in named:
            continue
        lowered = "".join(words(word))
        # (an acronym, all capitals, names a thing more often than a person, and a
        # model spells it out or translates it: "VAT" for "IVA")
        acronym = word.isupper()  # (and a letter alone: "4ºB", "direction B")
        # (a weekday's plural names no one: "Sundays", "sonntags")
        dated = lowered in calendar or (lowered.endswith("s") and lowered[:-1] in calendar)
        if word[0].isupper() and not acronym and not dated and lowered not in stopped:
            if runs and claim[last_end : m.start()].strip() == "":
                runs[-1].append(lowered)
            else:
                runs.append([lowered])
            last_end = m.end()
    return [tuple(run) for run in runs]


def disagreement(
    claim: str,
    facts: SourceFacts,
    language: str,
    known_names: frozenset[str] = frozenset(),
    full_names: frozenset[tuple[str, ...]] = frozenset(),
    given: frozenset[str] = frozenset(),
) -> str | None:
    """What the claim states that its source does not ("date", "number", "name",
    "negation"), or None when everything that must agree does. ``known_names``: the
    names the answer's other sources give; one the claim gives (in any place) and
    its source does not is another person's. ``full_names``: the names of several
    words they write ("Jordan Kim"): one of them is the source's person where the
    source writes part of it ("Jordan accepted"). ``given``: the words of the question
    the answer answers; a name among them is the user's, not the source's to state
    ("Was machen wir zu Leas Geburtstag?"); whom the source gives a role is checked
    still."""
    lang = supported_language(language) or "en"
    anchor = datetime.combine(facts.written, datetime.min.time()).replace(hour=12)
    # read clause by clause: "House 2025, 11 March 2026" names one day, not 11 March 2025;
    # a weekday and the day it names are one date across a comma ("Montag, den 13. April")
    clauses = _clauses(claim)
    read = [
        s
        for s in weekdays_dated(
            claim,
            [
                replace(s, start_pos=start + s.start_pos, end_pos=start + s.end_pos)
                for start, clause in clauses
                for s in note_dates(clause, anchor, lang)
            ],
            lang,
        )
        if s.resolved and s.named is not None and not _NOT_A_DATE.fullmatch(s.text)
    ]
    if any(_date_disagrees(span, facts, lang) for span in read):
        return "date"
    # the numbers of a date phrase were read as the date (blanked where each stands:
    # "April 1" is also inside "1 April 1949")
    blanked = claim
    for span in read:
        a, b = span.start_pos, span.end_pos
        blanked = blanked[:a] + " " * (b - a) + blanked[b:]
    if _misdated(blanked, read, facts, lang):
        return "date"
    undated = with_digits(blanked, lang)
    if not all(_number_agrees(m.group(1), m.group(2), facts) for m in _NUMBER.finditer(undated)):
        return "number"
    # (where a tagger reads names, only a claim with a capitalised word the source lacks
    # is tagged: a quoted line never is)
    unknown = lang not in _NOUNS_CAPITALISED or any(
        m.group(0)[0].isupper() and "".join(words(m.group(0))) not in facts.words
        for m in _CASED_WORD.finditer(claim)
    )
    runs = claim_names(claim, lang, reader=facts.reader) if unknown else []
    if not all(
        _name_agrees(name, facts)
        or set(name) <= given
        or any(_same_person(name, full, facts) for full in full_names)
        for name in runs
    ):
        return "name"
    if known_names and lang not in _NOUNS_CAPITALISED:
        capitalised = {
            "".join(words(m.group(0)))
            for m in _CASED_WORD.finditer(claim)
            if m.group(0)[0].isupper()
        }
        if any(
            w not in facts.words
            and w not in given
            and not any(_abbreviates(a, w) for a in facts.acronyms)
            and not any(_same_person((w,), full, facts) for full in full_names)
            for w in capitalised & known_names
        ):
            # (unless the note writes it as an acronym: "PT", Portuguese; or names the
            # same person by another part of the name)
            return "name"
    if lang not in _NOUNS_CAPITALISED and _misattributed(claim, runs, facts, lang):
        return "name"
    if any(
        word in facts.counted
        and not numbers & facts.counted[word]
        and not _elided(word, numbers, facts)
        for word, numbers in _counts(undated, lang)
    ):
        return "number"  # "16 units" where the note counts "18 units" (and 16 of another)
    # (its dates are checked as dates above: "(en 30 días: 20 diciembre 2025)" beside a
    # note's "si no paga en 30 días" states no payment)
    if any(_negation_disagrees(clause, facts, lang) for _, clause in _clauses(blanked)):
        return "negation"
    return None


def _elided(word: str, numbers: frozenset[str], facts: SourceFacts) -> bool:
    """The note writes the number on a line that counts ``word`` with another, its
    unit left out: "sube a 100 mg, el de la noche sigue en 50" counts 50 mg (not the 6
    of "Stage 6 lesson", which counts another word)."""
    if any(numbers & counted for other, counted in facts.counted.items() if other != word):
        return False
    return any(
        word in terms(line, language=facts.language) and numbers & set(_numbers(line))
        for line in facts.text.splitlines()
    )


def _misdated(undated: str, read: Sequence[TimeSpan], facts: SourceFacts, language: str) -> bool:
    """The claim gives an event a day the note names for something else, where the
    source's clause restating it dates it otherwise: "the next checkpoint was on 26
    February" where the note, written on the 26th, says "Next checkpoint tomorrow 2pm";
    "la próxima junta es el domingo 7 de junio" where 7 June is the market's and the
    note's "próxima junta" line says 10 June. A restating clause that names no day
    dates nothing. ``undated``: the claim with its dates (``read``) blanked."""
    days = {span.named.date() for span in read if span.named is not None and span.grain == "day"}
    if len(days) != 1 or not days <= facts.days:
        return False  # (a day the note never names is checked against those it does)
    shared = _restating(set(terms(undated, language=language)), facts)
    if shared is None:
        return False
    most = max(shared)
    # (the note read whole, each clause's days those of the phrases it overlaps: "am
    # Dienstag, 24. Februar" is one day across the comma that ends a clause)
    spans = _note_days(facts.text, facts.written, facts.language)

    def named(line: str) -> set[date]:
        at = facts.text.find(line)
        return {day for a, b, day in spans if at >= 0 and a < at + len(line) and at < b}

    for line, n in zip(facts.lines, shared, strict=True):
        if n < _RESTATES:
            continue
        its = named(line)
        if days & its:
            return False  # a clause that restates the claim names its day
        if n == most and not its:
            return False
    return True


@lru_cache(maxsize=1024)
def _note_days(text: str, written: date, language: str) -> tuple[tuple[int, int, date], ...]:
    """The days ``text`` names, each with where its phrase stands."""
    anchor = datetime.combine(written, datetime.min.time()).replace(hour=12)
    return tuple(
        (span.start_pos, span.end_pos, day.date())
        for span in note_dates(text, anchor, language)
        for day in (span.named if span.grain == "day" else None, span.exact)
        if day is not None
    )


def _clauses(text: str, commas: bool = True) -> list[tuple[int, str]]:
    """The clauses of ``text`` (split where ``_CLAUSE_END`` marks, at commas too unless
    ``commas`` is false), each with where it starts."""
    out, start = [], 0
    for m in _CLAUSE_END.finditer(text):
        if not commas and m.group(0) == ",":
            continue
        out.append((start, text[start : m.start()]))
        start = m.end()
    out.append((start, text[start:]))
    return out


# A "date" of digits and separators alone ("7.5", "3/4") is a number, checked as one.
_NOT_A_DATE = re.compile(r"[\d\s.,:/-]+")


def _name_agrees(name: tuple[str, ...], facts: SourceFacts) -> bool:
    """Each word of the name occurs in the source (as a word or its start: "Maria's"),
    or the name is what one of the source's abbreviations stands for ("Central Time":
    "CT", "Postgres": "pg", "Recursos Humanos": "RR. HH.")."""
    long_form = "".join(name)
    if any(_abbreviates(short, long_form) for short in facts.short_forms):
        return True
    return all(
        any(
            w.startswith(part)
            or (part.startswith(w) and len(w) > 3)
            or part == f"{w}s"  # (a genitive without an apostrophe: "Leas Geburtstag")
            for w in facts.words
        )
        for part in name
    )


def _same_person(name: tuple[str, ...], full: tuple[str, ...], facts: SourceFacts) -> bool:
    """The claim's ``name`` is part of a ``full`` name another source writes, and the
    source writes another part of it: "Kim" (of "Jordan Kim") where it says "Jordan"."""
    return set(name) <= set(full) and any(
        w.startswith(part) for part in set(full) - set(name) for w in facts.words
    )


def _abbreviates(short: str, long_form: str) -> bool:
    """``short`` is an abbreviation of ``long_form``, as Schwartz and Hearst (2003) match
    a short form to its long form: it starts with the long form's first letter, its
    letters occur in order in it, and it is about half as long at most ("LDS" for
    Leeds, not "lea" for Lena). A doubled letter
    ("RR. HH.", "EE. UU.") marks a plural and counts once."""
    if len(short) < 2 or short[0] != long_form[0]:
        return False
    for form in {short, re.sub(r"(.)\1", r"\1", short)}:
        if 2 * len(form) > len(long_form) + 1:
            continue
        if in_order(form, long_form):
            return True
    return False


def _number_agrees(raw: str, thousands: str | None, facts: SourceFacts) -> bool:
    """The source states the number: as written, as one value ("1,200", "1,5"), or
    each of its parts ("7:30" where the note says 7 and 30)."""
    readings = set(_numbers(raw + (thousands or "")))
    parts = re.split(r"[.,:]", raw)
    if len(parts) > 1 and not parts[-1].strip("0"):
        # "10:00" is the note's "10" (written alone: not the 10 of "10:30"), "3.120,00 €"
        # its "3.120 €", "$5.00" its "$5"
        bare = raw[: -len(parts[-1]) - 1]
        if ":" in raw:
            if re.search(rf"(?<![\d.,:]){int(bare)}(?![\d]|[.,:]\d)", facts.text):
                return True
        elif _number_agrees(bare, thousands, facts):
            return True
    whole = readings - {str(int(p)) for p in parts} if len(parts) > 1 else readings
    # (parts alone only for a time: "9,600" is not 9 and the 600 of "1,600")
    return bool(whole & facts.numbers) or (
        ":" in raw and all(str(int(p)) in facts.numbers for p in parts)
    )


def _date_disagrees(span: TimeSpan, facts: SourceFacts, language: str) -> bool:
    assert span.named is not None
    first = span.named.date()
    counted = _counts(with_digits(span.text, language), language)
    if counted and all(n & facts.counted.get(term, frozenset()) for term, n in counted):
        return False  # "in 1 year" where the note says "next review 1 year": its duration
    if span.grain == "day":
        if first in facts.days or any(a <= first < b for a, b in facts.day_periods):
            return False
        # "Tuesday, 13 April" of a Monday 13 April is read in the year it is a Tuesday:
        # that day is no 13 April the note names, in any year or in digits
        moved = bool(_named(span.text, weekday_names(language), language)) and (
            _nearest(first, facts.written) != first
        )
        if (
            not _YEAR.search(span.text)
            and not moved
            and (first.month, first.day) in {(d.month, d.day) for d in facts.days}
        ):
            return False  # "6 April" is the note's 6 April, whichever year it reads
        if not moved and (first.day, first.month) in facts.digit_dates:
            return False  # the note writes it in digits ("5.12.")
        if (
            first.weekday() in facts.weekdays_named
            and abs((first - facts.written).days) <= 7
            and first.weekday() not in {d.weekday() for d in facts.days - {facts.written}}
        ):
            # the note names its weekday ("Sa 10 Uhr") but no day of it was read: the
            # week around the note
            return False
        if not any(ch.isdigit() for ch in span.text):
            # "on Friday": the note's Friday, whichever week it reads
            return first.weekday() not in {d.weekday() for d in facts.days}
        return True
    if span.grain == "month" and not _YEAR.search(span.text):
        # "in January": the note's January, whichever year it reads
        return (
            first.month
            not in {d.month for d in facts.days}
            | {a.month for a, _ in facts.periods}
            | facts.months_named
        )
    # the period the phrase names, whatever its bound ("after October 2005": October)
    end = first + _GRAIN_STEP.get(span.grain, timedelta(days=1))
    return not (
        any(first <= d < end for d in facts.days)
        or any(a < end and first < b for a, b in facts.periods)
        # a year the note writes as a bare number ("cuentas 2025: ...")
        or (span.grain == "year" and str(first.year) in facts.numbers)
    )


def _nearest(day: date, written: date) -> date:
    """``day``'s month and day in the year that puts it nearest ``written``."""
    near = []
    for year in (written.year - 1, written.year, written.year + 1):
        try:
            near.append(day.replace(year=year))
        except ValueError:  # 29 February
            continue
    return min(near, key=lambda d: abs(d - written), default=day)


_GRAIN_STEP = {
    "week": relativedelta(weeks=1),
    "month": relativedelta(months=1),
    "year": relativedelta(years=1),
}


_YEAR = re.compile(r"\d{4}")


def _negation_disagrees(clause: str, facts: SourceFacts, language: str) -> bool:
    """The clause negates what the source states plainly, or states plainly what the
    source negates ("Inès came" / "Inès couldn't come")."""
    ours = negated(clause, language)
    if ours:  # what it negates, the source states, and nowhere negates
        return bool(ours & facts.plain_terms) and not ours & facts.negated_terms
    theirs = facts.negated_terms - facts.plain_terms
    said = set(terms(clause, language=language))
    hit = theirs & said
    if hit and all(t[:1].isdigit() for t in hit):
        # the note's correction, told with both its values ("$1,240 instead of $1,260"
        # where the note says "$1,240/wk (not 1,260)"): a number it negates beside one
        # it states
        plain = {t for t in said - hit if t[:1].isdigit() and t in facts.plain_terms}
        return not plain - facts.negated_terms
    return bool(hit)


def _misattributed(
    claim: str, named: Sequence[tuple[str, ...]], facts: SourceFacts, language: str
) -> bool:
    """A clause of the claim gives a person what the source gives another: the source's
    clauses that restate it best (most shared terms, names aside) name someone, not
    the claim's person ("Tariq asked how I'd measure success" where the note says "Jess
    asked how I'd measure success"). A restating clause that names no one attributes
    nothing (a note's heading may name the person: "Call w/ Priya:" over its lines); a
    clause after a line's label is the labelled person's too ("Léa: 5 stars, the geese
    essay is her fav"). A claim's clause that names several people joins as many
    facts ("Dev makes the flashcards and Luis has the exams"): the source's clause
    restates one of them. ``named``: the names the claim gives (``claim_names``)."""
    said = _said(claim)
    runs = list(named)
    first = _CASED_WORD.search(claim)
    if first is not None and first.group(0)[0].isupper():
        lowered = "".join(words(first.group(0)))
        if lowered in facts.names:  # (a sentence's first word is a name the note gives)
            runs.append((lowered,))
    names = {w for run in runs for w in run}
    if not names:
        return False
    for clause in _CLAUSE_END.split(claim):
        own = names & set(words(clause))
        if not own:
            continue
        wanted = set(terms(_untitled(clause), language=language)) - set(
            terms(" ".join(own), language=language)
        )
        joined = sum(1 for run in runs if set(run) & own)
        shared = _restating(wanted, facts, joined)
        lines = facts.lines
        if shared is None:
            # no clause restates it; two a comma joins may ("Manoli me pide reducir
            # jornada, tiene que cuidar a su madre": the request and its reason)
            lines, shared = _comma_joined(wanted, facts, joined)
        if shared is None:
            continue  # no clause of the source restates it: nothing to attribute
        most = max(shared)
        best = [lines[i] for i, n in enumerate(shared) if n == most]
        if own <= {w for line in best for w in words(line)}:
            continue  # (each of the clause's people is one the source's clause names)
        others = {
            run
            for line in best
            for run in (
                claim_names(line, language, initial=True)
                + claim_names(_head(line, facts.text), language, initial=True)
            )
            if not set(run) & said
        }
        if others:
            return True
    return False


def _said(text: str) -> frozenset[str]:
    """The words ``text`` writes, each also without its possessive ("Theo's", "Mum's")."""
    return frozenset(part for w in words(text) for part in (w, w.split("'")[0]))


# A source clause restates the claim's when it shares two of its terms (names aside),
# and half of them at least.
_RESTATES = 2


def _restating(wanted: set[str], facts: SourceFacts, facts_joined: int = 1) -> list[int] | None:
    """How many of ``wanted`` (a claim's clause's terms) each of the source's clauses
    shares, when one restates the clause (``_RESTATES`` of them, and half at least; a
    clause that joins ``facts_joined`` facts, one naming several people, that share of
    half); None when none does."""
    return _restated_by(wanted, facts.line_terms, facts_joined)


def _restated_by(
    wanted: set[str], clause_terms: Sequence[frozenset[str]], facts_joined: int
) -> list[int] | None:
    """How many of ``wanted`` each clause's terms share, when one restates it (see
    ``_restating``); None when none does."""
    shared = [len(wanted & t) for t in clause_terms]
    most = max(shared, default=0)
    if most < _RESTATES or 2 * most * facts_joined < len(wanted):
        return None
    return shared


def _comma_joined(
    wanted: set[str], facts: SourceFacts, facts_joined: int
) -> tuple[tuple[str, ...], list[int] | None]:
    """The source's pairs of clauses a comma or a semicolon joins, each as the line of
    the source that holds it (whom that line names, it may be given to), and how many
    of ``wanted`` each shares when one restates it (as ``_restating``)."""
    text = facts.text
    pairs = []
    for (a, ta), (b, tb) in pairwise(zip(facts.lines, facts.line_terms, strict=True)):
        m = re.search(re.escape(a) + r"\s*[,;]\s*" + re.escape(b), text)
        if m is not None:
            end = text.find("\n", m.end())
            pairs.append(
                (text[text.rfind("\n", 0, m.start()) + 1 : end if end >= 0 else None], ta | tb)
            )
    shared = _restated_by(wanted, [t for _, t in pairs], facts_joined)
    return (tuple(line for line, _ in pairs), shared) if shared is not None else ((), None)


def _untitled(text: str) -> str:
    """``text`` without its titles' abbreviations ("Dr.", "Sra."): they say who, not what."""
    return _CASED_WORD.sub(lambda m: "" if _titles(text, m) else m.group(0), text)


def _titles(text: str, word: re.Match[str]) -> bool:
    """The ``word`` of ``text`` is a title's abbreviation ("Dr.", "Sra."): a full stop
    follows it that ends no sentence (``text.abbreviated``)."""
    return text.startswith(".", word.end()) and abbreviated(text[: word.end() + 1])


def _head(clause: str, text: str) -> str:
    """The label heading the line of ``text`` that holds ``clause``, when the clause
    follows it: "Léa" for "the geese essay is her fav" in "Léa: 5 stars, the geese
    essay is her fav"."""
    for line in text.splitlines():
        at, colon = line.find(clause), line.find(":")
        if at >= 0:
            return line[:colon] if 0 <= colon < at else ""
    return ""


def lexical_support(claim: str, facts: SourceFacts, language: str) -> float:
    """Share of the claim's content terms the source holds (a claim with none states
    nothing a source could contradict: full support)."""
    lang = supported_language(language) or "en"
    digits = with_digits(claim, lang)
    wanted = set(terms(digits, language=lang))
    if not wanted:
        return 1.0
    if facts.language == lang or wanted <= facts.terms:
        return len(wanted & facts.terms) / len(wanted)
    # a claim may quote the note's own words ("Dentista, 7 December 2026" heads a
    # Spanish note quoted to an English reader): a word holds as either language
    # stems it
    stems = [
        set(terms(word, language=lang)) | set(terms(word, language=facts.language))
        for word in _HYPHENATED.findall(digits)
        if terms(word, language=lang)
    ]
    return sum(1 for s in stems if s & facts.terms) / len(stems) if stems else 1.0


def similarity_support(similarity: float) -> float:
    """An embedding cosine as support: 0 at the floor, 1 at the ceiling."""
    span = SIMILARITY_CEILING - SIMILARITY_FLOOR
    return min(1.0, max(0.0, (similarity - SIMILARITY_FLOOR) / span))


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=False))
    norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return dot / norm if norm else 0.0


class ClaimChecks:
    """An answer's grounding, each claim checked once: a streamed sentence, the whole
    answer validated after it and a regenerated draft all read the same memo.

    When the grounder fails (a remote API), this and the answer's later claims are
    checked by ``fallback``, the offline grounder, against its own threshold, and
    ``failed`` is set (the answer's meta reports it)."""

    def __init__(
        self,
        grounder: Grounder,
        language: str = "en",
        zone: tzinfo | None = None,
        fallback: Grounder | None = None,
        sources: Sequence[Source] = (),
        asked: str = "",
    ) -> None:
        self._grounder = grounder
        self._sources = tuple(sources)  # all the answer's sources
        self._asked = asked  # the question the answer answers
        self._fallback = fallback
        self.language = language
        self.zone = zone
        # (claim, cids) -> (support per cid, the threshold of the grounder that scored it)
        self._memo: dict[tuple[str, tuple[str, ...]], tuple[dict[str, float], float]] = {}
        self.calls = 0  # claims checked: one per distinct claim and sources cited
        self.failed = False

    def scores(self, claim: str, sources: Sequence[Source]) -> dict[str, float]:
        """Each source's support for ``claim`` (by citation id), in [0, 1]."""
        return self._checked(claim, sources)[0]

    def kept(self, claim: str, sources: Sequence[Source]) -> dict[str, float]:
        """The sources that support ``claim`` enough to stay cited, with their support."""
        scores, threshold = self._checked(claim, sources)
        return {cid: v for cid, v in scores.items() if v >= threshold}

    def best(self) -> float:
        """The highest support any source lent any claim checked (0 with none)."""
        return max((v for scores, _ in self._memo.values() for v in scores.values()), default=0.0)

    def _checked(self, claim: str, sources: Sequence[Source]) -> tuple[dict[str, float], float]:
        key = (" ".join(claim.split()), tuple(s.cid for s in sources))
        hit = self._memo.get(key)
        if hit is None:
            self.calls += 1
            grounder, values = self._support(key[0], sources)
            hit = (
                {s.cid: round(v, 4) for s, v in zip(sources, values, strict=True)},
                grounder.threshold,
            )
            self._memo[key] = hit
        return hit

    def _support(self, claim: str, sources: Sequence[Source]) -> tuple[Grounder, list[float]]:
        if not sources:
            return self._grounder, []
        if not self.failed or self._fallback is None:
            try:
                values = self._grounder.support(
                    claim, sources, self.language, self.zone, self._others(sources), self._asked
                )
                return self._grounder, values
            except UPSTREAM_ERRORS as exc:
                if self._fallback is None:
                    raise
                log.warning("grounder failed (%s); checking offline", type(exc).__name__)
                self.failed = True
        fallback = self._fallback
        assert fallback is not None
        others = self._others(sources)
        return fallback, fallback.support(
            claim, sources, self.language, self.zone, others, self._asked
        )

    def _others(self, cited: Sequence[Source]) -> tuple[Source, ...]:
        ids = {s.chunk.chunk_id for s in cited}
        return tuple(s for s in self._sources if s.chunk.chunk_id not in ids)


class LocalGrounder:
    name = "local"

    def __init__(self, embedder: Embedder | None = None, threshold: float = 0.4) -> None:
        # Without an embedder (the fallback while a remote model is failing), support
        # is the terms' alone.
        self._embedder = embedder
        self.threshold = threshold

    def support(
        self,
        claim: str,
        sources: Sequence[Source],
        language: str,
        zone: tzinfo | None,
        others: Sequence[Source] = (),
        asked: str = "",
    ) -> list[float]:
        known = frozenset().union(*(_facts(o, language, zone).named_alone for o in others))
        # (a name the question gives is the user's word, the answer's to repeat)
        given = _said(asked)
        full = frozenset().union(*(_facts(o, language, zone).full_names for o in others))
        every = [_facts(source, language, zone) for source in sources]
        # the claim, in the language it is written in (an answer may not be in the
        # reader's language, nor in its notes')
        language = language_of_text(claim, prior=language)
        scores = [self._score(claim, facts, language, known, full, given) for facts in every]
        if len(every) > 1 and max(scores) < self.threshold:
            # A sentence citing several notes may join what each states ("You and Aoife
            # gave €300": one note names Aoife, the other the €300): the notes
            # together support it, and each that states part of it lends that support.
            together = self._score(claim, joined(every), language, known, full, given)
            if together >= self.threshold:
                return [
                    together if lexical_support(claim, facts, language) > 0 else score
                    for facts, score in zip(every, scores, strict=True)
                ]
        return scores

    def _score(
        self,
        claim: str,
        facts: SourceFacts,
        language: str,
        known: frozenset[str],
        full: frozenset[tuple[str, ...]] = frozenset(),
        given: frozenset[str] = frozenset(),
    ) -> float:
        if disagreement(claim, facts, language, known, full, given) is not None:
            return 0.0
        lexical = lexical_support(claim, facts, language)
        if lexical < 1.0 and self._embedder is not None:
            lexical = max(lexical, similarity_support(self._similarity(claim, facts)))
        return lexical

    def _similarity(self, claim: str, facts: SourceFacts) -> float:
        """The claim's embedding cosine with the source's closest line (or whole text)."""
        assert self._embedder is not None
        texts = [claim, facts.text, *facts.lines]
        first, *rest = self._embedder.embed_documents(texts)
        return max(cosine(first, v) for v in rest)


_FACTS_KEPT = 1024
_facts_seen: OrderedDict[tuple[object, ...], SourceFacts] = OrderedDict()


def _facts(source: Source, language: str, zone: tzinfo | None) -> SourceFacts:
    """A source's facts, read once per passage, language and zone (a bounded LRU)."""
    chunk = source.chunk
    key = (chunk.chunk_id, chunk.text, chunk.title, chunk.created_at, language, zone)
    facts = _facts_seen.get(key)
    if facts is None:
        facts = _facts_seen[key] = source_facts(source, language, zone)
        if len(_facts_seen) > _FACTS_KEPT:
            _facts_seen.popitem(last=False)
    else:
        _facts_seen.move_to_end(key)
    return facts
