"""A tenant's corpus as one file: what a cold instance loads instead of every chunk.

Layout (little-endian): ``MAGIC``, the header's length (u32), the header (JSON), then
each array's raw bytes at a 64-byte aligned offset the header gives, so an array is
a view of the buffer the file was read or memory-mapped into, never parsed. The
header holds the format version, the analyzer's fingerprint, the tenant, the index
state the snapshot reflects (the tenant version and the chunk store's change mark),
the array table, the strings (chunk ids, note ids, vocabulary, model ids) and a
CRC-32 of the arrays.

What is stored is what the corpus's arrays are: float16 vectors, per-row dates,
types, models, notes and lengths, and the forward index (each row's distinct terms
by id, with their counts), and the postings grouped by term with each term's
document frequency (so a load sorts nothing). The terms are stored as the analyzer gave
them, strings, so nothing here depends on how it stems or which words it drops;
the fingerprint (the analyzer's output on a fixed text) makes a snapshot made by
another analyzer stale rather than wrong. BM25's k1, b and variant apply at query
time and are not stored.

``decode`` raises ``SnapshotError`` (with the reason) for anything it cannot trust:
the caller falls back to a full load.
"""

from __future__ import annotations

import hashlib
import json
import struct
import zlib
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

import numpy as np

from footnote.query.title_events import TitledDay
from footnote.retrieval.bm25 import Bm25Params
from footnote.retrieval.corpus import TenantCorpus, postings_of, sort_postings
from footnote.text import terms

MAGIC = b"FNSNAP\x00\x01"
FORMAT = 1
_ALIGN = 64
# A text whose terms show how the analyzer tokenises, stems and drops words: a
# change to any of those changes the fingerprint, so older snapshots are stale.
_PROBE = (
    "The runners' meetings were running late: 3 decisions, 12 TODOs, café prices "
    "and naïve deployments on 2026-03-04 by Zoë; les réunions, die Läufer."
)


class SnapshotError(ValueError):
    """A snapshot that cannot be used; the message says why (logged by the caller)."""


def analyzer_fingerprint() -> str:
    return hashlib.blake2b("\x1f".join(terms(_PROBE)).encode(), digest_size=8).hexdigest()


@dataclass(frozen=True)
class SnapshotInfo:
    """What a snapshot says about itself, read from its header alone."""

    tenant_id: str
    version: int
    mark: Any
    rows: int
    size: int


def encode(tenant_id: str, corpus: TenantCorpus) -> bytes:
    """The corpus as it is now (the caller holds ``corpus.lock``), live rows only."""
    return pack(tenant_id, gather(corpus))


@dataclass(frozen=True)
class Gathered:
    """A corpus's live rows copied out (``gather``, under its lock: copies only), to be
    packed into a snapshot (``pack``: the sort, checksum and bytes) without the lock,
    so queries wait only for the copies."""

    arrays: dict[str, np.ndarray]
    header: dict[str, Any]


def gather(corpus: TenantCorpus) -> Gathered:
    live = np.flatnonzero(corpus.alive[: corpus.rows])
    lens = corpus._fwd_len[live].astype(np.int64)
    starts = corpus._fwd_start[live].astype(np.int64)
    offsets = np.cumsum(lens) - lens
    entries = np.repeat(starts - offsets, lens) + np.arange(int(lens.sum()))
    notes = np.unique(corpus.note_codes[live]).tolist()
    note_index = np.full(len(corpus._notes), -1, dtype=np.int32)
    note_index[notes] = np.arange(len(notes), dtype=np.int32)
    arrays: dict[str, np.ndarray] = {
        "matrix": np.ascontiguousarray(corpus.matrix[live], dtype=np.float16),
        "created": corpus.created[live],
        "type_codes": corpus.type_codes[live],
        "model_codes": corpus.model_codes[live],
        "lengths": corpus.lengths[live],
        "note_codes": note_index[corpus.note_codes[live]],
        "fwd_len": lens.astype(np.int32),
        "fwd_terms": corpus._fwd_terms[entries],
        "fwd_tfs": corpus._fwd_tfs[entries],
    }
    titled = corpus._note_titles
    header = {
        "format": FORMAT,
        "analyzer": analyzer_fingerprint(),
        "version": corpus.version,
        "mark": encode_mark(corpus.mark),
        "dimension": corpus.dimension,
        "rows": len(live),
        "ids": [corpus.ids[r] for r in live.tolist()],
        "notes": [corpus._notes[c] for c in notes],
        "terms": list(corpus._terms),
        "models": sorted(corpus._models, key=corpus._models.__getitem__),
        "titles": [
            [n, t.key, t.short, t.day.isoformat()]
            for n, t in sorted(titled.items())
            if n in corpus._rows_of_note
        ],
    }
    return Gathered(arrays, header)


