"""Cited answers over dated notes written over time: LoCoMo, asked through ``ChatService.chat``.

A folder holds one JSON file per conversation, in the benchmark's own layout
(``speaker_a``, ``speaker_b``, ``session_N_date_time``, ``session_N`` turns with
``dia_id``, and ``qa``; the fields may also sit under ``conversation``). One
conversation is one tenant; its sessions become notes dated at the session's
time (a whole session per note, or windows of a few turns: ``turns_per_note``)
and go through ``IndexingService.index_note``. The benchmark's summaries,
observations and events are annotations and are never indexed. Questions are
asked after the last session.

Scores, per category and overall (categories as the benchmark numbers them:
1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop, 5 adversarial):

* ``session_recall@10``: share of a question's evidence sessions among the
  sessions of its top 10 retrieved chunks (``Retriever.retrieve``, k=10).
* ``evidence_recall@8``: share of its evidence turns inside the (at most 8)
  chunks the chat pipeline gave the generator.
* ``f1`` / ``answer_recall``: SQuAD-normalised token F1 and containment of the
  gold answer, markers removed. For category 5 there is no answer to find: as
  in LoCoMo's own scorer, a declined question scores 1 and any answer 0.
* ``citation_precision``: share of cited chunks that hold an evidence turn,
  over answers that cite.
* ``decline_rate`` over category 5, ``answered_rate`` over categories 1–4.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from footnote.config import Settings
from footnote.domain import Note
from footnote.evaluation import metrics
from footnote.evaluation.answers import RecordingGenerator
from footnote.evaluation.bench import BenchContainer, Progress, index_notes, stderr_progress
from footnote.evaluation.config import EvaluationConfig
from footnote.generation.citations import MARKER, is_abstention
from footnote.query.analysis import analyze
from footnote.retrieval.retriever import Retriever
from footnote.services.chat import ChatService, RagConfig
from footnote.text import normalize

CATEGORIES = ("1", "2", "3", "4", "5")
ADVERSARIAL = "5"
SESSION_K = 10
EVIDENCE_K = 8
_DIA = re.compile(r"D(\d+):(\d+)")
_SESSION_KEY = re.compile(r"^session_(\d+)$")
_WHEN = re.compile(
    r"(?P<h>\d{1,2}):(?P<m>\d{2})\s*(?P<ampm>[ap]m)\s+on\s+(?P<d>\d{1,2})\s+(?P<mon>[A-Za-z]+),?\s+(?P<y>\d{4})",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Turn:
    dia_id: str
    speaker: str
    text: str

    def line(self) -> str:
        return f"{self.speaker}: {self.text}"


@dataclass(frozen=True)
class Session:
    number: int
    when: datetime
    turns: tuple[Turn, ...]


@dataclass(frozen=True)
class MemoryQuestion:
    index: int
    text: str
    category: str
    answer: str
    evidence: tuple[str, ...]  # dia_ids


@dataclass(frozen=True)
class Conversation:
    conv_id: str
    speakers: tuple[str, str]
    sessions: tuple[Session, ...]
    questions: tuple[MemoryQuestion, ...]


def session_time(raw: str) -> datetime:
    """ "1:56 pm on 8 May, 2023" → 2023-05-08T13:56Z (LoCoMo gives no time zone; UTC)."""
    m = _WHEN.search(raw)
    if m is None:
        raise ValueError(f"unreadable session time: {raw!r}")
    hour = int(m["h"]) % 12 + (12 if m["ampm"].lower() == "pm" else 0)
    day = datetime.strptime(f"{m['d']} {m['mon'][:3]} {m['y']}", "%d %b %Y")
    return day.replace(hour=hour, minute=int(m["m"]), tzinfo=UTC)


def _turn(raw: dict[str, Any]) -> Turn:
    text = normalize(str(raw.get("text") or ""))
    caption = raw.get("blip_caption")
    if caption:
        # The photo a speaker shared is part of what they said; its caption stands in for it.
        text = f"{text} (shared a photo: {normalize(str(caption))})".strip()
    return Turn(str(raw["dia_id"]), str(raw["speaker"]), text)


def read_conversation(path: Path) -> Conversation:
    raw = json.loads(path.read_text(encoding="utf-8"))
    conv = raw.get("conversation", raw)
    sessions = []
    for key, turns in conv.items():
        m = _SESSION_KEY.match(key)
        if not m or not isinstance(turns, list) or not turns:
            continue
        number = int(m[1])
        sessions.append(
            Session(
                number, session_time(conv[f"session_{number}_date_time"]), tuple(map(_turn, turns))
            )
        )
    sessions.sort(key=lambda s: s.number)
    questions = tuple(
        MemoryQuestion(
            i,
            str(q["question"]),
            str(q["category"]),
            "" if q.get("answer") is None else str(q["answer"]),
            tuple(f"D{a}:{b}" for e in q.get("evidence") or () for a, b in _DIA.findall(str(e))),
        )
        for i, q in enumerate(raw.get("qa") or ())
    )
    return Conversation(
        str(raw.get("sample_id") or path.stem),
        (str(conv["speaker_a"]), str(conv["speaker_b"])),
        tuple(sessions),
        questions,
    )


def load_conversations(data_dir: Path) -> list[Conversation]:
    files = sorted(data_dir.glob("*.json"))
    if not files:
        raise FileNotFoundError(f"no conversation *.json files in {data_dir}")
    return [read_conversation(p) for p in files]


# -- notes ----------------------------------------------------------------------
@dataclass
class NoteMap:
    """Which turns each note holds, so retrieved chunks can be scored against evidence."""

    turns: dict[str, tuple[Turn, ...]] = field(default_factory=dict)
    session: dict[str, int] = field(default_factory=dict)

    def chunk_turns(self, note_id: str, chunk_text: str) -> set[str]:
        """The dia_ids of the note's turns that a chunk holds (a turn cut by chunking counts
        if its first 60 characters are in the chunk)."""
        body = re.sub(r"\s+", " ", chunk_text)
        return {
            t.dia_id
            for t in self.turns.get(note_id, ())
            if re.sub(r"\s+", " ", t.line())[:60] in body
        }


def conversation_notes(
    conv: Conversation, tenant_id: str, turns_per_note: int
) -> tuple[list[Note], NoteMap]:
    """Each session as one note (``turns_per_note`` 0) or as notes of N consecutive turns,
    every note dated at its session's time."""
    notes: list[Note] = []
    mapping = NoteMap()
    for session in conv.sessions:
        size = turns_per_note or len(session.turns)
        for start in range(0, len(session.turns), size):
            group = session.turns[start : start + size]
            note_id = f"{tenant_id}~s{session.number}t{start}"
            notes.append(
                Note(
                    id=note_id,
                    tenant_id=tenant_id,
                    text="\n".join(t.line() for t in group),
                    created_at=session.when,
                    updated_at=session.when,
                )
            )
            mapping.turns[note_id] = group
            mapping.session[note_id] = session.number
    return notes, mapping


