"""The formats, each read by its field's library: YAML front matter by
python-frontmatter, XML by defusedxml (no entity expansion, no external entities),
HTML and ENML by html2text, unknown encodings by charset-normalizer.

Every entry is read alone: whatever goes wrong in one (a file that is not what its
name says, a date no calendar has, JSON nested past reading, a field of the wrong
type) becomes that entry's ``ImportFailure`` or warning, never the archive's end.
Each is read within a size and a time budget (``ArchiveLimits``), and every pattern
that reads its text runs in time linear in its length (tests/security/test_redos.py
checks each against inputs built to make a backtracking engine stall).

A zip is read entry by entry from a seekable stream, each entry's size checked
against the limits before a byte of it is inflated and its inflation capped, so
neither a big archive nor a zip bomb is ever held whole.

Why this module is over 450 lines: every format's reader spends the same budget
(the archive's limits, checked entry by entry) and yields the same records with
their warnings; each reader is a few short functions over those shared parts.
"""

from __future__ import annotations

import json
import logging
import posixpath
import re
import stat
import time
import zipfile
import zlib
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from functools import lru_cache
from typing import IO, Any
from xml.sax.handler import ContentHandler
from xml.sax.xmlreader import AttributesImpl, IncrementalParser

from footnote.domain import MemoryType

log = logging.getLogger(__name__)

# What a damaged or unusual zip raises while it is opened or an entry inflated: zipfile
# lets zlib's own error through (scrambled deflate data) and refuses versions it does
# not know with NotImplementedError.
_ZIP_ERRORS = (zipfile.BadZipFile, zlib.error, OSError, EOFError, ValueError, NotImplementedError)

# Notion names each page "<Title> <32 hex digits>.md".
_NOTION_NAME = re.compile(r"^(?P<title>.+?) [0-9a-f]{32}\.md$")
_NOTION_PROPERTY = re.compile(r"^(?P<key>[A-Z][\w ]{0,40}): (?P<value>.+)$")
# A link's parts hold no bracket and no line end: one "[[" with no "]]" after it then
# costs the rest of its line once, not once per "[[" before it.
_WIKILINK = re.compile(r"\[\[([^\[\]|#\n]+)(?:#[^\[\]|\n]*)?(?:\|([^\[\]\n]+))?\]\]")
_HASHTAG = re.compile(r"(?<![\w#&/])#([A-Za-z][\w/-]{0,60})")
# Attributes run to the next '<' at most, so a run of unclosed tags is read once.
_EN_TODO = re.compile(r"<en-todo\b([^<>]*)>(?:</en-todo>)?", re.IGNORECASE)
_CHECKED = re.compile(r"\bchecked\s*=\s*[\"']true[\"']", re.IGNORECASE)
_EN_CRYPT_TAG = re.compile(r"<(/?)en-crypt\b[^<>]*>", re.IGNORECASE)
_XML_PREAMBLE = re.compile(r"<!DOCTYPE[^<>]*>|<\?xml[^<>]*\?>", re.IGNORECASE)
# Code, fenced or inline: its '#include' and '#define' are no tags (nor are they in Obsidian).
_CODE = re.compile(r"^(```|~~~).*?^\1|`[^`\n]+`", re.MULTILINE | re.DOTALL)
_NOTE_SUFFIXES = (".md", ".markdown", ".txt")


class ArchiveRefused(ValueError):
    """The whole archive cannot be read; the message says why, for a person."""


@dataclass(frozen=True)
class ArchiveLimits:
    max_entries: int = 50_000  # files in a zip
    max_entry_bytes: int = 20 * 1024 * 1024  # one file, inflated
    max_total_bytes: int = 2 * 1024**3  # every file, inflated
    max_ratio: int = 200  # inflated / compressed, per entry: a zip bomb's tell
    max_note_chars: int = 100_000  # a longer note is split into parts
    # Reading one entry (decoding, front matter, links, parts) past this is given up and
    # reported: a backstop, checked between the steps, for a step slower than it should be.
    max_entry_seconds: float = 10.0


@dataclass(frozen=True)
class ImportedNote:
    source: str  # the file (and, for a file of many notes, the note's place in it)
    text: str
    title: str = ""
    tags: tuple[str, ...] = ()
    created_at: datetime | None = None
    updated_at: datetime | None = None
    warnings: tuple[str, ...] = ()  # read, but something was not (an invalid date)
    type: MemoryType | None = None  # Footnote's own export: the memory type the person set


@dataclass(frozen=True)
class ImportFailure:
    source: str
    reason: str


ImportRecord = ImportedNote | ImportFailure


@dataclass
class _Budget:
    limits: ArchiveLimits
    inflated: int = 0
    entries: int = 0
    seen: set[str] = field(default_factory=set)


def read_archive(
    stream: IO[bytes], name: str, limits: ArchiveLimits | None = None
) -> Iterator[ImportRecord]:
    """Every note of the archive, in archive order, as records. ``name`` is the
    uploaded file's name (its suffix is a hint; the content decides)."""
    limits = limits or ArchiveLimits()
    head = stream.read(4096)
    stream.seek(0)
    if head.startswith(b"PK\x03\x04") or head.startswith(b"PK\x05\x06"):
        yield from _zip(stream, limits)
        return
    if name.lower().endswith(".zip"):
        # A zip is found by its directory, at its end: one that starts with something
        # else (a self-extracting archive) is still one.
        is_zip = zipfile.is_zipfile(stream)
        stream.seek(0)
        if not is_zip:
            raise ArchiveRefused(
                f"{name} is named .zip but is not a zip file: nothing was imported "
                "(a note is imported as .md or .txt; a damaged zip needs exporting again)"
            )
        yield from _zip(stream, limits)
        return
    if name.lower().endswith(".enex") or b"<en-export" in head:
        # An Evernote notebook with its attachments runs to hundreds of MB: streamed,
        # each note's size bounded, the file's time not (it is as long as it is).
        records = _enex(name, _chunks(stream, _Budget(limits)), limits)
        yield from _alone(name, _split_long(records, limits), limits, timed=False)
        return
    data = _read_capped(stream, limits.max_entry_bytes, name)
    yield from _alone(name, _split_long(_file(name, data, None), limits), limits)


