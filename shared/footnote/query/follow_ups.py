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
from footnote.temporal import calendar_words
from footnote.text import STOPWORDS, normalize, terms

__all__ = [
    "answer_names",
    "as_stated",
    "is_follow_up",
    "names_someone",
    "refers_to_a_thing",
    "with_name_swapped",
    "with_person_answered",
    "with_previous",
]

_FOLLOW_UP_OPENER = re.compile(
    r"^\W*(?:and|but|also|so|then|what\s+about|how\s+about|and\s+what|what\s+else|"
    r"after\s+that|before\s+that|anything\s+else)\b"
)
_BACK_REFERENCE = re.compile(
    r"\b(?:he|she|they|him|her|them|his|hers|their|theirs|it|its|that|those|these|"
    r"there|then|the\s+same)\b"
)
# A capitalised word, Latin letters with accents included ("Camélia", "Élodie"); all
# capitals ("TODO", "SSO") name no one.
_CAPITALISED = re.compile(r"(?<!^)(?<![.?!]\s)\b[A-ZÀ-ÖØ-Þ][a-zß-öø-ÿ]+")


def names_someone(text: str) -> bool:
    """A capitalised word after the first: a name ("What about Melanie?")."""
    return any(
        w.lower() not in calendar_words() for w in _CAPITALISED.findall(normalize(text).strip())
    )


# "it", "that", "there": a thing or place just named, not a person (whose lines, not
# the sentence naming them, answer "what did she give me?").
_THING_REFERENCE = re.compile(r"\b(?:it|its|that|those|these|there|the\s+same)\b")


def refers_to_a_thing(message: str) -> bool:
    """A pronoun or "there" that points at a thing or place just named ("how much was
    it?", "what time do we need to be there?")."""
    return bool(_THING_REFERENCE.search(normalize(message).lower()))


# A citation marker of an answer ("[N2]"), not a word of it.
_MARKER = re.compile(r"\[[^\[\]]*\]")


def answer_names(answer: str, question: str) -> tuple[str, ...]:
    """The names an answer gives that its question did not, as terms: what a
    follow-up's "it" or "there" most often is ("Which florist did we go with?" /
    "Going w/ Atelier Camélia" / "how much was it?")."""
    asked = set(terms(question))
    found = terms(" ".join(_CAPITALISED.findall(_MARKER.sub(" ", normalize(answer)))))
    return tuple(t for t in dict.fromkeys(found) if t not in asked)


def with_name_swapped(message: str, previous: str) -> str | None:
    """The previous question asked of the one person a bare follow-up names ("and
    Ray's?", "What about Melanie?"): "What's Linda's phone number?" becomes "What's
    Ray's phone number?". None when the follow-up says more than a name, or the previous
    question names no one to swap."""
    text = normalize(message).strip()
    names = [w for w in _CAPITALISED.findall(text) if w.lower() not in calendar_words()]
    name = " ".join(names)
    if not names or set(terms(text, _FOLLOW_UP_WORDS)) - set(terms(name)):
        return None
    before = normalize(previous).strip()
    found = next(
        (m for m in _CAPITALISED.finditer(before) if m.group(0).lower() not in calendar_words()),
        None,
    )
    if found is None:
        return None
    # a run of capitalised words is one name ("Linda Ortiz")
    end = found.end()
    while (more := re.match(r"\s+[A-ZÀ-ÖØ-Þ][a-zß-öø-ÿ]+", before[end:])) is not None:
        end += more.end()
    # the same part in both: an owner for an owner ("Linda's" / "Ray's"), else a person
    # for a person; "and Adolescent Manners?" after "Who ran Juno's puppy class?" asks
    # about another class, not Adolescent Manners's class
    owner_before = _POSSESSIVE.match(before, end) is not None
    if owner_before != (_POSSESSIVE.search(text) is not None):
        return None
    return f"{before[: found.start()]}{name}{before[end:]}"


_POSSESSIVE = re.compile(r"['’]s\b")


