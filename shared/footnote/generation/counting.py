""" "How many…" questions: a number the notes state, or a count of what they record.

A count is stated ("signups 312", "4 lengths front crawl") or kept, one note or one
list item at a time: a series of notes that share a title ("bake log #1", "bake log #2";
"long run" every Sunday; "callout - Hassan", "callout - Evans"), or the lines of a list
("Finished Jan: 1. … 2. …"). Quoting one of them answers nothing; counting them does. A
count kept as numbers is added up: a series each stating it ("courgettes 5", then
"courgettes 7"), or the lines under a heading ("pie orders:" / "pumpkin 18"). Pure
functions over the sources.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence

from footnote.domain import Source
from footnote.generation import checklists
from footnote.generation.checklists import Boxes, boxed_items, has_boxes
from footnote.generation.dates import MONTH_WORD, calendar_mentions
from footnote.generation.names import CALENDAR
from footnote.generation.sentences import ITEM_LINE
from footnote.text import QUERY_FILLER, SHORTHAND, kin, spelled_out, terms

# "How many loaves have I…", "how many of my work hours…", "How many long runs did I do"
_HOW_MANY = re.compile(
    r"^\W*(?:and\s+|so\s+)?how\s+many\s+(?:of\s+(?:my|our|the|his|her|their)\s+)?"
    r"(?P<what>[^?]+?)\s+(?:did|do|does|have|has|had|are|were|is|was|will|can|could|"
    r"in|on|at|during|since|from|for|this|last|so\s+far)\b",
    re.IGNORECASE,
)
# What a title of a series differs by: numbers, dates, months, weekdays, marks.
_SERIES_NOISE = re.compile(
    rf"\d+|#|\b{MONTH_WORD}\b|"
    r"\b(?:mon|tue|tues|wed|thu|thurs|fri|sat|sun)(?:day)?\b|[^\w\s]",
    re.IGNORECASE,
)
# What counts people: "How many people are in my study group?", "… guests", "… kids".
_PEOPLE = frozenset(
    terms(
        "people person persons members member guests guest kids children players friends "
        "attendees participants students volunteers folks ppl"
    )
)
# One person's name: "Hana", "Dr. Feng", "Kim Osei" (a parenthesis after it is an aside:
# "Dr. Feng (Geography)").
# ("Bob K": a surname may be its initial)
_NAME = (
    r"(?:(?:Dr|Prof|Mr|Mrs|Ms)\.?\s+)?[A-Z][\w'’-]+(?:\s+[A-Z](?:[\w'’-]+|\.)?)?(?:\s*\([^)]*\))?"
)
# Names written one after another: "w/ Dev, Hana, Luis", "Members: Delgado, Okonkwo,
# Dr. Feng", "Ana & Tom", "Priya + Sam".
_NAMES = re.compile(rf"{_NAME}(?:\s*(?:,|&|\+|\band\b)\s*{_NAME})+")


def _split_names(listed: str) -> list[str]:
    """The names of a run of them ("Ana & Tom, Priya + Sam")."""
    return [n.strip() for n in re.split(r"\s*(?:,|&|\+|\band\b)\s*", listed) if n.strip()]


# A number beside the thing counted: "signups 312", "4 lengths", "sold 9 tees".
_NUMBER = r"\d[\d,.]*[kK]?"
MIN_ITEMS = 2


# (a title's full stop ends no sentence: "Dr. Pham")
_SENTENCE_BREAK = re.compile(
    r"(?<=[a-z][.!?])(?<!\bDr\.)(?<!\bMr\.)(?<!\bMs\.)(?<!\bMrs\.)(?<!\bSt\.)(?<!\bvs\.)\s+(?=\S)"
)
# Units as notes shorten them: "6 hrs", "45 mins", "3 wks", "2 yrs" (the shorthand of
# every note), and "6h", "20 min", which only a number's unit writes so.
_UNIT_SHORTHAND = {**SHORTHAND, "h": "hours", "min": "minutes"}


def _unit_terms(word: str) -> set[str]:
    """The terms of a word, a unit's short form standing for the unit ("hrs": hour)."""
    return set(terms(_UNIT_SHORTHAND.get(word.lower().rstrip("."), word)))


def counted_of(question: str) -> frozenset[str]:
    """What a "how many" question counts units of ("hours of marking": marking), if any."""
    parts = _counted_parts(question)
    return frozenset(terms(parts[1])) if len(parts) > 1 else frozenset()


