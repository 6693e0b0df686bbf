"""Notes as the API exposes them: tenant-scoped, with their index state.

The API is the only caller, and its request models (``api/schemas.py``) have already
checked and normalised every field against the limits in force: nothing is checked
twice here. The indexer checks what it reads on its own (``MalformedNote``), since
a note can be written behind the API's back.

Every write is accounted here, not at the edge: a create or an edit that grows a note
must fit the user's quotas (``QuotaService``) before anything is stored, and the
stored-character count follows every create, edit and delete."""

from __future__ import annotations

import base64
import binascii
import json
import re
import secrets
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from footnote.config import Settings
from footnote.domain import (
    ChangeMark,
    IndexState,
    IndexStatus,
    MemoryType,
    Note,
    NoteChanges,
    NoteEdit,
)
from footnote.errors import InvalidRequest, NotFound, PreconditionFailed, SyncTokenExpired
from footnote.ports import ChunkStore, NoteStore
from footnote.services.quotas import QuotaService
from footnote.services.results import ChangedNote, ChangeListing, NoteListing, NoteView

# Tokens are honoured for the tombstone retention less this margin.
_TOKEN_MARGIN = timedelta(days=1)
_TOKEN_KIND = "changes"


def encode_sync_token(
    position: ChangeMark | None, issued: datetime, floor: datetime | None = None
) -> str:
    """An opaque change-feed token bound to GET /notes/changes: the position (None:
    the start), when it was issued, and, between the pages of one sync, the floor
    the sync ends at (see ``NotesService.changes``)."""
    data: dict[str, Any] = {"e": _TOKEN_KIND, "i": issued.isoformat()}
    if position is not None:
        data |= {"t": position.moment.isoformat(), "id": position.note_id}
    if floor is not None:
        data["f"] = floor.isoformat()
    raw = json.dumps(data, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_sync_token(token: str) -> tuple[ChangeMark | None, datetime, datetime | None]:
    try:
        data = json.loads(base64.urlsafe_b64decode((token + "=" * (-len(token) % 4)).encode()))
        if not isinstance(data, dict) or data.get("e") != _TOKEN_KIND:
            raise ValueError("not a change-feed token")
        issued = _instant(data["i"])
        floor = _instant(data["f"]) if "f" in data else None
        if "t" not in data:
            return None, issued, floor
        note_id = data["id"]
        # "": a floor (every change at or after the moment)
        if not isinstance(note_id, str) or not (note_id == "" or _DOCUMENT_ID.fullmatch(note_id)):
            raise ValueError("bad id")
        return ChangeMark(_instant(data["t"]), note_id), issued, floor
    except (ValueError, KeyError, TypeError, OverflowError, binascii.Error, UnicodeError) as exc:
        raise InvalidRequest("since is not a valid sync token") from exc


def _key(mark: ChangeMark) -> tuple[datetime, str]:
    return mark.moment, mark.note_id


def _instant(value: Any) -> datetime:
    moment = datetime.fromisoformat(value)
    if moment.tzinfo is None:
        raise ValueError("naive time")
    return moment.astimezone(UTC)


_DOCUMENT_ID = re.compile(r"(?!__.*__$)[A-Za-z0-9_-]{1,200}")


def new_note_id() -> str:
    return secrets.token_urlsafe(15).replace("-", "a").replace("_", "b")


class NotesService:
    def __init__(
        self,
        settings: Settings,
        notes: NoteStore,
        chunks: ChunkStore,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        quotas: QuotaService | None = None,
    ) -> None:
        self._s = settings
        self._notes = notes
        self._chunks = chunks
        self._clock = clock
        self._quotas = quotas  # None: no per-user quotas (in-process test harnesses)

    def create(
        self,
        tenant_id: str,
        text: str,
        title: str | None,
        tags: Sequence[str] | None,
        memory_type: MemoryType | None,
    ) -> NoteView:
        now = self._clock()
        note = Note(
            id=new_note_id(),
            tenant_id=tenant_id,
            text=text,
            created_at=now,
            updated_at=now,
            title=title or "",
            tags=tuple(tags or ()),
            type=memory_type,
            version=1,
        )
        if self._quotas is None:
            return NoteView(self._notes.create_note(note), IndexStatus.PENDING)
        # The request model has normalised the text: its length is what is stored.
        with self._quotas.reserved(tenant_id, len(text), True):
            stored = self._notes.create_note(note)
        return NoteView(stored, IndexStatus.PENDING)

    def get(self, tenant_id: str, note_id: str) -> NoteView:
        note = self._notes.get_note(tenant_id, note_id)
        if note is None:
            raise NotFound("note not found")
        state = self._chunks.index_state(note_id)
        return NoteView(
            note,
            state.status if state else IndexStatus.PENDING,
            state.chunk_count if state else 0,
            _indexed_type(state),
        )

    def list(self, tenant_id: str, limit: int, cursor: str | None) -> NoteListing:
        """A page of notes, each with its index state (one batched read), so a list
        shows every note's state as it is, not "pending" until asked one by one."""
        page = self._notes.list_notes(tenant_id, limit, cursor)
        states = self._chunks.index_states([n.id for n in page.notes])
        return NoteListing(tuple(_listed(n, states) for n in page.notes), page.cursor)

    def changes(self, tenant_id: str, since: str | None, limit: int) -> ChangeListing:
        """``GET /notes/changes``: the notes created, edited or deleted after the
        position ``since`` names (everything when None), in commit order, and the
        token to go on from.

        A change's moment is its commit timestamp, but a commit may become visible
        a little after later ones (on the emulator, a write that waited for a lock
        keeps the earlier timestamp). So a sync (its pages, while ``hasMore``) ends
        with a token that does not go past ``SYNC_SETTLE_S`` before the sync
        started: the next sync sends the last seconds' changes again (the latest
        state of each note, harmless to apply twice), and a change that became
        visible late is among them. Pages within one sync go on from their last
        entry.

        A token carries when it was issued. Deletions are kept
        TOMBSTONE_RETENTION_DAYS; a token issued longer ago than that less a day's
        margin (the store's TTL and clocks) may have missed one: 410, and the
        client syncs in full."""
        now = self._clock()
        after, floor = None, None
        if since is not None:
            after, issued, floor = decode_sync_token(since)
            horizon = timedelta(days=self._s.tombstone_retention_days) - _TOKEN_MARGIN
            if issued < now - horizon:
                raise SyncTokenExpired(
                    "this sync token is older than the deletions kept: sync in full "
                    "(GET /notes/changes without since)"
                )
        if floor is None:  # the first page of a sync
            floor = now - timedelta(seconds=self._s.sync_settle_s)
        batch = self._notes.note_changes(tenant_id, after, limit)
        position = batch.last or after
        if batch.more:
            token = encode_sync_token(position, now, floor)
        else:
            settled = ChangeMark(floor, "")
            if position is None or _key(settled) < _key(position):
                position = settled
            token = encode_sync_token(position, now)
        # Each note with its index state (one batched read), as GET /notes lists it:
        # a note that arrives by the feed (an import, another device) shows its state.
        states = self._chunks.index_states([c.note.id for c in batch.changes if c.note])
        changed = tuple(
            ChangedNote(c.mark, None if c.note is None else _listed(c.note, states))
            for c in batch.changes
        )
        return ChangeListing(changed, token, batch.more)

    def update(
        self,
        tenant_id: str,
        note_id: str,
        fields: dict[str, Any],
        if_match: frozenset[int] | None = None,
    ) -> NoteView:
        """Edit the note. ``if_match``: the versions the caller edited (its
        ``If-Match``); PreconditionFailed with the current note if it moved on."""
        changes = NoteChanges(
            text=fields.get("text"),
            title=(fields["title"] or "") if "title" in fields else None,
            tags=tuple(fields["tags"] or ()) if "tags" in fields else None,
            type=fields.get("type"),
            clear_type="type" in fields and fields["type"] is None,
        )
        if self._quotas is None or changes.text is None:
            note = self._write(tenant_id, note_id, changes, if_match).after
        else:
            note = self._write_text(
                self._quotas, tenant_id, note_id, changes, changes.text, if_match
            )
        state = self._chunks.index_state(note_id)
        return NoteView(
            note, state.status if state else IndexStatus.PENDING, None, _indexed_type(state)
        )

    def delete(self, tenant_id: str, note_id: str, if_match: frozenset[int] | None = None) -> None:
        deleted = self._notes.delete_note(tenant_id, note_id, if_match)
        if deleted is None:
            raise NotFound("note not found")
        if self._quotas is not None:
            # The note the delete's own transaction removed, not an earlier read: an
            # edit in between cannot skew the count.
            self._quotas.adjust_chars(tenant_id, -len(deleted.text))

    def _write(
        self,
        tenant_id: str,
        note_id: str,
        changes: NoteChanges,
        if_match: frozenset[int] | None,
    ) -> NoteEdit:
        edit = self._notes.update_note(tenant_id, note_id, changes, self._clock(), if_match)
        if edit is None:
            raise NotFound("note not found")
        return edit

    def _write_text(
        self,
        quotas: QuotaService,
        tenant_id: str,
        note_id: str,
        changes: NoteChanges,
        text: str,
        if_match: frozenset[int] | None,
    ) -> Note:
        """An edit of the text: reserve what it grows by before writing (refused, it
        changes nothing), then correct the count by what the update's own transaction
        replaced: new length - replaced length - reserved growth.

        The read here only sizes the reservation, and a stale size is safe: the count
        ends at exactly the sum of stored lengths whatever was reserved, since the
        correction uses the transaction's figure. An edit committing in between that
        grew the note makes the reservation larger than the real growth (stricter,
        and given back at once). One that shrank it between this read and the
        reservation makes the reservation too small, and the correction then lifts the
        count past what was checked: the limit can be overshot by at most that
        shrink (one note, ≤ NOTE_MAX_CHARS), and the count stays exact."""
        current = self._notes.get_note(tenant_id, note_id)
        if current is None:
            raise NotFound("note not found")
        if if_match is not None and current.version not in if_match:
            raise PreconditionFailed(current)  # moved on: no reservation to give back
        growth = max(len(text) - len(current.text), 0)
        with quotas.reserved(tenant_id, growth, False) as reservation:
            edit = self._write(tenant_id, note_id, changes, if_match)
        grown = len(edit.after.text) - len(edit.before.text)
        quotas.adjust_chars(tenant_id, grown - reservation.chars)
        return edit.after


def _listed(note: Note, states: Mapping[str, IndexState]) -> NoteView:
    """A note in a listing or the change feed, with its state from a batched read."""
    state = states.get(note.id)
    return NoteView(
        note, state.status if state else IndexStatus.PENDING, memory_type=_indexed_type(state)
    )


def _indexed_type(state: IndexState | None) -> MemoryType | None:
    """The memory type of the note's current index (none while it is pending)."""
    if state is None or state.status is not IndexStatus.INDEXED:
        return None
    return state.memory_type
