"""Everyday notebooks: the small, dated notes a person starts with, asked as they would ask.

A folder holds one JSON file per notebook::

    {"notebook", "now" (ISO; naive = in "timezone"), "timezone" (IANA),
     "language" (optional, default "en": the asker's, sent with each question),
     "notes": [{"id", "created" (ISO), "title" | null, "tags": [...], "text"}],
     "questions": [{"id", "question", "kind", "answer_notes": [...], "answers": [...],
                    "date" (kind when), "follow_up_of" (kind followup),
                    "window" (optional: [first day, day after] the question asks of,
                              ISO dates, null for an open side)}]}

Each notebook is one tenant. Its notes are stored with their own ``created`` dates
and indexed by ``IndexingService.index_note``; questions are asked at ``now``, in the
notebook's time zone, through ``ChatService.chat`` (kind ``search`` through
``ChatService.search``), on one container whose clock is set per notebook. A
``followup`` is asked in the conversation of the question it follows, right after it.

Scores, overall and per kind:

* ``answered_rate``: share of answerable questions (every kind but ``decline`` and
  ``search``) not declined (``meta.declined``);
* ``decline_rate``: share of ``decline`` questions declined;
* ``answer_recall``: an acceptable answer string appears in the answer (case-insensitive,
  citation markers removed; a declined answer recalls nothing);
* ``citation_precision`` / ``citation_recall``: cited notes that are answer notes / answer
  notes cited, over answers that cite;
* ``date_accuracy`` (kind ``when``): the answer states the expected date;
* ``search_hit@5`` (kind ``search``): an answer note is among the first five results;
  ``search_hit@1``: it is the first;
* ``window_accuracy`` (questions with a ``window``): the question is read as asking of
  exactly that window (days in the notebook's zone).

What production depends on (a language model writes the answers there, from the
sources it is given), over answerable questions with answer notes:

* ``context@1`` / ``context@3`` / ``context@8``: an answer note is among the first 1, 3,
  8 sources handed to the generator; ``context_all@8``: every answer note is (a list or
  count question needs several);
* ``quote_top1_recall`` / ``quote_top2_recall``: the answer recall of quoting the first
  one or two sources whole, with no choice of lines: the baselines the offline answer
  is measured against;
* ``median_answer_chars``: the median length of the answers to non-list questions.
"""

from __future__ import annotations

import calendar
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from footnote.config import Settings
from footnote.domain import Note, TimeWindow
from footnote.evaluation import metrics
from footnote.evaluation.bench import BenchContainer, Progress, index_notes, stderr_progress
from footnote.evaluation.config import EvaluationConfig
from footnote.generation.citations import MARKER
from footnote.services.chat import ChatOutcome, RagConfig
from footnote.temporal import day_text
from footnote.text import normalize

KINDS = ("fact", "when", "list", "count", "decline", "search", "followup")
ANSWERABLE = ("fact", "when", "list", "count", "followup")
SEARCH_K = 5


@dataclass(frozen=True)
class Question:
    qid: str
    text: str
    kind: str
    answer_notes: tuple[str, ...]
    answers: tuple[str, ...]
    day: date | None
    follow_up_of: str | None
    window: tuple[date | None, date | None] | None = None


@dataclass(frozen=True)
class Notebook:
    name: str
    now: datetime
    zone: str
    notes: tuple[Note, ...]
    questions: tuple[Question, ...]
    language: str = "en"


@dataclass(frozen=True)
class Asked:
    notebook: str
    question: Question
    answer: str
    declined: bool
    cited_notes: tuple[str, ...]
    recalled: bool
    date_right: bool | None
    hit: bool | None
    # the notes of the sources the generator was given, in order (one per source chunk)
    sources: tuple[str, ...] = ()
    # answer recall of quoting the first one and the first two sources whole
    top1: bool = False
    top2: bool = False
    window_right: bool | None = None


class Clock:
    """A settable clock: the container's "now" for the notebook being asked."""

    def __init__(self) -> None:
        self.now = datetime.now(UTC)

    def __call__(self) -> datetime:
        return self.now


def _moment(raw: str, zone: ZoneInfo) -> datetime:
    moment = datetime.fromisoformat(raw)
    return moment.replace(tzinfo=zone) if moment.tzinfo is None else moment


def read_notebook(path: Path, tenant_prefix: str = "eval-everyday") -> Notebook:
    raw = json.loads(path.read_text(encoding="utf-8"))
    name = str(raw.get("notebook") or path.stem)
    zone_name = str(raw.get("timezone") or "UTC")
    zone = ZoneInfo(zone_name)
    tenant = f"{tenant_prefix}-{name}"
    notes = []
    for n in raw["notes"]:
        created = _moment(str(n["created"]), zone).astimezone(UTC)
        notes.append(
            Note(
                id=f"{tenant}~{n['id']}",
                tenant_id=tenant,
                text=normalize(str(n["text"])),
                created_at=created,
                updated_at=created,
                title=normalize(str(n.get("title") or "")),
                tags=tuple(str(t) for t in n.get("tags") or ()),
            )
        )
    questions = tuple(
        Question(
            str(q["id"]),
            str(q["question"]),
            str(q["kind"]),
            tuple(str(x) for x in q.get("answer_notes") or ()),
            tuple(str(x) for x in q.get("answers") or ()),
            date.fromisoformat(q["date"]) if q.get("date") else None,
            str(q["follow_up_of"]) if q.get("follow_up_of") else None,
            _window(q.get("window")),
        )
        for q in raw["questions"]
    )
    language = str(raw.get("language") or "en")
    return Notebook(
        name, _moment(str(raw["now"]), zone), zone_name, tuple(notes), questions, language
    )