# -- each entry alone ---------------------------------------------------------------

# When the entry being read must be given up (time.monotonic()), None between entries.
_DEADLINE: ContextVar[float | None] = ContextVar("footnote_archive_entry_deadline", default=None)


class _OverBudget(Exception):
    """The entry being read ran past its time budget."""


def _alone(
    source: str, records: Iterator[ImportRecord], limits: ArchiveLimits, timed: bool = True
) -> Iterator[ImportRecord]:
    """One entry's records, read within its time budget: the time spent reading it,
    not the caller's between its records (a page of them embedded, written). Whatever
    its bytes make go wrong ends that entry alone, reported under its name with the
    cause, after the records it gave before; the archive's own refusals stand."""
    spent = 0.0
    try:
        while True:
            resumed = time.monotonic()
            _DEADLINE.set(resumed + limits.max_entry_seconds - spent if timed else None)
            try:
                record = next(records)
            except StopIteration:
                return
            finally:
                spent += time.monotonic() - resumed
                _DEADLINE.set(None)
            yield record
    except ArchiveRefused:
        raise
    except _OverBudget:
        yield ImportFailure(
            source, f"took over {limits.max_entry_seconds:g} s to read: the rest of it is skipped"
        )
    except RecursionError:
        yield ImportFailure(source, "nested too deeply to read: skipped")
    except Exception as exc:  # a reader's bug or a library's surprise: this entry only
        log.warning("archive entry %r could not be read", source, exc_info=True)
        yield ImportFailure(
            source, f"could not be read ({type(exc).__name__}: {str(exc)[:120]}): skipped"
        )


def _within_budget() -> None:
    """Between the steps of reading an entry: past its time, give it up."""
    deadline = _DEADLINE.get()
    if deadline is not None and time.monotonic() > deadline:
        raise _OverBudget


# -- zips ---------------------------------------------------------------------------


def _zip(stream: IO[bytes], limits: ArchiveLimits) -> Iterator[ImportRecord]:
    try:
        archive = zipfile.ZipFile(stream)
        infos = archive.infolist()
    except _ZIP_ERRORS as exc:
        raise ArchiveRefused(f"the zip file is damaged or incomplete ({exc})") from None
    # Not ZipInfo.is_dir(): it raises IndexError on an entry with no name.
    files = [i for i in infos if not i.filename.endswith("/")]
    if len(files) > limits.max_entries:
        raise ArchiveRefused(
            f"the zip holds {len(files):,} files; at most {limits.max_entries:,} are read"
        )
    declared = sum(i.file_size for i in files)
    if declared > limits.max_total_bytes:
        raise ArchiveRefused(
            f"the zip inflates to {declared:,} bytes; at most {limits.max_total_bytes:,} are read"
        )
    budget = _Budget(limits)
    export = _footnote_notes_json(files)
    if export is not None:
        # Footnote's own export: notes.json is exact; the .md copies beside it are for people.
        yield from _footnote_export(archive, export, budget)
        return
    for info in files:
        # An .enex is a notebook, as long as it is (each note's size bounded): untimed.
        timed = not info.filename.lower().endswith(".enex")
        yield from _alone(info.filename, _zip_entry(archive, info, budget), limits, timed)


def _footnote_notes_json(files: list[zipfile.ZipInfo]) -> zipfile.ZipInfo | None:
    """Footnote's own export: a notes.json beside its README.md or conversations.json,
    at the top of the zip or of its one folder. A notes.json anywhere else (a vault's
    own data file) makes no export of the archive around it."""
    names = {info.filename for info in files}
    for info in sorted(files, key=lambda i: len(i.filename)):
        folder, base = posixpath.split(info.filename)
        if base == "notes.json" and "/" not in folder and not _unsafe(info.filename):
            beside = (posixpath.join(folder, n) for n in ("README.md", "conversations.json"))
            if any(name in names for name in beside):
                return info
    return None


def _zip_entry(
    archive: zipfile.ZipFile, info: zipfile.ZipInfo, budget: _Budget
) -> Iterator[ImportRecord]:
    name = info.filename
    if not name:
        yield ImportFailure(name, "a file with no name in the zip: skipped")
        return
    if _unsafe(name):
        yield ImportFailure(name, "unsafe file name (absolute or with '..'): skipped")
        return
    lower = name.lower()
    if posixpath.basename(name).startswith(".") or "/." in name or "__macosx/" in lower:
        return  # hidden files and folders (.obsidian settings, macOS resource forks)
    # Takeout's Keep folder holds each note twice, as .json (with the dates) and .html,
    # and a Labels.txt: only the JSON is read there. A folder that merely ends in
    # "keep" (Bookkeep/), or a vault's own Keep/ of Markdown, is a folder of notes.
    in_keep = "keep" in lower.split("/")[:-1]
    keep = in_keep and lower.endswith(".json")
    if in_keep and lower.endswith((".html", ".htm", "/labels.txt")):
        return  # Takeout's copies of what the JSON holds
    if lower.endswith(".zip"):  # a big Notion workspace comes as a zip of part zips
        yield ImportFailure(name, "a zip inside the zip is not read: import it on its own")
        return
    if not keep and not lower.endswith((*_NOTE_SUFFIXES, ".enex", ".html", ".htm")):
        return  # attachments and settings: not notes
    mode = info.external_attr >> 16
    if info.create_system == 3 and stat.S_IFMT(mode) not in (0, stat.S_IFREG):  # Unix's modes
        kind = "a symbolic link" if stat.S_ISLNK(mode) else "not a regular file"
        yield ImportFailure(name, f"{kind}, not a note: skipped")
        return
    if not keep and lower.endswith(".enex"):
        yield from _split_long(_zipped_enex(archive, info, budget), budget.limits)
        return
    try:
        data = _inflate(archive, info, budget)
    except ArchiveRefused as refused:
        yield ImportFailure(name, str(refused))
        return
    records = _keep(name, data) if keep else _file(name, data, _zip_time(info))
    yield from _split_long(records, budget.limits)


