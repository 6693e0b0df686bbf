"""Offline memory-type classifier: weighted cue phrases, no model needed.

Production may use Gemini (``CLASSIFIER=gemini``); this stays the default
because it is instant, deterministic and free.
"""

from __future__ import annotations

import re

from footnote.domain import MemoryType

_CUES: dict[MemoryType, tuple[tuple[str, float], ...]] = {
    MemoryType.DECISION: (
        (
            r"\b(decided|decide|decision|we chose|chose|choose|going with|go with|settled on|opted|agreed to|will use|switch(ed)? to|picked|selected|ruled out|instead of)\b",
            2.0,
        ),
        (r"\b(trade-?off|rationale|because)\b", 0.5),
    ),
    MemoryType.METRIC: (
        (r"\b(\d+(\.\d+)?\s?(%|percent|ms|users|signups|mrr|arr|dau|mau|k\b|m\b))", 2.0),
        (
            r"\b(metric|kpi|conversion|churn|retention|revenue|latency|growth|increased|decreased|dropped|grew)\b",
            1.0,
        ),
        (r"[$€£]\s?\d", 1.5),
    ),
    MemoryType.FEEDBACK: (
        (
            r"\b(feedback|customer said|users? (said|complained|asked|love|hate)|complain(ed|t)?|investor|review(ed)?|survey|interview(ed)?|praised|requested)\b",
            2.0,
        ),
    ),
    MemoryType.TASK: (
        (
            r"\b(todo|to-do|to do|action item|follow[- ]up|remember to|need to|needs to|must|deadline|due (by|on)|assign(ed)?|next step)\b",
            2.0,
        ),
        # a checkbox line, with or without a bullet ("- [ ] call Jo", "[x] send it")
        (r"^\s*(?:[-*]\s*)?\[[ xX]\]", 2.0),
    ),
    MemoryType.RESEARCH: (
        (
            r"\b(research|study|studies|paper|found that|according to|benchmark|compar(e|ed|ison)|analysis|evidence|hypothes[ie]s|experiment|literature|market)\b",
            1.5,
        ),
    ),
}
_COMPILED = {
    t: [(re.compile(p, re.IGNORECASE | re.MULTILINE), w) for p, w in cues]
    for t, cues in _CUES.items()
}
_THRESHOLD = 1.5


def classify(text: str) -> MemoryType:
    """The memory type whose cues weigh most, or ``note`` when none is clear."""
    scores: dict[MemoryType, float] = {}
    for memory_type, cues in _COMPILED.items():
        scores[memory_type] = sum(weight * min(len(rx.findall(text)), 3) for rx, weight in cues)
    best = max(scores, key=lambda t: scores[t])
    return best if scores[best] >= _THRESHOLD else MemoryType.NOTE


class RuleClassifier:
    def classify(self, text: str) -> MemoryType:
        return classify(text)
