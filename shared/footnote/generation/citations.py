"""Citation validation: every surviving sentence is cited, and every citation supported."""

from __future__ import annotations

import re
from collections.abc import Sequence

from footnote.domain import Citation, Source, ValidatedAnswer
from footnote.generation.prompt import NOT_ENOUGH, quote_note_text
from footnote.text import sentences, terms

MARKER = re.compile(r"\[(N\d+)\]")
_ABSTAIN = re.compile(r"\b(don'?t|do not) have enough information\b", re.IGNORECASE)


def overlap(claim: str, source_text: str) -> float:
    """Share of the claim's content terms that also occur in the source."""
    claim_terms = set(terms(claim))
    if not claim_terms:
        return 0.0
    return len(claim_terms & set(terms(source_text))) / len(claim_terms)


def is_abstention(text: str) -> bool:
    return bool(_ABSTAIN.search(text))


def validate(
    answer: str, sources: Sequence[Source], min_overlap: float = 0.15, snippet_chars: int = 240
) -> ValidatedAnswer:
    """Drop unknown or unsupported markers and uncited sentences; renumber N1..Nk.

    A sentence keeps a marker only if that source exists and shares at least
    ``min_overlap`` of the sentence's content terms. A sentence left with no
    marker is dropped: nothing unsupported survives. Citations come back in
    order of first use, renumbered so ``[N1]`` is the first one cited.
    """
    by_cid = {s.cid: s for s in sources}
    answer = _markers_before_punctuation(answer)
    kept_sentences: list[str] = []
    order: list[str] = []
    dropped = kept = 0
    for line in answer.splitlines():
        bullet = re.match(r"^\s*([-*•]|\d+[.)])\s+", line)
        prefix = bullet.group(0) if bullet else ""
        out_parts: list[str] = []
        for sentence in sentences(line[len(prefix) :]):
            claim = MARKER.sub("", sentence).strip()
            named = list(dict.fromkeys(MARKER.findall(sentence)))
            if not named and claim and not is_abstention(claim):
                dropped += 1  # an uncited claim
            valid: list[str] = []
            for cid in named:
                source = by_cid.get(cid)
                if source is None or overlap(claim, source.chunk.text) < min_overlap:
                    dropped += 1
                    continue
                valid.append(cid)
            if not valid:
                continue
            kept += len(valid)
            for cid in valid:
                if cid not in order:
                    order.append(cid)
            body = _strip_markers(sentence)
            end = body[-1] if body[-1:] in ".!?" else "."
            body = body.rstrip(".!?").rstrip()
            out_parts.append(f"{body} {''.join(f'[{c}]' for c in valid)}{end}")
        if out_parts:
            kept_sentences.append(prefix + " ".join(out_parts))
    if not order:
        return ValidatedAnswer(NOT_ENOUGH, (), dropped, 0)
    renumber = {old: f"N{i}" for i, old in enumerate(order, start=1)}
    text = "\n".join(kept_sentences) if "\n" in answer else " ".join(kept_sentences)
    text = MARKER.sub(lambda m: f"[{renumber[m.group(1)]}]", text)
    citations = tuple(
        Citation(
            cid=renumber[old],
            note_id=by_cid[old].chunk.note_id,
            chunk_id=by_cid[old].chunk.chunk_id,
            created_at=by_cid[old].chunk.created_at,
            snippet=_snippet(by_cid[old].chunk.text, snippet_chars),
            score=round(by_cid[old].score, 4),
        )
        for old in order
    )
    return ValidatedAnswer(text, citations, dropped, kept)


def _markers_before_punctuation(text: str) -> str:
    """ "fact. [N1] Next" → "fact [N1]. Next": markers belong to the sentence before."""
    return re.sub(
        r"([.!?])\s*((?:\[N\d+\]\s*)+)", lambda m: " " + m.group(2).strip() + m.group(1) + " ", text
    ).strip()


def _strip_markers(sentence: str) -> str:
    text = MARKER.sub("", sentence)
    text = re.sub(r"\s+([.,;:!?])", r"\1", text)
    return re.sub(r"\s{2,}", " ", text).strip()


def _snippet(text: str, limit: int) -> str:
    # Snippets are shown to clients next to real markers: a note's own "[N9]" must not look like one.
    text = re.sub(r"\s+", " ", quote_note_text(text)).strip()
    return text if len(text) <= limit else text[: limit - 1].rsplit(" ", 1)[0] + "…"