def _counted_parts(question: str) -> list[str]:
    """What a "how many" question counts, split at its first "of" ("hours of marking":
    hours, marking; "lengths of front crawl": lengths, front crawl); [] if it is none."""
    m = _HOW_MANY.search(question)
    return re.split(r"\s+of\s+", m["what"], maxsplit=1) if m else []


def counted(question: str) -> list[str] | None:
    """The terms of what a "how many" question counts ("long runs" -> long, run)."""
    parts = _counted_parts(question)
    return (terms(parts[0]) or None) if parts else None


def stated_count(what: Sequence[str], ranked: Sequence[str]) -> int | None:
    """Which of the best sentences (``ranked``, best first) states the number asked for,
    beside what is counted (``what``, from ``counted``: "signups 312"); None if none does."""
    return next((i for i, text in enumerate(ranked[:5]) if _states_count(text, what[-1])), None)


def named_count(
    what: Sequence[str], subject: frozenset[str], ranked: Sequence[tuple[str, str, frozenset[str]]]
) -> str | None:
    """ "How many people are in my study group?" over "study group w/ Dev, Hana, Luis": the
    names listed by the best sentence about as many of the question's other words
    (``subject``: "study", "group"; a note's title speaks for its sentences) as any
    sentence is, counted. Only for people: ``ranked`` is (text, citation id, terms),
    best first."""
    if what[-1] not in _PEOPLE:
        return None
    most = max((len(subject & held) for _, _, held in ranked), default=0)
    for text, cid, held in ranked:
        if not most or len(subject & held) < most:
            continue
        found = max((m.group(0) for m in _NAMES.finditer(text)), key=len, default="")
        names = _split_names(found)
        # "6–10 April (Easter hols) + Sat 28" lists days, not people
        names = [n for n in names if n.split()[0].lower().rstrip(".") not in CALENDAR]
        if len(names) >= MIN_ITEMS:
            return f"{len(names)} in your notes: {', '.join(names)} [{cid}]."
    return None


# A line listing names after its label, or names alone: "dues tonight: Jack, Karen, Leo"
_LABELLED_NAMES = re.compile(rf"^\s*(?:[^:\n]{{1,30}}:\s*)?(?P<names>{_NAMES.pattern})\s*[.!]?\s*$")


def names_across(
    what: Sequence[str], subject: frozenset[str], ranked: Sequence[tuple[str, str, frozenset[str]]]
) -> str | None:
    """ "How many people have paid choir dues?" over a list kept across notes ("choir
    dues": "Anne, Bob K, Carol…"; "dues tonight: Jack, Karen…"; "dues: Quinn, Rosa…"): the
    names of every line listing names and holding a word of the question besides what is
    counted (``subject``; a note's title speaks for its lines), each once. Two notes at
    least (one is ``named_count``'s); only for people."""
    if what[-1] not in _PEOPLE or not subject:
        return None
    lists: dict[str, list[str]] = {}
    seen: set[str] = set()
    for text, cid, held in ranked:
        m = _LABELLED_NAMES.match(text)
        if m is None or not subject & held:
            continue
        for listed in _split_names(m["names"]):
            name = re.sub(r"\s*\([^)]*\)", "", listed).strip()  # "Xavier (from the notice!)"
            if name and name.split()[0].lower() not in CALENDAR and name.lower() not in seen:
                seen.add(name.lower())
                lists.setdefault(cid, []).append(name)
    if len(lists) < MIN_ITEMS:
        return None
    listed = "; ".join(f"{', '.join(names)} [{cid}]" for cid, names in lists.items())
    return f"{len(seen)} in your notes: {listed}."


