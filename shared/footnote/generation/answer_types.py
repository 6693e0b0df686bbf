"""What kind of words an answer must hold: a frequency, a duration, an amount.

"How often…" is answered by a sentence that says how often ("three times a week"),
"How long…" by one that says for how long ("since 2016", "for two years"). A
sentence that shares the question's words but holds no such phrase is about the
topic, not an answer to the question; without one, the notes do not say.
"How many…" is not checked: a count is usually spread over several notes ("How many
times has she been to the beach?"), which quoting, not one sentence, answers.
"""

from __future__ import annotations

import re

from footnote.text import NUMBER_WORDS

_NUMBER = (
    r"(?:\d[\d,.]*|"
    + "|".join(
        sorted(
            (re.escape(w) for w in NUMBER_WORDS if w not in ("a", "an", "one")),
            key=len,
            reverse=True,
        )
    )
    + r"|a\s+couple|a\s+few|several|dozens?|hundreds?|thousands?)"
)
_UNIT = r"(?:second|minute|hour|day|night|week|weekend|month|year|decade|semester|season)s?"

_FREQUENCY = re.compile(
    # "times", not "time": "I had a great time" says nothing of how often
    r"\b(?:every|each|daily|nightly|weekly|monthly|yearly|annually|once|twice|thrice|"
    r"times|often|usually|always|regularly|sometimes|occasionally|rarely|never|"
    rf"per\s+{_UNIT}|a\s+{_UNIT})\b",
    re.IGNORECASE,
)
_DURATION = re.compile(
    # "a week" is a duration, "three times a week" a frequency; "one day I decided" is
    # neither, "for one day" is; "since 2016" is, "since it was raining" is not.
    rf"\b(?:{_NUMBER}\s+(?:more\s+)?{_UNIT}|"
    rf"(?:for|about|over|nearly|almost|around|just)\s+(?:a|an|one)\s+{_UNIT}|"
    rf"(?<!times\s)(?<!once\s)(?<!twice\s)(?<!one\s)(?:a|an)\s+(?:more\s+)?{_UNIT}|"
    r"(?:ever\s+)?since\s+(?:\d+|last\b|then\b|childhood\b|high\s+school\b|college\b|"
    r"i\b|we\b|my\b|our\b|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b)|"
    r"all\s+(?:my|his|her|their|our)\s+(?:life|lives)|"
    r"for\s+(?:ages|years|months|weeks|a\s+while|a\s+long\s+time)|a\s+long\s+time)\b",
    re.IGNORECASE,
)
_AMOUNT = re.compile(rf"[$€£¥]\s*\d|\b{_NUMBER}\b|%|\bpercent\b", re.IGNORECASE)

REASON = re.compile(
    r"\b(?:because|since|so\s+that|so\b|due\s+to|thanks\s+to|reasons?|in\s+order\s+to|"
    r"as\s+(?:it|we|they|he|she|i)\b|why|cause[sd]?|for\s+(?:the\s+)?\w+(?:ing|ity|ness)\b)",
    re.IGNORECASE,
)

# The question's opening decides what kind of answer it wants ("For how long…" too).
_ASKS = (
    (re.compile(r"^\W*(?:\w+\s+){0,2}?how\s+often\b", re.IGNORECASE), _FREQUENCY),
    (re.compile(r"^\W*(?:\w+\s+){0,2}?how\s+much\b", re.IGNORECASE), _AMOUNT),
    (re.compile(r"^\W*(?:\w+\s+){0,2}?how\s+long\b(?!\s+ago)", re.IGNORECASE), _DURATION),
    # "Why…" wants a reason ("because", "so that", "due to"): a sentence giving one leads
    # the answer. Preferred, not required: "The audit delayed the launch" is a reason too.
    (re.compile(r"^\W*(?:and\s+|but\s+|so\s+)?why\b", re.IGNORECASE), REASON),
)


def expected(question: str) -> re.Pattern[str] | None:
    """The phrase an answer to ``question`` must contain; None when any sentence may do."""
    for asks, kind in _ASKS:
        if asks.search(question):
            return kind
    return None
