"""Reading other apps' note archives: pure parsing, no I/O but the stream it is given.

``read_archive`` turns an export (a Markdown folder or Obsidian vault as a zip, an
Evernote ``.enex``, a Google Keep Takeout zip, a Notion export zip, Footnote's own
export) into a stream of ``ImportedNote`` and ``ImportFailure`` records, each note
with its own dates. Whole-archive problems (not a format we read, a corrupt zip, a
zip bomb) raise ``ArchiveRefused`` with the reason a person can act on.
"""

from footnote.archives.read import (
    ArchiveLimits,
    ArchiveRefused,
    ImportedNote,
    ImportFailure,
    ImportRecord,
    read_archive,
)

__all__ = [
    "ArchiveLimits",
    "ArchiveRefused",
    "ImportFailure",
    "ImportRecord",
    "ImportedNote",
    "read_archive",
]