def count_answer(
    what: Sequence[str],
    question: str,
    ranked: Sequence[tuple[str, str]],
    sources: Sequence[Source],
) -> str | None:
    """A count of what the notes keep for a "how many" question, or None to answer it
    as any other (a number the notes state is quoted instead: ``stated_count``).

    ``what``: what is counted (``counted``); ``ranked``: the candidate sentences, best
    first, as (text, citation id). The best note's series of like-titled notes, or the
    best note's list, is counted.
    """
    by_cid = {s.cid: s for s in sources}
    best = _best(ranked, sources)
    if best is None:
        return None
    boxes = checklists.asked_boxes(question)
    if boxes is not None:
        # A checklist is one note: its boxes asked about are the count, whatever other
        # notes share its title ("TODO" every week).
        todo = next((s for s in _by_rank(ranked, by_cid) if has_boxes(s.chunk.text)), None)
        # "How many runs have I done?" counts runs: what is done counts boxes only when
        # the best note is the checklist.
        if todo is not None and (boxes is Boxes.OPEN or todo is best):
            boxed = boxed_items(todo.chunk.text, boxes)
            state = "still open" if boxes is Boxes.OPEN else "done"
            listed = f": {'; '.join(boxed)}" if boxed else ""
            return f"{len(boxed)} {state} on {_label(todo)}{listed} [{todo.cid}]."
    if (latest := _latest_version(best, sources, question)) is not None:
        return latest
    series = _series(best.chunk.title, sources, frozenset(terms(question)))
    # (a series the question names: "how many heel drops am i meant to do" counts no
    # "wk log" notes, though its best line is in one)
    if len(series) >= MIN_ITEMS and _names_series(best.chunk.title, question):
        return _counted_series(series, _OCCASIONS in what)
    items = _items(best)
    if items and _about(best, what, question):
        return f"{items} in your notes: {_label(best)} ({items}) [{best.cid}]."
    return None


# A count of things done over time ("How many courgettes have I picked so far?", "…
# did we sell …"), added up over the notes that log them; asked as it stands ("How many
# stollen preorders do we have?") it is the latest note's figure.
_ACCUMULATES = re.compile(
    r"\b(?:did|so\s+far|in\s+total|altogether|total|overall)\b|"
    r"\b(?:have|has|had)\s+(?:i|we|you|they|he|she)\s+(?:\w+ed|done|made|sold|grown|run|"
    r"seen|had|got|caught|eaten|given|taken|written|won|lost|spent|built)\b",
    re.IGNORECASE,
)


_RUNNING = re.compile(r"\b(?:so\s+far|to\s+date|in\s+total|running\s+total|total)\b", re.I)


def series_tally(
    what: Sequence[str], question: str, ranked: Sequence[tuple[str, str]], sources: Sequence[Source]
) -> str | None:
    """ "How many courgettes have I picked so far?" over "harvest log" notes that each
    write "courgettes 5", "courgettes 7 (2 are marrows)", …: their numbers added up; "How
    many stollen preorders do we have?" over "xmas preorders" notes writing "stollen 14",
    then "stollen 67": the latest. None unless the best sentence's note is one of a series
    (``_series``) of which two or more notes state a number beside what is counted."""
    best = _best(ranked, sources)
    if best is None:
        return None
    # "how many hours of marking": the hours beside "marking" ("21 hrs demo + 6 hrs marking")
    of = counted_of(question)
    stated = [
        (s, line, n)
        for s in _series(best.chunk.title, sources, frozenset(terms(question)))
        # (the body: a title's number names the note, "interview 16")
        for line, n in [_stated_number(s.chunk.text.removeprefix(s.chunk.title), what, of)]
        if n is not None
    ]
    if len(stated) < MIN_ITEMS:
        return None
    # a running total ("so far: stollen 14", then "stollen 31") is told by its latest
    kept_running = any(_RUNNING.search(s.chunk.text) for s, _, _ in stated)
    if kept_running or not _ACCUMULATES.search(question):
        _, line, _ = stated[-1]
        return f"{line} [{stated[-1][0].cid}]."
    total = sum(n for _, _, n in stated)
    parts = "; ".join(f"{line} [{s.cid}]" for s, line, _ in stated)
    return f"{total} in your notes: {parts}."