def _zipped_enex(
    archive: zipfile.ZipFile, info: zipfile.ZipInfo, budget: _Budget
) -> Iterator[ImportRecord]:
    """An .enex in the zip, parsed as it inflates: no size limit of its own (the
    archive's total and the ratio still hold), never held whole."""
    try:
        member = _open_entry(archive, info, budget.limits)
    except ArchiveRefused as refused:
        yield ImportFailure(info.filename, str(refused))
        return
    with member:
        yield from _enex(info.filename, _chunks(member, budget, damaged=_ZIP_ERRORS), budget.limits)


def _chunks(
    stream: IO[bytes], budget: _Budget, damaged: tuple[type[Exception], ...] = ()
) -> Iterator[bytes]:
    """The stream in pieces, each charged to the archive's inflated total; ``damaged``
    are the errors that mean the bytes themselves are bad (a zip entry's), reported as
    such rather than raised for a retry."""
    while True:
        try:
            chunk = stream.read(1 << 16)
        except damaged as exc:
            raise ArchiveRefused(f"could not be read from the zip ({exc})") from None
        if not chunk:
            return
        budget.inflated += len(chunk)
        if budget.inflated > budget.limits.max_total_bytes:
            raise ArchiveRefused("the archive inflates past the size limit: the rest is skipped")
        yield chunk


def _check_entry(info: zipfile.ZipInfo, limits: ArchiveLimits) -> None:
    """What the zip's directory already says of an entry, before it is opened."""
    if info.flag_bits & 0x1:  # zipfile would raise RuntimeError for want of a password
        raise ArchiveRefused("encrypted (a password-protected zip): skipped")
    if info.compress_size and info.file_size / info.compress_size > limits.max_ratio:
        raise ArchiveRefused("compressed suspiciously well (a zip bomb?): skipped")


def _open_entry(
    archive: zipfile.ZipFile, info: zipfile.ZipInfo, limits: ArchiveLimits
) -> IO[bytes]:
    _check_entry(info, limits)
    try:
        return archive.open(info)
    except _ZIP_ERRORS as exc:
        raise ArchiveRefused(f"could not be read from the zip ({exc})") from None


def _inflate(archive: zipfile.ZipFile, info: zipfile.ZipInfo, budget: _Budget) -> bytes:
    limits = budget.limits
    if info.file_size > limits.max_entry_bytes:
        raise ArchiveRefused(f"larger than {limits.max_entry_bytes:,} bytes: skipped")
    with _open_entry(archive, info, limits) as member:
        try:
            # Never trust the declared size: read at most one byte more than allowed.
            data = member.read(limits.max_entry_bytes + 1)
        except _ZIP_ERRORS as exc:
            raise ArchiveRefused(f"could not be read from the zip ({exc})") from None
    if len(data) > limits.max_entry_bytes:
        raise ArchiveRefused(f"larger than {limits.max_entry_bytes:,} bytes: skipped")
    budget.inflated += len(data)
    if budget.inflated > limits.max_total_bytes:
        raise ArchiveRefused("the archive inflates past the size limit: the rest is skipped")
    return data


def _unsafe(name: str) -> bool:
    return name.startswith(("/", "\\")) or ".." in re.split(r"[\\/]", name) or ":" in name[:3]


def _zip_time(info: zipfile.ZipInfo) -> datetime | None:
    try:
        return datetime(*info.date_time, tzinfo=UTC)
    except ValueError:
        return None


# -- one file -----------------------------------------------------------------------


def _file(name: str, data: bytes, mtime: datetime | None) -> Iterator[ImportRecord]:
    lower = name.lower()
    decoded = _decode(data)
    if decoded is None:
        yield ImportFailure(name, "the text encoding could not be recognised: skipped")
        return
    text, decoding = decoded
    _within_budget()
    if lower.endswith(".enex") or (
        text.lstrip().startswith("<?xml") and "<en-export" in text[:2000]
    ):
        yield from _enex(name, iter([data]), ArchiveLimits())
        return
    if lower.endswith((".html", ".htm")):
        record = _note_or_empty(name, _html_text(text), _stem(name), (), mtime, mtime, ())
    elif _NOTION_NAME.match(posixpath.basename(name)):
        record = _notion(name, text, mtime)
    elif lower.endswith(_NOTE_SUFFIXES) or _looks_like_text(text):
        record = _markdown(name, text, mtime)
    else:
        record = ImportFailure(name, "not a format Footnote imports: skipped")
    if decoding is not None and isinstance(record, ImportedNote):
        record = replace(record, warnings=(decoding, *record.warnings))
    yield record


