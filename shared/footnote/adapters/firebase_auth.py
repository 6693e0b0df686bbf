"""Firebase ID token verification with firebase-admin (the Auth emulator locally)."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from footnote.adapters.firebase_app import FirebaseAppUser, token_errors
from footnote.errors import Unauthenticated

log = logging.getLogger(__name__)
_CLOCK_SKEW_S = 60
_CACHE_MAX = 10_000  # tokens whose account check an instance remembers


class FirebaseTokenVerifier(FirebaseAppUser):
    """Verifies signature, expiry, audience and issuer; the uid is the tenant.

    With FIREBASE_AUTH_EMULATOR_HOST set, firebase-admin accepts the emulator's
    unsigned tokens (and only then).

    Revocation (``revocation_cache_s`` not None, as the wiring builds it): a token
    of a deleted or disabled account, or one issued before the account's tokens were
    revoked, is refused. Asking Firebase Auth costs a round trip per request
    (``check_revoked=True`` reads the user record), so the answer is kept per token
    (uid and issue time) on this instance for ``revocation_cache_s`` and used for
    reads (``fresh=False``); writes (``fresh=True``) always ask. A deleted account's
    token thus stops writing at once and stops reading within the cache's bound.
    """

    def __init__(
        self,
        project_id: str,
        app: Any = None,
        revocation_cache_s: float | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__(project_id, app)
        self._cache_s = revocation_cache_s
        self._clock = clock
        self._lock = threading.Lock()
        self._checked: dict[tuple[str, Any], float] = {}  # (uid, iat) -> when found valid

    def verify(self, token: str, fresh: bool = False, check_account: bool = True) -> str:
        from firebase_admin import auth

        if not token or len(token) > 8192:
            raise Unauthenticated("a valid Firebase ID token is required")
        try:
            claims = auth.verify_id_token(token, app=self._get_app())
        except token_errors() as exc:  # every failure looks the same to the caller
            log.info("token rejected: %s", type(exc).__name__)
            raise Unauthenticated("a valid Firebase ID token is required") from None
        uid = claims.get("uid") or claims.get("sub")
        if not isinstance(uid, str) or not _usable_uid(uid) or not _fresh(claims):
            raise Unauthenticated("a valid Firebase ID token is required")
        if self._cache_s is not None and check_account:
            self._check_account(token, (uid, claims.get("iat")), fresh)
        return uid

    def _check_account(self, token: str, key: tuple[str, Any], fresh: bool) -> None:
        from firebase_admin import auth

        now = self._clock()
        with self._lock:
            checked = self._checked.get(key)
        if not fresh and checked is not None and now - checked < (self._cache_s or 0):
            return
        try:
            # The library's own check: the user record exists, is enabled, and its
            # tokens were not revoked after this one was issued.
            auth.verify_id_token(token, app=self._get_app(), check_revoked=True)
        except token_errors() as exc:
            with self._lock:
                self._checked.pop(key, None)
            log.info("token rejected: %s", type(exc).__name__)
            raise Unauthenticated("a valid Firebase ID token is required") from None
        with self._lock:
            if len(self._checked) >= _CACHE_MAX:
                self._checked.clear()  # bounded memory; the next requests ask again
            self._checked[key] = now


def _fresh(claims: dict[str, Any]) -> bool:
    """Expiry and issue time, checked here too: with FIREBASE_AUTH_EMULATOR_HOST set,
    firebase-admin skips them along with the signature."""
    exp, iat = claims.get("exp"), claims.get("iat")
    now = time.time()
    if not isinstance(exp, (int, float)) or isinstance(exp, bool) or exp <= now:
        return False
    return not (isinstance(iat, (int, float)) and iat > now + _CLOCK_SKEW_S)


def _usable_uid(uid: str) -> bool:
    """The uid names Firestore documents (tenants/{uid}): no path tricks, no reserved ids."""
    return (
        0 < len(uid) <= 128
        and "/" not in uid
        and uid not in (".", "..")
        and not (uid.startswith("__") and uid.endswith("__"))
    )