def _window(raw: Any) -> tuple[date | None, date | None] | None:
    if raw is None:
        return None
    first, after = raw
    return (
        date.fromisoformat(first) if first else None,
        date.fromisoformat(after) if after else None,
    )


def _read_window(
    window: TimeWindow | Sequence[str | None] | None, zone: ZoneInfo
) -> tuple[date | None, date | None]:
    """A window read (a search's, or an answer's logged as ISO moments) as local days."""
    if window is None:
        return None, None
    ends = (
        (window.start, window.end)
        if isinstance(window, TimeWindow)
        else tuple(datetime.fromisoformat(t) if t else None for t in window)
    )
    return tuple(t.astimezone(zone).date() if t else None for t in ends)  # type: ignore[return-value]


def notebook_files(data_dir: Path) -> list[Path]:
    """The notebook files of ``data_dir``, in order; none is an error."""
    files = sorted(data_dir.glob("*.json"))
    if not files:
        raise FileNotFoundError(f"no notebook *.json files in {data_dir}")
    return files


def load_notebooks(data_dir: Path) -> list[Notebook]:
    return [read_notebook(p) for p in notebook_files(data_dir)]


def states_date(answer: str, day: date, language: str = "en") -> bool:
    """The answer names ``day``: "27 November 2026", "November 27", "27 Nov", "2026-11-27",
    or in ``language`` "27 noviembre 2026"."""
    text = answer.lower()
    if day.isoformat() in text:
        return True
    if day_text(day).lower() in text or day_text(day, language).lower() in text:
        return True
    month = calendar.month_name[day.month].lower()
    mon = rf"{month[:3]}[a-z]*\.?"
    d = rf"{day.day}(?:st|nd|rd|th)?"
    found = re.search(rf"\b{d}\s+(?:of\s+)?{mon}(?!\w)|\b{mon}\s+{d}\b", text)
    if found is None:
        return False
    # A year stated beside it must be the right one.
    years = re.findall(r"\b(?:19|20)\d\d\b", text[found.end() : found.end() + 8])
    return not years or int(years[0]) == day.year


def _local_id(note_id: str) -> str:
    return note_id.split("~", 1)[1]


def ask_notebook(app: BenchContainer, clock: Clock, book: Notebook) -> list[Asked]:
    tenant = f"eval-everyday-{book.name}"
    clock.now = book.now.astimezone(UTC)
    chat = app.chat
    zone = ZoneInfo(book.zone)
    conversations: dict[str, str] = {}
    asked: list[Asked] = []
    for q in book.questions:
        if q.kind == "search":
            result = chat.search(tenant, q.text, 8, book.zone, book.language)
            found = [_local_id(h.note_id) for h in result.hits][:SEARCH_K]
            hit = bool(set(found) & set(q.answer_notes))
            window_right = (
                None if q.window is None else _read_window(result.query.window, zone) == q.window
            )
            asked.append(
                Asked(
                    book.name,
                    q,
                    " ".join(found),
                    not found,
                    (),
                    hit,
                    None,
                    hit,
                    window_right=window_right,
                )
            )
            continue
        conversation = conversations.get(q.follow_up_of or "") if q.kind == "followup" else None
        out: ChatOutcome = chat.chat(
            tenant, q.text, conversation, RagConfig(), book.zone, book.language
        )
        conversations[q.qid] = out.conversation_id
        plain = MARKER.sub("", out.answer)
        declined = out.meta.declined
        cited = tuple(dict.fromkeys(_local_id(c.note_id) for c in out.citations))
        recalled = (not declined) and _holds_an_answer([plain], q.answers)
        date_right = None
        if q.kind == "when" and q.day is not None:
            date_right = (not declined) and states_date(plain, q.day, book.language)
        ids = list(out.log_fields.get("sourceChunkIds", ()))
        by_id = {c.chunk_id: c for c in app.store.get_chunks(tenant, ids)} if ids else {}
        given = [by_id[c] for c in ids if c in by_id]
        sources = tuple(_local_id(c.note_id) for c in given)

        window_right = None
        if q.window is not None:
            read = out.log_fields.get("window")
            window_right = _read_window(read, zone) == q.window
        asked.append(
            Asked(
                book.name,
                q,
                out.answer,
                declined,
                cited,
                recalled,
                date_right,
                None,
                sources,
                _holds_an_answer([c.text for c in given[:1]], q.answers),
                _holds_an_answer([c.text for c in given[:2]], q.answers),
                window_right,
            )
        )
    return asked