def _looks_like_text(text: str) -> bool:
    sample = text[:4000]
    return (
        bool(sample) and sum(c.isprintable() or c in "\n\r\t" for c in sample) / len(sample) > 0.95
    )


# A byte order mark says the encoding outright (UTF-32's before UTF-16's, which it starts with).
_BOMS = (
    (b"\xef\xbb\xbf", "utf-8"),
    (b"\xff\xfe\x00\x00", "utf-32-le"),
    (b"\x00\x00\xfe\xff", "utf-32-be"),
    (b"\xff\xfe", "utf-16-le"),
    (b"\xfe\xff", "utf-16-be"),
)


def _decode(data: bytes) -> tuple[str, str | None] | None:
    """The text, and the warning a person needs when its encoding was not certain:
    UTF-8 with a few damaged bytes keeps the rest, each bad one replaced by U+FFFD;
    text in a legacy code page is read in the one charset-normalizer finds closest,
    and says so. None: no encoding fits."""
    for bom, codec in _BOMS:
        if data.startswith(bom):
            try:
                return data[len(bom) :].decode(codec), None
            except UnicodeDecodeError:
                break
    try:
        return data.decode("utf-8"), None
    except UnicodeDecodeError:
        pass
    text = data.decode("utf-8", errors="replace")
    bad = text.count("\ufffd")
    good = len(text) - len(text.encode("ascii", "ignore")) - bad  # valid multi-byte characters
    if good >= 10 * bad:
        return text, f"{bad:,} bytes are not valid UTF-8: each replaced by \ufffd"
    from charset_normalizer import from_bytes

    matches = list(from_bytes(data))
    if not matches:
        return None
    best = min(matches, key=lambda m: m.chaos)
    # Short texts fit several Latin code pages equally; Windows-1252 is the one legacy
    # notes were written in (and what the web reads "latin-1" as), so it wins near-ties.
    western = [m for m in matches if m.encoding == "cp1252" and m.chaos <= best.chaos + 0.1]
    chosen = western[0] if western else best
    return str(chosen), f"not UTF-8: read as {chosen.encoding}, the closest fit (check its accents)"


def _stem(name: str) -> str:
    return posixpath.splitext(posixpath.basename(name))[0].strip()


def _note_or_empty(
    source: str,
    text: str,
    title: str,
    tags: tuple[str, ...],
    created: datetime | None,
    updated: datetime | None,
    warnings: tuple[str, ...],
    title_written: bool = False,
) -> ImportRecord:
    text = text.strip()
    if not text:
        # A title alone (a Keep or Evernote note) is still something the person wrote;
        # a file name alone is not.
        if not title_written or not title.strip():
            return ImportFailure(source, "empty note: nothing to import")
        text = title.strip()
    return ImportedNote(
        source, text, title.strip()[:200], _unique(tags), created, updated or created, warnings
    )


def _unique(tags: Any) -> tuple[str, ...]:
    out: list[str] = []
    for tag in tags or ():
        t = str(tag).strip().lstrip("#")
        if t and t.casefold() not in (o.casefold() for o in out):
            out.append(t[:64])
    return tuple(out[:32])


# -- Markdown and Obsidian ----------------------------------------------------------


def _markdown(name: str, text: str, mtime: datetime | None) -> ImportRecord:
    warnings: list[str] = []
    meta, body = _front_matter(text, warnings)
    _within_budget()
    title = str(meta.get("title") or "").strip()
    lines = body.lstrip("\n").splitlines()
    if not title and lines and (heading := _heading(lines[0])):
        title = heading
        body = "\n".join(lines[1:])
    title = title or _stem(name)
    tags = list(_tag_list(meta.get("tags") or meta.get("tag")))
    tags += _HASHTAG.findall(_CODE.sub(" ", body))
    _within_budget()
    body = _WIKILINK.sub(lambda m: m.group(2) or m.group(1), body)
    _within_budget()
    created = _meta_date(meta, ("created", "date", "created_at", "creation date"), warnings)
    updated = _meta_date(meta, ("updated", "modified", "updated_at", "last modified"), warnings)
    # A zip's own date for a file is when the zip was made, as often as not: the note's
    # written date, when it has one, says more of when it was last changed.
    return _note_or_empty(
        name,
        body,
        title,
        tuple(tags),
        created or mtime,
        updated or created or mtime,
        tuple(warnings),
    )


# Front matter deeper than this is no note's metadata.
_YAML_MAX_DEPTH = 32


class _FrontMatterRefused(ValueError):
    """YAML that could be read but will not be (what it would cost): why."""


def _front_matter(text: str, warnings: list[str]) -> tuple[dict[str, Any], str]:
    """The note's metadata and body. YAML is read with aliases refused (one alias
    expanding into the next is a few hundred bytes that become gigabytes) and a date
    no calendar has left as its text, for the date fields to report by name."""
    import frontmatter
    import yaml
    from frontmatter.default_handlers import YAMLHandler

    handler = frontmatter.detect_format(text, frontmatter.handlers)
    if handler is None:
        return {}, text
    if isinstance(handler, YAMLHandler):
        handler = _yaml_handler()
    try:
        metadata, body = frontmatter.parse(text, handler=handler)
    except _FrontMatterRefused as refused:
        warnings.append(f"the front matter is not read ({refused}): kept as text")
        return {}, text
    except (yaml.YAMLError, ValueError, TypeError, RecursionError):
        warnings.append("the front matter is not valid YAML: read as text")
        return {}, text
    return dict(metadata), body


