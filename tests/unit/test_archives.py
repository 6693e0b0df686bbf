"""Reading other apps' exports: each format built here, small, from its public
documentation (no third-party data), and the bad inputs a person can upload."""

from __future__ import annotations

import base64
import io
import json
import os
import re
import tracemalloc
import zipfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from footnote.archives import (
    ArchiveLimits,
    ArchiveRefused,
    ImportedNote,
    ImportFailure,
    ImportRecord,
    read_archive,
)
from footnote.domain import MemoryType


def _zip(files: dict[str, bytes | str], compression: int = zipfile.ZIP_DEFLATED) -> io.BytesIO:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression) as z:
        for name, body in files.items():
            info = zipfile.ZipInfo(name, date_time=(2022, 5, 6, 7, 8, 10))
            info.compress_type = compression
            z.writestr(info, body.encode() if isinstance(body, str) else body)
    buffer.seek(0)
    return buffer


def _read(stream: io.BytesIO, name: str = "upload.zip", **limits: int) -> list[Any]:
    return list(read_archive(stream, name, ArchiveLimits(**limits) if limits else None))


def _notes(records: list[ImportRecord]) -> dict[str, ImportedNote]:
    return {r.title: r for r in records if isinstance(r, ImportedNote)}


def test_an_obsidian_vault_keeps_titles_tags_dates_and_readable_links() -> None:
    vault = _zip(
        {
            "Vault/Decisions/Storage.md": (
                "---\ntitle: Storage choice\ntags: [work, infra]\ncreated: 2023-03-14T09:30:00Z\n"
                "updated: 2023-03-20\n---\nWe chose [[Firestore]] over [[Postgres|the SQL option]]. #decision\n"
            ),
            "Vault/Daily/2023-04-02.md": "# Sunday\nLong run by the canal, 14k easy.",
            "Vault/.obsidian/workspace.json": "{}",
            "Vault/attachments/photo.png": b"\x89PNG\r\n",
        }
    )
    notes = _notes(_read(vault))
    assert set(notes) == {"Storage choice", "Sunday"}
    storage = notes["Storage choice"]
    assert storage.text == "We chose Firestore over the SQL option. #decision"
    assert storage.tags == ("work", "infra", "decision")
    assert storage.created_at == datetime(2023, 3, 14, 9, 30, tzinfo=UTC)
    assert storage.updated_at == datetime(2023, 3, 20, tzinfo=UTC)
    # No front matter: the heading is the title, the file's date in the zip the date.
    sunday = notes["Sunday"]
    assert sunday.text == "Long run by the canal, 14k easy."
    assert sunday.created_at == datetime(2022, 5, 6, 7, 8, 10, tzinfo=UTC)


def test_an_evernote_export_reads_each_note_with_its_dates_and_tags() -> None:
    enex = b"""<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE en-export SYSTEM "http://xml.evernote.com/pub/evernote-export4.dtd">
<en-export export-date="20240101T000000Z" application="Evernote" version="10.0">
  <note>
    <title>Dentist</title>
    <content><![CDATA[<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE en-note SYSTEM "http://xml.evernote.com/pub/enml2.dtd">
<en-note><div>Appointment moved to <b>Thursday 3pm</b>.</div><ul><li>bring the form</li></ul></en-note>]]></content>
    <created>20230315T101500Z</created>
    <updated>20230316T080000Z</updated>
    <tag>health</tag><tag>family</tag>
  </note>
  <note>
    <title>Bad date</title>
    <content><![CDATA[<en-note>Seeds to order.</en-note>]]></content>
    <created>yesterday-ish</created>
  </note>
</en-export>"""
    records = _read(io.BytesIO(enex), "My Notes.enex")
    notes = _notes(records)
    dentist = notes["Dentist"]
    assert "Appointment moved to Thursday 3pm." in dentist.text and "bring the form" in dentist.text
    assert "<" not in dentist.text
    assert dentist.created_at == datetime(2023, 3, 15, 10, 15, tzinfo=UTC)
    assert dentist.updated_at == datetime(2023, 3, 16, 8, 0, tzinfo=UTC)
    assert dentist.tags == ("health", "family")
    bad = notes["Bad date"]
    assert bad.created_at is None and any("not a date" in w for w in bad.warnings)


