"""The firebase-admin app both verifiers (ID tokens, App Check) use: one per project,
initialised on first use so a cold start that serves no request imports nothing."""

from __future__ import annotations

import threading
from functools import cache
from typing import Any

_lock = threading.Lock()


def firebase_app(project_id: str) -> Any:
    """The process's firebase-admin app for ``project_id`` (Application Default
    Credentials in production; the emulators need none)."""
    import firebase_admin

    name = f"footnote-{project_id}"
    with _lock:
        try:
            return firebase_admin.get_app(name)
        except ValueError:  # not initialised yet
            return firebase_admin.initialize_app(options={"projectId": project_id}, name=name)


class FirebaseAppUser:
    """Base of the verifiers: ``_app`` is the app to use, set on first use (tests set
    it to an app with a credential that needs no metadata server)."""

    def __init__(self, project_id: str, app: Any = None) -> None:
        self._project_id = project_id
        self._app = app

    def _get_app(self) -> Any:
        if self._app is None:
            self._app = firebase_app(self._project_id)
        return self._app


@cache
def token_errors() -> tuple[type[BaseException], ...]:
    """What verifying a token raises when it cannot be verified: malformed, forged,
    expired, revoked, of a deleted or disabled account (firebase-admin's ValueError
    and FirebaseError, google-auth's and PyJWT's errors), or the signing keys could
    not be fetched (the network). Each means "not verified" to the caller; anything
    else is a bug and surfaces."""
    import jwt
    from firebase_admin import exceptions
    from google.auth import exceptions as google_auth

    return (
        ValueError,
        OSError,
        exceptions.FirebaseError,
        google_auth.GoogleAuthError,
        jwt.PyJWTError,
    )
