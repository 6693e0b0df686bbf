"""Firebase App Check token verification (firebase-admin): the request comes from
our registered web app, not a script. Enabled by APP_CHECK=enforce."""

from __future__ import annotations

import logging

from footnote.adapters.firebase_app import FirebaseAppUser, token_errors
from footnote.errors import Unauthenticated

log = logging.getLogger(__name__)
_MESSAGE = "a valid Firebase App Check token is required (X-Firebase-AppCheck)"


class FirebaseAppCheckVerifier(FirebaseAppUser):
    def verify(self, token: str) -> str:
        from firebase_admin import app_check

        if not token or len(token) > 8192:
            raise Unauthenticated(_MESSAGE)
        try:
            claims = app_check.verify_token(token, app=self._get_app())
        except token_errors() as exc:  # every failure looks the same to the caller
            log.info("App Check token rejected: %s", type(exc).__name__)
            raise Unauthenticated(_MESSAGE) from None
        app_id = claims.get("app_id") or claims.get("sub")
        if not isinstance(app_id, str) or not app_id:
            raise Unauthenticated(_MESSAGE)
        return app_id