@pytest.mark.parametrize(
    "doctype",
    [
        # billion laughs
        '<!DOCTYPE en-export [<!ENTITY a "lol"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>',
        # an external entity that would read a local file
        '<!DOCTYPE en-export [<!ENTITY x SYSTEM "file:///etc/passwd">]>',
        # an external parameter entity (XXE through the DTD)
        '<!DOCTYPE en-export [<!ENTITY % p SYSTEM "http://127.0.0.1:1/evil.dtd"> %p;]>',
    ],
)
def test_an_enex_with_entities_is_refused_not_expanded(doctype: str) -> None:
    enex = f"""<?xml version="1.0"?>{doctype}
<en-export><note><title>t</title><content>&b;</content></note></en-export>""".encode()
    records = _read(io.BytesIO(enex), "attack.enex")
    assert len(records) == 1 and isinstance(records[0], ImportFailure)
    assert "entities" in records[0].reason
    assert "root:" not in repr(records)


def test_a_google_keep_takeout_skips_the_bin_and_keeps_lists_labels_and_dates() -> None:
    def keep(**fields: object) -> str:
        return json.dumps({"color": "DEFAULT", "isPinned": False, "isArchived": False, **fields})

    takeout = _zip(
        {
            "Takeout/Keep/Groceries.json": keep(
                title="Groceries",
                listContent=[
                    {"text": "oat milk", "isChecked": False},
                    {"text": "lemons", "isChecked": True},
                ],
                labels=[{"name": "home"}],
                createdTimestampUsec=1678875300000000,
                userEditedTimestampUsec=1678961700000000,
            ),
            "Takeout/Keep/Old idea.json": keep(
                title="Old idea",
                textContent="Start a podcast",
                isArchived=True,
                createdTimestampUsec=1600000000000000,
            ),
            "Takeout/Keep/Binned.json": keep(title="Binned", textContent="gone", isTrashed=True),
            "Takeout/Keep/Labels.txt": "home\n",
            "Takeout/Keep/Groceries.html": "<html><body>Groceries</body></html>",
        }
    )
    notes = _notes(_read(takeout))
    assert "Binned" not in notes
    groceries = notes["Groceries"]
    assert groceries.text == "- [ ] oat milk\n- [x] lemons"
    assert groceries.tags == ("home",)
    assert groceries.created_at == datetime.fromtimestamp(1678875300, tz=UTC)
    assert groceries.updated_at == datetime.fromtimestamp(1678961700, tz=UTC)
    assert notes["Old idea"].text == "Start a podcast"  # archived is still the person's


def test_a_notion_export_reads_the_page_properties() -> None:
    page = (
        "# Launch retro\n\nCreated: March 3, 2023 10:15 AM\nTags: work, retro\n\n"
        "What went well: the waitlist. What to change: fewer meetings."
    )
    export = _zip({"Export-1a2b/Launch retro 0123456789abcdef0123456789abcdef.md": page})
    (note,) = _notes(_read(export)).values()
    assert note.title == "Launch retro"
    assert note.text == "What went well: the waitlist. What to change: fewer meetings."
    assert note.tags == ("work", "retro")
    assert note.created_at == datetime(2023, 3, 3, 10, 15, tzinfo=UTC)


