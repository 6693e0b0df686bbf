"""Checklists: which boxes a question asks about, and which a line's box says.

A notes app's to-do list marks each item ticked ("[x] call Mum") or not ("[ ] call
Mum"). "What's left on my TODO list?" asks for the unticked items, "What have I done
this week?" for the ticked ones; the words of the question say which, the boxes say
which line is which. Pure functions over text.
"""

from __future__ import annotations

import re
from enum import Enum

# A checkbox not yet ticked: "[ ] call Jo", "- [ ] call Jo".
OPEN_ITEM = re.compile(r"^[ \t]*(?:[-*•][ \t]*)?\[ ?\][ \t]+\S", re.MULTILINE)
# A checkbox ticked: "[x] call Jo", "- [X] call Jo".
_DONE_ITEM = re.compile(r"^[ \t]*(?:[-*•][ \t]*)?\[[xX]\][ \t]+\S", re.MULTILINE)
# "… still open / unticked / left to do / not done", "what hadn't I packed yet": the
# unticked boxes.
_ASKS_OPEN = re.compile(
    r"\b(?:open|unticked|unchecked|undone|outstanding|remaining|left|still\s+(?:to\s+do|"
    r"need|have\s+to|got\s+to)|not\s+(?:yet\s+)?(?:done|ticked|checked|finished|completed)|"
    r"(?:haven|hadn|hasn|didn)['’]?t|yet\s+to)\b",
    re.IGNORECASE,
)
# "… done / ticked off / finished / completed", not "not done": the ticked boxes.
_ASKS_DONE = re.compile(
    r"(?<!not )(?<!not yet )\b(?:done|ticked(?:\s+off)?|checked\s+off|finished|completed|"
    r"crossed\s+off)\b",
    re.IGNORECASE,
)


class Boxes(Enum):
    OPEN = "open"
    DONE = "done"


def asked_boxes(question: str) -> Boxes | None:
    """Which boxes the question asks about; None when it does not say."""
    if _ASKS_OPEN.search(question):
        return Boxes.OPEN
    if _ASKS_DONE.search(question):
        return Boxes.DONE
    return None


def has_boxes(text: str) -> bool:
    """The text holds a checklist: a box ticked or not."""
    return bool(OPEN_ITEM.search(text) or _DONE_ITEM.search(text))


def box_of(line: str) -> Boxes | None:
    """The box a line carries, if any."""
    if OPEN_ITEM.match(line):
        return Boxes.OPEN
    if _DONE_ITEM.match(line):
        return Boxes.DONE
    return None


def boxed_items(text: str, boxes: Boxes) -> list[str]:
    """The items of ``text`` whose box is ``boxes``, without the box, in order."""
    return [
        _BOX.sub("", line, count=1).strip() for line in text.splitlines() if box_of(line) is boxes
    ]


_BOX = re.compile(r"^[ \t]*(?:[-*•][ \t]*)?\[[ xX]?\][ \t]*")
