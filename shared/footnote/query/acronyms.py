"""A name the question spells out that the notes write as its initials.

"How much did we get from the door at Hole in the Wall?" over a note that says "HITW
recap: door split $148": people shorten the names they write often. A run of
capitalised words in the question ("Hole in the Wall", "Think Tank Museum"), small
joining words included, has initials; when the tenant's notes hold them as a word
("hitw"), that word is searched for too. Pure: the notes' vocabulary is a predicate.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable

from footnote.domain import QueryAnalysis
from footnote.text import stem, terms

# Capitalised words, joined by small words ("Hole in the Wall", "Bank of America").
_RUN = re.compile(
    r"\b[A-Z][\w'’-]*(?:\s+(?:(?:in|the|of|and|on|at|for|de|la|du|&)\s+)*[A-Z][\w'’-]*)+"
)
_SMALL = frozenset({"in", "the", "of", "and", "on", "at", "for", "de", "la", "du", "&"})
MIN_LETTERS = 3  # "NY" for "New York" is as often another word
# A word and its number, written by its initial: "season 3" as "S3", "year 10" as "Y10",
# "period 2" as "P2".
_NUMBERED = re.compile(r"\b([A-Za-z])[a-z]+\s+(\d{1,3})\b")


def initials(question: str) -> list[str]:
    """The initials of each run of capitalised words: of every word ("hitw"), and of the
    capitalised ones alone when they differ ("hw")."""
    return list(dict.fromkeys(letters for letters, _ in spelled_out(question)))


def spelled_out(question: str) -> list[tuple[str, frozenset[str]]]:
    """Each run of capitalised words as (its initials, the terms of its words)."""
    found: list[tuple[str, frozenset[str]]] = []
    for m in _RUN.finditer(question):
        words = m.group(0).split()
        if m.start() == 0 and len(words) > 1 and words[0].lower() in {"what", "who", "when"}:
            words = words[1:]
        every = "".join(w[0] for w in words).lower()
        capitals = "".join(w[0] for w in words if w.lower() not in _SMALL).lower()
        for letters in dict.fromkeys((every, capitals)):
            if len(letters) >= MIN_LETTERS:
                found.append((letters, frozenset(terms(" ".join(words)))))
    for m in _NUMBERED.finditer(question):
        found.append((f"{m[1]}{m[2]}".lower(), frozenset(terms(m.group(0)))))
    return found


def with_initials(analysis: QueryAnalysis, known: Callable[[str], bool]) -> QueryAnalysis:
    """``analysis`` with the initials of the names it spells out that the notes hold as a
    word (``known``, of a stemmed term) added to its keywords."""
    extra = [
        t
        for t in (stem(letters) for letters in initials(analysis.original))
        if t not in analysis.keywords and known(t)
    ]
    if not extra:
        return analysis
    return dataclasses.replace(analysis, keywords=(*analysis.keywords, *extra))
