"""Sentence-aware chunking with overlap."""

from __future__ import annotations

from footnote.domain import ChunkDraft
from footnote.text import split_sentences


def chunk_id(note_id: str, position: int) -> str:
    return f"{note_id}_{position:03d}"


def chunk_text(text: str, size: int = 450, overlap: int = 75) -> list[ChunkDraft]:
    """Pack whole sentences into chunks of at most ``size`` characters.

    Each chunk after the first starts with the trailing sentences of the one
    before, up to ``overlap`` characters, so a fact on a boundary is whole in
    at least one chunk. A sentence longer than ``size`` is cut at word
    boundaries with a character overlap.
    """
    if overlap >= size:
        raise ValueError("overlap must be smaller than size")
    pieces = _pieces(text, size, overlap)
    if not pieces:
        return []
    chunks: list[ChunkDraft] = []
    i = 0
    while i < len(pieces):
        start = pieces[i][0]
        j = i
        while j + 1 < len(pieces) and pieces[j + 1][1] - start <= size:
            j += 1
        end = pieces[j][1]
        chunks.append(ChunkDraft(len(chunks), text[start:end], start, end))
        if j + 1 >= len(pieces):
            break
        # Step back over trailing sentences that fit in the overlap budget,
        # always moving forward at least one piece.
        k = j + 1
        while k - 1 > i and end - pieces[k - 1][0] <= overlap:
            k -= 1
        i = k
    return chunks


def _pieces(text: str, size: int, overlap: int) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for start, end in split_sentences(text):
        if end - start <= size:
            out.append((start, end))
        else:
            out.extend(_split_long(text, start, end, size, overlap))
    return out


def _split_long(text: str, start: int, end: int, size: int, overlap: int) -> list[tuple[int, int]]:
    spans = []
    pos = start
    while pos < end:
        stop = min(pos + size, end)
        if stop < end:
            space = text.rfind(" ", pos + size // 2, stop)
            if space > pos:
                stop = space
        spans.append((pos, stop))
        if stop >= end:
            break
        nxt = max(stop - overlap, pos + 1)
        space = text.find(" ", nxt, stop)
        pos = space + 1 if space != -1 else nxt
    return spans
