"""The offline generator: answers with the best-supported sentences of the sources.

It never writes a word that is not in a note, so every sentence it emits is
supported by the source it cites. What a question names is read in
:mod:`footnote.generation.names`; who said a line, and whom it is about, in
:mod:`footnote.generation.speakers`; what kind of phrase an answer must hold in
:mod:`footnote.generation.answer_types`.

Why this module is still over ~400 lines (~840): ``compose`` is one decision —
score the sentences, decline when the notes do not answer (a missing name, someone
else's fact, no phrase of the asked kind, too little of the question covered), else
choose and cite — and its stages share the scored candidates; the helpers below it
are the stages, each short. The one stage that is a decision of its own — which date
answers a "when" question — is :mod:`footnote.generation.when`; the scored sentence
(``Candidate``), its citation and the coverage floor, which both use, are in
:mod:`footnote.generation.sentences`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence, Set
from dataclasses import replace
from datetime import datetime
from itertools import pairwise

from footnote.domain import Intent, MemoryType, QueryAnalysis, Source
from footnote.generation import answer_types, checklists, sums
from footnote.generation import people as people_module
from footnote.generation.citations import MARKER
from footnote.generation.counting import (
    count_answer,
    counted,
    listed_tally,
    multiplied_tally,
    named_count,
    names_across,
    series_named,
    series_tally,
    stated_count,
)
from footnote.generation.dates import (
    calendar_mentions,
    contradicts,
    day_of,
    named_days,
    other_weekday,
    resolve_phrases,
)
from footnote.generation.names import (
    CALENDAR,
    CALENDAR_DAYS,
    missing_names,
    name_phrases,
    titles_named,
)
from footnote.generation.prompt import NOT_ENOUGH, quote_note_text
from footnote.generation.sentences import (
    DID,
    ITEM_LINE,
    MIN_COVERAGE,
    Candidate,
    cite,
    covered_by_note,
    headline_terms,
)
from footnote.generation.speakers import (
    SPEAKER,
    asked_people,
    attributed_sentences,
    listeners,
    said,
    speaker_prefix,
    whose_lines,
)
from footnote.generation.when import dated_answer
from footnote.ports import Embedder, Generator, Pieces
from footnote.query import acronyms
from footnote.query.analysis import dimension_terms
from footnote.query.time_anchors import MONTHS, WEEKDAYS
from footnote.text import (
    DECISION_VERBS,
    QUERY_FILLER,
    kin,
    short_for,
    spelled_out,
    split_sentences,
    stem,
    terms,
    words,
)

# question, sentences -> one relevance score per sentence (cosine of embeddings)
Relevance = Callable[[str, Sequence[str]], list[float]]

MODEL_NAME = "extractive-v1"
# A factual answer quotes at most this many sentences (plus one linked note).
FACTUAL_SENTENCES = 3
# ... from at most this many notes: a third note that adds a question word is
# more often a same-topic neighbour than a source (HotpotQA: precision 0.707 with
# 3 notes, 0.764 with 2, citation recall 0.785 vs 0.765).
FACTUAL_NOTES = 2
# A sentence of another note joins the answer only when it shares this many of the
# question's words: one shared word ("No scores officially recorded" for "What was the
# score against Malahide?") is a chance neighbour far more often than the rest of the
# answer.
OTHER_NOTE_MIN_TERMS = 2
# Letters and digits joined: a ticket, a model, a course ("INC-2310", "SN2", "CS101").
_CODE = re.compile(r"\b[A-Za-z]+-\d+[A-Za-z0-9-]*\b|\b[A-Z]+\d+[A-Z0-9]*\b")
# A thing named by a word and its number ("Flat 1", "Ward 3", "Court 2"): a code too, as
# "Flat 2" is another flat. Not a date ("Dec 5", "Sat 7"), a span of time ("Week 3") or a
# numbered part of a series notes write short ("Season 3" is "S3").
_NUMBERED_NAME = re.compile(r"\b(?P<word>[A-Z][a-z]+)\s+(?P<n>\d+)\b(?![.,:]\d|\s*(?:%|[ap]m\b))")
_NOT_NUMBERED = (
    CALENDAR_DAYS
    | {"weds"}
    | set("day days week weeks wk wks month months year years yr yrs hour hours hr hrs".split())
    | set("minute minutes min mins season series episode ep chapter part page step".split())
)
# A list answer quotes at most this many items of the note's list ...
LIST_ITEMS = 10
# ... a list being at least this many lines marked as items.
LIST_MIN_ITEMS = 3
_LIST_ITEM = re.compile(r"^[ \t]*(?:[-*•]|\d+[.)]|\[[ xX]?\])[ \t]+(.+)$", re.MULTILINE)
# Notes named by a quoted sentence (by title) join the answer: the second hop.
MAX_LINKED = 1
# A note whose title the question names is what the question is about: its
# sentences get this bonus over others with the same share of question terms.
NAMED_TITLE_BONUS = 0.25
# A follow-up's sentence naming what its "it" stands for (``QueryAnalysis.referents``)
# is preferred over one that answers as well: a tie-break, less than a question word.
REFERENT_BONUS = 0.1
# A sentence holding the question's rarest word among the sources: a tie-breaker, less
# than any one word of coverage.
RAREST_BONUS = 0.05
# How much better (coverage + relevance score) the best line about someone else must
# match a question than the best line about the person it names, for the fact to be
# read as that other person's and the question declined. 0: the better match owns the
# fact. Margins 0–0.3 trade decline rate for answered share along one curve on LoCoMo
# (docs/quality.md); 0 needs no tuned constant.
OTHER_MARGIN = 0.0
# "What did Sara say / think / ask…", "Which logo did Joana like?": a named person's
# words; "What did the derm specialist say…", "what did my landlord think": someone named
# by a role, whose words are reported under that word ("the specialist said …").
_ASKS_WORDS = re.compile(
    r"^\W*(?i:and\s+|but\s+|so\s+)?(?i:what|which|how)\b[^?]*?\bdid\s+(?:"
    r"(?P<who>[A-Z][\w’'-]*)(?:['’]s)?(?:\s+(?:[A-Z][\w’'-]*|de|van|von|da|di|del|la|le))*|"
    r"(?:the|my|our|his|her|their)\s+(?:[a-z][\w’'-]*\s+){0,2}?(?P<role>[a-z][\w’'-]*))\s+"
    r"(?:say|think|ask|suggest|recommend|tell|mention|propose|reckon|feel|like|love|hate|prefer)\b"
)
# How a note reports someone's words: a label's colon, or a verb of saying or thinking.
_REPORTING = (
    r":|\b(?:says?|said|ask(?:s|ed)?|thinks?|thought|suggest(?:s|ed)?|recommend(?:s|ed)?|"
    r"tells?|told|mention(?:s|ed)?|propose[sd]?|reckon(?:s|ed)?|feels?|felt|lik(?:es?|ed)|"
    r"lov(?:es?|ed)|hat(?:es?|ed)|prefer(?:s|red)?|wants?|wanted|wrote|writes|repl(?:y|ied|ies)|"
    r"agree[sd]?|answer(?:s|ed)?|explain(?:s|ed)?|warn(?:s|ed)?|insist(?:s|ed)?)\b"
)
# Weight of embedding relevance against term coverage when a relevance scorer is given.
RELEVANCE_WEIGHT = 1.0
# The words asking for a date ("What day…", "Which date…") and the helper of a passive
# ("did the manure get delivered").
_DATE_ASKED = re.compile(
    r"^\W*(?:(?:and|but|so)\s+)?(?:what|which)\s+(date|day)\b|"
    r"\b(get|got)\s+(?=\w+ed\b)",
    re.IGNORECASE,
)
# "When did …", "What date …", "What year …": answered with a date.
_WHEN_QUESTION = re.compile(
    r"^\W*(?:(?:and|but|so)\s+)?(?:(?:by|until|till|since)\s+when\b|when\b|what\s+(?:date|day|year|month)\b|"
    r"which\s+(?:date|day|year|month)\b|"
    # "what saturday am I covering for Jess?": which day of the week it is
    r"(?:what|which)\s+(?:mon|tues|wednes|thurs|fri|satur|sun)day\b|"
    # "What was the deadline for…", "What's the due date of…": the date of a deadline
    # ("the rehearsal dinner date", not "the word for deadline")
    r"what(?:['’]s|\s+is|\s+was|\s+are|\s+were)?\s+the\s+"
    r"(?:(?!(?:for|of|to|in|on|at|with|about)\b)[\w'’-]+\s+){0,3}?"
    r"(?:deadline|due\s+date|date)\b(?!\s+(?:night|idea|spot|of\s+birth))|"
    r"(?:in\s+)?what\s+year\b|how\s+long\s+ago\b)|"
    # "shedd reflections due when?": the question word last, as typed
    r"\bwhen\s*\?*\s*$",
    re.IGNORECASE,
)


def asks_when(question: str) -> bool:
    return bool(_WHEN_QUESTION.search(question))


def decision_terms(question: str, question_terms: Sequence[str]) -> frozenset[str]:
    """The question's terms that are decision verbs ("choos" in "Why did we choose X?")."""
    found = {t for m in DECISION_VERBS.finditer(question) for t in terms(m.group(0))}
    return frozenset(found & set(question_terms))


# what may join initials: "H&L", "K + M"
_JOINED = r"(?:\s?[&+]\s?)?"