@lru_cache(maxsize=1)
def _yaml_handler() -> Any:
    import yaml
    from frontmatter.default_handlers import YAMLHandler

    parser: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml's, where built

    class Loader(parser):  # type: ignore[misc]
        pass

    def timestamp_or_text(loader: Any, node: Any) -> Any:
        try:
            return yaml.constructor.SafeConstructor.construct_yaml_timestamp(loader, node)
        except (ValueError, OverflowError):  # 0000-01-01, February 30th, +99:99
            return loader.construct_scalar(node)

    Loader.add_constructor("tag:yaml.org,2002:timestamp", timestamp_or_text)
    opens = (yaml.SequenceStartEvent, yaml.MappingStartEvent)
    closes = (yaml.SequenceEndEvent, yaml.MappingEndEvent)

    class SafeYAML(YAMLHandler):
        def load(self, fm: str, **kwargs: object) -> Any:
            depth = 0
            for event in yaml.parse(fm, Loader=parser):
                if isinstance(event, yaml.AliasEvent):
                    raise _FrontMatterRefused("it uses YAML aliases (*name), which are refused")
                depth += isinstance(event, opens) - isinstance(event, closes)
                if depth > _YAML_MAX_DEPTH:
                    raise _FrontMatterRefused(f"it is nested over {_YAML_MAX_DEPTH} levels deep")
            return yaml.load(fm, Loader=Loader)  # a safe loader, above

    return SafeYAML()


def _heading(line: str) -> str | None:
    """A first-level heading's text ("# Title", "# Title #"), or None: read without a
    pattern, whose backtracking a line of spaces made cubic."""
    if not line.startswith("#") or not line[1:2].isspace():
        return None
    text = line[1:].strip()
    unclosed = text.rstrip("#")
    if unclosed != text and (not unclosed or unclosed[-1].isspace()):
        text = unclosed.rstrip()  # a closing run of #s, after a space, is no part of it
    return text or None


def _tag_list(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield from (t for t in re.split(r"[,\s]+", value) if t)
    elif isinstance(value, list | tuple):
        yield from (str(t) for t in value if t is not None)


def _meta_date(meta: dict[str, Any], keys: tuple[str, ...], warnings: list[str]) -> datetime | None:
    for key in keys:
        if key in meta and meta[key] not in (None, ""):
            moment = _as_datetime(meta[key])
            if moment is None:
                warnings.append(
                    f"{key}: {str(meta[key])[:40]!r} is not a date: the file's date is used"
                )
            return moment
    return None


def _as_datetime(value: Any) -> datetime | None:
    """A date from YAML (already a date or datetime) or text (ISO 8601, Notion's)."""
    from datetime import date

    moment: datetime | None
    if isinstance(value, datetime):
        moment = value
    elif isinstance(value, date):
        moment = datetime(value.year, value.month, value.day)
    else:
        text = str(value).strip()
        moment = None
        try:
            moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
        except ValueError:
            for fmt in ("%B %d, %Y %I:%M %p", "%B %d, %Y", "%Y%m%dT%H%M%SZ", "%d/%m/%Y"):
                try:
                    moment = datetime.strptime(text, fmt)
                    break
                except ValueError:
                    continue
    if moment is None:
        return None
    try:
        moment = moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
    except (OverflowError, ValueError):  # an offset that takes it past year 1 or 9999
        return None
    # In UTC, as it is stored: 1970-01-01T00:30+01:00 is still 1969.
    return moment if 1970 <= moment.year <= 2200 else None


# -- Notion -------------------------------------------------------------------------


def _notion(name: str, text: str, mtime: datetime | None) -> ImportRecord:
    """A page: "# Title", then property lines ("Created: March 3, 2023 10:15 AM",
    "Tags: a, b"), then the page."""
    match = _NOTION_NAME.match(posixpath.basename(name))
    title = match.group("title") if match else _stem(name)
    lines = text.lstrip("\n").splitlines()
    if lines and (heading := _heading(lines[0])):
        title = heading
        lines = lines[1:]
    props: dict[str, str] = {}
    while lines and not lines[0].strip():
        lines.pop(0)
    while lines and (prop := _NOTION_PROPERTY.match(lines[0])):
        props[prop.group("key").strip().casefold()] = prop.group("value").strip()
        lines.pop(0)
    warnings: list[str] = []
    created = _meta_date(dict(props), ("created", "created time", "date"), warnings)
    updated = _meta_date(dict(props), ("last edited time", "updated", "last edited"), warnings)
    tags = _tag_list(props.get("tags", ""))
    body = "\n".join(lines)
    return _note_or_empty(
        name,
        body,
        title,
        tuple(tags),
        created or mtime,
        updated or created or mtime,
        tuple(warnings),
    )


# -- Evernote -----------------------------------------------------------------------


def _enex(name: str, chunks: Iterator[bytes], limits: ArchiveLimits) -> Iterator[ImportRecord]:
    """An Evernote export, note by note as its bytes arrive: expat through
    defusedxml's SAX driver (entity declarations, and so billion laughs and external
    entities, refused), attachments' base64 passed over, never kept; a note's own
    text is kept up to ``limits.max_entry_bytes`` characters. The notes read
    before a problem (a truncated file) are kept; the problem is reported after them."""
    from xml.sax import SAXParseException

    from defusedxml import DefusedXmlException

    notes = _EnexNotes(name, limits.max_entry_bytes)
    parser = _enex_parser()
    parser.setContentHandler(notes)
    problem: str | None = None
    try:
        for chunk in chunks:
            parser.feed(chunk)
            yield from notes.take()
        parser.close()
    except ArchiveRefused as refused:
        problem = str(refused)
    except DefusedXmlException:
        problem = (
            "the file declares XML entities (refused: a billion-laughs or external-entity attack)"
        )
    except _NotEnex:
        problem = "not an Evernote export (.enex): skipped"
    except SAXParseException as exc:
        problem = f"not valid Evernote XML ({exc.getMessage()}: line {exc.getLineNumber()})"
    except (LookupError, ValueError) as exc:  # an encoding declared that expat cannot read
        problem = f"not valid Evernote XML: {exc}"
    yield from notes.take()
    if problem is not None:
        yield ImportFailure(name, problem)


def _enex_parser() -> IncrementalParser:
    """defusedxml's SAX driver, told never to look at an external DTD: every .enex
    names Evernote's (``<!DOCTYPE en-export SYSTEM "http://…">``), which the stdlib
    driver asks about and defusedxml then refuses as an external reference. Entity
    declarations, the only way to an entity, stay refused."""
    from xml.parsers import expat

    from defusedxml.expatreader import DefusedExpatParser

    class EnexParser(DefusedExpatParser):  # type: ignore[misc]  # defusedxml is untyped
        def reset(self) -> None:
            super().reset()
            self._parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)

    parser: IncrementalParser = EnexParser(
        forbid_dtd=False, forbid_entities=True, forbid_external=True
    )
    return parser


