"""Archives built to hurt, and the rough edges of real ones: each entry that cannot
be read as it is fails alone, with a reason naming it, and the rest is imported."""

from __future__ import annotations

import io
import json
import stat
import zipfile
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

import pytest

from footnote.archives import ArchiveLimits, ArchiveRefused, ImportedNote, ImportFailure
from footnote.archives import read_archive as _read_archive
from footnote.text import normalize

ZIP_TIME = (2026, 12, 7, 9, 0, 0)  # the day the zip was made


def _zip(files: Mapping[str, bytes | str], compression: int = zipfile.ZIP_DEFLATED) -> io.BytesIO:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression) as z:
        for name, body in files.items():
            info = zipfile.ZipInfo(name, date_time=ZIP_TIME)
            info.compress_type = compression
            z.writestr(info, body.encode() if isinstance(body, str) else body)
    buffer.seek(0)
    return buffer


def _read(data: bytes | io.BytesIO, name: str = "upload.zip", **limits: Any) -> list[Any]:
    stream = data if isinstance(data, io.BytesIO) else io.BytesIO(data)
    return list(_read_archive(stream, name, ArchiveLimits(**limits)))


def _notes(records: list[Any]) -> dict[str, ImportedNote]:
    return {r.source: r for r in records if isinstance(r, ImportedNote)}


def _failures(records: list[Any]) -> dict[str, str]:
    return {r.source: r.reason for r in records if isinstance(r, ImportFailure)}


def yaml_alias_bomb(depth: int) -> str:
    """The probe's file: each anchor a list of nine aliases of the one before."""
    lines = ["---", 'a0: &a0 ["lol"]']
    lines += [f"a{i}: &a{i} [" + ",".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, depth + 1)]
    return "\n".join([*lines, f"title: *a{depth}", "---", "body"])


def test_a_yaml_alias_bomb_is_not_expanded_and_is_reported() -> None:
    (note,) = _read(yaml_alias_bomb(5).encode(), "yb.md")
    assert isinstance(note, ImportedNote)
    assert note.title == "yb"  # the file's name, not 9**5 "lol"s
    assert note.warnings == (
        "the front matter is not read (it uses YAML aliases (*name), which are refused): "
        "kept as text",
    )
    assert note.text.endswith("body") and len(note.text) < 500


def test_front_matter_nested_past_reading_is_refused_not_a_crash() -> None:
    def warnings(depth: int) -> tuple[str, ...]:
        deep = "---\ntitle: Deep\nx: " + "[" * depth + "]" * depth + "\n---\nbody"
        (note,) = _read(deep.encode(), "deep.md")
        assert isinstance(note, ImportedNote) and note.title == "deep"
        return note.warnings

    assert warnings(100) == (
        "the front matter is not read (it is nested over 32 levels deep): kept as text",
    )
    assert warnings(5000) == ("the front matter is not valid YAML: read as text",)  # libyaml's own


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        ("0000-01-01", "'0000-01-01'"),
        ("2023-02-30", "'2023-02-30'"),
        ("2023-01-01T10:00:00+99:99", "'2023-01-01T10:00:00+99:99'"),
    ],
)
def test_a_date_no_calendar_has_keeps_the_title_and_names_the_field(value: str, shown: str) -> None:
    text = f"---\ntitle: Budget\ncreated: {value}\n---\nRent is due on the first."
    records = _read(_zip({"v/budget.md": text}))
    note = _notes(records)["v/budget.md"]
    assert note.title == "Budget" and note.text == "Rent is due on the first."
    assert note.warnings == (f"created: {shown} is not a date: the file's date is used",)
    assert note.created_at == datetime(*ZIP_TIME, tzinfo=UTC)


def test_the_year_range_is_checked_in_utc_after_the_offset() -> None:
    def created(value: str) -> datetime | None:
        (note,) = _read(f"---\ncreated: {value}\n---\nx".encode(), "n.md")
        assert note.created_at is None or isinstance(note.created_at, datetime)
        return note.created_at

    assert created("1970-01-01T00:30:00+01:00") is None  # 1969-12-31T23:30Z
    assert created("1969-12-31T23:30:00-01:00") == datetime(1970, 1, 1, 0, 30, tzinfo=UTC)
    assert created("2200-12-31T23:30:00-01:00") is None  # 2201 in UTC
    assert created("0001-01-01T00:00:00+01:00") is None  # before year 1 in UTC: no crash