def candidates(
    question_terms: Sequence[str],
    sources: Sequence[Source],
    named: frozenset[str] = frozenset(),
    decided: frozenset[str] = frozenset(),
    relevance: Relevance | None = None,
    question: str = "",
    referents: frozenset[str] = frozenset(),
) -> list[Candidate]:
    """Every quotable sentence of the sources, scored by query-term coverage
    (and, with a ``relevance`` scorer, by embedding relevance to the question).
    ``referents``: what a follow-up's "it" stands for; a sentence naming it is preferred.

    ``named``: citation ids of the notes whose title the question names.
    ``decided``: the question's decision verbs, which any sentence recording a
    decision covers, whatever verb it uses.
    """
    wanted = set(question_terms)
    by_value = answer_types.named_by_value(question)
    # "How much did it cost altogether?": a line adding up or stating a total says it
    totals = (
        frozenset(terms(question)) & _TOTAL_WORDS
        if sums.ASKS_TOTAL.search(question)
        else frozenset()
    )
    kind = answer_types.expected(question)
    dimension = dimension_terms(question)
    abbreviated: dict[str, frozenset[str]] = {}
    for letters, spelled in acronyms.spelled_out(question):
        abbreviated[letters] = abbreviated.get(letters, frozenset()) | spelled
    # "power of attorney" written "POA" in capitals: the note's initials of words the
    # question writes small
    in_capitals = {
        # (a couple's or a firm's initials may be joined: "H&L" for "hannah and luis")
        letters: (re.compile(rf"\b{_JOINED.join(letters.upper())}s?\b"), spelled)
        # (in capitals, two letters are initials too: "BP 128/76" for "blood pressure")
        for letters, spelled in acronyms.spelled_small(question, shortest=2)
    }
    # the question's word the fewest of the sources hold, when only some hold it (not a
    # name it gives: who a line is about is judged apart, ``whose_lines``)
    capitalised = frozenset(terms(" ".join(re.findall(r"\b[A-Z][\w'’-]*", question[1:]))))
    # (each source's words read once, not once per word of the question)
    source_terms = [frozenset(terms(f"{s.chunk.title} {s.chunk.text}")) for s in sources]
    held_by = {w: sum(w in held for held in source_terms) for w in wanted - capitalised}
    fewest = min((n for n in held_by.values() if n), default=0)
    rarest = (
        frozenset(w for w, n in held_by.items() if n == fewest)
        if len(held_by) > 1 and 0 < fewest < max(held_by.values(), default=0)
        else frozenset()
    )
    # the question's words as written, for their short forms in the notes ("asst")
    asked_words = [w for w in dict.fromkeys(words(question)) if stem(w) in wanted]
    out: list[Candidate] = []
    for rank, source in enumerate(sources):
        title = _clean(source.chunk.title).rstrip(".!?").lower()
        # The title names what each of the note's sentences is about ("Birthday party –
        # Isla" over "Sat 24 Jan, 2-4pm"), as it does for every chunk in BM25.
        # Only the words the text itself lacks: a title the text repeats ("Henry J.
        # Kaiser": "Henry John Kaiser was…") is already the text's, and lending it to
        # every sentence would make each of them look like the answer.
        body = source.chunk.text
        if title and body.lower().startswith(source.chunk.title.strip().lower()):
            body = body[len(source.chunk.title.strip()) :]
        # (a name the text writes only as who speaks, "Chloe: loving it" under "Chloe 6
        # month review", is not the text's word: "agreed: pay up to £8.00/hr" is hers too)
        spoken = SPEAKER.sub(" ", body)
        titled = frozenset(spelled_out(terms(source.chunk.title), source.chunk.title)) - frozenset(
            spelled_out(terms(spoken), spoken)
        )
        heard_by = listeners(source.chunk.text)
        turns = attributed_sentences(source.chunk.text, source.chunk.position > 0)
        for position, (sentence, speaker) in enumerate(turns):
            clean = _clean(sentence)
            # The indexed text starts with the note's title; a title is a label, not a
            # claim, unless it states the value asked for ("Orgo midterm 1 – 78/100" for
            # "What score did I get on the first orgo midterm?").
            if len(clean) < 6 or (
                title
                and clean.rstrip(".!?").lower() == title
                and not (kind is not None and kind.search(clean))
            ):
                continue
            have = frozenset(spelled_out(terms(clean), clean)) | frozenset(terms(speaker)) | titled
            if position and _poses(turns[position - 1][0], sentence, source.chunk.text):
                # "Sell the Fiesta? Tom's colleague interested, maybe £2,300.": the short
                # question before it on its line says what the sentence is about
                have |= frozenset(terms(turns[position - 1][0]))
            if by_value is not None and by_value[0].search(clean):
                have |= by_value[1]
            if totals and (sums.added_up(clean) is not None or sums.STATES_TOTAL.search(clean)):
                # "$75 + $25 RCMP fee" says what "cost … altogether" asks: a sum
                have |= totals
            for letters, spelled in abbreviated.items():
                if letters in have:
                    have |= spelled  # "HITW recap" says "Hole in the Wall"
            for capitals, spelled in in_capitals.values():
                if capitals.search(clean) or capitals.search(source.chunk.title or ""):
                    have |= spelled  # "Lawyer: …" in the note titled "POA"
            if decided and DECISION_VERBS.search(clean):
                have |= decided
            # "allergy" says what "allergic" asks, "inspector" what "inspection" does
            have |= kin(wanted - have, have)
            if dimension is not None and dimension[1] & have:
                have |= dimension[0]  # "height 86cm" says how tall
            if shortened := [w for w in asked_words if stem(w) in wanted - have]:
                # "asst coach" says "assistant coach", "mtg" "meeting" (a word in capitals
                # is initials: "DPS" is no "deposit")
                have |= short_for(shortened, _IN_CAPITALS.sub(" ", clean))
            overlap = len(wanted & have) / len(wanted) if wanted else 0.0
            # Query-term coverage first; earlier (better-ranked) sources break ties. Of
            # sentences covering as much, one holding the question's rarest word in these
            # notes ("genetics", not "review session") is more likely its source.
            score = overlap + 0.25 / (1 + rank) + (0.02 if position == 0 else 0.0)
            if rarest & have:
                score += RAREST_BONUS
            if source.cid in named:
                score += NAMED_TITLE_BONUS
            if have & referents:
                score += REFERENT_BONUS
            out.append(
                Candidate(
                    clean,
                    source.cid,
                    rank,
                    position,
                    score,
                    have,
                    speaker,
                    listener=heard_by.get(speaker, ""),
                )
            )
    if relevance is not None and out and question:
        # Relevance is of what is said: a speaker's label or a name in address
        # ("Melanie: Thanks, Caroline!") would otherwise make any line of the two
        # people look like an answer to a question naming them. Who said it is
        # judged apart (``about``).
        scores = relevance(question, [said(c.text) or c.text for c in out])
        out = [
            replace(c, score=c.score + RELEVANCE_WEIGHT * r, relevance=r)
            for c, r in zip(out, scores, strict=True)
        ]
    out.sort(key=lambda c: (-c.score, c.source_rank, c.position))
    return out


def select_sentences(pool: Sequence[Candidate], limit: int) -> list[Candidate]:
    """The best-scoring distinct sentences, up to ``limit`` (lists, summaries, timelines)."""
    chosen: list[Candidate] = []
    seen: set[str] = set()
    for c in pool:
        key = c.text.lower()
        if key in seen:
            continue
        seen.add(key)
        chosen.append(c)
        if len(chosen) >= limit:
            break
    return chosen


def select_covering(
    question_terms: Sequence[str],
    pool: Sequence[Candidate],
    sources: Sequence[Source],
    limit: int,
    named: frozenset[str] = frozenset(),
    names: frozenset[str] = frozenset(),
) -> list[Candidate]:
    """Sentences that together cover the question, each adding terms the others lack.

    A factual question is answered by the few sentences that jointly match it;
    a sentence that repeats covered terms adds a citation, not an answer, and
    every extra citation is one more chance to cite a note that is not the source.
    They come from at most ``FACTUAL_NOTES`` notes, preferring notes the question
    names (``named``), plus one note a quoted sentence names.
    """
    wanted = set(question_terms)
    if not pool:
        return []
    # Whether the notes address the question is judged on every sentence that could
    # join the answer; which sentences are quoted, on those likely to be its source.
    reach = _covering(wanted, pool, limit, named, lambda c: True)
    if wanted and len(_covered(reach, wanted)) / len(wanted) < MIN_COVERAGE:
        return []
    chosen = _covering(wanted, pool, limit, named, _joins(wanted, named, names))
    return chosen + linked_notes(chosen, pool, sources, named)


def _covered(chosen: Sequence[Candidate], wanted: set[str]) -> set[str]:
    return {t for c in chosen for t in c.terms & wanted}


def _joins(
    wanted: set[str], named: frozenset[str], names: frozenset[str]
) -> Callable[[Candidate], bool]:
    """Whether a sentence of a note not yet quoted may join the answer: it shares
    ``OTHER_NOTE_MIN_TERMS`` of the question's words, or a name the question gives
    ("the notes about Firestore and Cloud Run"), or the question names its note. One
    common word ("score", "change") shared is a chance neighbour far more often."""

    def joins(c: Candidate) -> bool:
        return (
            c.cid in named or bool(c.terms & names) or len(c.terms & wanted) >= OTHER_NOTE_MIN_TERMS
        )

    return joins


def _covering(
    wanted: set[str],
    pool: Sequence[Candidate],
    limit: int,
    named: frozenset[str],
    joins: Callable[[Candidate], bool],
) -> list[Candidate]:
    """Greedy cover of ``wanted`` from the best sentence on: each next sentence adds
    the most uncovered terms; one from a note not yet quoted must be one that ``joins``,
    and at most ``FACTUAL_NOTES`` notes are quoted."""
    chosen = [pool[0]]
    notes = {pool[0].cid}
    covered = set(pool[0].terms & wanted)
    while len(chosen) < limit:
        best, best_value = None, 0.0
        for c in pool:
            if c.cid not in notes and (len(notes) >= FACTUAL_NOTES or not joins(c)):
                continue
            gain = len((c.terms & wanted) - covered) / len(wanted) if wanted else 0.0
            value = (
                gain + 0.25 / (1 + c.source_rank) + (NAMED_TITLE_BONUS if c.cid in named else 0.0)
            )
            if gain > 0 and c not in chosen and value > best_value:
                best, best_value = c, value
        if best is None:
            break
        chosen.append(best)
        notes.add(best.cid)
        covered |= best.terms & wanted
    return chosen


def linked_notes(
    chosen: Sequence[Candidate],
    pool: Sequence[Candidate],
    sources: Sequence[Source],
    named: frozenset[str] = frozenset(),
) -> list[Candidate]:
    """The best sentence of a note whose title a chosen sentence names.

    "founded by Henry J. Kaiser" makes the note titled "Henry J. Kaiser" the
    next hop of the answer, even when it shares few words with the question.
    A note the question itself names is no next hop: it had its chance to be
    chosen for what it says (measured: 1 source in 12 such links).
    """
    quoted = " ".join(c.text for c in chosen)
    cited = {c.cid for c in chosen} | set(named)
    out: list[Candidate] = []
    for source in sources:
        if len(out) >= MAX_LINKED:
            break
        title = source.chunk.title.strip()
        if source.cid in cited or len(title) < 4:
            continue
        # Named as a name is: capitalised where the sentence says it ("founded by Henry
        # J. Kaiser"). A title that is a common phrase ("long run") labels a kind of
        # note; "since Sunday's long run" does not point to that note.
        found = re.search(rf"(?<!\w){re.escape(title)}(?!\w)", quoted, re.IGNORECASE)
        if found is None or not found.group(0)[0].isupper():
            continue
        best = next((c for c in pool if c.cid == source.cid), None)
        if best is not None:
            out.append(best)
            cited.add(source.cid)
    return out


# "why?", "and why?", "how come?": asking for a reason.
_ASKS_WHY = re.compile(r"^\W*(?:(?:and|but|so)\s+)?(?:why|how\s+come)\b", re.IGNORECASE)


def compose(
    question: str,
    sources: Sequence[Source],
    analysis: QueryAnalysis,
    relevance: Relevance | None = None,
    said_before: str = "",
) -> str:
    """The answer: sentences of the notes, each cited. ``said_before``: the answer the
    conversation gave last, which an answer to a follow-up should not merely repeat."""
    agreed = _agreed_questions(sources)
    answer = _compose(question, sources, analysis, relevance, agreed)
    if (
        said_before
        and answer != NOT_ENOUGH
        and _ASKS_WHY.match(question)
        and _only_said_before(answer, said_before)
    ):
        # "Which deduction did I drop?" / "why?": the same sentences again give no reason;
        # the note's others may ("says the blind was never there"). When none does, what
        # was said stands. (Asked when or where, what was said often holds it: "start
        # date moved to Mar 2".)
        again = _compose(question, sources, analysis, relevance, agreed, said_before)
        if again != NOT_ENOUGH:
            answer = again
    if (analysis.window is None and contradicts(question, answer)) or other_weekday(
        question, answer
    ):
        # the question names a month or a day (not as a window on when notes were
        # written), or a weekday, and the answer is of another
        return NOT_ENOUGH
    lead = MARKER.search(answer)
    title = next((s.chunk.title for s in sources if lead and s.cid == lead.group(1)), "")
    if title and not calendar_mentions(answer) and contradicts(question, title):
        # "What were our takings for October?" is not answered from "takings Sept",
        # written in October: the title says which month its lines are of, when they do
        # not say it themselves ("Next: April 19" in "book club – March" does)
        return NOT_ENOUGH
    # A question quoted as agreed is quoted with its reply: alone it reads as still open.
    for (cid, _), (asked, reply) in agreed.items():
        quoted = cite(asked, cid)
        if quoted in answer and reply not in answer:
            answer = answer.replace(quoted, f"{quoted} {cite(reply, cid)}", 1)
    return answer


