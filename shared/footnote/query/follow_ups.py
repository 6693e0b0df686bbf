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
from itertools import pairwise

from footnote.domain import QueryAnalysis
from footnote.temporal import calendar_words
from footnote.text import STOPWORDS, normalize, terms, word_spans, words

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

# What a follow-up opens with: a conjunction ("and in June?", "but what about…"), or a
# question word asking about something else ("what about Melanie?", "anything else?").
_CONJUNCTIONS = frozenset(("and", "but", "also", "so", "then"))
_ABOUT_ELSE = frozenset(("about", "else"))
# Pronouns for a person: "he", "she", "him", "her", "them" stand for them; "his", "their"
# are theirs.
_PERSON_PRONOUNS = frozenset(("he", "she", "they", "him", "her", "them", "his", "their"))
# "it", "that", "there": a thing or place just named, not a person (whose lines, not
# the sentence naming them, answer "what did she give me?"); "the same" too.
_THING_PRONOUNS = frozenset(("it", "its", "that", "those", "these", "there"))
_BACK_REFERENCES = _PERSON_PRONOUNS | _THING_PRONOUNS | {"hers", "theirs", "then"}
# What asks for a person ("who did we hire for counter?").
_WHO = frozenset(("who", "whom", "who's", "whos"))


def _capitalised(text: str) -> list[tuple[int, int, str]]:
    """The capitalised words of ``text`` (Latin letters with accents included:
    "Camélia", "Élodie"), each as far as its small letters go ("Linda" of "Linda's");
    all capitals ("TODO", "SSO") name no one. Not the first word, nor one opening a
    sentence: any word is capitalised there."""
    found = []
    for start, _, w in word_spans(text):
        size = _capital_run(w)
        if not size:
            continue
        opens = start == 0 or (
            start >= 2 and text[start - 1].isspace() and text[start - 2] in ".?!"
        )
        if opens:
            continue
        found.append((start, start + size, w[:size]))
    return found


def _without_capitalised(text: str) -> str:
    """``text`` with its capitalised words (``_capitalised``) blanked."""
    out = text
    for start, end, _ in reversed(_capitalised(text)):
        out = f"{out[:start]} {out[end:]}"
    return out


def names_someone(text: str) -> bool:
    """A capitalised word after the first: a name ("What about Melanie?")."""
    return any(
        w.lower() not in calendar_words() for _, _, w in _capitalised(normalize(text).strip())
    )


def refers_to_a_thing(message: str) -> bool:
    """A pronoun or "there" that points at a thing or place just named ("how much was
    it?", "what time do we need to be there?")."""
    said = words(normalize(message))
    return any(w in _THING_PRONOUNS for w in said) or _says_the_same(said)


def _says_the_same(said: list[str]) -> bool:
    return any(a == "the" and b == "same" for a, b in pairwise(said))


# A citation marker of an answer ("[N2]"), not a word of it.
_MARKER = re.compile(r"\[[^\[\]]*\]")


def answer_names(answer: str, question: str) -> tuple[str, ...]:
    """The names an answer gives that its question did not, as terms: what a
    follow-up's "it" or "there" most often is ("Which florist did we go with?" /
    "Going w/ Atelier Camélia" / "how much was it?")."""
    asked = set(terms(question))
    said = _MARKER.sub(" ", normalize(answer))
    found = terms(" ".join(w for _, _, w in _capitalised(said)))
    return tuple(t for t in dict.fromkeys(found) if t not in asked)


def with_name_swapped(message: str, previous: str) -> str | None:
    """The previous question asked of the one person a bare follow-up names ("and
    Ray's?", "What about Melanie?"): "What's Linda's phone number?" becomes "What's
    Ray's phone number?". None when the follow-up says more than a name, or the previous
    question names no one to swap."""
    text = normalize(message).strip()
    names = [w for _, _, w in _capitalised(text) if w.lower() not in calendar_words()]
    name = " ".join(names)
    if not names or set(terms(text, _FOLLOW_UP_WORDS)) - set(terms(name)):
        return None
    before = normalize(previous).strip()
    capitalised = _capitalised(before)
    at = next(
        (i for i, (_, _, w) in enumerate(capitalised) if w.lower() not in calendar_words()),
        None,
    )
    if at is None:
        return None
    # a run of capitalised words is one name ("Linda Ortiz")
    start, end, _ = capitalised[at]
    for more_start, more_end, _ in capitalised[at + 1 :]:
        if before[end:more_start].strip() or more_start == end:
            break
        end = more_end
    # the same part in both: an owner for an owner ("Linda's" / "Ray's"), else a person
    # for a person; "and Adolescent Manners?" after "Who ran Juno's puppy class?" asks
    # about another class, not Adolescent Manners's class
    owner_before = _owner(before[end:].split(" ", 1)[0])
    if owner_before != any(_owner(w) for w in text.split()):
        return None
    return f"{before[:start]}{name}{before[end:]}"


