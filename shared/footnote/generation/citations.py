"""Citation validation: every surviving sentence is cited, and every citation supported."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence

from footnote.domain import Citation, Source, ValidatedAnswer
from footnote.generation.prompt import NOT_ENOUGH, quote_note_text
from footnote.grounding import ClaimChecks
from footnote.text import sentences, split_sentences

MARKER = re.compile(r"\[(N\d+)\]")
_ABSTAIN = re.compile(r"\b(don'?t|do not) have enough information\b", re.IGNORECASE)


def is_abstention(text: str) -> bool:
    return bool(_ABSTAIN.search(text))


def validate(answer: str, sources: Sequence[Source], checks: ClaimChecks) -> ValidatedAnswer:
    """Drop unknown or unsupported markers and uncited sentences; renumber N1..Nk.

    A sentence keeps a marker only if that source exists and supports it (``checks``:
    the answer's grounding, each claim checked once however often it is validated).
    A sentence left with no marker is dropped: nothing unsupported survives.
    Citations come back in order of first use, renumbered so ``[N1]`` is the first one
    cited, each with the least support it lends a sentence that cites it.
    """
    by_cid = {s.cid: s for s in sources}
    answer = _markers_before_punctuation(answer)
    kept_sentences: list[str] = []
    support: dict[str, float] = {}  # cid -> the least support it lends a kept sentence
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
            claim = _strip_markers(sentence)
            named = list(dict.fromkeys(MARKER.findall(sentence)))
            if not named and claim and not is_abstention(claim):
                dropped += 1  # an uncited claim
            valid = _supported(claim, named, by_cid, checks)
            dropped += len(named) - len(valid)
            if not valid:
                continue
            kept += len(valid)
            for cid, value in valid.items():
                support[cid] = min(value, support.get(cid, value))
            markers = "".join(f"[{c}]" for c in valid)
            out_parts.append(closed(_strip_markers(sentence), markers))
        if out_parts:
            kept_sentences.append(prefix + " ".join(out_parts))
    if not support:
        return ValidatedAnswer(NOT_ENOUGH, (), dropped, 0)
    renumber = {old: f"N{i}" for i, old in enumerate(support, start=1)}
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
            snippet=_snippet(by_cid[old].chunk.text, SNIPPET_CHARS),
            score=round(by_cid[old].score, 4),
            support=value,
        )
        for old, value in support.items()
    )
    return ValidatedAnswer(text, citations, dropped, kept)


SNIPPET_CHARS = 240


def needs_regeneration(checked: ValidatedAnswer) -> bool:
    """Most of a draft's citations were dropped: worth one strict regeneration."""
    return checked.dropped > checked.kept


def _supported(
    claim: str, named: Sequence[str], by_cid: Mapping[str, Source], checks: ClaimChecks
) -> dict[str, float]:
    """The named sources that support ``claim``, in the order named, with their support."""
    given = [by_cid[cid] for cid in named if cid in by_cid]
    if not given:
        return {}
    return checks.kept(claim, given)


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
    """Checks streamed sentences one at a time, as ``validate`` checks a whole answer
    (through the same ``checks``: a sentence checked here is not checked again).

    Markers naming a source that was not given, or one that does not support the
    sentence, are removed; a sentence left uncited is withheld (an abstention is shown
    as it is); the kept markers are renumbered by first use, as ``validate`` numbers
    the final answer.
    """

    def __init__(self, sources: Sequence[Source], checks: ClaimChecks) -> None:
        self._by_cid = {s.cid: s for s in sources}
        self._checks = checks
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
        claim = _strip_markers(body)
        named = list(dict.fromkeys(MARKER.findall(body)))
        if not named:
            return sentence if is_abstention(claim) else ""
        valid = _supported(claim, named, self._by_cid, self._checks)
        if not valid:
            return ""
        for cid in valid:
            self._order.setdefault(cid, f"N{len(self._order) + 1}")
        markers = "".join(f"[{self._order[c]}]" for c in valid)
        after = trailing if end is not None else (trailing or " ")
        return f"{prefix}{closed(_strip_markers(body), markers)}{after}"
