"""Sums a note writes out: on one line with "+" ("$75 + $25 RCMP fee"), or as a run of
lines ("Repairs this yr:" / "tap £97" / "boiler £240" / "fan £165"). A question asking
what they come to ("What do my repair costs add up to?", "How much have I spent so
far?") is answered by them and their sum, which no line states. Pure functions over text.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from footnote.text import terms

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
    r"(?![\d/]|[.,]\d|[kKmM]\b|\s*(?:/|per\b|each\b|a\s+|an\s+|x\s*\d|x\b|[-–]\s*\d))"
)
_ANY_MONEY = re.compile(r"[$€£]\s?\d")
_PLUS_MORE = re.compile(r"\s*(?:\+|plus\b|ex\.?\b|excl?\b)", re.IGNORECASE)
# A line stating a sum: "total $158.74", "Parts total $117", "all in £1,020" (of a run of
# lines, its result, not one of its parts).
# (or opens with its result: "= 41, $2,180", "= $2,366 spent")
STATES_TOTAL = re.compile(
    r"\b(?:total|altogether|all\s+in|in\s+all|sum|came\s+to)\b|^\W*=\s*[$€£¥₹]?\s*\d", re.I | re.M
)


def _stated(found: re.Match[str]) -> tuple[str, float, bool]:
    """A sum of money as ``_MONEY`` found it: currency, value, written with cents."""
    return found["cur"], float(found["value"].replace(",", "")), "." in found["value"]


def _amount(line: str) -> tuple[str, float, bool] | None:
    """The one sum of money a line states (currency, value, written with cents), or None
    when it states none, more than one, or a total."""
    found = list(_MONEY.finditer(line))
    if len(found) != 1 or len(_ANY_MONEY.findall(line)) != 1 or STATES_TOTAL.search(line):
        return None
    if _PLUS_MORE.match(line, found[0].end()):
        return None  # "£895 + VAT", "$120 + parts": a part of a sum not written
    return _stated(found[0])


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
    if any(_WORKED.search(line) for line, _ in run):
        return None  # the run writes its result itself: "= 41, $2,180"
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


# A sum the line works out itself: "= $2,366", "= 41, $2,180"
_WORKED = re.compile(r"=\s*(?:\d[\d,]*\s*,\s*)?[$€£¥₹]?\s*\d")


def added_up(text: str) -> str | None:
    """The sum of the amounts a line adds ("$75 + $25 RCMP fee" -> "$100") or lists
    ("downlights x6 $252, GPOs $96, floor box $145" -> "$493"), or None."""
    if _WORKED.search(text):
        return None  # the line writes its result: "full 19 ($1,140) + … = 41, $2,180"
    found = _ADDED.search(text)
    if found is None:
        return _listed_inline(text)
    if re.search(r"\b\d+\s*x\b|×", text):
        return None
    return _added(found["cur"], [found["a"], *_AMOUNT_IN.findall(found["rest"])])


def _listed_inline(text: str) -> str | None:
    """The sum of a line listing things each with its sum, by commas or semicolons
    ("Hendry kitchen order: downlights x6 $252, GPOs $96, 2.5 TPS 100m $189"); None when
    it lists fewer than two, mixes currencies, states a total, or writes a sum that is
    not one to add (a rate, a range, a multiple)."""
    if STATES_TOTAL.search(text) or re.search(r"%|\(\s*[$€£]", text):
        # a share paid of a sum, or a sum restated ("€2,150, paid 50% today (€1,075)"),
        # is no list of things bought
        return None
    parts = [p for p in re.split(r"[,;]\s+", text) if _ANY_MONEY.search(p)]
    amounts = [_MONEY.search(p) for p in parts]
    if len(parts) < 2 or any(
        a is None or len(_ANY_MONEY.findall(p)) != 1 for a, p in zip(amounts, parts, strict=True)
    ):
        return None
    found = [a for a in amounts if a is not None]
    if len({a["cur"] for a in found}) != 1:
        return None
    return _added(found[0]["cur"], [a["value"] for a in found])


def _added(currency: str, amounts: list[str]) -> str:
    """The sum of amounts as written ("1,058.20", "572"), written as they were."""
    total = sum(float(a.replace(",", "")) for a in amounts)
    return _written(currency, total, any("." in a for a in amounts))


def _written(currency: str, total: float, cents: bool) -> str:
    """A sum as its parts were written: "£1,529.99" with cents, "£670" without."""
    return f"{currency}{total:,.2f}" if cents else f"{currency}{total:,.0f}"


# "… between them?", "… together?", "… combined?": a sum of the parts the question names
_ASKS_JOINT = re.compile(
    ASKS_TOTAL.pattern + r"|\bbetween\s+(?:them|the\s+two)\b|\btogether\b|\bcombined\b",
    re.IGNORECASE,
)
# "How much did the tap and the boiler cost?" asks one sum too
_HOW_MUCH = re.compile(r"^\W*(?:and\s+)?how\s+much\b", re.IGNORECASE)
# "the machine and the fridge", "July and August", "registration plus the train": the
# word before the joining word and the first word after it (past "the", "my", …)
_PARTS = re.compile(
    r"\b(?P<a>[^\W\d_][\w'-]*)\s+(?:and|plus|&|\+)\s+(?:(?:the|my|our|his|her|their)\s+)?"
    r"(?P<b>[^\W\d_][\w'-]*)",
    re.IGNORECASE,
)
_NOT_A_PART = frozenset(
    "the a an my our his her their it them this that these those i we you he she they "
    "much many what how did do does is are was were have has had".split()
)


def parts_asked(question: str) -> tuple[str, str] | None:
    """The two things a question asks the sum of ("How much did the machine and the fridge
    cost altogether?" -> machine, fridge); None when it asks no joint sum."""
    joint = _ASKS_JOINT.search(question) is not None
    if not (joint or _HOW_MUCH.search(question)):
        return None
    found = _PARTS.search(question)
    if found is None:
        return None
    a, b = found["a"], found["b"]
    if a.lower() in _NOT_A_PART or b.lower() in _NOT_A_PART or a.lower() == b.lower():
        return None
    if not joint and (a[0].isupper() or b[0].isupper()):
        # "How much was the florist for Hannah and Rob?": one couple's, not two sums
        return None
    return a, b


def part_amount(
    part: frozenset[str], lines: list[tuple[str, str, frozenset[str], frozenset[str]]]
) -> tuple[int, tuple[str, float, bool]] | None:
    """Of ``lines`` (text, citation id, the text's terms, its note's title terms), best
    first, the index of the one stating the sum of ``part`` (its terms), and that sum: the
    best line naming the part and stating one sum; else, of the best note titled by it, the
    line stating its total ("Total $36,980" in "takings July"), or its one line stating a
    sum ("New one fitted $240" in "fridge 2"). None when no line or note says."""
    for i, (text, _, own, _) in enumerate(lines):
        if part & own and (stated := _amount(text)) is not None and _beside(part, text):
            return i, stated
    titled = dict.fromkeys(cid for _, cid, _, title in lines if part & title)
    found = [f for cid in titled if (f := _note_sum(cid, lines)) is not None]
    # two notes titled by it, each with a sum ("machine playing up", "machine service"):
    # which is meant is not said
    return found[0] if len(found) == 1 else None


# The words between a thing and its sum: "survey £650", "£650 for the survey".
_NEAR = 3


def _beside(part: frozenset[str], text: str) -> bool:
    """The sum the line states is written within ``_NEAR`` words of the part ("survey
    £650"; not "property under £450k, conveyancer has to request it")."""
    words = re.findall(r"[$€£]?\d[\d,.]*|[^\W_]+", text)
    at = [i for i, w in enumerate(words) if _ANY_MONEY.match(w)]
    named = [i for i, w in enumerate(words) if frozenset(terms(w)) & part]
    return any(abs(i - j) <= _NEAR + 1 for i in at for j in named)


def _note_sum(
    cid: str, lines: list[tuple[str, str, frozenset[str], frozenset[str]]]
) -> tuple[int, tuple[str, float, bool]] | None:
    """The line of note ``cid`` stating its total, or its one line stating a sum."""
    mine = [(i, text) for i, (text, of, _, _) in enumerate(lines) if of == cid]
    for i, text in mine:
        found = list(_MONEY.finditer(text))
        if STATES_TOTAL.search(text) and len(found) == 1:
            return i, _stated(found[0])
    stating = [(i, stated) for i, text in mine if (stated := _amount(text)) is not None]
    return stating[0] if len(stating) == 1 else None


def of_parts(
    parts: tuple[frozenset[str], frozenset[str]],
    lines: list[tuple[str, str, frozenset[str], frozenset[str]]],
) -> tuple[list[int], str] | None:
    """The lines stating the sums of both parts (indexes into ``lines``, see
    ``part_amount``) and their sum, written as they were ("$685 + $240 = $925"); None
    unless each part's sum is found, on different lines, in the same currency."""
    found = [part_amount(part, lines) for part in parts]
    if any(f is None for f in found):
        return None
    (i, (cur_a, a, cents_a)), (j, (cur_b, b, cents_b)) = found  # type: ignore[misc]
    if i == j or cur_a != cur_b:
        return None
    cents = cents_a or cents_b
    added = f"{_written(cur_a, a, cents)} + {_written(cur_b, b, cents)}"
    return [i, j], f"{added} = {_written(cur_a, a + b, cents)}"
