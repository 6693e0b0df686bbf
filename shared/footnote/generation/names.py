"""What a question names, and whether the notes name it too.

Notes on the same topic share a question's common words; only its names (runs of
capitalised words or numbers) tell whether they are about the thing asked.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from footnote.domain import QueryAnalysis, Source
from footnote.query.acronyms import spelled_out
from footnote.query.time_anchors import MONTHS, WEEKDAYS
from footnote.text import QUERY_FILLER, STOPWORDS, terms
from footnote.text import spelled_out as shorthand

# A capitalised first word is a name only if it is not one of these openers.
_OPENERS = frozenset(
    {
        "summarize",
        "summarise",
        "describe",
        "explain",
        "compare",
        "name",
        "list",
        "who",
        "what",
        "which",
        "when",
        "where",
        "why",
        "how",
        "is",
        "are",
        "was",
        "were",
        "did",
        "do",
        "does",
        # a question may open with a relative word or a preposition: "Whose birthday…",
        # "According to Gina, …", "Based on Tim's collections, …", "Around which holiday…"
        "whose",
        "whom",
        "according",
        "based",
        "around",
        "since",
        "besides",
        "considering",
        "given",
        "apart",
        "aside",
    }
)
# Dates are matched against a note's date, not its text: the month and day names time
# anchors read ("Oct", "Sept", "January"), the days as notes write them short ("Sat Oct
# 10"), and holidays, which are days of the calendar too, written as often "Xmas" or "the
# 24th".
CALENDAR_DAYS = frozenset(
    {*MONTHS, *WEEKDAYS, *"mon tue tues wed thu thur thurs fri sat sun".split()}
)
CALENDAR = CALENDAR_DAYS | frozenset(
    "christmas xmas eve easter halloween thanksgiving hanukkah diwali ramadan eid".split()
)
# Words written in capitals that ask for a value rather than name a thing.
_VALUE_WORDS = frozenset({"id", "pin", "no", "ref", "po", "dob"})
TOKEN = re.compile(r"[^\W_]+(?:['’][^\W_]+)*|[^\w\s]")


def name_phrases(question: str, analysis: QueryAnalysis | None = None) -> list[tuple[str, ...]]:
    """What the question names: runs of capitalised words or numbers, as stemmed terms.

    "Who founded Kaiser Ventures in 1941?" names ("kaiser", "ventur") and ("1941",).
    A capitalised first word counts unless it is a question word or command
    ("Why", "Summarize"); month and day names, and numbers and the words of the
    time phrase when the question has a date window ("in Q3"), are left to the
    date filter. A question without a
    lowercase word (TITLE CASE, CAPITALS) names nothing: its capitals say nothing.
    """
    tokens = TOKEN.findall(question)
    if not any(t[:1].islower() for t in tokens):
        return []
    window = analysis.window if analysis is not None else None
    dated = set(TOKEN.findall(window.label.lower())) if window is not None else set()
    phrases: list[tuple[str, ...]] = []
    run: list[str] = []

    def flush() -> None:
        while run and not run[-1][:1].isalnum():
            run.pop()
        phrase = tuple(terms(" ".join(run)))
        if phrase and phrase not in phrases:
            phrases.append(phrase)
        run.clear()

    for i, token in enumerate(tokens):
        low = token.lower()
        name = token[:1].isupper() or token[:1].isdigit()
        if token == "I" or low in CALENDAR or low.removesuffix("s") in CALENDAR:
            name = False
        if i == 0 and low in _OPENERS | STOPWORDS | QUERY_FILLER:
            name = False
        if window is not None and (token[:1].isdigit() or low in dated):
            name = False  # "in Q3 2025" became the date window
        if name and low in _VALUE_WORDS:
            name = False  # "What's my Skyrizi Complete ID number?": ID asks, names nothing
        if name and token.isdigit() and len(token) < 3:
            # "Theo's 4 year check": a small count is a quantity, written "4yr" or "four"
            # as often as "4"; a year or a code (3+ digits) still names something.
            name = False
        if name and run and token[:1].isdigit() != run[-1][:1].isdigit():
            flush()  # "Kaiser 1941": a name and a number are two things named
        if name and low.endswith(("'s", "’s")):
            # "Dad's BP check": the owner and the thing are two names, each held apart
            run.append(token)
            flush()
        elif name:
            run.append(token)
        elif run and token in "-–'’":
            run.append(token)  # "All-Star", "Rabat-Salé"
        else:
            flush()
    flush()
    return phrases


def missing_names(
    question: str,
    sources: Sequence[Source],
    analysis: QueryAnalysis | None = None,
    people: Sequence[str] = (),
) -> list[tuple[str, ...]]:
    """Names of the question that no source (text, title or tags) contains, as a phrase,
    nor ``people`` (names held otherwise: those who speak in the notes).

    Notes on the same topic share the question's common words; only the names
    tell whether they are about the thing asked. A name found nowhere means the
    notes cannot answer, whatever else they share with the question.
    """
    # (a chunk's stored terms end with its note's tags: a note tagged "hannah-rob" is
    # about Hannah and Rob, though its text says "H&R")
    texts = [terms(s.chunk.text) for s in sources] + [terms(s.chunk.title) for s in sources]
    # and as its shorthand reads: "Flinders Ln" holds "Flinders Lane"
    texts += [shorthand(terms(s.chunk.text), s.chunk.text) for s in sources]
    texts += [list(s.chunk.terms) for s in sources] + [terms(p) for p in people]
    # "Hole in the Wall" is held by a note that writes "HITW"
    abbreviated = frozenset(
        t
        for letters, words in spelled_out(question)
        if any(letters in held for held in texts)
        for t in words
    )
    return [
        p
        for p in name_phrases(question, analysis)
        if not holds_name(texts, p) and not set(p) <= abbreviated
    ]


def titles_named(question: str, sources: Sequence[Source]) -> frozenset[str]:
    """Citation ids of the sources whose note title the question contains.

    A title's closing parenthesis qualifies it ("Revolver (magazine)", "Dinner (Sat)"):
    the question names the note by what comes before it."""
    asked = terms(question)
    return frozenset(
        s.cid
        for s in sources
        if (title := tuple(terms(_QUALIFIER.sub("", s.chunk.title)))) and _has_phrase(asked, title)
    )


_QUALIFIER = re.compile(r"\s*\([^()]*\)\s*$")


def _has_phrase(seq: Sequence[str], phrase: tuple[str, ...]) -> bool:
    n = len(phrase)
    return any(tuple(seq[i : i + n]) == phrase for i in range(len(seq) - n + 1))


# A place's adjective is its name: "Australian" is held by "South Australia",
# "American" by "America" (a name of at least this many letters, then "n").
_DEMONYM_STEM = 6


def holds_name(texts: Sequence[Sequence[str]], phrase: tuple[str, ...]) -> bool:
    """Whether one of ``texts`` (terms) holds the name ``phrase`` (terms)."""
    if any(_has_phrase(t, phrase) for t in texts):
        return True
    if len(phrase) != 1 or not phrase[0].endswith("n") or len(phrase[0]) <= _DEMONYM_STEM:
        return False
    place = phrase[0][:-1]
    return any(place in t for t in texts)
