"""Per-user quotas: requests per minute for /chat and /search, notes written per
day, and total stored note characters. Checked before any work is done (request
rates by the API, note writes by ``NotesService``), so a request over a quota costs
one counter transaction and stores nothing.

Windows are fixed (the UTC minute, the UTC day): a user can spend a full minute's
allowance at the end of one minute and again at the start of the next, so the
worst case over any 60 s is twice the per-minute limit. Counters are exact under
concurrency (one transaction per counter), so concurrent requests of one user never
overshoot a window's limit. A limit of 0 turns that quota off.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from footnote.config import Settings
from footnote.errors import QuotaExceeded
from footnote.ports import QuotaCounter

# Stored characters have no window: they come back when notes are deleted or shortened.
_STORAGE_RETRY_AFTER_S = 3600


@dataclass(frozen=True)
class Reservation:
    """What a note write reserved, to give back if the write does not happen."""

    tenant_id: str
    notes_key: str | None
    chars: int


class QuotaService:
    def __init__(
        self,
        settings: Settings,
        counter: QuotaCounter,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self._s = settings
        self._counter = counter
        self._clock = clock

    # -- requests per minute --------------------------------------------------------
    @contextmanager
    def charged(self, tenant_id: str, endpoint: str) -> Iterator[None]:
        """``charge_request`` for the work inside the block, given back if it fails
        (an unknown conversation, a bad cursor, a backend down): a request that did
        nothing for the caller costs none of their allowance."""
        key = self.charge_request(tenant_id, endpoint)
        try:
            yield
        except BaseException:
            if key is not None:
                self._counter.consume(key, -1, 1, window_expiry(key))
            raise

    def charge_request(self, tenant_id: str, endpoint: str) -> str | None:
        """Count one /chat or /search request; QuotaExceeded if over the minute's limit.
        The counter charged (None when the quota is off)."""
        limit = {"chat": self._s.quota_chat_per_minute, "search": self._s.quota_search_per_minute}[
            endpoint
        ]
        if limit <= 0:
            return None
        now = self._clock()
        start = now.replace(second=0, microsecond=0)
        end = start + timedelta(minutes=1)
        key = f"{tenant_id}:{endpoint}:{start:%Y%m%d%H%M}"
        if self._counter.consume(key, 1, limit, window_expiry(key)) is None:
            raise QuotaExceeded(
                f"too many {endpoint} requests: at most {limit} per minute",
                quota=f"{endpoint}PerMinute",
                limit=limit,
                retry_after=_seconds_until(now, end),
            )
        return key

    # -- exports --------------------------------------------------------------------
    def charge_export(self, tenant_id: str) -> None:
        """Count one export started today; QuotaExceeded past QUOTA_EXPORTS_PER_DAY."""
        self._charge_day(tenant_id, "exports", self._s.quota_exports_per_day)

    def charge_upload(self, tenant_id: str) -> None:
        """Count one upload session handed out today; QuotaExceeded past
        QUOTA_UPLOADS_PER_DAY."""
        self._charge_day(tenant_id, "uploads", self._s.quota_uploads_per_day)

    def _charge_day(self, tenant_id: str, what: str, limit: int) -> None:
        if limit <= 0:
            return
        now = self._clock()
        day = now.replace(hour=0, minute=0, second=0, microsecond=0)
        end = day + timedelta(days=1)
        key = f"{tenant_id}:{what}:{day:%Y%m%d}"
        if self._counter.consume(key, 1, limit, window_expiry(key)) is None:
            raise QuotaExceeded(
                f"too many {what} today: at most {limit} per day",
                quota=f"{what}PerDay",
                limit=limit,
                retry_after=_seconds_until(now, end),
            )

    # -- notes ----------------------------------------------------------------------
    def reserve_note(self, tenant_id: str, chars: int, new_note: bool) -> Reservation:
        """Before a note is written: one note of today's allowance (if new) and
        ``chars`` more stored characters (negative when a note shrinks)."""
        s = self._s
        notes_key = None
        if new_note and s.quota_notes_per_day > 0:
            now = self._clock()
            day = now.replace(hour=0, minute=0, second=0, microsecond=0)
            end = day + timedelta(days=1)
            notes_key = f"{tenant_id}:notes:{day:%Y%m%d}"
            if (
                self._counter.consume(notes_key, 1, s.quota_notes_per_day, window_expiry(notes_key))
                is None
            ):
                raise QuotaExceeded(
                    f"too many notes today: at most {s.quota_notes_per_day} per day",
                    quota="notesPerDay",
                    limit=s.quota_notes_per_day,
                    retry_after=_seconds_until(now, end),
                )
        if chars and s.quota_stored_chars > 0:
            key = self.chars_key(tenant_id)
            if self._counter.consume(key, chars, s.quota_stored_chars, None) is None:
                if notes_key is not None:
                    self._counter.consume(
                        notes_key, -1, s.quota_notes_per_day, window_expiry(notes_key)
                    )
                raise QuotaExceeded(
                    f"stored notes would exceed {s.quota_stored_chars} characters: "
                    "delete or shorten notes to make room",
                    quota="storedChars",
                    limit=s.quota_stored_chars,
                    retry_after=_STORAGE_RETRY_AFTER_S,
                )
        else:
            chars = 0
        return Reservation(tenant_id, notes_key, chars)

    @contextmanager
    def reserved(self, tenant_id: str, chars: int, new_note: bool) -> Iterator[Reservation]:
        """``reserve_note`` for the write inside the block, given back if it fails."""
        reservation = self.reserve_note(tenant_id, chars, new_note)
        try:
            yield reservation
        except BaseException:
            self.release(reservation)
            raise

    def release(self, reservation: Reservation) -> None:
        """The write did not happen: give back what it reserved."""
        s = self._s
        if reservation.notes_key is not None:
            key = reservation.notes_key
            self._counter.consume(key, -1, s.quota_notes_per_day, window_expiry(key))
        if reservation.chars:
            self.adjust_chars(reservation.tenant_id, -reservation.chars)

    def adjust_chars(self, tenant_id: str, delta: int) -> None:
        """Correct the stored-character total after a write or delete (never refused)."""
        if delta and self._s.quota_stored_chars > 0:
            key = self.chars_key(tenant_id)
            if delta < 0:
                self._counter.consume(key, delta, self._s.quota_stored_chars, None)
            else:  # a correction upwards is recorded even past the limit
                self._counter.consume(key, delta, 2**62, None)

    def stored_chars(self, tenant_id: str) -> int:
        return self._counter.value(self.chars_key(tenant_id))

    @staticmethod
    def chars_key(tenant_id: str) -> str:
        return f"{tenant_id}:storedChars"


def window_expiry(key: str) -> datetime:
    """When a window's counter may go (its TTL field), from the window in its key
    (``…:YYYYmmddHHMM`` a minute, ``…:YYYYmmdd`` a day): the same as when it was
    charged. Every write carries it, a give-back too: a counter re-created by a late
    give-back (the notes step of an account deletion already past) still expires."""
    stamp = key.rsplit(":", 1)[-1]
    if len(stamp) == 12:
        return datetime.strptime(stamp, "%Y%m%d%H%M").replace(tzinfo=UTC) + timedelta(minutes=6)
    return datetime.strptime(stamp, "%Y%m%d").replace(tzinfo=UTC) + timedelta(days=1, hours=1)


def _seconds_until(now: datetime, end: datetime) -> int:
    return max(1, math.ceil((end - now).total_seconds()))