def _stated_number(
    text: str, what: Sequence[str], of: frozenset[str] = frozenset()
) -> tuple[str, int | None]:
    """The first line stating a whole number beside a word of what is counted ("courgettes
    7 (2 are marrows…)": 7; "12 eggs": 12; "6 hrs": 6 hours), and that number; ("", None)
    if none does. Counted in a unit of something (``of``: "hours of marking"), the unit
    written before that thing first ("21 hrs demo + 6 hrs marking": 6). A number with a
    unit ("2.1kg") or a price counts nothing."""
    # (the question may write the unit short too: "how many hrs")
    wanted = {u for w in what for u in _unit_terms(w)}
    # (a line's sentences each stand alone: "6 hrs marking. Dr Pham says …" quotes the first)
    lines = [piece for line in text.splitlines() for piece in _SENTENCE_BREAK.split(line)]
    for beside in ([of] if of else []) + [frozenset()]:
        for line in lines:
            words = _TOKEN.findall(line)
            for i, w in enumerate(words):
                if not _unit_terms(w) & wanted:
                    continue
                if beside and not any(set(terms(x)) & beside for x in words[i + 1 : i + 3]):
                    continue
                after = [x for x in words[i + 1 : i + 3] if x.lower() not in _LINKING][:1]
                for n in [*after, *words[max(0, i - 1) : i]]:
                    if re.fullmatch(r"\d{1,4}", n.rstrip(",.")):
                        return line.strip().rstrip("."), int(n.rstrip(",."))
    return "", None


# A line of a tally under its heading: "pumpkin 18", "- apple: 9", "6 pecan".
_TALLY_LINE = re.compile(
    r"^\s*(?:[-*•]\s*)?(?:[^\d\n:]{2,40}?[\s:–-]+(?P<n>\d{1,4})\s*(?:\([^)\n]*\))?|"
    r"(?P<m>\d{1,4})\s*x?\s+[^\d\n]{2,40})\s*$"
)


def listed_tally(
    what: Sequence[str], ranked: Sequence[tuple[str, str]], sources: Sequence[Source]
) -> str | None:
    """ "How many pies did we sell for thanksgiving?" over "pie orders for thanksgiving:" /
    "pumpkin 18" / "apple 9" / "pecan 6": the lines under the heading naming what is
    counted, added up (33). None unless the best sentence's note has such a heading with
    two or more such lines under it."""
    best = _best(ranked, sources)
    if best is None:
        return None
    lines = best.chunk.text.splitlines()
    for i, heading in enumerate(lines):
        if not heading.rstrip().endswith(":") or not set(terms(heading)) & set(what):
            continue
        counted_lines: list[tuple[str, int]] = []
        for line in lines[i + 1 :]:
            m = _TALLY_LINE.match(line)
            if m is None:
                break
            counted_lines.append((line.strip(), int(m["n"] or m["m"])))
        if len(counted_lines) >= MIN_ITEMS:
            total = sum(n for _, n in counted_lines)
            listed = ", ".join(line for line, _ in counted_lines)
            return f"{total} in your notes: {heading.strip()} {listed} [{best.cid}]."
    return None


# "Charlotte x30", "Sungold x6": how many of an item a line lists ("3x15" is sets of reps)
_TIMES = re.compile(r"(?<![\w.])x\s?(\d{1,4})\b(?![.,]?\d)")
# Where a line's items start another kind: "tomatoes Sungold x6, Gardener's Delight x6,
# chillies Padron x4" lists tomatoes until "chillies" (a kind is written in lowercase, its
# varieties by name)
_ITEM_SEPARATOR = re.compile(r"\s*(?:[,;+&]|\band\b)\s*")


def multiplied_tally(
    what: Sequence[str], question: str, ranked: Sequence[tuple[str, str]], sources: Sequence[Source]
) -> str | None:
    """ "How many seed potatoes did I plant?" over "planted Charlotte x30 + Pink Fir Apple
    x20" in the note tagged "potatoes": the items' counts added up (50). In a line naming
    what is counted, only its items ("tomatoes Sungold x6, Gardener's Delight x6, chillies
    Padron x4": 12 tomatoes, and 4 chillies); in a line that does not, one telling what
    the question asks done ("planted") in a note about it, of two items at least. None
    otherwise."""
    by_cid = {s.cid: s for s in sources}
    counted_terms = set(what)
    doing = set(terms(question, QUERY_FILLER)) - counted_terms
    for text, cid in ranked[:5]:
        source = by_cid.get(cid)
        if source is None or not _TIMES.search(text):
            continue
        first = next(
            (
                m
                for m in re.finditer(r"[^\W\d_][\w'’-]*", text)
                if set(terms(m.group(0))) & counted_terms
            ),
            None,
        )
        if first is not None:
            rest = _ITEM_SEPARATOR.split(text[first.start() :])
            items = rest[:1] + list(
                itertools.takewhile(lambda item: not item[:1].islower(), rest[1:])
            )
        else:
            note = set(terms(source.chunk.title)) | set(source.chunk.terms)
            if not note & counted_terms or not set(terms(text)) & doing:
                continue
            items = [text.split(". ")[0]]
        counts = [int(n) for item in items for n in _TIMES.findall(item)]
        if len(counts) >= (1 if first is not None else MIN_ITEMS):
            return f"{sum(counts)} in your notes: {text.strip()} [{cid}]."
    return None