class _NotEnex(Exception):
    """The XML's root is not <en-export>."""


class _EnexNotes(ContentHandler):
    """Collects each <note>'s title, content, dates and tags as the parser goes;
    the text of anything else (<resource> data above all) is never kept."""

    _KEPT = frozenset({"title", "content", "created", "updated", "tag"})

    def __init__(self, name: str, max_chars: int) -> None:
        super().__init__()
        self._name = name
        self._max_chars = max_chars
        self._chars = 0  # of the note being read
        self._path: list[str] = []
        self._note: dict[str, str] | None = None
        self._tags: list[str] = []
        self._text: list[str] | None = None  # the kept element being read
        self._count = 0
        self._ready: list[ImportRecord] = []

    def take(self) -> list[ImportRecord]:
        ready, self._ready = self._ready, []
        return ready

    def startElement(self, name: str, attrs: AttributesImpl) -> None:
        if not self._path and name != "en-export":
            raise _NotEnex(name)
        self._path.append(name)
        if self._path == ["en-export", "note"]:
            self._note, self._tags, self._chars = {}, [], 0
        elif self._note is not None and len(self._path) == 3 and name in self._KEPT:
            self._text = []

    def characters(self, content: str) -> None:
        if self._text is not None:
            self._chars += len(content)
            if self._chars <= self._max_chars:
                self._text.append(content)

    def endElement(self, name: str) -> None:
        if self._text is not None and self._note is not None:
            text = "".join(self._text)
            if name == "tag":
                self._tags.append(text)
            else:
                self._note[name] = text
            self._text = None
        elif self._path == ["en-export", "note"] and self._note is not None:
            self._ready.append(self._record(self._note))
            self._note = None
        self._path.pop()

    def _record(self, field: dict[str, str]) -> ImportRecord:
        self._count += 1
        source = f"{self._name}#{self._count}"
        if self._chars > self._max_chars:
            return ImportFailure(source, f"longer than {self._max_chars:,} characters: skipped")
        warnings: list[str] = []
        created = _enex_date(field.get("created"), "created", warnings)
        updated = _enex_date(field.get("updated"), "updated", warnings)
        return _note_or_empty(
            source,
            _enml_text(field.get("content", ""), warnings),
            field.get("title", "").strip(),
            tuple(self._tags),
            created,
            updated,
            tuple(warnings),
        )


def _enml_text(enml: str, warnings: list[str]) -> str:
    """ENML's own elements, which HTML readers do not know: a checklist box
    (<en-todo checked="true"/>) becomes "[x] " or "[ ] " as Keep's lists do; text
    encrypted in Evernote (<en-crypt>) cannot be read here, so it is left out and
    said, rather than imported as a run of ciphertext."""
    enml = _EN_TODO.sub(lambda m: "[x] " if _CHECKED.search(m.group(1)) else "[ ] ", enml)
    enml, encrypted = _without_encrypted(enml)
    if encrypted:
        warnings.append("holds text encrypted in Evernote, which cannot be imported: left out")
    return _html_text(enml)


def _without_encrypted(enml: str) -> tuple[str, int]:
    """ENML without its <en-crypt>…</en-crypt> runs, and how many there were: each
    opening tag paired with the next closing one (an opening never closed is left)."""
    kept: list[str] = []
    kept_from, opened, removed = 0, -1, 0
    for tag in _EN_CRYPT_TAG.finditer(enml):
        if not tag.group(1):
            opened = tag.start() if opened < 0 else opened
        elif opened >= 0:
            kept.append(enml[kept_from:opened])
            kept_from, opened, removed = tag.end(), -1, removed + 1
    kept.append(enml[kept_from:])
    return "".join(kept), removed


def _enex_date(value: str | None, what: str, warnings: list[str]) -> datetime | None:
    if not value:
        return None
    moment = _as_datetime(value.strip())
    if moment is None:
        warnings.append(f"{what}: {value[:40]!r} is not a date")
    return moment


def _html_text(html: str) -> str:
    """HTML or ENML as readable plain text (Markdown-ish: lists, links' text)."""
    import html2text

    if "<" not in html:
        return html
    # ENML wraps the note in a DOCTYPE and <en-note>; html2text reads the markup alone.
    html = _tamed(_XML_PREAMBLE.sub("", html))
    converter = html2text.HTML2Text()
    converter.body_width = 0  # no hard wraps
    converter.ignore_images = True
    converter.ignore_links = True
    converter.ignore_emphasis = True
    # html2text.handle(), a piece at a time: a long page's reading stops at its budget.
    converter.start = True
    for at in range(0, len(html), _HTML_PIECE):
        converter.feed(html[at : at + _HTML_PIECE])
        _within_budget()
    converter.feed("")
    return str(converter.optwrap(converter.finish())).strip()


