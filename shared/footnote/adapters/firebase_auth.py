"""Firebase ID token verification with firebase-admin (the Auth emulator locally)."""

from __future__ import annotations

import logging
import time
from typing import Any

from footnote.adapters.firebase_app import FirebaseAppUser
from footnote.errors import Unauthenticated

log = logging.getLogger(__name__)
_CLOCK_SKEW_S = 60


class FirebaseTokenVerifier(FirebaseAppUser):
    """Verifies signature, expiry, audience and issuer; the uid is the tenant.

    With FIREBASE_AUTH_EMULATOR_HOST set, firebase-admin accepts the emulator's
    unsigned tokens (and only then).
    """

    def verify(self, token: str) -> str:
        from firebase_admin import auth

        if not token or len(token) > 8192:
            raise Unauthenticated("a valid Firebase ID token is required")
        try:
            claims = auth.verify_id_token(token, app=self._get_app())
        except Exception as exc:  # every failure looks the same to the caller
            log.info("token rejected: %s", type(exc).__name__)
            raise Unauthenticated("a valid Firebase ID token is required") from None
        uid = claims.get("uid") or claims.get("sub")
        if not isinstance(uid, str) or not _usable_uid(uid) or not _fresh(claims):
            raise Unauthenticated("a valid Firebase ID token is required")
        return uid


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
