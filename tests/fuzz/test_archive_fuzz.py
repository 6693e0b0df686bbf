"""The archive readers under generated input (hypothesis, bounded examples and time):
zips of notes in every format the readers know, mixed with the hostile pieces the
issue 46 probe used and random bytes and text. Whatever comes in:

- no exception escapes but ``ArchiveRefused`` (the whole archive refused, with its reason);
- every note file ends imported or reported, under its own name;
- no note is given twice (each imported record's source is its own);
- every item of a Footnote export ends as a record of its own.
"""

from __future__ import annotations

import io
import json
import zipfile
from datetime import timedelta
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from footnote.archives import (
    ArchiveLimits,
    ArchiveRefused,
    ImportedNote,
    ImportFailure,
    read_archive,
)

# Small limits, so a generated entry reaches them: parts, sizes, ratios.
LIMITS = ArchiveLimits(max_entry_bytes=200_000, max_note_chars=2_000, max_entry_seconds=10)
BOUNDS = settings(
    max_examples=60,
    deadline=timedelta(seconds=10),  # per example, at a CI load of ~5
    derandomize=True,  # the same examples every run: a failure reproduces
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

HOSTILE = [
    "---\na0: &a0 [lol]\na1: &a1 [*a0, *a0, *a0]\ntitle: *a1\n---\nbody",
    "---\ntitle: T\ncreated: 2023-02-30\nupdated: 0000-01-01\n---\nx",
    "---\ncreated: 2023-01-01T10:00:00+99:99\ntags: 7\n---\n",
    "---\nx: " + "[" * 40 + "]" * 40 + "\n---\nbody",
    "---\n: : :\n---\n",
    "# a" + " " * 300 + "x\nbody",
    "# Wiki\n" + "[[" * 300,
    "[[a|" + "|" * 200,
    "```\n" + "#tag\n" * 50,
    "`" * 200,
    "#" * 300,
    "<en-todo" * 50,
    "<p>page</p>" + "<a " * 200,
    "<!--" * 100 + "<![" * 50,
    "Created: 9999-99-99\n",
    "\u202eevil\U000e0041\u200b",
    "",
    "   \n\t",
]
JSON_VALUE = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
TEXT = st.one_of(
    st.sampled_from(HOSTILE),
    st.text(max_size=400),
    st.lists(st.sampled_from(HOSTILE), min_size=1, max_size=3).map("\n".join),
)
BODY = st.one_of(
    TEXT.map(lambda t: t.encode("utf-8", "surrogatepass")),
    st.binary(max_size=300),
    TEXT.map(lambda t: t.encode("cp1252", "replace")),
    st.sampled_from([b"[" * 3000 + b"]" * 3000, b"\xff\xfe" + "note".encode("utf-16-le")]),
)
NOTE_NAME = st.builds(
    lambda folder, stem, suffix: f"{folder}{stem}{suffix}",
    st.sampled_from(["", "v/", "v/sub/", "../", "/abs/", ".obsidian/", "Keep/"]),
    st.text(alphabet="abcé xyz-0123", min_size=1, max_size=12),
    st.sampled_from([".md", ".txt", ".markdown", ".html", ".enex", ".json", ".png", ".zip", ""]),
)
KEEP = st.builds(
    lambda fields: json.dumps(fields).encode(),
    st.fixed_dictionaries(
        {"title": TEXT},
        optional={
            "textContent": TEXT,
            "labels": JSON_VALUE,
            "listContent": JSON_VALUE,
            "createdTimestampUsec": st.integers() | st.text(max_size=5),
            "isTrashed": st.booleans(),
        },
    ),
)
EXPORT_ITEM = st.one_of(
    JSON_VALUE,
    st.fixed_dictionaries(
        {"id": st.text(alphabet="abcxyz", min_size=1, max_size=6), "text": TEXT},
        optional={
            "tags": JSON_VALUE,
            "title": JSON_VALUE,
            "type": JSON_VALUE,
            "created": JSON_VALUE | st.sampled_from(["2023-02-30", "1970-01-01T00:30:00+01:00"]),
        },
    ),
)


def _zip(entries: dict[str, bytes], stored: bool) -> bytes:
    buffer = io.BytesIO()
    compression = zipfile.ZIP_STORED if stored else zipfile.ZIP_DEFLATED
    with zipfile.ZipFile(buffer, "w", compression) as z:
        for name, body in entries.items():
            z.writestr(name, body)
    return buffer.getvalue()


def _read(data: bytes, name: str) -> list[Any] | None:
    """The records, or None for an archive refused whole; nothing else may escape."""
    try:
        return list(read_archive(io.BytesIO(data), name, LIMITS))
    except ArchiveRefused as refused:
        assert str(refused)  # a reason a person can act on
        return None


def _no_note_twice(records: list[Any]) -> None:
    sources = [r.source for r in records if isinstance(r, ImportedNote)]
    assert len(sources) == len(set(sources)), sources
    for record in records:
        assert isinstance(record, ImportedNote | ImportFailure)
        if isinstance(record, ImportFailure):
            assert record.reason


def _told(records: list[Any], name: str) -> bool:
    return any(
        r.source == name or r.source.startswith((f"{name}~part", f"{name}#")) for r in records
    )


@BOUNDS
@given(
    entries=st.dictionaries(NOTE_NAME, BODY, min_size=1, max_size=5),
    keep=st.dictionaries(st.text(alphabet="abc", min_size=1, max_size=5), KEEP, max_size=2),
    stored=st.booleans(),
)
def test_a_zip_of_anything_ends_every_note_file_imported_or_reported(
    entries: dict[str, bytes], keep: dict[str, bytes], stored: bool
) -> None:
    files = {**entries, **{f"Takeout/Keep/{k}.json": v for k, v in keep.items()}}
    records = _read(_zip(files, stored), "upload.zip")
    if records is None:
        return
    _no_note_twice(records)
    for name in files:
        lower = name.lower()
        hidden = name.startswith(".") or "/." in name
        if lower.endswith((".md", ".txt", ".markdown")) and not hidden:
            assert _told(records, name), (name, records)


@BOUNDS
# An export names each note once (its id; an item that is no note, by its place).
@given(
    items=st.lists(
        EXPORT_ITEM,
        max_size=6,
        unique_by=lambda i: str(i.get("id")) if isinstance(i, dict) else id(i),
    ),
    stored=st.booleans(),
)
def test_every_item_of_a_footnote_export_ends_as_its_own_record(
    items: list[Any], stored: bool
) -> None:
    export = _zip({"notes.json": json.dumps(items).encode(), "README.md": b"x"}, stored)
    records = _read(export, "footnote-export.zip")
    if records is None:
        return
    _no_note_twice(records)
    ends = {r.source.split("~part")[0] for r in records}
    assert len(ends) == len(
        {f"notes.json#{i.get('id') if isinstance(i, dict) else n}" for n, i in enumerate(items)}
    )


@BOUNDS
@given(body=BODY, name=NOTE_NAME)
def test_a_single_file_of_anything_is_imported_reported_or_refused(body: bytes, name: str) -> None:
    records = _read(body, name.rsplit("/", 1)[-1] or "upload")
    if records is None:
        return
    _no_note_twice(records)
    assert records  # never silently nothing