_HTML_PIECE = 1 << 16


# A whole tag: its name, then anything up to its '>' but another '<' (so a run of
# unclosed tags is scanned once, not once per '<').
_WHOLE_TAG = re.compile(r"</?[A-Za-z][^<>]*>|<!doctype[^<>]*>", re.IGNORECASE)


def _tamed(html: str) -> str:
    """The markup with every '<' that opens no whole tag or comment written as "&lt;":
    the standard library's HTML parser, under html2text, rescans from each construct
    it cannot close to the end of the text (30 KB of "<a " took over 20 s, 40 KB of
    "<!--" 7 s); with every construct closed it reads in one pass. A comment without
    its "-->" is text, as it is to a browser that shows it."""
    out: list[str] = []
    start = 0  # of what is not yet copied
    at = html.find("<")
    closes_after = len(html)  # no "-->" after this point (found once, when a search fails)
    while at >= 0:
        if html.startswith("<!--", at):
            end = html.find("-->", at + 4) if at < closes_after else -1
            if end >= 0:
                at = html.find("<", end + 3)
                continue
            closes_after = min(closes_after, at)
        elif (tag := _WHOLE_TAG.match(html, at)) is not None:
            at = html.find("<", tag.end())
            continue
        out.append(html[start:at])
        out.append("&lt;")
        start = at + 1
        at = html.find("<", start)
    out.append(html[start:])
    return "".join(out)


# -- Google Keep --------------------------------------------------------------------


def _keep(name: str, data: bytes) -> Iterator[ImportRecord]:
    decoded = _decode(data)
    try:
        note = json.loads(decoded[0] if decoded else "")
    except (json.JSONDecodeError, ValueError):
        yield ImportFailure(name, "not valid JSON: skipped")
        return
    except RecursionError:
        yield ImportFailure(name, "JSON nested too deeply to read: skipped")
        return
    if not isinstance(note, dict) or not ({"textContent", "listContent", "title"} & note.keys()):
        return  # Takeout's other JSON files (labels, settings): not notes
    if note.get("isTrashed"):
        return  # in the bin: the person threw it away
    text = str(note.get("textContent") or "")
    items = note.get("listContent") or []
    if isinstance(items, list) and items:
        lines = [
            f"- [{'x' if i.get('isChecked') else ' '}] {str(i.get('text') or '').strip()}"
            for i in items
            if isinstance(i, dict)
        ]
        text = "\n".join(filter(None, [text.strip(), *lines]))
    warnings: list[str] = [decoded[1]] if decoded and decoded[1] else []
    labels = [
        str(label.get("name"))
        for label in _listed(note, "labels", warnings)
        if isinstance(label, dict) and label.get("name")
    ]
    created = _usec(note.get("createdTimestampUsec"), "createdTimestampUsec", warnings)
    updated = _usec(note.get("userEditedTimestampUsec"), "userEditedTimestampUsec", warnings)
    yield _note_or_empty(
        name, text, str(note.get("title") or ""), tuple(labels), created, updated,
        tuple(warnings), True,
    )  # fmt: skip


def _listed(fields: dict[str, Any], key: str, warnings: list[str]) -> list[Any]:
    """A field that should hold a list: what it holds, or nothing, said, when it is not."""
    value = fields.get(key)
    if value is None or isinstance(value, list):
        return value or []
    warnings.append(f"{key}: {str(value)[:40]!r} is not a list: left out")
    return []


def _usec(value: Any, what: str, warnings: list[str]) -> datetime | None:
    if value in (None, "", 0):
        return None
    try:
        moment = datetime.fromtimestamp(int(value) / 1_000_000, tz=UTC)
    except (TypeError, ValueError, OverflowError, OSError):
        moment = None
    if moment is None or not 1970 <= moment.year <= 2200:
        warnings.append(f"{what}: {str(value)[:40]!r} is not a date")
        return None
    return moment


# -- Footnote's own export ----------------------------------------------------------


def _footnote_export(
    archive: zipfile.ZipFile, info: zipfile.ZipInfo, budget: _Budget
) -> Iterator[ImportRecord]:
    """notes.json, a note at a time as it inflates: an account's export can hold
    more text than one file may (30 MB of UTF-8 at the default character quota).
    Damage before the first note refuses the archive; damage later keeps the notes
    before it and reports the rest unread."""
    try:
        member = _open_entry(archive, info, budget.limits)
    except ArchiveRefused as refused:
        raise ArchiveRefused(f"notes.json: {refused}") from None
    with member:
        notes = _json_list(
            _chunks(member, budget, damaged=_ZIP_ERRORS), budget.limits.max_entry_bytes
        )
        index = -1
        try:
            for index, note in enumerate(notes):
                source = f"notes.json#{note.get('id') if isinstance(note, dict) else index}"
                if isinstance(note, _Unreadable):
                    yield ImportFailure(source, note.reason)
                    continue
                yield from _alone(
                    source, _footnote_note(source, note, budget.limits), budget.limits
                )
        except ArchiveRefused as refused:
            if index < 0:
                raise
            yield ImportFailure("notes.json", f"{refused}: the notes after it are not read")


@dataclass(frozen=True)
class _Unreadable:
    """An item of a JSON list passed over (its end found, its value not read): why."""

    reason: str


