"""The pieces the generator's stages share: a scored sentence of a note, how it is
cited, the share of the question an answer must cover, and the "did <someone> <verb>"
reading of a question. :mod:`footnote.generation.extractive` calls
:mod:`footnote.generation.when`, so what both need lives here, below them both.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass

from footnote.domain import Source
from footnote.generation.citations import closed
from footnote.text import split_sentences, terms

# Share of the question's content terms the quoted sentences must cover together;
# below it the notes are about something else and we say so instead of guessing.
# 0.5, not more: stemming misses irregular forms (decision verbs are matched as a
# class, other verbs are not), so a stricter floor turns away real answers (0.6 and
# 0.7 measured in docs/quality.md).
MIN_COVERAGE = 0.5
# "did <someone> <verb>", the doing a question asks about: "Did I get the grant?", "and
# did they end up booking it?" (a yes/no question, opening with it), "When did I finish…"
# (a when question, after a pronoun: LoCoMo's named subjects are not the asker's record).
DID = re.compile(
    r"\b(?i:did)\s+(?P<who>(?i:i|we|you|he|she|they|it)|[A-Z][\w-]*)\s+"
    r"(?:(?:end|ended)\s+up\s+|ever\s+|actually\s+|finally\s+|already\s+)?(?P<verb>[a-z]+)\b"
)


@dataclass(frozen=True)
class Candidate:
    """A quotable sentence of a note, scored against the question."""

    text: str
    cid: str
    source_rank: int
    position: int
    score: float
    terms: frozenset[str] = frozenset()
    speaker: str = ""  # who said it, when the note records speakers ("Name: …" lines)
    relevance: float = 0.0  # embedding relevance to the question, when scored
    listener: str = ""  # whom it was said to: the nearest other speaker of the note


def covered_by_note(pool: Sequence[Candidate], wanted: AbstractSet[str]) -> dict[str, set[str]]:
    """Citation id -> the question's words its note's sentences hold, all together: "order
    the bird by Tuesday" is about the faraona its note's other sentence names."""
    held: dict[str, set[str]] = {}
    for c in pool:
        held.setdefault(c.cid, set()).update(c.terms & wanted)
    return held


def cite(sentence: str, cid: str) -> str:
    """The sentence with its marker before its closing mark ("… [N1]."); a line heading
    what follows keeps its colon ("Maeve asked for extras [N1]:", not "extras: [N1].")."""
    return closed(sentence, f"[{cid}]")


# A line marked as a list item: "- ", "* ", "1. ", "[ ] " (MULTILINE: at any line's start).
ITEM_LINE = re.compile(r"^[ \t]*(?:[-*•]|\d+[.)]|\[[ xX]?\])[ \t]+\S", re.MULTILINE)


def headline_terms(source: Source) -> frozenset[str]:
    """The terms of a note's title and opening sentence: whom or what the note is about
    ("Brought Juno home from Second Chance Paws" over its "Microchip # 985 …" line). A
    name met only later in the note ("23:05 new PB!! Raf paced me") is not its subject."""
    title = source.chunk.title.strip()
    body = source.chunk.text
    if title and body.lower().startswith(title.lower()):
        body = body[len(title) :]
    spans = split_sentences(body)
    opening = body[spans[0][0] : spans[0][1]] if spans else ""
    return frozenset(terms(f"{title} {opening}"))
