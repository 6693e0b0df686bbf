"""Cited answers on a HotpotQA-layout folder, asked through ``ChatService.chat``.

Two tenants share one in-memory store: ``full`` holds every passage and answers
all questions (answer and citation metrics, ``answered_rate`` over the questions
outside the abstention subset); ``withheld`` lacks the gold passages of a fixed,
seeded subset of questions, which it is asked (``abstention_rate``).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from footnote.config import Settings
from footnote.domain import Draft, QueryAnalysis, Source
from footnote.evaluation import metrics
from footnote.evaluation.bench import (
    BenchContainer,
    Progress,
    doc_id,
    index_documents,
    stderr_progress,
)
from footnote.evaluation.config import EvaluationConfig
from footnote.evaluation.data import Question, load_hotpot
from footnote.generation.citations import is_abstention, validate
from footnote.grounding import ClaimChecks
from footnote.ports import Generator, Grounder, Pieces
from footnote.services.chat import ChatService, RagConfig

FULL = "eval-hotpot-full"
WITHHELD = "eval-hotpot-withheld"
ABSTENTION_SEED = 3
ABSTENTION_SIZE = 50


class RecordingGenerator(Generator):
    """Passes through to the configured generator and keeps each draft with its sources,
    so the harness can tell whether validation had to drop anything."""

    def __init__(self, inner: Generator) -> None:
        self.inner = inner
        self.model = inner.model
        self.last: tuple[Draft, list[Source]] | None = None

    def execute(
        self,
        question: str,
        sources: Sequence[Source],
        analysis: QueryAnalysis,
        strict: bool,
        history: Sequence[tuple[str, str]],
        stream: bool,
    ) -> Pieces:
        written: list[str] = []
        for piece in self.inner.execute(question, sources, analysis, strict, history, stream):
            written.append(piece)
            yield piece
        self.last = (Draft("".join(written), self.inner.model), list(sources))

    def rewrite_question(self, message: str, history: Sequence[tuple[str, str]]) -> str | None:
        return self.inner.rewrite_question(message, history)


@dataclass
class Asked:
    qid: str
    answer: str
    cited: list[str]
    abstained: bool
    validated: bool | None  # None: no draft was written (gated before generation)
    extra: dict[str, Any] = field(default_factory=dict)


def abstention_subset(questions: Sequence[Question], size: int = ABSTENTION_SIZE) -> list[str]:
    """A fixed, seeded choice of question ids, at most half of the questions."""
    ids = sorted(q.qid for q in questions)
    return sorted(random.Random(ABSTENTION_SEED).sample(ids, min(size, len(ids) // 2)))


def withheld_passages(questions: Sequence[Question], subset: Sequence[str]) -> set[str]:
    """Gold passages of the subset, except any that another question needs."""
    chosen = set(subset)
    held = {g for q in questions if q.qid in chosen for g in q.gold_ids}
    needed = {g for q in questions if q.qid not in chosen for g in q.gold_ids}
    return held - needed


def ask(
    chat: ChatService, recorder: RecordingGenerator, tenant: str, q: Question, grounder: Grounder
) -> Asked:
    recorder.last = None
    out = chat.chat(tenant, q.text, None, RagConfig())
    validated = None
    if recorder.last is not None:
        draft, sources = recorder.last
        validated = validate(draft.text, sources, ClaimChecks(grounder)).dropped == 0
    cited = list(dict.fromkeys(doc_id(c.note_id) for c in out.citations))
    return Asked(
        q.qid,
        out.answer,
        cited,
        is_abstention(out.answer),
        validated,
        {"confidence": out.meta.confidence},
    )


def summarize(
    questions: Sequence[Question],
    full: dict[str, Asked],
    withheld: dict[str, Asked],
) -> dict[str, float]:
    by_id = {q.qid: q for q in questions}
    precisions = [
        p
        for qid, a in full.items()
        if (p := metrics.citation_precision(a.cited, by_id[qid].gold_ids)) is not None
    ]
    others = [a for qid, a in full.items() if qid not in withheld]
    drafted = [a.validated for a in full.values() if a.validated is not None]
    return {
        "answer_recall": metrics.mean(
            float(not a.abstained and metrics.contains_answer(a.answer, by_id[qid].answers))
            for qid, a in full.items()
        ),
        "citation_recall": metrics.mean(
            metrics.citation_recall(a.cited, by_id[qid].gold_ids) for qid, a in full.items()
        ),
        "citation_precision": metrics.mean(precisions),
        "validated_share": metrics.mean(float(v) for v in drafted),
        "abstention_rate": metrics.mean(float(a.abstained) for a in withheld.values()),
        "answered_rate": metrics.mean(float(not a.abstained) for a in others),
    }


def evaluate_answers(
    data_dir: Path,
    settings: Settings,
    cache_dir: Path | None,
    limit: int | None = None,
    progress: Progress = stderr_progress,
    evaluation: EvaluationConfig | None = None,
) -> dict[str, object]:
    data = load_hotpot(data_dir)
    questions = data.questions[:limit] if limit else data.questions
    subset = abstention_subset(questions)
    held = withheld_passages(questions, subset)

    app = BenchContainer(settings, cache_dir, evaluation)
    progress(f"indexing {len(data.passages)} passages twice ({app.embedder.model_id})")
    index_documents(app, FULL, data.passages, progress)
    index_documents(app, WITHHELD, [p for p in data.passages if p.doc_id not in held], progress)
    recorder = RecordingGenerator(app.generator)
    chat = ChatService(
        settings,
        app.retriever,
        recorder,
        app.store,
        fallback=app.fallback_generator,
        grounder=app.grounder,
        fallback_grounder=app.fallback_grounder,
    )

    grounder = app.grounder
    full = {q.qid: ask(chat, recorder, FULL, q, grounder) for q in questions}
    chosen = set(subset)
    withheld = {
        q.qid: ask(chat, recorder, WITHHELD, q, grounder) for q in questions if q.qid in chosen
    }
    scores = {k: round(v, 4) for k, v in summarize(questions, full, withheld).items()}
    progress("  " + "  ".join(f"{k}={v}" for k, v in scores.items()))
    return {
        "dataset": str(data_dir),
        "questions": len(questions),
        "abstention_questions": len(subset),
        "withheld_passages": len(held),
        "generator": recorder.model,
        "embedding_model": app.embedder.model_id,
        **scores,
        "details": [
            {
                "id": a.qid,
                "answer": a.answer,
                "cited": a.cited,
                "gold": list(by_q.gold_ids),
                "answers": list(by_q.answers),
                "abstained": a.abstained,
                **a.extra,
            }
            for a, by_q in ((full[q.qid], q) for q in questions)
        ],
        "withheld_details": [
            {"id": a.qid, "answer": a.answer, "cited": a.cited, "abstained": a.abstained, **a.extra}
            for a in withheld.values()
        ],
    }