def series_named(
    what: Sequence[str], question: str, question_terms: Sequence[str], sources: Sequence[Source]
) -> str | None:
    """ "How many books have I finished this year?" over notes titled "Finished Jan",
    "Finished Feb", "Finished March": the series the question names by a word of its
    titles other than what is counted, counted (its list notes by their items), even
    when a sentence elsewhere states a number of books ("30 books" is a goal). Not what
    is still open: that is one checklist's unticked boxes (``count_answer``)."""
    if checklists.asked_boxes(question) is Boxes.OPEN:
        return None
    named = set(question_terms) - set(what)
    asked = frozenset(question_terms)
    for s in sources:
        key = _series_key(s.chunk.title, asked)
        # named by a word of the question ("Karen" in "meeting w Karen 2"), or by what is
        # counted itself ("callout - Hassan" for "how many callouts…")
        held = set(terms(key))
        if key and (named & held or (what[-1] in held and held <= set(what))):
            series = _series(s.chunk.title, sources, asked)
            if len(series) >= MIN_ITEMS:
                return _counted_series(series, _OCCASIONS in what)
    return None


def _series(
    title: str, sources: Sequence[Source], asked: frozenset[str] = frozenset()
) -> list[Source]:
    """The notes (one source each) whose titles differ from ``title`` only by numbers,
    dates and marks ("bake log #2", "Finished Feb"), or by what follows a dash ("callout
    - Hassan") that the question does not name (``asked``), oldest first."""
    if _VERSION.search(title):
        return []  # "guest list v3" revises one list: its versions are no occasions
    key = _series_key(title, asked)
    notes: dict[str, Source] = {}
    for s in sources:
        notes.setdefault(s.chunk.note_id, s)
    series = [s for s in notes.values() if key and _series_key(s.chunk.title, asked) == key]
    return sorted(series, key=lambda s: s.chunk.created_at)


def _latest_version(best: Source, sources: Sequence[Source], question: str) -> str | None:
    """Of versions of one thing the question names ("guest list v1" … "guest list v3" for
    "how many guests are we at now"), the number the latest states first ("final-ish:
    84"); None when the best note is no version or the latest states no number."""
    if not _VERSION.search(best.chunk.title) or not _names_series(best.chunk.title, question):
        return None
    key = _bare_key(_VERSION.sub(" ", best.chunk.title))
    versions = [s for s in sources if _bare_key(_VERSION.sub(" ", s.chunk.title)) == key]
    latest = max(versions, key=lambda s: s.chunk.created_at)
    line = next((ln.strip() for ln in latest.chunk.text.splitlines() if _A_NUMBER.search(ln)), None)
    return f"{line} [{latest.cid}]." if line else None


_A_NUMBER = re.compile(r"(?<![\w.,/-])\d[\d,]*(?![\w/-])")
# A version of one thing: "guest list v2", "budget draft 3", "plan rev 2", "CV version 4".
_VERSION = re.compile(r"\bv\d+\b|\b(?:draft|rev|revision|version)\s*\d+\b", re.IGNORECASE)


def _names_series(title: str, question: str) -> bool:
    """The question holds a word of the series' title ("callouts" for "callout - Hassan",
    "karen" for "meeting w Karen 3"), as written or of its family."""
    named = set(spelled_out(terms(title), title))  # ("mtg" is a meeting)
    asked = set(spelled_out(terms(question, QUERY_FILLER), question))
    return bool(named & asked or kin(asked, named))


# "How many times…": each note is one occasion, whatever it lists
_OCCASIONS = "time"