def pack(tenant_id: str, gathered: Gathered) -> bytes:
    arrays = dict(gathered.arrays)
    rows = int(gathered.header["rows"])
    lens = arrays["fwd_len"]
    arrays["post_rows"], arrays["post_tfs"], arrays["df"] = sort_postings(
        arrays["fwd_terms"], np.repeat(np.arange(rows, dtype=np.int32), lens), arrays["fwd_tfs"],
        len(gathered.header["terms"]),
    )  # fmt: skip
    table: list[list[Any]] = []
    placed: list[tuple[int, np.ndarray]] = []
    offset = 0
    for name, a in arrays.items():
        a = np.ascontiguousarray(a)
        table.append([name, a.dtype.str, list(a.shape), offset, a.nbytes])
        placed.append((offset, a))
        offset = _aligned(offset + a.nbytes)
    body = bytearray(offset)
    for at, a in placed:
        body[at : at + a.nbytes] = a.view(np.uint8).reshape(-1).data
    header = {
        **gathered.header,
        "tenant": tenant_id,
        "arrays": table,
        "crc32": zlib.crc32(body),
    }
    head = json.dumps(header, separators=(",", ":"), ensure_ascii=False).encode()
    prefix = MAGIC + struct.pack("<I", len(head)) + head
    return bytes(prefix + bytes(_aligned(len(prefix)) - len(prefix)) + body)


def read_info(data: bytes | bytearray | memoryview) -> SnapshotInfo:
    header, _ = _header(memoryview(data))
    return SnapshotInfo(
        header["tenant"], int(header["version"]), decode_mark(header["mark"]),
        int(header["rows"]), len(data),
    )  # fmt: skip


def decode(
    data: bytes | bytearray | memoryview, tenant_id: str, bm25: Bm25Params | None = None
) -> TenantCorpus:
    """The corpus a snapshot holds, its arrays views of ``data`` where they can be
    (a writable buffer: a ``bytearray``, or a copy-on-write memory map)."""
    view = memoryview(data)
    if view.readonly:  # patches write into the arrays
        view = memoryview(bytearray(view))
    header, body_at = _header(view)
    if header.get("tenant") != tenant_id:
        raise SnapshotError(f"snapshot of tenant {header.get('tenant')!r}, not {tenant_id!r}")
    if header.get("analyzer") != analyzer_fingerprint():
        raise SnapshotError("stale: made by another analyzer (terms differ)")
    body = view[body_at:]
    if zlib.crc32(body) != header.get("crc32"):
        raise SnapshotError("corrupt: checksum mismatch")
    try:
        arrays = {
            name: np.frombuffer(
                body, dtype=np.dtype(dtype), count=_count(shape), offset=at
            ).reshape(shape)
            for name, dtype, shape, at, _ in header["arrays"]
        }
        return _corpus(header, arrays, bm25)
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        raise SnapshotError(f"corrupt: {type(exc).__name__}: {exc}") from exc


