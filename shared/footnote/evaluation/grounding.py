"""Grounding: does a claim keep its citation exactly when the note it cites states it?

A folder holds notebooks in the everyday layout (``footnote.evaluation.everyday``;
``questions`` may be empty), each with a list ``claims``::

    {"id", "question", "claim" (one sentence, as a model answering from the notes
     writes it), "notes": [ids it cites], "supported": true | false,
     "why": "paraphrase" | "verbatim" | "wrong-number" | "wrong-person" | "wrong-date"
            | "negated" | "not-in-note" | "other-note"}

Each notebook's notes are indexed as the everyday evaluation indexes them. Each claim
is then validated as ``/chat`` validates a sentence (``citations.validate``): its
markers name the chunks of the notes it cites, each a source. A claim *keeps* its
citation when any marker survives.

Scores, overall, per ``why`` and per notebook language:

* ``kept``: share of supported claims whose citation is kept;
* ``removed``: share of unsupported claims whose citation is removed;
* ``removed_semantic``: ``removed`` over negated, not-in-note and other-note together;
* ``regeneration_rate``: claims grouped by question into an answer, the share of the
  faithful answers (supported claims only) whose check drops most citations, which
  makes ``/chat`` regenerate once;
* ``check_ms_p50``: the median time to check one claim.

The product's grounder is measured beside a peer in the same run: the 15% term-overlap
check the product used before (``overlap-15``).
"""

from __future__ import annotations

import json
import statistics
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import tzinfo
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from footnote.config import Settings
from footnote.domain import Chunk, Source
from footnote.evaluation.bench import BenchContainer, Progress, index_notes, stderr_progress
from footnote.evaluation.config import EvaluationConfig
from footnote.evaluation.everyday import notebook_files, read_notebook
from footnote.generation.citations import needs_regeneration, validate
from footnote.grounding import ClaimChecks
from footnote.ports import Grounder
from footnote.temporal import date_words
from footnote.text import language_of_text, terms

WHYS = (
    "paraphrase",
    "verbatim",
    "wrong-number",
    "wrong-person",
    "wrong-date",
    "negated",
    "not-in-note",
    "other-note",
)
SEMANTIC = ("negated", "not-in-note", "other-note")


@dataclass(frozen=True)
class Claim:
    notebook: str
    language: str
    cid: str
    question: str
    text: str
    notes: tuple[str, ...]
    supported: bool
    why: str


@dataclass(frozen=True)
class Checked:
    claim: Claim
    kept: bool
    support: float  # the best support among the cited sources
    ms: float


class OverlapGrounder:
    """The check the product used before: a citation is kept when the source (with its
    date written out) holds 15% of the claim's content terms. Measured as the peer."""

    name = "overlap-15"
    threshold = 0.15

    def support(
        self,
        claim: str,
        sources: Sequence[Source],
        language: str,
        zone: tzinfo | None,
        others: Sequence[Source] = (),
        asked: str = "",
    ) -> list[float]:
        wanted = set(terms(claim))
        out = []
        for s in sources:
            text = f"{s.chunk.text}\n{date_words(s.chunk.created_at, s.chunk.text)}"
            out.append(len(wanted & set(terms(text))) / len(wanted) if wanted else 1.0)
        return out


def read_claims(path: Path, notebook: str, language: str) -> list[Claim]:
    raw = json.loads(path.read_text(encoding="utf-8"))
    return [
        Claim(
            notebook,
            # (the language it is written in: a notebook's file may name none)
            language_of_text(str(c["claim"]), prior=language),
            str(c["id"]),
            str(c.get("question") or ""),
            str(c["claim"]),
            tuple(str(n) for n in c["notes"]),
            bool(c["supported"]),
            str(c["why"]),
        )
        for c in raw.get("claims") or ()
    ]


