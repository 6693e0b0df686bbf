"""Proper nouns and compounds in a language that capitalises every noun.

In English or Spanish a capital inside a sentence marks a name; in German it marks
every noun, so "Termin" and "Lindner" look alike. There a part-of-speech tagger tells
them apart: HanTa (the Hanover Tagger, trained on the TIGER treebank, its model
shipped in the package) tags a name NE and a common noun NN, in context ("Frau
Lindner ruft an": Frau NN, Lindner NE).

A word is a proper noun when the tagger tags it NE in the sentence and NE is also its
likeliest tag alone, so a title the tagger sometimes reads as part of a name ("Herr
Wagner") stays a noun, and the name is the word that must agree.

A compound's parts come from the same tagger's morphological analysis
("Steuernachzahlung": steuer + nachzahlung; "Küchenabbau": küche + n + abbau, the "n"
a linking morpheme), for keyword search to find "Nachzahlung" by "Steuernachzahlung".

The model (~0.3 s to load) is read on the first German text and kept; tagging is a few
milliseconds a sentence, analysing a word from under one to some fifty, and each text's
or word's result is kept in a bounded LRU.
"""

from __future__ import annotations

import re
import threading
from functools import lru_cache
from typing import Any

# The languages a tagger reads here, by the model HanTa ships for each.
_MODELS = {"de": "morphmodel_ger.pgz"}
_PROPER = "NE"
_TOKEN = re.compile(r"[^\W_]+(?:[-'’][^\W_]+)*|[^\w\s]")
_LOCK = threading.Lock()
_taggers: dict[str, Any] = {}


def tagged(language: str) -> bool:
    """Whether ``language``'s names are told from its nouns by a tagger here."""
    return language in _MODELS


def _tagger(language: str) -> Any:
    tagger = _taggers.get(language)
    if tagger is None:
        from HanTa import HanoverTagger  # (heavy: only on the first text of the language)

        tagger = _taggers[language] = HanoverTagger.HanoverTagger(_MODELS[language])
    return tagger


@lru_cache(maxsize=4096)
def proper_nouns(text: str, language: str) -> frozenset[int]:
    """Where each proper noun of ``text`` starts (an offset into it); empty for a
    language no tagger reads."""
    if not tagged(language):
        return frozenset()
    tokens = list(_TOKEN.finditer(text))
    if not tokens:
        return frozenset()
    with _LOCK:  # (the tagger keeps caches of its own; one thread tags at a time)
        tagger = _tagger(language)
        tags = tagger.tag_sent([m.group(0) for m in tokens], taglevel=1)
        out = frozenset(
            m.start()
            for m, (_word, _lemma, tag) in zip(tokens, tags, strict=True)
            if tag == _PROPER
            and m.group(0)[0].isupper()
            and _likeliest_alone(tagger, m.group(0)) == _PROPER
        )
    return out


@lru_cache(maxsize=16384)
def _likeliest_alone(tagger: Any, word: str) -> str | None:
    tags = tagger.tag_word(word)
    return str(tags[0][0]) if tags else None


# Morphemes that are words of their own in HanTa's analysis: nouns, names, adjectives,
# verbs (its tags "NN", "NN_VAR_EL", "NE", "ADJ", "VV"...). Linking morphemes ("FUGE"),
# prefixes and separable particles are not; an ending ("SUF_...") belongs to the part
# before it ("Liefertermin": liefer + term + in is liefer + termin).
_CONTENT = ("NN", "NE", "ADJ", "V")
_ENDING = "SUF"
# A part shorter than this is more often a misread prefix ("Heizungsablesung": heizung
# + ab + lesung) than a word a note or question writes alone.
_PART_MIN_LETTERS = 3


@lru_cache(maxsize=16384)
def compound_parts(word: str, language: str) -> tuple[str, ...]:
    """The words a compound is made of, lower case, as the tagger analyses ``word``
    ("Steuernachzahlung": steuer, nachzahlung; "Umzugskartons": umzug, kartons); empty
    for a word of one part or a language no tagger reads."""
    if not tagged(language):
        return ()
    with _LOCK:
        _lemma, morphemes, _tag = _tagger(language).analyze(word, taglevel=3)
    parts: list[str] = []
    for morpheme, tag in morphemes:
        if tag.startswith(_CONTENT):
            parts.append(morpheme)
        elif tag.startswith(_ENDING) and parts:
            parts[-1] += morpheme
    kept = tuple(p for p in parts if len(p) >= _PART_MIN_LETTERS)
    return kept if len(kept) >= 2 else ()
