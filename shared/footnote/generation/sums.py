"""Sums a note writes out: on one line with "+" ("$75 + $25 RCMP fee"), or as a run of
lines ("Repairs this yr:" / "tap £97" / "boiler £240" / "fan £165"). A question asking
what they come to ("What do my repair costs add up to?", "How much have I spent so
far?") is answered by them and their sum, which no line states. Pure functions over text.
"""

from __future__ import annotations

import re
from collections.abc import Callable

# "How much did it come to?", "… altogether?", "in total", "What do they add up to?":
# the sum of the parts
ASKS_TOTAL = re.compile(
    r"\b(?:total|altogether|all\s+in|in\s+all|c[oa]me\s+to|add(?:ed|s)?\s+up|sum)\b", re.I
)
# ... and "How much have I spent so far?": a sum of lines no line states
ASKS_SUM = re.compile(
    ASKS_TOTAL.pattern + r"|\b(?:spent|paid)\b.*\b(?:so\s+far|to\s+date)\b", re.IGNORECASE
)
# Sums of money written out with "+": "$75 + $25 RCMP fee", "€1,150 (+€300 packing)".
# Not a rate or a multiple ("$89/m³ + $65", "2 x £40"): those need more than adding.
_ADDED = re.compile(
    r"(?P<cur>[$€£])\s?(?P<a>\d[\d,]*(?:\.\d{1,2})?)(?![\d,./]|\s*(?:/|per\b|each\b|x\b))"
    r"(?P<rest>(?:[^$€£\n/]{0,24}?\+\s*(?P=cur)\s?\d[\d,]*(?:\.\d{1,2})?"
    r"(?![\d,./]|\s*(?:/|per\b|each\b|x\b)))+)"
)
_AMOUNT_IN = re.compile(r"[$€£]\s?(\d[\d,]*(?:\.\d{1,2})?)")
# A sum of money; not a rate, a multiple or a range ("£18.50 x12", "$89/m³", "£720-750"):
# those are not added as they stand.
_MONEY = re.compile(
    r"(?P<cur>[$€£])\s?(?P<value>\d[\d,]*(?:\.\d{1,2})?)"
    r"(?![\d,./]|\s*(?:/|per\b|each\b|a\s+|an\s+|x\s*\d|x\b|[-–]\s*\d))"
)
_ANY_MONEY = re.compile(r"[$€£]\s?\d")
# A line stating a sum: "total $158.74", "Parts total $117", "all in £1,020" (of a run of
# lines, its result, not one of its parts).
STATES_TOTAL = re.compile(r"\b(?:total|altogether|all\s+in|in\s+all|sum|came\s+to)\b", re.I)


def _amount(line: str) -> tuple[str, float, bool] | None:
    """The one sum of money a line states (currency, value, written with cents), or None
    when it states none, more than one, or a total."""
    found = list(_MONEY.finditer(line))
    if len(found) != 1 or len(_ANY_MONEY.findall(line)) != 1 or STATES_TOTAL.search(line):
        return None
    value = found[0]["value"]
    return found[0]["cur"], float(value.replace(",", "")), "." in value


def listed_total(
    note: str,
    sentence: str,
    keep: Callable[[str], bool] = lambda line: True,
    min_lines: int = 2,
) -> str | None:
    """The run of lines around ``sentence`` in ``note`` that each state one sum in the same
    currency, written out and added up ("tap £97 + boiler £240 (= £337)"); None when the
    sentence is in no such run of at least ``min_lines`` lines (those ``keep`` keeps). A
    line naming the run ("Repairs this yr:") starts it; a line without a sum ends it."""
    # (a sentence may run over lines: "Repairs this yr: tap £97")
    opening = sentence.split()[:4]
    found = re.search(r"\s+".join(map(re.escape, opening)), note) if opening else None
    if found is None:
        return None
    lines = note.splitlines()
    stated = [_amount(line) for line in lines]
    index = note.count("\n", 0, found.start())
    if stated[index] is None:
        index += 1  # the sentence starts at the line naming the run
    if index >= len(lines) or stated[index] is None:
        return None
    low = index
    while low > 0 and stated[low - 1] is not None:
        low -= 1
    high = index
    while high + 1 < len(lines) and stated[high + 1] is not None:
        high += 1
    run = [
        (line, a)
        for line, a in zip(lines[low : high + 1], stated[low : high + 1], strict=True)
        if keep(line)
    ]
    amounts = [a for _, a in run if a is not None]
    if len(amounts) < min_lines or len({cur for cur, _, _ in amounts}) != 1:
        return None
    total = _written(
        amounts[0][0],
        sum(value for _, value, _ in amounts),
        any(cents for _, _, cents in amounts),
    )
    parts = " + ".join(re.sub(r"^\s*(?:[-*•]|\d+[.)])\s*", "", line).strip() for line, _ in run)
    return f"{parts} (= {total})"


def added_up(text: str) -> str | None:
    """The sum of the amounts a line adds ("$75 + $25 RCMP fee" -> "$100"), or None."""
    found = _ADDED.search(text)
    if found is None or re.search(r"\b\d+\s*x\b|×", text):
        return None
    amounts = [found["a"], *_AMOUNT_IN.findall(found["rest"])]
    total = sum(float(a.replace(",", "")) for a in amounts)
    return _written(found["cur"], total, any("." in a for a in amounts))


def _written(currency: str, total: float, cents: bool) -> str:
    """A sum as its parts were written: "£1,529.99" with cents, "£670" without."""
    return f"{currency}{total:,.2f}" if cents else f"{currency}{total:,.0f}"