def _compose(
    question: str,
    sources: Sequence[Source],
    analysis: QueryAnalysis,
    relevance: Relevance | None,
    agreed: dict[tuple[str, int], tuple[str, str]],
    said_before: str = "",
) -> str:
    if not sources or missing_names(question, sources, analysis):
        return NOT_ENOUGH
    listing = analysis.intent in (Intent.LIST, Intent.SUMMARY, Intent.TIMELINE)
    when = asks_when(question)
    # shorthand on either side is read as what it stands for ("bday", "apps")
    question_terms = spelled_out(list(analysis.keywords) or terms(question, QUERY_FILLER), question)
    if (dimension := dimension_terms(question)) is not None:
        # "height", searched for "how tall", says it; a line need not (``candidates``)
        question_terms = [t for t in question_terms if t not in dimension[1]]
    # "… after the dinner party": the event the window is anchored to is still what the
    # question is about (a note titled by it covers those words); a calendar phrase ("in
    # March", "last week") names no words a note need say.
    question_terms += [t for t in _event_terms(analysis) if t not in question_terms]
    if when:
        # "What day did the manure get delivered?": "day" asks for the date and "get" is
        # the passive's helper; neither is a word of what happened
        helpers = {t for m in _DATE_ASKED.finditer(question) for t in terms(m[1] or m[2])}
        question_terms = [t for t in question_terms if t not in helpers] or question_terms
    if people_module.name_asked(question) in ("first", "last"):
        # "first name", "surname" ask for the part of a name a sentence writes; they are
        # not words it need say (checked by ``_giving_a_name``)
        question_terms = [t for t in question_terms if t not in _NAME_PARTS] or question_terms
    named = titles_named(question, sources)
    # the names the question gives ("Firestore", "Cloud Run"), as terms
    names = frozenset(t for phrase in name_phrases(question, analysis) for t in phrase)
    pool = every = candidates(
        question_terms,
        sources,
        named,
        decision_terms(question, question_terms),
        relevance,
        question,
        frozenset(analysis.referents),
    )
    # a line about the other flat answers nothing of this one, in its note or another
    pool = [c for c in pool if not _names_another_numbered(question, c.text)]
    if per_unit := answer_types.rate_terms(question):
        # "How much per head…?": "€95pp" says "per head"
        pool = [
            replace(c, terms=c.terms | per_unit) if answer_types.RATE.search(c.text) else c
            for c in pool
        ]
    elif timed := answer_types.time_rate(question):
        # "What's Ayla on per hour?": "€13.50/h" says "per hour"
        per_unit, price_in = timed
        pool = [
            replace(c, terms=c.terms | per_unit) if price_in.search(c.text) else c for c in pool
        ]
    if said_before:
        # asked again of what was just said: the rest of the notes it was said from,
        # their words already said
        quoted = [c for c in pool if _quoted_in(c, said_before)]
        notes = {c.cid for c in quoted}
        pool = [c for c in pool if c.cid in notes and c not in quoted]
        said_terms = {t for c in quoted for t in c.terms}
        question_terms = [t for t in question_terms if t not in said_terms]
    if not when and analysis.now is not None:
        pool = _on_the_day_first(question, pool, sources, analysis.now)
    if not listing or when:
        # A question in a note ("What motivated you?") asks; it does not answer.
        # A trailing aside ("… like that necklace? (shared a photo: …)") does not make
        # it an answer. One the next speaker agrees to ("Me: can the draft be Dec 5?" /
        # "Delgado: fine.") is what was agreed.
        pool = [c for c in pool if (c.cid, c.position) in agreed or not _asks(c.text)]
    # "Sell the Micra? Sarah's neighbour interested, maybe £1,800.": a value stated right
    # after a sentence naming the thing is of that thing
    after = _following(every, set(question_terms), sources)
    people = asked_people(question, sources)
    spoken = frozenset(t for p in people for t in p)
    holds_names = _name_holder(question, sources, analysis)
    all_terms = question_terms
    if people:
        # A question about Caroline is answered by what Caroline said or what was said
        # about her, never by a neighbour's sentence that shares its other words ...
        mine, others = whose_lines(question, pool, people)
        # ... and every line of a note titled by their name alone ("Her fee for the yr-end
        # accounts $1,450" in the note titled "Fiona"; "Lena – session 1" is a
        # conversation with her, whose lines are judged by who speaks)
        titled_by = {
            s.cid
            for s in sources
            if (title := frozenset(terms(s.chunk.title))) and any(title <= p for p in people)
        }
        if titled_by:
            kept = {id(c) for c in mine}
            mine = [c for c in pool if id(c) in kept or c.cid in titled_by]
            others = [c for c in others if c.cid not in titled_by]
        # ... and if what someone else said, or was told, matches the question better
        # than anything about her, the fact is theirs: decline rather than quote her
        # nearest line.
        if _someone_elses(mine, others):
            return NOT_ENOUGH
        pool = mine
        # Her name is in every line she speaks: only the question's other terms can
        # tell whether a sentence answers it.
        question_terms = [t for t in question_terms if t not in spoken] or question_terms
    what = None if when else counted(question)
    ranked = [(c.text, c.cid) for c in pool]
    # a series of notes each stating the count ("courgettes 5", "courgettes 7"): its sum,
    # or its latest as it stands, before a count of the notes themselves
    if what and (tally := series_tally(what, question, ranked, sources)):
        return tally
    # a tally listed under a heading naming what is counted ("pie orders…:" / "pumpkin 18")
    if what and (tally := listed_tally(what, ranked, sources)):
        return tally
    # the items of a line, each with how many ("Charlotte x30 + Pink Fir Apple x20")
    if what and (tally := multiplied_tally(what, question, ranked, sources)):
        return tally
    # names: listed across notes ("dues: …" at each rehearsal), each once, or by the best
    # line ("study group w/ Dev, Hana, Luis")
    if what:
        besides = frozenset(question_terms) - frozenset(what)
        with_terms = [(c.text, c.cid, c.terms) for c in pool]
        if across := names_across(what, besides, with_terms):
            return across
        # (the names of who speaks count here: "meeting w Karen 2" names the series)
        if listed := named_count(what, besides, with_terms) or series_named(
            what, question, all_terms, sources
        ):
            return listed
    if what and (stated := stated_count(what, [c.text for c in pool])) is not None:
        # "How many signups…" over "signups 312": that sentence leads the answer, if its
        # note holds the names asked about ("312 downloads" on launch day is no figure of
        # "the Bex episode").
        if not (people or holds_names(pool[stated])):
            return NOT_ENOUGH
        if _ASKS_OUTCOME.search(question):
            # "How many tenors have we got at the moment?": of the sentences stating the
            # count, the one written last ("tenors are down to 3", after "Tenors only 4")
            written = {s.cid: s.chunk.created_at for s in sources}
            stating = [i for i, c in enumerate(pool) if stated_count(what, [c.text]) is not None]
            stated = max(stating, key=lambda i: (written[pool[i].cid], -i))
        pool = [pool[stated], *pool[:stated], *pool[stated + 1 :]]
    elif what and (tally := count_answer(what, question, ranked, sources)):
        return tally
    if (
        not when
        and not answer_types.asks_rate(question)
        and (parts := sums.parts_asked(question))
        and (joint := _sum_of_parts(parts, pool, sources))
    ):
        return joint
    if when:
        # The date is of the person's event: their name counts towards covering it.
        zone = analysis.now.tzinfo if analysis.now is not None else None
        # A date answers only from a note holding the codes and names the question gives,
        # as any answer does: "When is the Y10 parents evening?" is not answered by the
        # Y11 one, nor "the Kenilworth property tax" by Baltimore Ave's.
        pool = [
            c for c in pool if _holds_codes(question, c, sources) and (people or holds_names(c))
        ]
        return dated_answer(all_terms, pool, sources, question, zone, spoken, analysis.now)
    # "What's on my to-read list?", "What do I need to do…": when the best sentence is an
    # item of a list (or heads one), the answer is that list, whole and from its note.
    # A best sentence that heads a list ("To do this weekend:") says nothing by itself, nor
    # does an item holding none of the question's words itself ("passport" in "Packing –
    # Lisbon" for "What do I need to pack for Lisbon?"): the question is the list's.
    pool = _checklist_first(question, question_terms, pool, sources)
    # (a number or code asked for is one line's, not a list's: "Transit Custom 191-G-4472"
    # over the van's jobs, for "whats the van reg")
    value_asked = answer_types.asked(question)
    of_the_list = (
        bool(pool)
        and (
            pool[0].text.rstrip().endswith(":")
            or not frozenset(terms(pool[0].text)) & frozenset(question_terms)
            or _heads_items(pool[0], _note_text(sources, pool[0].cid))
        )
        and not (value_asked is not None and value_asked[0] is answer_types.IDENTIFIER)
    )
    # (asked which boxes, "what hadn't I packed yet", over a checklist: its items)
    asks_boxes = bool(pool) and checklists.asked_boxes(question) is not None
    asks_a_list = (
        analysis.intent is Intent.LIST
        or MemoryType.TASK in analysis.types
        or (asks_boxes and checklists.has_boxes(_note_text(sources, pool[0].cid)))
    )
    the_list = _the_list(pool, sources, question) if asks_a_list or of_the_list else []
    if (
        the_list
        and not asks_a_list
        and (
            _quotes_another_thing(question, the_list, sources, analysis)
            or len(_covered(the_list, set(question_terms))) < MIN_COVERAGE * len(question_terms)
        )
    ):
        # the list's note does not hold the names the question gives ("Packing" for
        # "…for Japan?"), or the list says too little of the question ("Canyon (race
        # bike):" and its jobs, for "What tyre pressure do I run on the Canyon?"): not
        # read as the list's question
        the_list = []
    if the_list:
        chosen = the_list
    elif listing:
        # The lead's note, and of other notes only sentences that may join an answer, as
        # for a factual one. What a person asked about did is told across
        # conversations: every line of theirs is kept.
        lead = pool[0].cid if pool else ""
        joins = _joins(set(question_terms), named, names)
        chosen = select_sentences([c for c in pool if people or c.cid == lead or joins(c)], 5)
    else:
        pool = _doing_first(question, question_terms, pool)
        chosen = select_covering(question_terms, pool, sources, FACTUAL_SENTENCES, named, names)
        if own := _own_words(question):
            # A follow-up is about its own words, the question it follows is context:
            # "who is doing their flowers (where is the wedding)" is not answered by the
            # wedding's venue line, which holds none of them, but by "flowers from their
            # florist Petal & Stem"
            def holds_own(c: Candidate) -> bool:
                return bool(own & c.terms or kin(own, c.terms))

            if chosen and not any(holds_own(c) for c in chosen):
                # (covering the follow-up's words: "and the guinea fowl?" after the
                # tiramisù's change is answered by "guinea fowl a bit dry – brine next time")
                mine = [c for c in pool if holds_own(c)]
                chosen = (
                    select_covering(sorted(own), mine, sources, FACTUAL_SENTENCES, named, names)
                    or chosen
                )
        if people and chosen:
            # What a person said is told in one passage of the conversation: a line of
            # another passage that adds a leftover question word is more often a
            # neighbour than a source (LoCoMo: answers citing two passages held the
            # evidence in 0.31 of their citations, one passage in 0.66).
            chosen = [c for c in chosen if c.cid == chosen[0].cid]
        elif chosen and _ASKS_OUTCOME.search(question):
            chosen = _latest_note(chosen, set(question_terms), sources)
    if chosen and not listing and people_module.asks_who(question):
        chosen = _naming_someone(question, question_terms, chosen, pool, sources)
    if chosen and not listing and people_module.name_asked(question):
        chosen = _giving_a_name(question, question_terms, chosen, pool, sources)
    wants = None if listing else value_asked
    if wants is not None and chosen:
        kind, asking = wants
        # The value must be stated beside what it is of: the question's words other than
        # those asking for it ("pay" in "How much did I pay for the manure?"). "Now" in
        # "What's the rent now?" says when, not of what: the rent is.
        subject = set(question_terms) - set(terms(asking)) - answer_types.WHEN_WORDS - per_unit
        if by_value := answer_types.named_by_value(question):
            # "phone" in "What's the phone number for Papier-Paul?" names the value's kind,
            # which any number is lent (``candidates``): the subject is Papier-Paul
            subject -= by_value[1]
        # "What's Mia's hourly rate?": the value is hers only in a sentence naming her or
        # in a note titled by her name; "$32/hr" in the meeting with Kofi is his.
        titles = {s.cid: frozenset(terms(s.chunk.title)) for s in sources}
        owner = answer_types.owner(question, asking)
        # "How much is a flight to …?": the price is of a flight; "$310 registration" in
        # the conference's note is another price.
        priced = answer_types.priced(question)
        if priced is not None:
            kind = answer_types.MONEY  # a price: "Nov 12" in a to-do line is no answer
        if kind in answer_types.QUANTITIES and answer_types.asks_rate(question):
            kind = answer_types.RATE  # "How much per head…?": "$24/head", not a total
        elif kind is answer_types.MONEY and answer_types.per_unit_asked(question):
            kind = answer_types.MONEY_OR_RATE  # "what rate … per word?": "0.10/word"
        # "How much flour…": the amount is the flour's, not the butter's in the line before
        of_thing = priced or answer_types.measured(question)

        # (a note about the owner, by its title or opening, speaks of their things:
        # "Brought Juno home …" holds "Microchip # 985 112 006 437 201")
        headlines = {s.cid: headline_terms(s) for s in sources} if owner else {}
        # "Pip's microchip number" is written beside "microchip": "2.6kg" in Pip's line is
        # no number of that
        which_number = (
            answer_types.number_named(question) if kind is answer_types.IDENTIFIER else frozenset()
        )

        def theirs(c: Candidate) -> bool:
            held = c.terms | titles.get(c.cid, frozenset())
            return (
                (not owner or bool((held | headlines[c.cid]) & owner))
                and which_number <= held
                and (of_thing is None or of_thing in held)
                # "312 downloads by 6pm" in the launch-day note is no figure of "the Bex
                # episode": a value is read from a note holding the names asked about
                and (bool(people) or holds_names(c))
            )

        chosen = _with_answer_of_kind(
            kind,
            chosen,
            pool,
            subject or set(question_terms),
            theirs,
            # (what a person said is told in one passage: no other passage for them)
            None if people else _joins(set(question_terms), named, names),
            titles,
            # the word asking for the value, unless every value of the kind is named by it
            frozenset() if answer_types.named_by_value(question) else frozenset(terms(asking)),
            after,
            # (a number or address is of what its note is about: its title or opening)
            {s.cid: headline_terms(s) for s in sources} if kind in answer_types.CONTACTS else {},
        )
        # (of a follow-up, its own words: those it inherits are what the answer before
        # was of, "how much did we pay her" after "who covered the counter…")
        own_text = answer_types.without_followed(question)
        # (its shorthand spelled out, as the question's terms are: "xmas", christmas)
        own_subject = subject & frozenset(spelled_out(terms(own_text), own_text) + terms(own_text))
        if chosen and own_subject and _of_a_lesser_note(chosen[0], pool, sources, own_subject):
            # "What time is the first spring game?": "practices move to Wed 6:30" in
            # "spring outdoor" is no time of the game that "first game Sat 9 May" names
            chosen = []
        if chosen and sums.ASKS_TOTAL.search(question):
            # "How much did the parts order come to?": of the lines of the order's note,
            # the one stating its total
            notes = {c.cid for c in chosen}
            total = next(
                (
                    c
                    for c in pool
                    if c.cid in notes and sums.STATES_TOTAL.search(c.text) and kind.search(c.text)
                ),
                None,
            )
            if total is not None:
                chosen = [total, *(c for c in chosen if c is not total)]
            elif (summed := sums.added_up(chosen[0].text)) is not None:
                # "$75 + $25 RCMP fee" for "How much did the fingerprints cost
                # altogether?": the sum the line writes out, added up
                added = f"{chosen[0].text.rstrip().rstrip('.')} (= {summed})"
                chosen = [replace(chosen[0], text=added), *chosen[1:]]
        if chosen and _ASKS_OUTCOME.search(question):
            # (asked per unit, a later price is one per unit too: "balance £215 due fri
            # 27th march" is no later "total cost £265 per pupil")
            latest_kind = answer_types.RATE if answer_types.per_unit_asked(question) else kind
            chosen = _latest_of_kind(
                latest_kind,
                chosen,
                pool,
                subject or set(question_terms),
                sources,
                frozenset(terms(asking)),
            )
        if chosen and kind.search(said(chosen[0].text) or chosen[0].text):
            # The lead states the value: another note's line that adds only the names the
            # question gives ("Call w/ Hannah & Rob" under "21:00 first dance") is not its
            # source. (A line adding a word of the question stays: "~$3.7k left".)
            chosen = _without_names_only(chosen, set(question_terms), names)
            if kind in answer_types.SLOTS and not _COMPARES.search(question):
                # a value asked for by name is told by the note stating it: "Policy no.
                # SB-77310942" needs no other note's "Landlord insurance – £412/yr"
                chosen = [c for c in chosen if c.cid == chosen[0].cid]
    if chosen and not listing and not the_list:
        chosen = _with_antecedent(chosen, every, sources, pool)
    if chosen and what is None and sums.ASKS_SUM.search(question):
        # "What do my repair costs add up to?" over "Repairs this yr:" / "tap £97" /
        # "boiler £240" / …: the lines, added up (no line states their sum). Of a run
        # naming whom each line is for, the lines naming the one asked about ("Ferrer").
        note = _note_text(sources, chosen[0].cid)
        named_in_lead = names & frozenset(terms(chosen[0].text))
        summed = sums.listed_total(
            note, chosen[0].text, lambda line: named_in_lead <= frozenset(terms(line))
        )
        if summed is not None:
            chosen = [replace(chosen[0], text=summed)]
        elif "(= " not in chosen[0].text and (inline := sums.added_up(chosen[0].text)):
            # "What did the Sparkwise order come to?" over "order: downlights x6 $252,
            # GPOs $96, …": the sums the line lists, added up
            added = f"{chosen[0].text.rstrip().rstrip('.')} (= {inline})"
            chosen = [replace(chosen[0], text=added), *chosen[1:]]
    if (
        not chosen
        or _quotes_another_thing(question, chosen, sources, analysis)
        or (not people and _owned_by_another(question, chosen, sources))
        or not _holds_codes(question, chosen[0], sources)
        or not _reports_words(question, chosen, sources)
        or not _tells_the_verb(question, chosen)
        or _only_planned(question, chosen, sources)
        or (not when and _of_a_period_before_the_notes(analysis, chosen[0], sources))
        or (not listing and not the_list and _still_to_find_out(question, chosen[0]))
        or (not listing and not the_list and _only_repeats(question, chosen))
    ):
        return NOT_ENOUGH
    if analysis.intent is Intent.TIMELINE:
        by_date = {s.cid: s.chunk.created_at for s in sources}
        chosen.sort(key=lambda c: (by_date[c.cid], c.position))
    elif listing or the_list:
        chosen.sort(key=lambda c: (c.source_rank, c.position))
    # A factual answer keeps relevance order: the best sentence is the answer.
    lines = [cite(speaker_prefix(c.text, c.speaker), c.cid) for c in chosen]
    if analysis.intent in (Intent.LIST, Intent.TIMELINE) or the_list:
        return "\n".join(f"- {line}" for line in lines)
    if lines[-1].endswith("]:"):
        # (a heading's colon closes prose with nothing after it: "read v3 of the deck [N1].")
        lines[-1] = lines[-1][:-1] + "."
    return " ".join(lines)