# -- asking -----------------------------------------------------------------------
@dataclass
class MemoryAsked:
    conv_id: str
    question: MemoryQuestion
    answer: str
    declined: bool
    session_recall: float
    evidence_recall: float
    cited_chunks: list[str]
    citation_precision: float | None
    f1: float
    answer_recall: float


def _sessions_of(evidence: Iterable[str]) -> set[int]:
    return {int(m[1]) for e in evidence if (m := _DIA.match(e))}


def token_f1(prediction: str, gold: str) -> float:
    said = metrics.normalize_answer(prediction).split()
    wanted = metrics.normalize_answer(gold).split()
    if not said or not wanted:
        return float(said == wanted)
    common = sum((Counter(said) & Counter(wanted)).values())
    if common == 0:
        return 0.0
    precision, recall = common / len(said), common / len(wanted)
    return 2 * precision * recall / (precision + recall)


def ask_question(
    chat: ChatService,
    retriever: Retriever,
    recorder: RecordingGenerator,
    conv: Conversation,
    tenant_id: str,
    mapping: NoteMap,
    q: MemoryQuestion,
    now: datetime,
) -> MemoryAsked:
    analysis = analyze(q.text, now, retriever.events(tenant_id))
    top = retriever.retrieve(tenant_id, analysis, k=SESSION_K)
    found = (
        {mapping.session[c.chunk.note_id] for c in top.chunks[:SESSION_K]} if top.matched else set()
    )
    wanted_sessions = _sessions_of(q.evidence)
    session_recall = len(wanted_sessions & found) / len(wanted_sessions) if wanted_sessions else 0.0

    recorder.last = None
    out = chat.chat(tenant_id, q.text, None, RagConfig())
    given: set[str] = set()
    texts: dict[str, str] = {}
    if recorder.last is not None:
        for source in recorder.last[1]:
            texts[source.chunk.chunk_id] = source.chunk.text
        for source in recorder.last[1][:EVIDENCE_K]:
            given |= mapping.chunk_turns(source.chunk.note_id, source.chunk.text)
    wanted_turns = set(q.evidence)
    evidence_recall = len(wanted_turns & given) / len(wanted_turns) if wanted_turns else 0.0

    declined = is_abstention(out.answer)
    cited = [c.chunk_id for c in out.citations]
    holding = [
        bool(mapping.chunk_turns(c.note_id, texts.get(c.chunk_id, "")) & wanted_turns)
        for c in out.citations
    ]
    precision = sum(holding) / len(holding) if holding else None
    plain = MARKER.sub("", out.answer)
    if q.category == ADVERSARIAL:
        f1 = recall = float(declined)
    elif declined:
        f1 = recall = 0.0
    else:
        f1 = token_f1(plain, q.answer)
        recall = float(metrics.contains_answer(plain, [q.answer]))
    return MemoryAsked(
        conv.conv_id,
        q,
        out.answer,
        declined,
        session_recall,
        evidence_recall,
        cited,
        precision,
        f1,
        recall,
    )


