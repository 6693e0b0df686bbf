"""A question as typed, read as the question it stands for.

People type into a notes app as they text: "whats chloe allergic to", "solicitors phone
number?", "deadline to send the jerseys back?". Every reading after this one (keywords,
intent, what kind of answer is wanted, whether a date is asked) is written for the
question in full, so the offline reader restores what typing leaves out: the apostrophe
of a contraction, and the "what's" a bare noun phrase asks with. A language model reads
either form; this is only for the offline path. Pure: a string in, a string out.
"""

from __future__ import annotations

import re

from footnote.text import STOPWORDS, language_of_text, word_spans, words

# Contractions typed without their apostrophe. Only those that are no other word: "its",
# "were", "well", "ill", "id", "hell", "shell" are words as typed and stay.
_CONTRACTIONS = {
    "whats": "what's",
    "whens": "when's",
    "wheres": "where's",
    "whos": "who's",
    "hows": "how's",
    "thats": "that's",
    "dont": "don't",
    "doesnt": "doesn't",
    "didnt": "didn't",
    "isnt": "isn't",
    "wasnt": "wasn't",
    "arent": "aren't",
    "werent": "weren't",
    "cant": "can't",
    "havent": "haven't",
    "hasnt": "hasn't",
    "hadnt": "hadn't",
    "couldnt": "couldn't",
    "shouldnt": "shouldn't",
    "wouldnt": "wouldn't",
    "im": "I'm",
    "ive": "I've",
    "youre": "you're",
    "theyre": "they're",
}
# What a question opens with when it is one: a question word anywhere ("for how long…",
# "kenta's drinks - when?"), a choice ("red or white wine in the ragù?"), a verb asking
# yes or no ("did I pay…?", "is the van booked?"), a request ("list my todos", "remind
# me…"), a follow-up's "and", or the writer ("i need the plumber's number").
_ASKS = re.compile(
    r"\b(?:what|what's|whats|which|who|who's|whom|whose|when|when's|where|"
    r"where's|why|how|how's|or)\b|"
    r"^\W*(?:and|but|so|or|also|plus|then|ok|okay|hey|hi|pls|please|"
    r"is|isn't|are|aren't|was|wasn't|were|weren't|do|does|doesn't|did|didn't|don't|can|"
    r"can't|could|will|would|should|shall|have|has|had|haven't|hasn't|hadn't|may|might|"
    r"must|am|any|anything|anyone|anybody|list|show|tell|give|find|remind|summari[sz]e|"
    r"summary|recap|search|look|get|name|count|help|explain|describe|i|i'm|i've|my\s+\w+\s+is)\b",
    re.IGNORECASE,
)


def as_written(typed: str, language: str = "en") -> str:
    """The question ``typed`` stands for: "whats her number" -> "what's her number";
    "solicitors phone number?" -> "what's the solicitors phone number?". A question that
    already opens as one is only given its apostrophes. Only English is restored: a
    question written in another language (``language`` is the reader's) is as typed."""
    if language_of_text(typed, prior=language) != "en":
        return typed
    text, done = "", 0
    for start, end, word in word_spans(typed):
        text += typed[done:start] + _restored(word)
        done = end
    text += typed[done:]
    stripped = text.strip()
    if not any(c.isalnum() for c in stripped) or _ASKS.search(stripped):
        return text
    # a bare phrase opening with its own determiner ("the number for the plumber?", "my
    # locker code") needs no "the"
    opening = words(stripped)[:1]
    lead = "what's " if opening and opening[0] in STOPWORDS else "what's the "
    return lead + stripped


def _restored(piece: str) -> str:
    """A word as it is written: a contraction typed without its apostrophe gets it, and
    the writer's "i" its capital; anything else is as typed."""
    if piece == "i":
        return "I"
    full = _CONTRACTIONS.get(piece.lower())
    if full is None:
        return piece
    # keep a capital the person typed ("Whats" -> "What's"); "I'm" is always capital
    return full[0].upper() + full[1:] if piece[0].isupper() else full