def test_a_note_with_only_a_created_date_was_last_changed_then_not_when_zipped() -> None:
    text = "---\ntitle: Trip\ncreated: 2021-07-04\n---\nPacked for the coast."
    note = _notes(_read(_zip({"v/trip.md": text})))["v/trip.md"]
    assert note.created_at == note.updated_at == datetime(2021, 7, 4, tzinfo=UTC)
    notion = "# Retro\n\nCreated: March 3, 2023 10:15 AM\n\nFewer meetings."
    page = _notes(_read(_zip({"Retro 0123456789abcdef0123456789abcdef.md": notion})))
    (retro,) = page.values()
    assert retro.created_at == retro.updated_at == datetime(2023, 3, 3, 10, 15, tzinfo=UTC)
    # With no date written, the zip's is all there is.
    bare = _notes(_read(_zip({"v/bare.md": "Just text."})))["v/bare.md"]
    assert bare.created_at == bare.updated_at == datetime(*ZIP_TIME, tzinfo=UTC)


def test_headings_are_read_as_before_without_the_pattern() -> None:
    def title(first_line: str) -> str:
        (note,) = _read(f"{first_line}\nbody".encode(), "stem.md")
        return str(note.title)

    assert title("# Plan") == "Plan"
    assert title("#   Plan for May   ") == "Plan for May"
    assert title("# Plan ##") == "Plan"
    assert title("# Learning C#") == "Learning C#"  # a '#' in a word closes nothing
    assert title("#Plan") == "stem"  # no space: a hashtag, not a heading
    assert title("# ") == "stem"


def test_wikilinks_read_as_their_text_and_brackets_left_open_stay() -> None:
    text = "See [[Storage]], [[Storage#Costs|the costs]] and [[Other#Part]].\n[[ not closed"
    (note,) = _read(text.encode(), "links.md")
    assert note.text == "See Storage, the costs and Other.\n[[ not closed"


def test_a_non_list_tags_in_notes_json_costs_that_note_its_tags_not_the_archive() -> None:
    notes = [{"id": "a", "text": "fine"}, {"id": "b", "text": "x", "tags": 7}]
    records = _read(_zip({"notes.json": json.dumps(notes), "README.md": "x"}))
    by_source = _notes(records)
    assert [n.text for n in by_source.values()] == ["fine", "x"]
    assert by_source["notes.json#b"].warnings == ("tags: '7' is not a list: left out",)
    assert by_source["notes.json#a"].warnings == ()


def test_a_keep_note_with_non_list_labels_is_imported_and_says_so() -> None:
    keep = json.dumps({"title": "Shop", "textContent": "milk", "labels": 7})
    (note,) = _read(_zip({"Takeout/Keep/Shop.json": keep}))
    assert note.text == "milk" and note.warnings == ("labels: '7' is not a list: left out",)


def test_deeply_nested_json_fails_alone_and_its_siblings_are_imported() -> None:
    deep = "[" * 5000 + "]" * 5000
    keep = json.dumps({"title": "Kept", "textContent": "the sibling"})
    files = {"Takeout/Keep/deep.json": deep, "Takeout/Keep/kept.json": keep}
    records = _read(_zip(files, zipfile.ZIP_STORED))  # stored: no ratio to give it away
    assert _failures(records) == {
        "Takeout/Keep/deep.json": "JSON nested too deeply to read: skipped"
    }
    assert [n.text for n in _notes(records).values()] == ["the sibling"]
    # The same inside Footnote's own export, between two notes.
    export = '[{"id": "a", "text": "one"}, ' + deep + ', {"id": "c", "text": "three"}]'
    records = _read(_zip({"notes.json": export, "README.md": "x"}, zipfile.ZIP_STORED))
    assert [r.text for r in records if isinstance(r, ImportedNote)] == ["one", "three"]
    assert _failures(records) == {"notes.json#1": "nested too deeply to read: skipped"}