def _of_a_lesser_note(
    lead: Candidate, pool: Sequence[Candidate], sources: Sequence[Source], subject: Set[str]
) -> bool:
    """The value leading the answer is stated in a note that, all its sentences, title and
    tags together, holds less than half of what another retrieved note holds of what the
    value is of (``subject``): the notes tell of the thing, and the value is another's."""
    in_notes = covered_by_note(pool, subject)
    best = max((len(held) for held in in_notes.values()), default=0)
    tags = next((frozenset(s.chunk.terms) for s in sources if s.cid == lead.cid), frozenset())
    return 2 * len(in_notes.get(lead.cid, set()) | (subject & tags)) < best


_IN_CAPITALS = re.compile(r"\b[A-Z]{2,}\b")


def _own_words(question: str) -> frozenset[str]:
    """The content words of a follow-up itself ("who is doing their flowers (where is the
    wedding)"), not of the question it follows; empty for any other question, or a
    follow-up of pronouns and question words alone ("and when is that?")."""
    own = answer_types.without_followed(question)
    return frozenset(terms(own, QUERY_FILLER)) if own != question else frozenset()


def _quotes_another_thing(
    question: str, chosen: Sequence[Candidate], sources: Sequence[Source], analysis: QueryAnalysis
) -> bool:
    """The notes quoted do not hold every name the question gives (text, title or tags),
    and no one by that name speaks in these notes: "How much did Duarte quote for the
    Comporta wedding?" over Duarte's quote for another couple's wedding, which another
    note naming Comporta made the notes as a whole look like an answer to. A person of
    the conversation the lines are from ("What offer does Gina make to Jon?") is held."""
    return bool(_names_not_held(question, chosen, sources, analysis))


def _sum_of_parts(
    parts: tuple[str, str], pool: Sequence[Candidate], sources: Sequence[Source]
) -> str | None:
    """ "What did July and August take between them?": the line stating each part's sum
    ("Total $36,980" in "takings July", "Total $35,760" in "takings Aug"), each cited,
    and their sum; None unless both are found (``sums.of_parts``)."""
    titles = {s.cid: frozenset(spelled_out(terms(s.chunk.title), s.chunk.title)) for s in sources}
    lines = [
        (c.text, c.cid, frozenset(spelled_out(terms(c.text), c.text)), titles[c.cid]) for c in pool
    ]
    wanted = tuple(frozenset(spelled_out(terms(p), p)) for p in parts)
    if not all(wanted):
        return None
    found = sums.of_parts((wanted[0], wanted[1]), lines)
    if found is None:
        return None
    (i, j), total = found
    a, b = pool[i], pool[j]
    cited = f"[{a.cid}]" + (f"[{b.cid}]" if b.cid != a.cid else "")
    # (the sum is told with the parts' names and sums, which their notes hold: a claim
    # must share words with each note it cites)
    summed = f"{parts[0]} + {parts[1]}: {total} {cited}."
    return f"{cite(_clean(a.text), a.cid)} {cite(_clean(b.text), b.cid)} {summed}"


def _name_holder(
    question: str, sources: Sequence[Source], analysis: QueryAnalysis
) -> Callable[[Candidate], bool]:
    """Whether a sentence's note holds every name the question gives but an owner's
    (whose the thing is, is judged by the line: "Dad's" in a carer's notebook); of a
    question setting names side by side ("Which band was formed first, Wavves or Social
    Code?", "… Kim Warwick … than Jorge Lozano?"), one of them: each is told in its own
    note. The question is read once and each note once, however many of its sentences
    are asked about."""
    owners = {tuple(sorted(name)) for name, _ in answer_types.possessions(question)}
    given = [p for p in name_phrases(question, analysis) if tuple(sorted(p)) not in owners]
    compares = _COMPARES.search(question) is not None
    people = [m["name"] for s in sources for m in SPEAKER.finditer(s.chunk.text)]
    by_cid = {s.cid: s for s in sources}
    held: dict[str, bool] = {}

    def holds(c: Candidate) -> bool:
        if c.cid not in held:
            missing = [
                p
                for p in missing_names(question, [by_cid[c.cid]], analysis, people)
                if tuple(sorted(p)) not in owners
            ]
            held[c.cid] = not missing or (compares and len(missing) < len(given))
        return held[c.cid]

    return holds


