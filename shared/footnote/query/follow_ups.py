"""Follow-up questions in a conversation: when one needs the previous to be read.

"And in June?", "What about Melanie?", "When did she go there?" cannot be
answered alone: ``is_follow_up`` tells them apart and ``with_previous`` makes
them standalone from the question before; ``as_stated`` keeps, of what it
inherited, the words the passages it is read in hold. Pure functions of their
arguments.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Collection

from footnote.domain import QueryAnalysis
from footnote.query.time_anchors import MONTHS, WEEKDAYS
from footnote.text import normalize, terms

__all__ = ["as_stated", "is_follow_up", "names_someone", "with_previous"]

_FOLLOW_UP_OPENER = re.compile(
    r"^\W*(?:and|but|also|so|then|what\s+about|how\s+about|and\s+what|what\s+else|"
    r"after\s+that|before\s+that|anything\s+else)\b"
)
_BACK_REFERENCE = re.compile(
    r"\b(?:he|she|they|him|her|them|his|hers|their|theirs|it|its|that|those|these|"
    r"there|then|the\s+same)\b"
)
_CAPITALISED = re.compile(r"(?<!^)(?<![.?!]\s)\b[A-Z][a-z]+")


def names_someone(text: str) -> bool:
    """A capitalised word after the first: a name ("What about Melanie?")."""
    return any(
        w.lower() not in MONTHS and w.lower() not in WEEKDAYS
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
    # Asked inside a conversation, a short question naming no one ("what time is
    # check-in?" after one about the guesthouse) leans on the one before: it keeps its
    # own words first and only adds the earlier subject.
    return len(analysis.keywords) <= 2 and not names_something


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


def as_stated(
    analysis: QueryAnalysis, inherited: Collection[str], stated: Collection[str]
) -> QueryAnalysis:
    """A follow-up's keywords without the ``inherited`` ones (the previous question's)
    that the passages it is read in do not hold (``stated``: their terms).

    The previous answer found its subject in those passages; a word of the previous
    question none of them holds is not how they state it ("anniversary" and "cost" in
    "How much did the anniversary dinner at Lucca cost?", whose note says "Lucca:
    dinner for 2, 148 euros, booked for 8pm"), and a sentence would still be held to
    cover it: "and what time was the table booked for?" would find the note's one
    sentence short of the question. The follow-up's own words stay. With nothing
    stated (no passage in focus), nothing is dropped.
    """
    if not stated or not inherited:
        return analysis
    dropped = set(inherited) - set(stated)
    own = set(analysis.keywords) - set(inherited)
    keywords = tuple(k for k in analysis.keywords if k in own or k not in dropped)
    if keywords == analysis.keywords:
        return analysis
    return dataclasses.replace(analysis, keywords=keywords)