def test_a_nested_item_whose_end_arrives_later_is_passed_over_whole() -> None:
    # Longer than one piece the reader inflates at a time, a bracket in a string too.
    deep = '{"x": ' + "[" * 40_000 + '"]"' + "]" * 40_000 + "}"
    export = '[{"id": "a", "text": "one"}, ' + deep + ', {"id": "c", "text": "three"}]'
    records = _read(_zip({"notes.json": export, "README.md": "x"}, zipfile.ZIP_STORED))
    assert [r.text for r in records if isinstance(r, ImportedNote)] == ["one", "three"]
    assert _failures(records) == {"notes.json#1": "nested too deeply to read: skipped"}


def test_a_symbolic_link_in_a_zip_is_reported_not_imported() -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        link = zipfile.ZipInfo("v/passwords.md", date_time=ZIP_TIME)
        link.create_system = 3  # Unix
        link.external_attr = (stat.S_IFLNK | 0o777) << 16
        z.writestr(link, "/etc/passwd")
        z.writestr("v/ok.md", "fine")
    records = _read(io.BytesIO(buffer.getvalue()))
    assert _failures(records) == {"v/passwords.md": "a symbolic link, not a note: skipped"}
    assert [n.text for n in _notes(records).values()] == ["fine"]


def test_a_text_file_named_zip_is_refused_with_a_reason() -> None:
    with pytest.raises(ArchiveRefused, match=r"named \.zip but is not a zip file"):
        _read(b"# Shopping\nmilk, eggs", "notes.zip")
    # A zip that starts with something else (a self-extracting archive) is still read.
    prefixed = b"#!/bin/sh\nexit 0\n" + _zip({"a.md": "kept"}).getvalue()
    assert [r.text for r in _read(prefixed, "notes.zip")] == ["kept"]


def test_invalid_utf8_is_decoded_and_said() -> None:
    damaged = "Café crème, déjà vu — naïve résumé. ".encode() * 3 + b"\xff end"
    (note,) = _read(damaged, "damaged.md")
    assert note.text.startswith("Café crème") and note.text.endswith("\ufffd end")
    assert note.warnings == ("1 bytes are not valid UTF-8: each replaced by \ufffd",)
    legacy = "Réunion déjà prévue à l'école, très important.".encode("cp1252")
    (note,) = _read(legacy, "legacy.md")
    assert note.text == "Réunion déjà prévue à l'école, très important."
    assert note.warnings == ("not UTF-8: read as cp1252, the closest fit (check its accents)",)
    (clean,) = _read("Déjà vu.".encode(), "clean.md")
    assert clean.warnings == ()


def test_bidi_overrides_and_tag_characters_are_removed_like_zero_width_ones() -> None:
    hidden = "invoice\u202efdp.exe \u2066a\u2069 b\u200b tag\U000e0041\U000e007f"
    assert normalize(hidden) == "invoicefdp.exe a b tag"


def test_a_split_note_says_so_once() -> None:
    body = "\n\n".join(f"Paragraph {i}: " + "word " * 30 for i in range(40))
    records = _read(body.encode(), "Long.md", max_note_chars=2000)
    assert len(records) > 2
    assert [len(r.warnings) for r in records] == [1] + [0] * (len(records) - 1)