# Things set side by side: "X or Y?", "more … than Y", "both X and Y".
_COMPARES = re.compile(r"\bor\b|\bthan\b|\bboth\b|\bbetween\b|\bcompared?\b", re.IGNORECASE)


def _names_not_held(
    question: str, chosen: Sequence[Candidate], sources: Sequence[Source], analysis: QueryAnalysis
) -> list[tuple[str, ...]]:
    """The question's names that the notes quoted do not hold (``_quotes_another_thing``)."""
    quoted = {c.cid for c in chosen}
    people = [m["name"] for s in sources for m in SPEAKER.finditer(s.chunk.text)]
    return missing_names(question, [s for s in sources if s.cid in quoted], analysis, people)


def _owned_by_another(
    question: str, chosen: Sequence[Candidate], sources: Sequence[Source]
) -> bool:
    """The question asks for someone's thing ("What's Raf's parkrun PB?") and the quoted
    sentences that say the thing do not say whose it is: none names the owner, is their
    line, or is in a note titled by them. "23:05 new PB!! Raf paced me" is the
    writer's PB; Raf is in the next sentence for pacing. (What people of a conversation
    said is judged by ``whose_lines`` instead.) Or it asks for the asker's own ("our
    manager") and every quoted sentence saying it says it is someone else's ("Sun Hex's
    manager")."""
    held = {s.cid: headline_terms(s) for s in sources}
    for name, things in answer_types.possessions(question):
        saying = [c for c in chosen if frozenset(spelled_out(terms(c.text), c.text)) & things]
        if saying and not any(
            name & (frozenset(terms(c.text)) | frozenset(terms(c.speaker)) | held[c.cid])
            for c in saying
        ):
            return True
    # "Who is our manager?" over "Sun Hex's manager (Carla) gave card": their manager
    mine = answer_types.own_things(question)
    saying = [c for c in chosen if c.terms & mine]
    return bool(saying) and all(answer_types.things_of_others(c.text) & mine for c in saying)


# The words of time phrases themselves: "after the dinner party" leaves "dinner", "party".
_CALENDAR = frozenset(
    terms(
        " ".join([*MONTHS, *WEEKDAYS])
        + " day days week weeks weekend month months year years quarter today yesterday "
        "tomorrow tonight ago last past next early mid late start end middle beginning "
        "morning afternoon evening night q1 q2 q3 q4 spring summer autumn fall winter "
        # (holidays on a fixed day: "before xmas" is a day of the calendar)
        "christmas xmas eve boxing new years nye halloween valentine valentines"
    )
)


def _event_terms(analysis: QueryAnalysis) -> list[str]:
    """The words of the event a question's window is anchored to ("the dinner party"),
    none for a calendar phrase."""
    if analysis.window is None:
        return []
    return [
        t
        for t in terms(analysis.window.label)
        if t not in _CALENDAR and not any(ch.isdigit() for ch in t)
    ]


def _holds_codes(question: str, lead: Candidate, sources: Sequence[Source]) -> bool:
    """The note that answers holds every code the question names ("INC-2310", "SN2").

    A code names one thing exactly; a note about its neighbour ("INC-2334", sharing
    "root cause") answers another question, however many words it shares."""
    text = _note_text(sources, lead.cid)
    codes = _CODE.findall(question)
    return not _names_another_numbered(question, text) and all(
        code.lower() in text.lower() for code in codes
    )


# A sentence opening on someone named before it: "He does my Wed 4 Nov night".
_OPENS_ON_PRONOUN = re.compile(r"^\W*(?:he|she|they)\b", re.IGNORECASE)


def _with_antecedent(
    chosen: list[Candidate],
    every: Sequence[Candidate],
    sources: Sequence[Source],
    pool: Sequence[Candidate],
) -> list[Candidate]:
    """The chosen sentences, led by the one before the lead in its note when the lead
    opens on "he", "she" or "they" and that one opens on someone's name: "Josh needs Sun
    8 Nov off. He does my Wed 4 Nov night" says who does it."""
    lead = chosen[0]
    if not _OPENS_ON_PRONOUN.match(lead.text) or lead.speaker:
        return chosen
    before = next((c for c in every if c.cid == lead.cid and c.position == lead.position - 1), None)
    if before is None or before in chosen:
        return chosen
    # (whom it opens on: "Josh needs Sun 8 Nov off", not "Recording Thu 17 Sept")
    opening = re.match(r"\W*([A-Z][a-z]+)\b", before.text)
    if opening is None or opening[1].lower() not in people_module.notebook_names(sources, pool):
        return chosen
    return [before, *chosen]


def _quoted_in(c: Candidate, answer: str) -> bool:
    """The sentence is one ``answer`` quotes."""
    return speaker_prefix(c.text, c.speaker).rstrip(".!?").strip() in answer


def _only_said_before(answer: str, said_before: str) -> bool:
    """Every sentence ``answer`` quotes is one ``said_before`` quoted."""
    quoted = [q.strip(" -\n.!?") for q in re.split(r"\s*\[N\d+\][.!?]?", answer)]
    return all(q in said_before for q in quoted if q)


# A day asked about: after a word leading it ("on Saturday", "this Saturday"), or a
# phrase opening on one ("tomorrow"); not a weekday naming a thing ("the Tuesday shift").
_LEADS_A_DAY = re.compile(r"\b(?:on|for|by|this|next|coming)\s*$", re.IGNORECASE)
_OPENS_ON_A_DAY = re.compile(
    r"\s*(?:on|for|by|this|next|coming|tomorrow|today|tonight)\b", re.IGNORECASE
)


def _on_the_day_first(
    question: str, pool: list[Candidate], sources: Sequence[Source], now: datetime
) -> list[Candidate]:
    """The pool, led by the sentences naming the day the question names ("Who are we
    playing this Saturday?" over the fixture list's "Sat 28 Nov A @ Shefford"): of the
    sentences about the question, the one of that day is its answer, and it says the
    question's words for the day ("Sat 28 Nov" is "this Saturday")."""
    # a day the question is asked about ("on Saturday", "this Saturday", "tomorrow"), not a
    # weekday naming a thing ("the Tuesday shift", "Which Tuesday…")
    phrases = [
        r
        for r in resolve_phrases(question, now)
        if _LEADS_A_DAY.search(question, 0, r.start) or _OPENS_ON_A_DAY.match(r.phrase)
    ]
    asked = {d for r in phrases if (d := day_of(r.meaning)) is not None}
    if len(asked) != 1:
        return pool
    written = {s.cid: s.chunk.created_at.astimezone(now.tzinfo).date() for s in sources}

    def names_the_day(c: Candidate) -> bool:
        days = named_days(c.text, written[c.cid]) or [
            d for r in resolve_phrases(c.text, written[c.cid]) if (d := day_of(r.meaning))
        ]
        return bool(asked & set(days))

    of_the_day = [names_the_day(c) for c in pool]
    if not any(of_the_day):
        return pool
    said_day = frozenset(t for r in phrases for t in terms(r.phrase))
    on_the_day = [
        replace(c, terms=c.terms | said_day) for c, on in zip(pool, of_the_day, strict=True) if on
    ]
    return [*on_the_day, *(c for c, on in zip(pool, of_the_day, strict=True) if not on)]


def _names_another_numbered(question: str, text: str) -> bool:
    """The text names a thing the question names by a word and its number, by that word
    and other numbers only: "Flat 2 – runs out 28 Oct" for "… Flat 1 …" is about the
    other flat. A text naming no flat may still be about it ("the boiler" in the note on
    its repair)."""
    for m in _NUMBERED_NAME.finditer(question):
        word = m["word"].lower()
        if word in _NOT_NUMBERED:
            continue
        named = set(re.findall(rf"\b{word}\s+(\d+)\b(?![.,:]\d)", text, re.IGNORECASE))
        if named and m["n"] not in named:
            return True
    return False


def _reports_words(question: str, chosen: Sequence[Candidate], sources: Sequence[Source]) -> bool:
    """ "What did Sara say about…?" is answered by a note that reports Sara's words: her
    line ("Sara: …"), or her name followed in its sentence by a verb of saying or thinking
    ("Thomas says…", "Sofia read the deck: …"). A note that only names her beside the
    topic ("move analytics to a replica (Sara, data team)") does not say what she said."""
    asked = _ASKS_WORDS.search(question)
    if asked is None:
        return True
    name = asked["who"] or asked["role"]
    reported = re.compile(
        rf"(?<!\w){re.escape(name)}s?(?!\w)[^\n.!?]{{0,40}}?(?:{_REPORTING})", re.IGNORECASE
    )
    notes = {s.cid: s.chunk.text for s in sources}
    # A note titled by the role ("physio", "Call with the landlord") is that person's
    # account: the physio's findings are written under "physio", not "the physio said".
    titled = {
        s.cid
        for s in sources
        if asked["role"] and re.search(rf"(?<!\w){re.escape(name)}s?(?!\w)", s.chunk.title, re.I)
    }
    return any(
        c.speaker.lower().startswith(name.lower())
        or c.cid in titled
        or reported.search(notes[c.cid])
        for c in chosen
    )


def _naming_someone(
    question: str,
    question_terms: Sequence[str],
    chosen: list[Candidate],
    pool: Sequence[Candidate],
    sources: Sequence[Source],
) -> list[Candidate]:
    """A "who" question's answer, led by a chosen sentence that names someone, or else by
    the best sentence that does and holds a word of the question (itself or in its note's
    title); none when no sentence does (``people``: a sentence naming nobody is about the
    topic, not an answer)."""
    known = people_module.notebook_names(sources, pool)
    by_speaker = people_module.asks_speaker(question)
    titles = {s.cid: frozenset(terms(s.chunk.title)) for s in sources}
    wanted = frozenset(question_terms)

    def names(c: Candidate) -> int:
        return people_module.names_someone(c.text, c.speaker, known, by_speaker, wanted)

    # "Who is the lecturer on the wound care course?": a sentence naming someone beside
    # the role asked for ("Lecturer: Dr Karen Tobin") answers before one that names
    # someone beside the course ("St Stephen's Green campus")
    role = people_module.role_asked(question)
    if role and not any(
        role <= c.terms | frozenset(terms(c.speaker)) | titles.get(c.cid, frozenset()) for c in pool
    ):
        # no note says who holds the role: "Who is the head teacher?" is not answered by
        # "Mr Patel (deputy head)", nor "Who is my property manager?" by the tenants
        return []
    lead = next(
        (
            c
            for c in pool
            if role
            and role <= c.terms | frozenset(terms(c.speaker)) | titles.get(c.cid, frozenset())
            and names(c) == people_module.BY_NAME
        ),
        None,
    )
    if lead is not None:
        # the chosen sentences stay when they include it, else only its passage's
        inside = any(c is lead for c in chosen)
        return [lead, *(c for c in chosen if c is not lead and (inside or c.cid == lead.cid))]
    lead = next((c for c in chosen if names(c) == people_module.BY_NAME), None)
    if lead is not None:
        return [lead, *(c for c in chosen if c is not lead)]
    if chosen and _names_in_passing(chosen[0].text, frozenset(terms(question))):
        # "Who's my main supplier now?" over "opened account with City Plumbing … main
        # supplier from now on": a name the notes also write in lowercase ("city plumbing
        # £14.80") is no name of the notebook's, but the best sentence writes it as one
        return chosen
    lead = next(
        (
            c
            for c in pool
            if (c.terms | titles.get(c.cid, frozenset())) & wanted
            and names(c) == people_module.BY_NAME
        ),
        None,
    )
    if lead is not None:
        # the chosen sentences named no one: only those of the new lead's passage stay
        return [lead, *(c for c in chosen if c.cid == lead.cid)]
    # a pronoun for someone named before ("they're the ones performing") is the last resort
    lead = next((c for c in chosen if names(c)), None)
    return [lead, *(c for c in chosen if c is not lead)] if lead is not None else []