def test_footnotes_own_export_is_read_from_notes_json_exactly() -> None:
    notes = [
        {"id": "a1", "title": "Plan", "tags": ["work"], "type": "decision",
         "created": "2023-03-01T08:00:00+00:00", "updated": "2023-03-02T09:00:00+00:00",
         "text": "We ship on the 15th."},
        {"id": "b2", "title": "", "tags": [], "type": "mood",
         "created": "2023-03-05T08:00:00+00:00", "updated": "2023-03-05T08:00:00+00:00",
         "text": "Call the bank."},
    ]  # fmt: skip
    export = _zip(
        {
            "footnote-export/notes.json": json.dumps(notes),
            "footnote-export/notes/a1.md": "---\nid: a1\n---\nWe ship on the 15th.",
            "footnote-export/README.md": "What each file is.",
        }
    )
    records = _read(export)
    assert [r.type for r in records] == [MemoryType.DECISION, None]
    assert records[1].warnings == ("type: 'mood' is not a memory type: left unset",)
    assert [(r.title, r.text, r.tags, r.created_at, r.updated_at) for r in records] == [
        ("Plan", "We ship on the 15th.", ("work",), datetime(2023, 3, 1, 8, tzinfo=UTC),
         datetime(2023, 3, 2, 9, tzinfo=UTC)),
        ("", "Call the bank.", (), datetime(2023, 3, 5, 8, tzinfo=UTC),
         datetime(2023, 3, 5, 8, tzinfo=UTC)),
    ]  # fmt: skip


def test_other_encodings_are_detected() -> None:
    text = "Réunion déjà prévue à l'école, très important: apporter le goûter des élèves."
    records = _read(io.BytesIO(text.encode("cp1252")), "notes.txt")
    assert isinstance(records[0], ImportedNote) and records[0].text == text


