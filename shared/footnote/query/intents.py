"""Intent and memory-type cues of a question, and the words that only shape it.

"Summarize ...", "list all ...", "why did we choose ...", "when did ..." set the
intent; "decisions", "metrics", "feedback" ask for one type of memory. Pure
functions of the lowered question.
"""

from __future__ import annotations

import re
from functools import lru_cache
from itertools import pairwise

from footnote.domain import Intent, MemoryType
from footnote.text import DECISION_VERBS, QUERY_FILLER, words

__all__ = ["KEYWORD_STOP", "intent_of", "types_of"]

# Words that shape the analysis but say nothing about the topic.
_ANALYSIS_FILLER = frozenset(
    (
        "summarize",
        "summarise",
        "summarized",
        "summary",
        "summaries",
        "overview",
        "recap",
        "tldr",
        "tl",
        "dr",
        "timeline",
        "chronology",
        "chronological",
        "chronologically",
        "enumerate",
        "happen",
        "happened",
        "happening",
        "happens",
        "recent",
        "recently",
        "lately",
        "earlier",
        "ago",
        "evolve",
        "evolved",
        "evolution",
        "since",
    )
)
KEYWORD_STOP = QUERY_FILLER | _ANALYSIS_FILLER

_INTENT_CUES: tuple[tuple[Intent, re.Pattern[str]], ...] = (
    (
        Intent.SUMMARY,
        re.compile(
            r"\b(?:summari[sz]\w*|summary|summaries|overview|recap\w*|tl;?dr|sum\s+up|"
            r"catch\s+me\s+up|brief\s+me|highlights|gist|what\s+(?:has\s+|have\s+)?happened)\b"
        ),
    ),
    (
        Intent.LIST,
        re.compile(
            r"\b(?:list|enumerate|all\s+(?:the|my|our|of)|what\s+are\s+(?:all\s+)?(?:the|my|our)|"
            # ("Which agency are we using?": "are" is of "we", one agency is asked for)
            r"which\s+\w+(?:\s+\w+){0,3}?\s+(?:have|has|had|are|were)"
            r"(?!\s+(?:we|you|they|i|he|she)\b)|"
            # "Which electricians gave us quotes?": a plural asks for all of them
            r"^\W*which\s+\w+(?:[^\Wsu]s|ies)\s+(?!of\b)\w+)\b"
        ),
    ),
    (
        Intent.DECISION,
        re.compile(DECISION_VERBS.pattern + r"|\bwhy\s+(?:did|do|are|were)\s+(?:we|i)\b"),
    ),
    (
        Intent.TIMELINE,
        re.compile(
            r"\b(?:timeline|chronolog\w*|history\s+of|evolv\w*|evolution|over\s+time|"
            r"progress(?:ion)?\s+of|how\s+(?:did|has|have)\s+(?:\w+\s+){1,6}?"
            r"(?:change[ds]?|develop(?:ed)?|progress(?:ed)?|grow|grown)|"
            r"when\s+(?:did|was|were|is|are|do|does|will|have|has|had)|^\W*when)\b"
        ),
    ),
)
# The words that ask for one type of memory, as terms: a question naming them is about
# notes of that type.
_TYPE_WORDS: tuple[tuple[MemoryType, str], ...] = (
    (MemoryType.DECISION, "decisions"),
    (MemoryType.METRIC, "metric metrics kpi kpis stats statistics"),
    (MemoryType.RESEARCH, "research studies papers findings literature experiment experiments"),
)
# Those that ask with a phrase.
_TYPE_CUES: tuple[tuple[MemoryType, re.Pattern[str]], ...] = (
    (
        MemoryType.FEEDBACK,
        re.compile(
            r"\b(?:feedback|complaints?|testimonials?|what\s+(?:did\s+|do\s+)?(?:the\s+|our\s+)?"
            r"(?:customers|users|clients|investors)\s+(?:say|said|think|thought))\b"
        ),
    ),
    (
        MemoryType.TASK,
        re.compile(
            r"\b(?:tasks|to-?dos?|to\s+do\s+list|action\s+items?|follow[- ]?ups|open\s+items|"
            r"next\s+steps|what\s+(?:do|should)\s+i\s+(?:need\s+to|have\s+to)\s+do)\b"
        ),
    ),
)


@lru_cache(maxsize=1)
def _type_words() -> dict[str, MemoryType]:
    return {w: memory for memory, listed in _TYPE_WORDS for w in listed.split()}


def intent_of(s: str) -> Intent:
    for intent, cue in _INTENT_CUES:
        if cue.search(s):
            return intent
    return Intent.FACTUAL


def types_of(s: str) -> tuple[MemoryType, ...]:
    named = _type_words()
    found = {t for t, cue in _TYPE_CUES if cue.search(s)}
    found |= {named[w] for w in words(s) if w in named}
    # "decision log" names the log of decisions
    said = words(s)
    if any(a == "decision" and b == "log" for a, b in pairwise(said)):
        found.add(MemoryType.DECISION)
    return tuple(t for t in MemoryType if t in found)