# A first and a last name written together: "Dan Price".
_FULL_NAME = re.compile(r"\b(?=([A-Z][a-z'’-]+)\s+([A-Z][a-z'’-]+)\b)")
_NAME_PARTS = frozenset(terms("first last surname christian given family name"))
# The words asking for a name, which are not what it is the name of.
_NAME_WORDS = frozenset(
    terms("name names called first last surname full christian given brand make")
)


def _giving_a_name(
    question: str,
    question_terms: Sequence[str],
    chosen: list[Candidate],
    pool: Sequence[Candidate],
    sources: Sequence[Source],
) -> list[Candidate]:
    """A question asking for a name ("What's the name of Ben's friend's studio?"), led by
    a chosen sentence that writes a name the question does not give, or else by the best
    sentence of the pool that does and holds half the question's other words; none when
    no sentence does ("record at Ben's friend's studio" names no studio)."""
    known = people_module.notebook_names(sources, pool)
    # (with "Freddie" for "Freddie's": "Freddie's dad" gives no first name of his dad)
    written = re.findall(r"[\w'’-]+", question)
    asked = frozenset(w.lower() for w in written) | frozenset(terms(question))
    asked |= frozenset(people_module.bare_name(w) for w in written)
    part = people_module.name_asked(question) or "any"
    subject = frozenset(question_terms) - _NAME_WORDS
    titles = {s.cid: frozenset(terms(s.chunk.title)) for s in sources}

    def gives(c: Candidate) -> bool:
        if part in ("first", "last") and subject and subject <= titles[c.cid]:
            # "What's the plumber's surname?" in the note titled "plumber": a full name
            # it writes ("Called Dan Price – 07700 900 461") gives both parts
            return any(
                all(w.lower() in known and w.lower() not in asked for w in m.groups())
                for m in _FULL_NAME.finditer(said(c.text) or c.text)
            )
        if part == "any" and subject and subject <= titles[c.cid]:
            # in the note titled by what is named ("call w/ accountant"), any name it
            # writes, or whoever speaks in it ("Mei: my fee is $220"), is that name
            speaker = people_module.bare_name(c.speaker)
            return bool(speaker and speaker in known and speaker not in asked) or (
                people_module.gives_a_name(c.text, known, asked, frozenset(), part)
            )
        return people_module.gives_a_name(c.text, known, asked, subject, part)

    giving = [c for c in chosen if gives(c)]
    if giving:
        return [*giving, *(c for c in chosen if c not in giving)]
    lead = next(
        (
            c
            for c in pool
            if len((c.terms | titles[c.cid]) & subject) >= MIN_COVERAGE * len(subject) and gives(c)
        ),
        None,
    )
    return [lead] if lead is not None else []


def _note_text(sources: Sequence[Source], cid: str) -> str:
    """The text of the note cited as ``cid``."""
    return next(s.chunk.text for s in sources if s.cid == cid)


def _checklist_first(
    question: str, question_terms: Sequence[str], pool: list[Candidate], sources: Sequence[Source]
) -> list[Candidate]:
    """A question about what is ticked or left ("What have I done on my weekend list?")
    is about a checklist: its best line leads when it covers the question as well as the
    best line of a list without boxes ("To do this weekend:")."""
    if not pool or checklists.asked_boxes(question) is None:
        return pool
    boxed = {s.cid for s in sources if checklists.has_boxes(s.chunk.text)}
    if not boxed or pool[0].cid in boxed:
        return pool
    wanted = set(question_terms)
    best = len(pool[0].terms & wanted)
    lead = next((c for c in pool if c.cid in boxed and len(c.terms & wanted) >= best), None)
    return pool if lead is None else [lead, *(c for c in pool if c is not lead)]


def _the_list(
    pool: Sequence[Candidate], sources: Sequence[Source], question: str
) -> list[Candidate]:
    """The items of the list the best sentence belongs to or heads ("Action items:"),
    in the note's order; none when that sentence is not in a list of its note.

    Of a checklist, the boxes the question asks about: "What's left…" the unticked
    items, "What have I done…" the ticked ones.

    A list is lines marked as items ("- ", "* ", "1. ", "[ ] "), at least
    ``LIST_MIN_ITEMS`` of them: a note's list is written as one, whatever the topic.
    """
    if not pool or not pool[0].terms:
        return []
    lead = pool[0]
    text = _note_text(sources, lead.cid)
    items = [_clean(m.group(1)).lower() for m in _LIST_ITEM.finditer(text)]
    # (a line ending in a colon says a list follows: "Maeve asked for extras:" over two)
    if len(items) < (2 if lead.text.rstrip().endswith(":") else LIST_MIN_ITEMS):
        return []

    def is_item(c: Candidate) -> bool:
        said_text = c.text.lower()
        return any(said_text[:24] in i or i[:24] in said_text for i in items)

    heads = lead.text.rstrip().endswith(":") or _heads_items(lead, text)
    if not (heads or is_item(lead)):
        return []
    mine = [c for c in pool if c.cid == lead.cid and (c is lead or is_item(c))]
    boxes = checklists.asked_boxes(question)
    if boxes is not None and any(checklists.box_of(c.text) for c in mine):
        mine = [c for c in mine if checklists.box_of(c.text) is boxes]
    return select_sentences(sorted(mine, key=lambda c: c.position), LIST_ITEMS)


def _heads_items(lead: Candidate, text: str) -> bool:
    """The sentence is a line of its own right above a list's items, a heading written
    without its colon: "Healesville Bee Supplies order" over "- 10 wired frames $48"."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    head = _clean(lead.text).rstrip(".!?").lower()
    for i, line in enumerate(lines[:-1]):
        if _clean(line).rstrip(".!?").lower() == head:
            # (an item above the next item heads nothing)
            return not ITEM_LINE.match(line) and ITEM_LINE.match(lines[i + 1]) is not None
    return False


# A reply that agrees to what was asked: "fine.", "Yes!", "sure, go ahead", "sounds good".
_AGREES = re.compile(
    r"^\W*(?:yes|yep|yeah|yup|sure|fine|ok|okay|agreed|approved|of\s+course|absolutely|"
    r"deal|done|sounds\s+good|works\s+for\s+me|no\s+problem|go\s+ahead)\b",
    re.IGNORECASE,
)


def _agreed_questions(sources: Sequence[Source]) -> dict[tuple[str, int], tuple[str, str]]:
    """(citation id, sentence position) of each question in a note that the next line,
    another speaker's, agrees to -> the question and the reply, as quoted."""
    out: dict[tuple[str, int], tuple[str, str]] = {}
    for source in sources:
        turns = attributed_sentences(source.chunk.text, source.chunk.position > 0)
        for i, ((asked, by), (reply, replier)) in enumerate(pairwise(turns)):
            if (
                by
                and replier
                and by != replier
                and asked.rstrip().endswith("?")
                and _AGREES.match(said(reply) or reply)
            ):
                out[source.cid, i] = (_clean(asked), _clean(reply))
    return out


# A value or a day stated, then a question after a dash: "Gym £35 - cancel in January?"
# states the price, "Wants a quote by next Wed – like Moreland?" the day, and each asks
# about something else ("Your room looks great - been gaming?" states none).
_STATED_VALUE = "|".join(sorted(CALENDAR_DAYS - {"may"}, key=len, reverse=True))
_STATED_THEN_ASKED = re.compile(
    rf"^[^?]*(?:\d|\b(?:{_STATED_VALUE})\b)[^?]*?\s+[-–—]\s+[^-–—]+$", re.IGNORECASE
)


# The words of a line ending "??" from which it states with doubt rather than asks.
_DOUBTED_WORDS = 6


def _asks(text: str) -> bool:
    """The sentence is a question: it ends with "?" (a trailing aside or "!" aside), and
    is not a value stated, then a question after a dash."""
    bare = _without_trailing_asides(text).rstrip("!")
    if bare.endswith("??") and len(bare.split()) >= _DOUBTED_WORDS:
        # "Saltwater Riot's manager Dani Kaur wants us on their shows in Oct??": a long
        # line written with doubt states it ("What??" still asks)
        return False
    return bare.endswith("?") and not _STATED_THEN_ASKED.search(bare)


def _without_trailing_asides(text: str) -> str:
    """The text without the parentheses that close it ("… (shared a photo: …)"); a
    nested one stays. A scan from the end: linear, whatever the text."""
    end = len(text.rstrip())
    while end and text[end - 1] == ")":
        start = text.rfind("(", 0, end - 1)
        if start < 0 or ")" in text[start + 1 : end - 1]:
            break
        end = len(text[:start].rstrip())
    return text[:end]


def _with_answer_of_kind(
    kind: re.Pattern[str],
    chosen: list[Candidate],
    pool: Sequence[Candidate],
    wanted: set[str] | None = None,
    owned: Callable[[Candidate], bool] | None = None,
    joins: Callable[[Candidate], bool] | None = None,
    titles: Mapping[str, frozenset[str]] | None = None,
    asking: frozenset[str] = frozenset(),
    after: frozenset[tuple[str, int]] = frozenset(),
    headlines: Mapping[str, frozenset[str]] | None = None,
) -> list[Candidate]:
    """The chosen sentences, led by one that says what the question asks for ("How
    often…": a frequency), taken from the chosen passages, or else from another note
    that may join the answer (``joins``: "Arrive 9:15" in the plan for the event the
    chosen line names); none when they do not say.
    A value asked for by name (``answer_types.SLOTS``) is taken only from a sentence
    that shares a word with the question, or is in a note whose title does (``titles``:
    "it cost 85 euros" in "Bike service"), and, when the question asks for someone's
    value (``owned``), from a sentence that is theirs. A sentence naming the value it
    states by the question's word for it (``asking``: "door code 5821#" for "What's the
    code to get into the machiya?") in a note holding the rest of what the lead holds
    ("machiya is tiny & perfect") may join too. A way to reach or name a thing
    (``answer_types.CONTACTS``) is of what its note is about (``headlines``)."""

    def says_it(c: Candidate) -> bool:
        if kind is answer_types.MEASURE and not (
            c.terms & asking or answer_types.MEASURED_IN.search(c.text)
        ):
            # a measure is written beside its name or its unit ("FG 1.018", "750mg"):
            # "Oatmeal Stout → 16B" states no final gravity
            return False
        return answer_types.states(kind, said(c.text) or c.text)

    # what each note says of the question, all its sentences together
    in_notes = covered_by_note(pool, wanted or set())

    def about_it(c: Candidate) -> bool:
        if kind in (answer_types.PLACE, answer_types.REASON):
            # A place is the thing's where its sentence names the thing: "from Blue
            # Shield" in the note titled "GI appt – Dr. Feldman" is not his office (a
            # candidate's terms hold its note's title; its text, its own words). So is a
            # reason: "Ref no show so their coach reffed" is none for Alfie's sin bin.
            return not wanted or bool(frozenset(terms(c.text)) & wanted)
        if kind not in answer_types.SLOTS:
            return True
        held = c.terms | (titles or {}).get(c.cid, frozenset())
        if headlines and len(words(kind.sub(" ", c.text))) <= 1:
            # "rang Elm St Medical - appt fri" / "ph 03 9555 0142": a bare number is the
            # practice's ("Jean's mobile 087 …" in the note about her cat is Jean's; "Cups
            # - Papier-Paul, min order €150" in a list of suppliers is another item)
            held |= headlines.get(c.cid, frozenset())
        if c.terms & asking:
            # a value named by the question's word for it ("rent £68 due 1 oct") is of
            # what its note is about ("… to Hollins Lane Allotment Soc" for "how much is
            # the allotment rent now")
            held |= in_notes[c.cid]
        # (a sum is written after what it was for: "Picked up shirts. Paid $357"; a code
        # or a time is written beside its label)
        follows = (
            kind in answer_types.QUANTITIES
            and (c.cid, c.position) in after
            and answer_types.MONEY.search(c.text) is not None
        )
        return (not wanted or bool(held & wanted) or follows) and (owned is None or owned(c))

    stating = next((c for c in chosen if says_it(c) and about_it(c)), None)
    if stating is not None and _CALCULATION.search(stating.text):
        # "Band fund: $1,140 - 357 - 89 + 300 + merch. Ben says balance now $2,076": a
        # sum written out is worked, not stated; the note's next value is its result
        result = next(
            (
                c
                for c in pool
                if c.cid == stating.cid
                and c.position > stating.position
                and says_it(c)
                and not _CALCULATION.search(c.text)
            ),
            None,
        )
        if result is not None:
            return [result, stating, *(c for c in chosen if c is not stating)][: len(chosen) + 1]
    if stating is not None:
        # the sentence stating the value is the answer: it leads
        return [stating, *(c for c in chosen if c is not stating)]
    passages = {c.cid for c in chosen}
    typed = [c for c in pool if c.cid in passages and says_it(c) and about_it(c)]
    if not typed and joins is not None and len(passages) < FACTUAL_NOTES:
        typed = [c for c in pool if joins(c) and says_it(c) and about_it(c)]
    if not typed and kind in answer_types.SLOTS and titles and wanted:
        # "How much did the reagents cost?" over "Total £187.60" in the note titled
        # "reagents order": a title speaks for its note's values, as for the lead's
        typed = [
            c
            for c in pool
            if titles.get(c.cid, frozenset()) & wanted and says_it(c) and about_it(c)
        ]
    if not typed and asking and kind in answer_types.SLOTS:
        lead = chosen[0].terms & (wanted or set())
        typed = [
            c
            for c in pool
            if c.terms & asking
            and lead
            and lead <= in_notes[c.cid]
            and says_it(c)
            and (owned is None or owned(c))
        ]
    if not typed and kind is answer_types.PLACE:
        # ... or, when none does, a sentence of the note titled by it ("Riverside location,
        # 88 Canal St" in "Adolescent Manners – wk 1")
        typed = [
            c
            for c in pool
            if (
                c.cid in passages
                or (joins is not None and len(passages) < FACTUAL_NOTES and joins(c))
            )
            and says_it(c)
            # (another note's sentence by its own words: "ordered pinnies from Sport Chek"
            # in a note titled "practice" is no place of Tuesday practice)
            and (c.terms if c.cid in passages else frozenset(terms(c.text))) & (wanted or set())
        ]
    if typed:
        return [typed[0], *chosen][: len(chosen)]
    return chosen if kind in (answer_types.REASON, answer_types.PLACE) else []