def check_claims(
    app: BenchContainer, grounder: Grounder, tenant: str, zone: tzinfo, claims: Sequence[Claim]
) -> tuple[list[Checked], dict[str, bool]]:
    """Each claim through ``validate`` as ``/chat`` checks a sentence; and, per question,
    whether its faithful answer (its supported claims) would be regenerated. The
    answer's other sources are the notebook's notes (an everyday notebook holds about
    as many as ``/chat`` hands the generator)."""
    notebook = [Source(f"S{i}", c, 1.0) for i, c in enumerate(app.store.tenant_chunks(tenant))]
    out = []
    by_question: dict[str, list[tuple[str, list[Chunk]]]] = defaultdict(list)
    for claim in claims:
        note_ids = [f"{tenant}~{n}" for n in claim.notes]
        chunks = app.store.chunks_of_notes(tenant, note_ids)
        sources = [Source(f"N{i}", c, 1.0) for i, c in enumerate(chunks, start=1)]
        marked = f"{claim.text.rstrip()} " + "".join(f"[{s.cid}]" for s in sources)
        checks = ClaimChecks(
            grounder, claim.language, zone, sources=[*sources, *notebook], asked=claim.question
        )
        t = time.perf_counter()
        result = validate(marked, sources, checks)
        ms = (time.perf_counter() - t) * 1000
        out.append(Checked(claim, bool(result.citations), checks.best(), ms))
        if claim.supported:
            by_question[claim.question].append((claim.text, chunks))
    regenerated = {}
    for question, parts in by_question.items():
        # one answer of the question's supported claims, each citing its own notes
        answer, sources = _one_answer(parts)
        language = claims[0].language if claims else "en"
        checks = ClaimChecks(
            grounder, language, zone, sources=[*sources, *notebook], asked=question
        )
        regenerated[question] = needs_regeneration(validate(answer, sources, checks))
    return out, regenerated


def _one_answer(parts: Sequence[tuple[str, list[Chunk]]]) -> tuple[str, list[Source]]:
    """Claims as one answer, each citing its own notes' chunks."""
    sentences: list[str] = []
    sources: list[Source] = []
    for text, chunks in parts:
        own = [Source(f"N{len(sources) + i}", c, 1.0) for i, c in enumerate(chunks, start=1)]
        sources.extend(own)
        sentences.append(f"{text.rstrip()} " + "".join(f"[{s.cid}]" for s in own))
    return " ".join(sentences), sources


def score(checked: Sequence[Checked], regenerated: Sequence[bool]) -> dict[str, Any]:
    def share(values: Sequence[bool]) -> float | None:
        return round(sum(values) / len(values), 3) if values else None

    supported = [c for c in checked if c.claim.supported]
    wrong = [c for c in checked if not c.claim.supported]
    semantic = [c for c in wrong if c.claim.why in SEMANTIC]
    return {
        "claims": len(checked),
        "kept": share([c.kept for c in supported]),
        "removed": share([not c.kept for c in wrong]),
        "removed_semantic": share([not c.kept for c in semantic]),
        "regeneration_rate": share(list(regenerated)),
        "check_ms_p50": round(statistics.median(c.ms for c in checked), 2) if checked else None,
    }


def _breakdown(checked: Sequence[Checked]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for why in WHYS:
        mine = [c for c in checked if c.claim.why == why]
        if not mine:
            continue
        right = [c.kept == c.claim.supported for c in mine]
        out[why] = {"claims": len(mine), "right": round(sum(right) / len(mine), 3)}
    return out


def evaluate_grounding(
    data_dir: Path,
    settings: Settings,
    cache_dir: Path | None,
    progress: Progress = stderr_progress,
    evaluation: EvaluationConfig | None = None,
) -> dict[str, Any]:
    files = notebook_files(data_dir)
    app = BenchContainer(settings, cache_dir, evaluation)
    checkers: list[Grounder] = [app.grounder, OverlapGrounder()]
    results: dict[str, list[Checked]] = {g.name: [] for g in checkers}
    regenerations: dict[str, list[bool]] = {g.name: [] for g in checkers}
    for path in files:
        book = read_notebook(path, tenant_prefix="eval-grounding")
        claims = read_claims(path, book.name, book.language)
        if not claims:
            continue
        index_notes(app, book.notes, progress, book.name)
        tenant = f"eval-grounding-{book.name}"
        for grounder in checkers:
            checked, regenerated = check_claims(app, grounder, tenant, ZoneInfo(book.zone), claims)
            results[grounder.name].extend(checked)
            regenerations[grounder.name].extend(regenerated.values())
        mine = [c for c in results[app.grounder.name] if c.claim.notebook == book.name]
        s = score(mine, [])
        progress(f"  {book.name}: {len(mine)} claims  kept={s['kept']}  removed={s['removed']}")
    report: dict[str, Any] = {"dataset": str(data_dir), "grounder": app.grounder.name}
    for name, checked in results.items():
        languages = sorted({c.claim.language for c in checked})
        report[name] = {
            "overall": score(checked, regenerations[name]),
            "why": _breakdown(checked),
            "languages": {
                lang: score([c for c in checked if c.claim.language == lang], [])
                for lang in languages
            },
        }
    report["details"] = [
        {
            "notebook": c.claim.notebook,
            "id": c.claim.cid,
            "why": c.claim.why,
            "claim": c.claim.text,
            "supported": c.claim.supported,
            "kept": c.kept,
            "support": c.support,
        }
        for c in results[app.grounder.name]
    ]
    return report