# A JSON string (its closing quote captured: absent, the text ended inside it) or a bracket.
_JSON_STRUCTURE = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*(")?|[\[\]{}]', re.DOTALL)


def _json_end(text: str, pos: int) -> int | None:
    """Just past the array or object that opens at ``pos``, found by counting its
    brackets outside strings (no value is built); None if ``text`` ends inside it."""
    depth = 0
    for token in _JSON_STRUCTURE.finditer(text, pos):
        mark = token.group()
        if mark.startswith('"'):
            if token.group(1) is None:
                return None
            continue
        depth += 1 if mark in "[{" else -1
        if depth == 0:
            return token.end()
    return None


def _json_list(chunks: Iterator[bytes], max_item_chars: int) -> Iterator[Any]:
    """The items of a JSON list as its bytes arrive, each read by the stdlib's
    decoder; only the item being read is ever held. An item nested past what the
    decoder can read is passed over whole, as ``_Unreadable``."""
    import codecs

    decoder = json.JSONDecoder()
    utf8 = codecs.getincrementaldecoder("utf-8-sig")()
    buffer, pos, done = "", 0, False

    def more() -> bool:  # the next piece, after what is left of the buffer
        nonlocal buffer, pos, done
        if done:
            return False
        chunk = next(chunks, None)
        try:
            text = utf8.decode(chunk or b"", final=chunk is None)
        except UnicodeDecodeError:
            raise ArchiveRefused("notes.json is not UTF-8") from None
        buffer, pos, done = buffer[pos:] + text, 0, chunk is None
        return True

    def next_char() -> str | None:  # the next one that is not white space
        nonlocal pos
        while True:
            while pos < len(buffer) and buffer[pos] in " \t\r\n":
                pos += 1
            if pos < len(buffer):
                return buffer[pos]
            if not more():
                return None

    if next_char() != "[":
        raise ArchiveRefused("notes.json must be a list of notes")
    pos += 1
    if next_char() == "]":
        return
    while True:
        if next_char() is None:
            raise ArchiveRefused("notes.json ends before its list does")
        while True:  # an item ends where the decoder says, once a byte after it is read
            try:
                item, end = decoder.raw_decode(buffer, pos)
                if end < len(buffer) or done:
                    break
            except json.JSONDecodeError as exc:
                if done:
                    raise ArchiveRefused(f"notes.json is not valid JSON ({exc.msg})") from None
            except RecursionError:
                passed = _json_end(buffer, pos)
                if passed is not None and (passed < len(buffer) or done):
                    item, end = _Unreadable("nested too deeply to read: skipped"), passed
                    break
                if done:
                    raise ArchiveRefused("notes.json ends before its list does") from None
            if len(buffer) - pos > max_item_chars:
                raise ArchiveRefused(f"a note in notes.json is over {max_item_chars:,} characters")
            more()
        pos = end
        yield item
        separator = next_char()
        if separator == "]":
            return
        if separator != ",":
            raise ArchiveRefused("notes.json is not valid JSON (a ',' or ']' is missing)")
        pos += 1


def _footnote_note(source: str, note: Any, limits: ArchiveLimits) -> Iterator[ImportRecord]:
    if not isinstance(note, dict) or not isinstance(note.get("text", ""), str):
        yield ImportFailure(source, "not a note object: skipped")
        return
    warnings: list[str] = []
    created = _meta_date(note, ("created",), warnings)
    updated = _meta_date(note, ("updated",), warnings)
    tags = [t for t in _listed(note, "tags", warnings) if isinstance(t, str)]
    memory_type = _memory_type(note.get("type"), warnings)
    record = _note_or_empty(
        source,
        note.get("text") or "",
        str(note.get("title") or ""),
        tuple(tags),
        created,
        updated,
        tuple(warnings),
        True,
    )
    if isinstance(record, ImportedNote) and memory_type is not None:
        record = replace(record, type=memory_type)
    yield from _split_long(iter([record]), limits)


def _memory_type(value: Any, warnings: list[str]) -> MemoryType | None:
    if value is None:
        return None
    try:
        return MemoryType(value)
    except ValueError:
        warnings.append(f"type: {str(value)[:40]!r} is not a memory type: left unset")
        return None


# -- long notes ---------------------------------------------------------------------


def _split_long(records: Iterator[ImportRecord], limits: ArchiveLimits) -> Iterator[ImportRecord]:
    """A note longer than a note may be is kept, in parts ("Title (part 2 of 3)"),
    each cut at a paragraph (or line, or space) break, and says so once (its first
    part: the report lists each warning under the part it came with)."""
    for record in records:
        if isinstance(record, ImportFailure) or len(record.text) <= limits.max_note_chars:
            yield record
            continue
        parts = _parts(record.text, limits.max_note_chars)
        title = record.title or _stem(record.source)
        split = f"longer than {limits.max_note_chars:,} characters: split into {len(parts)} notes"
        for n, part in enumerate(parts, start=1):
            _within_budget()
            yield replace(
                record,
                source=f"{record.source}~part{n}",
                text=part,
                title=f"{title} (part {n} of {len(parts)})"[:200],
                warnings=(*record.warnings, split) if n == 1 else (),
            )


def _parts(text: str, size: int) -> list[str]:
    parts: list[str] = []
    while len(text) > size:
        cut = max(text.rfind(sep, 0, size) for sep in ("\n\n", "\n", " "))
        cut = cut if cut > size // 2 else size
        parts.append(text[:cut].strip())
        text = text[cut:]
    if text.strip():
        parts.append(text.strip())
    return parts


def _read_capped(stream: IO[bytes], limit: int, name: str) -> bytes:
    data = stream.read(limit + 1)
    if len(data) > limit:
        raise ArchiveRefused(f"{name} is larger than {limit:,} bytes; upload it as a zip")
    return data