def _counted_series(series: Sequence[Source], occasions: bool = False) -> str:
    numbers = [n for s in series if (n := _title_number(s.chunk.title)) is not None]
    if numbers:
        # "interview 15", "interview 16": numbered notes, one each (the first may go
        # unnumbered: "meeting w Karen", "meeting w Karen 2"), and the highest number counts
        # those not quoted too
        total = max(max(numbers), len(series))
        parts = [f"{_label(s)} [{s.cid}]" for s in series]
        return f"{total} in your notes: {'; '.join(parts)}."
    # a list note counts its items, unless it is one occasion
    counts = [(s, 0 if occasions else _items(s)) for s in series]
    total = sum(n or 1 for _, n in counts)
    parts = [f"{_label(s)} ({n}) [{s.cid}]" if n else f"{_label(s)} [{s.cid}]" for s, n in counts]
    return f"{total} in your notes: {'; '.join(parts)}."


# The number a title gives its note in a series: "interview 16", "bake log #3",
# "shakedown 2 - Clare Valley"; not a day or a year ("Finished Feb", "run 2026-03-01").
_TITLE_NUMBER = re.compile(
    r"(?:#|\b(?:no\.?\s*)?)(?<![-/.:\d])(\d{1,3})\b(?!\s*(?:[-/.:]\s*\d|%))", re.I
)


def _title_number(title: str) -> int | None:
    if calendar_mentions(title):
        return None
    found = _TITLE_NUMBER.findall(title)
    return int(found[0]) if len(found) == 1 else None


def _best(ranked: Sequence[tuple[str, str]], sources: Sequence[Source]) -> Source | None:
    """The source of the best candidate sentence (``ranked``: (text, citation id), best
    first); None when there is none."""
    return next((s for s in sources if s.cid == ranked[0][1]), None) if ranked else None


def _by_rank(ranked: Sequence[tuple[str, str]], by_cid: dict[str, Source]) -> list[Source]:
    """The sources in the order of their best candidate sentence."""
    order = dict.fromkeys(cid for _, cid in ranked if cid in by_cid)
    return [by_cid[cid] for cid in order]


def _about(source: Source, what: Sequence[str], question: str) -> bool:
    """The note is about what is counted: it names it, or half the question's words."""
    have = set(terms(f"{source.chunk.title} {source.chunk.text}"))
    asked = set(terms(question, QUERY_FILLER))
    return what[-1] in have or 2 * len(asked & have) >= len(asked)


# Words and numbers, punctuation aside ("smoke detectors (need 4" puts 4 two words
# from "detectors"); a number keeps its currency and unit ("$15,300 Smoke detectors",
# "3m -> page" count none).
_TOKEN = re.compile(r"[$€£¥₹]?\d[\w,.]*|[^\W\d_][\w'’-]*")


def _states_count(text: str, head: str) -> bool:
    words = _TOKEN.findall(text)
    for i, w in enumerate(words):
        if terms(w)[:1] == [head] or w.lower().startswith(head):
            # "312 signups", "signups 312", "tenors are down to 3"
            after = words[i + 1 : i + 3]
            rest = iter(words[i + 1 :])
            linked = next((n for n in rest if n.lower() not in _LINKING), "")
            near = words[max(0, i - 2) : i] + after + [linked]
            if any(re.fullmatch(_NUMBER, n) for n in near):
                return True
    return False


# Words between a thing counted and its number: "tenors are down to 3", "now at 12".
_LINKING = frozenset("are is was were now down up to at only just about around still".split())


def _series_key(title: str, asked: frozenset[str] = frozenset()) -> str:
    # "callout - Hassan", "callout - Bluebell pub": the kind of note before the dash
    # names the series, what follows tells one from another — unless the question names
    # what follows ("…out to the farm" over "Obs log - Hendricks farm", not "- backyard")
    kind = _KIND_OF_NOTE.match(title)
    if (
        kind
        and not asked & set(terms(title[kind.end("kind") :]))
        and (key := _bare_key(kind["kind"]))
    ):
        return key
    return _bare_key(title)


def _bare_key(title: str) -> str:
    return re.sub(r"\s+", " ", _SERIES_NOISE.sub(" ", title.lower())).strip()


_KIND_OF_NOTE = re.compile(r"^\s*(?P<kind>[^\W\d][\w' ]*?)\s+[-–—]\s+\S")


def _items(source: Source) -> int:
    found = len(ITEM_LINE.findall(source.chunk.text))
    return found if found >= MIN_ITEMS else 0


def _label(source: Source) -> str:
    title = source.chunk.title.strip()
    if title:
        return title.rstrip(".!?")
    body = source.chunk.text.strip().splitlines()[0] if source.chunk.text.strip() else ""
    return body[:60].rstrip(".!?")