def _following(
    every: Sequence[Candidate], wanted: set[str], sources: Sequence[Source]
) -> frozenset[tuple[str, int]]:
    """The sentences (note, position) that come right after a short one holding a word of
    the question, on the same line of their note: "Sell the Micra? Sarah's neighbour
    interested, maybe £1,800." A line of its own ("Bed D – garlic" / "Soil: $89/m³")
    is another item; a long sentence ("Spent most of it chasing walls at Mrs Begum's
    (…)") says what it is about itself."""
    texts = {s.cid: s.chunk.text for s in sources}
    by_place = {(c.cid, c.position): c for c in every}
    found = set()
    for c in every:
        after = by_place.get((c.cid, c.position + 1))
        if (
            after is not None
            and frozenset(terms(c.text)) & wanted  # (its own words, none lent to it)
            and len(words(c.text)) <= _LEAD_IN_WORDS
            and _same_line(texts[c.cid], c.text, after.text)
        ):
            found.add((c.cid, c.position + 1))
    return frozenset(found)


_LEAD_IN_WORDS = 6


def _poses(before: str, sentence: str, text: str) -> bool:
    """``before`` is a short question right before ``sentence`` on its line of ``text``
    ("Sell the Fiesta?"): the topic the sentence goes on about."""
    return (
        before.rstrip().endswith("?")
        and len(words(before)) <= _LEAD_IN_WORDS
        and _same_line(text, before, sentence)
    )


def _same_line(text: str, first: str, second: str) -> bool:
    """``second`` follows ``first`` in ``text`` with no line break between them."""
    start = text.find(first[:24])
    if start < 0:
        return False
    end = text.find(second[:24], start)
    return end >= 0 and "\n" not in text[start:end]


# Amounts added and taken away: "$1,140 - 357 - 89 + 300" (two operations at least;
# "10-12" is a range, "$1,100 minus $180" a phrase).
_CALCULATION = re.compile(r"\d[\d,.]*\s*[-+]\s*[$€£]?\d[\d,.]*\s*[-+]\s*[$€£]?\d")

# "What did the plumbing end up costing?", "the final price", "the rent now", "how much
# is left": the value as it stands, which a later note that states it again tells
# ("Total $4,450" after the "$4,100" quote).
_ASKS_OUTCOME = re.compile(
    r"\b(?:end(?:ed)?\s+up|in\s+the\s+end|final(?:ly)?|actual(?:ly)?|total|now|current(?:ly)?|"
    r"latest|these\s+days|anymore|still|remaining|(?:is|are|['’]s)\s+left|at\s+the\s+moment|"
    r"so\s+far|to\s+date|"
    # the perfect of a running sum asks it as it stands: "how much have we spent on props"
    r"how\s+(?:much|many)\s+(?:\w+\s+){0,3}?(?:have|has)\s+(?:i|we|you|they|he|she)\s+"
    r"(?:spent|paid|made|raised|earned|saved|sold|collected|taken))\b",
    re.IGNORECASE,
)


# The words a question asking a total uses for it, which a line adding up says.
_TOTAL_WORDS = frozenset(
    terms("total altogether all in come came to add added up sum cost costs spend spent pay paid")
)


def _without_names_only(
    chosen: list[Candidate], wanted: set[str], names: frozenset[str]
) -> list[Candidate]:
    """``chosen`` without the sentences of other notes than the lead's whose share of the
    question is only names the question gives (or what the lead already covers)."""
    lead = chosen[0]
    covered = lead.terms & wanted
    kept = [lead]
    for c in chosen[1:]:
        adds = (c.terms & wanted) - covered
        if c.cid != lead.cid and adds <= names:
            continue
        kept.append(c)
        covered |= adds
    return kept


def _latest_note(
    chosen: list[Candidate], wanted: set[str], sources: Sequence[Source]
) -> list[Candidate]:
    """Of the notes quoted for a question about how things stand ("Whose fee is still
    outstanding?"), the one written last, when it answers on its own: "Only Darragh's fee
    still outstanding" (November) is how things stand, "Still owed: Tadhg, Jamie,
    Darragh" (September) was. Notes written at the same moment tell nothing of which is
    later: then all stay."""
    written = {s.cid: s.chunk.created_at for s in sources}
    notes = sorted({c.cid for c in chosen}, key=lambda cid: written[cid])
    if len(notes) < 2 or written[notes[-1]] == written[notes[-2]]:
        return chosen
    mine = [c for c in chosen if c.cid == notes[-1]]
    if wanted and len(_covered(mine, wanted)) / len(wanted) < MIN_COVERAGE:
        return chosen
    return mine


# A name as a line writes it: a capitalised word not opening the line.
_CAPITALISED = re.compile(r"(?<=[\w,)] )[A-Z][a-z][\w'’-]*")


def _names_in_passing(text: str, asked: frozenset[str]) -> bool:
    """The sentence writes a name as a name: a capitalised word inside it that is no day,
    month or other calendar word, nor a word of the question (``asked``): "with City
    Plumbing"; not "see you Monday", nor "Halloween" for "Who won the Halloween blitz?"."""
    found = _CAPITALISED.finditer(said(text) or text)
    return any(
        m.group(0).lower().rstrip(".") not in CALENDAR
        and not set(terms(m.group(0))) <= _CALENDAR | asked
        for m in found
    )


def _latest_of_kind(
    kind: re.Pattern[str],
    chosen: list[Candidate],
    pool: Sequence[Candidate],
    wanted: set[str],
    sources: Sequence[Source],
    asking: frozenset[str] = frozenset(),
) -> list[Candidate]:
    """The chosen sentences, led by the latest-written one that states a value of the kind
    asked for about as much of the question as the lead does, by the question's word for
    it when the lead has that word ("rent £925" after "Whitworth £875 rent", not "smoke
    alarms Whitworth £36")."""
    written = {s.cid: s.chunk.created_at for s in sources}
    lead = chosen[0]
    if not kind.search(said(lead.text) or lead.text):
        return chosen
    named_by = asking & lead.terms
    # (the question's words the lead's own line holds, every one: "paid every 4 wks into
    # mum's acct" shares as many words with "Levothyroxine 75mcg" in "MUM MEDS", not the
    # same; its title's "mum" is no word a later line about the dose need repeat)
    held = frozenset(terms(lead.text)) & wanted or lead.terms & wanted
    # The thing's own name in the lead ("House blend Kreuzberg Crema €21.50/kg") is how a
    # later line calls it ("10kg Crema (€23/kg now)"): a name the question does not give
    # ("Sat 20 June" names a day, not the thing)
    called = (
        frozenset(
            t
            for m in _CAPITALISED.finditer(lead.text)
            if m.group(0).lower() not in CALENDAR
            for t in terms(m.group(0))
        )
        - wanted
    )
    # (a later line of the same thing may leave what it is of to its note: "first rent
    # £925 paid" in a note tagged "whitworth")
    # (only when both name the value by the question's word: "[ ] Q1 estimated tax $1,800"
    # in a later note is no later oven repair bill)
    noted = {s.cid: frozenset(s.chunk.terms) if named_by else frozenset() for s in sources}
    same = [
        c
        for c in pool
        if (held <= c.terms | noted[c.cid] or c.terms & called)
        and named_by <= c.terms
        and kind.search(said(c.text) or c.text)
    ]
    latest = max(same, key=lambda c: written[c.cid], default=lead)
    if written[latest.cid] <= written[lead.cid]:
        return chosen
    return [latest, *(c for c in chosen if c.cid != lead.cid)][: len(chosen)]


def _someone_elses(mine: Sequence[Candidate], others: Sequence[Candidate]) -> bool:
    """The question's fact is another person's: the best line about someone else matches
    it by a clear margin over anything the person asked about said or was told."""
    if not others:
        return False
    if not mine:
        return True
    return others[0].score - mine[0].score > OTHER_MARGIN


_YES_NO_OPENING = re.compile(r"\W*(?:(?i:and|so|but)\s+)?")
# "did I have", "did they be": no doing to look for
_NO_DOING = frozenset({"have", "be", "do"})
# Irregular past forms, as the verb a question names ("did I get" -> "got").
_IRREGULAR = {
    "got": "get",
    "gotten": "get",
    "won": "win",
    "bought": "buy",
    "went": "go",
    "gone": "go",
    "paid": "pay",
    "sent": "send",
    "sold": "sell",
    "made": "make",
    "took": "take",
    "taken": "take",
    "gave": "give",
    "given": "give",
    "found": "find",
    "lost": "lose",
    "met": "meet",
    "told": "tell",
    "left": "leave",
    "brought": "bring",
    "heard": "hear",
    "ran": "run",
    "saw": "see",
    "seen": "see",
    "came": "come",
    "ate": "eat",
    "wrote": "write",
    "written": "write",
    "chose": "choose",
    "chosen": "choose",
    "kept": "keep",
    "began": "begin",
    "begun": "begin",
    "felt": "feel",
    "held": "hold",
    "spent": "spend",
    "built": "build",
    "caught": "catch",
    "taught": "teach",
    "thought": "think",
    "did": "do",
    "done": "do",
}