def _corpus(
    header: dict[str, Any], a: dict[str, np.ndarray], bm25: Bm25Params | None
) -> TenantCorpus:
    rows = int(header["rows"])
    ids: list[str] = header["ids"]
    notes: list[str] = header["notes"]
    vocab: list[str] = header["terms"]
    lens = a["fwd_len"]
    fwd_terms = a["fwd_terms"]
    shapes_ok = (
        len(ids) == rows
        and all(len(a[k]) == rows for k in ("matrix", "created", "type_codes", "lengths"))
        and len(lens) == rows
        and int(lens.sum()) == len(fwd_terms) == len(a["fwd_tfs"])
        and (not len(fwd_terms) or 0 <= int(fwd_terms.min()) <= int(fwd_terms.max()) < len(vocab))
        and (not rows or 0 <= int(a["note_codes"].min()) <= int(a["note_codes"].max()) < len(notes))
        and a["matrix"].shape[1:] == (int(header["dimension"]),)
        and len(a["df"]) == len(vocab)
        and int(a["df"].sum()) == len(a["post_rows"]) == len(a["post_tfs"]) == len(fwd_terms)
        and (not rows or 0 <= int(a["post_rows"].min()) <= int(a["post_rows"].max()) < rows)
    )
    if not shapes_ok:
        raise SnapshotError("corrupt: arrays disagree with the header")
    corpus = TenantCorpus(int(header["dimension"]), bm25)
    corpus.version = int(header["version"])
    corpus.mark = decode_mark(header["mark"])
    corpus.rows = corpus._cap = rows
    corpus.matrix = a["matrix"]
    corpus.created = a["created"].copy()  # the small per-row arrays are written in place
    corpus.alive = np.ones(rows, dtype=bool)
    corpus.type_codes = a["type_codes"].copy()
    corpus.model_codes = a["model_codes"].copy()
    corpus.lengths = a["lengths"].copy()
    corpus.note_codes = a["note_codes"].copy()
    corpus.ids = list(ids)
    corpus.by_id = {cid: row for row, cid in enumerate(ids)}
    if len(corpus.by_id) != rows:
        raise SnapshotError("corrupt: repeated chunk ids")
    corpus._notes = list(notes)
    corpus._note_code = {n: i for i, n in enumerate(notes)}
    for row, code in enumerate(corpus.note_codes.tolist()):
        corpus._rows_of_note.setdefault(notes[code], []).append(row)
    corpus._models = {m: i for i, m in enumerate(header["models"])}
    live_per_model = np.bincount(corpus.model_codes.astype(np.int64), minlength=0).tolist()
    corpus._model_live.update({code: n for code, n in enumerate(live_per_model) if n})
    corpus._vocab = {t: i for i, t in enumerate(vocab)}
    corpus._terms = list(vocab)
    corpus._fwd_len = lens.astype(np.int32)
    corpus._fwd_start = np.cumsum(lens, dtype=np.int64) - lens
    corpus._fwd_terms = fwd_terms
    corpus._fwd_tfs = a["fwd_tfs"]
    corpus._fwd_used = len(fwd_terms)
    corpus._df = a["df"].copy()  # moves with every patch
    corpus._postings = postings_of(a["post_rows"], a["post_tfs"], a["df"])
    corpus._total_length = float(corpus.lengths.sum(dtype=np.float64))
    corpus._note_titles = {
        n: TitledDay(key, short, date.fromisoformat(day)) for n, key, short, day in header["titles"]
    }
    return corpus


def encode_mark(mark: Any) -> Any:
    """A chunk store's change mark as JSON: a sequence number, or a time (read times
    are kept to the microsecond, rounded down: a mark a little early only re-reads a
    change, which a patch applies idempotently)."""
    if mark is None or isinstance(mark, int):
        return mark
    if isinstance(mark, datetime):
        if mark.tzinfo is None:
            raise ValueError("a change mark time must be aware")
        plain = datetime(*mark.timetuple()[:6], mark.microsecond, tzinfo=mark.tzinfo)
        return {"time": plain.isoformat()}
    raise TypeError(f"cannot store a change mark of type {type(mark).__name__}")


def decode_mark(value: Any) -> Any:
    if value is None or isinstance(value, int):
        return value
    if isinstance(value, dict) and isinstance(value.get("time"), str):
        return datetime.fromisoformat(value["time"])
    raise SnapshotError(f"corrupt: change mark {value!r}")


def _header(view: memoryview) -> tuple[dict[str, Any], int]:
    if len(view) < len(MAGIC) + 4 or bytes(view[: len(MAGIC)]) != MAGIC:
        raise SnapshotError("corrupt: not a Footnote index snapshot (or another format)")
    (size,) = struct.unpack_from("<I", view, len(MAGIC))
    start = len(MAGIC) + 4
    if start + size > len(view):
        raise SnapshotError("corrupt: truncated header")
    try:
        header = json.loads(bytes(view[start : start + size]))
    except ValueError as exc:
        raise SnapshotError(f"corrupt: header: {exc}") from exc
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise SnapshotError("stale: another snapshot format")
    body_at = _aligned(start + size)
    arrays = header.get("arrays")
    if not isinstance(arrays, list) or any(
        body_at + int(at) + int(n) > len(view) for _, _, _, at, n in arrays
    ):
        raise SnapshotError("corrupt: truncated")
    return header, body_at


def _count(shape: Iterable[int]) -> int:
    n = 1
    for d in shape:
        n *= int(d)
    return n


def _aligned(n: int) -> int:
    return -(-n // _ALIGN) * _ALIGN