def _holds_an_answer(texts: Sequence[str], answers: Sequence[str]) -> bool:
    """Quoting ``texts`` whole would recall an acceptable answer."""
    text = " ".join(texts).lower()
    return any(a.lower() in text for a in answers)


def score(asked: Sequence[Asked]) -> dict[str, float | int | None]:
    answerable = [a for a in asked if a.question.kind in ANSWERABLE]
    declines = [a for a in asked if a.question.kind == "decline"]
    searches = [a for a in asked if a.question.kind == "search"]
    whens = [a for a in asked if a.date_right is not None]
    citing = [a for a in answerable if a.cited_notes and not a.declined]
    with_answers = [a for a in answerable if a.question.answers]

    def share(values: Sequence[bool]) -> float | None:
        return round(sum(values) / len(values), 4) if values else None

    grounded = [a for a in answerable if a.question.answer_notes]

    def among(a: Asked, k: int) -> bool:
        return bool(set(a.sources[:k]) & set(a.question.answer_notes))

    prose = sorted(
        len(MARKER.sub("", a.answer))
        for a in answerable
        if a.question.kind not in ("list", "count") and not a.declined
    )

    return {
        "questions": len(asked),
        "answered_rate": share([not a.declined for a in answerable]),
        "decline_rate": share([a.declined for a in declines]),
        "answer_recall": share([a.recalled for a in with_answers]),
        "citation_precision": (
            round(
                metrics.mean(
                    len(set(a.cited_notes) & set(a.question.answer_notes)) / len(a.cited_notes)
                    for a in citing
                ),
                4,
            )
            if citing
            else None
        ),
        "citation_recall": (
            round(
                metrics.mean(
                    len(set(a.cited_notes) & set(a.question.answer_notes))
                    / len(a.question.answer_notes)
                    for a in citing
                    if a.question.answer_notes
                ),
                4,
            )
            if citing
            else None
        ),
        "date_accuracy": share([bool(a.date_right) for a in whens]),
        "window_accuracy": share(
            [bool(a.window_right) for a in asked if a.window_right is not None]
        ),
        "search_hit@5": share([bool(a.hit) for a in searches]),
        "context@1": share([among(a, 1) for a in grounded]),
        "context@3": share([among(a, 3) for a in grounded]),
        "context@8": share([among(a, 8) for a in grounded]),
        "context_all@8": share(
            [set(a.question.answer_notes) <= set(a.sources[:8]) for a in grounded]
        ),
        "quote_top1_recall": share([a.top1 for a in with_answers]),
        "quote_top2_recall": share([a.top2 for a in with_answers]),
        "median_answer_chars": prose[len(prose) // 2] if prose else None,
        # what a person reads first: the top result is an answer note (found ids, in order)
        "search_hit@1": share(
            [
                a.answer.split()[:1] != [] and a.answer.split()[0] in a.question.answer_notes
                for a in searches
            ]
        ),
    }


def evaluate_everyday(
    data_dir: Path,
    settings: Settings,
    cache_dir: Path | None,
    progress: Progress = stderr_progress,
    evaluation: EvaluationConfig | None = None,
) -> dict[str, Any]:
    books = load_notebooks(data_dir)
    clock = Clock()
    app = BenchContainer(settings, cache_dir, evaluation, clock=clock)
    asked: list[Asked] = []
    for book in books:
        index_notes(app, book.notes, progress, book.name)
        mine = ask_notebook(app, clock, book)
        asked.extend(mine)
        s = score(mine)
        progress(
            f"  {book.name}: {len(mine)} questions  answered={s['answered_rate']}"
            f"  declined={s['decline_rate']}  recall={s['answer_recall']}"
        )
    # the kinds in the layout's order, any other after them
    kinds = sorted(
        {a.question.kind for a in asked},
        key=lambda k: (KINDS.index(k) if k in KINDS else len(KINDS), k),
    )
    report: dict[str, Any] = {
        "dataset": str(data_dir),
        "notebooks": [b.name for b in books],
        "generator": app.generator.model,
        "embedding_model": app.embedder.model_id,
        "overall": score(asked),
        "kinds": {k: score([a for a in asked if a.question.kind == k]) for k in kinds},
        "details": [
            {
                "notebook": a.notebook,
                "id": a.question.qid,
                "kind": a.question.kind,
                "question": a.question.text,
                "answer": a.answer,
                "declined": a.declined,
                "cited": list(a.cited_notes),
                "answer_notes": list(a.question.answer_notes),
                "recalled": a.recalled,
                "date_right": a.date_right,
                "hit": a.hit,
                "sources": list(a.sources),
                "window_right": a.window_right,
            }
            for a in asked
        ],
    }
    progress(json.dumps(report["overall"]))
    return report


def failures(report: dict[str, Any]) -> list[dict[str, Any]]:
    """The details a person would call wrong: for reading a run, not for scoring."""

    def wrong(d: dict[str, Any]) -> bool:
        if d["kind"] == "decline":
            return not d["declined"]
        if d["kind"] == "search":
            return not d["hit"]
        return d["declined"] or (not d["recalled"] and d["date_right"] is not True)

    return [d for d in report["details"] if wrong(d)]