def _tells_the_verb(question: str, chosen: Sequence[Candidate]) -> bool:
    """A yes/no question about a doing ("Did I get the NSERC?") is answered by a sentence
    that tells that doing ("Got it!!", "booked the tent"), not by one that only names its
    object ("NSERC deadline is Sept 26"); one about a thing ("is there wifi at …") by a
    sentence naming it; any other question passes."""
    there = _IS_THERE.match(question)
    if there is not None:
        # "is there wifi at nant gwynant": a line about the centre that names no wifi
        # says nothing of it
        thing = frozenset(terms(there["thing"]))
        return not thing or any(thing & c.terms or kin(thing, c.terms) for c in chosen)
    asked = DID.search(question)
    if (
        asked is None
        or not _YES_NO_OPENING.fullmatch(question, 0, asked.start())
        or asked["verb"] in _NO_DOING
    ):
        return True
    return any(_tells(c.text, asked["verb"]) for c in chosen)


# "Is there wifi…", "are there any lockers…", "does the hall have a kitchen…": the thing
# asked after.
_IS_THERE = re.compile(
    r"^\W*(?:and\s+)?(?:(?:is|are)\s+there|(?:does|do)\s+(?:\w+\s+){1,3}?have)\s+"
    r"(?:(?:a|an|any|some)\s+)?(?P<thing>[a-z][\w-]*)",
    re.IGNORECASE,
)


def _only_planned(question: str, chosen: Sequence[Candidate], sources: Sequence[Source]) -> bool:
    """ "Which motel did I book in Carmel Valley?" over "[ ] book motel in Carmel Valley":
    asked what happened, the answer is only a plan, a box still open or an item under
    "goals 2026:" ("how did I do in the AM2" over "- pass AM2"), and no line tells it
    done."""
    if not _ASKS_WHAT_HAPPENED.search(question):
        return False
    texts = {s.cid: s.chunk.text for s in sources}
    # (asked whether it happened: "did the car pass", not "what did niamh say i need to …")
    asked_terms = frozenset(terms(question)) if _ASKS_WHETHER.match(question) else frozenset()

    def planned(c: Candidate) -> bool:
        return (
            checklists.box_of(c.text) is checklists.Boxes.OPEN
            or _planned_item(c.text, texts.get(c.cid, ""))
            or _still_to_do(c.text, asked_terms)
        )

    if not planned(chosen[0]):
        return False
    asked = DID.search(question)
    if asked is not None and asked["who"].lower() in ("i", "we") and asked["verb"] not in _NO_DOING:
        return not any(
            checklists.box_of(c.text) is not checklists.Boxes.OPEN
            and _tells(c.text, asked["verb"], done=True)
            for c in chosen
        )
    return all(planned(c) for c in chosen)


def _of_a_period_before_the_notes(
    analysis: QueryAnalysis, lead: Candidate, sources: Sequence[Source]
) -> bool:
    """Asked of a period counted back from today that ended before any of these notes was
    written ("what did ruby get for her birthday last year", every note from this year),
    the best line names no day of it, nor the period: it is of another time. (A later
    note telling of the period says so: "2025 return filed", "Feb takings" under the
    title "February".)"""
    window = analysis.window
    if window is None or window.end is None or not sources:
        return False
    if not frozenset(terms(window.label)) & _RELATIVE_WORDS:
        # a period named outright ("born in 1943", "formed in 2005") is what a text is
        # about, whenever it was saved
        return False
    if min(s.chunk.created_at for s in sources) < window.end:
        return False
    note = next(s.chunk for s in sources if s.cid == lead.cid)
    written = note.created_at
    told = f"{note.title} {lead.text}"
    days = named_days(told, written.date()) + [
        d for r in resolve_phrases(told, written) if (d := day_of(r.meaning))
    ]
    if any(
        window.contains(datetime.combine(d, datetime.min.time(), window.end.tzinfo)) for d in days
    ):
        return False
    # (a period written as a word the label holds: "2025", "last yr", "xmas")
    named = frozenset(terms(window.label)) - _RELATIVE_WORDS
    if window.start is not None:
        named |= {str(window.start.year)}  # "2025 return filed" for "last year"
    # (as notes shorten it: "last yr's total was 58")
    return not (named & frozenset(spelled_out(terms(told), told)))


# The words that place a period from today, not what it is: "last" year, "this" month.
_RELATIVE_WORDS = frozenset(terms("last this next previous past coming ago yesterday"))


def _still_to_find_out(question: str, lead: Candidate) -> bool:
    """Asked for a value (a sum, a time, a number), the best line names the thing but
    says its value is yet to be found ("mail redirection through aus post for 6 mths -
    look up the cost"), stating none of that kind: the notes do not know it either."""
    if not _YET_TO_FIND.search(lead.text):
        return False
    kind = answer_types.expected(question)
    # (a number the question gives is no value found: "for 6 mths" of "for 6 months")
    given = set(re.findall(r"\d+", question))
    text = re.sub(r"\d+", lambda m: " " if m.group(0) in given else m.group(0), lead.text)
    return kind is not None and not answer_types.states(kind, text)


# What a note says is not known yet: "look up the cost", "find out", "time tbc",
# "didn't write it down", "no idea" ("check the labels" is advice, not a gap).
_YET_TO_FIND = re.compile(
    r"\b(?:look\s+(?:it\s+|them\s+)?up|find\s+out|tb[cda]|"
    r"to\s+be\s+confirmed|not\s+sure|no\s+idea|didn['’]?t\s+write|don['’]?t\s+know|dunno)\b",
    re.IGNORECASE,
)


# The thing still to be done, or to be asked about: "needs police check", "ask GP first",
# "retest within 21 days".
_STILL_TO_DO = re.compile(
    r"\b(?:needs?(?:\s+to)?|ask|waiting\s+(?:on|for)|still\s+to|yet\s+to)\s+"
    r"(?:(?:the|a|an|my|his|her|their|our)\s+)?(?P<thing>[\w'’-]+)|"
    r"\b(?P<thing2>[\w'’-]+)\s+within\b",
    re.IGNORECASE,
)


_ASKS_WHETHER = re.compile(r"\W*(?:and\s+|so\s+)?(?:did|has|have)\b", re.IGNORECASE)


def _still_to_do(text: str, asked: frozenset[str]) -> bool:
    """The line says a thing the question names is still to be done or asked about
    ("did the car pass the nct retest" over "NCT fail:( … retest within 21 days"; "did
    the GP say melatonin is ok" over "tash suggests melatonin - ask GP first"): it tells
    no outcome."""
    return any(
        frozenset(terms(m["thing"] or m["thing2"])) & asked for m in _STILL_TO_DO.finditer(text)
    )


# Asked what happened: "what did the quotes come back at", "did Femi get the cat".
_ASKS_WHAT_HAPPENED = re.compile(r"\bdid\b", re.IGNORECASE)
# A heading over what is meant to happen: "goals 2026:", "To do:", "plans for May:".
_PLAN_HEADING = re.compile(
    r"\b(?:goals?|plans?|to-?\s?dos?|todo|wish\s?list|resolutions?|ideas?)\b[^\n]*:\s*$",
    re.IGNORECASE,
)


def _planned_item(line: str, note: str) -> bool:
    """The line is an item of a list headed as a plan ("goals 2026:" / "- pass AM2")."""
    lines = note.splitlines()
    at = next((i for i, text in enumerate(lines) if line.strip() and line.strip() in text), None)
    if at is None or not ITEM_LINE.match(lines[at]):
        return False
    for text in reversed(lines[:at]):
        if not ITEM_LINE.match(text):
            return bool(_PLAN_HEADING.search(text))
    return False


def _tells(text: str, verb: str, done: bool = False) -> bool:
    """The text says the verb, in any form ("got" for "get"), or ``done`` in the past
    ("booked", "bought"; not "no tasting until you book")."""
    asked = stem(verb)
    return any(
        stem(_IRREGULAR.get(w, w)) == asked and (not done or w in _IRREGULAR or w.endswith("ed"))
        for w in words(text)
    )


def _doing_first(
    question: str, question_terms: Sequence[str], pool: list[Candidate]
) -> list[Candidate]:
    """Of the sentences covering as much of "Which caterer did we book?", one telling the
    doing ("Booked Wild Thyme!!") before one naming only the kind ("Burke's Catering –
    €59pp"): the doing says which."""
    asked = DID.search(question)
    if not pool or asked is None or asked["verb"] in _NO_DOING or not _ASKS_FOR.match(question):
        return pool
    wanted = set(question_terms)

    def tells(c: Candidate) -> bool:
        return _tells(c.text, asked["verb"], done=True)

    if tells(pool[0]):
        return pool
    floor = len(pool[0].terms & wanted)
    doing = next((c for c in pool if tells(c) and len(c.terms & wanted) >= floor), None)
    return pool if doing is None else [doing, *(c for c in pool if c is not doing)]


# A question asking for something ("What song…", "Who…", "Where…"), not whether.
_ASKS_FOR = re.compile(r"^\W*(?:(?:and|but|so)\s+)?(?:what|which|who|whom|whose|where|how)\b", re.I)


def _only_repeats(question: str, chosen: Sequence[Candidate]) -> bool:
    """The answer to a question asking for something says only words of the question:
    "Walking in the Air" for "What song replaced Walking in the Air?" tells nothing."""
    if not _ASKS_FOR.search(question):
        return False
    asked = frozenset(terms(question)) | frozenset(spelled_out(terms(question), question))
    # (who says it is said too: "Gerry: he'll do the raffle" tells who)
    return all(frozenset(terms(f"{c.speaker} {c.text}")) <= asked for c in chosen)


def _clean(sentence: str) -> str:
    text = quote_note_text(sentence)
    text = re.sub(r"^\s*(?:[-*•]|\d+[.)])\s+", "", text)  # list bullets
    return re.sub(r"\s+", " ", text).strip()


def embedding_relevance(embedder: Embedder) -> Relevance:
    """Cosine of the question's and each sentence's embedding (the retrieval embedder)."""

    def score(question: str, texts: Sequence[str]) -> list[float]:
        q = embedder.embed_query(question)
        qn = math.sqrt(sum(x * x for x in q)) or 1.0
        out = []
        for v in embedder.embed_documents(list(texts)):
            vn = math.sqrt(sum(x * x for x in v)) or 1.0
            out.append(sum(a * b for a, b in zip(q, v, strict=False)) / (qn * vn))
        return out

    return score


class ExtractiveGenerator(Generator):
    """The offline generator: sentences of the notes, each cited. It has no language
    model, so it keeps the port's ``rewrite_question`` (follow-ups are read offline)
    and ignores ``strict``; of ``history`` it reads the last answer, not to repeat it."""

    model = MODEL_NAME

    def __init__(self, embedder: Embedder | None = None) -> None:
        # With an embedder, sentences are chosen by relevance to the question as well
        # as by the question terms they contain (measured in docs/quality.md).
        self._relevance = embedding_relevance(embedder) if embedder is not None else None

    def execute(
        self,
        question: str,
        sources: Sequence[Source],
        analysis: QueryAnalysis,
        strict: bool,
        history: Sequence[tuple[str, str]],
        stream: bool,
    ) -> Pieces:
        """In one piece, or sentence by sentence, each with its markers, as a
        streaming client expects. The pieces are cut from the one text, nothing
        added or lost, so a streamed answer is the plain one."""
        said_before = next((text for role, text in reversed(history) if role == "assistant"), "")
        text = compose(question, sources, analysis, self._relevance, said_before)
        if not stream:
            yield text
            return
        cuts = {len(text)}
        line_start = 0
        for line in text.split("\n"):
            # a sentence starts a piece; a bullet ("- ") stays with its line's first
            cuts.update(line_start + start for start, _ in split_sentences(line)[1:])
            line_start += len(line) + 1
            cuts.add(line_start)
        start = 0
        for cut in sorted(c for c in cuts if 0 < c <= len(text)):
            yield text[start:cut]
            start = cut