def test_an_entry_past_its_time_budget_is_reported_and_the_next_is_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The budget is checked between the steps of reading an entry (each part of a
    long note is one): a clock that moves a second a look makes a note of 40 parts
    run past 10 s, and a short one not."""
    from footnote.archives import read

    class Clock:
        now = 0.0

        def monotonic(self) -> float:
            self.now += 1.0
            return self.now

    monkeypatch.setattr(read, "time", Clock())
    body = "\n\n".join(f"Paragraph {i}: " + "word " * 30 for i in range(40))
    records = _read(
        _zip({"a/slow.md": body, "a/next.md": "fine"}), max_note_chars=200, max_entry_seconds=10
    )
    assert _failures(records) == {"a/slow.md": "took over 10 s to read: the rest of it is skipped"}
    assert "a/slow.md~part1" in _notes(records)  # what was read before stays
    assert _notes(records)["a/next.md"].text == "fine"


def _within(seconds: int) -> Any:
    """Stops the test (an exception at the next check of signals, which the regex
    engine and the interpreter both make) if it is still running after ``seconds``."""
    import contextlib
    import signal

    @contextlib.contextmanager
    def bound() -> Any:
        def stalled(signum: int, frame: Any) -> None:
            raise TimeoutError(f"still reading after {seconds} s")

        previous = signal.signal(signal.SIGALRM, stalled)
        signal.alarm(seconds)
        try:
            yield
        finally:
            signal.alarm(0)
            signal.signal(signal.SIGALRM, previous)

    return bound()


@pytest.mark.parametrize("unit", ["<a ", "<!--", "</", "<![", "<?"])
def test_markup_that_never_closes_is_read_in_one_pass(unit: str) -> None:
    """The standard library's HTML parser rescans from each construct it cannot close
    to the end (30 KB of "<a " took over 20 s): every '<' that opens nothing whole is
    text, so the page reads in one pass, its words kept."""
    html = "<p>Before</p>" + unit * 15_000 + " After"  # nothing after it closes a tag
    enml = f"<note><title>T</title><content><![CDATA[<en-note>{html}</en-note>]]></content></note>"
    files = {"site/page.html": html, "Evernote/n.enex": f"<en-export>{enml}</en-export>"}
    archive = _zip(files, zipfile.ZIP_STORED)  # stored: no ratio to give it away
    with _within(60):  # in one pass: well under a second
        records = _read(archive)
    assert [r.source for r in records] == ["site/page.html", "Evernote/n.enex#1"]
    for note in records:
        assert isinstance(note, ImportedNote), note
        assert note.text.startswith("Before") and note.text.endswith("After")


def test_the_time_budget_counts_reading_not_what_the_caller_does_between_records(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The import job embeds and writes a page of records before it asks for the next
    (minutes, for a long note's parts): that time is not the entry's."""
    from footnote.archives import read

    class Clock:
        now = 0.0

        def monotonic(self) -> float:
            return self.now

    clock = Clock()
    monkeypatch.setattr(read, "time", clock)
    body = "\n\n".join(f"Paragraph {i}: " + "word " * 30 for i in range(40))
    records = []
    limits = ArchiveLimits(max_note_chars=2000, max_entry_seconds=10)
    for record in _read_archive(io.BytesIO(body.encode()), "Long.md", limits):
        records.append(record)
        clock.now += 100.0  # the caller's page
    assert len(records) > 2 and all(isinstance(r, ImportedNote) for r in records)


@pytest.mark.parametrize(
    "body",
    [
        yaml_alias_bomb(8),  # the probe's: 11 s and ~450 MiB before
        "# a" + " " * 1_000_000 + "x\nbody\n",  # cubic in the heading pattern before
        "# Wiki\n" + "[[" * 500_000,  # quadratic in the wikilink pattern before
    ],
    ids=["yaml-alias-bomb", "heading-of-spaces", "wikilink-brackets"],
)
def test_the_probes_files_stored_uncompressed_are_read_in_one_pass(body: str) -> None:
    """Stored, a zip entry has no compression ratio to give it away: what bounds it
    is its size and linear reading (benchmarks/hostile_archives.py has the times)."""
    with _within(60):  # in one pass: well under a second
        records = _read(_zip({"v/hostile.md": body}, zipfile.ZIP_STORED))
    assert records and all(isinstance(r, ImportedNote) for r in records), records
    assert all(r.source.startswith("v/hostile.md") for r in records)  # parts, if long


def test_an_evernote_notebook_in_a_zip_is_not_cut_at_one_entrys_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A notebook is one zip entry of many notes, each bounded in size: the entry's
    time budget is no limit on it (a clock a second a look: 30 notes take longer)."""
    from footnote.archives import read

    class Clock:
        now = 0.0

        def monotonic(self) -> float:
            self.now += 1.0
            return self.now

    monkeypatch.setattr(read, "time", Clock())
    text = "words " * 1000  # 30 notes of 6 KB: the notebook is read over several pieces
    notes = "".join(
        f"<note><title>N{i}</title><content><![CDATA[<en-note>{i} {text}</en-note>]]></content></note>"
        for i in range(30)
    )
    archive = _zip({"Evernote/book.enex": f"<en-export>{notes}</en-export>"}, zipfile.ZIP_STORED)
    records = _read(archive, max_entry_seconds=10)
    assert [r.text.split()[0] for r in records] == [str(i) for i in range(30)]