# "who did we hire for counter?": a question asking for a person
_ASKS_WHO = re.compile(r"^\W*(?:and\s+|so\s+)?(?:who|whom|who['’]s|whos)\b", re.IGNORECASE)
# "he", "she", "him", "her", "them" stand for the person; "his", "their" are theirs
_PERSON_PRONOUN = re.compile(r"\b(?:he|she|they|him|her|them|his|their)\b", re.IGNORECASE)
# "her" before a noun is hers ("her number"); at the end or before a preposition, she is
# the object ("pay her", "ask her about")
_HERS = re.compile(
    r"(?<!\s)\s+(?!(?:to|for|on|in|at|by|with|about|from|and|or|back|off|out|up|again|now|today|"
    r"yesterday|tomorrow|tonight|well|so|enough|yet|last|next|this|a|an|the)\b|[a-z]+ly\b)"
    r"[a-z]"
)
# A name as an answer writes it: capitalised words, a surname's initial allowed ("Tom H")
_NAME_RUN = re.compile(r"\b[A-ZÀ-ÖØ-Þ][a-zß-öø-ÿ]+(?:\s+[A-ZÀ-ÖØ-Þ](?:[a-zß-öø-ÿ]+|\b))?")


def with_person_answered(message: str, previous: str, answer: str) -> str | None:
    """A follow-up about the person the previous question asked for, its pronoun replaced
    by the name the answer gave: "what did i buy him?" after "who did I get for secret
    santa?" / "I got Tomás." is "what did i buy Tomás?"; "how much did we pay her" after
    "who helped out on valentines day" / "Mia was great" is "… pay Mia". None unless the
    previous question asked who, the follow-up names no one and says "he", "she", "him",
    "her", "his" or "their", and the answer names exactly one person it was not asked
    about."""
    text = normalize(message).strip()
    if not _ASKS_WHO.match(normalize(previous)) or names_someone(text):
        return None
    pronoun = _PERSON_PRONOUN.search(text)
    if pronoun is None:
        return None
    asked = set(terms(previous))
    said = _MARKER.sub(" ", normalize(answer))
    names = list(
        dict.fromkeys(
            m.group(0)
            for m in _NAME_RUN.finditer(said)
            if (first := m.group(0).split()[0].lower()) not in calendar_words()
            and first not in STOPWORDS
            and not set(terms(m.group(0))) <= asked
        )
    )
    if len(names) != 1:
        return None
    word = pronoun.group(0).lower()
    owned = word in {"his", "their"} or (word == "her" and _HERS.match(text, pronoun.end()))
    name = f"{names[0]}'s" if owned else names[0]
    return f"{text[: pronoun.start()]}{name}{text[pronoun.end() :]}"


# The words of a bare follow-up beside the name it gives: "and", "what about".
_FOLLOW_UP_WORDS = frozenset(terms("and but also so then what about how else"))


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


def with_previous(
    current: QueryAnalysis, previous: QueryAnalysis, answered: Collection[str] = ()
) -> QueryAnalysis:
    """A follow-up keeps its own words and window, and inherits the previous question's
    subject (its keywords, after its own) and its time window when it names none.
    One that refers back to a thing or place ("it", "there") carries ``answered`` as
    its ``referents``: the names the previous answer gave (``answer_names``), which its
    pronoun most often stands for; a preference, not words to cover. Not for "she":
    "what exercises did she give me?" is answered by "calf raises 3x15" under the
    physio's line, not by the line naming her.

    "What about Melanie?" after "What did Caroline paint?" swaps the person:
    a follow-up that names someone drops the names of the previous question.
    """
    named = names_someone(current.original)
    inherited = previous.keywords
    if named:
        dropped = set(terms(" ".join(_CAPITALISED.findall(normalize(previous.original)))))
        inherited = tuple(k for k in inherited if k not in dropped)
    keywords = tuple(dict.fromkeys((*current.keywords, *inherited)))
    # The text the retriever embeds becomes standalone too: the follow-up, then the
    # question it follows (without its names, when the follow-up names someone else).
    context = previous.normalized
    if named:
        context = _CAPITALISED.sub(" ", context)
    return dataclasses.replace(
        current,
        normalized=re.sub(r"\s+", " ", f"{current.normalized} {context}").strip(),
        keywords=keywords,
        window=current.window or previous.window,
        types=current.types or previous.types,
        referents=tuple(answered) if refers_to_a_thing(current.original) and not named else (),
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