def _owner(word: str) -> bool:
    """``word`` ends in a possessive "'s" ("Ray's", "Ray's?")."""
    return word.rstrip(".,;:!?\"')").replace("’", "'").endswith("'s")


# "her" before a noun is hers ("her number"); at the end or before a preposition, she is
# the object ("pay her", "ask her about")
_HERS = re.compile(
    r"(?<!\s)\s+(?!(?:to|for|on|in|at|by|with|about|from|and|or|back|off|out|up|again|now|today|"
    r"yesterday|tomorrow|tonight|well|so|enough|yet|last|next|this|a|an|the)\b|[a-z]+ly\b)"
    r"[a-z]"
)


def with_person_answered(message: str, previous: str, answer: str) -> str | None:
    """A follow-up about the person the previous question asked for, its pronoun replaced
    by the name the answer gave: "what did i buy him?" after "who did I get for secret
    santa?" / "I got Tomás." is "what did i buy Tomás?"; "how much did we pay her" after
    "who helped out on valentines day" / "Mia was great" is "… pay Mia". None unless the
    previous question asked who, the follow-up names no one and says "he", "she", "him",
    "her", "his" or "their", and the answer names exactly one person it was not asked
    about."""
    text = normalize(message).strip()
    if not _asks_who(normalize(previous)) or names_someone(text):
        return None
    pronoun = next(
        (
            (start, end, w.lower())
            for start, end, w in word_spans(text)
            if w.lower() in _PERSON_PRONOUNS
        ),
        None,
    )
    if pronoun is None:
        return None
    asked = set(terms(previous))
    said = _MARKER.sub(" ", normalize(answer))
    names = list(
        dict.fromkeys(
            name
            for name in _names_written(said)
            if (first := name.split()[0].lower()) not in calendar_words()
            and first not in STOPWORDS
            and not set(terms(name)) <= asked
        )
    )
    if len(names) != 1:
        return None
    start, end, word = pronoun
    owned = word in {"his", "their"} or (word == "her" and _HERS.match(text, end))
    name = f"{names[0]}'s" if owned else names[0]
    return f"{text[:start]}{name}{text[end:]}"


def _asks_who(question: str) -> bool:
    """``question`` asks for a person: "who…", "and who…"."""
    said = words(question)[:2]
    if said[:1] and said[0] in ("and", "so"):
        said = said[1:]
    return bool(said) and said[0] in _WHO


def _names_written(text: str) -> list[str]:
    """The names ``text`` writes: capitalised words, with a surname or its initial after
    them ("Tom H", "Mia Lopez")."""
    found = []
    spans = word_spans(text)
    i = 0
    while i < len(spans):
        start, end, w = spans[i]
        i += 1
        size = _capital_run(w)
        if not size:
            continue
        name_end = start + size
        if size == len(w) and i < len(spans):
            n_start, _, n = spans[i]
            n_size = _capital_run(n) or (1 if n.isupper() and len(n) == 1 else 0)
            if n_size and text[end:n_start].isspace():
                name_end = n_start + n_size
                i += 1
        found.append(text[start:name_end])
    return found


def _capital_run(word: str) -> int:
    """How many letters of ``word`` are its capital and the small letters after it (0
    unless it opens with a capital and a small letter)."""
    if not (word[:1].isupper() and word[1:2].islower()):
        return 0
    size = 1
    while size < len(word) and word[size].isalpha() and word[size].islower():
        size += 1
    return size


# The words of a bare follow-up beside the name it gives: "and", "what about".
_FOLLOW_UP_WORDS = frozenset(terms("and but also so then what about how else"))


def is_follow_up(message: str, analysis: QueryAnalysis) -> bool:
    """An elliptical or back-referring question that needs the previous one to be read.

    "And in June?", "What about Melanie?", "When did she go there?" are; a
    question naming its own subject with several content words is not.
    """
    text = normalize(message).strip()
    lowered = text.lower()
    said = words(lowered)
    if said[:1] and (said[0] in _CONJUNCTIONS or not _ABOUT_ELSE.isdisjoint(said[1:2])):
        return True
    names_something = names_someone(text)
    back = any(w in _BACK_REFERENCES for w in said) or _says_the_same(said)
    if back and not names_something:
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
        names = _capitalised(normalize(previous.original))
        dropped = set(terms(" ".join(w for _, _, w in names)))
        inherited = tuple(k for k in inherited if k not in dropped)
    keywords = tuple(dict.fromkeys((*current.keywords, *inherited)))
    # The text the retriever embeds becomes standalone too: the follow-up, then the
    # question it follows (without its names, when the follow-up names someone else).
    context = previous.normalized
    if named:
        context = _without_capitalised(context)
    return dataclasses.replace(
        current,
        normalized=" ".join(f"{current.normalized} {context}".split()),
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
