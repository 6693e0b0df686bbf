"""Time expressions in a question: the window of time it asks about.

``find_hints(question, now, events)`` finds the time phrases of a lowered
question and ``window_of(hints)`` intersects them into one
:class:`~footnote.domain.TimeWindow`: pure functions of their arguments, no
clock, no network, no state. What each phrase names is
:mod:`footnote.query.time_anchors`.

Time semantics (everything in UTC; every window is half-open ``[start, end)``,
the way :meth:`TimeWindow.contains` and the corpus mask read it):

* A *day* runs 00:00 to 00:00 UTC. A *week* runs Monday 00:00 to the next
  Monday 00:00 (ISO weeks). Months, quarters and years are calendar periods.
* ``today``/``yesterday``/``this week``/``this month``/``this year``: the
  calendar period containing ``now`` (or the day before). ``last week``,
  ``last month``, ``last quarter``, ``last year``, ``last weekend``: the
  previous *calendar* period, so on Sunday 2026-11-22 "last week" is Monday
  2026-11-09 to Monday 2026-11-16.
* ``past week``/``the last week``/``past month``/``the past year`` and
  ``past 3 days``/``last 10 days``/``in the last two weeks``: rolling, from
  midnight of today minus that much (so "past 3 days" is the three full days
  before today plus today so far), open-ended.
* ``N days/weeks/months/years ago``: the calendar day, week, month or year
  that was N units back.
* A month name (``March``), a year (``2024``), a quarter (``Q3``), a weekday
  or ``June 5`` is a time hint only after a preposition (in, during, on, from,
  since, after, before, until, between ...), so "the March proposal" stays a
  keyword. Without a year it means the most recent one not in the future:
  "in December" asked in November 2026 is December 2025; "on Feb 29" picks
  the latest leap year. ISO dates (``2024-03-05``) count anywhere.
* ``early``/``mid``/``late`` X and ``the start``/``middle``/``end of`` X are
  thirds of X (whole days); with since/before/after/until, "the end of X" and
  "the start of X" are the moments X ends and starts.
* ``since X`` starts where X starts; ``after X`` starts where X ends;
  ``before X`` ends where X starts; ``until X`` ends where X ends;
  ``between X and Y`` / ``from X to Y`` spans both.
* ``before the launch``/``after the offsite``: an event anchor, looked up in
  ``events`` (name to the day it happened; e.g. built by the caller from note
  titles and dates). Unknown anchors, impossible dates (``2023-02-30``) and
  future references (``tomorrow``, ``next week``: notes are never written in
  the future) produce no window; they are listed in ``unresolved``.
* Several hints intersect ("in 2024 before the launch"). Hints that do not
  overlap keep the first window and list the rest as unresolved.

Time phrases are removed before keywords are extracted, so "last week" never
becomes the keyword "week"; an unresolved event name stays a keyword, since it
is the only signal left.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from footnote.domain import TimeWindow
from footnote.query.intents import KEYWORD_STOP
from footnote.query.periods import Period, Unresolvable
from footnote.query.time_anchors import (
    DAY_MONTH,
    ISO_DATE,
    MONTH_DAY,
    WEEKDAYS,
    Context,
    alternation,
)
from footnote.query.title_events import NOT_EVENTS
from footnote.text import STOPWORDS

__all__ = ["Hint", "find_hints", "window_of"]

_FUTURE = re.compile(
    r"(?:the\s+day\s+after\s+)?tomorrow\b|next\s+(?:week|weekend|month|quarter|year|"
    + alternation(WEEKDAYS)
    + r")\b|later\s+this\s+(?:week|month|year)\b"
)
# Prepositions and ranges: what turns an anchor into a window.
# A question about what is ahead ("What am I doing on Wednesday?", "What's on Friday?",
# "What do I have on Monday?"): its bare weekday is the coming one, a plan a note states,
# not a day a note was written on.
# So is one in the present tense, asking of no past ("What time is kick off on Saturday?",
# "Who's reffing on Sunday?"): "What did we do on Saturday?" asks of the one gone.
_AHEAD = re.compile(
    r"\b(?:am|is|are)\s+(?:\w+\s+)?\w+ing\b|\bwill\b|\bgoing\s+to\b|"
    r"\bwhat(?:['’]s|\s+is)\s+on\b|\b(?:do|have)\s+(?:i|we)\s+(?:have|got)\b|"
    r"^(?!.*\b(?:did|was|were|had|went)\b).*(?:\b(?:is|are)\b|\w['’]s\b)"
)
_BARE_WEEKDAY = re.compile(r"\s*(?:" + alternation(WEEKDAYS) + r")s?\s*$")
_PREPOSITION = re.compile(
    r"(?P<prep>since|as\s+of|after|later\s+than|before|prior\s+to|earlier\s+than|until|till|"
    r"til|up\s+to|through|by|in|during|on|at|from|within|over|around)\s+"
)
_PREP_KIND = {
    "since": "since",
    "as of": "since",
    "after": "after",
    "later than": "after",
    "before": "before",
    "prior to": "before",
    "earlier than": "before",
    "until": "until",
    "till": "until",
    "til": "until",
    "up to": "until",
    "through": "until",
    "by": "until",
}  # every other preposition means "in"
_EVENT_PREPS = frozenset({"since", "after", "before", "until", "during"})
_RANGE_START = re.compile(r"(?:between|from)\s+")
_RANGE_JOIN = re.compile(r"\s*(?:and|to|until|till|through|-|–|—)\s*")
_UNKNOWN_EVENT = re.compile(r"(?:the|our)\s+(?P<name>[a-z][\w'-]*(?:\s+[a-z][\w'-]*){0,3})")
_WORD_START = re.compile(r"(?<!\w)\w")


@dataclass(frozen=True)
class Hint:
    start_pos: int
    end_pos: int
    label: str
    start: datetime | None = None
    end: datetime | None = None
    resolved: bool = True
    keep_words: bool = False  # an unknown event name still says something about the topic


def find_hints(s: str, now: datetime, events: Mapping[str, date] | None) -> list[Hint]:
    """The time phrases of the lowered question ``s`` as of ``now``, in order."""
    return _scan(s, Context(now, events))


def _scan(s: str, ctx: Context) -> list[Hint]:
    hints: list[Hint] = []
    pos = 0
    while True:
        m = _WORD_START.search(s, pos)
        if m is None:
            return hints
        start = m.start()
        try:
            hint = _hint_at(s, start, ctx)
        except (Unresolvable, OverflowError, ValueError):
            hint = _bad_hint_at(s, start, ctx)
        if hint is None:
            word_end = re.compile(r"\w*").match(s, start)
            pos = word_end.end() if word_end else start + 1
        else:
            hints.append(hint)
            pos = max(hint.end_pos, start + 1)


def _hint_at(s: str, pos: int, ctx: Context) -> Hint | None:
    # between X and Y / from X to Y
    m = _RANGE_START.match(s, pos)
    if m:
        first = ctx.anchor(s, m.end())
        if first:
            join = _RANGE_JOIN.match(s, first[1])
            second = ctx.anchor(s, join.end()) if join else None
            if second:
                a, b = first[0], second[0]
                if a.start > b.start and b.end is not None:
                    # "from June to March", "from March to May 2024": the first end
                    # is the latest such period not after the second one
                    again = ctx.as_of(b.end - timedelta(days=1)).anchor(s, m.end())
                    a = again[0] if again else a
                start = min(a.start, b.start)
                end = None if a.end is None or b.end is None else max(a.end, b.end)
                return Hint(pos, second[1], s[pos : second[1]], start, end)
    # preposition + anchor
    m = _PREPOSITION.match(s, pos)
    if m:
        prep = re.sub(r"\s+", " ", m["prep"])
        kind = _PREP_KIND.get(prep, "in")
        event_kind = kind if kind != "in" else ("during" if prep == "during" else "")
        found = ctx.anchor(s, m.end())
        if found:
            period, end_pos = found
            if kind == "in":
                weekday_ahead = bool(_BARE_WEEKDAY.match(s[m.end() : end_pos]) and _AHEAD.search(s))
                if (
                    prep in ("at", "on")
                    and ctx.event_re is not None
                    and ctx.event_re.fullmatch(s, m.end(), end_pos)
                ):
                    # "What time do we go on at the Mohawk?": "at" a place or an event,
                    # the notes about it answer, the plan written the week before as well
                    # as the recap: its name is searched for, not a window on one day
                    # ("during the launch" is a time)
                    label = re.sub(r"\s+", " ", s[pos:end_pos])
                    return Hint(pos, end_pos, label, resolved=False, keep_words=True)
                return _ahead(period, pos, end_pos, s, ctx, weekday_ahead)
            return _apply(kind, period, pos, end_pos, s)
        if event_kind in _EVENT_PREPS:
            unknown = _UNKNOWN_EVENT.match(s, m.end())
            if unknown:
                name_words: list[str] = []
                if unknown["name"].split()[0] in NOT_EVENTS:
                    return None
                for w in unknown["name"].split():
                    if w in STOPWORDS or w in KEYWORD_STOP:
                        break
                    name_words.append(w)
                if name_words:
                    label = f"{s[pos : m.end()]}{s[m.end() : unknown.start('name')]}{' '.join(name_words)}"
                    name_end = unknown.start("name") + len(" ".join(name_words))
                    return Hint(
                        pos, name_end, re.sub(r"\s+", " ", label), resolved=False, keep_words=True
                    )
    # forms that need no preposition
    found = ctx.relative(s, pos)
    if found:
        return _ahead(found[0], pos, found[1], s, ctx)
    m = _FUTURE.match(s, pos)
    if m:
        return Hint(pos, m.end(), s[pos : m.end()], resolved=False)
    return None


def _ahead(
    p: Period, start_pos: int, end_pos: int, s: str, ctx: Context, weekday_ahead: bool = False
) -> Hint:
    """An "in" window, unless it starts after today ("this weekend" asked on a Thursday)
    or is a bare weekday a question about what is ahead names (``weekday_ahead``: "What
    am I doing on Wednesday?"): notes are never written in the future, so such a phrase
    is a word of the plan a note states ("To do this weekend: …", "Wed – dentist"),
    searched for, not a window on when notes were written."""
    if weekday_ahead or p.start.date() > ctx.today:
        label = re.sub(r"\s+", " ", s[start_pos:end_pos])
        return Hint(start_pos, end_pos, label, resolved=False, keep_words=True)
    return _apply("in", p, start_pos, end_pos, s)


def _bad_hint_at(s: str, pos: int, ctx: Context) -> Hint | None:
    """A phrase that looked like a date but is not one ("on 2023-02-30", "June 31")."""
    prep = _PREPOSITION.match(s, pos)
    at = prep.end() if prep else pos
    for pattern in (ISO_DATE, MONTH_DAY, DAY_MONTH):
        m = pattern.match(s, at)
        if m and (prep or pattern is ISO_DATE):
            return Hint(pos, m.end(), s[pos : m.end()], resolved=False)
    return None


def _apply(kind: str, p: Period, start_pos: int, end_pos: int, s: str) -> Hint:
    label = re.sub(r"\s+", " ", s[start_pos:end_pos])
    if p.edge is not None and kind != "in":  # "before the end of March": the moment itself
        p = Period(p.edge, p.edge)
    if kind == "since":
        return Hint(start_pos, end_pos, label, p.start, None)
    if kind == "after":
        if p.end is None:  # "after the past 3 days" names no moment
            return Hint(start_pos, end_pos, label, resolved=False)
        return Hint(start_pos, end_pos, label, p.end, None)
    if kind == "before":
        return Hint(start_pos, end_pos, label, None, p.start)
    if kind == "until":
        if p.end is None:
            return Hint(start_pos, end_pos, label, resolved=False)
        return Hint(start_pos, end_pos, label, None, p.end)
    return Hint(start_pos, end_pos, label, p.start, p.end)


def window_of(hints: list[Hint]) -> tuple[TimeWindow | None, list[str]]:
    unresolved = [h.label for h in hints if not h.resolved]
    start: datetime | None = None
    end: datetime | None = None
    labels: list[str] = []
    for h in hints:
        if not h.resolved:
            continue
        new_start = max((t for t in (start, h.start) if t is not None), default=None)
        new_end = min((t for t in (end, h.end) if t is not None), default=None)
        if labels and new_start is not None and new_end is not None and new_start >= new_end:
            unresolved.append(h.label)  # disjoint from what came before: keep the first
            continue
        start, end = new_start, new_end
        labels.append(h.label)
    if not labels:
        return None, unresolved
    return TimeWindow(start, end, " & ".join(labels)), unresolved