# -- scoring ------------------------------------------------------------------------
def score(asked: Sequence[MemoryAsked]) -> dict[str, float]:
    precisions = [a.citation_precision for a in asked if a.citation_precision is not None]
    return {
        "session_recall@10": metrics.mean(a.session_recall for a in asked),
        "evidence_recall@8": metrics.mean(a.evidence_recall for a in asked),
        "f1": metrics.mean(a.f1 for a in asked),
        "answer_recall": metrics.mean(a.answer_recall for a in asked),
        "citation_precision": metrics.mean(precisions),
        "questions": float(len(asked)),
    }


def summarize(asked: Sequence[MemoryAsked]) -> dict[str, Any]:
    def rounded(d: dict[str, float]) -> dict[str, float]:
        return {k: (int(v) if k == "questions" else round(v, 4)) for k, v in d.items()}

    answerable = [a for a in asked if a.question.category != ADVERSARIAL]
    adversarial = [a for a in asked if a.question.category == ADVERSARIAL]
    return {
        "overall": rounded(score(asked)),
        "categories": {
            c: rounded(score([a for a in asked if a.question.category == c])) for c in CATEGORIES
        },
        "categories_1_4": rounded(score(answerable)),
        "decline_rate": round(metrics.mean(float(a.declined) for a in adversarial), 4),
        "answered_rate": round(metrics.mean(float(not a.declined) for a in answerable), 4),
    }


def _fixed(moment: datetime) -> Callable[[], datetime]:
    return lambda: moment


def evaluate_memory(
    data_dir: Path,
    settings: Settings,
    cache_dir: Path | None,
    limit: int | None = None,
    turns_per_note: int = 0,
    progress: Progress = stderr_progress,
    evaluation: EvaluationConfig | None = None,
) -> dict[str, Any]:
    conversations = load_conversations(data_dir)
    app = BenchContainer(settings, cache_dir, evaluation)
    recorder = RecordingGenerator(app.generator)
    asked: list[MemoryAsked] = []
    for conv in conversations:
        tenant = f"eval-locomo-{conv.conv_id}"
        notes, mapping = conversation_notes(conv, tenant, turns_per_note)
        index_notes(app, notes, progress, tenant)
        # Asked the day after the last session, as a user would ask later.
        now = max(s.when for s in conv.sessions) + timedelta(days=1)
        chat = ChatService(
            settings,
            app.retriever,
            recorder,
            app.store,
            clock=_fixed(now),
            fallback=app.fallback_generator,
            grounder=app.grounder,
            fallback_grounder=app.fallback_grounder,
        )
        questions = conv.questions[:limit] if limit else conv.questions
        mine = [
            ask_question(chat, app.retriever, recorder, conv, tenant, mapping, q, now)
            for q in questions
        ]
        asked.extend(mine)
        o = score(mine)
        progress(
            f"  {conv.conv_id}: {len(mine)} questions  session_recall@10={o['session_recall@10']:.3f}"
            f"  f1={o['f1']:.3f}"
        )
    report = summarize(asked)
    progress(json.dumps(report["overall"]))
    return {
        "dataset": str(data_dir),
        "conversations": [c.conv_id for c in conversations],
        "turns_per_note": turns_per_note,
        "generator": recorder.model,
        "embedding_model": app.embedder.model_id,
        **report,
        "details": [
            {
                "conversation": a.conv_id,
                "question": a.question.text,
                "category": a.question.category,
                "gold": a.question.answer,
                "evidence": list(a.question.evidence),
                "answer": a.answer,
                "declined": a.declined,
                "session_recall": a.session_recall,
                "evidence_recall": a.evidence_recall,
                "f1": round(a.f1, 4),
                "citation_precision": a.citation_precision,
            }
            for a in asked
        ],
    }