def test_a_corrupt_or_truncated_zip_is_refused_with_a_reason() -> None:
    whole = _zip({"a.md": "hello " * 1000}).getvalue()
    with pytest.raises(ArchiveRefused, match="damaged or incomplete"):
        _read(io.BytesIO(whole[: len(whole) // 2]))


def test_a_zip_bomb_is_refused_by_ratio_and_total_size() -> None:
    bomb = _zip({"bomb.md": b"0" * 5_000_000})
    records = _read(bomb)
    assert len(records) == 1 and isinstance(records[0], ImportFailure)
    assert "zip bomb" in records[0].reason
    many = _zip({f"n{i}.md": "x" * 100 for i in range(5)})
    with pytest.raises(ArchiveRefused, match="inflates to"):
        _read(many, max_total_bytes=300)


def test_too_many_files_are_refused_before_any_is_read() -> None:
    with pytest.raises(ArchiveRefused, match="holds 21 files"):
        _read(_zip({f"n{i}.md": "x" for i in range(21)}), max_entries=20)


def test_path_traversal_names_are_reported_and_skipped() -> None:
    records = _read(_zip({"../../etc/evil.md": "owned", "ok.md": "fine"}))
    failures = [r for r in records if isinstance(r, ImportFailure)]
    assert [f.source for f in failures] == ["../../etc/evil.md"]
    assert "unsafe" in failures[0].reason
    assert [r.text for r in records if isinstance(r, ImportedNote)] == ["fine"]


def test_a_note_over_the_limit_is_split_into_parts_and_says_so() -> None:
    body = "\n\n".join(f"Paragraph {i}: " + "word " * 30 for i in range(40))
    records = _read(io.BytesIO(body.encode()), "Long.md", max_note_chars=2000)
    assert len(records) > 1 and all(isinstance(r, ImportedNote) for r in records)
    assert all(len(r.text) <= 2000 for r in records)
    assert records[0].title == f"Long (part 1 of {len(records)})"
    assert "split into" in records[0].warnings[-1]  # said once, by the first part
    assert " ".join(r.text for r in records).split() == body.split()  # nothing lost


def test_empty_notes_and_wrong_formats_are_reported() -> None:
    records = _read(_zip({"empty.md": "   \n", "blank.txt": ""}))
    assert [r.reason for r in records] == ["empty note: nothing to import"] * 2
    binary = bytes(range(256)) * 20
    (wrong,) = _read(io.BytesIO(binary), "photo.jpg")
    assert isinstance(wrong, ImportFailure)


def _corrupt_deflate(archive: io.BytesIO) -> io.BytesIO:
    """The archive with the first entry's compressed bytes scrambled (its headers and
    sizes intact): zlib, not the zip directory, is the first to notice."""
    data = bytearray(archive.getvalue())
    with zipfile.ZipFile(io.BytesIO(bytes(data))) as z:
        info = z.infolist()[0]
    start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)
    for i in range(start, start + info.compress_size):
        data[i] = (data[i] * 7 + 13) % 256
    return io.BytesIO(bytes(data))


def test_a_damaged_entry_is_reported_and_the_others_read() -> None:
    body = "A paragraph about the garden and what to plant next spring. " * 40
    records = _read(_corrupt_deflate(_zip({"a/broken.md": body, "a/fine.md": "fine"})))
    assert isinstance(records[0], ImportFailure) and records[0].source == "a/broken.md"
    assert "could not be read from the zip" in records[0].reason
    assert [r.text for r in records if isinstance(r, ImportedNote)] == ["fine"]


def test_a_zip_of_an_unknown_version_is_refused_with_a_reason() -> None:
    data = bytearray(_zip({"a.md": "hello"}).getvalue())
    directory = data.rfind(b"PK\x01\x02")
    data[directory + 6] = 189  # "version needed to extract": 18.9, which no reader knows
    with pytest.raises(ArchiveRefused, match="damaged or incomplete"):
        _read(io.BytesIO(bytes(data)))


def test_a_nameless_entry_is_reported_and_the_others_read() -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        z.writestr(zipfile.ZipInfo(""), "a note in a file with no name")
        z.writestr("ok.md", "fine")
    buffer.seek(0)
    records = _read(buffer)
    assert isinstance(records[0], ImportFailure) and "no name" in records[0].reason
    assert [r.text for r in records if isinstance(r, ImportedNote)] == ["fine"]


@pytest.mark.parametrize("encoding", ["UTz-8", "Shift_JIS"])
def test_an_enex_in_an_encoding_xml_cannot_read_is_reported(encoding: str) -> None:
    enex = f'<?xml version="1.0" encoding="{encoding}"?><en-export><note><title>t</title></note></en-export>'
    (failure,) = _read(io.BytesIO(enex.encode()), "odd.enex")
    assert isinstance(failure, ImportFailure) and "encoding" in failure.reason


def _enex_note(title: str, body: str, attachment: bytes = b"") -> bytes:
    resource = (
        b"<resource><data encoding='base64'>"
        + base64.encodebytes(attachment)
        + b"</data><mime>image/jpeg</mime></resource>"
        if attachment
        else b""
    )
    return (
        (
            f"<note><title>{title}</title><content><![CDATA[<en-note><div>{body}</div></en-note>]]>"
            "</content><created>20230301T090000Z</created>"
        ).encode()
        + resource
        + b"</note>"
    )


_ENEX_HEAD = (
    b'<?xml version="1.0" encoding="UTF-8"?>\n'
    b'<!DOCTYPE en-export SYSTEM "http://xml.evernote.com/pub/evernote-export4.dtd">\n'
    b'<en-export export-date="20240101T000000Z" application="Evernote" version="10.0">'
)


def test_an_evernote_export_bigger_than_a_file_may_be_streams_in_bounded_memory(
    tmp_path: Path,
) -> None:
    """A notebook with photos: 5.9 MB of base64 in a 1 MB per-file limit, read from
    disk and from a zip, neither held whole (the attachments are never kept)."""
    path = tmp_path / "Photos.enex"
    with path.open("wb") as out:
        out.write(_ENEX_HEAD)
        for i in range(4):
            out.write(_enex_note(f"Trip {i}", f"Day {i} by the lake.", os.urandom(1_100_000)))
        out.write(b"</en-export>")
    zipped = tmp_path / "Evernote.zip"
    with zipfile.ZipFile(zipped, "w", zipfile.ZIP_DEFLATED) as z:
        z.write(path, "Evernote/Photos.enex")
    assert path.stat().st_size > 5_500_000
    for upload in (path, zipped):
        tracemalloc.start()
        try:
            with upload.open("rb") as stream:
                records = list(
                    read_archive(stream, upload.name, ArchiveLimits(max_entry_bytes=1_000_000))
                )
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert [r.text for r in records if isinstance(r, ImportedNote)] == [
            f"Day {i} by the lake." for i in range(4)
        ], records
        assert peak < 1_000_000, f"{upload.name}: peak {peak:,} bytes"


def test_a_truncated_enex_keeps_the_notes_before_the_cut_and_reports_it() -> None:
    enex = _ENEX_HEAD + _enex_note("One", "first") + _enex_note("Two", "second")
    records = _read(io.BytesIO(enex[:-40]), "cut.enex")
    assert [r.title for r in records if isinstance(r, ImportedNote)] == ["One"]
    assert isinstance(records[-1], ImportFailure)
    assert "not valid Evernote XML" in records[-1].reason


def test_an_enex_note_too_long_to_keep_is_reported_and_the_others_read() -> None:
    notes = _enex_note("Huge", "word " * 3000) + _enex_note("Small", "kept")
    records = _read(
        io.BytesIO(_ENEX_HEAD + notes + b"</en-export>"), "big.enex", max_entry_bytes=10_000
    )
    assert isinstance(records[0], ImportFailure) and records[0].source == "big.enex#1"
    assert "longer than 10,000 characters" in records[0].reason
    assert [r.text for r in records[1:] if isinstance(r, ImportedNote)] == ["kept"]


def test_folders_that_only_look_like_keep_or_an_export_are_read_as_notes() -> None:
    """Takeout's Keep folder and Footnote's notes.json are recognised by where they
    sit, so a vault's Bookkeep/ folder, its own Keep/ notes or a notes.json data file
    deep in it lose nothing."""
    vault = _zip(
        {
            "Vault/Housekeeping/Boiler.md": "# Boiler\nService due in October.",
            "Vault/Bookkeep/Taxes.md": "# Taxes\nFile by the end of May.",
            "Vault/Keep/Idea.md": "# Idea\nA shelf for the hallway.",
            "Vault/scripts/data/notes.json": json.dumps({"settings": True}),
            "Vault/README.md": "# Read me\nThis vault holds my house notes.",
        }
    )
    notes = _notes(_read(vault))
    assert set(notes) == {"Boiler", "Taxes", "Idea", "Read me"}
    assert notes["Boiler"].text == "Service due in October."


def test_a_zip_of_files_in_mixed_encodings_reads_each_in_its_own() -> None:
    french = "Réunion déjà prévue à l'école, très important: apporter le goûter des élèves."
    russian = "Сегодня мы решили перенести встречу на следующую неделю, после отпуска."
    japanese = "今日は会議で新しい計画を決めました。来週から始めます。"
    vault = _zip(
        {
            "v/utf8.md": ("# Eight\n" + french).encode("utf-8"),
            "v/utf16.md": ("# Sixteen\n" + french).encode("utf-16"),
            "v/cp1252.md": ("# Latin\n" + french).encode("cp1252"),
            "v/cp1251.md": ("# Cyrillic\n" + russian).encode("cp1251"),
            "v/sjis.md": ("# Japanese\n" + japanese).encode("shift_jis"),
        }
    )
    texts = {title: note.text for title, note in _notes(_read(vault)).items()}
    assert texts == {
        "Eight": french,
        "Sixteen": french,
        "Latin": french,
        "Cyrillic": russian,
        "Japanese": japanese,
    }


def test_evernote_checklists_keep_their_boxes_and_encrypted_text_is_left_out_and_said() -> None:
    content = (
        "<en-note><div><en-todo checked='true'/>book the venue</div>"
        '<div><en-todo checked="false"/>send invitations</div><div><en-todo/>order cake</div>'
        '<div>Door code: <en-crypt hint="usual" cipher="AES">RU5DMI1mnQ7fKjBk9f0a</en-crypt></div>'
        "</en-note>"
    )
    enex = (
        _ENEX_HEAD
        + f"<note><title>Party</title><content><![CDATA[{content}]]></content></note>".encode()
        + b"</en-export>"
    )
    (party,) = _read(io.BytesIO(enex), "party.enex")
    assert isinstance(party, ImportedNote)
    assert [line for line in party.text.splitlines() if line] == [
        "[x] book the venue",
        "[ ] send invitations",
        "[ ] order cake",
        "Door code:",
    ]
    assert party.warnings == (
        "holds text encrypted in Evernote, which cannot be imported: left out",
    )


def _export_note(i: int, text: str) -> dict[str, Any]:
    return {"id": f"n{i}", "title": f"Note {i}", "tags": [], "type": None,
            "created": "2023-03-01T08:00:00+00:00", "updated": "2023-03-01T08:00:00+00:00",
            "text": text}  # fmt: skip


def test_footnotes_own_export_bigger_than_a_file_may_be_is_read_note_by_note() -> None:
    """An account's notes.json can outgrow the per-file limit (a full account of
    Japanese notes is 30 MB of UTF-8): it is read a note at a time, multi-byte
    characters cut across the reader's pieces included."""

    def kanji(i: int) -> str:  # varied enough not to compress like a zip bomb
        return "".join(chr(0x4E00 + (i * 7919 + k * 104729) % 20000) for k in range(3600))

    notes = [_export_note(i, kanji(i)) for i in range(60)]
    export = _zip({"notes.json": json.dumps(notes, ensure_ascii=False, indent=1), "README.md": "x"})
    records = _read(export, max_entry_bytes=50_000)
    assert len(json.dumps(notes, ensure_ascii=False).encode()) > 600_000
    assert [r.text for r in records] == [n["text"] for n in notes]


def test_a_damaged_notes_json_keeps_the_notes_before_the_damage_and_says_so() -> None:
    whole = json.dumps([_export_note(i, f"note {i}") for i in range(3)])
    cut = _zip({"notes.json": whole[: whole.index('"n2"')], "README.md": "x"})
    records = _read(cut)
    assert [r.text for r in records if isinstance(r, ImportedNote)] == ["note 0", "note 1"]
    assert isinstance(records[-1], ImportFailure) and records[-1].source == "notes.json"
    assert "not read" in records[-1].reason
    for not_a_list in ('{"notes": []}', "", "[", '[{"id": '):
        with pytest.raises(ArchiveRefused, match=r"notes\.json"):
            _read(_zip({"notes.json": not_a_list, "README.md": "x"}))
    assert _read(_zip({"notes.json": " [ ] ", "README.md": "x"})) == []


def test_a_password_protected_entry_is_reported_and_the_others_read() -> None:
    data = bytearray(
        _zip({"locked.md": "secret", "v/open.enex": b"<en-export/>", "ok.md": "fine"}).getvalue()
    )
    # The first two entries marked encrypted in the zip's directory (its general-purpose
    # flag, bit 0), as a password-protected zip marks them.
    for directory in [m.start() for m in re.finditer(rb"PK\x01\x02", bytes(data))][:2]:
        data[directory + 8] |= 0x1
    records = _read(io.BytesIO(bytes(data)))
    failures = {r.source: r.reason for r in records if isinstance(r, ImportFailure)}
    assert failures == dict.fromkeys(
        ["locked.md", "v/open.enex"], "encrypted (a password-protected zip): skipped"
    )
    assert [r.text for r in records if isinstance(r, ImportedNote)] == ["fine"]


def test_hashes_in_code_are_not_tags() -> None:
    body = (
        "Build notes #cpp\n\n```c\n#include <stdio.h>\n#define MAX 10\n```\n\n"
        "Use `#pragma once` in headers. #todo\n~~~\n#ifdef DEBUG\n~~~\n"
    )
    (note,) = _read(io.BytesIO(body.encode()), "build.md")
    assert isinstance(note, ImportedNote) and note.tags == ("cpp", "todo")
    assert "#include <stdio.h>" in note.text  # the code itself is kept as written
