"""The snapshot format and its stores: what a cold instance loads instead of every chunk."""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np
import pytest

from footnote.adapters.blob_snapshots import BlobIndexSnapshots
from footnote.adapters.memory_blobs import MemoryBlobStore
from footnote.ports import IndexSnapshots, snapshot_object
from footnote.retrieval.corpus import build_corpus
from footnote.retrieval.snapshot import (
    SnapshotError,
    decode,
    decode_mark,
    encode,
    encode_mark,
    read_info,
)
from footnote.text import terms
from tests.factories import chunk


def _corpus():
    chunks = [
        chunk("a_000", "We chose Firestore for the launch.", "t"),
        chunk("b_000", "Pricing review moved to March.", "t"),
        chunk("c_000", "The ferry timetable changes in spring.", "t"),
    ]
    corpus = build_corpus(chunks, version=7)
    corpus.mark = 41
    return corpus


def test_a_decoded_snapshot_answers_as_the_corpus_it_was_made_from() -> None:
    corpus = _corpus()
    data = encode("t", corpus)
    info = read_info(data)
    assert (info.tenant_id, info.version, info.mark, info.rows) == ("t", 7, 41, 3)
    loaded = decode(bytearray(data), "t")
    assert loaded.live_ids() == corpus.live_ids() and loaded.version == 7 and loaded.mark == 41
    query = corpus.vector("b_000")
    mask, loaded_mask = corpus.mask(None, ()), loaded.mask(None, ())
    assert loaded.vector_hits(query, 3, loaded_mask) == corpus.vector_hits(query, 3, mask)
    words = terms("pricing launch firestore")
    assert loaded.keyword_hits(words, 3, loaded_mask) == corpus.keyword_hits(words, 3, mask)
    assert loaded.coverage(words, ["a_000", "b_000"]) == corpus.coverage(words, ["a_000", "b_000"])
    # A decoded corpus is patched like any other.
    loaded.replace_notes(["a"], [])
    assert loaded.live_ids() == {"b_000", "c_000"}


def test_vectors_are_half_size_and_score_like_float32() -> None:
    corpus = _corpus()
    assert corpus.matrix.dtype == np.float16
    exact = np.asarray([corpus.vector(c) for c in ("a_000", "b_000", "c_000")], np.float64)
    query = exact[1]
    got = corpus.similarities(query.tolist())
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, exact @ query, atol=2e-3)


def test_change_marks_round_trip_and_a_read_time_is_never_rounded_up() -> None:
    assert decode_mark(encode_mark(12)) == 12 and decode_mark(encode_mark(None)) is None
    moment = datetime(2026, 3, 4, 5, 6, 7, 891011, tzinfo=UTC)
    assert decode_mark(encode_mark(moment)) == moment
    with pytest.raises(SnapshotError):
        decode_mark({"when": "yesterday"})


def test_the_blob_snapshot_store_keeps_one_object_per_tenant_in_its_folder() -> None:
    blobs = MemoryBlobStore()
    snapshots = BlobIndexSnapshots(blobs)
    assert isinstance(snapshots, IndexSnapshots)
    assert snapshots.read("t") is None
    snapshots.write("t", b"one")
    snapshots.write("t", b"two")
    assert snapshots.read("t") == bytearray(b"two")
    assert list(blobs.names("users/t/")) == [snapshot_object("t")]
    assert not snapshot_object("t").startswith("users/t/uploads/")  # no client writes it
    snapshots.delete("t")
    assert snapshots.read("t") is None
    with pytest.raises(ValueError):
        snapshot_object("../other")
