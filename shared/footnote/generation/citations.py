"""Citation validation: every surviving sentence is cited, and every citation supported."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence

from footnote.domain import Citation, Source, ValidatedAnswer
from footnote.generation.prompt import NOT_ENOUGH, quote_note_text
from footnote.temporal import date_words
from footnote.text import sentences, split_sentences, terms

MARKER = re.compile(r"\[(N\d+)\]")
_ABSTAIN = re.compile(r"\b(don'?t|do not) have enough information\b", re.IGNORECASE)


def overlap(claim: str, source_text: str) -> float:
    """Share of the claim's content terms that also occur in the source (a claim with
    none, "ok!", states nothing a source could contradict: fully supported)."""
    claim_terms = set(terms(claim))
    if not claim_terms:
        return 1.0
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
        if not line.strip():
            # a blank line parts blocks (the quote answer's notes): kept, once
            if kept_sentences and kept_sentences[-1]:
                kept_sentences.append("")
            continue
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
                if source is None or overlap(claim, _supporting_text(source)) < min_overlap:
                    dropped += 1
                    continue
                valid.append(cid)
            if not valid:
                continue
            kept += len(valid)
            for cid in valid:
                if cid not in order:
                    order.append(cid)
            markers = "".join(f"[{c}]" for c in valid)
            out_parts.append(closed(_strip_markers(sentence), markers))
        if out_parts:
            kept_sentences.append(prefix + " ".join(out_parts))
    if not order:
        return ValidatedAnswer(NOT_ENOUGH, (), dropped, 0)
    renumber = {old: f"N{i}" for i, old in enumerate(order, start=1)}
    while kept_sentences and not kept_sentences[-1]:
        kept_sentences.pop()
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


def _supporting_text(source: Source) -> str:
    """What a source says: its text, and its date with its relative phrases resolved
    ("7 May 2023" is what a note of 8 May 2023 means by "yesterday")."""
    return f"{source.chunk.text}\n{date_words(source.chunk.created_at, source.chunk.text)}"


def _markers_before_punctuation(text: str) -> str:
    """ "fact. [N1] Next" → "fact [N1]. Next": markers belong to the sentence before."""
    return re.sub(
        r"([.!?])\s*((?:\[N\d+\]\s*)+)", lambda m: " " + m.group(2).strip() + m.group(1) + " ", text
    ).strip()


# What closes a claim, its markers written before it ("fact [N1]."); a colon closes a
# line heading a list ("Maeve asked for extras [N1]:").
_CLOSING = ".!?:"


def closed(claim: str, markers: str) -> str:
    """The claim with its markers before its closing mark, if it has one: "fact." and
    "[N1]" -> "fact [N1]."; "extras:" -> "extras [N1]:"; "- milk" -> "- milk [N1]" (a
    quoted line keeps its punctuation as written)."""
    end = claim[-1] if claim[-1:] in _CLOSING else ""
    return f"{claim.rstrip(_CLOSING).rstrip()} {markers}{end}"


def _strip_markers(sentence: str) -> str:
    text = MARKER.sub("", sentence)
    # (a run of spaces is tried once, from its start: linear on any text)
    text = re.sub(r"(?<!\s)\s+([.,;:!?])", r"\1", text)
    return re.sub(r"\s{2,}", " ", text).strip()


def _snippet(text: str, limit: int) -> str:
    # Snippets are shown to clients next to real markers: a note's own "[N9]" must not look like one.
    text = re.sub(r"\s+", " ", quote_note_text(text)).strip()
    return text if len(text) <= limit else text[: limit - 1].rsplit(" ", 1)[0] + "…"


def complete_sentences(pieces: Iterable[str]) -> Iterator[str]:
    """Whole sentences (with their markers and the whitespace after them) from streamed text.

    A sentence is complete once the next one has begun with something other than a
    marker, so "fact. [N1] Next" yields "fact [N1]. " only when "Next" arrives.
    """
    buffer = ""
    for piece in pieces:
        buffer += piece
        while True:
            text = _markers_before_punctuation_keep_space(buffer)
            spans = split_sentences(text)
            if len(spans) < 2 or text[spans[1][0]] == "[":
                buffer = text
                break
            cut = spans[1][0]
            yield text[:cut]
            buffer = text[cut:]
    if buffer.strip():
        yield _markers_before_punctuation_keep_space(buffer)


def _markers_before_punctuation_keep_space(text: str) -> str:
    return re.sub(
        r"([.!?])([ \t]*)((?:\[N\d+\][ \t]*)+)",
        lambda m: " " + m.group(3).strip() + m.group(1) + " ",
        text,
    )


class SentenceChecker:
    """Checks streamed sentences one at a time, as ``validate`` checks a whole answer.

    Markers naming a source that was not given, or one that shares too little
    with the sentence, are removed; a sentence left uncited is withheld (an
    abstention is shown as it is); the kept markers are renumbered by first use,
    as ``validate`` numbers the final answer.
    """

    def __init__(self, sources: Sequence[Source], min_overlap: float = 0.15) -> None:
        self._by_cid = {s.cid: s for s in sources}
        self._min_overlap = min_overlap
        self._order: dict[str, str] = {}

    def check(self, sentence: str) -> str:
        if "\n" in sentence.strip():
            # lines streamed together (a quoted note's heading and its first line) are
            # checked one by one, as ``validate`` checks an answer line by line
            head, _, rest = sentence.partition("\n")
            first = self._check_line(head, "") if head.strip() else head
            return f"{first}\n{self.check(rest)}" if first else self.check(rest)
        return self._check_line(sentence, None)

    def _check_line(self, sentence: str, end: str | None) -> str:
        trailing = sentence[len(sentence.rstrip()) :] if end is None else end
        body = sentence.strip()
        bullet = re.match(r"^([-*•]|\d+[.)])\s+", body)
        prefix = bullet.group(0) if bullet else ""
        body = body[len(prefix) :]
        claim = MARKER.sub("", body).strip()
        named = list(dict.fromkeys(MARKER.findall(body)))
        if not named:
            return sentence if is_abstention(claim) else ""
        valid = [
            cid
            for cid in named
            if (source := self._by_cid.get(cid)) is not None
            and overlap(claim, _supporting_text(source)) >= self._min_overlap
        ]
        if not valid:
            return ""
        for cid in valid:
            self._order.setdefault(cid, f"N{len(self._order) + 1}")
        markers = "".join(f"[{self._order[c]}]" for c in valid)
        after = trailing if end is not None else (trailing or " ")
        return f"{prefix}{closed(_strip_markers(body), markers)}{after}"
