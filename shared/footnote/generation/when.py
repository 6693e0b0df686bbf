"""The "when" stage of the offline generator: which date answers a "when" question.

It reads the best sentences for a date — one they state, or a relative phrase resolved
against the day the note was written — and chooses among them: a deadline for "by
when", the record of something done for "when did", the day a personal record was
written when nothing else dates it; else it declines.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import date, datetime, tzinfo

from footnote.domain import Chunk, Source
from footnote.generation import answer_types, checklists, people
from footnote.generation.citations import MARKER
from footnote.generation.dates import (
    MONTH_WORD,
    Resolved,
    absolute_spans,
    day_of,
    day_ranges,
    day_text,
    has_absolute_date,
    is_deadline,
    month_text,
    monthly_days,
    named_days,
    resolve_phrases,
    told_in_past,
    weekly_days,
)
from footnote.generation.prompt import NOT_ENOUGH
from footnote.generation.sentences import (
    DID,
    MIN_COVERAGE,
    Candidate,
    cite,
    covered_by_note,
    headline_terms,
)
from footnote.generation.speakers import first_person, speaker_prefix
from footnote.text import stem, terms, words

# "When did…", "When was…": a question about something done, which its record dates.
_ASKS_PAST = re.compile(r"\b(?:did|was|were|had)\b", re.IGNORECASE)
# "When is…", "When's…", "When will…", "When could I pick it up…": asked of something
# still to come.
_ASKS_AHEAD = re.compile(
    r"\bwhen(?:['’]s|\s+is|\s+are|\s+will|\s+(?:can|could|should|shall|do|does)\b)", re.I
)
_HOW_IT_ENDED = re.compile(
    r"\b(?:end(?:ed)?\s+up|in\s+the\s+end|finally|actually|eventually)\b", re.IGNORECASE
)
_AS_IT_STANDS = re.compile(r"\b(?:now|current(?:ly)?|these\s+days)\b", re.IGNORECASE)
_AS_IT_STANDS_TERMS = frozenset(terms("now current currently"))
# "When is my next night shift?", "the upcoming inspection": the first day still to come.
_ASKS_NEXT = re.compile(r"\b(?:next|upcoming)\b(?!\s+(?:week|weekend|month|year|time)\b)", re.I)


# A day still to come, whatever it is the next of ("When's Craig's next weekend with the
# kids?"): never one gone by. Not "When does Kofi's pay rise start?", which the day it
# started answers once gone by.
_STILL_TO_COME = re.compile(r"\b(?:next|upcoming)\b", re.IGNORECASE)


# "By when…", "… due?", "What's the deadline for…", "When did I have to put it in by?":
# the end of a span of time.
_ASKS_DEADLINE = re.compile(
    r"^\W*(?:by|until|till)\s+when\b|\bdue\b|\bdeadlines?\b|\b(?:by|until|till)\W*$",
    re.IGNORECASE,
)
# "When did Dana say she would pay?", "When were the shirts going to be ready?": asked in
# the past, of what was then still to come; the plan's day answers, not the day it was said.
_ASKS_PLANNED = re.compile(
    r"\b(?:would|(?:was|were)\s+(?:\w+\s+)?(?:going\s+to|supposed\s+to|meant\s+to|due)|"
    r"had\s+to|planned\s+to)\b",
    re.IGNORECASE,
)
# A time that names no day, placing the thing there: "in March", "next month", "by the
# summer", "sometime", "tbc" ("the warm summer breeze" places nothing).
_VAGUE_TIME = re.compile(
    r"\b(?:in|by|until|till|around|from|early|late|mid|next|this|end\s+of)\s+(?:the\s+)?"
    rf"(?:{MONTH_WORD}|spring|summer|autumn|"
    r"fall|winter|month|year|weeks?)\b|\b(?:sometime|someday|eventually|tbc|tbd)\b",
    re.IGNORECASE,
)
# "Which day…", "What year…": the question's word for the kind of date it asks, and what
# says a date of that kind. A sentence naming one ("41° on Thursday", "born December 17,
# 1994") answers the question's word for it, as a sentence saying the word does.
_A_DAY = (
    r"(?:mon|tues|wednes|thurs|fri|satur|sun)day|today|tonight|tomorrow|yesterday|"
    rf"\d{{1,2}}(?:st|nd|rd|th)?\s+{MONTH_WORD}|{MONTH_WORD}\.?\s+\d{{1,2}}(?:st|nd|rd|th)?"
)
_KIND_NAMED = {
    kind: re.compile(rf"\b(?:{pattern})\b", re.IGNORECASE)
    for kind, pattern in (
        ("day", _A_DAY),
        ("date", _A_DAY),
        ("month", MONTH_WORD),
        ("year", r"(?:19|20)\d\d"),
        # "When was the IFU due?": "deadline moved from 8 May to 15 May"
        ("due", r"due|deadlines?"),
        (terms("deadline")[0], r"due|deadlines?"),
    )
}
# A "when" question reads this many of the best sentences for one that states a date.
DATED_CANDIDATES = 5
# "When did I / she …": a pronoun subject, whose doing a personal record tells (see DID).
_PRONOUNS = frozenset({"i", "we", "you", "he", "she", "they"})


def dated_answer(
    question_terms: Sequence[str],
    pool: Sequence[Candidate],
    sources: Sequence[Source],
    question: str,
    zone: tzinfo | None = None,
    spoken: frozenset[str] = frozenset(),
    now: datetime | None = None,
) -> str:
    """A "when" question: the date of the best sentence, read against its note's date.
    ``spoken``: the name terms of the people asked about, who speak in these notes: their
    name covers the question with their line, but never alone ("When is Tom's birthday?"
    is not answered by Tom's "I will draft the copy by Friday").

    A relative phrase ("yesterday", "last Saturday", "next month") is resolved
    against the day the note was written; a sentence naming its own date is
    quoted; otherwise the note's date is the answer — but only for a personal
    record (a speaker's line, a sentence or question in the first person: "We
    signed the lease"), where the day of writing is the day it happened. An
    undated sentence about someone else ("Henry Kaiser was an industrialist")
    says nothing of when: declined rather than answered with the day it was saved.
    """
    answer = _dated_answer(question_terms, pool, sources, question, zone, spoken, now)
    if now is None or not _STILL_TO_COME.search(question):
        return answer
    # "When's Craig's next weekend with the kids?" is never a day gone by ...
    today = now.astimezone(zone).date()
    if not _gone_by(answer, today):
        return answer
    # ... but a later sentence may tell it: "When's my next physio?" over "next appt thurs
    # mar 5" and, a note later, "next appt in 4 wks"
    kept = _not_gone_by(pool, sources, today, zone)
    if kept and len(kept) < len(pool):
        answer = _dated_answer(question_terms, kept, sources, question, zone, spoken, now)
        if not _gone_by(answer, today):
            return answer
    return NOT_ENOUGH


_A_YEAR = re.compile(r"\b(?:19|20)\d\d\b")
_YEARLY = re.compile(r"\b(?:birthday|bday|b-day|anniversary)s?\b", re.IGNORECASE)


def _next_yearly(day: date, today: date) -> date:
    """The first day on or after ``today`` with ``day``'s month and day (29 February: 1
    March in a year without one)."""

    def in_year(year: int) -> date:
        try:
            return day.replace(year=year)
        except ValueError:
            return date(year, 3, 1)

    this_year = in_year(today.year)
    return this_year if this_year >= today else in_year(today.year + 1)


# Asked when a run of days ends: "until when is the creche shut", "when does it reopen"
# ("back" is not asked so: "when am I going back to work" asks when a thing starts).
_ASKS_END = re.compile(
    r"\b(?:end|ends|ending|finish|finishes|over|until|till|last\s+day|reopens?)\b",
    re.IGNORECASE,
)
_MONTH_NAMED = re.compile(rf"\b{MONTH_WORD}", re.IGNORECASE)


def _gone_by(answer: str, today: date) -> bool:
    """The days the answer tells have all gone by."""
    told = MARKER.sub("", answer).rstrip(". ")
    days = [d] if (d := day_of(told)) else named_days(told, today)
    return bool(days) and max(days) < today


def _not_gone_by(
    pool: Sequence[Candidate], sources: Sequence[Source], today: date, zone: tzinfo | None
) -> list[Candidate]:
    """The sentences naming no day, a day that recurs, or a day not before ``today``,
    read against their note's day."""
    written = {
        s.cid: (s.chunk.created_at.astimezone(zone) if zone else s.chunk.created_at).date()
        for s in sources
    }

    def gone(c: Candidate) -> bool:
        if monthly_days(c.text, written[c.cid], today) or weekly_days(c.text, today):
            return False  # "standing order on the 28th" comes round again
        days = named_days(c.text, written[c.cid]) or [
            d for r in resolve_phrases(c.text, written[c.cid]) if (d := day_of(r.meaning))
        ]
        return bool(days) and max(days) < today

    return [c for c in pool if not gone(c)]


def _dated_answer(
    question_terms: Sequence[str],
    pool: Sequence[Candidate],
    sources: Sequence[Source],
    question: str,
    zone: tzinfo | None,
    spoken: frozenset[str],
    now: datetime | None,
) -> str:
    """``dated_answer``, but for a day gone by when one still to come is asked."""
    # "When is the shower now?": how the plan stands. "Now" says that, not what of: a
    # note moving the shower need not say "now".
    # So does "end up", "actually", "in the end": "What date did the inspection end up
    # being?" asks how the plan changed, after the first date was set.
    ended = bool(_HOW_IT_ENDED.search(question))
    as_it_stands = bool(_AS_IT_STANDS.search(question) and not _ASKS_PAST.search(question))
    # Asked of what is to come, with no word of a change ("When are Kenta's leaving
    # drinks?"), a later note still tells how the plan stands when it says it changed
    # ("drinks didn't happen Sat … now this Sat 7pm"); a later note of the same thing
    # saying no change is of another day of it ("online application Mon 16 Mar" under
    # "JLPT" is not the test's day).
    implied = not as_it_stands and not ended and not _ASKS_PAST.search(question)
    as_it_stands = as_it_stands or ended or implied
    wanted = set(question_terms) - _AS_IT_STANDS_TERMS
    # nor is "end up" in "When did I end up doing the ALS course?" (nor "finally")
    wanted -= {t for m in _HOW_IT_ENDED.finditer(question) for t in terms(m.group(0))}
    # "When is my next night shift?": "next" says which of the days, not what of
    asks_next = bool(_ASKS_NEXT.search(question))
    if asks_next:
        wanted -= {"next", "upcom"}
    kinds = {k: named for k, named in _KIND_NAMED.items() if k in wanted}
    if kinds:
        pool = [
            replace(c, terms=c.terms | {k for k, named in kinds.items() if named.search(c.text)})
            for c in pool
        ]

    def share(found: frozenset[str] | set[str]) -> float:
        return len(found & wanted) / len(wanted) if wanted else 1.0

    by_cid = {s.cid: s.chunk for s in sources}
    # "When does Olu's lease end?": the date is his only in a sentence naming him, his
    # line (or one said to him), or a note titled by him; "Tasha: lease ends 5/31/27" is
    # hers.
    # A line naming no one ("Increase donepezil to 10mg from next Monday" in a carer's
    # notebook, for "When did Dad's donepezil go up?") is the writer's record of the
    # person the notebook is about: it stands for any owner.
    owners = [name for name, _ in answer_types.possessions(question)]
    # A sentence must say more of the question than who the thing is of: "Conor's uncle
    # Pat" says nothing of "Conor's stag".
    others = (wanted - spoken - {t for name in owners for t in name}) or (wanted - spoken)
    titles = {s.cid: frozenset(terms(s.chunk.title)) for s in sources}
    headlines = {s.cid: headline_terms(s) for s in sources} if owners else {}
    known = (
        frozenset(t for n in people.notebook_names(sources, pool) for t in terms(n))
        if owners
        else frozenset()
    )

    def theirs(c: Candidate) -> bool:
        held = c.terms | frozenset(terms(f"{c.speaker} {c.listener}")) | titles[c.cid]
        # their line, or one of a note about them (its title or opening names them)
        about = held | headlines.get(c.cid, frozenset())
        return all(name & about for name in owners) or not (held & known)

    def covers(c: Candidate) -> bool:
        return (
            share(c.terms) >= MIN_COVERAGE and (not others or bool(c.terms & others)) and theirs(c)
        )

    # What each note says of the question, all its sentences together: "order the bird
    # by Tuesday" is about the faraona its note's other sentence names.
    in_note = covered_by_note(pool, wanted)

    def written_of(c: Candidate) -> datetime:
        written = by_cid[c.cid].created_at
        # the day it was written, on the asker's calendar
        return written.astimezone(zone) if zone is not None else written

    if not pool:
        return NOT_ENOUGH

    # "When was the frost?", asked on Thursday of "Frost -3 on Monday" written on Wednesday:
    # asked in the past of something done, the Monday its sentence does not say the
    # direction of is the one before, not one still to come.
    today = now.astimezone(zone).date() if now is not None and zone is not None else None
    asked_back = bool(_ASKS_PAST.search(question)) and not _ASKS_PLANNED.search(question)
    asked_ahead = bool(_ASKS_AHEAD.search(question)) and not asked_back
    # a birthday or an anniversary asked of as it comes round, not of the day it began
    yearly = bool(_YEARLY.search(question)) and not asked_back
    if asked_back and today is not None:
        # "When was our first game?" is not answered by the spring season's "first game
        # Sat 9 May", still to come, when another sentence covering the question names
        # only days gone by ("first game Sat 17 Jan"): asked of a day gone by, it is meant
        dated_by_name = [
            (c, named_days(c.text, written_of(c).date()) if has_absolute_date(c.text) else [])
            for c in pool
        ]
        if any(covers(c) and days and max(days) <= today for c, days in dated_by_name):
            pool = [c for c, days in dated_by_name if not days or min(days) <= today]

    def dates_of(c: Candidate) -> list[_Dated]:
        """The dates the sentence states, or its title when the sentence states none
        ("design doc review tmrw" over the doc's comments). A sentence naming a date
        itself ("Sat 24 Jan") is quoted, not the weekday's reading."""
        note = by_cid[c.cid].text
        if has_absolute_date(c.text) and not _relative_nearer(c, note, wanted, written_of(c)):
            quoted = speaker_prefix(c.text, c.speaker)
            spans = absolute_spans(c.text)
            # (a date in numbers with its year is read as the phrases are: "exp 5/11/2028")
            days = set(named_days(c.text, written_of(c).date())) | {
                d
                for r in resolve_phrases(c.text, written_of(c))
                if (d := day_of(r.meaning)) and any(r.start < b and a < r.end for a, b in spans)
            }
            day = days.pop() if len(days) == 1 else None
            if (
                day is not None
                and yearly
                and today is not None
                and day < today
                and any(int(y) < today.year for y in _A_YEAR.findall(c.text))
            ):
                # "when is aoifes birthday" over "Aoife - 12 Aug (2017)" or "Aoife bday
                # 12/08/2017": a day first met in a year gone by, that comes round every
                # year, is next on its day still to come ("mama's birthday Sat 2 May",
                # naming no year, is this year's)
                quoted = f"{day_text(_next_yearly(day, today))}: {quoted}"
            elif day is not None and not any(_MONTH_NAMED.search(c.text[a:b]) for a, b in spans):
                # "exp 5/11/2028": a date in numbers is told as the day it is, which way
                # round the writer's part of the world writes it
                quoted = f"{day_text(day)}: {quoted}"
            elif len(ranges := day_ranges(c.text, written_of(c).date())) == 1 and (
                (first_day := ranges[0][0]) != (last_day := ranges[0][1])
            ):
                # "creche closed 3-14 aug": the days run from the first, which is when it
                # shuts; asked when it ends ("until when", "when are they back"), the last
                quoted = (
                    f"{day_text(last_day if _ASKS_END.search(question) else first_day)}: {quoted}"
                )
            elif nearest := _day_nearest(c.text, spans, written_of(c), wanted):
                # "falls clinic wed 4 nov 2pm also audiology letter - hearing aid check
                # 19/10/26 11:15": of the days a line names, the one written nearest the
                # question's words ("when was the hearing aid appointment")
                quoted = f"{day_text(nearest)}: {quoted}"
            return [_Dated(quoted, is_deadline(c.text, at), False, named=True) for at, _ in spans]
        said_before = note[: max(0, note.find(c.text))]
        for text, before in ((c.text, said_before), (by_cid[c.cid].title, "")):
            resolved = _nearest_first(resolve_phrases(text, written_of(c), before), text, wanted)
            if asked_back:
                # "When was the neuro appointment?" is not answered by its note's "next
                # clinic in 6 months": a day or month still to come is no day gone by
                resolved = [
                    r
                    for r in resolved
                    if r.read_back is not None or not _ahead_of(r.meaning, today)
                ]
            if resolved:
                return [
                    _Dated(r.read_back, False, True)
                    if asked_back and r.read_back is not None and _after(r.meaning, today)
                    else _Dated(r.read_ahead, is_deadline(text, r.start), False)
                    if asked_ahead
                    and r.read_ahead is not None
                    and not _after(r.meaning, today)
                    and not _before(r.read_ahead, today)
                    else _Dated(r.meaning, is_deadline(text, r.start), r.past)
                    for r in resolved
                ]
        return []

    def _days_named(c: Candidate) -> list[date]:
        """The days a sentence names, itself or by a phrase read against its note's day."""
        written = written_of(c).date()
        named = (
            named_days(c.text, written)
            or monthly_days(c.text, written, today or written)
            or (weekly_days(c.text, today) if today is not None else [])
        )
        if named:
            return sorted(d for d in named if today is None or d >= today) or named
        return [d for r in resolve_phrases(c.text, written_of(c)) if (d := day_of(r.meaning))]

    def first(c: Candidate, keep: Callable[[_Dated], bool]) -> str | None:
        return next((d.text for d in dates_of(c) if keep(d)), None)

    def recorded_done(told: Iterable[Candidate]) -> str | None:
        """The first sentence of ``told`` (those telling the thing done), dated: the day
        gone by it names, or the day it was written."""
        done = next(iter(told), None)
        if done is None:
            return None
        return cite(first(done, lambda d: d.past) or day_text(written_of(done).date()), done.cid)

    if not covers(pool[0]):
        if not _OPENS_WHEN.match(question):
            return NOT_ENOUGH
        # No sentence says enough of the question, but a note may, all its sentences
        # together: "childbirth class" / "Signed up: Birth Basics …" / "5 wks, Tuesdays,
        # starts Oct 6" for "When did the birth class start?". Its dated sentence that
        # says a word of the question answers (a name of who speaks counts for neither:
        # "Tom: I will draft the copy by Friday" says nothing of Tom's birthday). Only for
        # a question opening with "when": "What year was the film that starred …?" asks
        # of one thing among an article's many (a composer's "born November 1, 1997").
        noted = [
            c
            for c in pool
            if share(in_note[c.cid] - spoken) >= MIN_COVERAGE
            and c.terms & others
            and theirs(c)
            and first(c, _names_a_day) is not None
        ]
        if not noted:
            return NOT_ENOUGH
        lead = max(noted, key=lambda c: (share(in_note[c.cid]), share(c.terms), c.score))
        return cite(first(lead, _names_a_day) or "", lead.cid)

    def in_a_note(best: Candidate) -> str | None:
        """The day named by a sentence of the note that, all its sentences together,
        covers the question best: "Doing: drywall patches, rehang the door. Coming
        Saturday 9am." dates the patches in its last sentence, even when another
        note's undated line ("Drywall patch needed — Dave will do it") matches best.
        Another note must cover the question better than the best line's own note: one
        that only covers it as well is a neighbour with a date of its own."""
        floor = max(MIN_COVERAGE, share(in_note[best.cid]))
        notes = [
            cid
            for cid in dict.fromkeys(c.cid for c in pool)
            if cid == best.cid or share(in_note[cid]) > floor
        ]
        notes.sort(key=lambda cid: -share(in_note[cid]))
        for cid in notes:
            if share(in_note[cid]) < MIN_COVERAGE:
                break
            for c in pool:
                if c.cid == cid and c is not best and (when := first(c, _names_a_day)):
                    return cite(when, cid)
        return None

    def alternative(keep: Callable[[_Dated], bool], floor: float) -> str | None:
        """The best other sentence covering the question as well as ``floor`` whose
        date is of the kind wanted."""
        for c in pool[1:]:
            if share(c.terms) >= floor and theirs(c) and (said_when := first(c, keep)) is not None:
                return cite(said_when, c.cid)
        return None

    if asks_next and today is not None:
        # the earliest day still to come that a sentence covering the question names
        # ("Then nights again 30 Nov, 1 Dec" over "nights: 9,10,11 Nov")
        # (or whose note covers it, all its sentences together: "Rent £725 pcm – standing
        # order on the 28th" in the note titled "Flat 1 – Dan" that names him once)
        upcoming = [
            (day, c)
            for c in pool
            if covers(c)
            or (share(in_note[c.cid]) >= MIN_COVERAGE and c.terms & others and theirs(c))
            for day in _days_named(c)
            if day >= today
        ]
        if upcoming:
            # of the sentences covering the question best, the earliest day; of rules
            # covering it as well, the one written last ("deliveries now Mon, Wed, Fri"
            # over "delivers Tue/Thu/Sat"): a rule stands until another replaces it
            def rank(found: tuple[date, Candidate]) -> tuple[float, float]:
                return -share(found[1].terms), -share(in_note[found[1].cid])

            day, c = min(upcoming, key=lambda found: (*rank(found), found[0]))
            if _ruled(c.text):
                # (as well by what the sentence says: its note's other lines are no
                # better a sign of which rule is meant)
                rules = [
                    f for f in upcoming if share(f[1].terms) == share(c.terms) and _ruled(f[1].text)
                ]

                def written(f: tuple[date, Candidate]) -> tuple[datetime, int]:
                    return by_cid[f[1].cid].created_at, f[1].position

                latest = max(written(f) for f in rules)
                day, c = min((f for f in rules if written(f) == latest), key=lambda f: f[0])
            said = [d.text for d in dates_of(c) if d.named or day_of(d.text) == day]
            return cite(said[0] if said else day_text(day), c.cid)

    if _ASKS_DEADLINE.search(question):
        # "By when…": a deadline ("he'll confirm by Friday") in the note about it, even
        # when another sentence covers the question better ("Tiago said yes. start Aug 18").
        due = [
            c
            for c in pool
            if c.terms & wanted
            and theirs(c)
            and share(in_note[c.cid]) >= MIN_COVERAGE
            and first(c, lambda d: d.deadline) is not None
        ]
        if due:
            # ("… due in the end": of the notes about it, the last written — "new deadline
            # fri 16 april" after "due fri 9 april")
            c = max(
                due,
                key=lambda c: (
                    by_cid[c.cid].created_at.timestamp() if ended else 0.0,
                    share(in_note[c.cid]),
                    share(c.terms),
                    c.score,
                ),
            )
            return cite(first(c, lambda d: d.deadline) or "", c.cid)
    best = pool[0]
    if ended and asked_back:
        # "What day did the engagement shoot actually happen?", after a plan and its
        # changes: the note recording it done ("Engagement shoot - done", "Verde shoot:
        # done! 22 finals") was written on the day, the last such note if several. It
        # covers the question as fully as any note does: "Engagement shoot - done" is no
        # record of the Verde shoot.
        fullest = max(MIN_COVERAGE, max(share(in_note[c.cid]) for c in pool))
        records = [
            c
            for c in pool
            if share(in_note[c.cid]) >= fullest
            and c.terms & others
            and theirs(c)
            and (_COMPLETED.search(c.text) or _COMPLETED.search(by_cid[c.cid].title))
        ]
        if records:
            c = max(records, key=lambda c: (by_cid[c.cid].created_at, share(c.terms)))
            return cite(day_text(written_of(c).date()), c.cid)
    if as_it_stands:
        # "When is the baby shower now?": a note written after the best one's that covers
        # the question and names a day tells how the plan stands ("moved the shower to Sat
        # Dec 12"), even when the first note says more of it ("baby shower: Sat Dec 5"):
        # of those covering it best, the last written. A deadline ("images due by Fri
        # 15th") is no day of the thing itself.
        def a_day(d: _Dated) -> bool:
            return _names_a_day(d) and not d.deadline

        def its_day(c: Candidate) -> str | None:
            # a change tells the old day and the new: "drinks didn't happen Sat. now this
            # Sat 7pm" is the day still to come, asked ahead
            ahead = None if asked_back else first(c, lambda d: a_day(d) and not d.past)
            return ahead or first(c, a_day)

        # the names of the notebook the question writes, as the best line does
        named_in_question = (
            wanted
            & best.terms
            & frozenset(t for n in people.notebook_names(sources, pool) for t in terms(n))
        )
        later = [
            c
            for c in pool
            if c.cid != best.cid
            and by_cid[c.cid].created_at > by_cid[best.cid].created_at
            and covers(c)
            # (a change to someone's plan names them: "Dr Whitfield rang back" is no
            # change to "Bev back Mon 25th")
            and named_in_question <= in_note[c.cid]
            and (not implied or _CHANGED.search(c.text))
            and its_day(c) is not None
        ]
        if later:
            c = max(later, key=lambda c: (share(c.terms), by_cid[c.cid].created_at, c.score))
            return cite(its_day(c) or "", c.cid)
    verb = DID.search(question)
    if (
        verb
        and verb["who"].lower() in _PRONOUNS
        and _ASKS_PAST.search(question)
        and not _ASKS_PLANNED.search(question)
        and checklists.box_of(best.text) is checklists.Boxes.OPEN
    ):
        # "When did I register for Traducción Viva?": "[ ] register for Traducción Viva
        # (early bird ends 30/9)" is a plan and its deadline; a note about it telling the
        # thing done ("Early bird €145 → registered today ✔") dates it.
        done = recorded_done(
            c
            for c in pool
            if c.cid != best.cid
            and c.terms & others
            and share(in_note[c.cid]) >= MIN_COVERAGE
            and theirs(c)
            and _tells_done(c.text, verb["verb"])
        )
        if done is not None:
            return done
    dated = dates_of(best)
    if dated:
        if not _ASKS_DEADLINE.search(question) and all(d.deadline for d in dated):
            # "When did I present…?" over "portfolio presentation. they'll send times by
            # Friday": a deadline is not when the thing happens; a sentence covering the
            # question as well that dates it is ("date: Thu Jan 22").
            event = alternative(lambda d: not d.deadline, share(best.terms))
            if event is not None:
                return event
            if asked_back:
                # "When did I do module 2?" over "need module 2 done by 1 Mar": a sentence
                # covering it as well that records it done ("Community Coach module 2
                # DONE") was written on the day
                done = recorded_done(
                    c
                    for c in pool[1:]
                    if share(c.terms) >= share(best.terms)
                    and theirs(c)
                    and _COMPLETED.search(c.text)
                    and not _NOT_DONE.search(c.text)
                    and not dates_of(c)
                )
                if done is not None:
                    return done
        if month := _MONTH_ONLY.fullmatch(dated[0].text):
            # "pass JLPT N3 in July" says the month; "July test = Sun 5 July 2026" in the
            # note about it says the day: a day of that month, in a line covering the
            # question, answers it more exactly
            # (or, in a note written later, a day of a month beside it: "defense
            # realistically late feb / march", then "pencil in the defense for fri march 5")
            stated = day_of(f"1 {month.group(0)}")
            exact = [
                (day, c)
                for c in pool
                if c is not best and covers(c)
                for day in _days_named(c)
                if month_text(day) == month.group(0)
                or (
                    stated is not None
                    and abs((day.year - stated.year) * 12 + day.month - stated.month) == 1
                    and written_of(c) > written_of(best)
                    # a day the line writes out, not one read from "last week"
                    and day in named_days(c.text, written_of(c).date())
                )
            ]
            if exact:
                day, c = max(exact, key=lambda found: (share(found[1].terms), found[1].score))
                said = [d.text for d in dates_of(c) if d.named or day_of(d.text) == day]
                return cite(said[0] if said else day_text(day), c.cid)
        return cite(dated[0].text, best.cid)
    # A personal record ("domain renewed, done", "We signed the lease"): the day it was
    # written is the day it happened.
    recorded = bool(
        best.speaker
        or first_person(best.text)
        or first_person(question)
        # "camera arrived!! box is tiny": a line telling what happened and naming no one is
        # the writer's own record, as a note to self leaves out its "I" ("Henry Kaiser
        # was an industrialist", "Marek booked…" name whom they are about)
        or (told_in_past(best.text) and not _NAMES_INSIDE.search(best.text))
        # "Hannah confirmed!!" for "when did hannah confirm": a short line telling the very
        # doing asked about, done, is the writer's record of it that day
        or bool(
            (did := _DID_LAST.search(question))
            and len(words(best.text)) <= _RECORD_WORDS
            and _tells_done(best.text, did["verb"].lower())
            and not _NOT_DONE.search(best.text)
        )
    )
    if _ASKS_PAST.search(question) and not _ASKS_PLANNED.search(question):
        # "linalg midterm done", written on the day: the record of it done dates it, before
        # any other sentence's reading of a weekday.
        # (or under a title saying so: "pizza party = big success" in "party done")
        if _COMPLETED.search(best.text) or _titled_done(by_cid[best.cid].title):
            return cite(day_text(written_of(best).date()), best.cid)
        # "When did the pg primary run out of memory?": a sentence covering it as well
        # that dates what happened ("yesterday 21:50 pg primary OOM") ...
        happened = alternative(lambda d: d.past, share(best.terms))
        if happened is None and not recorded:
            # "When was the book scrutiny?" over its undated feedback note: a sentence
            # covering it as well that names its day ("book scrutiny Thurs 8 Oct")
            happened = alternative(lambda d: d.named and not d.deadline, share(best.terms))
        if happened is None:
            # "Went with Academia Sol, A2 group. 12 weeks starting Sept 14": a sentence of
            # the same note that names a day and says what the best one lacks ("start")
            happened = next(
                (
                    cite(when, c.cid)
                    for c in pool
                    if c.cid == best.cid
                    and c is not best
                    and (c.terms & wanted) - best.terms
                    and (when := first(c, _names_a_day)) is not None
                ),
                None,
            )
        if happened is not None:
            return happened
        # ... else the record of it, not the plan to ("renew domain (expires 4 March!)");
        # an undated sentence of someone else's past says nothing of when.
        if recorded:
            # "When did I finish Middlemarch?": "finished it on the train" records it
            # done, where "finish Middlemarch finally" (a goal) plans it.
            verb = DID.search(question)
            if verb and verb["who"].lower() in _PRONOUNS and _plans(best.text, verb["verb"]):
                done = recorded_done(
                    c
                    for c in pool[1:DATED_CANDIDATES]
                    if covers(c) and _tells_done(c.text, verb["verb"])
                )
                if done is not None:
                    return done
            # A log headed by its day ("sat mar 6, -14C" / "- Leo triplet …", written after
            # midnight): the day it heads dates its lines, not the moment they were typed
            heading = next((c for c in pool if c.cid == best.cid and c.position < best.position
                            and _heads_the_note(c, by_cid[c.cid])), None)  # fmt: skip
            if heading is not None and (headed := first(heading, _names_a_day)) is not None:
                return cite(headed, heading.cid)
            return cite(day_text(written_of(best).date()), best.cid)
        return in_a_note(best) or NOT_ENOUGH
    # A sentence saying when the thing recurs ("lesson with Lucía every Wednesday 6pm")
    # answers when it is as written: no one date is it.
    if _RECURS.search(best.text):
        return cite(speaker_prefix(best.text, best.speaker), best.cid)
    # What is coming: the best sentence is about the event but says nothing of when
    # ("RSVPd yes to Isla's party"): the next ones that cover the question may ("Isla's
    # 9th, Sat 24 Jan").
    for c in pool[1:DATED_CANDIDATES]:
        if covers(c) and (said_when := first(c, lambda d: True)) is not None:
            return cite(said_when, c.cid)
    # The day a record was written dates what it records ("we signed the lease"), but not
    # a sentence that puts it at another, vaguer time: "CQC visit expected sometime in
    # March", written on 20 January, does not happen on the 20th.
    # Nor is it the day of something asked about as still to come: "When is Conor's stag?"
    # is not answered by the day the RSVP list was written.
    # (a speaker's line is what they said that day of their plans: "When is Nate hosting
    # a gaming party?" over his "I'm hosting one!" is near that day, LoCoMo's answers say)
    ahead = (
        _ASKS_AHEAD.search(question)
        and not best.speaker
        and today is not None
        and written_of(best).date() < today
    )
    if recorded and not ahead and not _VAGUE_TIME.search(best.text):
        return cite(day_text(written_of(best).date()), best.cid)
    return in_a_note(best) or NOT_ENOUGH


_IN_NUMBERS = re.compile(r"\d[/.]\d")


def _day_nearest(
    text: str, spans: Sequence[tuple[int, int]], written: datetime, wanted: set[str]
) -> date | None:
    """Of the days a sentence names itself (``spans``), the one written nearest a word of
    the question, when it is written in numbers; None when the sentence names one day,
    no question word sets one apart, or the nearest is written out."""
    located = [
        Resolved(text[a:b], day_text(day), a, b)
        for a, b in spans
        for day in named_days(text[a:b], written.date())[:1]
    ]
    located += [
        r
        for r in resolve_phrases(text, written)
        if day_of(r.meaning)
        # (a date in numbers is a date itself too: "hearing aid check 19/10/26")
        and (any(r.start < b and a < r.end for a, b in spans) or _IN_NUMBERS.search(r.phrase))
        and not any(o.start < r.end and r.start < o.end for o in located)
    ]
    if len({r.meaning for r in located}) < 2 or not _asked_at(text, wanted, located):
        return None
    nearest = _nearest_first(located, text, wanted)[0]
    # (only a date in numbers is told so: a day written out, "sat dec 13", reads as it is,
    # and the nearest is no sure reading of which the question asks)
    return None if _MONTH_NAMED.search(nearest.phrase) else day_of(nearest.meaning)


def _nearest_first(resolved: list[Resolved], text: str, wanted: set[str]) -> list[Resolved]:
    """The dates of a sentence, the one written nearest a word of the question first:
    "closed Thu 12/24 – Sat 12/26, extra distribution Mon 12/21" dates the extra
    distribution on the 21st. Without a question word in the sentence, as written."""
    if len(resolved) < 2:
        return resolved
    moved = _MOVED_FROM.search(text)
    if moved is not None:
        # "moved from Sat 11/21 to FRIDAY 11/20": the day it was moved from is no longer it
        later = [r for r in resolved if r.start >= moved.end() or r.end <= moved.start()]
        resolved = later or resolved
    at = _asked_at(text, wanted, resolved)
    if not at:
        return resolved

    def gap(r: Resolved) -> int:
        """Characters between the date and the nearest question word; more across a
        clause's end (a comma, a semicolon, a dash between spaces)."""
        begins = r.end - len(r.phrase)

        def apart(start: int, end: int) -> int:
            lo, hi = (end, begins) if end <= begins else (r.end, start)
            return max(0, hi - lo) + (100 if _CLAUSE_END.search(text, lo, hi) else 0)

        return min(apart(start, end) for start, end in at)

    return sorted(resolved, key=gap)


_CLAUSE_END = re.compile(r"[,;]|\.\s|\s[–—-]\s")


def _asked_at(text: str, wanted: set[str], dates: Sequence[Resolved]) -> list[tuple[int, int]]:
    """Where the sentence writes a word of the question, outside the dates it names."""
    return [
        (m.start(), m.end())
        for m in re.finditer(r"[\w'’]+", text)
        if frozenset(terms(m.group(0))) & wanted
        and not any(r.start <= m.start() < r.end for r in dates)
    ]


def _relative_nearer(c: Candidate, note: str, wanted: set[str], written: datetime) -> bool:
    """A relative phrase of the sentence is written nearer the question's words than any
    date it names itself: "letter home goes out fri. deposit £50 by 23 jan" dates the
    letter on the Friday, the deposit on the 23rd."""
    said_before = note[: max(0, note.find(c.text))]
    relative = resolve_phrases(c.text, written, said_before)
    if not relative:
        return False
    absolute = [Resolved(c.text[s:e], "", s, e) for s, e in absolute_spans(c.text)]
    if not absolute:
        return False
    # (a weekday written with its date, "Sat 24 Jan", "thurs nov 12", is that date)
    relative = [
        r
        for r in relative
        if not any(
            a.start <= r.start < a.end
            or re.fullmatch(r"[\s,.]*(?:the\s+)?", c.text[r.end : a.start])
            for a in absolute
        )
    ]
    nearest = _nearest_first([*absolute, *relative], c.text, wanted)
    if not relative or nearest[0] not in relative:
        return False
    # only across a sentence's end: "echo booked thurs week, 22 Jan 8am" says one day twice
    r = nearest[0]
    return all(
        _SENTENCE_BREAK.search(c.text, min(r.end, a.end), max(r.start, a.start)) for a in absolute
    )


_SENTENCE_BREAK = re.compile(r"[.!?]\s|\n")


# "moved from Sat 11/21 to", "pushed from the 3rd to": the span of the day given up.
_MOVED_FROM = re.compile(
    r"\b(?:mov|chang|push|postpon|reschedul|shift|swapp|switch|bump)\w*\s+(?:\w+\s+){0,3}?"
    r"from\s+[^,;.]*?(?=\s+to\b)",
    re.IGNORECASE,
)


_OPENS_WHEN = re.compile(r"^\W*(?:(?:and|but|so)\s+)?when\b", re.IGNORECASE)


def _ruled(text: str) -> bool:
    """The sentence names days by a rule that comes back ("every Thurs", "on the 25th of
    each month"), not a date of its own."""
    any_day = date(2000, 1, 1)
    return not named_days(text, any_day) and bool(
        weekly_days(text, any_day) or monthly_days(text, any_day, any_day)
    )


def _ahead_of(meaning: str, today: date | None) -> bool:
    """The meaning is a day, or a month, after ``today``."""
    if today is None:
        return False
    if day_of(meaning) is not None:
        return _after(meaning, today)
    month = _MONTH_ONLY.fullmatch(meaning)
    return (
        month is not None and (first := day_of(f"1 {month.group(0)}")) is not None and first > today
    )


def _before(meaning: str, today: date | None) -> bool:
    day = day_of(meaning)
    return today is not None and day is not None and day < today


def _after(meaning: str, today: date | None) -> bool:
    day = day_of(meaning)
    return today is not None and day is not None and day > today


# A time that recurs: "every Wednesday", "each month", "on Mondays", "weekly", "daily".
_RECURS = re.compile(
    r"\b(?:every|each)\s+(?:other\s+|(?:first|second|third|fourth|last|1st|2nd|3rd|4th)\s+)?"
    r"(?:day|week|weekend|month|year|morning|evening|night|"
    r"monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b|"
    # "2nd Monday of every month", "the last Friday of the month"
    r"\b(?:first|second|third|fourth|last|1st|2nd|3rd|4th)\s+(?:mon|tues|wednes|thurs|fri|"
    r"satur|sun)day\s+(?:of\s+(?:every|each|the|a)|every|each)\s+month\b|"
    r"\b(?:on\s+)?(?:mondays|tuesdays|wednesdays|thursdays|fridays|saturdays|sundays)\b|"
    r"\b(?:daily|weekly|fortnightly|monthly|yearly|annually)\b",
    re.IGNORECASE,
)
# What a month said alone reads as ("in July" written in January: "July 2026").
_MONTH_ONLY = re.compile(rf"(?:{'|'.join(calendar.month_name[1:])}) \d{{4}}")
# A line telling a plan changed: "moved to", "rescheduled", "now this Sat", "can't do the
# 16th after all", "didn't happen".
_CHANGED = re.compile(
    r"\b(?:moved|moving|pushed|postponed|rescheduled|re-?booked|changed|bumped|shifted|delayed|"
    r"put\s+off|brought\s+forward|instead|now|after\s+all|didn['’]?t\s+happen|"
    r"can['’]?t\s+do|switched|swapped)\b",
    re.IGNORECASE,
)
# A record of something completed: "midterm done", "tax return finished".
_COMPLETED = re.compile(r"\b(?:done|finished|completed|over\s+with)\b", re.IGNORECASE)


def _plans(text: str, verb: str) -> bool:
    """The sentence names the verb as written in the question, not done: "finish
    Middlemarch finally" (a goal), "renew passport"."""
    return verb in words(text)


def _tells_done(text: str, verb: str) -> bool:
    """The sentence tells the verb as done: "finished", "renewed"."""
    return any(w != verb and w.endswith("ed") and stem(w) == stem(verb) for w in words(text))


# A date that names its day ("Saturday, 28 February 2026", "Sat 24 Jan", "2026-02-28"),
# not a period ("2026" for "this year").
_DAY_NAMED = re.compile(
    rf"\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{MONTH_WORD}|{MONTH_WORD}\.?\s+\d{{1,2}}\b|"
    r"\b\d{4}-\d{2}-\d{2}\b",
    re.IGNORECASE,
)


# A line recording a doing as it happened is short ("Hannah confirmed!!"); a long one
# is an account, of any day ("Kaiser founded … in Richmond, California").
_RECORD_WORDS = 6
# "Hannah hasn't confirmed", "module 2 still not done": no record of it done
_NOT_DONE = re.compile(
    r"\b(?:not|never|still|yet|(?:has|have|had|did|is|was|were|are)n['’]?t)\b", re.IGNORECASE
)
# A title saying its note records a thing done: "party done", "module 2 finished" (not
# "jobs to get done")
_DONE_TITLE = re.compile(r"\b(?:done|finished|completed)\W*$", re.IGNORECASE)
_TO_BE_DONE = re.compile(r"\bto\s+(?:get\s+|be\s+)?(?:done|finished|completed)\b", re.IGNORECASE)


def _titled_done(title: str) -> bool:
    """The title says its note records a thing done ("party done")."""
    return bool(
        _DONE_TITLE.search(title) and not _TO_BE_DONE.search(title) and not _NOT_DONE.search(title)
    )


# "when did hannah confirm": the doing asked about, the question's last word
_DID_LAST = re.compile(r"\bdid\s+\S.*?\s(?P<verb>[A-Za-z]+)\W*$", re.IGNORECASE)
# A capitalised word, maybe a name ("Marek booked to sort the gutters"); a sentence
# opening with a capital may be anyone's, so only a line without one is read as the
# writer's record.
_NAMES_INSIDE = re.compile(r"\b[A-Z][a-z]")


def _heads_the_note(c: Candidate, chunk: Chunk) -> bool:
    """The sentence is the first line of its note's body (after the title): a short one,
    as a log's date heading is."""
    body = chunk.text.removeprefix(chunk.title).lstrip()
    opening = body.split("\n", 1)[0].strip()
    return bool(opening) and c.text.strip() == opening and len(opening) <= _HEADING_CHARS


# A heading is short: "sat mar 6, -14C", "Tues 4 Feb – long run".
_HEADING_CHARS = 40


def _names_a_day(dated: _Dated) -> bool:
    return bool(_DAY_NAMED.search(dated.text))


@dataclass(frozen=True)
class _Dated:
    text: str  # what the answer says: the resolved date, or the sentence naming it
    deadline: bool  # "by Friday", "due Monday": the end of a span, not an event's day
    past: bool  # read backwards from the day of writing ("yesterday", "last Saturday")
    named: bool = False  # the sentence names the date itself ("Thurs 8 Oct")
